"""JSON text exactly as `json.dump(data, indent=2)` writes it, built several times faster.

The standard library serves `indent` only with its pure-Python encoder (the C encoder of
Python 3.11 takes no indent); for a kernels-for answer that encoder costs more than the answer.
`indented` walks the data once, escapes every string with the C function that encoder uses
(`encode_basestring_ascii`: `ensure_ascii` is on), and writes the same separators (`,` and
`: `), newlines and two-space indentation. What the walk does not know (a subclass of dict,
list or tuple, a type json hands to `default`, a key json refuses, a cycle, nesting deeper than
the stack) goes to `json.dumps` itself, so the text, or the error, is json's own.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _quoted
from typing import Any

INDENT = 2
_int = int.__repr__  # as json writes an int (an IntEnum too)


class _Unsupported(Exception):
    """A value the walk leaves to json."""


def _number(value: float) -> str:
    """A float as json writes it (allow_nan: NaN, Infinity, -Infinity)."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def _scalar(value: Any) -> str:
    """A value that is not a dict, list or tuple, in json's order of checks (a StrEnum is a str)."""
    if isinstance(value, str):
        return _quoted(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        return _number(value)
    raise _Unsupported


def _key(key: Any) -> str:
    """A dict key as json writes it: a string, or a float, bool, None or int turned into one."""
    if isinstance(key, str):
        return _quoted(key)
    if isinstance(key, float):
        return _quoted(_number(key))
    if key is True or key is False or key is None:
        return _quoted({True: "true", False: "false", None: "null"}[key])
    if isinstance(key, int):
        return _quoted(_int(key))
    raise _Unsupported


def _item(lead: str, item: Any, inner: str, out: list[str]) -> None:
    """One member after its lead (separator, indent and, in a dict, the key): a container or a rarer scalar."""
    kind = type(item)
    if kind is dict or kind is list or kind is tuple:
        if item:
            out.append(lead)
            _container(item, inner, out)
        else:
            out.append(lead + ("{}" if kind is dict else "[]"))
    else:
        out.append(lead + _scalar(item))


def _container(value: dict | list | tuple, newline: str, out: list[str]) -> None:
    """A non-empty dict, list or tuple; newline is "\\n" and the indent of its own level. Strings, ints and
    None, most of an answer, are written inline."""
    inner = newline + " " * INDENT
    between = "," + inner
    if type(value) is dict:
        lead = "{" + inner
        for key, item in value.items():
            lead += (_quoted(key) if type(key) is str else _key(key)) + ": "
            kind = type(item)
            if kind is str:
                out.append(lead + _quoted(item))
            elif kind is int:
                out.append(lead + _int(item))
            elif item is None:
                out.append(lead + "null")
            else:
                _item(lead, item, inner, out)
            lead = between
        out.append(newline + "}")
    else:
        lead = "[" + inner
        for item in value:
            kind = type(item)
            if kind is str:
                out.append(lead + _quoted(item))
            elif kind is int:
                out.append(lead + _int(item))
            else:
                _item(lead, item, inner, out)
            lead = between
        out.append(newline + "]")


def indented(data: Any) -> str:
    """`json.dumps(data, indent=2)`, byte for byte."""
    kind = type(data)
    if not (kind is dict or kind is list or kind is tuple) or not data:
        return json.dumps(data, indent=INDENT)
    out: list[str] = []
    try:
        _container(data, "\n", out)
    except (_Unsupported, RecursionError):  # RecursionError: a cycle, or deeper than the stack; json says which
        return json.dumps(data, indent=INDENT)
    return "".join(out)
