"""Macro sites: TORCH_META_FUNC* / TORCH_IMPL_FUNC, TORCH_LIBRARY* blocks and the DispatchStub
family (stubs.StubMacros), found as whole words in the text and kept where tree-sitter has an
identifier (comments, strings and #define bodies are not identifiers, so they drop out).
"""

from __future__ import annotations

import re

from ..naming import STUB_SUFFIX
from .arguments import strip_ref
from .definitions import LIBRARY_MACROS, STRUCTURED, structured
from .facts import StubFact
from .scan import nospace, norm, skip_space, dec
from .sourcefile import SourceFile
from .stubs import stub_lookup

# Macro sites: whole words TORCH_META_FUNC(2), TORCH_PRECOMPUTE_META_FUNC(2),
# TORCH_IMPL_FUNC, TORCH_LIBRARY(_IMPL|_FRAGMENT), and [A-Z][A-Z0-9_]*_DISPATCH.
# Found from their literal tails (a scan that starts with a literal is fast)
# and extended to the whole word.
_SITE_TAILS = (
    re.compile(rb"TORCH_(?:PRECOMPUTE_META_FUNC2?|META_FUNC2?|IMPL_FUNC|LIBRARY(?:_IMPL|_FRAGMENT)?)(?!\w)"),
    re.compile(rb"_DISPATCH(?!\w)"),
)
_SITE_WORDS = frozenset(
    w + s for w in (b"TORCH_META_FUNC", b"TORCH_PRECOMPUTE_META_FUNC") for s in (b"", b"2")
) | {b"TORCH_IMPL_FUNC", b"TORCH_LIBRARY", b"TORCH_LIBRARY_IMPL", b"TORCH_LIBRARY_FRAGMENT"}
_UPPER_WORD = re.compile(rb"[A-Z][A-Z0-9_]*")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_STUB_TAIL = re.compile(re.escape(STUB_SUFFIX.encode()) + rb"\b")


def _macro_site_spans(source: bytes) -> list[tuple[int, int]]:
    out = []
    for tail in _SITE_TAILS:  # a word ends in at most one of them
        for m in tail.finditer(source):
            a, b = m.start(), m.end()
            while a > 0 and source[a - 1] in _WORD_BYTES:
                a -= 1
            word = source[a:b]
            if word in _SITE_WORDS or (word.endswith(b"_DISPATCH") and _UPPER_WORD.fullmatch(word)):
                out.append((a, b))
    out.sort()
    return out


def stub_name_spans(source: bytes) -> list[tuple[int, int]]:
    out = []
    for m in _STUB_TAIL.finditer(source):
        a, b = m.start(), m.end()
        while a > 0 and (chr(source[a - 1]).isalnum() or source[a - 1] == 0x5F):
            a -= 1
        if a != m.start():
            out.append((a, b))
    return out


IDENTIFIERS = frozenset({"identifier", "type_identifier", "field_identifier", "namespace_identifier"})


def identifier_nodes(root, spans: list[tuple[int, int]]) -> list[tuple]:
    """(node, its nearest ancestors, parent first: up to 5) of the identifier nodes that span
    exactly the given byte ranges (comments, strings and #define bodies are not identifiers,
    so they drop out).

    One tree cursor moves from span to span in document order (on to a later sibling, or
    up to the node that holds the next span, then down): Node.parent and a lookup from the
    root each cost the node's depth, and finding a child the number of its siblings, which
    in a deeply nested or a wide damaged file made every span cost the whole file."""
    out = []
    cursor = root.walk()
    path = [cursor.node]  # the cursor's node and its ancestors, root first
    for a, b in sorted(spans):
        while len(path) > 1 and not (path[-1].start_byte <= a and path[-1].end_byte >= b):
            if path[-1].end_byte <= a:  # a later sibling may hold the span: on, not down again
                while cursor.goto_next_sibling():
                    path[-1] = cursor.node
                    if path[-1].end_byte > a:
                        break
                if path[-1].start_byte <= a and path[-1].end_byte >= b:
                    break
            cursor.goto_parent()
            path.pop()
        while cursor.goto_first_child_for_byte(a) is not None:
            n = cursor.node
            if not (n.start_byte <= a and n.end_byte >= b):
                cursor.goto_parent()
                break
            path.append(n)
        n = path[-1]
        if n.start_byte == a and n.end_byte == b and n.type in IDENTIFIERS:
            out.append((n, tuple(reversed(path[-6:-1]))))
    return out


def macro_sites(f: SourceFile) -> None:
    """Phase: structured kernels and stub macros become facts; TORCH_LIBRARY* blocks are kept
    for the registrations phase."""
    lookup, stub_names = stub_lookup(f.macros)
    for n, ancestors in identifier_nodes(f.root, _macro_site_spans(f.src)):
        p = ancestors[0] if ancestors else None
        if p is not None and p.type.startswith("preproc_") and p.type not in _PREPROC_CODE:
            continue
        name = dec(n.text)
        parsed = f.scan.args(skip_space(f.src, n.end_byte))
        if parsed is None:
            continue
        args, after = parsed
        line = n.start_point[0] + 1
        if name in STRUCTURED:
            structured(f, n, ancestors, name, args, after, line)
        elif name in LIBRARY_MACROS:
            f.library_blocks.append((n, ancestors, name, args, after, line))
        elif name in stub_names:
            f.stubs.extend(_stub_facts(lookup.get((f.context, name), ()), name, args, line,
                                       "::".join(f.namespaces_at(n.start_byte))))


_PREPROC_CODE = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif")  # preprocessor nodes that hold code


def _stub_facts(expansions, macro: str, args: list[str], line: int, scope: str) -> list[StubFact]:
    out = []
    for e in expansions:
        if e.stub_arg >= len(args):
            continue
        kernel = None
        if e.fn_arg is not None and e.fn_arg < len(args):
            kernel = strip_ref(args[e.fn_arg])
        null = e.is_nullptr or kernel in ("nullptr", "NULL")
        out.append(
            StubFact(
                kind=e.kind,
                macro=macro,
                stub=nospace(args[e.stub_arg]),
                line=line,
                device=e.device,
                arch=args[e.arch_arg].strip() if e.arch_arg is not None and e.arch_arg < len(args) else e.arch,
                kernel=None if null else kernel,
                is_nullptr=null,
                fn_type=norm(args[e.type_arg]) if e.type_arg is not None and e.type_arg < len(args) else None,
                scope=scope,
            )
        )
    return out
