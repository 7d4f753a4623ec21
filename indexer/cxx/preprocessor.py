"""A small C preprocessor: #defines, #if/#ifdef/#elif/#else nesting, function-like macro expansion.

Just enough for DispatchStub.h and for the macros a file defines for itself.
Conditions are evaluated by conditions.evaluate, three-valued: a line under a
condition that is unknown is kept, as if the #if were not there.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .conditions import Env, Truth, all_of, evaluate
from .scan import ByteOffsets, balanced_args, dec, join_continuations, norm, skip_literal, strip_comments


@dataclass(frozen=True)
class Define:
    name: str
    params: tuple[str, ...] | None  # None: object-like
    body: str

    @property
    def writes_body(self) -> bool:
        """A function-like macro whose expansion holds a `{`: a use writes a whole definition (or a block)."""
        return self.params is not None and "{" in self.body


_PASTE = re.compile(r"\s*##\s*")
_QUOTES = re.compile(r"[\"']")


def substitute(d: Define, args: list[str]) -> str:
    """Replace a function-like macro's parameters (with # and ##) by args; string and char
    literals of the body are left as written."""
    params = d.params or ()
    mapping: dict[str, str] = {}
    fixed = list(params)
    variadic = None
    if fixed and fixed[-1].endswith("..."):
        v = fixed.pop()
        variadic = v[:-3] or "__VA_ARGS__"
    for k, p in enumerate(fixed):
        mapping[p] = args[k] if k < len(args) else ""
    if variadic:
        mapping[variadic] = ", ".join(args[len(fixed):])

    def rep(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.startswith("#"):
            name = tok[1:].strip()
            if name in mapping:
                return '"' + norm(mapping[name]).replace("\\", "\\\\").replace('"', '\\"') + '"'
            return tok
        return mapping.get(tok, tok)

    pattern = _parameter_pattern(tuple(mapping))
    out = "".join(seg if literal else pattern.sub(rep, seg) for literal, seg in _segments(d.body))
    return _PASTE.sub("", out) if "##" in out else out


def _segments(body: str):
    """The body cut into (is a literal, text) pieces by the scanner."""
    if not _QUOTES.search(body):
        yield False, body
        return
    src = body.encode()
    i = last = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c in (0x22, 0x27):
            j = skip_literal(src, i)
            if j != i:
                yield False, dec(src[last:i])
                yield True, dec(src[i:j])
                i = last = j
                continue
        i += 1
    yield False, dec(src[last:])


@functools.lru_cache(maxsize=1024)
def _parameter_pattern(params: tuple[str, ...]) -> re.Pattern[str]:
    """`#param` and the parameters as whole words: the tokens of a macro body outside
    its literals that substitution may change (other words are passed over)."""
    words = "|".join(re.escape(p) for p in sorted(params, key=len, reverse=True))
    return re.compile(r"(?<!#)#(?!#)\s*\w+" + (rf"|\b(?:{words})\b" if words else ""))


@functools.lru_cache(maxsize=256)
def macro_call_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\s*\(")


def expand_text(text: str, defines: dict[str, Define], depth: int = 0) -> str:
    """Expand calls of the given function-like macros in text (recursively, bounded)."""
    if depth > 6 or not defines:
        return text
    pattern = macro_call_pattern(tuple(defines))
    src = text.encode()
    out: list[bytes] = []
    last = 0
    changed = False
    offsets = ByteOffsets(text)
    for m in pattern.finditer(text):
        start = offsets.of(m.start())
        if start < last:
            continue
        parsed = balanced_args(src, offsets.of(m.end() - 1))
        if parsed is None:
            continue
        args, end = parsed
        out.append(src[last:start])
        out.append(substitute(defines[m.group(1)], args).encode())
        last = end
        changed = True
    if not changed:
        return text
    out.append(src[last:])
    return expand_text(dec(b"".join(out)), defines, depth + 1)


_FN_DEFINE = re.compile(rb"#[ \t]*define[ \t]+(\w+)\(([^()]*)\)")
_LINE_SPACE = frozenset(b" \t\r\x0b\x0c")


def define_spans(src: bytes) -> list[tuple[int, int, int]]:
    """Function-like #defines read from the text: (offset of the name, offset
    after the parameters, end of the logical line). A `#define` inside the body
    of another (on one of its continuation lines) is part of that body."""
    out: list[tuple[int, int, int]] = []
    n = len(src)
    end = -1
    for m in _FN_DEFINE.finditer(src):
        if m.start() < end:
            continue  # on a continuation line of the #define before
        k = m.start()
        while k > 0 and src[k - 1] in _LINE_SPACE:
            k -= 1
        if k > 0 and src[k - 1] != 0x0A:
            continue  # not at the start of a line
        end = m.end()
        while True:
            j = src.find(b"\n", end)
            if j < 0:
                end = n
                break
            k = j - 1
            if k >= 0 and src[k] == 0x0D:
                k -= 1
            if k >= m.end() and src[k] == 0x5C:  # backslash: the line continues
                end = j + 1
                continue
            end = j
            break
        out.append((m.start(1), m.end(), end))
    return out


def text_define(src: bytes, span: tuple[int, int, int]) -> Define:
    """The #define at span (see define_spans), comments stripped from its body."""
    start, after, end = span
    head = dec(src[start:after])
    name, _, params = head.partition("(")
    names = tuple(p.strip() for p in params[:-1].replace("\\", " ").split(",") if p.strip())
    body = join_continuations(strip_comments(dec(src[after:end]))).strip()
    return Define(name, names, body)


_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\s*(.*)$")
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)$")


def define_line(line: str) -> Define | None:
    """The #define of one logical line (comments stripped, continuations joined), else None."""
    m = _DEFINE.match(line)
    if m is None:
        return None
    params = tuple(p.strip() for p in m.group(2)[1:-1].split(",") if p.strip()) if m.group(2) else None
    return Define(m.group(1), params, m.group(3).strip())

@dataclass(frozen=True, eq=False)
class Branch:
    """One branch of an #if/#elif/#else chain, inside its enclosing branch (None at file level)."""

    parent: Branch | None
    prior: tuple[str, ...]  # the conditions of the chain's branches before this one, as written
    condition: str  # this branch's condition as written ("1" for #else)


def conditional_items(text: str) -> list[tuple[str, Branch | None, str]]:
    """Logical lines of a header with the #if branch they sit in.

    Returns (kind, branch, line) with kind "define" or "line"."""
    stack: list[Branch] = []
    items: list[tuple[str, Branch | None, str]] = []
    for line in join_continuations(strip_comments(text)).splitlines():
        m = _DIRECTIVE.match(line)
        if m is None:
            items.append(("line", stack[-1] if stack else None, line))
            continue
        d, rest = m.group(1), m.group(2).strip()
        if d in ("if", "ifdef", "ifndef"):
            words = rest.split()
            name = words[0] if words else ""
            cond = rest if d == "if" else f"defined({name})" if d == "ifdef" else f"!defined({name})"
            stack.append(Branch(stack[-1] if stack else None, (), cond))
        elif d in ("elif", "else") and stack:
            b = stack.pop()
            stack.append(Branch(b.parent, b.prior + (b.condition,), rest if d == "elif" else "1"))
        elif d == "endif" and stack:
            stack.pop()
        elif d == "define":
            items.append(("define", stack[-1] if stack else None, line))
    return items


class Holds:
    """Whether lines of a branch are compiled in one Env: every enclosing branch taken (no
    branch before it holds, and its own condition does). Three-valued, each branch once."""

    def __init__(self, env: Env):
        self.env = env
        self._memo: dict[int, Truth] = {}

    def __call__(self, branch: Branch | None) -> Truth:
        chain = []
        while branch is not None and id(branch) not in self._memo:
            chain.append(branch)
            branch = branch.parent
        got: Truth = True if branch is None else self._memo[id(branch)]
        for b in reversed(chain):
            if got is not False:
                before = [evaluate(p, self.env) for p in b.prior]
                got = all_of([got, evaluate(b.condition, self.env)] + [None if x is None else not x for x in before])
            self._memo[id(b)] = got
        return got
