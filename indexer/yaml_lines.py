"""YAML with line numbers, built from PyYAML's event stream, for the checkout's YAML files.

PyTorch's YAML files are plain data: UTF-8, one document, mappings, lists and
scalars, no anchors, aliases or tags. Anything else is refused with one line
naming file:line, before it can cost anything: an alias is an error when it is
met, so a kilobyte of nested aliases (a "billion laughs" bomb) never expands.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .errors import SourceError

if TYPE_CHECKING:
    import yaml  # imported by load(): tg-query imports the YAML layer's types without reading any YAML

# Deeper than this is not PyTorch's YAML (its files nest four levels); it bounds the structures built.
MAX_DEPTH = 64
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp", "binary"))
# The characters YAML 1.1 refuses in a stream (PyYAML's Reader.NON_PRINTABLE); compiled by the first check
# (about 10 ms: tg-query imports this module without reading YAML).
_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
# How YAML itself detects a stream's encoding from its first bytes (YAML 1.2, 5.2).
_ENCODINGS = (
    (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"), (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
    (b"\xfe\xff", "UTF-16 (big-endian)"), (b"\xff\xfe", "UTF-16 (little-endian)"),
)


class LinedDict(dict):
    """A YAML mapping that remembers the 1-based line of itself and of each key."""

    line: int
    key_lines: dict[Any, int]


class LinedList(list):
    """A YAML sequence that remembers the 1-based line of itself and of each item."""

    line: int
    item_lines: list[int]


def with_lines(items: LinedList) -> list[tuple[Any, int]]:
    """The items of a YAML list with the line each starts on (a scalar item has no line of its own)."""
    return list(zip(items, items.item_lines))


def _line_col(text: str | bytes, offset: int) -> tuple[int, int]:
    newline = "\n" if isinstance(text, str) else b"\n"
    start = text.rfind(newline, 0, offset) + 1  # type: ignore[arg-type]
    return text.count(newline, 0, offset) + 1, offset - start + 1  # type: ignore[arg-type]


def _encoding(data: bytes) -> str | None:
    """The UTF-16/32 encoding the first bytes show (by mark, or by the NULs of an ASCII first character)."""
    for mark, name in _ENCODINGS:
        if data.startswith(mark):
            return name
    head = data[:4]
    if len(head) == 4 and head[:3] == b"\x00\x00\x00":
        return "UTF-32 (big-endian)"
    if len(head) == 4 and head[1:] == b"\x00\x00\x00":
        return "UTF-32 (little-endian)"
    if len(head) >= 2 and head[0] == 0 and head[1] != 0:
        return "UTF-16 (big-endian)"
    if len(head) >= 2 and head[0] != 0 and head[1] == 0:
        return "UTF-16 (little-endian)"
    return None


def decode(data: bytes, path: str) -> str:
    """A YAML file's bytes as text; anything but UTF-8 is an error naming path:line and the bytes."""
    encoding = _encoding(data)
    if encoding is not None:
        raise SourceError(f"{path}:1: the file is {encoding}, not UTF-8; save it as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        bad = " ".join(f"0x{b:02x}" for b in data[exc.start:exc.end])
        raise SourceError(f"{path}:{line}: bytes that are not UTF-8 ({bad} at column {col})") from None


def _check_characters(text: str, path: str) -> None:
    found = re.search(_NON_PRINTABLE, text)  # re's cache keeps the compiled pattern
    if found is None:
        return
    line, col = _line_col(text, found.start())
    char = found.group()
    what = "a NUL byte" if char == "\0" else f"the control character U+{ord(char):04X}"
    raise SourceError(f"{path}:{line}: {what} at column {col}; YAML text cannot hold it")


def load(text: str, path: str) -> Any:
    """Parse YAML text into LinedDict, LinedList and scalars; every problem is a SourceError naming path:line."""
    global yaml  # the module _Builder uses
    import yaml

    # libyaml is about ten times faster; the pure-Python parser gives the same events (wheels ship libyaml)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    _check_characters(text, path)
    try:
        return _Builder(path).run(yaml.parse(text, Loader=loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        # libyaml places the end of a stream cut inside a line on the line after it, which does not exist
        line = min(mark.line + 1, text.count("\n") + 1) if mark is not None else 0
        problem = (exc.problem or exc.context or "malformed YAML").strip()
        raise SourceError(f"{path}:{line}: malformed YAML: {problem}") from None
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SourceError(f"{path}: malformed YAML: {first}") from None


_NO_KEY = object()


class _Builder:
    """Events -> values, with an explicit stack (no recursion, no shared nodes to expand)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.resolver = yaml.resolver.Resolver()
        self.scalars = yaml.constructor.SafeConstructor()
        # One frame per open collection: [container, key waiting for its value (or _NO_KEY), the key's line]
        self.frames: list[list[Any]] = []
        self.root: Any = None
        self.documents = 0

    def fail(self, event: yaml.Event, message: str) -> SourceError:
        return SourceError(f"{self.path}:{event.start_mark.line + 1}: {message}")

    def run(self, events: Any) -> Any:
        for event in events:
            kind = type(event)
            if kind is yaml.ScalarEvent:
                self.check(event)
                self.place(self.scalar(event), event)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                self.open(event, kind is yaml.MappingStartEvent)
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                container = self.frames.pop()[0]
                self.place(container, event, container.line)
            elif kind is yaml.AliasEvent:
                raise self.fail(event, f"a YAML alias (*{event.anchor}); PyTorch's YAML files use none, write the value out")
            elif kind is yaml.DocumentStartEvent:
                self.documents += 1
                if self.documents > 1:
                    raise self.fail(event, "a second YAML document (`---`); the file must hold one")
        return self.root

    def check(self, event: yaml.NodeEvent) -> None:
        if event.anchor is not None:
            raise self.fail(event, f"a YAML anchor (&{event.anchor}); PyTorch's YAML files use none")

    def open(self, event: yaml.CollectionStartEvent, mapping: bool) -> None:
        self.check(event)
        if event.tag not in (None, "!", _MAP if mapping else _SEQ):
            raise self.fail(event, f"the YAML tag {event.tag!r} does not fit a {'mapping' if mapping else 'list'}")
        if self.frames and isinstance(self.frames[-1][0], LinedDict) and self.frames[-1][1] is _NO_KEY:
            raise self.fail(event, "a mapping key must be a plain value, not a list or a mapping")
        if len(self.frames) >= MAX_DEPTH:
            raise self.fail(event, f"nested more than {MAX_DEPTH} levels deep")
        container: LinedDict | LinedList = LinedDict() if mapping else LinedList()
        container.line = event.start_mark.line + 1
        if mapping:
            container.key_lines = {}  # type: ignore[union-attr]
        else:
            container.item_lines = []  # type: ignore[union-attr]
        self.frames.append([container, _NO_KEY, 0])

    def scalar(self, event: yaml.ScalarEvent) -> Any:
        # The resolver's tag decides the Python type, as in yaml.safe_load (a plain string,
        # most scalars of native_functions.yaml, is its own value).
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR:
            return event.value
        if tag not in _SCALAR_TAGS:
            raise self.fail(event, f"the YAML tag {tag!r} is not plain data")
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            return self.scalars.yaml_constructors[tag](self.scalars, node)
        except (yaml.YAMLError, ValueError, TypeError) as exc:
            raise self.fail(event, f"{tag.rpartition(':')[2]} value {event.value!r} cannot be read ({exc})") from None

    def place(self, value: Any, event: yaml.Event, line: int | None = None) -> None:
        """A finished value into the collection that holds it (as an item, a key or a key's value)."""
        at = event.start_mark.line + 1 if line is None else line
        if not self.frames:
            self.root = value
            return
        frame = self.frames[-1]
        container = frame[0]
        if isinstance(container, LinedList):
            container.append(value)
            container.item_lines.append(at)
        elif frame[1] is _NO_KEY:
            if value in container:
                raise self.fail(event, f"duplicate key {value!r}")
            frame[1], frame[2] = value, at
        else:
            container[frame[1]] = value
            container.key_lines[frame[1]] = frame[2]
            frame[1] = _NO_KEY
