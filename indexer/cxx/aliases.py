"""Kernel aliases: a variable or array that holds kernels or function pointers, later called or
launched in the same function (or anywhere in the file, for one at namespace scope):

    auto kernel = cond ? k1<float> : k2<float>;      kernel = foo<scalar_t, 4>;   (in a switch)
    static const fn_t kernels[] = {a, b, c};         void (*fn)(int) = &bar;

The targets are the names written, template arguments stripped and `&` dropped; calls and other
expressions among them are not names. Only values with at least one name are recorded.
"""

from __future__ import annotations

import re

from .facts import KernelAliasFact
from .scan import dec, nospace
from .sourcefile import SourceFile

_CALLED = re.compile(r"[(*]*([A-Za-z_]\w*)\)?(?:\[.*\])?")
_DECLARED = re.compile(r"[A-Za-z_]\w*")
_NAMES = ("identifier", "qualified_identifier", "template_function")
_WRAPPERS = ("conditional_expression", "initializer_list", "pointer_expression", "parenthesized_expression")
_NOT_NAMES = frozenset(("nullptr", "NULL", "true", "false"))


def kernel_aliases(f: SourceFile) -> None:
    """Phase (after calls and launches): the aliases whose variable is then called or launched."""
    inits, assigns = f.get("alias.init"), f.get("alias.assign")
    if not inits and not assigns:
        return
    called: dict[str, list[tuple[str | None, int]]] = {}
    for c in f.calls:
        m = _CALLED.fullmatch(c.callee)
        if m is not None:
            called.setdefault(m.group(1), []).append((c.caller, c.line))
    if not called:
        return
    for node, target_field in [(n, "value") for n in inits] + [(n, "right") for n in assigns]:
        holder = node.child_by_field_name("declarator" if target_field == "value" else "left")
        if holder is None:
            continue
        m = _DECLARED.search(dec(holder.text).lstrip("(*&"))
        uses = called.get(m.group(0)) if m is not None else None
        if not uses:
            continue
        caller, line = f.caller_at(node.start_byte), node.start_point[0] + 1
        if not any(caller is None or (c == caller and l >= line) for c, l in uses):
            continue
        value = node.child_by_field_name(target_field)
        targets = tuple(dict.fromkeys(_targets(value)))
        if targets:
            f.kernel_aliases.append(KernelAliasFact(m.group(0), targets, caller, line))


def _targets(node):
    """The names in a value: through ?:, {...}, &x and parentheses; template arguments stripped."""
    if node is None:
        return
    t = node.type
    if t in _NAMES:
        name = _strip_templates(nospace(dec(node.text)))
        if name not in _NOT_NAMES:
            yield name
    elif t in _WRAPPERS:
        for c in node.named_children:
            if t != "conditional_expression" or c.id != node.child_by_field_name("condition").id:
                yield from _targets(c)


def _strip_templates(name: str) -> str:
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)
