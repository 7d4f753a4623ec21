"""Objective-C++ read as C++: rewrites of the same length that keep every line (prepare.py runs them).

tree-sitter-cpp knows no Objective-C. A message send, `[mpsGraph meanOfTensor:t axes:axes name:nil]`,
is a parse error it often does not recover from: in 2.6.0's mps/operations/LossOps.mm one ERROR node
ran from line 23 to the end of the file, so the declarations and calls of its functions were lost. Each
construct becomes C++ with the same bytes counted, the C++ written inside it untouched:

- a message `[recv sel:a kw:b]` becomes the comma expression `(recv,sel,a,kw,b)`: the brackets parentheses,
  the blank before each selector keyword a comma (or, where that blank is only newlines, the keyword's
  first letter), each keyword's colon a comma. The receiver and the arguments stay expressions, so the
  calls written in them are read as calls (`cachedGraph->graph()`);
- the literals `@"text"`, `@(expr)`, `@42` lose their `@`; an array `@[a, b]` becomes `(a, b)`, a
  dictionary `@{k : v}` becomes `(k , v)` (a braced list is no expression in a comma expression);
- a selector keyword that C++ reserves (`[NSMutableDictionary new]`) becomes `_` and blanks;
- `@autoreleasepool { ... }` is a block; `@available(...)` is `1`; `@selector(...)` is `0`;
- a block `^(params) { ... }`, `^T(params) { ... }` or `^{ ... }` becomes a lambda (see _blocks); a block
  pointer `(^name)` a function pointer `(*name)`;
- an Objective-C class, from `@interface`, `@implementation` or `@protocol` to its `@end`, is blanked;
- the ownership qualifiers (`__block`, `__bridge`, `__weak` ...) and nullability ones are blanked.

A message is recognised by its shape, which C++ never has: a `[` where an expression starts (after an
operator, `(`, `,`, `;`, a brace, `return`), holding an operand, a blank, then a name followed by `:` or
by `]`. So a C++ file's subscripts, lambda captures and attributes are never touched; the other rewrites
run only in a .mm file or one that sends a message. Comments, literals and preprocessor lines are skipped.
"""

from __future__ import annotations

import bisect
import re

from .scan import Scanner, skip_literal

_SPACE = b" \t\r\n\x0b\x0c"
_NAME_START = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME = _NAME_START | frozenset(b"0123456789")
_OPERAND_END = _NAME | frozenset(b")]}>\"'")  # what an operand (a receiver, an argument) can end with
_EXPRESSION_START = frozenset(b"=(,:[{};?!&|+-*/%<>^~")  # what a message's `[` may follow
_CLOSE = {0x28: 0x29, 0x5B: 0x5D, 0x7B: 0x7D}
_BRACKETS = frozenset(b"()[]{}")
# Selector names that C++ reserves: in the comma expression they would be a parse error of their own.
_RESERVED = frozenset(b"new delete class struct union enum template typename operator this default case switch "
                      b"for while do if else return goto break continue sizeof throw try catch using namespace "
                      b"public private protected virtual friend static const volatile auto register extern "
                      b"inline explicit mutable typedef and or not xor bitand bitor compl".split())

# Where a message may start: a `[` followed by a name or an opening bracket (a receiver), with a blank
# and a name later on before the next `]`, `;` or brace; each is checked by _message.
_CANDIDATE = re.compile(rb"\[(?=[ \t\r\n]*[A-Za-z_(\[@])")
# A message with a simple receiver (`[x alloc]`, `[cachedGraph->graph() foo:a]`): a file without one is
# taken to send none (a message to a message's result holds one).
_MESSAGE_HINT = re.compile(rb"\[[ \t\r\n]*[A-Za-z_][\w.>()<*-]*[ \t\r\n]+[A-Za-z_]\w*(?::(?!:)|[ \t\r\n]*\])")
_QUALIFIERS = re.compile(rb"\b(?:__block|__bridge(?:_retained|_transfer)?|__weak|__strong|__autoreleasing|"
                         rb"__unsafe_unretained|_Nullable|_Nonnull|_Null_unspecified|__nullable|__nonnull)\b")
_AT = re.compile(rb"@(?=[\"(\[{0-9-]|(?:YES|NO|true|false)\b|(autoreleasepool|available|selector)\b)")
# A block: `^`, maybe its return type (a name, `*`, `&`, template arguments) or a macro writing the type and the
# parameters (`^BinaryOpFn(cachedGraph, a, b) {`), then the parameters and `{`, or `{` alone.
_BLOCK = re.compile(rb"\^[ \t]*((?:[A-Za-z_][\w:]*(?:<[^;{}()<>]*(?:<[^;{}()<>]*>[^;{}()<>]*)*>)?[ \t*&]*)?)(?=[({])")
_CLASS = re.compile(rb"@(?:interface|implementation|protocol)\b(?![ \t]*[A-Za-z_]\w*[ \t]*;)")  # not `@protocol X;`
_END = re.compile(rb"@end\b")
_BLOCK_POINTER = re.compile(rb"\(\^(?=[ \t]*[A-Za-z_]?\w*[ \t]*\))")  # `void (^block)()`, `(^BinaryOpBlock)(...)`


def is_objective_c(path: str) -> bool:
    return path.lower().endswith((".mm", ".m"))


def objective_c(source: bytes, objc_file: bool) -> bytes:
    """The source with its Objective-C written as C++ (see the module's docstring), offsets and lines kept."""
    messages = objc_file or (b"[" in source and _MESSAGE_HINT.search(source) is not None)
    if not messages and not objc_file:
        return source
    scanner = Scanner(source)
    out = bytearray(source)
    sent = _messages(source, scanner, out) if messages else 0
    if not (objc_file or sent):
        return source
    _literals(source, scanner, out)
    _blocks(source, scanner, out)
    _classes(source, scanner, out)
    for m in _QUALIFIERS.finditer(source):
        if not scanner.skip(m.start()):
            out[m.start():m.end()] = b" " * (m.end() - m.start())
    return bytes(out)


def _code(src: bytes, start: int, end: int):
    """(offset, byte, depth) of each byte of src[start:end] outside comments and literals, depth being the
    brackets open after it (an opening one counted, a closing one popped). It ends early at a closing bracket
    that does not match the one open."""
    stack: list[int] = []
    j = start
    while j < end:
        c = src[j]
        if c in (0x2F, 0x22, 0x27):
            k = skip_literal(src, j)
            if k != j:
                j = k
                continue
        if c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c in (0x29, 0x5D, 0x7D):
            if not stack or c != stack[-1]:
                return
            stack.pop()
        yield j, c, len(stack)
        j += 1


def _close(src: bytes, i: int, n: int) -> int:
    """The offset of the bracket closing the one at i (skipping literals and nested brackets), or -1."""
    return next((j for j, _c, depth in _code(src, i, n) if depth == 0), -1)


def _preceded_by_expression_start(src: bytes, i: int, scanner: Scanner) -> bool:
    """Whether what comes before offset i, past blanks, comments and preprocessor lines, lets an expression start."""
    j = i - 1
    while True:
        while j >= 0 and src[j] in _SPACE:
            j -= 1
        if j < 0:
            return True
        skipped = _span_start(scanner.literals, j)
        if skipped is None:
            skipped = _span_start(scanner.directives, j)
        if skipped is None:
            break
        j = skipped - 1
    if src[j] in _EXPRESSION_START:
        return True
    return src[max(0, j - 5):j + 1] == b"return" and (j < 6 or src[j - 6] not in _NAME)


def _span_start(spans: list[tuple[int, int]], offset: int) -> int | None:
    """The start of the span (start, end) holding offset, if any (spans sorted and apart)."""
    k = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
    return spans[k][0] if k >= 0 and spans[k][0] <= offset < spans[k][1] else None


def _keywords(src: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    """The selector keywords of the message whose content is src[start:end] (its brackets matched), at its own
    depth: (the blank run's start, the keyword's start, the colon after it or -1)."""
    found = []
    for j, c, depth in _code(src, start, end):
        if depth or c in _BRACKETS:
            continue
        if c in (0x3B, 0x2C) and not found:
            return []  # a statement before any selector, a capture list or an initializer: not a message
        if j > start and ((c in _SPACE and src[j - 1] in _OPERAND_END) or
                          (c in _NAME_START and src[j - 1] in b")]" and found)):
            k = j  # a blank after an operand, or a name right after `)` (`axis:((NSUInteger)0)name:nil`)
            while k < end and src[k] in _SPACE:
                k += 1
            if k < end and src[k] in _NAME_START:
                e = k
                while e < end and src[e] in _NAME:
                    e += 1
                if e < end and src[e] == 0x3A and (e + 1 >= end or src[e + 1] != 0x3A):
                    found.append((j, k, e))
                elif not found and src[e:end].strip(_SPACE) == b"":
                    return [(j, k, -1)]  # a unary message, `[x alloc]`
    return found


def _messages(src: bytes, scanner: Scanner, out: bytearray) -> int:
    n, count = len(src), 0
    for m in _CANDIDATE.finditer(src):
        i = m.start()
        if scanner.skip(i) or not _preceded_by_expression_start(src, i, scanner):
            continue
        close = _close(src, i, n)
        if close < 0:
            continue
        start = i + 1
        while start < close and src[start] in _SPACE:
            start += 1
        keywords = _keywords(src, start, close)
        if not keywords:
            continue
        out[i], out[close] = 0x28, 0x29
        for blank, keyword, colon in keywords:
            _comma_before(out, src, blank, keyword)
            name_end = colon if colon >= 0 else close
            while src[name_end - 1] in _SPACE:
                name_end -= 1
            if src[keyword:name_end] in _RESERVED:  # `[[NSMutableDictionary new] autorelease]`
                at = keyword + 1 if out[keyword] == 0x2C else keyword  # the comma may have taken its first letter
                out[at:name_end] = b"_" + b" " * (name_end - at - 1)
            if colon >= 0:
                out[colon] = 0x2C
        count += 1
    return count


def _comma_before(out: bytearray, src: bytes, blank: int, keyword: int) -> None:
    """A comma in the blank run [blank, keyword) at its last character that is not a newline, else over the
    keyword's first letter (a selector keyword's name is not a fact)."""
    for k in range(keyword - 1, blank - 1, -1):
        if src[k] in b" \t\r\x0b\x0c":
            out[k] = 0x2C
            return
    out[keyword] = 0x2C


def _literals(src: bytes, scanner: Scanner, out: bytearray) -> None:
    n = len(src)
    for m in _AT.finditer(src):
        at = m.start()
        if scanner.skip(at):
            continue
        word = m.group(1)
        if word == b"autoreleasepool":
            out[at:m.end(1)] = b" " * (m.end(1) - at)
            continue
        if word in (b"available", b"selector"):
            paren = m.end(1)
            while paren < n and src[paren] in b" \t":
                paren += 1
            close = _close(src, paren, n) if paren < n and src[paren] == 0x28 else -1
            if close < 0:
                continue
            out[at:close + 1] = bytes(0x0A if c == 0x0A else 0x20 for c in src[at:close + 1])
            out[at] = 0x31 if word == b"available" else 0x30
            continue
        out[at] = 0x20
        c = src[at + 1]
        if c in (0x5B, 0x7B):  # @[ ... ] and @{ ... }: a comma expression (a braced list is none, as an argument)
            close = _close(src, at + 1, n)
            if close < 0:
                continue
            out[at + 1], out[close] = 0x28, 0x29
            last = close - 1
            while last > at + 1 and src[last] in _SPACE:
                last -= 1
            if src[last] == 0x2C:  # a trailing comma, which a comma expression cannot end with
                out[last] = 0x20
            if c == 0x7B:
                _dictionary_colons(src, at + 2, close, out)


def _dictionary_colons(src: bytes, start: int, end: int, out: bytearray) -> None:
    """`k : v` pairs of a dictionary literal at its own depth: each colon (not `::`) a comma."""
    for j, c, depth in _code(src, start, end):
        if c == 0x3A and not depth and src[j + 1:j + 2] != b":" and src[j - 1:j] != b":":
            out[j] = 0x2C


def _classes(src: bytes, scanner: Scanner, out: bytearray) -> None:
    """An Objective-C class's `@interface`, `@implementation` or `@protocol` up to its `@end` is blanked (newlines
    kept): its methods are Objective-C, not C++ functions, and as C++ they are parse errors that run on."""
    end = 0
    for m in _CLASS.finditer(src):
        if m.start() < end or scanner.skip(m.start()):
            continue
        close = _END.search(src, m.end())
        while close is not None and scanner.skip(close.start()):
            close = _END.search(src, close.end())
        if close is None:
            return
        end = close.end()
        out[m.start():end] = bytes(0x0A if c == 0x0A else 0x20 for c in src[m.start():end])


def _blocks(src: bytes, scanner: Scanner, out: bytearray) -> None:
    """A block literal becomes a lambda: `^T(params) {` -> `[] (params) {` (its return type blanked), and where it
    has none, `^(params) {` or `^{` take the blank before `^` (` ^{` -> `[]{`) or the one before `{`
    (`^(p) {` -> `[](p){`, the parameters one to the right); where there is no room it stays. A block
    pointer, `void (^block)()`, becomes a function pointer, `void (*block)()`."""
    n = len(src)
    for m in _BLOCK_POINTER.finditer(src):
        if not scanner.skip(m.start()):
            out[m.start() + 1] = 0x2A
    for m in _BLOCK.finditer(src):
        at, after = m.start(), m.end()
        if scanner.skip(at):
            continue
        if src[after] == 0x28:
            close = _close(src, after, n)
            if close < 0:
                continue
            brace = close + 1
            while brace < n and src[brace] in b" \t":
                brace += 1
            if brace >= n or src[brace] != 0x7B:
                continue  # `a ^ (b)`, `a ^ f(b)`: an exclusive or
        else:
            close, brace = -1, after
        if m.group(1):  # a return type, or a macro writing the type and the parameters
            out[at:m.end(1)] = b"[]" + b" " * (m.end(1) - at - 2) if m.end(1) - at >= 2 else out[at:m.end(1)]
        elif at > 0 and src[at - 1] in b" \t":  # ` ^(` -> `[](`
            out[at - 1], out[at] = 0x5B, 0x5D
        elif after > at + 1:  # `^ (` or `^ {`
            out[at], out[at + 1] = 0x5B, 0x5D
        elif close >= 0 and brace > close + 1:  # `^(p) {` -> `[](p){`
            out[at:close + 2] = b"[]" + src[after:close + 1]
