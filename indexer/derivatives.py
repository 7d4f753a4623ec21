"""tools/autograd/derivatives.yaml -> DerivativeFact.

An entry names an op by its schema and gives a formula per input (keys may join
several inputs with commas: `self, other: ...`), forward-mode formulas for
outputs (`result: auto_linear`), output_differentiability, and optionally a
`dispatch:` mapping whose keys (Default, AutogradNestedTensor, ...) each carry
their own formulas. Each dispatch-specific block becomes a DerivativeFact of
its own with `dispatch_key` set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import SourceError
from .facts import Location
from .native_yaml import parse_schema, split_top_level
from .yaml_lines import LinedDict, load, with_lines

DERIVATIVES = "tools/autograd/derivatives.yaml"
_META_KEYS = frozenset({"name", "dispatch", "output_differentiability", "result_names"})


@dataclass(frozen=True)
class Formula:
    names: tuple[str, ...]  # ("self", "other") for a key `self, other`
    kind: str  # "input" (backward) or "output" (forward-mode derivative)
    formula: str
    loc: Location


@dataclass(frozen=True)
class DerivativeFact:
    op: str  # "add.Tensor", the operator name of `name:`
    signature: str  # the whole `name:` schema as written
    dispatch_key: str | None  # "Default", "AutogradNestedTensor", ... for a dispatch block
    output_differentiability: tuple[bool | str, ...] | None  # a str is a C++ condition
    saved_results: tuple[str, ...]  # output names that the backward formulas read
    formulas: tuple[Formula, ...]
    loc: Location


def return_names(returns: str) -> tuple[str, ...]:
    """Names of the outputs: declared ones, else result / result0, result1, ..."""
    inner = returns.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    parts = split_top_level(inner)
    names = []
    for i, part in enumerate(parts):
        type_, _, name = part.rpartition(" ")
        if not type_ or name.endswith(")"):
            name = "result" if len(parts) == 1 else f"result{i}"
        names.append(name)
    return tuple(names)


def _formulas(block: LinedDict, outputs: tuple[str, ...], path: str) -> tuple[Formula, ...]:
    out = []
    for key, value in block.items():
        if key in _META_KEYS:
            continue
        line = block.key_lines[key]
        if not isinstance(key, str) or not isinstance(value, str):
            raise SourceError(f"{path}:{line}: a formula must be `names: expression`, got {key!r}: {value!r}")
        names = tuple(n.strip() for n in key.split(","))
        if not all(names):
            raise SourceError(f"{path}:{line}: empty name in the formula key {key!r}")
        kind = "output" if all(n in outputs or re.fullmatch(r"result\d*", n) for n in names) else "input"
        out.append(Formula(names, kind, " ".join(value.split()), Location(path, line)))
    return tuple(out)


def _saved(formulas: tuple[Formula, ...], outputs: tuple[str, ...]) -> tuple[str, ...]:
    text = "\n".join(f.formula for f in formulas if f.kind == "input")
    return tuple(n for n in outputs if re.search(rf"\b{re.escape(n)}\b", text))


def parse(text: str, path: str = DERIVATIVES) -> tuple[DerivativeFact, ...]:
    doc = load(text, path)
    if doc is None:
        raise SourceError(f"{path}:1: the file has no entries; expected a list of entries")
    if not isinstance(doc, list):
        raise SourceError(f"{path}:1: expected a list of entries, found {type(doc).__name__}")
    facts: list[DerivativeFact] = []
    for entry, line in with_lines(doc):
        if not isinstance(entry, LinedDict) or not isinstance(entry.get("name"), str):
            raise SourceError(f"{path}:{line}: an entry needs a 'name' schema string")
        signature = " ".join(entry["name"].split())
        try:
            schema = parse_schema(signature if " -> " in signature else signature + " -> ()")
        except ValueError as exc:
            raise SourceError(f"{path}:{entry.line}: {exc}") from None
        outputs = return_names(schema.returns)
        differentiability = entry.get("output_differentiability")
        if differentiability is not None:
            if not isinstance(differentiability, list) or not all(isinstance(v, (bool, str)) for v in differentiability):
                raise SourceError(f"{path}:{entry.key_lines['output_differentiability']}: "
                                  "output_differentiability must be a list of True/False or C++ conditions")
            differentiability = tuple(differentiability)
        loc = Location(path, entry.line)
        common = _formulas(entry, outputs, path)
        dispatch = entry.get("dispatch")
        if dispatch is None:
            facts.append(DerivativeFact(schema.name, signature, None, differentiability,
                                        _saved(common, outputs), common, loc))
            continue
        if not isinstance(dispatch, LinedDict):
            raise SourceError(f"{path}:{entry.key_lines['dispatch']}: 'dispatch' must be a mapping of keys to formulas")
        for key, block in dispatch.items():
            if not isinstance(key, str) or not key.strip():
                raise SourceError(f"{path}:{dispatch.key_lines[key]}: dispatch key {key!r} is not a dispatch key name")
            if not isinstance(block, LinedDict):
                raise SourceError(f"{path}:{dispatch.key_lines[key]}: dispatch '{key}' must map names to formulas")
            formulas = common + _formulas(block, outputs, path)
            facts.append(DerivativeFact(schema.name, signature, str(key), differentiability,
                                        _saved(formulas, outputs), formulas,
                                        Location(path, dispatch.key_lines[key])))
    return tuple(facts)
