"""Definitions written through the file's own macros (`CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, acos_stub)`):
the uses are expanded and extracted as one snippet, and the facts are moved back to the use.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterator
from dataclasses import replace

from tree_sitter import Node

from .facts import CxxFacts, DefinitionMacroUseFact
from .preprocessor import Define, expand_text
from .scan import dec, norm
from .scopes import scope_prefix
from .sites import IDENTIFIERS
from .sourcefile import SourceFile

_WORD = re.compile(r"\w+")
_BODY_HOLDERS = ("compound_statement", "initializer_list", "argument_list", "preproc_function_def", "preproc_def")


def macro_definitions(f: SourceFile, extract_snippet, shared: dict[str, Define] | None = None) -> CxxFacts | None:
    """Facts of the functions that uses of the file's own macros define.

    A use at namespace (or class) scope of a function-like #define whose
    expansion holds a body (`CREATE_UNARY_FLOAT_META_FUNC(acos)` ->
    `TORCH_META_FUNC(acos) (const Tensor& self) {...}`) is expanded with the
    file's macros and the expansions are extracted as one snippet. So is an
    X-macro list applied to such a definer (`AT_FORALL_SCALAR_TYPES(DEFINE_CAST)`):
    with the file's macros when the list is the file's own, else with `shared`
    (the other files' #defines the build found for it, shared_macros.py); each
    such use of a list the file does not define is recorded in
    f.definition_macro_uses, with the hash of `shared` when it was expanded.
    Every fact then takes the use's place: scope of the use prepended to
    qualified names and callers, line = the use's line (end_line = where the
    use ends), `macro` = the macro used. Only facts inside an expanded function
    are kept, and the DispatchStub sites of the expansion (a definer that registers the kernel it
    defines: cpu/UnaryOpsKernel.cpp's IMPLEMENT_COMPLEX_KERNEL_WITHOUT_AVX512(sin)). extract_snippet(source) extracts the snippet (without expanding it again).
    """
    definers = _definers(f.local)
    if not definers:
        return None
    lists = _list_uses(f, definers)
    tag = shared_hash(shared) if shared else None
    for _, name, args, line, _ in lists:
        if name not in f.local:
            f.definition_macro_uses.append(
                DefinitionMacroUseFact(name, tuple(args), line, tag if name in (shared or {}) else None))
    pieces, uses = _expanded_uses(f, definers, lists, shared or {})
    if not uses:
        return None
    return _moved(f, extract_snippet("\n".join(pieces).encode()), uses)


def shared_hash(shared: dict[str, Define]) -> str:
    """A short hash of the other files' #defines a file is extracted with (order does not count)."""
    h = hashlib.sha256()
    for name in sorted(shared):
        d = shared[name]
        h.update(repr((name, d.params, d.body)).encode() + b"\0")
    return h.hexdigest()[:16]


def _definers(local) -> set[str]:
    """The file's macros whose expansion holds a body, and the macros that expand to one of them."""
    definers = {k for k, d in local.items() if d.writes_body}
    if not definers:
        return definers
    words = {k: set(_WORD.findall(d.body)) for k, d in local.items() if k not in definers and d.params is not None}
    while True:
        more = {k for k, w in words.items() if k not in definers and not w.isdisjoint(definers)}
        if not more:
            return definers
        definers |= more


def _list_uses(f: SourceFile, definers: set[str]) -> list[tuple[int, str, list[str], int, int]]:
    """The uses outside every function of a macro that is not a definer with a definer as one of its
    arguments (`AT_FORALL_QINT_TYPES(DEFINE_CAST)`), as (offset, name, arguments, line, end line), in
    the file's order. Uses of definers themselves are macro_use_sites'."""
    src = f.orig
    bare = re.compile(rb"\b(" + b"|".join(re.escape(k.encode()) for k in sorted(definers)) + rb")\b(?!\s*\()")
    seen: dict[int, tuple[int, str, list[str], int, int]] = {}
    for m in bare.finditer(src):
        a = m.start()
        if a in f.define_names or f.in_skip(a) or f.in_define(a) or f.caller_at(a) is not None:
            continue
        call = _enclosing_call(src, a)
        if call is None or call[0] in seen:
            continue
        start, paren = call
        name = dec(src[start:paren]).strip()
        if name in definers or (start > 0 and src[start - 1] in b".>:"):
            continue
        parsed = f.orig_scan.args(paren)
        if parsed is None:
            continue
        args, end = parsed
        args = [norm(x) for x in args]
        if m.group(1).decode() not in args:
            continue
        seen[start] = (start, name, args, f.line_of(start), f.line_of(end - 1))
    return sorted(seen.values())


_IDENT_END = re.compile(rb"([A-Za-z_]\w*)\s*$")


def _enclosing_call(src: bytes, at: int, reach: int = 4000) -> tuple[int, int] | None:
    """(offset of the name, offset of the open parenthesis) of the `NAME(` whose arguments hold offset at;
    None when a `;` or brace comes first, or no name is written before the parenthesis."""
    depth = 0
    i = at - 1
    low = max(0, at - reach)
    while i >= low:
        c = src[i]
        if c == 0x29:  # )
            depth += 1
        elif c == 0x28:  # (
            if depth == 0:
                break
            depth -= 1
        elif c in b";{}":
            return None
        i -= 1
    else:
        return None
    m = _IDENT_END.search(src, max(0, i - 200), i)
    if m is None:
        return None
    return m.start(1), i


def _expanded_uses(f: SourceFile, definers: set[str], lists: list[tuple], shared: dict[str, Define]) \
        -> tuple[list[str], list[tuple]]:
    """The expansions of the uses at namespace or class scope, and per use
    (first snippet line, line, end_line, scope, macro)."""
    found: list[tuple[int, str, list[str], int, Node, dict[str, Define]]] = []
    for m, name, n in macro_use_sites(f, definers, in_function=False):
        a = m.start()
        p = n.parent
        # a brace of a #define tree-sitter could not shape opens a block of its own: not a body; nor does the body
        # tree-sitter gave a definer's use it misread as a function (definitions.parsed_definitions drops it)
        while p is not None and (p.type not in _BODY_HOLDERS or f.in_define(p.start_byte)
                                 or _misread_body(p, definers)):
            p = p.parent
        if p is not None:  # inside a body tree-sitter did not shape as a definition
            continue
        parsed = f.orig_scan.args(m.end() - 1)
        if parsed is None:
            continue
        args, end = parsed
        found.append((a, name, args, f.line_of(end - 1), n, f.local))
    both = {**shared, **f.local}
    for a, name, args, _, end_line in lists:
        if name in f.local or name in shared:
            n = f.root.named_descendant_for_byte_range(a, a + len(name))
            if n is not None:
                found.append((a, name, args, end_line, n, both))
    pieces: list[str] = []
    uses: list[tuple[int, int, int, list[str], str]] = []
    snippet_line = 1
    for a, name, args, end_line, n, defines in sorted(found, key=lambda u: u[0]):
        text = expand_text(f"{name}({', '.join(args)})", defines)
        if "{" not in text:
            continue
        scope, _, _ = scope_prefix(_outside_misread(n, definers), f)
        uses.append((snippet_line, f.line_of(a), end_line, scope, name))
        pieces.append(text)
        snippet_line += text.count("\n") + 1
    return pieces, uses


def _plain_name(definition: Node) -> str | None:
    """The name of a function_definition declared `NAME(...)`, a bare identifier: what tree-sitter makes of a
    macro's use followed by a body (`DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, ...) {`); else None."""
    fd = definition.child_by_field_name("declarator")
    named = fd.child_by_field_name("declarator") if fd is not None and fd.type == "function_declarator" else None
    return dec(named.text) if named is not None and named.type == "identifier" else None


def _misread_body(node: Node, definers: set[str]) -> bool:
    """Whether node is the body tree-sitter gave a use of a definer it read as a function named by the macro."""
    parent = node.parent
    return node.type == "compound_statement" and parent is not None and parent.type == "function_definition" \
        and _plain_name(parent) in definers


def _outside_misread(node: Node, definers: set[str]) -> Node:
    """The function tree-sitter misread from a definer's use that node is in (its scope is the use's), else node."""
    out, p = node, node.parent
    while p is not None:
        if p.type == "function_definition" and any(_misread_body(c, definers) for c in p.children):
            out = p
        p = p.parent
    return out


def macro_use_sites(f: SourceFile, names: set[str], in_function: bool) -> Iterator[tuple[re.Match, str, Node]]:
    """The uses `NAME(` of the given macros of the file, as (match, name, identifier node): not a #define's
    own name, not in a comment, string or another #define's body, not written as a member or a qualified
    name, and inside a function's range when in_function, else outside every function."""
    src = f.orig
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(k.encode()) for k in sorted(names)) + rb")\s*\(")
    for m in pattern.finditer(src):
        a = m.start()
        if a in f.define_names or f.in_skip(a) or f.in_define(a):
            continue
        if a > 0 and src[a - 1] in b".>:":
            continue  # a member or a qualified name, not the macro
        if (f.caller_at(a) is not None) != in_function:
            continue
        n = f.root.named_descendant_for_byte_range(a, a + len(m.group(1)))
        if n is None or n.type not in IDENTIFIERS or n.start_byte != a:
            continue
        yield m, dec(m.group(1)), n


def _use_at(uses: list[tuple], starts: list[int], line: int) -> tuple:
    """The use whose expansion a snippet line is in (uses start with their first snippet line, `starts`)."""
    return uses[max(0, bisect.bisect_right(starts, line) - 1)]


def _moved(f: SourceFile, sub: CxxFacts, uses: list[tuple], lines: bool = False) -> CxxFacts:
    """The snippet's facts at their uses' places: each at its use's line (uses: (first snippet line, line,
    end_line, scope, macro, ...)), or with `lines` at the file's line its snippet line was taken from (a head
    macro's use is extracted with its body below it, line for line: head_macro_definitions)."""
    starts = [u[0] for u in uses]

    def use_of(line: int):
        return _use_at(uses, starts, line)

    def at(line: int, use: tuple) -> int:
        return use[1] + line - use[0] if lines else use[1]

    def qualify(scope: list[str], name: str) -> str:
        return "::".join(scope + [name])

    definitions = []
    for d in sub.definitions:
        use = use_of(d.line)
        where = dict(line=at(d.line, use), end_line=at(d.end_line, use),
                     name_line=d.name_line and at(d.name_line, use)) if lines else dict(line=use[1], end_line=use[2])
        definitions.append(replace(d, qualified_name=qualify(use[3], d.qualified_name), macro=use[4], **where))

    def moved(facts, launch: bool = False):
        out = []
        for x in facts:
            if x.caller is None:
                continue
            use = use_of(x.line)
            changes = dict(caller=qualify(use[3], x.caller), line=at(x.line, use))
            if lines and getattr(x, "lambda_line", None):
                changes["lambda_line"] = at(x.lambda_line, use)
            elif launch and not lines:
                changes.update(macro=use[4], lambda_line=x.lambda_line and use[1])
            out.append(x._replace(**changes) if isinstance(x, tuple) else replace(x, **changes))
        return out

    stubs = []  # a definer that registers what it defines: `REGISTER_DISPATCH(op##_stub, &CPU_CAPABILITY::op##_kernel)`
    for x in sub.stubs:
        use = use_of(x.line)
        stubs.append(replace(x, line=at(x.line, use), scope="::".join(use[3] + ([x.scope] if x.scope else []))))

    return CxxFacts(
        f.path,
        f.language,
        definitions=tuple(definitions),
        stubs=tuple(stubs),
        stub_uses=tuple(moved(sub.stub_uses)),
        calls=tuple(moved(sub.calls)),
        launches=tuple(moved(sub.launches, launch=True)),
        dtype_dispatches=tuple(moved(sub.dtype_dispatches)),
        library_calls=tuple(moved(sub.library_calls)),
    )


_STATEMENT_WORDS = frozenset(("for", "if", "while", "switch", "do", "return", "else", "case"))


def head_macros(local: dict[str, Define]) -> set[str]:
    """The file's function-like macros that write a function's head and no body: the body follows each use
    (2.6.0 flash_attn/flash_fwd_launch_template.h:31 `DEFINE_FLASH_FORWARD_KERNEL(kernelName, ...)`, which
    writes `template<typename Kernel_traits, __VA_ARGS__> __global__ void kernelName(...)`). Not a statement's head
    (`CUDA_KERNEL_LOOP(i, n)`, a `for (...)`)."""
    out = set()
    for name, d in local.items():
        body = d.body.strip()
        first = _WORD.match(body)
        if d.params is not None and "{" not in body and body.endswith(")") and first is not None \
                and first.group() not in _STATEMENT_WORDS:
            out.add(name)
    return out


def head_macro_definitions(f: SourceFile, extract_snippet) -> CxxFacts | None:
    """The functions whose head a use of the file's own macro writes, the body written after the use, which
    tree-sitter reads as a function named by the macro (`DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, bool
    Is_dropout, ...) {`: pytorch_flash::DEFINE_FLASH_FORWARD_KERNEL). Each use is expanded, on one line, and
    extracted with its body below it, line for line, so that its facts keep their lines; they replace the facts
    of the misread function (its definition, and the calls, launches, dtype sets, stub uses and vendor calls
    written in it). A use whose expansion yields no definition keeps what tree-sitter read."""
    heads = head_macros(f.local)
    if not heads:
        return None
    misread = {(d.line, d.name): d for d in f.definitions if d.name in heads}
    if not misread:
        return None
    pieces: list[str] = []
    uses: list[tuple] = []
    snippet_line = 1
    for node in f.get("definition"):
        name = _plain_name(node)
        body = node.child_by_field_name("body")
        if name is None or body is None:
            continue
        line = f.line_of(node.start_byte)
        d = misread.get((line, name))
        if d is None:
            continue
        params = node.child_by_field_name("declarator").child_by_field_name("parameters")  # (_plain_name's)
        parsed = f.orig_scan.args(params.start_byte)
        if parsed is None:
            continue
        args, _end = parsed
        head = " ".join(expand_text(f"{name}({', '.join(norm(a) for a in args)})", f.local).split())
        gap = f.line_of(body.start_byte) - line  # the lines the use's arguments take: kept, so the body's stay
        text = head + "\n" * gap + " " + dec(f.src[body.start_byte:body.end_byte])
        scope, _, _ = scope_prefix(node, f)
        uses.append((snippet_line, line, d.end_line, scope, name, d))
        pieces.append(text)
        snippet_line += text.count("\n") + 1
    if not uses:
        return None
    sub = extract_snippet("\n".join(pieces).encode())
    starts = [u[0] for u in uses]
    found = {_use_at(uses, starts, d.line)[5].line for d in sub.definitions}
    kept = [u for u in uses if u[5].line in found]
    if not kept:
        return None
    _drop_misread(f, [u[5] for u in kept])
    return _moved(f, sub, uses, lines=True)


def _drop_misread(f: SourceFile, misread: list) -> None:
    """Remove the definitions tree-sitter misread and the facts written in them (by caller and line)."""
    gone = {(d.qualified_name, d.line) for d in misread}
    spans = [(d.qualified_name, d.line, d.end_line) for d in misread]

    def inside(x) -> bool:
        return any(x.caller == q and a <= x.line <= b for q, a, b in spans)

    f.definitions[:] = [d for d in f.definitions if (d.qualified_name, d.line) not in gone]
    for facts in (f.calls, f.launches, f.stub_uses, f.dtypes, f.libcalls):
        facts[:] = [x for x in facts if not inside(x)]
