"""What the written text of a call says for certain about each argument's type (calls.arg_types), so that the
link stage can pick among overloads of one argument count (link/overloads.py).

An argument's type is known when it is
- a literal: an integer (`2` int, `2u` unsigned, `2L` long, `2ull` unsigned long long; hex, octal and binary
  alike), a floating one (`1.0` double, `1.0f` float, `1.0L` long double), `true`/`false` (bool), `nullptr`
  (std::nullptr_t), a string (const char*) or a character (char);
- an identifier declared in the calling function before the call (a parameter, a local, a range-for
  variable) with a type written out: that type as receivers.py normalises it (no cv, no at::/c10::), with `*`
  for a pointer declarator (`const Tensor& self` -> Tensor, `int64_t* sizes` -> int64_t*).
- a call or a member chain (`self.dim()`, `t.sizes()`, `at::numel(t)`), or an identifier declared `auto`:
  `static_cast<T>(...)`, `new T(...)` and `T{...}` give T; anything else is written as receivers.py writes an `auto`
  variable's initializer, `decltype(std::declval<Tensor>().dim())` (`&` after it for the variable, an
  lvalue), which the link stage types by return
  types (resolve.py, Resolver._argument_type) before it compares the types with the overloads' parameters.
Everything else (another expression, a field, a name declared elsewhere) is unknown.
The column holds a JSON list with null for each unknown argument, or is NULL when no argument is known.
"""

from __future__ import annotations

import json
import re

from .scan import dec

_FLOATING = re.compile(r"(?:[0-9][0-9']*\.?[0-9']*|\.[0-9][0-9']*)(?:[eE][+-]?[0-9]+)?([fFlL]?)")
_HEX_FLOATING = re.compile(r"0[xX][0-9a-fA-F']*\.?[0-9a-fA-F']*[pP][+-]?[0-9]+([fFlL]?)")
_INTEGER = re.compile(r"(?:0[xX][0-9a-fA-F']+|0[bB][01']+|[0-9][0-9']*)([uUlL]*)")
_INTEGER_SUFFIX = {"": "int", "u": "unsigned", "l": "long", "ul": "unsigned long", "lu": "unsigned long",
                   "ll": "long long", "ull": "unsigned long long", "llu": "unsigned long long"}
_FLOATING_SUFFIX = {"": "double", "f": "float", "l": "long double"}
_CONSTANTS = {"true": "bool", "false": "bool", "nullptr": "std::nullptr_t"}
_STRINGS = ("string_literal", "concatenated_string", "raw_string_literal")
# An argument that names a template with its arguments, `cummax_cummin_helper<scalar_t,int64_t,Op>` (a function
# handed on by name), up to 300 characters: calls.arg_types writes it `decltype(...)` (cxx/calls.py), and the link
# stage gives it no type (link/resolve.py) and looks it up as a function handed on (link/edges.py FUNCTION_ARGUMENT).
TEMPLATE_NAME = re.compile(r"(?:::)?\w+(?:::\w+)*<[^;{}()]{0,300}>")


def number_type(text: str) -> str | None:
    """The type of a number literal as written, or None for a form not read here (a user-defined literal)."""
    m = _INTEGER.fullmatch(text)
    if m is not None:
        return _INTEGER_SUFFIX.get(m.group(1).lower())
    m = _HEX_FLOATING.fullmatch(text) or (_FLOATING.fullmatch(text) if not text[:2].lower() == "0x" else None)
    if m is not None and any(c in text for c in ".eEpP"):
        return _FLOATING_SUFFIX[m.group(1).lower()]
    return None


def literal_type(node) -> str | None:
    """The type of an argument node that is a literal, or None."""
    kind = node.type
    if kind == "number_literal":  # `-2` is one literal to tree-sitter
        return number_type(dec(node.text).lstrip("-+"))
    if kind in ("true", "false", "null", "nullptr"):
        return _CONSTANTS.get(dec(node.text))
    if kind in _STRINGS:
        return "const char*"
    if kind == "char_literal":
        return "char"
    if kind == "unary_expression" and node.child_count == 2 and node.children[0].type in ("-", "+") and \
            node.children[1].type == "number_literal":  # `-1`: the literal's type
        return number_type(dec(node.children[1].text))
    return None


def encoded(types: list[str | None]) -> str | None:
    """The column's value: a JSON list, or None when no argument's type is known."""
    return json.dumps(types, separators=(",", ":")) if any(t is not None for t in types) else None


_FLOATING_RANK = ("float", "double", "long double")
_INTEGER_RANK = ("int", "unsigned", "unsigned int", "long", "unsigned long", "int64_t", "uint64_t", "long long",
                 "unsigned long long", "size_t")
ARITHMETIC = frozenset(("bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int8_t",
                        "int16_t", "int32_t", "uint8_t", "uint16_t", "uint32_t", *_FLOATING_RANK, *_INTEGER_RANK))


def arithmetic_result(operator: str, operands: list[str]) -> str | None:
    """The type of a built-in arithmetic or bitwise operator's result (`+`, `&`, ...; its operands' types plain,
    without cv or `&`), roughly as the usual arithmetic conversions give it: the widest floating operand's type,
    else the widest integer one's, int at least; None when an operand is no arithmetic type."""
    if not operands or any(t not in ARITHMETIC for t in operands):
        return None
    floating = [t for t in operands if t in _FLOATING_RANK]
    if floating:
        return None if operator in ("%", "&", "|", "^", "~") else max(floating, key=_FLOATING_RANK.index)
    wide = [t for t in operands if t in _INTEGER_RANK]
    return max(wide, key=_INTEGER_RANK.index) if wide else "int"

