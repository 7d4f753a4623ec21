"""The answer types of the lookups: ops-for's hits, an op's entry, ops, symbols, stubs, kernels, call sites.

Part of the answer types of queries/results.py, which names them all (import them from there); they live
here so that a kernels-for process does not build them (a frozen dataclass costs about a millisecond).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from ..indexer.facts import Location
from .results import Backward, Truncation


@dataclass(frozen=True)
class Reach:
    op: str
    key: str
    kernel: str
    path: tuple[str, ...]  # from the kernel's definition down to the name asked about


@dataclass(frozen=True)
class OpsFor:
    """ops-for: the (op, key) kernels that reach a name; iterating gives the hits."""

    name: str
    hits: tuple[Reach, ...]
    truncated: tuple[Truncation, ...] = ()

    def __iter__(self) -> Iterator[Reach]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


@dataclass(frozen=True)
class OpInfo:
    name: str
    func: str
    kind: str
    variants: tuple[str, ...]
    tags: tuple[str, ...]
    structured: bool
    structured_delegate: str | None
    structured_inherits: str | None
    python_module: str | None
    generated_from: str | None
    autogen: tuple[str, ...]
    ufunc_inner_loop: tuple[dict[str, Any], ...]
    fields: dict[str, Any]  # every field of the entry as written
    location: Location
    siblings: tuple[str, ...] = ()
    backward: tuple[Backward, ...] = ()


@dataclass(frozen=True)
class OpSummary:
    name: str
    kind: str
    structured: bool
    tags: tuple[str, ...]
    location: Location


@dataclass(frozen=True)
class Symbol:
    name: str
    qualified_name: str
    kind: str
    signature: str
    qualifiers: tuple[str, ...]
    macro: str | None
    location: Location
    end_line: int


@dataclass(frozen=True)
class StubSite:
    kind: str  # declare, define, register
    macro: str
    device: str | None
    arch: str | None
    kernel: str | None
    is_nullptr: bool
    location: Location


@dataclass(frozen=True)
class Use:
    caller: str | None
    name: str  # what was called or launched, as written
    how: str  # call, argument, triple_chevron, gpu_kernel ...
    location: Location


@dataclass(frozen=True)
class StubInfo:
    stub: str
    declarations: tuple[StubSite, ...]
    definitions: tuple[StubSite, ...]
    registrations: tuple[StubSite, ...]
    callers: tuple[Use, ...]


@dataclass(frozen=True)
class TypeSet:
    macro: str
    dtypes: tuple[str, ...]
    name: str | None
    function: str | None
    location: Location


@dataclass(frozen=True)
class KernelInfo:
    name: str
    definitions: tuple[Symbol, ...]
    launches: tuple[Use, ...]
    dtypes: tuple[TypeSet, ...]  # AT_DISPATCH sets in the functions that launch it
