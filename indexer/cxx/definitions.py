"""Definitions: function bodies tree-sitter shaped, structured kernels (TORCH_META_FUNC* /
TORCH_IMPL_FUNC) and __global__ kernels it could not shape (preprocessor lines inside them).

Structured kernels: TORCH_META_FUNC(add) and TORCH_META_FUNC2(add, Tensor) are
definitions of kind `meta_func` named `add` and `add.Tensor` (the overload name
joined with a dot, as in native_functions.yaml); TORCH_IMPL_FUNC(add_out) is kind
`impl_func` named `add_out`. Their qualified name is the C++ the macro expands to
(naming.meta_struct / naming.impl_struct): `at::meta::structured_add_Tensor::meta`,
`at::native::structured_add_out::impl`. `macro` names the macro used.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import replace

from .. import naming
from ..vocab import DefinitionKind
from .arity import declarator_arity, text_arity
from .facts import DefinitionFact
from .receivers import normalised_type
from .prepare import CONDITIONAL
from .scan import BRACES, code_marks, dec, norm, nospace, skip_space
from .scopes import function_declarator, scope_prefix, split_scope
from .sourcefile import SourceFile
from .template_params import constrained, template_parameters

# macro -> (kind, the member the macro's struct defines)
STRUCTURED = {
    "TORCH_META_FUNC": (DefinitionKind.META_FUNC, "meta"),
    "TORCH_META_FUNC2": (DefinitionKind.META_FUNC, "meta"),
    "TORCH_PRECOMPUTE_META_FUNC": (DefinitionKind.META_FUNC, "meta"),
    "TORCH_PRECOMPUTE_META_FUNC2": (DefinitionKind.META_FUNC, "meta"),
    "TORCH_IMPL_FUNC": (DefinitionKind.IMPL_FUNC, "impl"),
}
LIBRARY_MACROS = ("TORCH_LIBRARY", "TORCH_LIBRARY_IMPL", "TORCH_LIBRARY_FRAGMENT")

_CUDA_QUALIFIERS = re.compile(
    r"\b(__global__|__device__|__host__|__forceinline__|__noinline__|__launch_bounds__|"
    r"C10_HOST_DEVICE|C10_DEVICE|C10_HOST|C10_ALWAYS_INLINE|static|inline|constexpr|virtual|explicit|extern)\b"
)

_DEVICE_QUALIFIERS = ("__device__", "C10_DEVICE", "C10_HOST_DEVICE")
_DECLARATOR_TOKEN = re.compile(rb"[A-Za-z_][\w:]*|[*&<>,]+")
_TEMPLATE_HEAD = re.compile(rb"template\s*<[^;{}]*>\s*$")


def parsed_definitions(f: SourceFile) -> None:
    """Phase: every function_definition tree-sitter found (structured and library macro heads
    are left to the macro sites phase)."""
    definers = {k for k, d in f.local.items() if d.writes_body}
    for node in f.get("definition"):
        if in_block(node):
            continue  # a call tree-sitter misread (calls.py: block_definition_calls)
        fact = _definition(f, node)
        if fact is not None and fact.name in definers and fact.qualified_name.endswith(fact.name):
            # a use of the file's own macro that writes a whole definition, which the preprocessor always expands:
            # tree-sitter read it and what follows as a function named by the macro (2.6.0 RNN.cpp:1875 `static
            # DEFINE_QUANTIZED_RNN_CELL_DYNAMIC(...)`, run on to :1959 over four more uses); expansions.py expands it
            continue
        if fact is not None:
            end = _damaged_end(f, node) if node.has_error else None
            if end is not None:
                fact = replace(fact, end_line=f.line_of(end - 1))
            f.definitions.append(fact)
            f.ranges.append((node.start_byte, end or node.end_byte, fact.qualified_name))


def _damaged_end(f: SourceFile, node) -> int | None:
    """Where a definition whose parse is damaged really ends, when tree-sitter's error recovery ran it on past its
    closing brace: the offset after the `}` that matches the body's `{` (_matching_brace), when what tree-sitter
    read after that `}` holds parse damage or a definition (C++ nests none outside a class body). Else None.

    Or, when tree-sitter closed it with a `}` of an #if branch that a later branch replaces, after the `}` that
    closes it in the last branch (2.6.0 profiler/collection.cpp:797-849, closed under `#ifndef USE_KINETO`).

    2.6.0 cuda/DepthwiseConv3d.cu: the statement macros used without a `;` (`DWCONV3D_FORWARD_DISPATCH_OTHERS`,
    line 454) run conv_depthwise3d_cuda (line 390) on to line 706, the namespace's end, through the next macros'
    bodies and three definitions; its `}` is at line 459."""
    body = node.child_by_field_name("body")
    if body is None or body.type != "compound_statement":
        return None
    skipped = _skipped(f, body.start_byte)
    close = _matching_brace(f, body.start_byte, node.end_byte, skipped)
    if close is None:  # tree-sitter closed it in an #if branch a later branch replaces: on to where that one does
        last = node.end_byte - 1
        if not any(a <= last < b for a, b in skipped):
            return None
        close = _matching_brace(f, body.start_byte, len(f.src), skipped)
        return None if close is None or close < node.end_byte else close + 1
    if close + 1 >= node.end_byte:
        return None
    stack = [c for c in body.children if c.end_byte > close + 1]
    while stack:
        n = stack.pop()
        if n.start_byte > close and (n.is_error or n.is_missing or (
                n.type == "function_definition" and n.child_by_field_name("type") is not None)):
            return close + 1
        if n.has_error or n.type == "function_definition":
            stack.extend(c for c in n.children if c.end_byte > close + 1)
    return None


def _matching_brace(f: SourceFile, brace: int, end: int, skipped: list[tuple[int, int]]) -> int | None:
    """The offset of the `}` that closes the `{` at brace, before end, counted in code (not in comments, literals
    or the `skipped` stretches: _skipped) and so in the last branch of each #if group that opens after brace (the one
    _one_branch_of_split_declarations keeps: 2.6.0 profiler/collection.cpp:800 closes its function under
    `#ifndef USE_KINETO` and goes on under `#else`); a #else of a group opened before brace ends the counting
    until its #endif. None when no `}` closes it."""
    src = f.src
    depth, i = 0, brace
    for stop, resume in skipped + [(end, end)]:
        for k in code_marks(src, BRACES, i, min(stop, end)):
            depth += 1 if src[k] == 0x7B else -1 if src[k] == 0x7D else 0
            if depth == 0:
                return k
        i = max(stop, resume)  # a literal that runs past stop ends in skipped text, whose end resumes the count
        if i >= end:
            break
    return None


def _skipped(f: SourceFile, start: int) -> list[tuple[int, int]]:
    """(from, to) of what the brace count skips from start to the file's end, in order: every preprocessor line, and
    each branch of an #if group (opened after start) but its last one, with what lies between a #else of a group
    opened before start and its #endif."""
    src, directives = f.src, f.scan.directives
    k = bisect.bisect_right(directives, (start, 1 << 62))
    out: list[tuple[int, int]] = []
    groups: list[list[int]] = []  # per open group: where each of its branches begins
    outer = None  # where a #else of a group opened before start began, until its #endif
    for at, after in directives[k:]:
        conditional = CONDITIONAL.match(src, at)
        kind = conditional.group(1) if conditional else b""
        if kind.startswith(b"if"):
            groups.append([at])
        elif kind in (b"else", b"elif") and outer is None:
            if groups:
                groups[-1].append(at)
            else:
                outer = at
        elif kind == b"endif":
            if groups:
                branches = groups.pop()
                if len(branches) > 1 and outer is None:
                    out.append((branches[0], branches[-1]))
            elif outer is not None:
                out.append((outer, after))
                outer = None
        out.append((at, after))
    out.sort()
    merged: list[tuple[int, int]] = []
    for a, b in out:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged



def in_block(node) -> bool:
    """A function_definition written in a block without a return type, not a constructor or destructor (`A::A`):
    C++ has none, so it is a statement tree-sitter misread, a call whose last argument ends in braces
    (`gpu_reduce_kernel<scalar_t, out_t, 2>(iter, ops, typename ops_t::acc_t{});`, ReduceMomentKernel.cu:20)
    or a macro loop (`CUDA_KERNEL_LOOP(i, n) {`), read as a declarator and a body: its arguments read as
    parameters that are types without names. One with a return type, or named parameters, is kept: an
    earlier parse error can leave real definitions inside a block."""
    parent = node.parent
    if parent is None or parent.type != "compound_statement" or node.child_by_field_name("type") is not None:
        return False  # a definition with a return type inside a block: an earlier parse error nested it there
    fd = node.child_by_field_name("declarator")
    name = fd.child_by_field_name("declarator") if fd is not None and fd.type == "function_declarator" else None
    if name is None or name.type not in ("template_function", "identifier", "qualified_identifier"):
        return False
    parts = split_scope(nospace(name.text.decode("utf-8", "replace")))
    if len(parts) > 1 and parts[-1].split("<", 1)[0].lstrip("~") == parts[-2].split("<", 1)[0]:
        return False
    # the arguments read as parameters are types without names (`(iter, ops)`); a constructor of a class body
    # an earlier error left in a block names its parameters (`PythonClassValue(ClassTypePtr type, ...)`)
    listed = fd.child_by_field_name("parameters")
    params = [c for c in listed.named_children if c.type != "comment"] if listed is not None else []
    return bool(params) and all(p.type == "parameter_declaration" and p.child_by_field_name("declarator") is None
                                for p in params) and not any(c.type == "field_initializer_list" for c in node.children)


def _definition(f: SourceFile, node) -> DefinitionFact | None:
    decl = node.child_by_field_name("declarator")
    fd = function_declarator(decl) if decl is not None else None
    if fd is None:
        return None
    inner = fd.child_by_field_name("declarator")
    if inner is None:
        return None
    if inner.type == "function_declarator":
        head = inner.child_by_field_name("declarator")
        if head is not None and dec(head.text) in STRUCTURED:
            return None  # handled from the macro site
    written = nospace(f.text(inner))
    if written in LIBRARY_MACROS or written in STRUCTURED:
        return None
    scope, is_template, in_class = scope_prefix(node, f)
    pieces = split_scope(written)
    owner = conversion_owner(node)
    if owner is not None:  # `inline Half::operator float() const`, read as the type `Half::operator`
        pieces = [*split_scope(owner), f"operator {written}"]
    quals = _qualifiers(f, node, decl)
    if "__global__" in quals:
        kind = DefinitionKind.GLOBAL_KERNEL
    elif any(q in quals for q in _DEVICE_QUALIFIERS):
        kind = DefinitionKind.DEVICE_FUNCTION
    elif in_class or (len(pieces) > 1 and (pieces[-2][:1].isupper() or pieces[-2].endswith(">"))):
        kind = DefinitionKind.METHOD
    else:
        kind = DefinitionKind.FUNCTION
    min_args, max_args = declarator_arity(fd)
    qualified = "::".join(scope + pieces)
    f.parameters[(qualified, node.start_point[0] + 1)] = parameter_names(fd)
    if (defaults := parameter_defaults(fd)):
        f.defaults[(qualified, node.start_point[0] + 1)] = defaults
    return DefinitionFact(
        name=pieces[-1].split("<", 1)[0] if not pieces[-1].startswith("operator") else pieces[-1],
        qualified_name=qualified,
        kind=kind,
        signature=norm(f.text(decl)) if owner is None else f"{owner}::operator {norm(f.text(decl))}",
        line=node.start_point[0] + 1,  # the first token after the blanked attribute macros
        end_line=node.end_point[0] + 1,
        is_template=is_template,
        qualifiers=quals,
        min_args=min_args,
        max_args=max_args,
        name_line=_other_line(inner.start_point[0] + 1, node.start_point[0] + 1),
        template_params=_template_params(node) if is_template else None,
        returns=return_type(node, fd) if owner is None else written,
        constrained=is_template and constrained(node, decl),
        loops=has_loop(f, node.child_by_field_name("body")),
    )


_PARAMETER_KINDS = ("parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration")


def parameter_names(fd) -> tuple[str | None, ...]:
    """The names a function_declarator's parameters declare, in order (None for an unnamed one): the identifier
    at the end of each declarator chain (`const func_t& f`, `void (*fn)(int)`, `Args&&... args`)."""
    params = fd.child_by_field_name("parameters")
    out: list[str | None] = []
    for p in params.named_children if params is not None else ():
        if p.type not in _PARAMETER_KINDS:
            continue
        node = p.child_by_field_name("declarator")
        while node is not None and node.type != "identifier":
            inner = node.child_by_field_name("declarator")
            node = inner if inner is not None else next(
                (c for c in reversed(node.named_children) if c.type == "identifier" or c.type.endswith("declarator")),
                None)
        out.append(dec(node.text) if node is not None else None)
    return tuple(out)


def parameter_defaults(fd) -> dict[int, str]:
    """The default values of a function_declarator's parameters, by position (as parameter_names counts them),
    spaces removed: {1: "at::kCPU"} for `(const Scalar& s, const Device device = at::kCPU)`."""
    params = fd.child_by_field_name("parameters")
    out: dict[int, str] = {}
    k = 0
    for p in params.named_children if params is not None else ():
        if p.type not in _PARAMETER_KINDS:
            continue
        if p.type == "optional_parameter_declaration" and (value := p.child_by_field_name("default_value")) is not None:
            out[k] = nospace(dec(value.text))
        k += 1
    return out


def forwarded_defaults(f: SourceFile) -> None:
    """calls.forwards: the arguments of each call that are a parameter of the caller with a default value, named
    alone (`scalar_to_tensor(scalar, device)` in 2.6.0 ScalarOps.h:48, wrapped_scalar_tensor's `device =
    at::kCPU`): where the caller's parameter is left to its default, so is the callee's that it fills."""
    if not f.defaults or not f.call_names:
        return
    spans = [(d.line, d.end_line, d.qualified_name, f.defaults[(d.qualified_name, d.line)], f.parameters.get(
        (d.qualified_name, d.line), ())) for d in f.definitions if (d.qualified_name, d.line) in f.defaults]
    for k, names in f.call_names.items():
        c = f.calls[k]
        for first, last, caller, defaults, params in spans:
            if c.caller != caller or not first <= c.line <= last:
                continue
            handed = [f"{at}:{params.index(name)}" for at, name in names
                      if name in params and params.index(name) in defaults]
            if handed:
                f.calls[k] = c._replace(forwards=",".join(handed))
            break


def called_parameters(f: SourceFile) -> None:
    """definitions.called_params: the parameters each definition's body calls by name (`out_impl(result, self)` in
    UnaryOps.cpp's unary_op_impl), and those it hands on by name to a function of the same file that calls its own
    parameter at that position: a call, a `<<<...>>>` launch, or the call of an object of the file's class made there
    (cuda/ScatterGatherKernel.cu:212 `_cuda_scatter_gather_internal_kernel<...>()(iter, ..., f)`, whose operator()
    runs `f(...)`). The function handed to is each of the file's definitions of the name (an object's: its class's
    operator()s) that can take the call's argument count, and each must call its parameter there; the file's own
    functions only, so that extraction stays one file's. A call tree-sitter cut at an ERROR is none. A caller that
    hands such a parameter a function or a functor object reaches it through it (indexer/link/edges.py)."""
    if not f.parameters:
        return
    by_caller: dict[str, list[tuple[int, int]]] = {}
    for k, c in enumerate(f.calls):
        if c.caller is not None:
            by_caller.setdefault(c.caller, []).append((c.line, k))
    found: list[tuple[int, tuple, set[str], list[tuple[str, int, int, str]]]] = []
    for i, d in enumerate(f.definitions):
        names = f.parameters.get((d.qualified_name, d.line))
        calls = by_caller.get(d.qualified_name) if names else None
        if not calls:
            continue
        own = set(names) - {None}
        called: set[str] = set()
        handed: list[tuple[str, int, int, str]] = []  # (what is called, its argument count, position, the parameter)
        for line, k in calls:
            if not d.line <= line <= d.end_line:
                continue
            c = f.calls[k]
            if c.callee == c.callee_name and c.callee in own and k not in f.damaged_calls:
                called.add(c.callee)
            handed.extend((c.callee_name, c.argc, at, name) for at, name in f.call_names.get(k, ()) if name in own)
        if called or handed:
            found.append((i, names, called, handed))
    by_name: dict[str, list[tuple[int, tuple, set[str]]]] = {}
    for i, names, called, _handed in found:
        d = f.definitions[i]
        by_name.setdefault(d.name, []).append((i, names, called))
        if d.name == "operator()" and len(parts := split_scope(d.qualified_name)) > 1:  # what `Class<...>()(...)`
            by_name.setdefault(parts[-2].split("<", 1)[0] + "()", []).append((i, names, called))  # calls: `Class()`
    while True:  # each round adds a parameter, or ends
        grew = False
        for _i, _names, called, handed in found:
            for callee, argc, at, name in handed:
                if name not in called and _calls_at(f, by_name.get(callee, ()), argc, at):
                    called.add(name)
                    grew = True
        if not grew:
            break
    for i, names, called, _handed in found:
        if called:
            f.definitions[i] = replace(f.definitions[i], called_params=json.dumps(
                [f"{name}:{k}" for k, name in enumerate(names) if name in called]))


def _calls_at(f: SourceFile, defined: list[tuple[int, tuple, set[str]]], argc: int, at: int) -> bool:
    """Whether the file's definitions of a name that can take argc arguments are some, and each calls its
    parameter at position `at` (called_parameters)."""
    fit = [(names, called) for i, names, called in defined
           if (d := f.definitions[i]).min_args <= argc and (d.max_args < 0 or argc <= d.max_args)]
    return bool(fit) and all(at < len(names) and names[at] in called for names, called in fit)


_LOOP_WORD = re.compile(rb"\b(?:for|while|do)\b")
_LOOPS = frozenset(("for_statement", "for_range_loop", "while_statement", "do_statement"))


def has_loop(f: SourceFile, body) -> bool:
    """Whether a function body holds a loop statement: each `for`, `while` or `do` word of its text (a cheap scan
    first) is asked of the tree, so that one in a comment, a string or a name does not count."""
    if body is None:
        return False
    for m in _LOOP_WORD.finditer(f.src, body.start_byte, body.end_byte):
        node = body.descendant_for_byte_range(m.start(), m.end())
        if node is not None and node.type in ("for", "while", "do") and node.parent is not None and \
                node.parent.type in _LOOPS:
            return True
    return False


def conversion_owner(node) -> str | None:
    """The class of an out-of-class conversion operator that tree-sitter reads with a storage class or
    qualifier before it (`inline C10_HOST_DEVICE Half::operator float() const`): it takes `Half::operator`
    for the return type and `float()` for the declarator. "Half" then (the declarator is the type converted
    to); None for any other definition. Written without one (`Half::operator float() const`), or inside
    its class, a conversion operator is an operator_cast, which no definition is made of."""
    t = node.child_by_field_name("type")
    if t is None or t.type != "qualified_identifier":
        return None
    name = t.child_by_field_name("name")
    if name is None or name.type != "type_identifier" or name.text != b"operator":
        return None
    written = nospace(dec(t.text))
    return written.removesuffix("::operator") if written.endswith("::operator") else None


def _template_params(node) -> tuple[str, ...] | None:
    """`name:kind` per parameter of its template head (template_params.py)."""
    found = template_parameters(node)
    return tuple(f"{name}:{kind}" for name, kind in found) if found is not None else None


def return_type(node, fd) -> str | None:
    """The declared return type (`auto f() -> T` gives T), normalised as receivers.py does; None for auto
    and decltype, and for constructors and destructors (no type)."""
    t = node.child_by_field_name("type")
    if t is not None and t.type == "placeholder_type_specifier":
        trailing = next((c for c in fd.children if c.type == "trailing_return_type"), None)
        t = trailing.named_children[0] if trailing is not None and trailing.named_children else None
        t = t.child_by_field_name("type") if t is not None and t.type == "type_descriptor" else t
    if t is None or t.type in ("placeholder_type_specifier", "decltype", "auto"):
        return None
    return normalised_type(t.text)


def _other_line(name_line: int, line: int) -> int:
    """name_line as stored: 0 when the name is on the definition's first line."""
    return 0 if name_line == line else name_line


def _qualifiers(f: SourceFile, node, decl) -> tuple[str, ...]:
    """The qualifiers written before the declarator, in the file as written (blanked attribute
    macros right before the definition are qualifiers of it)."""
    source, original = f.src, f.orig
    start = node.start_byte
    if source is not original:
        k = start
        while k > 0 and source[k - 1] in b" \t\r\n":
            k -= 1
        if k < start and original[k:start].strip():
            start = k + len(original[k:start]) - len(original[k:start].lstrip())
    head = dec(original[start : decl.start_byte])
    return tuple(dict.fromkeys(m.group(1) for m in _CUDA_QUALIFIERS.finditer(head)))


def structured(f: SourceFile, n, ancestors: tuple, macro: str, args: list[str], after: int, line: int) -> None:
    """A TORCH_META_FUNC* / TORCH_IMPL_FUNC site (n, the macro's identifier, and its nearest
    ancestors): its definition, from tree-sitter's function_definition when there is one,
    else from the braces of the text."""
    kind, method = STRUCTURED[macro]
    if not args:
        return
    base = nospace(args[0])
    overload = nospace(args[1]) if len(args) >= 2 and macro.endswith("2") else ""
    name = f"{base}.{overload}" if overload else base
    cls = naming.meta_struct(base, overload) if method == "meta" else naming.impl_struct(base)
    # the function_definition this macro heads, if tree-sitter found one
    defn = next((p for p in ancestors[:4] if p.type == "function_definition"), None)
    params = skip_space(f.src, after)
    parsed = f.scan.args(params)
    sig_end = parsed[1] if parsed else after
    if defn is not None:
        start, end, end_line = defn.start_byte, defn.end_byte, defn.end_point[0] + 1
        scope, _, _ = scope_prefix(defn, f)
    else:
        body_end = f.scan.body_end(sig_end)
        if body_end is None:
            return
        start, end, end_line = n.start_byte, body_end, f.line_of(body_end - 1)
        scope, _, _ = scope_prefix(n, f)
    qualified = "::".join(scope + [cls, method])
    min_args, max_args = text_arity(parsed[0]) if parsed else (0, 0)
    f.definitions.append(
        DefinitionFact(
            name=name,
            qualified_name=qualified,
            kind=kind,
            signature=norm(dec(f.src[n.start_byte : sig_end])),
            line=line,
            end_line=end_line,
            is_template=False,
            qualifiers=(),
            macro=macro,
            min_args=min_args,
            max_args=max_args,
        )
    )
    f.ranges.append((start, end, qualified))


def unshaped_kernels(f: SourceFile) -> None:
    """Phase: __global__ definitions tree-sitter did not shape, read from the text after the
    keyword. tree-sitter may have read the tail `name(...) {...}` as a plain function: that
    definition gives way to the kernel."""
    kernels = sorted((d.line, d.end_line) for d in f.definitions if d.kind == DefinitionKind.GLOBAL_KERNEL)
    starts = [a for a, _ in kernels]
    reach = []  # reach[k]: the furthest end_line of kernels[:k + 1]
    for _, e in kernels:
        reach.append(max(e, reach[-1]) if reach else e)
    found: list[DefinitionFact] = []
    found_reach = 0  # the furthest end_line of the kernels found here (their lines precede the keyword's)
    read_to = -1  # the text after an earlier keyword was read up to here, and held no kernel
    for tok in f.get("kernel.keyword"):
        line = tok.start_point[0] + 1
        k = bisect.bisect_right(starts, line) - 1
        if (k >= 0 and reach[k] >= line) or found_reach >= line:
            continue
        if tok.start_byte < read_to:
            continue
        d, stop = _text_kernel(f, tok)
        if d is None:
            read_to = stop
            continue
        found.append(d)
        found_reach = max(found_reach, d.end_line)
    if not found:
        return
    by_name: dict[str, list[DefinitionFact]] = {}
    for d in found:
        by_name.setdefault(d.name, []).append(d)
    f.definitions[:] = [
        x for x in f.definitions
        if x.kind == DefinitionKind.GLOBAL_KERNEL or not any(d.line <= x.line <= d.end_line for d in by_name.get(x.name, ()))
    ] + found


def _text_kernel(f: SourceFile, tok) -> tuple[DefinitionFact | None, int]:
    """A __global__ definition read from the text after the keyword, and where the reading stopped."""
    src = f.src
    i = tok.end_byte
    n = len(src)
    name_m = None
    while i < n:
        i = skip_space(src, i)
        if i < n and src[i] == 0x23:  # a preprocessor line inside the declaration
            j = src.find(b"\n", i)
            i = n if j < 0 else j
            continue
        m = _DECLARATOR_TOKEN.match(src, i)
        if m is None:
            break
        word = m.group(0)
        nxt = skip_space(src, m.end())
        if nxt < n and src[nxt] == 0x28 and word not in (b"__launch_bounds__",):
            name_m = (word, m.start(), nxt)
            break
        if nxt < n and src[nxt] == 0x28:
            parsed = f.scan.args(nxt)
            i = parsed[1] if parsed else n
            continue
        i = m.end()
    if name_m is None:
        return None, i
    word, name_start, paren = name_m
    parsed = f.scan.args(paren)
    if parsed is None:
        return None, paren
    end = f.scan.body_end(parsed[1])
    if end is None:
        return None, parsed[1]
    scope, _, _ = scope_prefix(tok, f)
    written = nospace(dec(word))
    head = src[max(0, tok.start_byte - 400) : tok.start_byte]
    min_args, max_args = text_arity(parsed[0])
    return DefinitionFact(
        name=split_scope(written)[-1],
        qualified_name="::".join(scope + split_scope(written)),
        kind=DefinitionKind.GLOBAL_KERNEL,
        signature=norm(dec(src[name_start : parsed[1]])),
        line=tok.start_point[0] + 1,
        end_line=f.line_of(end - 1),
        is_template=_TEMPLATE_HEAD.search(head) is not None,
        qualifiers=("__global__",),
        min_args=min_args,
        max_args=max_args,
        name_line=_other_line(f.line_of(name_start), tok.start_point[0] + 1),
    ), end
