"""The data contract: every table of the index, every column documented.

A fact table's columns are its fact class's fields (indexer/rows.py derives the rows from them;
tests/test_schema.py checks that these models say the same).

People write their own SQL against these tables (and the views in views.sql),
so each column says what it holds. Locations are always a path relative to the
checkout root plus a 1-based line. Booleans are 0/1 integers, lists are JSON
arrays in TEXT columns.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .version import SCHEMA_VERSION  # noqa: F401  (re-exported)


class Base(DeclarativeBase):
    pass


class Meta(Base):
    """One row per fact about the build: checkout, pytorch_version, indexed_at,
    tool_version (the installed tg-index's), schema_version, seconds, files, parsed and
    py_parsed (files extracted by this build), cxx_key and py_key (what cached facts depend on), link_key (the link stage's code: the graph is made again when it changes),
    excludes, stub_macros (the path of DispatchStub.h, or `built-in (DispatchStub.h missing)`),
    partial_files (how many files' status is `partial: ...`), dispatch_table_warning (why the dispatch keys
    were not read, else empty)."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String, primary_key=True, comment="name of the fact")
    value: Mapped[str] = mapped_column(Text, comment="its value, as text")


class File(Base):
    """Every source file the build read (or skipped), with its content hash."""

    __tablename__ = "files"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    path: Mapped[str] = mapped_column(String, unique=True, comment="path relative to the checkout; .tg-codegen/... for a file that --codegen generated (in meta codegen_dir)")
    language: Mapped[str] = mapped_column(String, comment="yaml, cpp, cuda, objcpp or python")
    sha256: Mapped[str] = mapped_column(String, comment="hash of the content; unchanged files are not parsed again")
    size: Mapped[int] = mapped_column(Integer, comment="bytes")
    parse_errors: Mapped[int] = mapped_column(Integer, default=0, comment="tree-sitter ERROR/MISSING nodes; 1 for a Python file that does not parse")
    status: Mapped[str] = mapped_column(String, default="ok", comment="ok; partial: ... (extraction stopped early), error: ... (Python that does not parse), skipped: ...")


class Tag(Base):
    """tags.yaml: the tags an op may carry."""

    __tablename__ = "tags"
    name: Mapped[str] = mapped_column(String, primary_key=True, comment="tag name, e.g. pointwise")
    description: Mapped[str] = mapped_column(Text, comment="the desc: text")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer)


class Op(Base):
    """One row per operator of native_functions.yaml, plus the ones autogen generates."""

    __tablename__ = "ops"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True, comment="operator name with overload: add.out, relu")
    namespace: Mapped[str] = mapped_column(String, comment="aten")
    base: Mapped[str] = mapped_column(String, index=True, comment="name without overload: add, add_, __iand__")
    overload: Mapped[str] = mapped_column(String, comment="overload name, '' for none")
    func: Mapped[str] = mapped_column(Text, comment="the func: schema as written ('' for generated ops)")
    kind: Mapped[str] = mapped_column(String, comment="functional, inplace, out, mutable or scratch (torchgen's SchemaKind)")
    variants: Mapped[str] = mapped_column(String, comment="JSON list: function, method")
    structured: Mapped[int] = mapped_column(Integer, comment="1 for structured: True")
    structured_delegate: Mapped[str | None] = mapped_column(String, comment="op whose structured kernels this one uses")
    structured_inherits: Mapped[str | None] = mapped_column(String, comment="base class of the meta struct, e.g. TensorIteratorBase")
    precomputed: Mapped[str] = mapped_column(Text, comment="JSON list of precomputed: lines")
    ufunc_inner_loop: Mapped[str] = mapped_column(Text, comment="JSON list of {ufunc_key, name, dtypes}")
    autogen: Mapped[str] = mapped_column(Text, comment="JSON list of ops this entry asks torchgen to generate")
    device_check: Mapped[str | None] = mapped_column(String, comment="NoCheck or ExactSame; NULL means the default ExactSame")
    device_guard: Mapped[int] = mapped_column(Integer, comment="0 for device_guard: False")
    python_module: Mapped[str | None] = mapped_column(String, comment="nn, linalg, special, fft, sparse, nested")
    category_override: Mapped[str | None] = mapped_column(String, comment="category_override: as written (factory, dummy); torchgen files the op under it")
    manual_kernel_registration: Mapped[int] = mapped_column(Integer, comment="1 for manual_kernel_registration: True (torchgen registers no kernel; hand-written code does)")
    manual_cpp_binding: Mapped[int] = mapped_column(Integer, comment="1 for manual_cpp_binding: True (the at:: function and Tensor method are written by hand)")
    cpp_no_default_args: Mapped[str] = mapped_column(Text, comment="JSON list")
    use_const_ref_for_mutable_tensors: Mapped[int] = mapped_column(Integer, comment="1: mutable Tensor arguments are passed as const Tensor& in C++")
    generated_from: Mapped[str | None] = mapped_column(String, comment="for autogen'd ops: the entry that lists them")
    raw: Mapped[str] = mapped_column(Text, comment="the whole entry as JSON, every field as written")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer, comment="line of '- func:' (of the autogen: key for generated ops)")


class OpTag(Base):
    """The tags of each op (one row per op and tag)."""

    __tablename__ = "op_tags"
    op_id: Mapped[int] = mapped_column(ForeignKey("ops.id"), primary_key=True)
    tag: Mapped[str] = mapped_column(String, primary_key=True, index=True, comment="a tag of tags.yaml, e.g. pointwise")


class Dispatch(Base):
    """The op -> dispatch key -> kernel table, by torchgen's rules.

    origin: yaml (a dispatch: entry), composite_implicit (no dispatch: entry),
    autogen (generated op, CompositeExplicitAutograd), ufunc (ufunc_inner_loop
    kernels ufunc_<name>_CPU/CUDA, generated at build time) or delegate (the
    kernel of the structured_delegate op, which this variant uses).
    """

    __tablename__ = "dispatch"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op_id: Mapped[int] = mapped_column(ForeignKey("ops.id"), index=True)
    op: Mapped[str] = mapped_column(String, index=True, comment="operator name, as ops.name")
    key: Mapped[str] = mapped_column(String, index=True, comment="dispatch key: CPU, CUDA, SparseCPU, CompositeImplicitAutograd ...")
    kernel: Mapped[str] = mapped_column(String, index=True, comment="C++ function name, without namespace")
    cpp_namespace: Mapped[str] = mapped_column(String, comment="namespace of the kernel, e.g. at::native")
    origin: Mapped[str] = mapped_column(String, comment="yaml, composite_implicit, autogen, ufunc or delegate")
    structured: Mapped[int] = mapped_column(Integer, comment="1 when the kernel is a structured kernel for this key")
    via: Mapped[str | None] = mapped_column(String, comment="the delegate op, for origin delegate")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer, comment="line of the dispatch key (or of the entry, autogen:, ufunc_inner_loop:, structured_delegate:)")


class UfuncLoop(Base):
    """ufunc_inner_loop entries: which ufunc:: function serves which dtypes."""

    __tablename__ = "ufunc_loops"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op_id: Mapped[int] = mapped_column(ForeignKey("ops.id"), index=True)
    ufunc_key: Mapped[str] = mapped_column(String, comment="Generic, ScalarOnly, CUDAFunctorOnSelf, ...")
    name: Mapped[str] = mapped_column(String, comment="the ufunc:: function, e.g. add")
    dtypes: Mapped[str] = mapped_column(Text, comment="JSON list of dtype groups as written: AllAndComplex, BFloat16 ...")


class Derivative(Base):
    """derivatives.yaml entries; a dispatch: block gives one row per dispatch key."""

    __tablename__ = "derivatives"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op_id: Mapped[int | None] = mapped_column(ForeignKey("ops.id"), index=True, comment="NULL when no op has that name")
    op: Mapped[str] = mapped_column(String, index=True, comment="operator name of name:, e.g. add.Tensor")
    signature: Mapped[str] = mapped_column(Text, comment="the name: schema as written")
    dispatch_key: Mapped[str | None] = mapped_column(String, comment="Default, AutogradNestedTensor ... for dispatch: blocks")
    output_differentiability: Mapped[str | None] = mapped_column(Text, comment="JSON list of true/false or C++ conditions")
    saved_results: Mapped[str] = mapped_column(Text, comment="JSON list of outputs the backward formulas read")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer)


class DerivativeFormula(Base):
    """One formula of a derivatives.yaml entry."""

    __tablename__ = "derivative_formulas"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    derivative_id: Mapped[int] = mapped_column(ForeignKey("derivatives.id"), index=True)
    names: Mapped[str] = mapped_column(String, comment="JSON list of the inputs (or outputs) the formula is for")
    kind: Mapped[str] = mapped_column(String, comment="input (backward formula) or output (forward-mode formula)")
    formula: Mapped[str] = mapped_column(Text, comment="the C++ expression, whitespace folded")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer)


class OpBackward(Base):
    """A derivatives.yaml entry an op's autograd kernel uses: its own, or the one tools/autograd lends it
    (the dispatcher stage, indexer/dispatcher/backward_table.py)."""

    __tablename__ = "op_backward"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, comment="the order the op uses its entries in")
    op: Mapped[str] = mapped_column(String, index=True, comment="the op whose autograd kernel uses it: add.out")
    derivative_id: Mapped[int] = mapped_column(ForeignKey("derivatives.id"), comment="the entry")
    entry_op: Mapped[str] = mapped_column(String, comment="the entry's op (name:): add.Tensor")
    use: Mapped[str] = mapped_column(String, comment="exact (its own), in-place, out=, generated, foreach, view_copy, same signature")


Index("ix_dispatch_op_key", Dispatch.op, Dispatch.key)


# ---- C/C++/CUDA/Objective-C++ facts (tree-sitter). Each row belongs to one file of `files`;
# `caller` is the qualified name of the enclosing function (NULL at namespace scope).


class Definition(Base):
    """Function definitions, __global__ kernels, and structured kernels (TORCH_META_FUNC*, TORCH_IMPL_FUNC)."""

    __tablename__ = "definitions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String, index=True, comment="foo; add_out for TORCH_IMPL_FUNC(add_out); add.Tensor for TORCH_META_FUNC2(add, Tensor)")
    qualified_name: Mapped[str] = mapped_column(String, index=True, comment="at::native::(anonymous)::foo; at::meta::structured_add_Tensor::meta")
    kind: Mapped[str] = mapped_column(String, comment="function, method, global_kernel, device_function, meta_func, impl_func")
    signature: Mapped[str] = mapped_column(Text, comment="the declarator, whitespace folded")
    line: Mapped[int] = mapped_column(Integer)
    end_line: Mapped[int] = mapped_column(Integer)
    is_template: Mapped[int] = mapped_column(Integer, comment="1 for a template definition (template <...> before it)")
    qualifiers: Mapped[str] = mapped_column(String, comment="JSON list: __global__, __device__, static, inline ...")
    macro: Mapped[str | None] = mapped_column(String, comment="TORCH_META_FUNC2, TORCH_IMPL_FUNC ... for structured kernels")
    guard: Mapped[str | None] = mapped_column(Text, comment="the #if conditions around the definition, outermost first, joined with ' && ': AT_CUDNN_ENABLED(); !(AT_CUDNN_ENABLED()) in the #else; defined(USE_ROCM); !(A) && B for #elif B; NULL outside every #if (include guards do not count)")
    min_args: Mapped[int] = mapped_column(Integer, comment="parameters without a default value")
    max_args: Mapped[int] = mapped_column(Integer, comment="all parameters; -1 when variadic (... or a parameter pack)")
    name_line: Mapped[int] = mapped_column(Integer, comment="the line the name is written on (the declarator's), where kernels-for points; 0: the same as line")
    template_params: Mapped[str | None] = mapped_column(Text, comment="JSON list, name:kind per parameter of its template head, in order: [\"K:template\", \"RNG:type\", \"N:value\"] for template <template <typename> class K, typename RNG, int N>; NULL for no template")
    returns: Mapped[str | None] = mapped_column(String, comment="the declared return type without cv-qualifiers, & and * and the at::/c10:: qualifiers: TensorOptions, MaybeOwned<Tensor>; NULL for auto, constructors and the structured kernels' macro heads")
    constrained: Mapped[int] = mapped_column(Integer, comment="1 for a template that overload resolution may leave out (SFINAE): its template head gives a parameter a default or leaves one unnamed (typename = std::enable_if_t<...>), has a requires-clause, or enable_if is written in its return type or parameters")
    loops: Mapped[int] = mapped_column(Integer, comment="1 when its body holds a for, while or do loop (a range-for too)")
    called_params: Mapped[str | None] = mapped_column(Text, comment="JSON list, \"name:position\" of each parameter its own body calls by name (out_impl(result, self) in unary_op_impl: [\"out_impl:1\"]): a function, functor or lambda a caller hands it; NULL for none")


class Stub(Base):
    """DispatchStub sites: DECLARE_DISPATCH, DEFINE_DISPATCH and every REGISTER_*/ALSO_REGISTER_* form."""

    __tablename__ = "stubs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    stub: Mapped[str] = mapped_column(String, index=True, comment="add_stub")
    kind: Mapped[str] = mapped_column(String, comment="declare, define or register")
    macro: Mapped[str] = mapped_column(String, comment="the macro as written: REGISTER_DISPATCH, REGISTER_AVX512_DISPATCH ...")
    device: Mapped[str | None] = mapped_column(String, comment="register: CPU, CUDA, HIP, MPS, XPU, MTIA, PrivateUse1")
    arch: Mapped[str | None] = mapped_column(String, comment="register on CPU: the CPU capability (DEFAULT, AVX2, AVX512, VSX, ZVECTOR, SVE256)")
    kernel: Mapped[str | None] = mapped_column(String, index=True, comment="the registered function; NULL for nullptr")
    is_nullptr: Mapped[int] = mapped_column(Integer, comment="1 when nullptr is registered")
    fn_type: Mapped[str | None] = mapped_column(String, comment="declare: the function pointer type")
    line: Mapped[int] = mapped_column(Integer)
    scope: Mapped[str] = mapped_column(String, comment="the namespaces around the macro site: at::native::cpublas")


class StubUse(Base):
    """A stub called (add_stub(device_type(), ...)) or passed as an argument inside a function."""

    __tablename__ = "stub_uses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    stub: Mapped[str] = mapped_column(String, index=True, comment="the DispatchStub called or passed on: add_stub")
    caller: Mapped[str] = mapped_column(String, index=True)
    how: Mapped[str] = mapped_column(String, comment="call or argument")
    line: Mapped[int] = mapped_column(Integer)


class Call(Base):
    """Call edges by name."""

    __tablename__ = "calls"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    caller: Mapped[str | None] = mapped_column(String, index=True)
    callee: Mapped[str] = mapped_column(String, comment="as written, spaces removed: at::cuda::blas::gemm<scalar_t>")
    callee_name: Mapped[str] = mapped_column(String, index=True, comment="last component without template arguments: gemm")
    line: Mapped[int] = mapped_column(Integer)
    argc: Mapped[int] = mapped_column(Integer, comment="number of arguments written at the call: 0 for f()")
    receiver_type: Mapped[str | None] = mapped_column(String, comment="x.f() / x->f() where x is a parameter, local or range-for variable of the caller declared before the call: its type without cv, &, * and at::/c10:: (template arguments kept): TensorIteratorBase, Vectorized<scalar_t>; NULL otherwise and for auto")
    arg_types: Mapped[str | None] = mapped_column(String, comment="JSON list of each argument's type where the written text says it for certain (a literal: int, unsigned long, double, float, bool, const char*, std::nullptr_t; a variable of the caller declared with a written type, normalised as receiver_type, * for a pointer, & after it: an lvalue), null for the others: [\"int\",null,\"Tensor\"]; NULL when none is known")
    receiver_const: Mapped[int | None] = mapped_column(Integer, comment="1 when the object of a member call is const (`const Args& args`: args.idesc.desc() is called on a const object), 0 when it is not, NULL when not known (a call in the chain, an auto& variable, a field)")
    lambda_line: Mapped[int | None] = mapped_column(Integer, comment="`f(x)` with f a variable of the caller initialised with a lambda (`auto f = [&](...) {...};`): the lambda's line; NULL otherwise")
    forwards: Mapped[str | None] = mapped_column(String, comment="the arguments that are a parameter of the caller with a default value, handed on as they are: place:parameter, 0-based, comma-joined (1:1: the second argument is the caller's second parameter); NULL: none. kernels-for knows the callee's parameter is left to its default where the caller's is")


class Launch(Base):
    """<<<...>>> launches (also inside #define bodies) and launch helpers (gpu_kernel, cpu_kernel_vec, parallel_for ...)."""

    __tablename__ = "launches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String, comment="triple_chevron, or the helper's name")
    kernel: Mapped[str | None] = mapped_column(String, index=True, comment="kernel or functor name; NULL when a lambda runs")
    template_args: Mapped[str | None] = mapped_column(String, comment="template arguments written at the launch: <scalar_t, true>")
    config: Mapped[str] = mapped_column(Text, comment="JSON list: grid, block, shared memory, stream")
    caller: Mapped[str | None] = mapped_column(String, index=True)
    line: Mapped[int] = mapped_column(Integer)
    lambda_line: Mapped[int | None] = mapped_column(Integer, comment="first line of the lambda the helper runs")
    macro: Mapped[str | None] = mapped_column(String, comment="the #define whose body holds the launch")
    handed: Mapped[str | None] = mapped_column(Text, comment="a <<<...>>> of a parameter of the lambda around it: JSON [the parameter's position, [[callee, callee_name, argument position, line, argc], ...]] of the calls the lambda is handed to; NULL otherwise")


class TypeDispatch(Base):
    """AT_DISPATCH_* and AT_DISPATCH_V2 uses, also through file-local wrapper macros."""

    __tablename__ = "type_dispatch"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    macro: Mapped[str] = mapped_column(String, comment="the AT_DISPATCH_* macro written: AT_DISPATCH_FLOATING_TYPES, AT_DISPATCH_V2 ...")
    dtypes: Mapped[str] = mapped_column(Text, comment="JSON list: the type set and extra types, e.g. [\"FLOATING_TYPES\", \"kHalf\"]")
    name: Mapped[str | None] = mapped_column(String, comment="the name string, e.g. add_cpu")
    caller: Mapped[str | None] = mapped_column(String, index=True)
    line: Mapped[int] = mapped_column(Integer)
    via: Mapped[str | None] = mapped_column(String, comment="the AT_DISPATCH_* macro a file-local wrapper expands to")


class LibraryCall(Base):
    """Calls into vendor libraries, by family."""

    __tablename__ = "library_calls"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    family: Mapped[str] = mapped_column(String, index=True, comment="cublas, cublaslt, cudnn, cufft, cusparse, cusolver, magma, onednn, mkl, flash_attention, mem_efficient_attention")
    callee: Mapped[str] = mapped_column(String, comment="the library function called, as written: cublasGemmEx, mkldnn_matmul")
    caller: Mapped[str | None] = mapped_column(String, index=True)
    line: Mapped[int] = mapped_column(Integer)


class Registration(Base):
    """TORCH_LIBRARY / TORCH_LIBRARY_IMPL / TORCH_LIBRARY_FRAGMENT blocks and their m.impl / m.def / m.fallback."""

    __tablename__ = "registrations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String, comment="block, impl, def or fallback")
    macro: Mapped[str] = mapped_column(String, comment="TORCH_LIBRARY, TORCH_LIBRARY_IMPL or TORCH_LIBRARY_FRAGMENT")
    namespace: Mapped[str] = mapped_column(String, comment="aten; _ for a catch-all TORCH_LIBRARY_IMPL")
    dispatch_key: Mapped[str | None] = mapped_column(String, index=True, comment="the key of a TORCH_LIBRARY_IMPL block (CPU, Autocast, _ ...); NULL for TORCH_LIBRARY and _FRAGMENT")
    op: Mapped[str | None] = mapped_column(String, index=True, comment="op name as written, schema stripped")
    schema: Mapped[str | None] = mapped_column(Text, comment="the schema of an m.def")
    function: Mapped[str | None] = mapped_column(String, index=True, comment="the C++ function registered")
    line: Mapped[int] = mapped_column(Integer)
    via: Mapped[str | None] = mapped_column(String, comment="the file-local macro used, when one was")


class DispatcherRegistration(Base):
    """Every registration the dispatcher holds after a build and `import torch`: generated (torchgen,
    tools/autograd), hand-written (TORCH_LIBRARY* blocks, also through macros of other files) and
    Python's; filled by the dispatcher stage (indexer/dispatcher/stage.py) after the C++ and yaml stages."""

    __tablename__ = "dispatcher_registrations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op: Mapped[str] = mapped_column(String, index=True, comment="the operator with its namespace and overload name: aten::add.Tensor, aten::relu (the default overload); _ for a backend fallback")
    key: Mapped[str | None] = mapped_column(String, index=True, comment="the dispatch key as registered, alias keys by their name: CPU, Autograd, CompositeExplicitAutograd; a kernel registered without a key (catch-all) is CompositeImplicitAutograd's, as OperatorEntry.cpp redirects it; NULL for a def without a kernel")
    kind: Mapped[str] = mapped_column(String, comment="impl (a kernel for an op), fallback (a kernel for every op at a key) or def (a schema)")
    source: Mapped[str] = mapped_column(String, comment="generated (torchgen or tools/autograd), handwritten (C++ TORCH_LIBRARY*) or python (registered at import torch)")
    generator: Mapped[str] = mapped_column(String, comment="generated: the generator's module (torchgen.dest.register_dispatch_key, tools.autograd.gen_variable_type, ...); handwritten: the macro written, TORCH_LIBRARY_IMPL or the macro that expands to it (VMAP_SUPPORT, KERNEL_CUDA); python: the registrar (register_meta, Library.impl, py_impl)")
    kernel: Mapped[str | None] = mapped_column(String, index=True, comment="the C++ function registered (wrapper_CPU_add_Tensor, VariableType::add_Tensor, add_out_cpu), or the Python function's qualified name; NULL for a def without a kernel")
    file: Mapped[str] = mapped_column(String, comment="where the registration is written: the file the codegen writes (RegisterCPU.cpp, VariableType_2.cpp), else a path relative to the checkout")
    line: Mapped[int | None] = mapped_column(Integer, comment="the line of the registration (for a macro, of its use); NULL for a generated one")
    fallthrough: Mapped[int] = mapped_column(Integer, comment="1 when the kernel is a fallthrough (makeFallthrough, CppFunction::makeFallthrough())")
    template: Mapped[str | None] = mapped_column(String, comment="generated: the template the file is generated from (aten/src/ATen/templates/RegisterDispatchKey.cpp); else NULL")
    yaml_line: Mapped[int | None] = mapped_column(Integer, comment="generated: the op's native_functions.yaml line; else NULL")
    derivative_line: Mapped[int | None] = mapped_column(Integer, comment="generated Autograd keys: the derivatives.yaml line of the entry the kernel uses; else NULL")
    not_implemented: Mapped[int] = mapped_column(Integer, comment="1 for the Autograd not-implemented kernel gen_variable_type registers for an op without a derivative")


class RegistrationMacroUse(Base):
    """A macro used in a TORCH_LIBRARY* block that the file's own macros do not expand to registrations
    (defined in a header, an X-macro list ...): the dispatcher stage expands it with the macros table."""

    __tablename__ = "registration_macro_uses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    macro: Mapped[str] = mapped_column(String, comment="the block's macro: TORCH_LIBRARY_IMPL, TORCH_LIBRARY or TORCH_LIBRARY_FRAGMENT")
    namespace: Mapped[str] = mapped_column(String, comment="the block's namespace; _ for a catch-all TORCH_LIBRARY_IMPL")
    dispatch_key: Mapped[str | None] = mapped_column(String, comment="the block's key; NULL for TORCH_LIBRARY and _FRAGMENT")
    variable: Mapped[str] = mapped_column(String, comment="the block's library variable (m)")
    name: Mapped[str] = mapped_column(String, index=True, comment="the macro used: VMAP_SUPPORT, AT_FORALL_LOWER_PRECISION_FP")
    arguments: Mapped[str] = mapped_column(Text, comment="JSON list of its arguments as written, whitespace folded")
    line: Mapped[int] = mapped_column(Integer, comment="line of the use")


class DefinitionMacroUse(Base):
    """A use at namespace or class scope of another file's macro with one of the file's own function-writing
    macros as an argument (an X-macro list: `AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(DEFINE_CAST)`). The build
    extracts the file again with that macro's #define from the macros table; the definitions the use writes
    are then the file's, at the use's line."""

    __tablename__ = "definition_macro_uses"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String, index=True, comment="the macro used: AT_FORALL_SCALAR_TYPES_WITH_COMPLEX")
    arguments: Mapped[str] = mapped_column(Text, comment="JSON list of its arguments as written, whitespace folded")
    line: Mapped[int] = mapped_column(Integer, comment="line of the use")
    expanded: Mapped[str | None] = mapped_column(String, comment="a hash of the other files' #defines the use was expanded with; NULL when none was found (its definitions are then missing)")


class Include(Base):
    """#include "x" / #include <x> (and #include_next) as written, in every #if branch."""

    __tablename__ = "includes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String, comment="the including file")
    target: Mapped[str] = mapped_column(String, index=True, comment="as written between the quotes or brackets: ATen/native/BinaryOps.h; a macro name for a computed include")
    line: Mapped[int] = mapped_column(Integer)
    system: Mapped[int] = mapped_column(Integer, comment="1 for <x>, 0 for \"x\" (and computed includes)")
    guard: Mapped[str | None] = mapped_column(Text, comment="the #if conditions the #include is written under, as definitions.guard writes them: !defined(USE_ROCM); NULL outside every #if")


class Macro(Base):
    """Every #define of every C/C++/CUDA file: the cross-file macro table."""

    __tablename__ = "macros"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String, index=True, comment="the macro's name")
    params: Mapped[str | None] = mapped_column(String, comment="function-like: the parameters as written, whitespace folded: (a, b), (), (...); NULL for an object-like macro")
    body: Mapped[str] = mapped_column(Text, comment="the replacement, comments stripped, line continuations joined, whitespace folded; the first 4000 characters")
    line: Mapped[int] = mapped_column(Integer, comment="line of the #define")
    truncated: Mapped[int] = mapped_column(Integer, comment="1 when the body is longer than 4000 characters and cut there")
    guard: Mapped[str | None] = mapped_column(Text, comment="the #if conditions the #define is written under, joined with && (as definitions.guard); NULL: none, the include guard aside")


class Using(Base):
    """using-directives, using-declarations, namespace aliases and alias declarations."""

    __tablename__ = "usings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String, comment="directive (using namespace X;), declaration (using X::y;) or alias (namespace F = X; using Foo = T;)")
    name: Mapped[str] = mapped_column(String, index=True, comment="what is named, as written: at::native (directive, namespace alias), at::native::foo (declaration), spaces removed; the aliased type of using Foo = T, whitespace folded: std::vector<c10::Scalar>")
    alias: Mapped[str | None] = mapped_column(String, comment="the new name of an alias: F, Foo; NULL for directives and declarations")
    scope: Mapped[str] = mapped_column(String, comment="where it applies: the enclosing namespaces and classes as in qualified names (at::native; '' at file level), or the qualified name of the enclosing function")
    line: Mapped[int] = mapped_column(Integer)


class CxxClass(Base):
    """class, struct, union and enum definitions with a body (functors included)."""

    __tablename__ = "classes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String, index=True, comment="AddFunctor")
    qualified_name: Mapped[str] = mapped_column(String, index=True, comment="at::native::(anonymous)::AddFunctor (as definitions.qualified_name)")
    kind: Mapped[str] = mapped_column(String, comment="class, struct, union or enum")
    line: Mapped[int] = mapped_column(Integer, comment="line of the class, struct, union or enum keyword")
    end_line: Mapped[int] = mapped_column(Integer, comment="line of the closing brace")
    bases: Mapped[str] = mapped_column(Text, comment="JSON list of the base classes as written, access specifiers dropped")
    is_template: Mapped[int] = mapped_column(Integer, comment="1 for a class template (or a partial/explicit specialisation)")
    has_call_operator: Mapped[int] = mapped_column(Integer, comment="1 when the body declares or defines operator(): a functor")
    fields: Mapped[str] = mapped_column(Text, comment="JSON list of its data members, {name, type}: the type as calls.receiver_type writes one, `*` added for a pointer; [] for an enum")


class Constant(Base):
    """A variable at namespace scope, const or constexpr (constexpr ScalarType kLong = ScalarType::Long;) or not
    (static TensorAssign tensor_assign;): the type of an argument or a receiver that names it (the link stage picks
    among overloads and binds template parameters by it)."""

    __tablename__ = "constants"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String, index=True, comment="kLong")
    qualified_name: Mapped[str] = mapped_column(String, comment="c10::kLong (as definitions.qualified_name)")
    type: Mapped[str] = mapped_column(String, comment="as calls.receiver_type writes one: ScalarType; `*` added for a pointer; decltype(<name>) for an auto one initialised with a name")
    line: Mapped[int] = mapped_column(Integer, comment="line of the declaration, or of the macro use that declares it")
    macro: Mapped[str | None] = mapped_column(String, comment="the file's own macro whose use declares it (DEFINE_CONSTANT through an X-macro list); NULL when written out")
    constant: Mapped[int] = mapped_column(Integer, comment="1 when declared const or constexpr, 0 for a mutable variable")


class KernelAlias(Base):
    """A variable or array holding kernels or function pointers that the code then calls or launches
    (auto kernel = c ? k1<float> : k2<float>; static const fn_t kernels[] = {a, b};)."""

    __tablename__ = "kernel_aliases"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    name: Mapped[str] = mapped_column(String, index=True, comment="the variable or array: kernel, kernels")
    targets: Mapped[str] = mapped_column(Text, comment="JSON list of the names assigned, template arguments and & dropped: [\"k1\", \"k2\"]")
    caller: Mapped[str | None] = mapped_column(String, index=True, comment="the enclosing function; NULL at namespace scope")
    line: Mapped[int] = mapped_column(Integer, comment="line of the declaration or assignment")


class InlineNamespace(Base):
    """An inline namespace (inline namespace CPU_CAPABILITY {): name lookup sees its members from the enclosing namespace."""

    __tablename__ = "inline_namespaces"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    qualified_name: Mapped[str] = mapped_column(String, comment="as in qualified names: at::native::CPU_CAPABILITY")
    line: Mapped[int] = mapped_column(Integer)


class DeviceBranch(Base):
    """Lines of a C++ function body that run only on some devices: a branch of an `if` that tests one
    (`if (self.is_mps()) ... else ...`; indexer/cxx/device_branches.py). kernels-for does not follow a call
    written there when it walks a key of a device the branch never runs on. Rows of branch `#if` are the
    stretches of lines under an #if that hold calls, with their guard: kernels-for does not follow a call
    written where the checkout's own constant #defines make the guard false (queries/device_branches.py)."""

    __tablename__ = "device_branches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String, index=True)
    first_line: Mapped[int] = mapped_column(Integer, comment="the branch's first line (a block: its first statement's)")
    last_line: Mapped[int] = mapped_column(Integer, comment="its last line")
    not_on: Mapped[str] = mapped_column(String, comment="the devices it never runs on, comma-joined: CPU,CUDA,HIP,XPU")
    line: Mapped[int] = mapped_column(Integer, comment="the if's line (#if: the line of the directive before the stretch)")
    branch: Mapped[str] = mapped_column(String, comment="then, else, or after (the statements after an if whose "
                                                        "then-branch returns or throws); #if: a stretch under an "
                                                        "#if, not_on 'never compiled' (guards.py), the devices "
                                                        "whose build does not compile it, or empty")
    condition: Mapped[str] = mapped_column(Text, comment="the condition as written, whitespace collapsed; #if: the "
                                                         "stretch's guard, as definitions.guard writes it")
    parameter: Mapped[int | None] = mapped_column(Integer, comment="the condition tests only this parameter of the "
                                                  "function (0-based), whose default value is a device: where a call "
                                                  "leaves it to that default, the branch runs as on default_device, "
                                                  "whatever the key; NULL: the condition tests the key's device")
    default_device: Mapped[str | None] = mapped_column(String, comment="that default's device (CPU for "
                                                       "`const Device device = at::kCPU`); NULL with parameter")


class PyMethodDefRow(Base):
    """Python method tables in C++ (indexer/cxx/method_tables.py): each entry of a PyMethodDef array
    (`{"__add__", castPyCFunctionWithKeywords(TypeError_to_NotImplemented_<THPVariable_add>), METH_VARARGS |
    METH_KEYWORDS, nullptr}`), each filled slot of a PyMappingMethods (mp_subscript -> __getitem__), and
    the `${py_method_defs}` slot of a template that tools/autograd fills with generated entries."""

    __tablename__ = "py_method_defs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    table_name: Mapped[str] = mapped_column(String, comment="the table, qualified by its namespaces: torch::autograd::variable_methods")
    table_line: Mapped[int] = mapped_column(Integer, comment="the line the table's name is written on")
    python_name: Mapped[str | None] = mapped_column(String, comment="the Python name bound: __add__, _parse_to; NULL for a template's slot")
    function: Mapped[str | None] = mapped_column(String, comment="the C++ function under the wrappers: THPVariable_add; NULL for a slot")
    wrappers: Mapped[str] = mapped_column(Text, comment='JSON array, outermost first: ["castPyCFunctionWithKeywords", "TypeError_to_NotImplemented_"]')
    flags: Mapped[str] = mapped_column(String, comment="METH_VARARGS | METH_KEYWORDS as written; a mapping slot's field (mp_subscript); a slot's text (${py_method_defs})")
    line: Mapped[int] = mapped_column(Integer, comment="the line of the entry")


class PyMethodInstall(Base):
    """How method tables reach Python, as each file writes it (indexer/cxx/method_tables.py InstallKind);
    queries/bindings.py follows them across files to the Python namespace of a table."""

    __tablename__ = "py_method_installs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"))
    file: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String, comment="add, tp_methods, tp_as_mapping, name, returns, instance or attribute (indexer/cxx/method_tables.py InstallKind)")
    target: Mapped[str] = mapped_column(String, comment="the vector, type, module def, function (qualified) or module attribute the source goes to")
    source: Mapped[str] = mapped_column(String, comment='the table, type or name as written: torch::autograd::variable_methods; for kind name the Python name ("torch._C.TensorBase")')
    line: Mapped[int] = mapped_column(Integer)


# ---- Python facts (stdlib ast, indexer/python_api.py), from the files of python_api.PY_SOURCES.
# Names are dotted Python paths derived from the file path: torch/nn/modules/conv.py -> torch.nn.modules.conv,
# a package's __init__.py -> the package. Each row belongs to one file of `files` (language python).


class PyDef(Base):
    """Python functions and methods (module level and in class bodies; nested defs are part of their def)."""

    __tablename__ = "py_defs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    qualname: Mapped[str] = mapped_column(String, index=True, comment="torch.nn.modules.conv.Conv2d._conv_forward")
    name: Mapped[str] = mapped_column(String, index=True, comment="the def's own name: _conv_forward")
    kind: Mapped[str] = mapped_column(String, comment="function (module level) or method (in a class body)")
    cls: Mapped[str | None] = mapped_column(String, index=True, comment="qualified name of the enclosing class, for methods")
    line: Mapped[int] = mapped_column(Integer, comment="line of the `def` keyword")
    end_line: Mapped[int] = mapped_column(Integer, comment="last line of the def")


class PyClass(Base):
    """Python classes with their bases; nn_module says whether one is an nn.Module subclass."""

    __tablename__ = "py_classes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    qualname: Mapped[str] = mapped_column(String, index=True, comment="torch.nn.modules.normalization.LayerNorm")
    name: Mapped[str] = mapped_column(String, index=True, comment="LayerNorm")
    bases: Mapped[str] = mapped_column(Text, comment="JSON list of the bases as dotted names resolved through the file's imports")
    bases_written: Mapped[str] = mapped_column(Text, comment="JSON list of the bases as written in the source")
    is_module: Mapped[int] = mapped_column(Integer, comment="1 when the file alone shows an nn.Module subclass")
    nn_module: Mapped[int] = mapped_column(Integer, comment="1 for an nn.Module subclass, following bases across files and re-exports")
    forward: Mapped[str | None] = mapped_column(String, comment="qualified name of the forward the class itself defines")
    line: Mapped[int] = mapped_column(Integer, comment="line of the `class` keyword")
    end_line: Mapped[int] = mapped_column(Integer, comment="last line of the class")


class PyCall(Base):
    """Calls made inside a Python def (nested defs and lambdas included), classified by target kind."""

    __tablename__ = "py_calls"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    caller: Mapped[str] = mapped_column(String, index=True, comment="qualified name of the def (or class, or module) making the call")
    kind: Mapped[str] = mapped_column(String, comment="torch_c_nn, vf, torch, tensor_method, tensor_base, torch_ops, torch_c, functional or python")
    name: Mapped[str] = mapped_column(String, index=True, comment="what links it: layer_norm; aten::add.Tensor for torch_ops; _linalg.linalg_det for torch_c")
    target: Mapped[str] = mapped_column(String, comment="the callee resolved through imports: torch.layer_norm, self._conv_forward")
    line: Mapped[int] = mapped_column(Integer, comment="line of the call")


class PyBinding(Base):
    """Names bound directly to a callee: gelu = _add_docstr(torch._C._nn.gelu, ...), boolean_dispatch, aliases."""

    __tablename__ = "py_bindings"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    qualname: Mapped[str] = mapped_column(String, index=True, comment="the bound name: torch.nn.functional.gelu")
    kind: Mapped[str] = mapped_column(String, comment="the kind of what it is bound to, as py_calls.kind")
    name: Mapped[str] = mapped_column(String, comment="as py_calls.name: gelu")
    target: Mapped[str] = mapped_column(String, comment="the dotted callee: torch._C._nn.gelu")
    via: Mapped[str] = mapped_column(String, comment="_add_docstr, boolean_dispatch, _make_alias, _make_inplace or assign")
    line: Mapped[int] = mapped_column(Integer, comment="line of the assignment")


class PyReexport(Base):
    """What a module re-exports: imports in a package, import *, __all__, the dir(_C._VariableFunctions) loop, _VF."""

    __tablename__ = "py_reexports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    module: Mapped[str] = mapped_column(String, index=True, comment="the re-exporting module: torch")
    name: Mapped[str] = mapped_column(String, comment="the exported name; * for a whole namespace")
    source: Mapped[str] = mapped_column(String, comment="where it comes from: torch._tensor.Tensor, torch._C._VariableFunctions; '' for __all__")
    kind: Mapped[str] = mapped_column(String, comment="import, star_import, dir_loop, getattr_forward or all (a name of __all__)")
    excludes: Mapped[str] = mapped_column(Text, comment="JSON list, dir_loop: names skipped; a trailing * skips a prefix")
    line: Mapped[int] = mapped_column(Integer, comment="line of the statement")


class PyDecomp(Base):
    """Decompositions (torch/_decomp), references (torch/_refs) and py_impl kernels, with the aten op they register."""

    __tablename__ = "py_decomps"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    kind: Mapped[str] = mapped_column(String, comment="decomposition, ref or py_impl")
    op: Mapped[str | None] = mapped_column(String, index=True, comment="the op as written: native_layer_norm, add.Tensor, mm.default; NULL: registers none")
    namespace: Mapped[str] = mapped_column(String, comment="aten ('' when op is NULL)")
    function: Mapped[str] = mapped_column(String, comment="qualified name of the Python function")
    registrar: Mapped[str] = mapped_column(String, comment="register_decomposition, _make_elementwise_unary_reference, py_impl(Autograd) ...")
    how: Mapped[str] = mapped_column(String, comment="written (op in the source), inferred (the refs naming rule) or none")
    line: Mapped[int] = mapped_column(Integer, comment="the registration: decorator line, call line, or the def line")


class PyBranch(Base):
    """The conditions that pick a call of py_calls: the if/elif/else and conditional expressions around it."""

    __tablename__ = "py_branches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    caller: Mapped[str] = mapped_column(String, index=True, comment="as py_calls.caller; the call is (caller, target, file, line)")
    target: Mapped[str] = mapped_column(String, comment="as py_calls.target: torch.optim.adamw._fused_adamw")
    line: Mapped[int] = mapped_column(Integer, comment="as py_calls.line (for a call through a local alias, the assignment's line)")
    conditions: Mapped[str] = mapped_column(Text, comment='JSON list, outermost first, of {"kind": if|elif|else|ifexp|ifexp_else, "test": the test as written ("" for an else), "negated": the earlier tests of its chain, false here, "line": the test\'s line (an else: its chain\'s last test)}')


class PyFlag(Base):
    """Where a name that a def's if tests read gets its value: the parameter's default, each assignment in the def."""

    __tablename__ = "py_flags"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    function: Mapped[str] = mapped_column(String, index=True, comment="qualified name of the def: torch.optim.adamw.adamw")
    name: Mapped[str] = mapped_column(String, comment="the name tested: foreach")
    kind: Mapped[str] = mapped_column(String, comment="parameter (with a default) or assign")
    text: Mapped[str] = mapped_column(Text, comment="foreach=None; _, foreach = _default_to_fused_or_foreach(params, differentiable, use_fused=False)")
    conditions: Mapped[str] = mapped_column(Text, comment="JSON list as py_branches.conditions: the branches the assignment is under; [] for a parameter")
    line: Mapped[int] = mapped_column(Integer, comment="line of the parameter or of the assignment")


class PyAttribute(Base):
    """What a method assigns to an attribute of self from a call: the class whose instance `self.x(...)` calls."""

    __tablename__ = "py_attributes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("files.id"), comment="the file of `files`")
    file: Mapped[str] = mapped_column(String, comment="path relative to the checkout")
    cls: Mapped[str] = mapped_column(String, index=True, comment="qualified name of the class: torch.nn.modules.transformer.TransformerDecoderLayer")
    name: Mapped[str] = mapped_column(String, comment="the attribute: self_attn")
    target: Mapped[str] = mapped_column(String, comment="the resolved callee whose result is assigned: torch.nn.modules.activation.MultiheadAttention")
    method: Mapped[str] = mapped_column(String, comment="qualified name of the method that assigns it: ...TransformerDecoderLayer.__init__")
    line: Mapped[int] = mapped_column(Integer, comment="line of the assignment")


# ---- The graph: what the link stage (indexer/link/) resolves across files, once per build.
# Walk it with WITH RECURSIVE over edges.src -> edges.dst; the README has two example queries.


class Node(Base):
    """One thing a chain passes through: an op, an (op, key) kernel, a definition, a stub, a vendor entry point, a derivative."""

    __tablename__ = "nodes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String, comment="op, kernel, function, global_kernel, structured, stub, library, derivative")
    name: Mapped[str] = mapped_column(String, index=True, comment="op: add.out; kernel: add.out CPU; definitions: the qualified name; stub: add_stub; library: cublasGemmEx")
    file: Mapped[str | None] = mapped_column(String, comment="where it is written (a definition, the DECLARE_DISPATCH, the yaml entry); NULL for a library entry")
    line: Mapped[int | None] = mapped_column(Integer)
    end_line: Mapped[int | None] = mapped_column(Integer, comment="last line of a definition")
    ref: Mapped[int | None] = mapped_column(Integer, index=True, comment="the row this node stands for: ops.id, dispatch.id, definitions.id, derivatives.id")
    detail: Mapped[str | None] = mapped_column(Text, comment="kernel: the dispatch key; library: its family (cublas, cudnn ...); definition: its guard (its own #if conditions after those every #include of its file is written under)")
    device_path: Mapped[int] = mapped_column(Integer, comment="1 when the node leads through calls to device work: a stub, a launch, a functor or lambda a helper runs, a vendor call, an AT_DISPATCH, a __global__; 2 for a helper that calls what it is handed (a parameter); 3 when it leads only to ops called through the dispatcher (what a composite kernel's chain follows); else 0")


class Edge(Base):
    """A typed link between nodes, with the file:line where it is written and how it was resolved."""

    __tablename__ = "edges"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String, comment="has-kernel, implements, meta, backward, calls, uses-stub, declared-at, defined-at, registers, launches, runs-functor, calls-library, redispatches-to-op, dtypes")
    src: Mapped[int] = mapped_column(Integer, index=True, comment="nodes.id of the source")
    dst: Mapped[int | None] = mapped_column(Integer, index=True, comment="nodes.id of the target; NULL when it is not resolved (see how) or the edge is a location (declared-at, dtypes)")
    file: Mapped[str | None] = mapped_column(String, comment="where the edge is written: the call, the <<<, the REGISTER_DISPATCH, the yaml line")
    line: Mapped[int | None] = mapped_column(Integer)
    how: Mapped[str] = mapped_column(String, comment="exact, same-file, include, same-namespace, using, receiver-type, overload, argument-types, argument-dependent, overrides, specialisations, unique-name, registered, yaml, generated, per-build-configuration; for no target: op, tensor-method, macro, standard, vendor, type, ambiguous, not-in-checkout, virtual")
    target: Mapped[str | None] = mapped_column(String, comment="the name as written at the edge's place: at::cuda::blas::gemm<scalar_t>, add_kernel")
    detail: Mapped[str | None] = mapped_column(Text, comment="registers: device and CPU capability (CPU AVX2); launches: the <<<config>>>; dtypes: the macro and its dtypes; ambiguous: the number of candidates")


# The bindings of template parameters (how = template-argument) by their detail, which names the call site a
# parameter was deduced at: an update asks which were deduced in the files it resolves again (template_args.py)
Index("ix_edges_bindings", Edge.detail, sqlite_where=Edge.how == "template-argument")


class Chain(Base):
    """A chain kernels-for shows, walked at build time from one node (queries/chain_store.py): a fresh Index reads it instead of walking the edges below the node."""

    __tablename__ = "chains"
    node: Mapped[int] = mapped_column(Integer, primary_key=True, comment="nodes.id the walk starts from: an (op, key)'s kernel definition, a helper generated code calls, or the (op, key) node of a kernel torchgen writes")
    key: Mapped[str] = mapped_column(String, primary_key=True, comment="the dispatch key walked for (CPU, CUDA, CompositeExplicitAutograd ...)")
    depth: Mapped[int] = mapped_column(Integer, primary_key=True, comment="the --depth walked to (the default only)")
    kernel: Mapped[int] = mapped_column(Integer, primary_key=True, comment="1 when the node is an (op, key)'s kernel (a thin one has its redispatches followed), else 0")
    body: Mapped[bytes] = mapped_column(LargeBinary, comment="zlib-compressed marshal data (format 4) (places, steps, truncations): places ((file, line), ...); each step (kind, name, loc, device, detail, depth, how, site, parent), loc and site indexes into places; each truncation (what, limit, names)")
    reads: Mapped[bytes] = mapped_column(LargeBinary, comment="zlib-compressed marshal data (format 4) ([node ids], [names]): the nodes whose edges the walk read and the names it looked definitions up by (an incremental build walks again the rows an edit reaches)")


# ---- The dispatcher's keys and its computed table (indexer/dispatcher/keymodel.py, table.py)


class DispatchKey(Base):
    """Every name of the checkout's DispatchKey enum (c10/core/DispatchKey.h), read at build time;
    the per-backend runtime keys (AutogradCPU, SparseCUDA) that its macros make included."""

    __tablename__ = "dispatch_keys"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, index=True, comment="the key as PyTorch spells it: CPU, AutogradCUDA, BackendSelect, CompositeImplicitAutograd")
    kind: Mapped[str] = mapped_column(String, comment="functionality (a key with its own slot in the table: BackendSelect, Python, FPGA), per_backend (Dense, Sparse, AutogradFunctionality: one runtime key per backend), runtime (a per-backend key: CPU, SparseCUDA, AutogradCPU), alias (Autograd, CompositeImplicitAutograd, ...: covers runtime keys, never dispatched to), synonym (another name: Autocast = AutocastCUDA)")
    priority: Mapped[int] = mapped_column(Integer, comment="the functionality's value in the enum: a call goes to the key of highest priority first; a runtime key has its functionality's (AutogradCPU: AutogradFunctionality's); a synonym its key's")
    functionality: Mapped[str | None] = mapped_column(String, comment="a runtime key's per-backend functionality (Dense for CPU, AutogradFunctionality for AutogradCPU); else NULL")
    backend: Mapped[str | None] = mapped_column(String, comment="a runtime key's BackendComponent (CPU, CUDA, Meta); else NULL")
    same_as: Mapped[str | None] = mapped_column(String, comment="a synonym's key (Autocast -> AutocastCUDA); else NULL")
    covered_by: Mapped[str] = mapped_column(Text, comment="JSON list of the alias keys that cover this runtime key (isIncludedInAlias, DispatchKeySet.cpp runtimeDispatchKeySetHas); [] for the others")
    file: Mapped[str] = mapped_column(String, comment="c10/core/DispatchKey.h")
    line: Mapped[int] = mapped_column(Integer, comment="the enumerator's line; for a per-backend runtime key, the C10_FORALL_FUNCTIONALITY_KEYS #define's")


class DispatchKeySetRow(Base):
    """The key sets of c10/core/DispatchKeySet.h/.cpp a call's key set is made from: every constexpr
    DispatchKeySet, and per backend what getAutogradRelatedKeySetFromBackend(B) and
    getAutocastRelatedKeySetFromBackend(B) return (a tensor of that backend carries them)."""

    __tablename__ = "dispatch_keysets"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, index=True, comment="default_included_set, autograd_dispatch_keyset_with_ADInplaceOrView, getAutogradRelatedKeySetFromBackend(CPU), ...")
    functionality: Mapped[str] = mapped_column(Text, comment="JSON list of the functionality bits (per-backend ones by their functionality name: Dense, AutogradFunctionality)")
    backends: Mapped[str] = mapped_column(Text, comment="JSON list of the backend bits (CPU, CUDA, ...)")


class DispatchTableEntry(Base):
    """The computed dispatch table: one row per (op, runtime key) that gets a kernel, chosen from
    dispatcher_registrations by the rules of the checkout's OperatorEntry.cpp
    (computeDispatchTableEntryWithDebug; indexer/dispatcher/table.py)."""

    __tablename__ = "dispatch_table"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op: Mapped[str] = mapped_column(String, index=True, comment="the operator as registered: aten::add.Tensor, aten::relu")
    key: Mapped[str] = mapped_column(String, comment="the runtime key: CPU, AutogradCUDA, ADInplaceOrView")
    kind: Mapped[str] = mapped_column(String, comment="PyTorch's word for the entry: kernel (registered at the key), default backend kernel (CompositeExplicitAutograd[NonFunctional]), nested kernel, math kernel (CompositeImplicitAutograd), ambiguous autogradother, autograd kernel (the Autograd alias), batched kernel (FuncTorchBatchedDecomposition), backend fallback")
    fallthrough: Mapped[int] = mapped_column(Integer, comment="1 when the kernel is a fallthrough: the call goes on to the next key")
    from_key: Mapped[str | None] = mapped_column(String, comment="the registration key the kernel comes from (CompositeExplicitAutograd for CPU's default backend kernel); NULL for the ambiguous autogradother kernel")
    kernel: Mapped[str | None] = mapped_column(String, comment="the registered kernel (dispatcher_registrations.kernel); ambiguousAutogradOtherKernel for the ambiguous entry")
    source: Mapped[str | None] = mapped_column(String, comment="generated, handwritten or python (dispatcher_registrations.source)")
    file: Mapped[str | None] = mapped_column(String, comment="where the registration is written (dispatcher_registrations.file)")
    line: Mapped[int | None] = mapped_column(Integer, comment="its line; NULL for a generated one")
    others: Mapped[int] = mapped_column(Integer, comment="how many other registrations at from_key were not taken (table.py says which is taken)")
