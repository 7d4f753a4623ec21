"""Constants declared at namespace scope (`constexpr ScalarType kLong = ScalarType::Long;`,
`constexpr DeviceType kCPU = DeviceType::CPU;`): what an argument written `at::kLong` or `kCPU` is, so that
the link stage can pick among overloads by it (`options().dtype(at::kLong)`: dtype(optional<ScalarType>)).

A constant is a variable declared outside every function and class, in a namespace, `extern "C"` block or
`#if` branch, `const` or `constexpr` or not (`constant` says which): one ConstantFact per declarator, its type
written as receivers.py
normalises one (`*` added for a pointer declarator); an `auto` one keeps `decltype(<initializer>)` when the
initializer is a name (`constexpr auto kStrided = Layout::Strided;`), which the link stage types. A use at
namespace scope of one of the file's own function-like macros that expands to such declarations
(`AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS(DEFINE_CONSTANT)` in c10/core/ScalarType.h) is expanded with
the file's macros and its declarations are read from the expansion, at the use's line and scope, `macro`
naming the macro used. A mutable variable types what names it as a constant does: a receiver
(`num_intraop_threads.load()` on a `std::atomic<int>`, ParallelNative.cpp) or an argument (`tensor_assign`, a
`static TensorAssign` in cpu/ScatterGatherKernel.cpp, which binds the template parameter it is passed for).
A declaration whose type is written in capitals and underscores only is a macro's use that tree-sitter reads as one
(`C10_DEFINE_REGISTRY(...)`), not a variable.
"""

from __future__ import annotations

import re

from .expansions import macro_use_sites
from .facts import ConstantFact
from .preprocessor import expand_text
from .receivers import normalised_type
from .scan import dec, nospace
from .scopes import scope_prefix
from .sourcefile import SourceFile
from .trees import tools

_CONTAINERS = ("namespace_definition", "linkage_specification", "preproc_if", "preproc_ifdef", "preproc_else",
               "preproc_elif", "preproc_elifdef")
_CONSTANT = (b"const", b"constexpr")
_NAMES = ("identifier", "qualified_identifier")
_MACRO_LIKE = re.compile(rb"[A-Z][A-Z0-9_]*")
_EXPANSION_LIMIT = 20_000  # characters of one use's expansion read for declarations


def constants(f: SourceFile) -> None:
    """Phase: the file's namespace-scope constants, then those its own macros' uses declare."""
    for decl, scope in _declarations(f.root, f):
        f.constants.extend(_read(decl, scope, decl.start_point[0] + 1, None))
    if f.local:
        _macro_constants(f)


def _declarations(root, f: SourceFile | None):
    """The declarations outside every function and class below root, in the text's order, with their scopes
    (empty without f: a macro's expansion, whose scope is its use's). A walk with its own stack: `#if`
    blocks and namespaces nest as deep as a file writes them."""
    stack = [iter(root.named_children)]
    while stack:
        c = next(stack[-1], None)
        if c is None:
            stack.pop()
        elif c.type == "declaration":
            yield c, scope_prefix(c, f)[0] if f is not None else []
        elif c.type in _CONTAINERS or c.type == "declaration_list":
            body = c.child_by_field_name("body") if not c.type.startswith("preproc") else None
            stack.append(iter((body if body is not None else c).named_children))


def _read(decl, scope: list[str], line: int, macro: str | None) -> list[ConstantFact]:
    """The declaration's variables: one per declarator."""
    constant = any(q.type == "type_qualifier" and q.text in _CONSTANT for q in decl.children)
    kind = decl.child_by_field_name("type")
    if kind is None or (not constant and _MACRO_LIKE.fullmatch(kind.text) is not None):
        return []
    is_auto = kind.type == "placeholder_type_specifier"
    written = None if is_auto else normalised_type(kind.text)
    out = []
    for d in decl.children_by_field_name("declarator"):
        value = d.child_by_field_name("value") if d.type == "init_declarator" else None
        if d.type == "init_declarator":
            d = d.child_by_field_name("declarator")
        pointer = False
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            pointer = pointer or d.type == "pointer_declarator"
            d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
        if d is None or d.type != "identifier":
            continue  # an array, a function declaration, a qualified definition of a class's static member
        t = written
        if is_auto:
            t = f"decltype({nospace(dec(value.text))})" if value is not None and value.type in _NAMES else None
        if t:
            name = dec(d.text)
            out.append(ConstantFact(name, "::".join([*scope, name]), t + "*" if pointer and not is_auto else t,
                                    line, macro, constant))
    return out


def _macro_constants(f: SourceFile) -> None:
    """The constants that uses of the file's own function-like macros at namespace scope declare."""
    names = {k for k, d in f.local.items() if d.params is not None}
    if not names:
        return
    parser = None
    for m, name, n in macro_use_sites(f, names, in_function=False):
        if n.parent is None or n.parent.type != "call_expression" or \
                n.parent.parent is None or n.parent.parent.type != "expression_statement":
            continue  # a use that is a statement of its own at namespace scope
        parsed = f.orig_scan.args(m.end() - 1)
        if parsed is None:
            continue
        args, _end = parsed
        text = expand_text(f"{name}({', '.join(args)})", f.local)
        if len(text) > _EXPANSION_LIMIT or not any(q.decode() in text for q in _CONSTANT):
            continue
        parser = parser or tools(f.language)[0]
        scope = scope_prefix(n, f)[0]
        line = f.line_of(m.start())
        for decl, _ in _declarations(parser.parse(text.encode()).root_node, None):
            f.constants.extend(_read(decl, scope, line, name))
