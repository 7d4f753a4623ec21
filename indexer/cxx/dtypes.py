"""AT_DISPATCH_* / AT_DISPATCH_V2 uses: the dtype set and the name string, also through a
file-local wrapper macro (`via` names the AT_DISPATCH macro it expands to).

An AT_DISPATCH_SWITCH's set is read from its cases (after the file's own macros are expanded in them,
`DISPATCH_DENSE_TO_JAGGED_CASE(at::ScalarType::Half)`): a case of one type names it first
(`AT_DISPATCH_CASE(at::ScalarType::Byte, ...)`, `AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Long, index_t,
...)`, `AT_DISPATCH_CASE_QINT(...)`), a case of a set names it in the macro's name and adds its first n
arguments when the name ends in `_AND<n>` (`AT_DISPATCH_CASE_FLOATING_TYPES_AND2(kLong, kBFloat16, ...)` ->
FLOATING_TYPES, kLong, kBFloat16). A wrapper that expands to a case alone is no dispatch: the switch it is
written in is.
"""

from __future__ import annotations

import re

from .arguments import string_value
from .facts import DtypeDispatchFact
from .preprocessor import Define, expand_text
from .scan import balanced_args, norm, nospace, strip_comments
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
        return switch_cases(strip_comments(", ".join(args[2:]))), name_of(args[1] if len(args) > 1 else None)
    setname, extra = _named_set(macro[len("AT_DISPATCH_"):])
    types = (setname,) + tuple(nospace(a) for a in args[:extra])
    return types, name_of(args[extra + 1] if len(args) > extra + 1 else None)


def _named_set(rest: str) -> tuple[str, int]:
    """A set macro's name after its prefix -> (the set, how many types its first arguments add):
    `FLOATING_TYPES_AND2` -> (FLOATING_TYPES, 2), `ALL_TYPES_AND` -> (ALL_TYPES, 1)."""
    m = re.fullmatch(r"(.+?)_AND(\d+)", rest)
    if m:
        return m.group(1), int(m.group(2))
    if rest.endswith("_AND"):
        return rest[:-4], 1
    return rest, 0


_CASE = re.compile(r"\b(AT_DISPATCH_CASE\w*|\w*PRIVATE_CASE_TYPE\w*)\s*\(")
_CASE_BYTES = re.compile(_CASE.pattern.encode())


def is_case(macro: str) -> bool:
    """Whether a macro's name is that of one case of an AT_DISPATCH_SWITCH (not a dispatch)."""
    return _CASE.fullmatch(macro + "(") is not None


def switch_cases(text: str) -> tuple[str, ...]:
    """The dtypes of the cases written in an AT_DISPATCH_SWITCH's case arguments, in order (see the module's
    docstring); a case's own arguments (its lambda) are not searched for more."""
    out: list[str] = []
    src = text.encode()
    at = 0
    for m in _CASE_BYTES.finditer(src):
        if m.start() < at:
            continue
        parsed = balanced_args(src, m.end() - 1)
        if parsed is None:
            break
        args, at = parsed
        case = m.group(1).decode()
        if case.startswith("AT_DISPATCH_CASE_") and "TYPES" in case:  # a set (AT_DISPATCH_CASE_QINT is one type)
            setname, extra = _named_set(case[len("AT_DISPATCH_CASE_"):])
            out.append(setname)
            out.extend(nospace(a) for a in args[:extra])
        elif args and args[0].strip():
            out.append(nospace(args[0]))
    return tuple(out)


def _dispatch_call(text: str) -> tuple[str, tuple[str, ...], str | None] | None:
    """The first AT_DISPATCH macro a text calls (a wrapper's expansion or body): (the macro, its dtype set, its name
    string); None when it calls none."""
    m = _DISPATCH.search(text)
    if m is None:
        return None
    inner = balanced_args(text.encode(), len(text[: m.end() - 1].encode()))
    return (m.group(1), *_dtype_set(m.group(1), inner[0] if inner else []))


def dispatched_set(text: str) -> tuple[str, ...] | None:
    """The dtype set of the first AT_DISPATCH macro a macro's body calls (a header's wrapper: link/dtype_macros.py);
    None when it calls none, or only a case."""
    called = _dispatch_call(text)
    return None if called is None or is_case(called[0]) else called[1]


_DISPATCH = re.compile(r"\b(AT_DISPATCH_\w+)\s*\(")


def dtype_dispatch(f: SourceFile, node, last: str, caller, line, wrappers: dict[str, Define]) -> DtypeDispatchFact | None:
    """The AT_DISPATCH use of a call node (through a file-local wrapper: the macro it expands to)."""
    if is_case(last):
        return None
    args_node = node.child_by_field_name("arguments")
    if args_node is None:
        return None
    parsed = f.orig_scan.args(args_node.start_byte)
    if parsed is None:
        return None
    args = parsed[0]
    if last in wrappers:
        called = _dispatch_call(expand_text(f"{last}({', '.join(args)})", f.local))
        if called is None:
            return DtypeDispatchFact(last, (), None, caller, line)
        inner, types, name = called
        if is_case(inner):  # one case of the switch the use is written in
            return None
        return DtypeDispatchFact(last, types, name, caller, line, via=inner)
    if last == "AT_DISPATCH_SWITCH" and len(args) > 2 and f.local:  # cases written through the file's macros
        cases = strip_comments(", ".join(args[2:]))
        if any(name in cases for name in f.local):
            args = args[:2] + [expand_text(cases, f.local)]
    types, name = _dtype_set(last, args)
    return DtypeDispatchFact(last, types, name, caller, line)
