"""C preprocessor `#if` expressions, evaluated three-valued: True, False or None (unknown).

What is evaluated is what C's preprocessor evaluates: integer literals (decimal,
hex, octal, binary, digit separators, u/l suffixes, unsigned arithmetic as
uintmax_t), char literals, `defined(X)` / `defined X`, the unary operators
`! ~ - +`, the binary operators `* / % + - << >> < > <= >= == != & ^ | && ||`,
`?:` and parentheses. `true` and `false` are 1 and 0, as in C++.

Names come from an `Env`, the model of one compile context:

- `defined(X)` is true exactly when the model defines X (the model states the
  build's configuration; see stubs.StubMacros);
- a name the model defines has the model's value;
- a name reserved for the implementation (`__cplusplus`, `__GNUC__`, `_MSC_VER`)
  that the model does not define is one whose value the compiler sets and the
  file cannot know: unknown;
- a call `F(...)` (a function-like macro, `__has_include(...)`) is unknown;
- any other name is not a macro, and is 0, as C says.

Unknown propagates, except where C's rules decide without it (`0 && x`,
`1 || x`, `x * 0`, a `?:` whose branches agree). A malformed expression is
unknown too: nothing reads as false because it could not be read. Never eval().
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

Truth = bool | None

_MASK = (1 << 64) - 1
_TOKEN = re.compile(
    r"\s+|(?P<num>\.?\d(?:[eEpP][+-]|[\w.'])*)|(?P<char>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*')|"
    r"(?P<id>[A-Za-z_]\w*)|(?P<op>&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%<>&^|!~?:(),])|(?P<bad>.)"
)
_INTEGER = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uU](?:ll|LL|l|L|z|Z)?|(?:ll|LL|l|L|z|Z)[uU]?)?")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34, "?": 63}
_RESERVED = re.compile(r"__\w*|_[A-Z]\w*")
_BINARY = {  # operator -> precedence (higher binds tighter)
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}


@dataclass(frozen=True)
class Env:
    """One compile context: the names it defines, with their values."""

    values: dict[str, int] = field(default_factory=dict)
    # Another model, the build's guard stage's (indexer/guards.py): the value of a name, or of a call `F()` with no
    # arguments (`called`), None when unknown. With it, a name it does not know is unknown rather than 0, and
    # `defined(X)` is unknown: only what every build of the checkout agrees on is known.
    lookup: Callable[[str, bool], int | None] | None = None

    @classmethod
    def of(cls, names) -> Env:
        """Every name defined as 1 (as `-DNAME` defines it)."""
        return cls({n: 1 for n in names})


class _Value:
    """An integer of the preprocessor: its value and whether it is unsigned."""

    __slots__ = ("v", "unsigned")

    def __init__(self, v: int, unsigned: bool = False):
        self.unsigned = unsigned
        self.v = v & _MASK if unsigned else _signed(v)


def _signed(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v >> 63 else v


class _Unreadable(Exception):
    """The expression is not one the preprocessor could evaluate."""


_DEFINED = re.compile(r"\bdefined\s*(?:\(\s*\w+\s*\)|\w+)")
_NAME = re.compile(r"\b(?!true\b|false\b)[A-Za-z_]\w*")


def may_be_false(expr: str) -> bool:
    """Whether the checkout's own #defines could make an #if false in every build: the expression reads a name's
    value (`AT_USE_JITERATOR()`, `CUDA_VERSION >= 12000`), or is false whatever is defined (`0`, `0 && defined(X)`).
    One that only asks whether names are defined (`defined(USE_ROCM) && !defined(_MSC_VER)`), or reads only names
    reserved for the implementation (`__CUDA_ARCH__ >= 800`: the compiler's), is a build's choice."""
    if any(not _RESERVED.fullmatch(m.group()) for m in _NAME.finditer(_DEFINED.sub("", expr))):
        return True
    return evaluate(expr, Env(lookup=lambda _name, _called: None)) is False


def evaluate(expr: str, env: Env) -> Truth:
    """Whether `#if expr` holds in env: True, False or None (unknown)."""
    got = value_of(expr, env)
    return None if got is None else got != 0


def value_of(expr: str, env: Env) -> int | None:
    """The integer value of a preprocessor expression in env, None when unknown."""
    try:
        tokens = _tokens(expr)
        parser = _Parser(tokens, env)
        value = parser.conditional()
        if parser.k != len(tokens):
            raise _Unreadable
    except (_Unreadable, RecursionError):
        return None
    return None if value is None else value.v


def _tokens(expr: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(expr):
        kind = m.lastgroup
        if kind is None:
            continue  # whitespace
        if kind == "bad":
            raise _Unreadable
        out.append((kind, m.group(kind)))
    return out


def _number(text: str) -> _Value:
    m = _INTEGER.fullmatch(text.replace("'", ""))
    if m is None:
        raise _Unreadable  # a floating literal, or not a number
    digits, suffix = m.group(1), m.group(2) or ""
    if digits[:2] in ("0x", "0X"):
        v = int(digits[2:], 16)
    elif digits[:2] in ("0b", "0B"):
        v = int(digits[2:], 2)
    elif digits.startswith("0"):
        v = int(digits, 8)
    else:
        v = int(digits)
    if v > _MASK:
        raise _Unreadable
    return _Value(v, "u" in suffix.lower() or v > (_MASK >> 1))


def _char(text: str) -> _Value:
    body = text[text.index("'") + 1 : -1]
    if body.startswith("\\"):
        rest = body[1:]
        if rest[:1] == "x":
            return _Value(int(rest[1:], 16))
        if rest[:1].isdigit():
            return _Value(int(rest, 8))
        if rest in _ESCAPES:
            return _Value(_ESCAPES[rest])
        raise _Unreadable
    if len(body) != 1:
        raise _Unreadable  # multi-character constants are implementation-defined
    return _Value(ord(body))


class _Parser:
    """Precedence climbing over the tokens; values are _Value or None (unknown)."""

    def __init__(self, tokens: list[tuple[str, str]], env: Env):
        self.tokens = tokens
        self.k = 0
        self.env = env

    def peek(self) -> str | None:
        return self.tokens[self.k][1] if self.k < len(self.tokens) else None

    def take(self, text: str | None = None) -> tuple[str, str]:
        if self.k >= len(self.tokens) or (text is not None and self.tokens[self.k][1] != text):
            raise _Unreadable
        self.k += 1
        return self.tokens[self.k - 1]

    def conditional(self) -> _Value | None:
        cond = self.binary(1)
        if self.peek() != "?":
            return cond
        self.take("?")
        yes = self.conditional()
        self.take(":")
        no = self.conditional()
        if cond is not None:
            return yes if cond.v else no
        if yes is not None and no is not None and yes.v == no.v:
            return yes
        return None

    def binary(self, level: int) -> _Value | None:
        left = self.unary()
        while True:
            op = self.peek()
            prec = _BINARY.get(op) if op is not None and self.tokens[self.k][0] == "op" else None
            if prec is None or prec < level:
                return left
            self.take()
            right = self.binary(prec + 1)
            left = _apply(op, left, right)

    def unary(self) -> _Value | None:
        kind, text = self.take()
        if kind == "op" and text in ("!", "~", "-", "+"):
            v = self.unary()
            if v is None:
                return None
            if text == "!":
                return _Value(int(v.v == 0))
            if text == "~":
                return _Value(~v.v, v.unsigned)
            return _Value(-v.v if text == "-" else v.v, v.unsigned)
        if kind == "op" and text == "(":
            v = self.conditional()
            self.take(")")
            return v
        if kind == "num":
            return _number(text)
        if kind == "char":
            return _char(text)
        if kind == "id":
            return self.name(text)
        raise _Unreadable

    def name(self, text: str) -> _Value | None:
        if text == "defined":
            paren = self.peek() == "("
            if paren:
                self.take("(")
            kind, name = self.take()
            if kind != "id":
                raise _Unreadable
            if paren:
                self.take(")")
            return _Value(int(name in self.env.values)) if self.env.lookup is None else None
        lookup = self.env.lookup
        if self.peek() == "(":  # a function-like macro call: its value is not the file's to know
            if lookup is not None and self.k + 1 < len(self.tokens) and self.tokens[self.k + 1][1] == ")":
                self.k += 2
                value = lookup(text, True)
                return None if value is None else _Value(value)
            self.skip_call()
            return None
        if text in self.env.values:
            return _Value(self.env.values[text])
        if text in ("true", "false"):
            return _Value(int(text == "true"))
        if lookup is not None:
            value = lookup(text, False)
            return None if value is None else _Value(value)
        if _RESERVED.fullmatch(text):
            return None  # the compiler's own macro (__cplusplus, _MSC_VER): unknown here
        return _Value(0)

    def skip_call(self) -> None:
        depth = 0
        while True:
            _, text = self.take()
            depth += (text == "(") - (text == ")")
            if depth == 0:
                return


def _apply(op: str, a: _Value | None, b: _Value | None) -> _Value | None:
    if op == "&&":
        if (a is not None and a.v == 0) or (b is not None and b.v == 0):
            return _Value(0)
        return None if a is None or b is None else _Value(1)
    if op == "||":
        if (a is not None and a.v != 0) or (b is not None and b.v != 0):
            return _Value(1)
        return None if a is None or b is None else _Value(0)
    if op == "*" and ((a is not None and a.v == 0) or (b is not None and b.v == 0)):
        return _Value(0)
    if a is None or b is None:
        return None
    if op in ("<<", ">>"):
        if b.v < 0 or b.v >= 64:
            return None  # undefined behaviour: no value to read
        return _Value(a.v << b.v if op == "<<" else a.v >> b.v, a.unsigned)
    unsigned = a.unsigned or b.unsigned
    x, y = (a.v & _MASK, b.v & _MASK) if unsigned else (a.v, b.v)
    if op in ("/", "%"):
        if y == 0:
            return None
        q = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)  # C truncates toward zero
        return _Value(q if op == "/" else x - q * y, unsigned)
    if op in _COMPARE:
        return _Value(int(_COMPARE[op](x, y)))
    return _Value(_ARITHMETIC[op](x, y), unsigned)


_COMPARE = {
    "<": lambda x, y: x < y, ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y,
    "==": lambda x, y: x == y, "!=": lambda x, y: x != y,
}
_ARITHMETIC = {
    "+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
    "&": lambda x, y: x & y, "^": lambda x, y: x ^ y, "|": lambda x, y: x | y,
}


def all_of(values) -> Truth:
    """Three-valued AND of Truths: False if any is False, else None if any is None, else True."""
    out: Truth = True
    for v in values:
        if v is False:
            return False
        if v is None:
            out = None
    return out
