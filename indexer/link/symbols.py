"""Every definition of the checkout, arranged for C++ name lookup: by name, with its scope,
visibility and arity.

A definition's scope is its qualified name without the last component. Scopes are compared
"normalised": template arguments dropped, and unnamed and inline namespaces removed, because
their members are visible in the enclosing namespace (`at::native::(anonymous)::f` and
`at::native::CPU_CAPABILITY::f` are both found from `at::native`). A definition in an unnamed
namespace, or a free function declared `static`, is local: visible in its own file and in the
files that include it (a header's static inline helper), never elsewhere.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..cxx.scopes import split_scope

ANONYMOUS = "(anonymous)"
_TEMPLATE_ARGS = re.compile(r"<.*>$")
_HEADER = (".h", ".hpp", ".cuh", ".hh", ".inl", ".inc")


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition as name lookup sees it."""

    id: int  # definitions.id
    node: int  # nodes.id
    name: str
    qualified_name: str
    kind: str
    file: str
    line: int
    end_line: int
    scope: str  # normalised
    local: bool  # unnamed namespace or static free function
    spec: str | None  # the template arguments of an explicit specialisation, normalised: "float"
    min_args: int  # -1 when unknown (a macro writes the parameters)
    max_args: int  # -1 for variadic or unknown
    signature: str
    template_params: dict[str, str] | None = None  # name -> kind (type, template, value) of its template head
    owner_spec: str | None = None  # a member of a class template's specialisation: the class's arguments, "float"
    constrained: bool = False  # a template SFINAE may leave out (definitions.constrained)


def norm_component(component: str) -> str:
    return _TEMPLATE_ARGS.sub("", component)


def normalise_scope(parts: list[str], inline: frozenset[str]) -> str:
    """`[at, native, (anonymous)]` -> `at::native`; inline namespaces (by qualified name) drop out."""
    out: list[str] = []
    for part in parts:
        written = "::".join([*out, part])
        if part == ANONYMOUS or written in inline:
            continue
        out.append(norm_component(part))
    return "::".join(out)


def scope_chain(qualified: str, inline: frozenset[str]) -> list[str]:
    """The scopes C++ lookup searches from inside a function, innermost first, ending at ""."""
    parts = split_scope(qualified)[:-1]
    scope = normalise_scope(parts, inline).split("::") if parts else []
    chain = ["::".join(scope[:i]) for i in range(len(scope), 0, -1)]
    return [*chain, ""] if chain != [""] else [""]


def is_header(path: str) -> bool:
    return path.endswith(_HEADER)


_PARAMS: dict[str, list[str] | None] = {}
_BRACKET_OR_COMMA = re.compile(r"[<>()\[\]{},]")
_MACRO_PARAMS = re.compile(r"\s*[A-Z][A-Z0-9_]*\(.*\)\s*", re.S)


def _params(signature: str) -> list[str] | None:
    """The parameters written between the declarator's outer parentheses; None when a macro writes them
    (memoised: overloads and instantiations repeat signatures)."""
    got = _PARAMS.get(signature, False)
    if got is False:
        got = _PARAMS[signature] = _split_params(signature)
    return got


def _split_params(signature: str) -> list[str] | None:
    start = signature.find("(")
    end = signature.rfind(")")
    if start < 0 or end < start:
        return None
    inner = signature[start + 1:end]
    if _MACRO_PARAMS.fullmatch(inner):
        return None  # CUDABLAS_GEMM_ARGTYPES(float): a macro writes the parameter list
    if not inner.strip() or inner.strip() == "void":
        return []
    if not any(c in inner for c in "<([{"):
        return [p.strip() for p in inner.split(",")]
    return split_top_level(inner)


def split_top_level(text: str) -> list[str]:
    """The comma-separated parts of a list outside every bracket: `T<a, b>, int n` -> [T<a, b>, int n]
    (parameters, template arguments)."""
    parts, depth, begin = [], 0, 0
    for m in _BRACKET_OR_COMMA.finditer(text):  # only the characters that matter, not every one
        ch = m.group()
        if ch in "<([{":
            depth += 1
        elif ch != ",":
            depth -= 1
        elif depth == 0:
            i = m.start()
            parts.append(text[begin:i].strip())
            begin = i + 1
    parts.append(text[begin:].strip())
    return parts


_ARRAY_BOUND = re.compile(r"\s*\[[^\]]*\]\s*$")  # the last `[...]` of a declarator
_TRAILING_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")


_NAMES: dict[str, frozenset[str]] = {}


def parameter_names(signature: str) -> frozenset[str]:
    """The names of a declarator's parameters: `(const func_t& f, int64_t n = 0)` -> {f, n}."""
    got = _NAMES.get(signature)
    if got is None:
        got = _NAMES[signature] = _parameter_names(signature)
    return got


def _parameter_names(signature: str) -> frozenset[str]:
    return frozenset(name for name in ordered_parameter_names(signature) or () if name)


def ordered_parameter_names(signature: str) -> list[str | None] | None:
    """The names of a declarator's parameters in order (None for one without a name); None when a macro writes
    them."""
    params = _params(signature)
    if params is None:
        return None
    out: list[str | None] = []
    for p in params:
        name = _declared_name(p.split("=", 1)[0].rstrip())
        out.append(name if name and name not in ("const", "void") else None)
    return out


def _declared_name(param: str) -> str | None:
    """The name a parameter declares: the identifier that ends it, after any `[N]` array bounds
    (`const int64_t sizes[3]` -> sizes). Read from the end, since a search from the start costs a
    scan per character of long template types."""
    while param.endswith("]"):
        m = _ARRAY_BOUND.search(param)
        if m is None:
            return None
        param = param[:m.start()]
    m = _TRAILING_NAME.search(param)
    return m.group(1) if m else None


def arity(signature: str) -> tuple[int, int]:
    """(fewest, most) arguments a call may pass; -1 where it cannot be told (variadic, a macro)."""
    params = _params(signature)
    if params is None:
        return -1, -1
    if any(p.endswith("...") or "..." in p.split("=")[0] for p in params):
        return len([p for p in params if "=" not in p and "..." not in p]), -1
    required = len([p for p in params if "=" not in p])
    return required, len(params)


def specialisation(qualified: str) -> str | None:
    """`at::cuda::blas::gemm<float>` -> "float"; None for a name with no template arguments."""
    last = split_scope(qualified)[-1]
    if "<" not in last or not last.endswith(">") or last.startswith("operator"):
        return None
    return normalise_type(last[last.index("<") + 1:-1])


def owner_specialisation(parts: list[str]) -> str | None:
    """The template arguments written on the class a member is defined in: [at, vec, Vectorized<float>, size]
    -> "float"; None for a member of a class that is no specialisation (or for a free function). Symbols
    drops it, too, for a member of the primary template defined outside it (its arguments are its own
    template parameters, in order: `List<T>::vec`)."""
    if len(parts) < 2:
        return None
    owner = parts[-2]
    if "<" not in owner or not owner.endswith(">"):
        return None
    return normalise_type(owner[owner.index("<") + 1:-1])


_SCHEMA_TYPES = {"Tensor": "Tensor", "Tensor[]": "std::vector<Tensor>", "Scalar": "Scalar", "ScalarType": "ScalarType",
                 "int": "int64_t", "SymInt": "SymInt", "bool": "bool", "float": "double", "Device": "Device"}


def op_return_type(func: str) -> str | None:
    """The C++ type an op's schema returns, as receiver types are written: `-> Tensor(a!)` -> "Tensor",
    `-> (Tensor, Tensor)` -> "std::tuple<Tensor,Tensor>", `-> Tensor[]` -> "std::vector<Tensor>"; None for
    none or a type not listed (the generated C++ signature is torchgen's; only these forms are read)."""
    written = func.rpartition(") -> ")[2].strip()
    if written.startswith("(") and written.endswith(")"):
        parts = [_schema_type(p.strip()) for p in written[1:-1].split(",")]
        return f"std::tuple<{','.join(parts)}>" if parts and all(parts) else None
    return _schema_type(written)


def _schema_type(written: str) -> str | None:
    bare = re.sub(r"\([a-z!]+\)", "", written).split(" ", 1)[0]  # Tensor(a!) out -> Tensor
    return _SCHEMA_TYPES.get(bare)


def op_typing(conn) -> tuple[dict[str, str], frozenset[str]]:
    """What the resolver types call chains by beside the definitions' return types (stage.prepare reads those with
    the symbols): each op's C++ return type by op name (Resolver.op_returns), and the names of the Tensor methods
    torchgen generates (Resolver.tensor_methods: ops with a method variant, not manual_cpp_binding)."""
    ops, methods = {}, set()
    for name, base, func, variants, manual in conn.execute(
            "SELECT name, base, func, variants, manual_cpp_binding FROM ops"):
        if (t := op_return_type(func)) is not None:
            ops[name] = t
        if "method" in json.loads(variants) and not manual:
            methods.add(base)
    return ops, frozenset(methods)


def has_return_types(conn, columns: set[str]) -> bool:
    """Whether a definition has a declared return type (columns: the definitions table's; an index of an older
    schema has none)."""
    return "returns" in columns and conn.execute(
        "SELECT 1 FROM definitions WHERE returns IS NOT NULL LIMIT 1").fetchone() is not None


_ALL_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")


def untemplated(qualified: str) -> str:
    """`at::vec::Vectorized<float>::loadu` -> `at::vec::Vectorized::loadu` (every template argument list)."""
    while "<" in qualified:
        stripped = _ALL_TEMPLATE_ARGS.sub("", qualified)
        if stripped == qualified:
            break
        qualified = stripped
    return qualified


_LIBRARY_QUALIFIERS = re.compile(r"\b(?:at|c10|::)::")


def normalise_type(text: str) -> str:
    """Template arguments compared as written, without spaces and without at::/c10:: prefixes."""
    return _LIBRARY_QUALIFIERS.sub("", text.replace(" ", "")).removeprefix("::")


def _template_params(written: str | None) -> dict[str, str] | None:
    """definitions.template_params (`["K:template", "RNG:type"]`) as name -> kind; {} for an explicit
    specialisation (`template <>`, written `[]`), None for no template."""
    if not written:
        return None
    return dict(p.rsplit(":", 1) for p in json.loads(written))


class Symbols:
    """Definitions by name, and the per-file facts lookup needs."""

    def __init__(self, rows, inline: frozenset[str]):
        self.inline = inline
        self.by_name: dict[str, list[Symbol]] = {}
        self.by_file: dict[str, list[Symbol]] = {}
        self.by_qualified: dict[str, list[Symbol]] = {}
        for def_id, node, name, qualified, kind, file, line, end_line, qualifiers, signature, lo, hi, *more in rows:
            parts = split_scope(qualified)
            scope = normalise_scope(parts[:-1], inline)
            quals = json.loads(qualifiers)
            local = ANONYMOUS in parts or ("static" in quals and kind in ("function", "device_function"))
            if lo == -1 and hi == -1:
                lo, hi = arity(signature)
            params = _template_params(more[0] if more else None)
            owner = owner_specialisation(parts) if kind in ("method", "device_function") else None
            if owner is not None and params and split_top_level(owner) == list(params):
                owner = None  # `template <class T> ... List<T>::vec()`: the primary template's member, defined outside
            sym = Symbol(def_id, node, name, qualified, kind, file, line, end_line, scope, local,
                         specialisation(qualified), lo, hi, signature,
                         template_params=params, owner_spec=owner, constrained=len(more) > 1 and bool(more[1]))
            self.by_name.setdefault(name, []).append(sym)
            self.by_file.setdefault(file, []).append(sym)
            self.by_qualified.setdefault(qualified, []).append(sym)
        for syms in self.by_file.values():
            syms.sort(key=lambda s: (s.line, -s.end_line))

    def scopes(self) -> set[str]:
        return {s.scope for syms in self.by_name.values() for s in syms}
