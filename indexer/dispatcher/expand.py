"""A C preprocessor's macro expansion over tokens, for macro uses in registration blocks.

Function-like and object-like macros are expanded as the C standard says (C11 6.10.3): an
argument is fully expanded before it is substituted, unless the parameter is an operand of `#`
or `##`; `#` makes a string literal, `##` pastes two tokens; the result is rescanned together
with the rest of the input, so a macro name produced by an expansion may take its arguments from
the tokens that follow (`C10_CONCATENATE(KERNEL, N)(...)`). Each token carries the set of macros
it came through (its hide set, after Prosser's algorithm); a macro is not expanded again inside
its own expansion. `__VA_ARGS__` is supported, `__VA_OPT__` is not (kept as written).

The expansion stops at `limit` tokens produced (a runaway list says so through `truncated`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..cxx.preprocessor import Define

_TOKEN = re.compile(r'\s+|[A-Za-z_]\w*|(?:u8|u|U|L)?"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\.?\d(?:[\w.]|[eEpP][+-])*'
                    r"|##|::|->|<<=|>>=|\.\.\.|[-+*/%&|^!=<>]=|&&|\|\||\+\+|--|<<|>>|.", re.S)
_IDENT = re.compile(r"[A-Za-z_]\w*")
VARIADIC = "__VA_ARGS__"


@dataclass(frozen=True)
class Tok:
    text: str
    hide: frozenset[str] = frozenset()

    @property
    def space(self) -> bool:
        return self.text.isspace()


def tokens(text: str) -> list[Tok]:
    return [Tok(" " if t.isspace() else t) for t in _TOKEN.findall(text)]


def text_of(toks: list[Tok]) -> str:
    return " ".join("".join(t.text for t in toks).split())


class Expander:
    """Expands text with the macros `lookup(name)` gives (None: not a macro)."""

    def __init__(self, lookup: Callable[[str], Define | None], keep: str | None = None, limit: int = 200_000):
        self.lookup = lookup
        self.keep = keep  # `keep.impl(...)`, `.def(...)`, `.fallback(...)` stay as written (the registration calls)
        self.limit = limit
        self.produced = 0
        self.truncated = False

    def expand_text(self, text: str) -> str:
        return text_of(self.expand(tokens(text)))

    def expand(self, toks: list[Tok]) -> list[Tok]:
        out: list[Tok] = []
        todo = list(reversed(toks))  # a stack: the next token is todo[-1]
        while todo:
            t = todo.pop()
            if t.text == self.keep and (call := _member_call(todo)) is not None:
                out.append(t)
                out += call
                continue
            d = self._macro(t)
            if d is None:
                out.append(t)
                continue
            if d.params is None:
                self._push(todo, self._mark(tokens(d.body), t.hide | {d.name}))
                continue
            call = _arguments(todo)
            if call is None:  # a function-like macro's name without `(`: an ordinary identifier
                out.append(t)
                continue
            args, close = call
            body = self._substitute(d, args)
            self._push(todo, self._mark(body, (t.hide & close.hide) | {d.name}))
        return out

    def _macro(self, t: Tok) -> Define | None:
        if self.truncated or not _IDENT.fullmatch(t.text) or t.text in t.hide:
            return None
        return self.lookup(t.text)

    def _push(self, todo: list[Tok], toks: list[Tok]) -> None:
        self.produced += len(toks)
        if self.produced > self.limit:
            self.truncated = True
        todo.extend(reversed(toks))

    @staticmethod
    def _mark(toks: list[Tok], hide: frozenset[str]) -> list[Tok]:
        return [Tok(t.text, t.hide | hide) for t in toks]

    def _substitute(self, d: Define, args: list[list[Tok]]) -> list[Tok]:
        params = [p.strip() for p in d.params or ()]
        named = {p: i for i, p in enumerate(params) if p and p != "..."}
        raw: dict[str, list[Tok]] = {p: _strip(args[i]) if i < len(args) else [] for p, i in named.items()}
        if params and params[-1] == "...":
            rest = args[len(params) - 1:]
            joined: list[Tok] = []
            for i, a in enumerate(rest):
                joined += ([Tok(","), Tok(" ")] if i else []) + _strip(a)
            raw[VARIADIC] = joined
        body = [t for t in tokens(d.body)]
        return self._replace(body, raw)

    def _replace(self, body: list[Tok], raw: dict[str, list[Tok]]) -> list[Tok]:
        out: list[Tok] = []
        expanded: dict[str, list[Tok]] = {}
        i, n = 0, len(body)
        while i < n:
            t = body[i]
            if t.text == "#" and (j := _next(body, i)) is not None and body[j].text in raw:
                out.append(Tok('"' + text_of(raw[body[j].text]).replace("\\", "\\\\").replace('"', '\\"') + '"'))
                i = j + 1
                continue
            if t.text == "##":
                while out and out[-1].space:
                    out.pop()
                j = _next(body, i)
                if j is None:
                    break
                right = raw[body[j].text] if body[j].text in raw else [body[j]]
                left = out.pop() if out else Tok("")
                pasted = tokens(left.text + (right[0].text if right else ""))
                out += pasted + list(right[1:])
                i = j + 1
                continue
            if t.text in raw:
                pasting = (j := _next(body, i)) is not None and body[j].text == "##"
                if pasting:
                    out += raw[t.text]
                else:
                    if t.text not in expanded:
                        expanded[t.text] = Expander(self.lookup, self.keep, self.limit).expand(raw[t.text])
                    out += expanded[t.text]
                i += 1
                continue
            out.append(t)
            i += 1
        return out


REGISTRATION_CALLS = frozenset({"impl", "def", "fallback"})


def _member_call(todo: list[Tok]) -> list[Tok] | None:
    """Pop `.impl(...)` (or def, fallback) off the stack when it comes next, as written."""
    k = len(todo) - 1
    seen: list[int] = []
    while k >= 0 and len(seen) < 3:
        if not todo[k].space:
            seen.append(k)
        k -= 1
    if len(seen) < 3 or todo[seen[0]].text != "." or todo[seen[1]].text not in REGISTRATION_CALLS \
            or todo[seen[2]].text != "(":
        return None
    depth = 0
    for j in range(seen[2], -1, -1):
        t = todo[j].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                call = todo[j:][::-1]
                del todo[j:]
                return call
    return None


def _next(body: list[Tok], i: int) -> int | None:
    j = i + 1
    while j < len(body) and body[j].space:
        j += 1
    return j if j < len(body) else None


def _strip(toks: list[Tok]) -> list[Tok]:
    a, b = 0, len(toks)
    while a < b and toks[a].space:
        a += 1
    while b > a and toks[b - 1].space:
        b -= 1
    return toks[a:b]


def _arguments(todo: list[Tok]) -> tuple[list[list[Tok]], Tok] | None:
    """Pop `( a, b, ... )` off the stack when it comes next (spaces before it allowed): the
    arguments and the closing paren; None (the stack untouched) when no `(` follows."""
    k = len(todo) - 1
    while k >= 0 and todo[k].space:
        k -= 1
    if k < 0 or todo[k].text != "(":
        return None
    args: list[list[Tok]] = [[]]
    depth = 0
    j = k - 1
    while j >= 0:
        t = todo[j]
        if t.text in "([{" and len(t.text) == 1:
            depth += 1
        elif t.text in ")]}" and len(t.text) == 1:
            if depth == 0 and t.text == ")":
                del todo[j:]
                return ([] if args == [[]] or (len(args) == 1 and not _strip(args[0])) else args), t
            depth -= 1
        if t.text == "," and depth == 0:
            args.append([])
        else:
            args[-1].append(t)
        j -= 1
    return None
