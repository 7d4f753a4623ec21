"""The receiver type of a member call: `x.f(...)` / `x->f(...)` where x is a parameter of the
enclosing function, a local variable or a range-for variable declared in it before the call.

The type is the declared one without cv-qualifiers, `&`, `*` and the `at::` / `c10::` qualifiers
(template arguments kept, spaces dropped): "Tensor", "TensorIteratorBase", "Vectorized<scalar_t>",
"optional<Tensor>". `auto` (and decltype) declarations give none. The latest declaration of the
name in the function before the call is the one used (blocks are not tracked).
"""

from __future__ import annotations

import bisect
import operator
import re

from .scan import dec
from .sourcefile import SourceFile

_MEMBER = re.compile(r"([A-Za-z_]\w*)(?:\.|->)~?[A-Za-z_]\w*(?:<.*>)?")
_UNKNOWN_TYPES = ("placeholder_type_specifier", "decltype", "auto")
_LIBRARY_NAMESPACES = re.compile(r"(?<![\w:])(?:at|c10)::")
_CV = re.compile(r"(?<![\w:])(?:const|volatile|typename)\s+|\s+(?:const|volatile)\b")
_SPACE_AROUND = re.compile(r"\s*([<>,*&:()\[\]])\s*")

_START = operator.attrgetter("start_byte")
MEMBER_OBJECTS: dict[str, str | None] = {}  # callee as written -> the identifier before . or -> (memo across files)


def member_object(callee: str) -> str | None:
    """"x" of the callee "x.f" / "x->f" (None for other callees and for this->f)."""
    got = MEMBER_OBJECTS.get(callee, "")
    if got == "":
        m = _MEMBER.fullmatch(callee)
        got = m.group(1) if m is not None and m.group(1) != "this" else None
        if len(MEMBER_OBJECTS) < 200_000:
            MEMBER_OBJECTS[callee] = got
    return got


def receiver_types(f: SourceFile, pending: list[tuple[int, str, int]]) -> None:
    """Phase (after calls): pending holds (index in f.calls, object name, offset of the call);
    each call whose object has a typed declaration in its function gets that receiver_type."""
    if not pending:
        return
    needed = {name.encode() for _, name, _ in pending}
    declared: dict[bytes, list[int]] = {}
    for n in f.get("decl.name"):  # in the query's order (trees.UNORDERED): sorted below
        name = n.text
        if name in needed:
            declared.setdefault(name, []).append(n.start_byte)
    if not declared:
        return
    for offsets in declared.values():
        offsets.sort()
    decls = sorted(f.get("decl"), key=_START)
    starts = [d.start_byte for d in decls]
    types: dict[int, str | None] = {}
    for index, name, offset in pending:
        got = declared.get(name.encode())
        if not got:
            continue
        k = bisect.bisect_left(got, offset) - 1
        if k < 0 or got[k] < f.function_start_at(offset):
            continue
        at = got[k]
        if at not in types:
            types[at] = declared_type(decls, starts, at)
        if types[at] is not None:
            f.calls[index] = f.calls[index]._replace(receiver_type=types[at])


def declared_type(decls: list, starts: list[int], at: int) -> str | None:
    """The type of the innermost declaration around the name at offset `at`, normalised (see the
    module docstring)."""
    k = bisect.bisect_right(starts, at) - 1
    while k >= 0 and decls[k].end_byte <= at:
        k -= 1
    if k < 0:
        return None
    t = decls[k].child_by_field_name("type")
    if t is None or t.type in _UNKNOWN_TYPES:
        return None
    text = _SPACE_AROUND.sub(r"\1", " ".join(dec(t.text).split()))
    text = _CV.sub("", text)
    return _LIBRARY_NAMESPACES.sub("", text) or None
