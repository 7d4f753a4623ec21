"""YAML with line numbers: PyYAML's composer keeps marks, we keep them on the values."""

from __future__ import annotations

from typing import Any

import yaml

from .errors import SourceError

try:  # libyaml is about ten times faster; the pure-Python loader gives the same nodes
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - wheels ship libyaml
    _Loader = yaml.SafeLoader


class LinedDict(dict):
    """A YAML mapping that remembers the 1-based line of itself and of each key."""

    line: int
    key_lines: dict[Any, int]


class LinedList(list):
    line: int


def _convert(node: yaml.Node, path: str, scalars: yaml.constructor.SafeConstructor) -> Any:
    if isinstance(node, yaml.MappingNode):
        out = LinedDict()
        out.line = node.start_mark.line + 1
        out.key_lines = {}
        for key_node, value_node in node.value:
            key = _convert(key_node, path, scalars)
            if key in out:
                raise SourceError(f"{path}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
            out[key] = _convert(value_node, path, scalars)
            out.key_lines[key] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        seq = LinedList(_convert(item, path, scalars) for item in node.value)
        seq.line = node.start_mark.line + 1
        return seq
    # A scalar: the resolver's tag decides the Python type, as in yaml.safe_load (a plain string,
    # most scalars of native_functions.yaml, is its own value).
    if node.tag == _STR:
        return node.value
    return scalars.construct_object(node)


_STR = "tag:yaml.org,2002:str"


def load(text: str, path: str) -> Any:
    """Parse YAML text; a syntax error becomes a SourceError naming path:line."""
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = (exc.problem or exc.context or "malformed YAML").strip()
        raise SourceError(f"{path}:{line}: malformed YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise SourceError(f"{path}: malformed YAML: {exc}") from None
    if node is None:
        return None
    return _convert(node, path, yaml.constructor.SafeConstructor())
