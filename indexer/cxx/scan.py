"""The one literal-aware byte scanner every text pass over C++ source uses.

What counts as "not code" is decided here only: `//` and `/* */` comments,
string and char literals (`'` after a letter or digit is a digit separator,
1'000), raw strings `R"x(...)x"`, and backslash-newline line continuations.

Every function is linear in the bytes it looks at. `Scanner` reads a whole
source once, on first need, and then answers "where does this bracket close"
and "is this offset in a literal" from tables, so the passes that ask it at
many places (every macro site, every call) never rescan the text.
"""

from __future__ import annotations

import bisect
import re

_WS = re.compile(r"\s+")
_TEMPLATE_KEYWORD = re.compile(r"(\.|->|::)\s*template\b\s*")
_CONTINUATION = re.compile(r"\\\r?\n")
_OPEN = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSE = {v: k for k, v in _OPEN.items()}
_PUNCT = re.compile(rb"[()\[\]{},\"'/]")
_RAW_DELIMITER = re.compile(rb'[^()\\\s"]{0,16}\(')  # R"delim( : at most 16 characters, no space, paren or backslash


def norm(text: str) -> str:
    """Whitespace runs become one space, ends trimmed."""
    return " ".join(text.split())


def nospace(text: str) -> str:
    """All whitespace and comments removed (`f(x) // why\n .g()` -> `f(x).g()`); literals kept. The `template`
    that tells a dependent member template apart (`l.template launch<T, 1>(...)`, `T::template rebind<U>`)
    goes too: it only guides the parse, and glued to the name it would make another (`l.templatelaunch<T,1>`)."""
    if "/" in text and ("//" in text or "/*" in text):
        text = strip_comments(text)
    if "template" in text:
        text = _TEMPLATE_KEYWORD.sub(r"\1", text)
    return _WS.sub("", text) if (" " in text or "\n" in text or "\t" in text or "\r" in text) else text


def dec(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def join_continuations(text: str) -> str:
    """Backslash-newline becomes a space (a macro body read as one line)."""
    return _CONTINUATION.sub(" ", text)


def skip_literal(src: bytes, i: int) -> int:
    """If src[i] starts a comment, string or char literal, return the index after it, else i.

    A string or char literal without its closing quote ends at the end of its line; a raw
    string without its closing delimiter, and a block comment without `*/`, at the end of src."""
    c = src[i]
    n = len(src)
    if c == 0x2F and i + 1 < n:  # '/'
        if src[i + 1] == 0x2F:
            j = src.find(b"\n", i)
            return n if j < 0 else j
        if src[i + 1] == 0x2A:
            j = src.find(b"*/", i + 2)
            return n if j < 0 else j + 2
        return i
    if c == 0x22 or c == 0x27:  # " '
        if c == 0x27 and i > 0 and chr(src[i - 1]).isalnum():
            return i  # digit separator 1'000
        if c == 0x22 and i > 0 and src[i - 1] == 0x52:  # R"delim( ... )delim"
            m = _RAW_DELIMITER.match(src, i + 1)
            if m is not None:
                close = b")" + src[i + 1 : m.end() - 1] + b'"'
                j = src.find(close, m.end())
                return n if j < 0 else j + len(close)
        j = i + 1
        while j < n:
            d = src[j]
            if d == 0x5C:
                j += 2
                continue
            if d == c or d == 0x0A:
                return j + 1
            j += 1
        return n
    return i


def code_marks(src: bytes, marks: re.Pattern[bytes], start: int, stop: int):
    """The offsets from start to stop where `marks` (a pattern of single bytes that holds `"`, `'` and `/`) matches
    in code, not in a comment, string or char literal; a literal that starts before stop is passed whole."""
    i = start
    while i < stop:
        m = marks.search(src, i, stop)
        if m is None:
            return
        i = m.start()
        j = skip_literal(src, i)
        if j != i:
            i = j
            continue
        yield i
        i += 1


def balanced_args(src: bytes, open_paren: int) -> tuple[list[str], int] | None:
    """Split the parenthesised argument list starting at src[open_paren] == '('.

    Returns (arguments as text, index after the closing paren) or None when
    the list is not closed. Commas nested in (), [] and {} do not split.
    One scan from open_paren: for many lists of one source, use Scanner.args."""
    if open_paren >= len(src) or src[open_paren] != 0x28:
        return None
    depth = 0
    commas: list[int] = []
    i = open_paren
    search = _PUNCT.search
    while True:
        m = search(src, i)
        if m is None:
            return None
        i = m.start()
        c = src[i]
        if c in (0x22, 0x27, 0x2F):
            j = skip_literal(src, i)
            i = j if j != i else i + 1
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                return _split(src, open_paren, commas, i), i + 1
        elif depth == 1:  # a comma
            commas.append(i)
        i += 1


def _split(src: bytes, open_paren: int, commas: list[int], close: int) -> list[str]:
    args: list[str] = []
    start = open_paren + 1
    for k in commas:
        args.append(dec(src[start:k].strip()))
        start = k + 1
    last = src[start:close].strip()
    if last or args:
        args.append(dec(last))
    return args


def skip_space(src: bytes, i: int) -> int:
    """The first offset from i that is not whitespace, a backslash or a comment."""
    n = len(src)
    while i < n:
        if src[i] in b" \t\r\n\\":
            i += 1
            continue
        j = skip_literal(src, i) if src[i] == 0x2F else i
        if j != i:
            i = j
            continue
        return i
    return i


def strip_comments(text: str) -> str:
    """Comments replaced by a space (or by their newlines); literals kept as written."""
    out = []
    src = text.encode("utf-8", "replace")
    i = 0
    n = len(src)
    last = 0
    search = re.compile(rb"[/\"']").search
    while i < n:
        m = search(src, i)
        if m is None:
            break
        i = m.start()
        j = skip_literal(src, i)
        if j == i:
            i += 1
            continue
        if src[i] == 0x2F:
            out.append(src[last:i])
            out.append(b"\n" * src[i:j].count(b"\n") or b" ")
            last = j
        i = j
    out.append(src[last:])
    return dec(b"".join(out))


_LITERAL_START = re.compile(rb"[/\"']")
BRACES = re.compile(rb"[{}\"'/]")  # a brace, or what may start a literal
_BRACE_OR_END = re.compile(rb"[{;\"'/]")


class Scanner:
    """One source, asked many times: argument lists, bodies, literals and preprocessor lines.

    Every scan records what it passes, so no byte is scanned twice for the same question:
    a list scanned from one paren records where every paren inside it closes (or that it
    does not), with its top-level commas; a body scanned from one brace records its inner
    braces; the search for the next `{` or `;` records the stretch it crossed. Literal and
    preprocessor-line spans are read once, on first need. Results equal the one-scan
    functions (balanced_args, ...) started at the same offset."""

    def __init__(self, src: bytes):
        self.src = src
        self._lists: dict[int, tuple[int, list[int]] | None] = {}  # '(' -> (its ')', top-level commas) | None
        self._braces: dict[int, int | None] = {}  # '{' -> its '}' | None: unclosed
        self._stretches: list[tuple[int, int, int]] = []  # (from, to, the '{' or ';' or -1 at to) searched
        self._literals: list[tuple[int, int]] | None = None
        self._lines: list[int] | None = None
        self._directives: list[tuple[int, int]] | None = None

    def args(self, open_paren: int) -> tuple[list[str], int] | None:
        """balanced_args(src, open_paren), from what earlier scans recorded where they can."""
        src = self.src
        if open_paren >= len(src) or src[open_paren] != 0x28:
            return None
        if open_paren not in self._lists:
            self._scan_list(open_paren)
        got = self._lists[open_paren]
        if got is None:
            return None
        close, commas = got
        return _split(src, open_paren, commas, close), close + 1

    def _scan_list(self, open_paren: int) -> None:
        src, lists = self.src, self._lists
        stack: list[tuple[int, list[int]]] = []
        i = open_paren
        search = _PUNCT.search
        while True:
            m = search(src, i)
            if m is None:
                for k, _ in stack:
                    lists[k] = None
                return
            i = m.start()
            c = src[i]
            if c in (0x22, 0x27, 0x2F):
                j = skip_literal(src, i)
                i = j if j != i else i + 1
                continue
            if c in _OPEN:
                if c == 0x28 and i in lists and i != open_paren:  # scanned before: jump past it
                    got = lists[i]
                    if got is None:
                        for k, _ in stack:
                            lists[k] = None
                        return
                    i = got[0] + 1
                    continue
                stack.append((i, []))
            elif c in _CLOSE:
                k, commas = stack.pop()
                if src[k] == 0x28:
                    lists[k] = (i, commas)
                if not stack:
                    return
            elif c == 0x2C:
                stack[-1][1].append(i)
            i += 1

    def body_end(self, i: int) -> int | None:
        """From i, the next '{' (before any ';'), and the index after its match; else None."""
        at = self._next_brace_or_semicolon(i)
        if at < 0 or self.src[at] == 0x3B:
            return None
        if at not in self._braces:
            self._scan_body(at)
        close = self._braces[at]
        return None if close is None else close + 1

    def _next_brace_or_semicolon(self, i: int) -> int:
        """The offset of the first '{' or ';' outside literals from i, or -1."""
        k = bisect.bisect_right(self._stretches, (i, 1 << 62, 0)) - 1
        if k >= 0 and self._stretches[k][0] <= i <= self._stretches[k][1]:
            return self._stretches[k][2]
        src, n, start = self.src, len(self.src), i
        search = _BRACE_OR_END.search
        while True:
            m = search(src, i)
            if m is None:
                found, i = -1, n
                break
            i = m.start()
            j = skip_literal(src, i)
            if j != i:
                i = j
                continue
            if src[i] in (0x7B, 0x3B):
                found = i
                break
            i += 1
        bisect.insort(self._stretches, (start, i, found))
        return found

    def _scan_body(self, brace: int) -> None:
        src, braces = self.src, self._braces
        stack: list[int] = []
        i = brace
        search = BRACES.search
        while True:
            m = search(src, i)
            if m is None:
                for k in stack:
                    braces[k] = None
                return
            i = m.start()
            c = src[i]
            if c == 0x7B:
                if i in braces and i != brace:  # scanned before: jump past it
                    if braces[i] is None:
                        for k in stack:
                            braces[k] = None
                        return
                    i = braces[i] + 1
                    continue
                stack.append(i)
            elif c == 0x7D:
                braces[stack.pop()] = i
                if not stack:
                    return
            else:
                j = skip_literal(src, i)
                if j != i:
                    i = j
                    continue
            i += 1

    @property
    def literals(self) -> list[tuple[int, int]]:
        """(start, end) of every comment, string and char literal, reading the source from its start."""
        if self._literals is None:
            out = []
            src, i, n = self.src, 0, len(self.src)
            search = _LITERAL_START.search
            while i < n:
                m = search(src, i)
                if m is None:
                    break
                i = m.start()
                j = skip_literal(src, i)
                if j != i:
                    out.append((i, j))
                    i = j
                else:
                    i += 1
            self._literals = out
        return self._literals

    def in_literal(self, offset: int) -> bool:
        """Whether offset is inside a comment, string or char literal."""
        return self.literal_end(offset) is not None

    def literal_end(self, offset: int) -> int | None:
        """The end of the comment, string or char literal offset is in; None outside them."""
        spans = self.literals
        k = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
        if k >= 0 and spans[k][0] <= offset < spans[k][1]:
            return spans[k][1]
        return None

    def line_start(self, offset: int) -> int:
        """The offset where offset's physical line starts."""
        if self._lines is None:
            self._lines = [m.start() for m in re.finditer(rb"\n", self.src)]
        k = bisect.bisect_left(self._lines, offset)
        return self._lines[k - 1] + 1 if k else 0

    @property
    def directives(self) -> list[tuple[int, int]]:
        """(start, end) of every preprocessor line (a `#` line and its continuations), in order."""
        if self._directives is None:
            self._directives = self._read_directives()
        return self._directives

    def in_directive(self, offset: int) -> bool:
        """Whether offset is on a preprocessor line (a `#` line and its continuations)."""
        directives = self.directives
        k = bisect.bisect_right(directives, (offset, 1 << 62)) - 1
        return k >= 0 and directives[k][0] <= offset < directives[k][1]

    def _read_directives(self) -> list[tuple[int, int]]:
        src = self.src
        out: list[tuple[int, int]] = []
        end = -1
        maybe_literal = _literal_possible(src)
        for m in _DIRECTIVE_START.finditer(src):
            if m.start() < end:
                continue
            if maybe_literal(m.start()) and self.in_literal(m.end() - 1):
                continue
            end = logical_line_end(src, m.end())
            out.append((m.start(), end))
        return out

    def skip(self, offset: int) -> bool:
        """Whether offset is not code: in a literal or on a preprocessor line."""
        return self.in_literal(offset) or self.in_directive(offset)


_DIRECTIVE_START = re.compile(rb"^[ \t]*#", re.M)


def _literal_possible(src: bytes):
    """A test of line starts: False where a line cannot start inside a comment or literal, so the
    literal spans need not be read there.

    A line starts inside one only after a line that ends with a backslash, after a raw string's
    `R"`, or inside a block comment; and inside a block comment the last `/*` written before it
    comes after the last `*/` (a `*/` after the opening `/*` would have closed it)."""
    raw = src.find(b'R"')
    opens: list[int] = []
    closes: list[int] = []
    if b"/*" in src:
        for m in _COMMENT_MARKS.finditer(src):
            (opens if m.group() == b"/*" else closes).append(m.start())

    def possible(line_start: int) -> bool:
        if _after_continuation(src, line_start) or 0 <= raw < line_start:
            return True
        k = bisect.bisect_left(opens, line_start) - 1
        if k < 0:
            return False
        j = bisect.bisect_left(closes, line_start) - 1
        return j < 0 or closes[j] < opens[k]

    return possible


_COMMENT_MARKS = re.compile(rb"/\*|\*/")


def _after_continuation(src: bytes, line_start: int) -> bool:
    """Whether the line before the one starting at line_start ends with a backslash."""
    k = line_start - 2
    if k >= 0 and src[k] == 0x0D:
        k -= 1
    return k >= 0 and src[k] == 0x5C


def logical_line_end(src: bytes, i: int) -> int:
    """The end of the logical line i is on (backslash-newline continues it): the offset of its newline."""
    n = len(src)
    while True:
        j = src.find(b"\n", i)
        if j < 0:
            return n
        k = j - 1
        if k >= 0 and src[k] == 0x0D:
            k -= 1
        if k < i or src[k] != 0x5C:
            return j
        i = j + 1


class ByteOffsets:
    """str offsets -> UTF-8 byte offsets, for offsets asked in increasing order (one pass)."""

    def __init__(self, text: str):
        self.text = text
        self.ascii = text.isascii()  # then str and byte offsets agree
        self.at = self.byte = 0

    def of(self, k: int) -> int:
        if self.ascii:
            return k
        if k < self.at:
            self.at = self.byte = 0
        self.byte += len(self.text[self.at : k].encode())
        self.at = k
        return self.byte
