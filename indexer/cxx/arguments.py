"""Argument text of a macro or call read as C++: string values, function references.

`string_value` joins adjacent string literals (through TORCH_SELECTIVE_NAME /
TORCH_SELECTIVE_SCHEMA); `strip_ref` and `strip_fn` take `&fn`, `(fn)` and
`TORCH_FN(fn)` down to the function's name.
"""

from __future__ import annotations

import re

from .scan import balanced_args, norm

_STRING_RE = re.compile(r'(?:u8|u|U|L)?"((?:\\.|[^"\\])*)"')


def string_value(text: str) -> str | None:
    """The value of a string argument: adjacent literals joined, through
    TORCH_SELECTIVE_NAME / TORCH_SELECTIVE_SCHEMA; None if it is not a string."""
    t = text.strip()
    m = re.fullmatch(r"(?:c10::|torch::)?(?:TORCH_SELECTIVE_NAME|TORCH_SELECTIVE_SCHEMA|TORCH_SELECTIVE_NAME_IN_SCHEMA)\s*\((.*)\)", t, re.S)
    if m:
        t = m.group(1).strip()
    if not t.startswith(('"', 'u8"', 'u"', 'U"', 'L"')):
        return None
    parts = _STRING_RE.findall(t)
    rest = _STRING_RE.sub("", t).strip()
    if rest:
        return None
    return "".join(parts)


def strip_ref(text: str) -> str:
    t = norm(text)
    while t.startswith("(") and t.endswith(")"):
        whole = balanced_args(t.encode(), 0)
        if whole is None or whole[1] != len(t.encode()):
            break
        t = t[1:-1].strip()
    if t.startswith("&"):
        t = t[1:].strip()
    return t


def strip_fn(text: str) -> str:
    t = norm(text)
    m = re.fullmatch(r"(?:c10::|torch::)?TORCH_FN\s*\((.*)\)", t, re.S)
    if m:
        t = m.group(1)
    return strip_ref(t)
