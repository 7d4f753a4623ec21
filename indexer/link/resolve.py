"""C++ name lookup over the whole checkout: a written callee, seen from its caller, to the
definitions it can mean, and how that was decided.

The rules, in order (the first that decides wins):
0. a built-in type or standard integer typedef called unqualified (`float(x)`, `int64_t(n)`, `unsigned(i)`) is a
   functional cast: the type class, never a definition (conversion operators are named `operator float`);
1. qualified names in std:: and vendor namespaces are those classes at once;
2. a member call `x.f()` looks in the class of x's type, then in its bases level by level: the first
   class that has the name hides its bases' members of that name (Tensor::contiguous hides TensorBase's);
   x's type is its declared one, `x->` going through operator-> (MaybeOwned<Tensor>, intrusive_ptr<T>,
   std::shared_ptr<T>, std::unique_ptr<T>, std::optional<T>: the first template argument; TensorArg: what its
   operator-> returns), and a receiver that is an
   expression is typed step by step (see "Receiver types" below);
3. a qualified name `Q::f` is looked up as Q relative to each enclosing scope of the caller, inner first;
4. an unqualified name is looked up in the caller's class and namespaces, inner first, then in the
   namespaces the caller's file brings in with `using`; a namespace whose definitions of the name are all in
   headers the caller's file does not include is passed over for an enclosing one with a definition the file
   sees (its translation unit declares none of the first: at::native::ceil_div of cuda/ScanUtils.cuh, not
   included by cuda/AdaptiveAveragePooling.cu, which includes ATen/ceil_div.h's at::ceil_div);
5. local definitions (unnamed namespace, static) are seen only from their own file and its includers;
   a name that is one of the caller's template parameters is that parameter, never a definition of
   the same name elsewhere (template_args.py follows it to the arguments call sites write);
6. members of a class template's specialisations are picked by the class's template arguments as written
   (`Vectorized<float>::size`, through the caller's `using fVec = ...`); dependent ones (`Vec::size` with
   Vec = Vectorized<scalar_t>), or none that matches, reach every specialisation (specialisations);
7. among what is left: the caller's own file, then files it includes, then by argument count (a member
   defined outside its class repeats no default argument: its fewest arguments count as 0);
   explicit specialisations answer a call whose template arguments name one, and a call with
   dependent template arguments (`gemm<scalar_t>`) reaches every specialisation;
   an overload set left (one name in one scope) is told apart by the argument types the call writes
   (calls.arg_types, overloads.py: the one viable candidate, or the one exact match): argument-types;
   with no arguments and no template arguments, the one non-template that takes none beside function
   templates of the same qualifiers is the call's (C++ prefers it when nothing is converted): overload;
8. no definition: an op through the dispatcher, a Tensor method, or a named class (classify.py), a class
   or type alias of the checkout made in place (`at::IntArrayRef(...)`: type), a name of a namespace that
   the caller's file brings in with `using namespace X` where X is no namespace of the checkout (cute:
   vendor); else ambiguous (N candidates) or not in the checkout.
Several candidates left by any rule that are definitions of one qualified name, each under a guard no build
holds together with the others' (configurations.py: #if/#elif/#else branches, X and !X, two CPU capabilities,
two architectures), are one definition per build configuration (per-build-configuration), an edge each.

Type aliases: the caller's own first, then the checkout-wide ones, except for a name that lookup from
the caller finds as a namespace or class (`vec::` from at::native is at::vec). A method of at::Tensor
(whose class body the codegen templates complete with a method per op) that torchgen generates (an op with
a method variant, not manual_cpp_binding: `tensor_methods`) is the op's; of the ops of its name only those
(OpForms.method_ops) are methods, and where the count and the argument types leave another one, a member of
TensorBase of the name is the call's (`t.size(0)`: TensorBase::size, not size.int; Resolver._tensor_method).

Receiver types (`returns`, `op_returns`: definitions.returns, which stage.prepare reads with the symbols, and
each op's schema, which symbols.op_typing gives with `tensor_methods`):
the extractor gives the declared type of the variable a receiver starts with, or `decltype(<initializer>)`
for an `auto` one; then each step is typed in turn: a call `f(...)` or `x.g(...)` by the return type of the
one definition (or the overloads that agree) or the ops it resolves to, a class made in place by its name,
`x[i]` of a sequence (ArrayRef, TensorList, std::vector, ...) by its element type. A chain longer than 200
characters comes from the extractor with each argument written `_` (`TensorIteratorConfig().add_output(_).build`):
the steps and their argument counts are all that typing it needs. A step that is not
known (a field of another file's class, several candidates) leaves the receiver untyped: never a guess.
An arithmetic operator expression, written `operator-(std::declval<A>(),std::declval<B>())` by the extractor (a
chain on it, `(a0 - b0).abs()`, starts from the parenthesised expression as from a variable), is typed by what the
operator function it resolves to returns (operator_call), or the return type its candidates agree on; with
built-in operands, by the usual arithmetic conversions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, KeysView
import json
import re
from typing import NamedTuple

from ..cxx.argument_types import TEMPLATE_NAME, arithmetic_result
from ..cxx.scopes import split_scope
from .classify import (BUILTIN_TYPES, STANDARD_NAMES, OpForms, argument_class, named_class, op_called,
                       template_args, vendor_namespace, written_parts)
from . import overloads
from .configurations import one_per_build
from .kinds import OPERATOR_CALLS, How
from .symbols import (Symbol, Symbols, _params, is_header, normalise_scope, normalise_type, split_top_level,
                      untemplated)

_METHOD_DETAILS = ("Tensor method", "method of an op's name")  # the details of an op target a method call gives
_TENSOR_BASE = "TensorBase"  # at::Tensor's base class, in the checkout (core/TensorBase.h)
AMBIGUOUS_FOLLOWED = 4  # up to this many candidates of an ambiguous call get an edge each
OVERLOADS_FOLLOWED = 12  # and of one overload set (the argument types pick among them)
_TENSOR_TYPES = frozenset(("Tensor", "TensorBase", "const Tensor", "Tensor&"))
# A source file's functions are declared in its header beside it (Resolver._declared_with).
_SOURCE_EXTENSIONS = frozenset(("cpp", "cc", "cxx", "cu", "mm"))
_HEADER_EXTENSIONS = ("h", "hpp", "cuh")


class Target(NamedTuple):
    node: int | None
    how: How
    detail: str | None = None
    op: tuple[str, ...] = ()  # the ops a How.OP call can mean
    candidates: tuple[int, ...] = ()  # the nodes an ambiguous call with no edge per candidate can mean
    library: str | None = None  # a How.VENDOR call's namespace outside the checkout (cudnn_frontend for `graph->execute`)


class Context(NamedTuple):
    """What lookup needs to know about the caller."""

    file: str
    chain: list[str]  # scope_chain of the caller
    usings: tuple[str, ...]  # namespaces brought in by using-directives (normalised)
    visible: Callable[[str], bool]  # is a file's local definition visible from here (own file, includes)
    includes: Callable[[str], bool]  # is the file in the caller's include closure
    params: frozenset[str] = frozenset()  # the caller's parameter names (a call through one is indirect)
    aliases: dict[str, str] | None = None  # the caller's own type aliases (`using Vec = Vectorized<scalar_t>;`)
    template_params: dict[str, str] | None = None  # the caller's template parameters, name -> kind
    # (scope, name) -> the qualified names a using-declaration written in that scope brings in under the name,
    # innermost meaning first (`using c10::maybe_wrap_dim;` in at: at::c10::maybe_wrap_dim, c10::maybe_wrap_dim):
    # those of headers' namespaces and of the caller's own file (stage.using_declarations)
    declared: dict[tuple[str, str], tuple[str, ...]] | None = None
    caller: str = ""  # the caller's own scope (normalised) when using-declarations in its body come first, else ""


_PUBLIC: set[str] = set()  # _scope_seen: a scope some header defines something in

# What the scope map (Resolver._scope_map) and the generated classes (Resolver._generated_classes) are made of, per
# definition: its scope (normalised), whether it is local to its file, its file, whether it is a method that a
# codegen template header defines. The link keeps every definition's in meta link_scopes: an incremental link reads
# the definitions of the names it looks up only, and takes these from the last link (incremental.py).
ScopeEntry = tuple[str, bool, str, bool]


def scope_entries(symbols: Iterable[Symbol]) -> set[ScopeEntry]:
    return {(s.scope, s.local, s.file, s.kind == "method" and "/templates/" in s.file and is_header(s.file))
            for s in symbols}


def scope_maps(entries: Iterable[ScopeEntry]) -> tuple[dict[str, set[str]], set[str]]:
    """What the entries make: every scope, with each of its prefixes -> the files of the local definitions in it,
    or _PUBLIC where one that is not local is in it; and the classes the codegen templates define (the last
    component of the scope of a method a template header defines)."""
    scopes: dict[str, set[str]] = {}
    templated: set[str] = set()
    for scope, local, file, in_template in entries:
        if in_template:
            templated.add(scope.rsplit("::", 1)[-1])
        parts = scope.split("::")
        for i in range(1, len(parts) + 1):
            prefix = "::".join(parts[:i])
            files = scopes.get(prefix)
            if files is _PUBLIC:
                continue
            if not local:
                scopes[prefix] = _PUBLIC
            elif files is None:
                scopes[prefix] = {file}
            else:
                files.add(file)
    return scopes, templated


_CONSTRUCTED = re.compile(r"(?:[\w:]+::)?([A-Z]\w*)(?:<[^()]*>)?\(")  # `TensorOptions().dtype(...)`: a T made in place
_STD_TYPES = re.compile(r"(?:std::)?(?:vector|string|string_view|array|tuple|pair|optional|unordered_map|map|set|"
                        r"unordered_set|deque|list|unique_ptr|shared_ptr|function|atomic|mutex|thread|ostream|"
                        r"stringstream|ostringstream|istringstream|bitset)\b")


def _undeducible(s: Symbol) -> bool:
    """A function template that no call without template arguments can call: one of its type parameters
    appears in no function parameter, and its head gives no parameter a default (definitions.constrained
    is 0), so deduction cannot find it."""
    if not s.template_params or s.constrained or s.kind not in ("function", "method", "device_function") or \
            s.name.startswith("operator"):
        return False
    params = _params(s.signature)
    if params is None:
        return False
    # a member of a class template defined outside it (`List<T>::empty`): the head is the class's
    words = set(re.findall(r"\w+", " ".join(params) + (s.scope if "<" in s.scope else "")))
    return any(kind == "type" and name not in words for name, kind in s.template_params.items())


_CV_POINTER = re.compile(r"\b(?:const|volatile)\b|[*&]")


def _core_type(written: str) -> str:
    """A type compared for deduction: `const c10::Half*` -> "Half", `int32_t` -> "int" (overloads.FIXED_WIDTH)."""
    plain = " ".join(_CV_POINTER.sub(" ", written).split())
    return normalise_type(overloads.FIXED_WIDTH.get(plain, plain))


def _count_args(args: str) -> int:
    """Template arguments at the top level: `scalar_t, out_t` -> 2, `c10::complex<float>` -> 1."""
    depth, count = 0, 1 if args.strip() else 0
    for ch in args:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif ch == "," and depth == 0:
            count += 1
    return count


def _unalias(name: str, aliases: tuple[dict[str, str] | None, dict[str, str]],
             is_scope: Callable[[str], bool] = lambda _: False) -> str:
    """`Vec` -> `Vectorized<scalar_t>`, `IntArrayRef` -> `ArrayRef<int64_t>`: the first component through
    the visible type aliases (a few steps; an alias of an alias is followed). The caller's own aliases come
    first; a checkout-wide one does not apply to a name that lookup from the caller finds as a namespace or
    class (`vec::Vectorized<float>` from at::native is at::vec's, whatever some class calls `vec`)."""
    for _ in range(3):
        head, sep, rest = name.partition("::")
        bare = head.split("<", 1)[0]
        local, shared = aliases
        target = local.get(bare) if local else None
        if target is None and bare in shared and not is_scope(bare):
            target = shared[bare]
        if target is None or target == bare:
            break
        target = target.removeprefix("typename ")
        if head != bare:  # written with template arguments: an alias template's, put in for its parameters
            target = _instantiated(target, head[len(bare):]) or target
        name = target + (sep + rest if sep else "")
    return name


_PARAMETER = re.compile(r"[A-Za-z_]\w*")
_WORDS = re.compile(r"\b[A-Za-z_]\w*")  # the names in a text (not a number's suffix: 4ul)


def _instantiated(target: str, written: str) -> str | None:
    """An alias template's target with the arguments written (`<Tensor>`) in place of its own, when each of
    its own is a bare name (a parameter: `at::ArrayRef<T>` -> `at::ArrayRef<Tensor>`); None otherwise (the
    parameters are not known: the class it names is still the one)."""
    own, given = template_args(target), template_args(written)
    if own is None or given is None:
        return None
    params, args = split_top_level(own), split_top_level(given)
    if len(params) != len(args) or not all(_PARAMETER.fullmatch(p) for p in params):
        return None
    return f"{target[:target.index('<')]}<{','.join(args)}>"


def _by_owner(syms: list[Symbol], written: str | None, concrete: Callable[[str], bool] = lambda _: False) \
        -> tuple[list[Symbol], bool]:
    """Members of a class template's specialisations, picked by the class's template arguments as written
    (`Vectorized<float>::size`, a receiver of type Vectorized<float>): the specialisation they name; with
    concrete arguments that none names (`complex<float>::real`, concrete(args) true), the primary
    template's when every specialisation is an explicit one (its arguments concrete too: a partial one
    could match); with dependent ones (`Vectorized<scalar_t>`), or else, every specialisation and the
    primary template's, which the bool says (they are several, not one); without arguments, the primary's."""
    specs = [s for s in syms if s.owner_spec is not None]
    if not specs or not written:
        return syms, False
    last = _last_component(written)
    args = template_args(last)
    if args is None:
        return [s for s in syms if s.owner_spec is None] or syms, False
    exact = [s for s in specs if s.owner_spec == normalise_type(args)]
    if exact:
        return exact, False
    primary = [s for s in syms if s.owner_spec is None]
    if primary and concrete(args) and all(concrete(s.owner_spec) for s in specs):
        return primary, False
    return syms, True  # default template arguments and partial specialisations: any of them may be meant


def _named_arguments(args: str) -> str | None:
    """calls.arg_types for a call inside a chain, whose arguments are known only as written: each qualified name
    (`c10::kCPU`) as `decltype(...)`, typed at link time as an argument the extractor wrote so; None when none is."""
    named = [f"decltype({a})" if "::" in a and _NAME.fullmatch(a) else None
             for a in map(str.strip, split_top_level(args))]
    return json.dumps(named, separators=(",", ":")) if any(named) else None


def _constructors(syms: list[Symbol], last: str | None = None) -> bool:
    """Whether every definition is a constructor (a member named as its class), of the class `last` names
    when given (`complex<double>`)."""
    return bool(syms) and all(s.scope.rsplit("::", 1)[-1].split("<", 1)[0] == s.name and
                              (last is None or last.split("<", 1)[0] == s.name) for s in syms)


def _fewest(s: Symbol) -> int:
    """The fewest arguments a call of the definition may pass. A member defined outside its class
    (`Tensor::expect_contiguous(MemoryFormat memory_format) const &`) does not repeat the default
    arguments its declaration gives, so it may take fewer than its parameters: 0."""
    head = s.signature.split("(", 1)[0]
    return 0 if s.kind == "method" and "::" in head else s.min_args


def _returned_category(signature: str) -> str:
    """The value category of a call of the definition, by its declarator: `& f()` an lvalue, `&& f()` an xvalue,
    else a prvalue (definitions.returns is written without the `&`)."""
    head = signature.lstrip()
    return "xvalue" if head.startswith("&&") else "lvalue" if head.startswith("&") else "prvalue"


def _sees(ctx: "Context", spaces: tuple[str, ...]) -> bool:
    """Whether unqualified lookup from the caller can find what these namespaces declare: the caller is in one of
    them, or its file brings one in with a using-directive. ("at", "c10"): at's and c10's classes (at::Tensor);
    ("at", "torch"): the functions torchgen declares for the ops (at::add, in Functions.h; torch's headers write
    `using namespace at;`), so that a kernel of a vendor library's namespace (flash_attn's fmha) calling `min(a, b)`
    does not call the op min."""
    return any(n == ns or n.startswith(ns + "::") for n in (*ctx.chain, *ctx.usings) for ns in spaces)


def _takes(s: Symbol, argc: int, fewest: Callable[[Symbol], int] = _fewest) -> bool:
    """Whether a call may pass the definition argc arguments (an unknown arity takes any)."""
    return (s.min_args < 0 or fewest(s) <= argc) and (s.max_args < 0 or argc <= s.max_args)


_UNNAMED_CLASS = re.compile(r"(?:struct|class|union)\s*\{")  # a variable's type written as a class body
_DECLARED = re.compile(r"\s*(.*?)\s*\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:=.*|\{.*\})?\s*")


def _unnamed_member(type_name: str, name: str) -> str | None:
    """The declared type of a data member of a class written in place as a variable's type (2.6.0
    ParallelNative.cpp:174 `struct { ...; std::condition_variable cv; } state;`: state.cv is a
    std::condition_variable), or None."""
    body = type_name[type_name.find("{") + 1:type_name.rfind("}")]
    for member in split_top_level(body.replace(";", ",")):
        m = _DECLARED.fullmatch(member)
        if m is not None and m.group(2) == name and m.group(1) and "(" not in m.group(1):
            return m.group(1)
    return None


def _declared_fewest(s: Symbol) -> int:
    """The fewest arguments a call may pass, counting the defaults a declaration elsewhere may give: 0 for a
    function defined in a source file that other files call (mps/OperationUtils.mm's `getMPSShape(const
    TensorBase& t, c10::MemoryFormat memory_format)`, declared in OperationUtils.h with
    `memory_format = MemoryFormat::Contiguous`), else _fewest."""
    return 0 if s.kind == "function" and not s.local and not is_header(s.file) else _fewest(s)


def _last_component(written: str) -> str:
    """`vec::Vectorized<c10::complex<float>>` -> `Vectorized<c10::complex<float>>` (`::` inside <> does not split)."""
    depth = 0
    for i in range(len(written) - 1, 0, -1):
        ch = written[i]
        if ch == ">":
            depth += 1
        elif ch == "<":
            depth -= 1
        elif depth == 0 and ch == ":" and written[i - 1] == ":":
            return written[i + 1:]
    return written


_SEQUENCES = frozenset(("ArrayRef", "OptionalArrayRef", "SmallVector", "vector", "array", "deque", "IListRef"))
_PLAIN_RECEIVER = re.compile(r"(?:this->)?[A-Za-z_]\w*")
_LIBRARY_PREFIX = re.compile(r"^(?:::)?(?:at|c10)::")  # receiver and argument types are written without them
_NAME = re.compile(r"(?:::)?\w+(?:::\w+)*")  # a name, maybe qualified: `kLong`, `at::kLong`, `ScalarType::Long`
_LVALUE_OBJECT = re.compile(r"(?:this->)?[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*")  # a variable or its member
_CHAIN_STEPS = 16  # the longest chain typed step by step (a builder: TensorIteratorConfig() and its setters, .build())
# A return type that names no class: a template parameter (T, scalar_t), void, a built-in or a dependent name.
_UNKNOWN_RETURN = re.compile(r"[A-Z]\d?|\w+_t|void|bool|int|float|double|char|auto|typename.*|.*::type")


def _chain_parts(text: str) -> list[tuple[str, str, str | None]] | None:
    """`self.options().dtype(kFloat)` -> [("", "self", None), (".", "options", ""), (".", "dtype", "kFloat")]:
    each step's separator, name and arguments (None for a variable or a field); None for any other expression."""
    parts, sep, i, n = [], "", 0, len(text)
    if text.startswith("("):  # `(a - b).abs()`: the parenthesised expression is the chain's root, as a variable is
        close = _closing(text, 0)
        if close < 0:
            return None
        parts.append(("", text[:close + 1], None))
        if close + 1 == n:
            return parts
        if text.startswith("->", close + 1):
            sep, i = "->", close + 3
        elif text[close + 1] == ".":
            sep, i = ".", close + 2
        else:
            return None
    while i < n:
        j, depth = i, 0
        while j < n:
            c = text[j]
            if c == "<":
                depth += 1
            elif c == ">" and depth:
                depth -= 1
            elif depth == 0 and (c in "({.[)}" or text.startswith("->", j)):
                break
            j += 1
        name, args = text[i:j], None
        if not name or not re.fullmatch(r"[\w:]+(?:<.*>)?", name):
            return None
        if j < n and text[j] in "({":
            close = _closing(text, j)
            if close < 0:
                return None
            args, j = text[j + 1:close], close + 1
        parts.append((sep, name, args))
        while j < n and text[j] == "[":  # x[i]: an element
            close = _closing(text, j)
            if close < 0:
                return None
            parts.append(("[]", "", None))
            j = close + 1
        if j >= n:
            break
        if text.startswith("->", j):
            sep, i = "->", j + 2
        elif text[j] == ".":
            sep, i = ".", j + 1
        else:
            return None
    return parts


_OPERATOR_EXPRESSION = re.compile(r"operator([-+*/%&|^~])\((.*)\)", re.S)  # cxx/receivers.py's operator expressions


def _closing(text: str, start: int) -> int:
    """The offset of the bracket that closes the one at start, or -1."""
    depth = 0
    for k in range(start, len(text)):
        if text[k] in "({[":
            depth += 1
        elif text[k] in ")}]":
            depth -= 1
            if depth == 0:
                return k
    return -1


_THROUGH_PARAMETER = [Target(None, How.VIRTUAL, "a call through a parameter (a functor, lambda or function pointer)")]
_FUNCTIONAL_CAST = [Target(None, How.TYPE)]  # `float(x)`: a built-in type (classify.BUILTIN_TYPES)


# The standard library's factories of owning pointers, by the name written: what each returns.
_STD_FACTORIES = {"std::make_unique": "unique_ptr", "make_unique": "unique_ptr", "std::make_shared": "shared_ptr",
                  "make_shared": "shared_ptr"}
_STD_FACTORIES_PREFIXES = tuple(f"{n}<" for n in _STD_FACTORIES)
_STD_GET = re.compile(r"(?:::)?(?:std::)?get<(\d+)>")  # std::get<N>(e): the N-th element of a tuple, pair or array
# Members of standard class templates that give what they hold: (class, member) -> "held" (T) or "pointer" (T*).
_STD_HELD = {("optional", "value"): "held", ("optional", "operator*"): "held", ("optional", "value_or"): "held",
             ("unique_ptr", "get"): "pointer", ("shared_ptr", "get"): "pointer",
             ("unique_ptr", "operator*"): "held", ("shared_ptr", "operator*"): "held",
             ("optional", "operator->"): "held", ("unique_ptr", "operator->"): "held",
             ("shared_ptr", "operator->"): "held"}


def _standard_member(type_name: str, member: str) -> str | None:
    """What a member of std::optional<T>, std::unique_ptr<T> or std::shared_ptr<T> gives (T, or T* for get()),
    or None for any other class or member; `->` is operator->."""
    head = type_name.split("<", 1)[0]
    last = head.rsplit("::", 1)[-1]
    if not head.startswith("std::") and head != last:
        return None
    how = _STD_HELD.get((last, member))
    args = template_args(type_name.rstrip("*& ")) if how else None
    if not args:
        return None
    held = split_top_level(args)[0].removesuffix("[]")
    return held + "*" if how == "pointer" else held


_TRAILING_QUALIFIER = re.compile(r"\s*(?:const|volatile|noexcept|override|final|&&|&)\s*$")


def _trailing_qualifiers(signature: str) -> tuple[str, tuple[str, ...]]:
    """A member's signature without the qualifiers after its parameters, and those qualifiers, last first
    (`* desc() const` -> ("* desc()", ("const",)); `value() const& noexcept` -> ("value()", ("noexcept", "&",
    "const")))."""
    text, found = signature.strip(), []
    while text and not text.endswith(")"):
        m = _TRAILING_QUALIFIER.search(text)
        if m is None:
            break
        found.append(m.group().strip())
        text = text[:m.start()]
    return text, tuple(found)


def _member_qualifiers(signature: str) -> tuple[str, bool]:
    """A member's signature without its trailing qualifiers, and whether `const` is one of them."""
    bare, found = _trailing_qualifiers(signature)
    return bare, "const" in found


def _call_qualifiers(signature: str) -> tuple[str, ...]:
    """The cv and ref qualifiers after a member's parameters (`() const &` -> ("&", "const")), sorted."""
    return tuple(sorted(q for q in _trailing_qualifiers(signature)[1] if q in ("const", "volatile", "&", "&&")))


def _bound(returned: str | None, s: Symbol, given: str | None) -> str | None:
    """A return type with the class template's parameters bound to the arguments the receiver's type gives,
    for a member defined outside its class template (its template_params are the class's, in order);
    unchanged otherwise."""
    if returned is None or not given or not s.template_params or s.kind != "method" or s.owner_spec is not None:
        return returned
    params, args = list(s.template_params), split_top_level(given)
    if len(params) != len(args) or not any(re.search(rf"\b{re.escape(p)}\b", returned) for p in params):
        return returned
    by_name = dict(zip(params, args))
    return re.sub(r"\b(" + "|".join(map(re.escape, params)) + r")\b", lambda m: by_name[m.group(1)], returned)


def _declared_type(written: str, declared: dict[tuple[str, str], tuple[str, ...]],
                   classes: dict[str, tuple[tuple[str, str], ...]]) -> str:
    """A qualified type name that a using-declaration of its namespace brings in from another one
    (`torch::Tensor` with `namespace torch { using at::Tensor; }`): the class of the checkout it names there (the
    innermost meaning that is one); else unchanged."""
    head, angle, rest = written.partition("<")
    scope, _, name = head.removeprefix("::").rpartition("::")
    known = {qualified for qualified, _space in classes.get(name, ())}
    found = next((t for t in declared.get((scope, name), ()) if t in known), None)
    return found + angle + rest if found else written


def _own_class(returned: str | None, receiver: str | None) -> str | None:
    """The receiver's type, when a member of a class template returns its own class with the class's parameters
    (`Vectorized<T> abs() const` defined in `template <class T> class Vectorized`, on a Vectorized<float>: the
    injected class name is the receiver's specialisation); else None."""
    if returned is None or receiver is None or "<" not in returned:
        return None
    own = _last_component(receiver.rstrip("*& "))
    if untemplated(returned).rsplit("::", 1)[-1] != untemplated(own) or returned.rstrip("*&") != returned:
        return None
    args = template_args(returned)
    if args is None or not all(overloads.PARAMETER_LIKE.fullmatch(a) for a in split_top_level(args)):
        return None
    return own


def _deduced_return(s: Symbol, returned: str, args: list[str | None]) -> str:
    """A function template's return type with the template parameters that its arguments' types give put in: a
    parameter naming a class template with a parameter as an argument (`const Vectorized<T>&`) and an argument of
    that class (`Vectorized<scalar_t>&`) give T = scalar_t. Unchanged where nothing is deduced."""
    params = overloads.parameter_types(s.signature) or []
    found: dict[str, str] = {}
    for param, arg in zip(params, args):
        written = overloads.plain_type(arg) if arg is not None else ""
        if not written or untemplated(param).rsplit("::", 1)[-1] != untemplated(written).rsplit("::", 1)[-1]:
            continue
        wanted, given = template_args(param), template_args(written)
        if wanted is None or given is None:
            continue
        for name, value in zip(split_top_level(wanted), split_top_level(given)):
            if name in (s.template_params or ()) and found.setdefault(name, value) != value:
                return returned  # deduced two ways: not a match; leave it
    if not found:
        return returned
    return re.sub(r"\b(" + "|".join(map(re.escape, found)) + r")\b", lambda m: found[m.group(1)], returned)


def _readable(syms: list[Symbol], n: int) -> list[Symbol]:
    """The operator functions whose signature names at least n parameters (overloads.pick can compare them)."""
    return [s for s in syms if (params := overloads.parameter_types(s.signature)) is not None and len(params) >= n]


def _within(scope: str, outer: str) -> bool:
    """Whether a namespace is OUTER or inside it ("" holds every one)."""
    return not outer or scope == outer or scope.startswith(outer + "::")


def _brought(cands: list[Symbol], targets: tuple[str, ...] | None) -> list[Symbol]:
    """The candidates a using-declaration names: those of its first meaning that has any (its targets are
    qualified names, innermost meaning first)."""
    for target in targets or ():
        scope = target.rpartition("::")[0]
        got = [s for s in cands if s.scope == scope]
        if got:
            return got
    return []


class ClassTypes:
    """overloads.ClassTypes over the resolver's tables: a type names a class of the checkout when its last name
    (without template arguments) is a class's and no enum's, type alias's or template parameter's."""

    def __init__(self, resolver: "Resolver"):
        self._resolver = resolver
        self._memo: dict[str, bool] = {}

    def is_class(self, plain: str) -> bool:
        got = self._memo.get(plain)
        if got is None:
            r = self._resolver
            head = untemplated(plain).rsplit("::", 1)[-1]
            got = self._memo[plain] = not plain.startswith("std::") and not plain.endswith("*") and \
                head in r.classes and head not in r.enums and head not in r.aliases and \
                not overloads.PARAMETER_LIKE.fullmatch(head)
        return got

    def bases(self, plain: str) -> set[str]:
        return self._resolver._class_and_bases(plain)


class Resolver:
    def __init__(self, symbols: Symbols, ops: OpForms, macros: set[str], types: set[str],
                 bases: dict[str, tuple[str, ...]], namespaces: frozenset[str] = frozenset(),
                 scope_usings: dict[str, frozenset[str]] | None = None, returns: dict[int, str] | None = None):
        self.symbols = symbols
        self.ops = ops
        self.macros = macros
        self.types = types
        self.classes: frozenset[str] = frozenset()  # the names of the checkout's classes (types without aliases)
        self.class_types = ClassTypes(self)  # what overload resolution asks of them
        self.bases = bases  # class name -> base class names (last components)
        self._memo: dict[tuple, list[Target]] = {}
        self._shared: dict[tuple, list[Target]] = {}
        self._nameless: dict[tuple, list[Target]] = {}
        self._bases_memo: dict[str, set[str]] = {}
        self._caller_classes: dict[tuple, tuple[frozenset[str] | None, bool]] = {}  # _caller_classes_of's (answer,
        # whether the caller's file decided it)
        self._class_names: frozenset[str] | None = None  # every class's qualified name (_vendor_class)
        self._class_spaces: frozenset[str] = frozenset()  # the namespaces around them, with their prefixes
        self._subclasses: dict[str, set[str]] | None = None  # class -> the classes naming it as a base (_derived)
        self._file_used = False  # set while resolving when the answer depended on the caller's file
        self.aliases: dict[str, str] = {}  # type aliases at namespace or class level, checkout-wide
        self.scope_usings = scope_usings or {}  # namespace -> namespaces its headers' using-directives bring in
        self.namespaces = namespaces  # the first component of every scope the checkout defines something in
        self.returns = returns or {}  # definitions.id -> its declared return type (definitions.returns)
        self.typed = bool(self.returns)  # whether any definition has one (returns may hold the symbols' alone)
        self.op_returns: dict[str, str] = {}  # op name -> the C++ type its schema returns (symbols.op_return_type)
        self.tensor_methods: frozenset[str] = frozenset()  # the Tensor methods torchgen generates, by name
        self._by_node: dict[int, Symbol] | None = None
        self._typed: dict[tuple, str | None] = {}  # (file, scope, receiver, its root's type) -> the receiver's type
        self._templated: set[str] | None = None  # the classes the codegen templates define
        self._specialised_bases: dict[tuple[str, str], tuple[str, ...]] | None = None  # (class, its arguments) -> bases
        self._constructors: dict[str, bool] = {}  # a name -> whether `name(...)` makes an object of a class
        self._arrows: dict[str, list[Symbol]] | None = None  # the classes that define operator->, and those
        self._scopes: dict[str, set[str]] | None = None  # every namespace and class scope, with its prefixes ->
        # the files of its local definitions (_PUBLIC: it has a definition in a header): _scope_map
        self.guards: dict[int, str] = {}  # definitions.id -> its guard (definitions.guard), for How.PER_BUILD
        self._picked: dict[tuple, list[Target]] = {}  # (an overload set's nodes, argument types) -> the answer
        self._arguments: dict[tuple, str | None] = {}  # (file, scope, an argument's decltype text) -> its type
        # A class's last name -> (its qualified name, normalised; its data members' types) (stage.class_fields)
        self.fields: dict[str, list[tuple[str, dict[str, str]]]] = {}
        self.qualified_aliases: dict[str, str] = {}  # `at::sparse_csr::SparseCsrTensor` -> `Tensor` (stage.py)
        self.constants: dict[str, list[Symbol]] = {}  # namespace-scope constants by name, type in signature (stage.py)
        self.enums: set[str] = set()  # the enums' names: `E::X` is an E
        self.op_references: frozenset[str] = frozenset()  # ops whose schema returns a mutable alias (a Tensor&)
        self._category: str | None = None  # the value category of the last call typed (_returned)
        self._heads: set[str] | None = None  # _type_heads
        self._operators: dict[tuple, list[Target]] = {}  # operator_call's answers by scope and operand types
        # name -> (its members, the others, the others by scope)
        self._operator_candidates: dict[str, tuple[list[Symbol], list[Symbol], dict[str, list[Symbol]]]] = {}
        self._operator_lookups: dict[tuple, tuple | None] = {}  # ordinary lookup of an operator, by scope
        self._operand_classes: dict[tuple, str | None] = {}  # _operand_class's answers
        self._argument_classes: dict[tuple, str | None] = {}  # _argument_class's answers through aliases
        # A class's or enum's last name -> (its qualified name untemplated, its namespace) of each
        # (stage.class_namespaces)
        self.class_namespaces: dict[str, tuple[tuple[str, str], ...]] = {}

    def resolve(self, ctx: Context, callee: str, callee_name: str, argc: int,
                receiver_type: str | None, arg_types: str | None = None,
                receiver_const: int | None = None) -> list[Target]:
        """The targets of a call; an overload set the argument types (calls.arg_types) pick one of is that one,
        and a const/non-const pair of one member the object's constness (calls.receiver_const)."""
        if callee_name in OPERATOR_CALLS and callee == callee_name:
            return self.operator_call(ctx, callee_name, argc, arg_types)
        got = self._resolve_memo(ctx, callee, callee_name, argc, receiver_type)
        if got and got[0].how in (How.AMBIGUOUS, How.NOT_IN_CHECKOUT) and arg_types is not None and \
                callee == callee_name and self.class_namespaces:
            got = self._argument_dependent(ctx, callee_name, argc, arg_types) or got
        if len(got) == 1 and got[0].how is How.OP and got[0].op:
            target = got[0]
            if len(target.op) > 1 and arg_types is not None:
                target = self._ops_by_argument_types(ctx, callee, target, arg_types)
            if target.detail is not None and target.detail.startswith(_METHOD_DETAILS):
                return self._tensor_method(ctx, callee, callee_name, argc, target)
            return [target]
        if not got or got[0].how is not How.OVERLOAD_SET:
            return got
        _qualifier, last, receiver = written_parts(callee)
        if argc == 0 and got[0].node is not None and "<" not in last and \
                (picked := self._non_template(got)) is not None:
            return picked
        if len(got) >= 2 and got[0].node is not None and _LVALUE_OBJECT.fullmatch(receiver or "-"):
            got = self._of_lvalue(got)  # `self.expect_contiguous()`: not the `&&`-qualified member
            if len(got) == 1:
                return got
        if receiver_const is not None and len(got) == 2:
            picked = self._by_constness(got, bool(receiver_const))
            if picked is not None:
                return picked
        if arg_types is not None and not callee.startswith("::"):
            arg_types = self._typed_arguments(ctx, arg_types)
            named = "::" in callee.split("<", 1)[0] or receiver is not None
            picked = self._by_argument_types(got, arg_types, argc, named) if arg_types is not None else got
            if picked[0].how is How.ARGUMENT_TYPES and (self._seen_from(ctx, picked[0].node) or
                                                         self._one_function(got, picked[0].node)):
                return picked
        return got

    def _tensor_method(self, ctx: Context, callee: str, callee_name: str, argc: int, target: Target) -> list[Target]:
        """A method call the ops of its name may mean (`t.size(0)`, `t.pow(2)`), as at::Tensor's methods are: only an
        op with a method variant that torchgen writes (not manual_cpp_binding: OpForms.method_ops) is a method. Where
        the count and the argument types leave another op too, or only such ones, and the receiver is a Tensor whose
        base class TensorBase (in the checkout) has a member of the name, the call is that member: at::Tensor brings
        TensorBase::size and ::stride in beside its Dimname methods (templates/TensorBody.h's `using
        TensorBase::size;`), so `t.size(0)` is TensorBase::size, not size.int (function-only) through the dispatcher."""
        methods = tuple(o for o in target.op if o in self.ops.method_ops)
        if len(methods) == len(target.op):
            return [target]
        tensor = target.detail.startswith(_METHOD_DETAILS[0])  # the receiver is typed a Tensor (not unknown)
        if tensor:
            plain = f"self.{written_parts(callee)[1]}"  # (on a plain receiver of the type given: not typed again)
            members = [t for t in self._resolve_memo(ctx, plain, callee_name, argc, _TENSOR_BASE) if t.node is not None]
            if members:
                return members
        if methods:
            return [target._replace(op=methods)]
        return [Target(None, How.TENSOR_METHOD)] if tensor else [target]

    def _ops_by_argument_types(self, ctx: Context, callee: str, target: Target, arg_types: str) -> Target:
        """A call through the dispatcher that several overloads fit by count (`at::sort_outf`, `t.gather(dim, i)`),
        narrowed to those whose C++ parameters can take the arguments (classify.OpForms.by_argument_types): an int
        is no Dimname, a Tensor no Scalar. `at::redispatch::` calls (a DispatchKeySet first) are left."""
        qualifier, last, receiver = written_parts(callee)
        if qualifier.removeprefix("::").startswith("at::redispatch"):
            return target
        typed = self._typed_arguments(ctx, arg_types)
        if typed is None:
            return target
        classes = tuple(self._argument_class(ctx, a) for a in json.loads(typed))
        if not any(classes):
            return target
        kept = self.ops.by_argument_types(last.split("<", 1)[0], target.op, receiver is not None, classes)
        if len(kept) == len(target.op):
            return target
        picked = f"the argument types keep {len(kept)} of {len(target.op)} overloads"
        detail = picked if target.detail is None or target.detail.endswith("overloads fit") else \
            f"{target.detail}; {picked}"
        return target._replace(detail=detail, op=kept)

    def _argument_class(self, ctx: Context, written: str | None) -> str | None:
        """classify.argument_class of an argument's type, read through the caller's and the checkout's type aliases
        where it names none of the classes as written (`IntArrayRef` is `ArrayRef<int64_t>`, `DimVector` a
        SmallVector of int64_t, `std::optional<IntArrayRef>` an optional integer list)."""
        if written is None:
            return None
        plain = overloads.plain_type(written)
        if not (self.aliases or ctx.aliases):
            return argument_class(plain)
        key = (plain, id(ctx.aliases) if ctx.aliases else 0, ctx.chain[0])
        got = self._argument_classes.get(key, "")
        if got == "":
            aliases, is_scope = (ctx.aliases, self.aliases), self._scope_test(ctx)
            got = self._argument_classes[key] = argument_class(
                plain, lambda t: overloads.plain_type(_unalias(t, aliases, is_scope)))
        return got

    def operator_call(self, ctx: Context, name: str, argc: int, arg_types: str | None) -> list[Target]:
        """An operator expression (cxx/calls.py writes `a * b` as a call of `operator*` with the operands as its
        arguments) as C++ resolves it ([over.match.oper]): when an operand is of a class of the checkout (not an
        enum), the candidates are the first operand's class's member operators of the name (and its bases'), taking
        one argument fewer, with the non-member ones that unqualified lookup from the caller finds and those in the
        namespaces of the operands' types (argument-dependent lookup); the operand types pick among them (overloads.py).
        None left: the built-in operator applies (both operands built in, or a class converted to one), which is
        no call: no target. Several that the types do not tell apart: one target without a node, counting them."""
        return self._operator_call(ctx, name, argc, self._operands(ctx, arg_types)[1])

    def _operands(self, ctx: Context, arg_types: str | None) -> tuple[list[str | None], list[str | None]]:
        """An operator call's operand types, typed (_typed_arguments; [] when none is known), and the same read
        through the type aliases (`const Vec& diff` with `using Vec = Vectorized<scalar_t>;`)."""
        typed = self._typed_arguments(ctx, arg_types) if arg_types else None
        args: list[str | None] = json.loads(typed) if typed else []
        if not args or not (self.aliases or ctx.aliases):
            return args, args
        aliases, is_scope = (ctx.aliases, self.aliases), self._scope_test(ctx)
        return args, [None if a is None else _unalias(a.rstrip("&"), aliases, is_scope) + a[len(a.rstrip("&")):]
                      for a in args]

    def _operator_call(self, ctx: Context, name: str, argc: int, args: list[str | None]) -> list[Target]:
        owners = [self._operand_class(ctx, a) for a in args]
        if len(args) != argc or not any(owners):
            return []
        # what ordinary lookup of the name depends on: the caller's file, scopes and using-declarations
        scope = (ctx.file, ctx.chain[0], ctx.usings, id(ctx.declared) if ctx.declared else 0,
                 ctx.declared.get((ctx.caller, name)) if ctx.declared and ctx.caller else None, name)
        key = (scope, tuple(args), tuple(owners))
        got = self._operators.get(key)
        if got is None:
            got = self._operators[key] = self._operator_targets(ctx, name, argc, args, owners, scope)
        return got

    def _operator_targets(self, ctx: Context, name: str, argc: int, args: list[str | None],
                          owners: list[str | None], scope: tuple) -> list[Target]:
        split = self._operator_candidates.get(name)
        if split is None:
            cands = self.symbols.by_name.get(name, ())
            by_scope: dict[str, list[Symbol]] = {}
            for s in cands:
                if s.kind != "method":
                    by_scope.setdefault(s.scope, []).append(s)
            split = self._operator_candidates[name] = ([s for s in cands if s.kind == "method"],
                                                       [s for s in cands if s.kind != "method"], by_scope)
        methods, free, by_scope = split
        members: list[Symbol] = []
        if owners[0] is not None and methods:
            found = self._lookup(ctx, methods, "", "lhs", owners[0])
            members = [s for s in found[0] if _takes(s, argc - 1)] if found else []
        ordinary = self._operator_lookups.get(scope, False)  # it does not depend on the operands: once per scope
        if ordinary is False:
            ordinary = self._operator_lookups[scope] = self._lookup(ctx, free, "", None, None) if free else None
        pool = [s for s in ordinary[0] if _takes(s, argc)] if ordinary else []
        how = ordinary[1] if ordinary and pool else How.ARGUMENT_DEPENDENT
        spaces = set().union(*(self._associated(ctx, a) for a in args if a is not None))
        held = {s.node for s in pool}
        pool += [s for space in sorted(spaces) for s in by_scope.get(space, ())
                 if s.node not in held and _takes(s, argc) and self._visible(ctx, s)]
        members, pool = _readable(members, argc - 1), _readable(pool, argc)
        if not members and not pool:
            return []
        if len(members) + len(pool) == 1:
            return [Target((members or pool)[0].node, How.RECEIVER if members else how)]
        sets = [overloads.Resolution(found, json.dumps(taken), self.class_types)
                for found, taken in ((members, args[1:]), (pool, args)) if found]
        chosen = [c for c in (r.pick() for r in sets) if c is not None]
        if len(chosen) == 1:
            return [Target(chosen[0].node, How.ARGUMENT_TYPES, str(len(members) + len(pool)))]
        # those an exact match beats are no candidates (overloads._exact_beats)
        fits = [s for r in sets for s in r.narrowed()] or members + pool
        how = How.OVERLOAD_SET if len({untemplated(s.qualified_name) for s in fits}) == 1 else How.AMBIGUOUS
        got = self._many(fits, how)
        if got[0].how is How.PER_BUILD:
            return got
        # not told apart: one edge that names them all (an edge each would show namesakes the operands rule out)
        return [Target(None, how, str(len(fits)), (), tuple(s.node for s in fits))]

    def _operand_class(self, ctx: Context, written: str | None) -> str | None:
        """The class of the checkout an operand's type names (without cv, reference, or at:: and c10::), through
        the caller's and the checkout's type aliases; None for a built-in type, an enum, a pointer, a template
        parameter, a standard library type or one the checkout does not define."""
        if written is None or written.startswith("decltype("):
            return None
        key = (written, ctx.chain[0], id(ctx.template_params) if ctx.template_params else 0,
               id(ctx.aliases) if ctx.aliases else 0)
        got = self._operand_classes.get(key, False)
        if got is False:
            got = self._operand_classes[key] = self._class_named(ctx, written)
        return got

    def _class_named(self, ctx: Context, written: str) -> str | None:
        plain = overloads.plain_type(written)
        if not plain or plain.endswith("*") or plain in overloads.ARITHMETIC:
            return None
        if self.aliases or ctx.aliases:
            plain = _unalias(plain, (ctx.aliases, self.aliases), self._scope_test(ctx))
        plain = _LIBRARY_PREFIX.sub("", plain)
        head = untemplated(plain).rsplit("::", 1)[-1]
        if (ctx.template_params and head in ctx.template_params) or head in self.enums or \
                head not in self.classes or plain.startswith("std::"):
            return None
        return plain

    def _argument_dependent(self, ctx: Context, name: str, argc: int, arg_types: str) -> list[Target] | None:
        """Argument-dependent lookup ([basic.lookup.argdep]) for an unqualified call that ordinary lookup finds
        nothing for: the functions of the name in the namespaces of its arguments' types (and of their template
        arguments). `device(c10::kCPU)` in a method of a class at global scope is c10::device, since kCPU is a
        c10::DeviceType. None when no argument's type is known or no such namespace has the name."""
        cands = self.symbols.by_name.get(name)
        if not cands or self._lookup(ctx, cands, "", None, None) is not None:
            return None  # ordinary lookup found some: ADL would only add to them
        typed = self._typed_arguments(ctx, arg_types)
        spaces: set[str] = set()
        for written in json.loads(typed) if typed is not None else ():
            if written is not None:
                spaces |= self._associated(ctx, written)
        found = [s for s in cands if s.scope in spaces and self._visible(ctx, s)]
        return self._choose(ctx, found, How.ARGUMENT_DEPENDENT, name, argc) if found else None

    def _associated(self, ctx: Context, written: str, depth: int = 0) -> set[str]:
        """The namespaces argument-dependent lookup searches for an argument of this type: the namespace of its
        class or enum, and those of its template arguments; none for a built-in or unknown type. A type written
        without its namespace (as argument types are: at:: and c10:: dropped) is the class of the name that the
        caller's scopes, their using-directives or at and c10 hold, or the only class of the name."""
        plain = overloads.plain_type(written).rstrip("*").removeprefix("typename ")
        if not plain or plain.startswith("decltype(") or depth > 2:
            return set()
        head, _, rest = plain.partition("<")
        out: set[str] = set()
        if rest.endswith(">"):
            for arg in split_top_level(rest[:-1]):
                out |= self._associated(ctx, arg, depth + 1)
        head = head.removeprefix("::")
        if head.startswith("std::") or head in BUILTIN_TYPES:
            return out
        found = self.class_namespaces.get(head.rsplit("::", 1)[-1], ())
        if "::" in head:
            found = tuple(c for c in found if any(c[0] == q or c[0].endswith("::" + q)
                                                  for q in (head, f"at::{head}", f"c10::{head}")))
        elif len({space for _, space in found}) > 1:
            near = {*ctx.chain, *ctx.usings, "at", "c10"}
            found = tuple(c for c in found if c[1] in near)
            if len({space for _, space in found}) > 1:  # the class the name means where the caller writes it:
                order = [*ctx.chain, *ctx.usings, "at", "c10"]  # its innermost scope's (`Tensor` in at::native:
                first = min(order.index(space) for _, space in found)  # at::Tensor, not a global Tensor)
                found = tuple(c for c in found if c[1] == order[first])
        spaces = {space for _, space in found}
        if len(spaces) == 1 and "" not in spaces:
            out |= spaces
        return out

    def _symbols_of(self, targets: list[Target]) -> list[Symbol] | None:
        """The definitions of a set's targets, one per edge; None when a target has no definition node."""
        by_node = self.symbol_of_node()
        syms = [by_node.get(t.node) for t in targets]
        return None if None in syms else syms

    def _of_lvalue(self, targets: list[Target]) -> list[Target]:
        """The members of an overload set an lvalue object (a variable: `self.value()`) can call: not those
        ref-qualified `&&`, which bind only an rvalue object (`value() &&` beside `value() const&`,
        `expect_contiguous(...) &&` beside `expect_contiguous(...) const &`). One left is the call's
        (receiver-type); the set unchanged when every member or none is `&&`-qualified."""
        syms = self._symbols_of(targets)
        if syms is None or any(s.kind not in ("method", "device_function") for s in syms):
            return targets
        kept = [t for t, s in zip(targets, syms) if "&&" not in _call_qualifiers(s.signature)]
        if not kept or len(kept) == len(targets):
            return targets
        if len(kept) == 1:
            return [Target(kept[0].node, How.RECEIVER, "the object is an lvalue: not the &&-qualified member")]
        return [t._replace(detail=str(len(kept))) for t in kept]

    def _non_template(self, targets: list[Target]) -> list[Target] | None:
        """Of an overload set called with no arguments and no template arguments, the one candidate that is
        no template and may take no arguments, when every other is a function template (or an explicit
        specialisation) with the same const and ref qualifiers: `device()` of `device() const` and
        `template <typename... Args> device(Args&&...) const`, `data_ptr()` of `void* data_ptr() const` and
        TensorMethods.cpp's `template <> T* TensorBase::data_ptr() const`. With nothing to convert, C++
        prefers the non-template ([over.match.best]); a template may not even be viable, its parameters
        deduced from nothing. None otherwise."""
        syms = self._symbols_of(targets)
        if syms is None:
            return None
        plain = [s for s in syms if s.template_params is None]
        if len(plain) != 1 or len(syms) < 2 or _fewest(plain[0]) != 0:
            return None
        qualifiers = _call_qualifiers(plain[0].signature)
        if any(_call_qualifiers(s.signature) != qualifiers for s in syms):
            return None
        return [Target(plain[0].node, How.OVERLOAD, f"no arguments: the non-template, not {len(syms) - 1} templates")]

    def _by_constness(self, targets: list[Target], const: bool) -> list[Target] | None:
        """Of a member's two overloads that differ only in being const (`desc()` and `desc() const`), the one
        C++ calls on an object that is (or is not) const; None for any other pair."""
        syms = self._symbols_of(targets)
        if syms is None or syms[0].qualified_name != syms[1].qualified_name or \
                syms[0].kind not in ("method", "device_function") or \
                (syms[0].template_params is None) != (syms[1].template_params is None):  # a template is no pair of it
            return None
        (bare0, const0), (bare1, const1) = (_member_qualifiers(s.signature) for s in syms)
        consts = [const0, const1]
        if bare0 != bare1 or const0 == const1:
            return None
        s = syms[consts.index(const)]
        return [Target(s.node, How.RECEIVER, "the object is const" if const else "the object is not const")]

    def _one_function(self, targets: list[Target], node: int) -> bool:
        """Whether the set is the overloads of one qualified name, none of them file-local: a function declared
        in a header and defined in a source file the caller does not include (mps/OperationUtils.mm's
        getMPSShape), which the caller's translation unit sees through its declaration."""
        by_node = self.symbol_of_node()
        nodes = [t.node for t in targets] if targets[0].node is not None else list(targets[0].candidates)
        syms = [by_node[n] for n in nodes if n in by_node]
        return len(syms) == len(nodes) and not any(s.local or is_header(s.file) for s in syms) and \
            len({s.qualified_name for s in syms}) == 1 and by_node[node] in syms

    def _typed_arguments(self, ctx: Context, arg_types: str) -> str | None:
        """calls.arg_types with each argument written `decltype(...)` (a call, a member chain, an `auto`
        variable: cxx/argument_types.py) typed by return types, or null; None when no argument is known."""
        if "decltype(" not in arg_types:
            return arg_types
        args = [self._argument_type(ctx, a) if a is not None and a.startswith("decltype(") else a
                for a in json.loads(arg_types)]
        return json.dumps(args, separators=(",", ":")) if any(a is not None for a in args) else None

    def argument_type(self, ctx: Context, written: str) -> str | None:
        """The type of an argument calls.arg_types writes `decltype(e)` (_argument_type), for the edges that read
        what a call hands on (edges._Calls._handed_object)."""
        return self._argument_type(ctx, written)

    def _argument_type(self, ctx: Context, written: str) -> str | None:
        """The type of an argument written `decltype(e)`: e typed step by step as a receiver chain is, its last
        step's return type kept when it is a built-in arithmetic one (`self.dim()` -> int64_t); None for a
        template parameter's, a dependent or an unknown type."""
        key = (ctx.file, ctx.chain[0], id(ctx.aliases) if ctx.aliases else 0, ctx.caller,  # its own aliases and
               id(ctx.template_params) if ctx.template_params else 0, written)  # template parameters (_name_type)
        if key not in self._arguments:  # live as long as the contexts (Contexts keeps them)
            variable = written.endswith(")&")  # an `auto` variable: an lvalue
            inner = written[9:-2] if variable else written[9:-1]
            rvalue = False
            if _NAME.fullmatch(inner):  # a name the caller does not declare (cxx/receivers.py argument_types)
                t = self._name_type(ctx, inner)
            elif TEMPLATE_NAME.fullmatch(inner):  # a function template's specialisation
                # named (`helper<scalar_t,Op>`, handed on by name): no type known
                t = None
            elif variable or written.endswith(")"):
                self._category = None
                t = self._expression_type(ctx, inner, None, last_raw=True)
                parts = _chain_parts(inner) if t is not None and not variable else None
                # a call: its value category as the last step's _returned read it from the function's declarator
                category = self._category if parts and parts[-1][2] is not None else None
                rvalue = category in ("prvalue", "xvalue") and "&" not in t
                variable = variable or category == "lvalue"  # `maybe_get_output()` returns a const Tensor&
            else:
                t = None
            t = overloads.plain_type(t) if t is not None else None
            if t is not None and t not in overloads.ARITHMETIC and _UNKNOWN_RETURN.fullmatch(t):
                t = None
            self._arguments[key] = t + ("&" if variable else "&&" if rvalue else "") if t is not None else None
        return self._arguments[key]

    def _name_type(self, ctx: Context, name: str, depth: int = 0) -> str | None:
        """The type of a name an argument writes and its caller does not declare: a data member of the caller's
        class (unqualified), else the namespace-scope constant lookup finds from the caller (its declared type,
        the one all it finds agree on), else, for `E::X` with E an enum, E; None when none is known or it names
        one of the caller's template parameters."""
        qualifier, _, last = name.removeprefix("::").rpartition("::")
        if not qualifier and ctx.template_params and name in ctx.template_params:
            return None
        if not qualifier and self.fields and (t := self._member_of_caller(ctx, name)) is not None:
            return t
        found = self._lookup(ctx, self.constants[last], qualifier, None, None) if last in self.constants else None
        if found is not None:
            types = {s.signature for s in found[0]}
            t = types.pop() if len(types) == 1 else None
            if t is not None and t.startswith("decltype(") and depth < 2:  # `constexpr auto kStrided = Layout::Strided;`
                t = self._name_type(ctx, t[9:-1], depth + 1) if _NAME.fullmatch(t[9:-1]) else None
            return t
        if qualifier and qualifier.rsplit("::", 1)[-1] in self.enums:
            return re.sub(r"^(?:at|c10)::", "", qualifier)
        return None

    def _seen_from(self, ctx: Context, node: int) -> bool:
        """Whether the caller's file is the definition's or includes it, or includes the header of the source file
        that defines it (_declared_with; a pick no include reaches is not made: the set then holds namesakes from all
        over the checkout, not what the caller's translation unit sees)."""
        file = self.symbol_of_node()[node].file
        return file == ctx.file or ctx.includes(file) or self._declared_with(ctx, file)

    def _declared_with(self, ctx: Context, file: str) -> bool:
        """Whether the caller includes the header that goes with a source file (X.cpp, X.cu, X.mm: X.h, X.hpp, X.cuh
        in its folder), where the functions the source file defines are declared, as C++ code is laid out:
        2.6.0 native/CPUBlas.h declares the `gemm` overloads of CPUBlas.cpp beside its template `gemm`."""
        stem, dot, ext = file.rpartition(".")
        if not dot or ext not in _SOURCE_EXTENSIONS:
            return False
        self._file_used = True
        return any(ctx.includes(f"{stem}.{h}") for h in _HEADER_EXTENSIONS)

    def _by_argument_types(self, targets: list[Target], arg_types: str, argc: int, named: bool = False
                           ) -> list[Target]:
        """The overload the argument types pick (overloads.py), as one definition; else the set unchanged. The
        set holds what using-declarations bring in beside the scope's own (_lookup). Not for one with a member
        that cannot take argc arguments (no member could: lookup kept them all, so the name may not be these
        functions' at all, `normal(gen)` with `normal` a local distribution object)."""
        nodes = tuple(t.node for t in targets) if targets[0].node is not None else targets[0].candidates
        key = (nodes, arg_types, named)
        got = self._picked.get(key)
        if got is None:
            by_node = self.symbol_of_node()
            syms = [by_node[n] for n in nodes if n in by_node]
            fit = [s for s in syms if _takes(s, argc, _declared_fewest)]
            # a qualified or member callee names these functions (no local object of the name): the members
            # that cannot take argc arguments are only not viable (`c10::DispatchKeySet(k)` beside `DispatchKeySet()`)
            complete = len(syms) == len(nodes) and (len(fit) == len(syms) or (named and fit))
            chosen = overloads.pick(fit, arg_types, self.class_types) if complete else None
            got = self._picked[key] = [Target(chosen.node, How.ARGUMENT_TYPES, str(len(nodes)))] \
                if chosen is not None else targets
        return got

    def symbol_of_node(self) -> dict[int, Symbol]:
        """Every symbol by its node id (made once)."""
        by_node = self._by_node
        if by_node is None:
            by_node = self._by_node = {s.node: s for syms in self.symbols.by_name.values() for s in syms}
        return by_node

    def through_parameter(self, ctx: Context, callee: str, receiver_type: str | None) -> str | None:
        """The caller's type template parameter a member call is made on, when its object is a variable declared
        with that type (`Launcher l` ... `l.template launch<...>(...)`, `ops_t ops` ... `ops.reduce(a, b)`): the
        member is that of whatever type the template's call sites give the parameter (template_args.py binds it).
        None for any other call, and for `->` (the parameter may be a pointer or a class with operator->)."""
        if not ctx.template_params or not receiver_type:
            return None
        receiver = written_parts(callee)[2]
        if receiver is None or not _PLAIN_RECEIVER.fullmatch(receiver) or not callee[len(receiver):].startswith("."):
            return None
        param = overloads.plain_type(receiver_type)
        return param if ctx.template_params.get(param) == "type" else None

    def _resolve_memo(self, ctx: Context, callee: str, callee_name: str, argc: int,
                      receiver_type: str | None) -> list[Target]:
        """The targets of a call (memoised: a file calls the same names from the same scope again and again)."""
        if callee_name in ctx.params and callee.split("<", 1)[0] == callee_name:
            return _THROUGH_PARAMETER
        if callee == callee_name and callee_name in BUILTIN_TYPES:
            return _FUNCTIONAL_CAST
        if ctx.template_params:
            head = callee.split("<", 1)[0].split("(", 1)[0].split("::", 1)[0]
            if head in ctx.template_params:  # `K<RNG>()(x)`, `Op::apply(x)`: what the caller's caller passes as K, Op
                return [Target(None, How.TEMPLATE_PARAMETER, head)]  # bound after the calls (template_args.py)
        if callee_name not in self.symbols.by_name:  # no definition has the name: the scope cannot matter
            inner = ctx.chain[0].rsplit("::", 1)[-1]
            structured = inner.startswith("structured_") and inner in self.bases
            nameless = (callee, argc, receiver_type, structured, id(ctx.aliases) if ctx.aliases else 0, ctx.usings,
                        ctx.chain[0], ctx.file if self.typed and "(" in callee else "")
            got = self._nameless.get(nameless)
            if got is None:
                got = self._nameless[nameless] = self._resolve(ctx, callee, callee_name, argc, receiver_type)
            return got
        # Two memos: most answers do not depend on the caller's file (only local definitions, the
        # same-file and include tie-breaks do), so they are shared by every file with the same scope.
        # A file's own using-declarations (ctx.declared is that file's table then) and a caller's body's count too.
        shared = (ctx.chain[0], callee, argc, receiver_type, id(ctx.aliases) if ctx.aliases else 0, ctx.usings,
                  id(ctx.declared) if ctx.declared else 0, ctx.caller)
        got = self._shared.get(shared)
        if got is not None:
            return got
        key = (ctx.file, shared)
        got = self._memo.get(key)
        if got is None:
            outer, self._file_used = self._file_used, False  # a typed receiver resolves calls inside this one
            got = self._resolve(ctx, callee, callee_name, argc, receiver_type)
            if self._file_used:
                self._memo[key] = got
            else:
                self._shared[shared] = got
            self._file_used = outer or self._file_used
        else:
            self._file_used = True
        return got

    def _visible(self, ctx: Context, s: Symbol) -> bool:
        """Whether lookup sees the definition from the caller (a local one only from its own file or includers)."""
        if not s.local:
            return True
        self._file_used = True
        return ctx.visible(s.file)

    def _seen(self, ctx: Context, syms: list[Symbol]) -> list[Symbol]:
        """The definitions lookup sees from the caller (_visible). A header that sees none of them sees a header's
        static or unnamed-namespace one all the same: its includers include what it relies on before it (cuda/
        CUDALoops.cuh calls `::make_offset_calculator<N>(iter)`, a static function of OffsetCalculator.cuh, which it
        does not include: Loops.cuh includes that header, then CUDALoops.cuh)."""
        seen = [s for s in syms if self._visible(ctx, s)]
        if not seen and is_header(ctx.file):
            seen = [s for s in syms if is_header(s.file)]
        return seen

    def _resolve(self, ctx: Context, callee: str, callee_name: str, argc: int,
                 receiver_type: str | None) -> list[Target]:
        qualifier, last, receiver = written_parts(callee)
        qualifier = qualifier.removeprefix("::")
        # `::lgamma(a)`: qualified by the global namespace, lookup sees only what is declared there (a function of the
        # checkout outside every namespace, or the C library's and CUDA's math, declared outside the checkout), never
        # a function of the name in a namespace the caller is in or uses, nor an op through `at::`
        in_global = receiver is None and not qualifier and callee.startswith("::")
        if receiver is not None and (not _PLAIN_RECEIVER.fullmatch(receiver) or (receiver_type or "").startswith("decltype(")):
            receiver_type = self._receiver_type(ctx, receiver, receiver_type)  # the extractor gave a chain's root
        elif receiver is not None and receiver_type is None and self.fields:  # `x_.f()` in a method defined elsewhere
            receiver_type = self._member_of_caller(ctx, receiver.removeprefix("this->"))
        if self.aliases or ctx.aliases:
            aliases, is_scope = (ctx.aliases, self.aliases), self._scope_test(ctx)
            receiver_type = _unalias(receiver_type, aliases, is_scope) if receiver_type else receiver_type
            qualifier = _unalias(qualifier, aliases, is_scope) if qualifier else qualifier
        if receiver_type and "::" in receiver_type.split("<", 1)[0] and self.qualified_aliases:
            receiver_type = self._qualified_alias(receiver_type)
        if "::" in qualifier.split("<", 1)[0] and self.qualified_aliases:  # `at::GradMode::is_enabled()`, with
            qualifier = self._qualified_alias(qualifier)  # `using GradMode = c10::GradMode;` in namespace at
        if receiver is None and qualifier and self.qualified_aliases and "<" not in last:  # `at::Device(kCUDA)`
            aliased = self._qualified_alias(f"{qualifier}::{last}").removeprefix("::")
            if aliased != f"{qualifier}::{last}" and _NAME.fullmatch(aliased) and "::" in aliased:
                qualifier, _, last = aliased.rpartition("::")
                callee_name = last
        if receiver_type and ctx.declared and "::" in receiver_type.split("<", 1)[0]:
            receiver_type = _declared_type(receiver_type, ctx.declared, self.class_namespaces)  # torch::Tensor
        if receiver_type:
            receiver_type = _LIBRARY_PREFIX.sub("", receiver_type)
        if receiver is not None and receiver_type is None:
            made = _CONSTRUCTED.match(receiver)
            if made and made.group(1) in self.types:
                receiver_type = made.group(1)
        if receiver_type is not None and callee[len(receiver or ""):].startswith("->"):
            receiver_type = self._pointee(receiver_type)
        if receiver_type is not None and (receiver_type.startswith("std::") or _STD_TYPES.match(receiver_type)):
            return [Target(None, How.STANDARD, "a method of a standard library type")]
        if receiver is not None and receiver_type is not None and (library := self._vendor_class(ctx, receiver_type)):
            return [Target(None, How.VENDOR, f"a member of a class of {library}'s that the checkout does not define",
                           library=library)]
        if receiver is not None and receiver_type in _TENSOR_TYPES and not _sees(ctx, ("at", "c10")) and \
                (brought := self._vendor_using(ctx)) is not None:  # flash_attn's kernels: cute::Tensor
            return [Target(None, How.VENDOR, f"`{receiver_type}` outside at and c10, under `using namespace "
                                             f"{brought};`: that library's class, not at::{receiver_type}")]
        cands = self.symbols.by_name.get(callee_name)
        if in_global and cands:
            cands = [s for s in cands if not s.scope] or None
        if cands and receiver is None and not qualifier and callee_name in STANDARD_NAMES:
            # A function outside every namespace with a name the C and C++ libraries and CUDA's math provide (min,
            # pow, isinf) is what the caller calls only when it sees it: the caller's own file or one it includes.
            # Else the toolchain's is (a helper of the same name in a file the caller never includes, such as
            # 1.13.1 jit/codegen/cuda/runtime/helpers.cu's device min, is no candidate)
            self._file_used = True
            cands = [s for s in cands if s.scope or s.file == ctx.file or ctx.includes(s.file)] or None
        if receiver is not None and receiver_type is not None and callee_name in self.tensor_methods and \
                receiver_type.split("<", 1)[0] in self._generated_classes():
            cands = None  # at::Tensor's methods of an op's name are mostly generated: the op's (below)
        if receiver is None and qualifier.startswith(("std::", "cuda::std")) or qualifier == "std":
            return [Target(None, How.STANDARD)]
        if cands:
            found = self._lookup(ctx, cands, qualifier, receiver, receiver_type)
            if found is not None:
                syms, how, *united = found  # united: a scope's own functions and a using-declaration's
                how = How.EXACT if in_global else how  # `::f`: named by its qualified name
                owner = receiver_type if receiver is not None else qualifier
                if receiver is None and _constructors(syms, last):  # `c10::complex<double>(0, 0)`: the class's
                    owner = f"{qualifier}::{last}" if qualifier else last  # arguments are written on its name
                picked, spread = _by_owner(syms, owner, lambda args: self._concrete(ctx, args))
                if not spread and len(picked) < len(syms) and picked[0].owner_spec is not None:
                    picked, spread = self._inherited_too(picked, cands)
                return self._choose(ctx, picked, how, last, argc, spread, bool(united))
        if receiver is not None:
            if receiver_type in _TENSOR_TYPES or receiver_type is None:
                base = self.ops.method(callee_name)
                # a receiver of no known type is taken for a Tensor only when an overload's count fits (`v.size()`
                # is no size.int: that takes a dim)
                ops = self.ops.overloads(callee_name, base, argc, True, fitting=receiver_type is None) \
                    if base is not None else []
                if ops:
                    return [Target(None, How.OP, "Tensor method" if receiver_type else "method of an op's name",
                                   tuple(ops))]
            if receiver_type in _TENSOR_TYPES:
                return [Target(None, How.TENSOR_METHOD)]
        elif not in_global and (qualifier or _sees(ctx, ("at", "torch"))):
            base = op_called(qualifier, callee_name, self.ops)
            if base is not None and qualifier.startswith("at::_ops::"):  # at::_ops::add_Tensor::call: add.Tensor
                return [Target(None, How.OP, None, (self.ops.struct_op(qualifier),))]
            if base is not None:
                ops = self.ops.overloads(callee_name, base, argc, False)
                return [Target(None, How.OP, f"{len(ops)} overloads fit" if len(ops) > 1 else None, tuple(ops))]
        how = named_class(qualifier, last, receiver, self.macros, self.types)
        if how is not None:
            return [Target(None, how)]
        inner = self._undeclared_tail(qualifier) if receiver is None and "::" in qualifier else None
        if inner is not None and named_class(inner, last, None, self.macros, self.types) is How.VENDOR:
            return [Target(None, How.VENDOR)]  # at_cuda_detail::cub::DeviceScan::InclusiveScan: cub's
        if receiver is None and not qualifier and ctx.chain[0].rsplit("::", 1)[-1].startswith("structured_") \
                and ctx.chain[0].rsplit("::", 1)[-1] in self.bases:
            return [Target(None, How.GENERATED, "a member of the class torchgen generates for the structured kernel")]
        outside = self._outside(qualifier or (receiver_type or ""), ctx)
        if outside is not None:
            return [Target(None, How.VENDOR, f"{outside}:: is no namespace or class of the checkout", library=outside)]
        if not cands and receiver is None and not qualifier and not in_global:
            brought = self._vendor_using(ctx)
            if brought is not None:
                return [Target(None, How.VENDOR, f"through `using namespace {brought};`, no namespace of the checkout")]
        if not cands and receiver is None and callee_name in self.types:
            return [Target(None, How.TYPE, "a class or type alias of the checkout, made in place")]
        if cands:
            syms = [s for s in cands if self._visible(ctx, s) and (receiver is not None or qualifier
                                                                                   or s.kind != "method")]
            if receiver is not None:
                methods = [s for s in syms if s.kind == "method"]
                if methods and len({s.scope for s in methods}) == 1:  # one class has a method of this name
                    return self._choose(ctx, methods, How.UNIQUE, last, argc)
                # `x.f()` calls a member: a free function of the name (c10::cuda::lower_bound for a std::set's
                # `pool.heaps.lower_bound`) is none of its candidates
                syms = [s for s in syms if s.kind == "method" or s.scope.rsplit("::", 1)[-1] in self.types]
                if not syms:
                    return [Target(None, How.NOT_IN_CHECKOUT, "no member function of the name in the checkout")]
            if len(syms) > 1 and len({untemplated(s.qualified_name) for s in syms}) == 1:
                fits = [s for s in syms if _takes(s, argc)] if receiver is not None or qualifier else []
                if len(fits) == 1:  # `at::TensorIteratorConfig()`: the one constructor taking no argument
                    return [Target(fits[0].node, How.OVERLOAD)]
                return self._many(syms, How.OVERLOAD_SET)
            if len(syms) == 1:
                return [Target(syms[0].node, How.UNIQUE)]
            if syms:
                return self._many(syms, How.AMBIGUOUS)
        return [Target(None, How.NOT_IN_CHECKOUT)]

    def registered(self, ctx: Context, kernel: str) -> list[Target]:
        """The function a stub registration names: the one in the registering file first (registered
        kernels are mostly file-local), else by the rules of any call."""
        name = kernel.split("<", 1)[0].rsplit("::", 1)[-1]
        here = [s for s in self.symbols.by_name.get(name, ()) if s.file == ctx.file and s.kind != "method"]
        if "::" in kernel:
            want = kernel.removeprefix("::").split("<", 1)[0]
            here = [s for s in here if s.qualified_name.endswith(want)]
        if len(here) == 1:
            return [Target(here[0].node, How.REGISTERED)]
        if here:  # the file defines it more than once (under #if / #else): those, not a namesake elsewhere
            return [Target(s.node, How.REGISTERED, f"{len(here)} definitions in the registering file") for s in here]
        return self.resolve(ctx, kernel, name, -1, None)

    def _lookup(self, ctx: Context, cands: list[Symbol], qualifier: str, receiver: str | None,
                receiver_type: str | None) -> tuple | None:
        """The candidates C++ lookup finds first, and the rule that found them (and True when they are a
        scope's own functions with those a using-declaration there brings in: one overload set); None if none."""
        if receiver is not None:
            if receiver == "this":
                got = [s for s in cands if s.scope == ctx.chain[0]]
                return (got, How.RECEIVER) if got else None
            if receiver_type is None:
                return None
            written = untemplated(receiver_type).rstrip("*& ")
            if "::" in written:  # a nested class names its outer one: AttentionKernel<...>::Params
                got = [s for s in cands if s.scope == written or s.scope.endswith("::" + written)]
                if got:
                    return got, How.RECEIVER
            # the classes an unqualified name may mean from the caller, where several classes have it: their own
            # members only (1.13.1: at::native's `self.sizes()` is at::TensorBase's, not caffe2::Tensor's)
            own = self._caller_classes_of(ctx, written) if "::" not in written else None
            for i, level in enumerate(self._class_levels(receiver_type)):  # a derived class's member hides its
                if i == 0 and own is not None:  # bases' ones
                    got = [s for s in cands if untemplated(s.scope) in own]
                else:
                    got = [s for s in cands if s.scope.rsplit("::", 1)[-1] in level]
                if got:
                    return got, How.RECEIVER
            derived = self._derived(receiver_type)
            got = [s for s in cands if s.kind == "method" and s.scope.rsplit("::", 1)[-1] in derived]
            return (got, How.OVERRIDES) if got else None
        if any(s.local for s in cands):  # a file-local definition the caller's file cannot see takes no part
            cands = self._seen(ctx, cands)
            if not cands:
                return None
        inline = self.symbols.inline
        if qualifier:
            q = normalise_scope(split_scope(qualifier), inline)  # (`F<T, MODE::A>::g`: F's g)
            head, _, rest = q.partition("::")
            declared = ctx.declared
            for level, scope in enumerate(([ctx.caller] if ctx.caller else []) + ctx.chain):
                # `IndexToOffset<T, I, D>::get` under `using at::cuda::detail::IndexToOffset;`: the class it names
                for target in (declared.get((scope, head), ()) if declared else ()):
                    got = [s for s in cands if s.scope == (f"{target}::{rest}" if rest else target)]
                    if got:
                        return got, How.USING
                if level == 0 and ctx.caller:  # the caller's body: only what is declared there
                    continue
                want = f"{scope}::{q}" if scope else q
                got = [s for s in cands if s.scope == want]
                if got:
                    return got, (How.EXACT if not scope else How.SAME_NAMESPACE)
                brought = self.scope_usings.get(want)
                got = [s for s in cands if s.scope in brought] if brought else None
                if got:
                    return got, How.USING
            # No scope of the caller names Q (a namespace it reaches through a using, an alias's class):
            # the definitions under a scope ending in Q.
            got = [s for s in cands if s.scope == q or s.scope.endswith("::" + q)]
            if not got and op_called(q, cands[0].name, self.ops) is None:
                # `c10::complex<double>(0, 0)`: the call names a class of Q's, and means its constructors;
                # `at::Device(kCPU)` names c10's, which at's `using namespace c10;` brings in (not an op's name:
                # `at::complex(re, im)` is the op, declared in at itself)
                for space in (q, *sorted(self.scope_usings.get(q, ()))):
                    made = f"{space}::{cands[0].name}"
                    got = [s for s in cands
                           if (s.scope == made or s.scope.endswith("::" + made)) and _constructors([s])]
                    if got:
                        break
            if len({s.scope for s in got}) > 1:  # several scopes end in Q: the outermost one (a nested class of
                shortest = min(len(s.scope) for s in got)  # the same name is the less likely meaning)
                got = [s for s in got if len(s.scope) == shortest]
            return (got, How.UNIQUE) if got else None
        declared = ctx.declared
        if declared and ctx.caller and (got := _brought(cands, declared.get((ctx.caller, cands[0].name)))):
            return got, How.USING  # a using-declaration in the caller's body hides the namespaces' names
        # A using-directive's namespace N counts, for unqualified lookup, as if declared in the nearest
        # namespace enclosing both the directive and N ([namespace.udir]): the first scope of the chain that
        # N is in (`using namespace api::utils;` in at::native::vulkan::ops: at at::native::vulkan).
        used = [s for s in cands if s.scope in ctx.usings] if ctx.usings else []
        unseen = None  # the first scope's definitions, all in headers the caller's file does not include
        for scope in ctx.chain:
            got = [s for s in cands if s.scope == scope]
            if got and (outer := [s for s in cands if s.scope != scope and s.scope in ctx.chain]) and \
                    all(self._unseen_header(ctx, s) for s in got) and \
                    not all(self._unseen_header(ctx, s) for s in outer):
                unseen = unseen or got  # an enclosing namespace's, which the caller's includes reach, is the call's
                continue
            if used and (here := [s for s in used if _within(s.scope, scope) and s not in got]):
                if not got:
                    return here, How.USING
                return got + here, How.SAME_NAMESPACE, True
            also = _brought(cands, declared.get((scope, cands[0].name))) if declared else []
            if got and also:  # a using-declaration's functions join the scope's own: one overload set
                return got + [s for s in also if s not in got], How.SAME_NAMESPACE, True
            if got or also:
                return got or also, How.SAME_NAMESPACE if got else How.USING
            brought = self.scope_usings.get(scope)
            got = [s for s in cands if s.scope in brought] if brought else None
            if got:
                return got, How.USING
            if scope is ctx.chain[0] and scope:  # a method's class: its bases are searched too
                classes = self._class_and_bases(scope.rsplit("::", 1)[-1]) - {scope.rsplit("::", 1)[-1]}
                got = [s for s in cands if s.kind == "method" and s.scope.rsplit("::", 1)[-1] in classes]
                if got:
                    return got, How.SAME_NAMESPACE
        got = [s for s in cands if s.scope in ctx.usings]
        return (got, How.USING) if got else (unseen, How.SAME_NAMESPACE) if unseen else None

    def _unseen_header(self, ctx: Context, s: Symbol) -> bool:
        """Whether a definition is in a header that neither is the caller's file nor is in its include closure.
        Its declaration is then not in the caller's translation unit either (a header's inline or template
        function is declared where it is defined; a source file's is declared in some header, so it counts as
        seen)."""
        if not is_header(s.file):
            return False
        self._file_used = True
        return s.file != ctx.file and not ctx.includes(s.file)

    def _undeclared_tail(self, qualifier: str) -> str | None:
        """The part of a qualifier from its first component the checkout defines nothing under, when the ones
        before it are namespaces or classes of the checkout, else None: PyTorch wraps CUB in its own namespace
        (2.6.0 cuda/cub.cuh:23 `#define CUB_NS_PREFIX namespace at_cuda_detail {`), so cub's functions are
        named `at_cuda_detail::cub::DeviceScan::InclusiveScan`, and the checkout defines at_cuda_detail::Max
        (:66) but nothing in at_cuda_detail::cub: the tail `cub::DeviceScan` names the library."""
        if "<" in qualifier:
            return None  # a class template's arguments may hold `::`; the libraries' entry points take none here
        parts = qualifier.split("::")
        scopes = self._all_scopes()
        for i in range(1, len(parts)):
            head = "::".join(parts[:i])
            if head not in scopes:
                return None
            if f"{head}::{parts[i]}" not in scopes:
                return "::".join(parts[i:])
        return None

    def _vendor_class(self, ctx: Context, type_name: str) -> str | None:
        """The library namespace of a class type written in one (classify.VENDOR_NAMESPACES: `cutlass::gemm::GemmCoord`,
        `ideep::tensor`) when the name, looked up from the caller's scopes and the namespaces it uses, is no class of
        the checkout nor inside one (aten/src/ATen/native/cuda/cutlass_extensions adds classes to namespace cutlass),
        and its first component is no namespace of the checkout's classes around the caller (`xnnpack::Conv2dOpContext`
        inside at::native::xnnpack is at::native::xnnpack's); else None. A call on an object of such a type is the
        library's: no function of the checkout named like the member is a candidate. (Classes are read whole, from
        the classes table: an update resolves as a cold link does.)"""
        library = vendor_namespace(type_name)
        if library is None:
            return None
        if self._class_names is None:
            names, spaces = set(), set()
            for found in self.class_namespaces.values():
                for qualified, space in found:
                    names.add(qualified)
                    parts = space.split("::")
                    spaces.update("::".join(parts[:i]) for i in range(1, len(parts) + 1))
            self._class_names, self._class_spaces = frozenset(names), frozenset(spaces)
        plain = untemplated(type_name.removeprefix("::"))
        first = plain.split("::", 1)[0]
        for scope in ("",) if type_name.startswith("::") else dict.fromkeys((*ctx.chain, *ctx.usings, "")):
            parts = (f"{scope}::{plain}" if scope else plain).split("::")
            if any("::".join(parts[:i]) in self._class_names for i in range(1, len(parts) + 1)):
                return None
            if scope and f"{scope}::{first}" in self._class_spaces:
                return None
        return library

    def _outside(self, qualified: str, ctx: Context) -> str | None:
        """The first component of a qualified name when the checkout defines nothing under it (a library's
        namespace: benchmark::, cute::, fe::), else None. It is looked up as C++ does: from the caller's scopes
        (`xnnpack::` inside at::native::xnnpack::internal, `api::` inside at::native::vulkan::api) and the
        namespaces its using-directives bring in, before it is taken for a library's."""
        first = qualified.split("<", 1)[0].split("::", 1)[0]
        aliased = self.aliases.get(first)  # `namespace fe = cudnn_frontend;`: the namespace it names
        if aliased is not None and first not in self.namespaces and _NAME.fullmatch(aliased) and \
                not aliased.startswith(("std::", "::std::")):
            first = aliased.removeprefix("::").split("::", 1)[0]
        if "::" not in qualified.split("<", 1)[0] or not first or first in self.namespaces or first in self.types:
            return None
        scopes = self._all_scopes()  # types are written without at:: and c10:: (`impl::GenericList`)
        if f"at::{first}" in scopes or f"c10::{first}" in scopes:
            return None
        # a global one was asked of self.namespaces above: one the checkout only adds to (fbgemm) is a library's
        if any(self._scope_seen(ctx, f"{c}::{first}") for c in (*ctx.chain, *ctx.usings) if c):
            return None
        return first

    def _caller_classes_of(self, ctx: Context, name: str) -> frozenset[str] | None:
        """The classes that a type name written without a qualifier may mean in the caller, when the checkout has
        several of the name: the one declared in the innermost of the caller's namespaces that declares one (not
        the global scope), or in a namespace of its using-directives that this one encloses; with at's and c10's, since
        receiver types are stored without at:: and c10:: (cxx/receivers.py). A class whose members are all defined
        in other files' unnamed namespaces or static (torch/csrc/utils/invalid_arguments.cpp's Argument, whose
        scope reads torch::Argument) is none the caller can name. None (every class of the name, as before) when
        no such scope declares one, when it declares several, or when another class of the name is declared inside
        one of the caller's namespaces or those it uses (a type reached through a return type or a field is written
        where that is declared: kir::IfThenElse::thenBody's `Scope&`, seen from torch::jit::fuser::cuda, is
        kir::Scope, not torch::jit::Scope)."""
        found = [c for c in self.class_namespaces.get(name, ()) if c[0].rpartition("::")[2] == name]  # (not a nested
        # class defined outside its class, `OrderedDict<Key, Value>::Item`, which classes.name spells so)
        if len(found) < 2:
            return None
        key = (name, tuple(ctx.chain), ctx.usings, ctx.file)
        memo = self._caller_classes.get(key)
        if memo is not None:
            self._file_used = self._file_used or memo[1]
            return memo[0]
        scopes, local = self._scope_map(), False
        declared: dict[str, list[str]] = {}
        for qualified, _space in found:
            files = scopes.get(qualified)
            if files is not None and files is not _PUBLIC:  # defined in files' unnamed namespaces only
                local = True
                if not any(ctx.visible(f) for f in files):
                    continue
            declared.setdefault(qualified.rpartition("::")[0], []).append(qualified)
        # the caller's namespaces, innermost first, each with the namespaces of its using-directives that it encloses
        # (a using-directive's names count as declared in the nearest namespace enclosing both, [namespace.udir]:
        # `For` in torch::jit under `using namespace torch::jit::tensorexpr;` is torch::jit's and tensorexpr's, two)
        usings = [u for u in ctx.usings if u]
        here: set[str] = set()
        for scope in ctx.chain:
            here.update(declared.get(scope, ()) if scope else ())
            here.update(q for u in usings if not scope or u.startswith(scope + "::") for q in declared.get(u, ()))
            if here:
                break
        got = frozenset((*here, *declared.get("at", ()), *declared.get("c10", ()))) if len(here) == 1 else None
        searched = [scope for scope in ctx.chain if scope] + usings
        if got is not None and any(space not in searched and any(space.startswith(outer + "::") for outer in searched)
                                   for space in declared if space):
            got = None
        self._caller_classes[key] = (got, local)
        self._file_used = self._file_used or local
        return got

    def _class_and_bases(self, type_name: str) -> set[str]:
        return set().union(*self._class_levels(type_name))

    def _class_levels(self, type_name: str) -> list[set[str]]:
        """The class of a type name, then its direct bases, then theirs (last components; each class once)."""
        got = self._bases_memo.get(type_name)
        if got is None:
            got = self._bases_memo[type_name] = self._walk_bases(type_name)
        return got

    def _derived(self, type_name: str) -> set[str]:
        """The classes derived from a type's class, directly or not (last components): where the class declares
        a member it does not define (a pure virtual one: Quantizer::quantize, QuantizerBase.h), a call of it on
        the class runs one of theirs."""
        if self._subclasses is None:
            self._subclasses = {}
            for name, bases in self.bases.items():
                for b in bases:
                    self._subclasses.setdefault(b.split("<", 1)[0].rsplit("::", 1)[-1], set()).add(
                        name.split("<", 1)[0].rsplit("::", 1)[-1])
        start = untemplated(type_name).rstrip("*& ").rsplit("::", 1)[-1]
        seen, todo = set(), [start]
        while todo:
            for sub in self._subclasses.get(todo.pop(), ()):
                if sub not in seen and sub != start:
                    seen.add(sub)
                    todo.append(sub)
        return seen

    def _walk_bases(self, type_name: str) -> list[set[str]]:
        seen = {untemplated(type_name).rsplit("::", 1)[-1]}  # AttentionKernel<...>::Params -> Params
        levels = [set(seen)]
        while levels[-1]:
            nxt = {b.split("<", 1)[0].rsplit("::", 1)[-1] for n in levels[-1] for b in self.bases.get(n, ())} - seen
            seen |= nxt
            levels.append(nxt)
        return levels[:-1]

    def _receiver_type(self, ctx: Context, receiver: str, root: str | None) -> str | None:
        """The type of a receiver expression: a variable (root: its declared type, or `decltype(<init>)` for
        an `auto` one), then the calls chained on it (`self.options()`, `at::device(kCPU)`), each typed by
        the return type of the one definition it resolves to. None as soon as a step is not known."""
        if not self.typed:
            return None
        key = (ctx.file, ctx.chain[0], receiver, root)
        got = self._typed.get(key, "")
        if got == "":
            if root is not None and root.startswith("decltype(") and root.endswith(")"):
                root = self._expression_type(ctx, root[9:-1], None)
                got = root if root is None or _PLAIN_RECEIVER.fullmatch(receiver) else \
                    self._expression_type(ctx, receiver, root)
            else:
                got = self._expression_type(ctx, receiver, root)
            self._typed[key] = got
        return got

    def _expression_type(self, ctx: Context, text: str, root: str | None, last_raw: bool = False) -> str | None:
        """The type of a chain (`x.f(a).g`, `f(a)[i]`, `std::declval<T>().f()`), or None; last_raw keeps
        its last step's return type even when it names no class (an argument's int64_t); `*e` is what `e->`
        reaches."""
        if text.startswith("*"):
            held = self._expression_type(ctx, text[1:], root)
            if held is None:
                return None
            return self._pointee(held)  # as `e->` reaches (return types are stored without their `*`)
        if text.startswith("operator") and (written := _OPERATOR_EXPRESSION.fullmatch(text)) is not None:
            return self._operator_type(ctx, written.group(1), written.group(2))
        parts = _chain_parts(text)
        if not parts or len(parts) > _CHAIN_STEPS:
            return None
        _sep, name, args = parts[0]
        this = name == "this" and args is None and len(parts) > 1  # `this->f()`: the caller's class, a pointer to it
        if this:
            t = self._caller_class(ctx)
        elif args is None:  # a variable: the type the extractor read, or a field of the caller's class or a
            t = root if len(parts) > 1 or root is None or not root.startswith("decltype(") else None  # namespace's
            if t is None and root is None and not name.startswith("("):  # variable (the constants table)
                t = self._name_type(ctx, name) if _NAME.fullmatch(name) else \
                    self._member_of_caller(ctx, name) if self.fields else None
        elif name.startswith(("std::declval<", "declval<")):
            t = template_args(name)
        elif (place := _STD_GET.fullmatch(name)) is not None:  # a structured binding's name (cxx/receivers.py)
            t = self._element_at(ctx, self._expression_type(ctx, args, None, last_raw=True), int(place.group(1)))
        elif name.startswith(_STD_FACTORIES_PREFIXES) and (made := template_args(name)) is not None:
            t = f"std::{_STD_FACTORIES[name.split('<', 1)[0]]}<{made}>"  # std::make_unique<T>(...)
        else:
            t = self._call_type(ctx, name, args, last_raw and len(parts) == 1)
        for at, (sep, name, args) in enumerate(parts[1:], 2):
            if t is not None and sep == "[]":
                t = self._element(ctx, t)
                continue
            if t is None:
                return None
            if sep == "->" and not (this and at == 2):  # `this->` is the pointer's, no class's operator->
                t = self._pointee(t)
            if args is None:  # a field of the class t: its declared type
                t = self._member(t, name)
                continue
            if (held := _standard_member(t, name)) is not None:  # optional<T>::value(), unique_ptr<T>::get()
                t = held
                continue
            t = self._returned(self.resolve(ctx, f"x.{name}", name.split("<", 1)[0], _count_args(args), t),
                               raw=last_raw and at == len(parts), receiver=t)
        return t

    def _operator_type(self, ctx: Context, name: str, operands: str) -> str | None:
        """The type of an operator expression the extractor wrote as `operator-(std::declval<A>(),_)`
        (cxx/receivers.py): what the operator function it calls returns (operator_call, as for the operator calls
        of a body), the return type its candidates agree on when the operand types leave several; for built-in
        operands, the usual arithmetic conversions' type. None when that is not known."""
        args: list[str | None] = []
        for written in split_top_level(operands):
            if written == "_":
                args.append(None)
            elif written.startswith("std::declval<") and written.endswith(">()"):
                args.append(written[13:-3])
            else:
                return None
        name = f"operator{name}"
        typed, unaliased = self._operands(ctx, json.dumps(args, separators=(",", ":"))) if any(args) else (args, args)
        targets = self._operator_call(ctx, name, len(args), unaliased)
        if not targets:  # the built-in operator: the operands' arithmetic conversions
            return arithmetic_result(name[8:], [overloads.plain_type(t) if t is not None else "" for t in typed])
        got = self._returned(targets)
        one = targets[0].node is not None and len(targets) == 1
        if one and got is not None and self.symbol_of_node()[targets[0].node].template_params:
            # a function template: its return type with what the operands deduce put in
            return _deduced_return(self.symbol_of_node()[targets[0].node], got, unaliased)
        if got is None and not one and len(targets) == 1 and targets[0].candidates:
            got = self._agreed_class(targets[0].candidates, unaliased)
        return got

    def _agreed_class(self, nodes: tuple[int, ...], args: list[str | None]) -> str | None:
        """The return type of several candidates an operator's operands do not tell apart, when all return the
        same class (a class template's primary and its specialisations: `Vectorized<T>`, `Vectorized<float>`):
        the one template's, its parameters deduced from the operands where a parameter of the same class names
        them (`const Vectorized<T>&` and a Vectorized<scalar_t> give Vectorized<scalar_t>); else the one type the
        non-templates agree on; None when they return different classes or a type that names none."""
        by_node = self.symbol_of_node()
        syms = [by_node[n] for n in nodes if n in by_node]
        returned = [self.returns.get(s.id) for s in syms]
        if not returned or None in returned or any(_UNKNOWN_RETURN.fullmatch(r) for r in returned) or \
                len({untemplated(r) for r in returned}) != 1:
            return None
        templates = [(s, r) for s, r in zip(syms, returned) if s.template_params]
        if len(templates) == 1:
            return _deduced_return(*templates[0], args)
        plain = {r for s, r in zip(syms, returned) if not s.template_params}
        return plain.pop() if len(plain) == 1 else None

    def _qualified_alias(self, type_name: str) -> str:
        """A qualified type name that is a type alias (`sparse_csr::SparseCsrTensor`, `impl::GenericList`, as
        receiver types are written without at:: and c10::): what it aliases; else the name unchanged."""
        written = type_name.rstrip("*& ")
        for key in (written.removeprefix("::"), f"at::{written}", f"c10::{written}"):
            target = self.qualified_aliases.get(key)
            if target is not None:
                return target.removeprefix("typename ") + type_name[len(written):]
        return type_name

    def _caller_class(self, ctx: Context) -> str | None:
        """The class a method belongs to (its scope, ctx.chain[0]: `this` points to one); None for a free
        function."""
        scope = ctx.chain[0]
        return scope if scope and scope.rsplit("::", 1)[-1].split("<", 1)[0] in self.classes else None

    def _member_of_caller(self, ctx: Context, name: str) -> str | None:
        """The type of the data member `name` of the class a method belongs to (its scope, ctx.chain[0]), or of
        one of its bases; None for a free function or when no class of the name declares it."""
        scope = ctx.chain[0]
        cls = scope.rsplit("::", 1)[-1]
        if not scope or cls.split("<", 1)[0] not in self.fields:
            return None
        return self._member(scope, name)

    def _member(self, type_name: str, name: str) -> str | None:
        """The declared type of a data member of a class (a qualified or last name, template arguments as
        written), found in the class or its nearest base that declares it: the classes of that last name
        that declare it must agree on its type; None when they do not, or the type names no class."""
        if _UNNAMED_CLASS.match(type_name):
            return _unnamed_member(type_name, name)
        written = untemplated(type_name.rstrip("*& "))
        for level in self._class_levels(written):
            types = set()
            for cls in level:
                for qualified, members in self.fields.get(cls, ()):
                    if name in members and (cls != written.rsplit("::", 1)[-1] or "::" not in written or
                                            untemplated(qualified) == written or
                                            untemplated(qualified).endswith("::" + written)):
                        types.add(members[name])
            if types:
                got = types.pop() if len(types) == 1 else None
                return got if got is not None and not _UNKNOWN_RETURN.fullmatch(got) else None
        return None

    def _element_at(self, ctx: Context, type_name: str | None, place: int) -> str | None:
        """What std::get<place> gives of a std::tuple or std::pair (its place-th template argument) or a std::array
        (its element); None for another type or a place out of range."""
        if type_name is None:
            return None
        written = _unalias(type_name, (ctx.aliases, self.aliases), self._scope_test(ctx))
        head = written.split("<", 1)[0].removeprefix("::").removeprefix("std::")
        args = template_args(written)
        if head not in ("tuple", "pair", "array") or not args:
            return None
        parts = split_top_level(args)
        if head == "array":
            return parts[0]
        return parts[place] if place < len(parts) else None

    def _element(self, ctx: Context, type_name: str) -> str | None:
        """The element type of a sequence (ArrayRef<Tensor>, TensorList, std::vector<Tensor>): what `x[i]` is."""
        written = _unalias(type_name, (ctx.aliases, self.aliases), self._scope_test(ctx))
        head = written.split("<", 1)[0].rsplit("::", 1)[-1]
        args = template_args(written)
        if head not in _SEQUENCES or not args:
            return None
        depth = 0
        for i, ch in enumerate(args):
            depth += 1 if ch == "<" else -1 if ch == ">" else 0
            if ch == "," and depth == 0:
                return args[:i]
        return args

    def _call_type(self, ctx: Context, written: str, args: str, raw: bool = False) -> str | None:
        """The type of a call at the start of a chain: a class made in place (`TensorIteratorConfig()`), else
        the return type of the function it resolves to; a function template returning its template parameter
        (`T* LookUpOrCreateCachedGraph(...)`), called with one explicit template argument, returns that one."""
        qualifier, last, _receiver = written_parts(written)
        name = last.split("<", 1)[0]
        constructed = self._constructors.get(name)
        if constructed is None:
            constructed = self._constructors[name] = name in self.types and name not in self.symbols.by_name or any(
                s.kind == "method" and s.scope.rsplit("::", 1)[-1] == name for s in self.symbols.by_name.get(name, ()))
        if constructed:
            self._category = "prvalue"  # a class made in place
            return _LIBRARY_PREFIX.sub("", written)
        explicit = template_args(last)
        if explicit is not None and _count_args(explicit) == 1:  # `make<CachedGraph>(...)` returning its T
            raw = self._returned(self.resolve(ctx, written, name, _count_args(args), None), raw=True)
            if raw is not None and re.fullmatch(r"[A-Z]", raw):
                return explicit
        return self._returned(self.resolve(ctx, written, name, _count_args(args), None, _named_arguments(args)),
                              raw=raw)

    def _returned(self, targets: list[Target], raw: bool = False, receiver: str | None = None) -> str | None:
        """The return type the targets of a call agree on (one definition, or overloads that return the same);
        for a member of a class template defined outside it, with the receiver's template arguments put in for
        the class's parameters (`List<Tensor>` and `template <class T> std::vector<T> List<T>::vec()`)."""
        by_node = self.symbol_of_node()
        self._category = None  # the call's value category, read by _argument_type
        if targets and all(t.how is How.OP for t in targets):  # an op through the dispatcher: its schema's return
            returned = {self.op_returns.get(o) for t in targets for o in t.op}
            refs = {o in self.op_references for t in targets for o in t.op}  # `-> Tensor(a!)`: a Tensor&
            self._category = ("lvalue" if refs.pop() else "prvalue") if len(refs) == 1 else None
            return returned.pop() if len(returned) == 1 else None
        nodes = [t.node for t in targets] if all(t.node is not None for t in targets) else \
            (list(targets[0].candidates) if len(targets) == 1 and targets[0].candidates else [])
        if not nodes or any(t.how is How.AMBIGUOUS for t in targets):
            return None  # several specialisations (or a member a base may provide instead) count when they agree
        # definitions.returns drops `&`; the signature keeps the declarator's (`& add_output(...)`, `&& value() &&`)
        kinds = {_returned_category(by_node[n].signature) for n in nodes if n in by_node}
        self._category = kinds.pop() if len(kinds) == 1 else None
        given = template_args(_last_component(receiver.rstrip("*& "))) if receiver else None
        returned = {_bound(self.returns.get(by_node[n].id), by_node[n], given) for n in nodes if n in by_node}
        if given and len(returned) == 1 and all(by_node[n].template_params is None for n in nodes if n in by_node) \
                and (same := _own_class(next(iter(returned)), receiver)) is not None:  # (a member template's own
            # parameters may name another specialisation: `template <class U> Foo<U> to()`)
            returned = {same}
        if len(returned) > 1 and None not in returned and len({untemplated(r) for r in returned}) == 1:
            # a class template's member and its specialisations' (Vectorized<T>::abs() on a Vectorized<scalar_t>,
            # and Vectorized<float>::abs() ...) return the same class: the primary's, its arguments put in; where
            # the primary has none and each returns its own class (Vectorized<c10::qint8>::maximum), the receiver's
            returned = {_bound(self.returns.get(by_node[n].id), by_node[n], given) for n in nodes
                        if n in by_node and by_node[n].owner_spec is None}
            if not returned and receiver is not None and all(
                    untemplated(self.returns.get(by_node[n].id) or "") == untemplated(by_node[n].scope.rsplit("::", 1)[-1])
                    for n in nodes if n in by_node):
                returned = {receiver.rstrip("*& ")}
        got = returned.pop() if len(returned) == 1 else None
        return got if got is not None and (raw or not _UNKNOWN_RETURN.fullmatch(got)) else None

    def _inherited_too(self, picked: list[Symbol], cands: list[Symbol]) -> tuple[list[Symbol], bool]:
        """A specialisation's own members (Vectorized<c10::Half>::loadu, in the NEON header) and the same name
        in the class's bases: a specialisation written elsewhere, under another #if, may inherit it instead
        (x86's Vectorized<Half> from Vectorized16), so both are meant, as several."""
        cls = picked[0].scope.rsplit("::", 1)[-1]
        specialised = self._specialised_bases
        if specialised is None:  # classes are keyed as written: `Vectorized<Half>`, `Vectorized<c10::Half>`
            specialised = self._specialised_bases = {}
            for name, bases in self.bases.items():
                args = template_args(name)
                if args is not None:
                    key = (name.split("<", 1)[0], normalise_type(args))
                    specialised[key] = specialised.get(key, ()) + bases
        found = set()
        for base in specialised.get((cls, picked[0].owner_spec), ()):
            found |= self._class_and_bases(base)
        inherited = [s for s in cands if s.scope.rsplit("::", 1)[-1] in found - {cls}]
        return (picked + inherited, True) if inherited else (picked, False)

    def _generated_classes(self) -> set[str]:
        """Classes defined in the checkout's codegen templates (at::Tensor in templates/TensorBody.h): their
        bodies are completed at build time with a method for each op, which the checkout does not hold. A
        template header holds the class body; a source template (TensorMethods.cpp) only defines members of
        classes declared elsewhere (TensorBase's data_ptr<T>), which makes no class generated."""
        if self._templated is None:
            self.use_scopes(scope_entries(s for syms in self.symbols.by_name.values() for s in syms))
        return self._templated

    def use_scopes(self, entries: Iterable[ScopeEntry]) -> None:
        """The scope map and the generated classes, made of every definition's scope_entries (by default, of the
        symbols'; an incremental link gives them all, as its symbols are some of the definitions)."""
        self._scopes, self._templated = scope_maps(entries)

    def _pointee(self, type_name: str) -> str:
        """What `x->` reaches when x's type is a class with an operator-> (MaybeOwned<Tensor>, intrusive_ptr<T>,
        TensorArg): for a class template, its first template argument; for a class, what its operator->
        returns; else the type itself. A type alias of the checkout that is no class's name is what it names
        first (`SymNode`, an intrusive_ptr<SymNodeImpl>, reaches a SymNodeImpl)."""
        if type_name.endswith("*"):
            return type_name.rstrip("*")
        arrows = self._arrows
        if arrows is None:
            arrows = self._arrows = {}
            for s in self.symbols.by_name.get("operator->", ()):
                arrows.setdefault(s.scope.rsplit("::", 1)[-1], []).append(s)
        # a checkout-wide alias, not where the name is a class of the checkout's (functorch's TensorRef, whose
        # operator-> reaches an at::Tensor, is no `using TensorRef = cutlass::TensorRef<...>` of mem_eff_attention's)
        aliased = self.aliases.get(type_name) if type_name not in self.classes else None
        if aliased is not None and "<" in aliased:  # only an alias of a class template with an operator->
            aliased = _LIBRARY_PREFIX.sub("", aliased)
            if aliased.split("<", 1)[0].rsplit("::", 1)[-1] in arrows or \
                    _standard_member(aliased, "operator->") is not None:
                type_name = aliased
        head = type_name.split("<", 1)[0].rsplit("::", 1)[-1]
        held = _standard_member(type_name, "operator->")  # std::shared_ptr<Buf>: a Buf
        if held is not None:
            return held
        args = template_args(type_name)
        if head in arrows and not args:  # TensorArg: what its operator-> returns
            returned = {self.returns.get(s.id) for s in arrows[head]}
            return returned.pop() or type_name if len(returned) == 1 else type_name
        if head in arrows and args:
            depth = 0
            for i, ch in enumerate(args):
                depth += ch in "<(" and 1 or (ch in ">)" and -1 or 0)
                if ch == "," and depth == 0:
                    return args[:i]
            return args
        return type_name

    def _scope_test(self, ctx: Context) -> Callable[[str], bool]:
        """Whether a name, looked up from the caller's scopes, is a namespace or class of the checkout."""
        scopes = self._all_scopes()
        return lambda head: any((f"{c}::{head}" if c else head) in scopes for c in ctx.chain)

    def _scope_seen(self, ctx: Context, scope: str) -> bool:
        """Whether a namespace or class scope (or a prefix of one) is seen from the caller: one that a header
        or the caller's include closure defines something in (a .cpp's own `namespace fbgemm` inside at::native,
        ScatterGatherKernel.cpp's, is not seen from another .cpp)."""
        files = self._scope_map().get(scope)
        if files is None:
            return False
        if files is _PUBLIC:
            return True
        self._file_used = True
        return any(ctx.visible(f) for f in files)

    def _all_scopes(self) -> KeysView[str]:
        """Every namespace and class scope of the checkout, with each of its prefixes."""
        return self._scope_map().keys()

    def _scope_map(self) -> dict[str, set[str]]:
        """Every namespace and class scope of the checkout, with each of its prefixes -> the files of its local
        definitions, or _PUBLIC where a header defines something in it (use_scopes)."""
        if self._scopes is None:
            self.use_scopes(scope_entries(s for syms in self.symbols.by_name.values() for s in syms))
        return self._scopes

    def _vendor_using(self, ctx: Context) -> str | None:
        """The first namespace the caller's file brings in with `using namespace` that the checkout does not
        define, seen from the caller (cute; not `mps` inside at::native, which is at::native::mps): a name the
        checkout does not define is that namespace's."""
        checkout = self._scope_test(ctx)
        for used in ctx.usings:
            first = used.split("::", 1)[0]
            if used and first not in self.namespaces and first not in self.types and not checkout(first):
                return used
        return None

    def _choose(self, ctx: Context, syms: list[Symbol], how: How, last: str, argc: int,
                spread: bool = False, united: bool = False) -> list[Target]:
        visible = self._seen(ctx, syms)
        if not visible:
            return [Target(None, How.NOT_IN_CHECKOUT, "only local definitions in other files")]
        if spread:  # a class template named with dependent arguments: each specialisation (never "the one")
            return self._many(visible, How.SPECIALISATIONS)
        args = template_args(last)
        if args is not None and last.split("<", 1)[0] not in self._type_heads() and \
                not any(s.scope.rsplit("::", 1)[-1].split("<", 1)[0] == s.name for s in visible):
            # `data_ptr<float>()` names a function template: a non-template of the name is no candidate (the
            # arguments of `Vectorized<float>(x)` are its class's, and its constructors stay)
            visible = [s for s in visible if s.template_params is not None or s.spec is not None] or visible
        if args is None and len(visible) > 1:
            # `c10::load(p)`: a template whose parameter only its return type names needs `load<T>(p)`
            visible = [s for s in visible if not _undeducible(s)] or visible
        specs = [s for s in visible if s.spec is not None]
        if args is not None:
            deduced = self._deduced(visible, args)
            if deduced:  # `data_ptr<float>()`: the specialisations `template <> float* data_ptr() const`
                visible, specs = deduced, []
        if specs:
            if args is not None:
                exact = [s for s in specs if s.spec == normalise_type(args)]
                if exact:
                    visible = exact
                else:  # dependent arguments: each specialisation with as many arguments, and the primary template
                    n = _count_args(args)
                    reach = [s for s in visible if s.spec is None] + [s for s in specs if _count_args(s.spec) == n]
                    if len(reach) == 1:
                        return [Target(reach[0].node, how)]
                    if reach:
                        return [Target(s.node, How.SPECIALISATIONS, str(len(reach))) for s in reach]
            else:
                visible = [s for s in visible if s.spec is None] or visible
        if len(visible) == 1:
            return [Target(visible[0].node, how)]
        self._file_used = True
        for pick, rule in ((lambda s: s.file == ctx.file, How.SAME_FILE), (lambda s: ctx.includes(s.file), How.INCLUDE)):
            if how is How.OVERRIDES:  # the object decides which override runs, not where their bodies are
                break
            near = [s for s in visible if pick(s)]
            if near and rule is How.INCLUDE:  # with those the included headers declare for their source files
                names = {untemplated(n.qualified_name) for n in near}
                near += [s for s in visible if not pick(s) and untemplated(s.qualified_name) in names and
                         self._declared_with(ctx, s.file)]
            if near:
                visible = near
                if len(near) == 1:
                    return [Target(near[0].node, how if how is not How.SAME_NAMESPACE else rule)]
                break
        fits = [s for s in visible if _takes(s, argc)]
        if len(fits) == 1:
            return [Target(fits[0].node, How.OVERLOAD)]
        fits = fits or visible
        if how is How.OVERRIDES:
            return self._many(fits, How.OVERRIDES)
        if united or len({untemplated(s.qualified_name) for s in fits}) == 1:
            return self._many(fits, How.OVERLOAD_SET)
        return self._many(fits, How.AMBIGUOUS)

    def _concrete(self, ctx: Context, args: str) -> bool:
        """Whether template arguments as written name no template parameter: each name in them is a
        builtin type, a class of the checkout (not an alias, which may be a dispatch's `scalar_t`) or a
        namespace, and no parameter of the caller's template; numbers pass."""
        own = ctx.template_params or {}
        for word in _WORDS.findall(args):
            if word in own:
                return False
            if word in BUILTIN_TYPES or word in ("const", "std", "at", "c10", "true", "false"):
                continue
            if word not in self.types or word in self.aliases:
                return False
        return True

    def _deduced(self, visible: list[Symbol], args: str) -> list[Symbol]:
        """For a call with one explicit template argument, the explicit specialisations written without
        arguments (`template <> TORCH_API float* TensorBase::data_ptr() const`) whose arguments C++ deduces
        as that one: the type, without const, pointer or reference, is the return type's or a parameter's.
        An explicit specialisation of a template with one parameter names its argument in its function type,
        or it could not be deduced. Empty when none is, or the call writes more arguments."""
        if _count_args(args) != 1:
            return []
        wanted = _core_type(args)
        out = []
        for s in visible:
            if s.template_params != {} or s.spec is not None:
                continue
            types = [self.returns.get(s.id)] + (overloads.parameter_types(s.signature) or [])
            if any(t and _core_type(t) == wanted for t in types):
                out.append(s)
        return out

    def _type_heads(self) -> set[str]:
        """The names of the checkout's classes and aliases without template arguments (`Vectorized` of the
        specialisations `Vectorized<float>`, whose primary template tree-sitter may not shape as a class)."""
        if self._heads is None:
            self._heads = {t.split("<", 1)[0] for t in self.types}
        return self._heads

    def _many(self, fits: list[Symbol], how: How) -> list[Target]:
        """Several candidates: an edge each up to AMBIGUOUS_FOLLOWED, else one edge that counts them. Definitions
        of one qualified name whose guards no build holds together are one per build configuration: an edge each."""
        if len(fits) <= OVERLOADS_FOLLOWED and self.guards and len({s.qualified_name for s in fits}) == 1 and \
                one_per_build([self.guards.get(s.id) for s in fits]):
            return [Target(s.node, How.PER_BUILD, str(len(fits))) for s in fits]
        if len(fits) <= (AMBIGUOUS_FOLLOWED if how is How.AMBIGUOUS else OVERLOADS_FOLLOWED):
            return [Target(s.node, how, str(len(fits))) for s in fits]
        return [Target(None, how, str(len(fits)), (), tuple(s.node for s in fits))]
