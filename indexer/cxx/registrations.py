"""TORCH_LIBRARY / TORCH_LIBRARY_IMPL / TORCH_LIBRARY_FRAGMENT blocks and every m.impl / m.def /
m.fallback in them, also through the file's own macros.

A macro used in a block that the file's own macros do not turn into registrations (functorch's
VMAP_SUPPORT from BatchRulesHelper.h, autocast's X-macro lists of autocast_mode.h, ...) is a
RegistrationMacroUseFact: the dispatcher stage expands it with the macros of other files.
"""

from __future__ import annotations

import re

from ..vocab import RegistrationKind
from .arguments import string_value, strip_fn
from .facts import RegistrationFact, RegistrationMacroUseFact
from .preprocessor import expand_text
from .scan import ByteOffsets, balanced_args, dec, norm, nospace
from .sourcefile import SourceFile

_MEMBER_RE = re.compile(r"\b(\w+)\s*\.\s*(impl|def|fallback)\s*\(")


def registration(kind: RegistrationKind, block: tuple, args: list[str], line: int, via: str | None = None) -> RegistrationFact:
    macro, ns, key = block
    op = schema = function = None
    if kind == RegistrationKind.FALLBACK:
        function = strip_fn(args[0]) if args else None
    else:
        if args:
            v = string_value(args[0])
            if v is None:
                op = norm(args[0])
            elif "(" in v:
                schema = v
                op = v.split("(", 1)[0].strip()
            else:
                op = v
        rest = [a for a in args[1:] if not a.lstrip().startswith("{") and "Tag::" not in a]
        if rest:  # commas inside template arguments split an argument: join them back
            function = strip_fn(", ".join(rest))
    return RegistrationFact(kind, macro, ns, key, op, schema, function, line, via)




def registrations(f: SourceFile) -> None:
    """Phase: the facts of every TORCH_LIBRARY* block the macro sites phase found."""
    if not f.library_blocks:
        return
    reg_macros = f.local
    # the file's macros that expand, with the file's macros alone, to a registration call
    usable = {k: d for k, d in reg_macros.items() if _MEMBER_RE.search(expand_text(d.body, reg_macros))}
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(k.encode()) for k in usable) + rb")\s*\(") if usable else None
    for _n, ancestors, macro, args, after, line in f.library_blocks:
        if not args:
            continue
        ns = nospace(args[0])
        key = nospace(args[1]) if macro == "TORCH_LIBRARY_IMPL" and len(args) > 2 else None
        var = nospace(args[-1])
        block = (macro, ns, key)
        f.registrations.append(RegistrationFact(RegistrationKind.BLOCK, macro, ns, key, None, None, None, line))
        rng = _block_body(f, ancestors, after)
        if rng is None:
            continue
        seen = set()
        for off, node, obj, field in f.member_calls:
            if rng[0] <= off < rng[1] and obj == var:
                seen.add(off)
                a = node.child_by_field_name("arguments")
                parsed = f.orig_scan.args(a.start_byte) if a is not None else None
                f.registrations.append(registration(RegistrationKind(field), block, parsed[0] if parsed else [],
                                                     node.start_point[0] + 1))
        _unparsed_calls(f, rng, block, var, seen)
        if pattern is not None:
            _macro_registrations(f, pattern, rng, block, reg_macros)
        _macro_uses(f, rng, block, var, usable)


def _unparsed_calls(f: SourceFile, rng: tuple[int, int], block: tuple, var: str, seen: set[int]) -> None:
    """`m.impl(...)` calls of the block that tree-sitter did not parse as calls (after a macro use
    without a semicolon, `AT_FORALL_X(K) m.impl(...)` reads as one declaration), from the text."""
    pattern = re.compile(rb"\b" + re.escape(var.encode()) + rb"\s*\.\s*(impl|def|fallback)\s*\(")
    for m in pattern.finditer(f.orig, rng[0], rng[1]):
        if m.start() in seen or f.in_skip(m.start()) or (m.start() > 0 and f.orig[m.start() - 1:m.start()] in (b".", b">")):
            continue
        parsed = f.orig_scan.args(m.end() - 1)
        f.registrations.append(registration(RegistrationKind(dec(m.group(1))), block, parsed[0] if parsed else [],
                                            f.line_of(m.start())))


def _block_body(f: SourceFile, ancestors: tuple, after: int) -> tuple[int, int] | None:
    """The body range of a block (the macro's nearest ancestors given): tree-sitter's
    function_definition, else braces in the text."""
    for p in ancestors[:3]:
        if p.type == "function_definition":
            body = p.child_by_field_name("body")
            if body is not None:
                return body.start_byte, body.end_byte
            break
    end = f.scan.body_end(after)
    return None if end is None else (after, end)


def _macro_registrations(f: SourceFile, pattern, rng: tuple[int, int], block: tuple, reg_macros) -> None:
    macro, ns, key = block
    for m in pattern.finditer(f.orig, rng[0], rng[1]):
        if m.start() in f.define_names or (m.start() > 0 and f.orig[m.start() - 1 : m.start()] in (b".", b">")) or f.in_skip(m.start()):
            continue
        parsed = f.orig_scan.args(m.end() - 1)
        if parsed is None:
            continue
        name = dec(m.group(1))
        expanded = expand_text(f"{name}({', '.join(parsed[0])})", reg_macros)
        ln = f.line_of(m.start())
        src = expanded.encode()
        offsets = ByteOffsets(expanded)
        for mm in _MEMBER_RE.finditer(expanded):
            inner = balanced_args(src, offsets.of(mm.end() - 1))
            f.registrations.append(registration(RegistrationKind(mm.group(2)), block, inner[0] if inner else [], ln, via=name))


_CALL_RE = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")
# Words followed by `(` that are no macro use: statements and operators of C++.
_NOT_MACROS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "alignof", "decltype", "catch",
                         "static_assert", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"})


def _macro_uses(f: SourceFile, rng: tuple[int, int], block: tuple, var: str, local: dict) -> None:
    """The uses, in the block's statements (not inside another call's arguments), of names the
    file's own macros do not expand to registrations: calls `name(...)` not written as a member
    (`m.impl`, `x->f`) or qualified (`ns::f`)."""
    macro, ns, key = block
    after = rng[0]
    for m in _CALL_RE.finditer(f.orig, rng[0], rng[1]):
        if m.start() < after or f.in_skip(m.start()) or m.start() in f.define_names:
            continue
        parsed = f.orig_scan.args(m.end() - 1)
        if parsed is None:
            continue
        args, after = parsed
        name = dec(m.group(1))
        before = f.orig[max(rng[0], m.start() - 2):m.start()].rstrip()
        if name in _NOT_MACROS or name in local or before.endswith((b".", b"->", b"::")):
            continue
        f.registration_macro_uses.append(RegistrationMacroUseFact(macro, ns, key, var, name,
                                                                  tuple(norm(a) for a in args), f.line_of(m.start())))
