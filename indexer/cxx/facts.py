"""The facts one C++/CUDA/Objective-C++ file yields: frozen dataclasses (and one named tuple).

Lines are 1-based; a fact's file is `CxxFacts.path`, so `Location(facts.path, fact.line)`
is where it is written. Kinds are the StrEnums of indexer/vocab.py (plain strings in SQL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..vocab import DefinitionKind, RegistrationKind, StubKind, StubUseHow
from .kinds import ClassKind, UsingKind
from .method_tables import MethodDefFact, MethodInstallFact

@dataclass(frozen=True)
class DefinitionFact:
    """A function body: free function, method, CUDA kernel or structured kernel."""

    name: str  # "foo"; structured: "add_out", "add.Tensor"
    qualified_name: str  # "at::native::(anonymous)::foo"
    kind: DefinitionKind  # function | method | global_kernel | device_function | meta_func | impl_func
    signature: str  # the declarator, whitespace-normalised
    line: int
    end_line: int
    is_template: bool
    qualifiers: tuple[str, ...]  # ("__global__",), ("static", "__device__", "__forceinline__")
    macro: str | None = None  # TORCH_META_FUNC2, TORCH_IMPL_FUNC, ... for structured kernels
    guard: str | None = None  # the #if conditions around it, innermost last: "!(AT_CUDNN_ENABLED())" (directives.py)
    min_args: int = 0  # the parameters without a default
    max_args: int = 0  # all parameters; -1 when variadic (`...` or a parameter pack)
    name_line: int = 0  # the line its name is written on (the declarator's), where a reader points; 0: same as line
    template_params: tuple[str, ...] | None = None  # "K:template", "RNG:type", "N:value" per parameter of its template head; None: no template
    returns: str | None = None  # the declared return type, normalised like a receiver type ("TensorOptions"); None: auto, none
    constrained: bool = False  # a template overload resolution may drop (SFINAE): template_params.py constrained
    loops: bool = False  # its body holds a for, while or do loop (definitions.has_loop)
    called_params: str | None = None  # JSON list, "name:position" of each parameter its own body calls (`f(x)` with f
    # a parameter: a function, functor or lambda handed to it); None: none (definitions.called_parameters)


@dataclass(frozen=True)
class StubFact:
    """One effect of a DispatchStub macro site (a site may register several arches)."""

    kind: StubKind  # declare | define | register
    macro: str  # "REGISTER_DISPATCH"
    stub: str  # "add_stub"
    line: int
    device: str | None = None  # CPU, CUDA, HIP, MPS, XPU, MTIA, PrivateUse1 (register only)
    arch: str | None = None  # DEFAULT, AVX2, AVX512, VSX, ZVECTOR, SVE256 (CPU only)
    kernel: str | None = None  # "add_kernel" (leading & dropped); None for nullptr
    is_nullptr: bool = False
    fn_type: str | None = None  # DECLARE_DISPATCH's function pointer type
    scope: str = ""  # the namespaces around the macro site, "::"-joined ("at::native::cpublas"); stub is looked up from it


@dataclass(frozen=True)
class StubUseFact:
    """A stub called (`add_stub(device_type(), ...)`) or passed to a helper."""

    stub: str
    caller: str
    line: int
    how: StubUseHow  # call | argument


class CallFact(NamedTuple):
    """A call edge by name (a named tuple: a file has thousands, and a tuple is made fastest)."""

    caller: str | None
    callee: str  # as written, whitespace removed: "at::cuda::blas::gemm<scalar_t>", "iter.dtype"
    callee_name: str  # last component, no template arguments: "gemm", "dtype"
    line: int
    argc: int = 0  # the arguments written at the call: 0 for f()
    receiver_type: str | None = None  # x.f() / x->f(): x's declared type in the caller ("TensorIteratorBase"); x(...)
    # on a parameter or local of a written type: that type (its operator() is called)
    arg_types: str | None = None  # JSON list, each argument's type where the text says it for certain (argument_types.py)
    receiver_const: bool | None = None  # whether the object a member call is made on is const; None: not known
    lambda_line: int | None = None  # `f(x)` with f a local variable holding a lambda: the lambda's line
    forwards: str | None = None  # the arguments that are a parameter of the caller with a default value, handed on
    # as they are: "place:parameter" comma-joined, 0-based ("1:1": the second argument is the caller's second
    # parameter); the walk knows the callee's parameter is left to its default when the caller's is


@dataclass(frozen=True)
class LaunchFact:
    """A `<<<...>>>` launch or a launch helper (gpu_kernel, cpu_kernel_vec, parallel_for ...)."""

    kind: str  # "triple_chevron" or the helper's name ("gpu_kernel", "parallel_for", ...)
    kernel: str | None  # kernel or functor name; None when the helper runs a lambda
    template_args: str | None  # "<float>" / "<scalar_t, 4>"
    config: tuple[str, ...]  # (grid, block[, shmem[, stream]]) for triple_chevron
    caller: str | None
    line: int  # triple_chevron: the line of `<<<`; helper: the line the call starts
    lambda_line: int | None = None  # start line of the lambda the helper runs
    macro: str | None = None  # the #define whose body holds the launch
    handed: str | None = None  # a lambda's parameter launched: where the lambda is handed (launches.handed_lambda)


@dataclass(frozen=True)
class DtypeDispatchFact:
    """An AT_DISPATCH_* / AT_DISPATCH_V2 use (directly or through a file-local wrapper)."""

    macro: str  # as written: "AT_DISPATCH_FLOATING_TYPES_AND2" or the wrapper's name
    dtypes: tuple[str, ...]  # ("FLOATING_TYPES", "kHalf", "kBFloat16"); V2: ("AT_ALL_TYPES", "kHalf")
    name: str | None  # the name string: "add_cpu"
    caller: str | None
    line: int
    via: str | None = None  # the AT_DISPATCH_* macro a file-local wrapper expands to


@dataclass(frozen=True)
class DeviceBranchFact:
    """Lines of a function body that run only on some devices: a branch of an `if` that tests a device
    (device_branches.py)."""

    first_line: int
    last_line: int
    not_on: str  # the devices it never runs on, comma-joined: "CPU,CUDA,HIP,XPU,Meta"
    line: int  # the `if`; for PREPROCESSOR, the line of the directive that opens the stretch
    branch: str  # then, else, after (the statements after an `if` whose then-branch returns), or PREPROCESSOR
    condition: str  # the condition as written, whitespace collapsed, cut at 200 characters; for PREPROCESSOR the guard
    parameter: int | None = None  # the condition tests only this parameter of the function (0-based), which has a
    # device as its default value: where a call leaves it to that default, the branch runs as on default_device
    default_device: str | None = None  # that default's device: "CPU" for `Device device = at::kCPU`


@dataclass(frozen=True)
class LibraryCallFact:
    """A call into a vendor library family."""

    family: str  # cublas cublaslt cudnn cufft cusparse cusolver magma onednn mkl flash_attention mem_efficient_attention
    callee: str
    caller: str | None
    line: int


@dataclass(frozen=True)
class RegistrationFact:
    """A TORCH_LIBRARY* block or one m.impl / m.def / m.fallback in it."""

    kind: RegistrationKind  # block | impl | def | fallback
    macro: str  # TORCH_LIBRARY | TORCH_LIBRARY_IMPL | TORCH_LIBRARY_FRAGMENT
    namespace: str  # "aten"; "_" for a catch-all TORCH_LIBRARY_IMPL(_, Key, m)
    dispatch_key: str | None  # "CPU"; None for TORCH_LIBRARY / _FRAGMENT
    op: str | None  # "aten::add.Tensor" / "add.Tensor" as written, schema stripped
    schema: str | None  # the full schema string of an m.def("foo(Tensor x) -> Tensor")
    function: str | None  # "add_out_cpu" from TORCH_FN(add_out_cpu) / &add_out_cpu / add_out_cpu
    line: int
    via: str | None = None  # the file-local (or functorch helper) macro used


@dataclass(frozen=True)
class RegistrationMacroUseFact:
    """A macro used in a TORCH_LIBRARY* block that the file's own macros do not turn into
    registrations (its definition is elsewhere: a header, an X-macro list); the dispatcher stage
    expands it with the cross-file macro table."""

    macro: str  # the block's macro: TORCH_LIBRARY_IMPL, TORCH_LIBRARY, TORCH_LIBRARY_FRAGMENT
    namespace: str  # the block's namespace ("_" for a catch-all block)
    dispatch_key: str | None  # the block's key; None for TORCH_LIBRARY / _FRAGMENT
    variable: str  # the block's library variable: "m"
    name: str  # the macro used: "VMAP_SUPPORT", "AT_FORALL_LOWER_PRECISION_FP"
    arguments: tuple[str, ...]  # its arguments as written, whitespace folded
    line: int


@dataclass(frozen=True)
class IncludeFact:
    """An `#include "x"` / `#include <x>` (or #include_next) as written, in any #if branch."""

    target: str  # "ATen/native/BinaryOps.h"; a macro name when the include is computed
    line: int
    system: bool  # <x>
    guard: str | None = None  # the #if conditions the #include is written under (directives.py), None: none


@dataclass(frozen=True)
class DefinitionMacroUseFact:
    """A use at namespace or class scope of a macro the file does not define, with one of the file's own
    definers as an argument: an X-macro list of another file applied to a local macro that writes functions
    (`AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(DEFINE_CAST)`). The build extracts the file again with the list's
    #define from the cross-file macro table (shared_macros.py), and the definitions it writes are the file's.
    Also, recorded on that second pass only, a use in a function body of another file's macro that calls one of
    its parameters or launches (`CUB_WRAPPER(...)`, body_macros.calls_parameter), expanded the same way."""

    name: str  # the macro used: "AT_FORALL_SCALAR_TYPES_WITH_COMPLEX"
    arguments: tuple[str, ...]  # its arguments as written, whitespace folded
    line: int
    expanded: str | None = None  # the hash of the other files' #defines it was expanded with; None: not expanded


@dataclass(frozen=True)
class MacroFact:
    """A #define of the file: the cross-file macro table's row."""

    name: str
    params: str | None  # None: object-like; "(a, b)", "()", "(...)" as written, whitespace folded
    body: str  # comments stripped, continuations joined, whitespace folded; at most MACRO_BODY_LIMIT characters
    line: int
    truncated: bool = False  # the body was longer than MACRO_BODY_LIMIT and is cut there
    guard: str | None = None  # the #if conditions the #define is written under (directives.py), None: none


@dataclass(frozen=True)
class UsingFact:
    """A using-directive, using-declaration, namespace alias or alias declaration."""

    kind: UsingKind  # directive | declaration | alias
    name: str  # what is named: "at::native" (directive, namespace alias), "at::native::foo"; the aliased type (whitespace folded)
    alias: str | None  # the new name of an alias: "F" of `namespace F = ...`, "Foo" of `using Foo = ...`
    scope: str  # the enclosing namespaces as in qualified names ("" at file level), or the enclosing function
    line: int


@dataclass(frozen=True)
class ClassFact:
    """A class, struct or union definition with a body."""

    name: str  # "AddFunctor"
    qualified_name: str  # "at::native::(anonymous)::AddFunctor"
    kind: ClassKind  # class | struct | union | enum
    line: int
    end_line: int
    bases: tuple[str, ...]  # as written, access specifiers dropped: ("TensorIteratorBase",)
    is_template: bool
    has_call_operator: bool  # declares or defines operator() in its body
    fields: tuple[FieldFact, ...] = ()  # its data members with a written type, in order


@dataclass(frozen=True)
class FieldFact:
    """A data member of a class: what `x_.f()` in a method defined elsewhere, or `args.idesc.f()`, calls on."""

    name: str  # "packed_"
    type: str  # as receiver types are written (cxx/receivers.py normalised_type), `*` added for a pointer


@dataclass(frozen=True)
class ConstantFact:
    """A variable at namespace scope, const, constexpr or not (constants.py): what an argument or a receiver that
    names it is."""

    name: str  # "kLong"
    qualified_name: str  # "c10::kLong" (the enclosing namespaces, as in definitions.qualified_name)
    type: str  # as receiver types are written (`ScalarType`), `*` added for a pointer; `decltype(Layout::Strided)` for an auto one
    line: int
    macro: str | None = None  # the file's own macro whose use at this line declares it (an X-macro list)
    constant: bool = True  # declared const or constexpr


@dataclass(frozen=True)
class KernelAliasFact:
    """A variable or array that holds kernels or function pointers and is called or launched later."""

    name: str  # the variable: "kernel", "kernels"
    targets: tuple[str, ...]  # the names written, template arguments and & dropped: ("k1", "k2")
    caller: str | None  # the enclosing function; None at namespace scope
    line: int


@dataclass(frozen=True)
class InlineNamespaceFact:
    """An `inline namespace N {`: its members are visible in the enclosing namespace."""

    qualified_name: str  # as in qualified names: "at::native::CPU_CAPABILITY"
    line: int


@dataclass(frozen=True)
class CxxFacts:
    path: str
    language: str  # cpp | cuda
    definitions: tuple[DefinitionFact, ...] = ()
    stubs: tuple[StubFact, ...] = ()
    stub_uses: tuple[StubUseFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    launches: tuple[LaunchFact, ...] = ()
    dtype_dispatches: tuple[DtypeDispatchFact, ...] = ()
    library_calls: tuple[LibraryCallFact, ...] = ()
    registrations: tuple[RegistrationFact, ...] = ()
    registration_macro_uses: tuple[RegistrationMacroUseFact, ...] = ()
    definition_macro_uses: tuple[DefinitionMacroUseFact, ...] = ()
    includes: tuple[IncludeFact, ...] = ()
    macros: tuple[MacroFact, ...] = ()
    usings: tuple[UsingFact, ...] = ()
    classes: tuple[ClassFact, ...] = ()
    constants: tuple[ConstantFact, ...] = ()
    kernel_aliases: tuple[KernelAliasFact, ...] = ()
    inline_namespaces: tuple[InlineNamespaceFact, ...] = ()
    device_branches: tuple[DeviceBranchFact, ...] = ()
    method_defs: tuple[MethodDefFact, ...] = ()  # Python method tables (method_tables.py)
    method_installs: tuple[MethodInstallFact, ...] = ()
    parse_errors: int = 0  # ERROR + MISSING nodes (+1 if extraction itself failed)
    failure: str | None = None  # "ExceptionType: message" when extraction stopped early (a bug to report)
