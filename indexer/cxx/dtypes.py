"""AT_DISPATCH_* / AT_DISPATCH_V2 uses: the dtype set and the name string, also through a
file-local wrapper macro (`via` names the AT_DISPATCH macro it expands to).
"""

from __future__ import annotations

import re

from .arguments import string_value
from .facts import DtypeDispatchFact
from .preprocessor import Define, expand_text
from .scan import balanced_args, norm, nospace
from .sourcefile import SourceFile


def _dtype_set(macro: str, args: list[str]) -> tuple[tuple[str, ...], str | None]:
    def name_of(t: str | None) -> str | None:
        if t is None:
            return None
        v = string_value(t)
        return v if v is not None else norm(t)

    if macro == "AT_DISPATCH_V2":
        types = tuple(re.sub(r"^AT_EXPAND\s*\((.*)\)$", r"\1", norm(a)) for a in args[3:])
        return types, name_of(args[1] if len(args) > 1 else None)
    if macro == "AT_DISPATCH_SWITCH":
        rest = " ".join(args[2:])
        types = re.findall(r"AT_DISPATCH_CASE_(\w+)", rest) + re.findall(r"AT_DISPATCH_CASE\s*\(\s*([\w:]+)", rest)
        return tuple(types), name_of(args[1] if len(args) > 1 else None)
    rest = macro[len("AT_DISPATCH_"):]
    m = re.fullmatch(r"(.+?)_AND(\d+)", rest)
    if m:
        setname, extra = m.group(1), int(m.group(2))
    elif rest.endswith("_AND"):
        setname, extra = rest[:-4], 1
    else:
        setname, extra = rest, 0
    types = (setname,) + tuple(nospace(a) for a in args[:extra])
    return types, name_of(args[extra + 1] if len(args) > extra + 1 else None)


def dtype_dispatch(f: SourceFile, node, last: str, caller, line, wrappers: dict[str, Define]) -> DtypeDispatchFact | None:
    """The AT_DISPATCH use of a call node (through a file-local wrapper: the macro it expands to)."""
    if last.startswith("AT_DISPATCH_CASE") or last in ("AT_DISPATCH_CASE",):
        return None
    args_node = node.child_by_field_name("arguments")
    if args_node is None:
        return None
    parsed = f.orig_scan.args(args_node.start_byte)
    if parsed is None:
        return None
    args = parsed[0]
    if last in wrappers:
        expanded = expand_text(f"{last}({', '.join(args)})", f.local)
        m = re.search(r"\b(AT_DISPATCH_\w+)\s*\(", expanded)
        if not m:
            return DtypeDispatchFact(last, (), None, caller, line)
        inner = balanced_args(expanded.encode(), len(expanded[: m.end() - 1].encode()))
        types, name = _dtype_set(m.group(1), inner[0] if inner else [])
        return DtypeDispatchFact(last, types, name, caller, line, via=m.group(1))
    types, name = _dtype_set(last, args)
    return DtypeDispatchFact(last, types, name, caller, line)
