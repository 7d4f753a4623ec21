"""The answer types of doctor: per key how many kernels were found, the unresolved ones, the call shares.

Part of the answer types of queries/results.py, which names them all (import them from there).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..indexer.facts import Location


@dataclass(frozen=True)
class KeyHealth:
    key: str
    rows: int
    defined: int
    generated: int  # kernels PyTorch generates at build time (ufunc, autogen)
    unresolved: int

    @property
    def unresolved_share(self) -> float:
        return self.unresolved / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class Unresolved:
    op: str
    key: str
    kernel: str
    origin: str
    reason: str
    location: Location


@dataclass(frozen=True)
class PartialFile:
    """A file whose extraction failed (files.status 'partial: ...'): its facts may be incomplete."""

    file: str
    status: str


@dataclass(frozen=True)
class CallShares:
    """How the call sites under `folder` resolved."""

    folder: str
    sites: int
    by_how: tuple[tuple[str, int], ...]  # every `how`, most sites first
    one_definition: int
    named_class: int
    several: int
    unresolved: int
    top_unresolved: tuple[tuple[str, str, int], ...]  # (how, callee as written, sites), most first

    def share(self, count: int) -> float:
        return count / self.sites if self.sites else 0.0


@dataclass(frozen=True)
class Health:
    keys: tuple[KeyHealth, ...]
    unresolved: tuple[Unresolved, ...]
    partial_files: tuple[PartialFile, ...] = ()
    calls: CallShares | None = None  # how the calls under aten/src/ATen/native resolved (the link stage)
