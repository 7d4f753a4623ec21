"""The computed dispatch table: for every op and runtime key, the kernel the dispatcher runs.

The rules are those of OperatorEntry::computeDispatchTableEntryWithDebug
(aten/src/ATen/core/dispatch/OperatorEntry.cpp; line numbers given as 2.6.0 / 1.13.1), applied
to the registrations the dispatcher holds (table dispatcher_registrations) with the checkout's
own key sets (keymodel.py). Which runtime keys an alias covers is isIncludedInAlias, read from
the checkout's DispatchKeySet.cpp; the kind words are PyTorch's own.

When several registrations name one (op, key), the dispatcher keeps the latest
(OperatorEntry::registerKernel puts it first, OperatorEntry.cpp:170 / :164): Python's, made at
`import torch`, come after every C++ static registration; among C++ ones the order of static
initialisation is not known, so a hand-written one is taken before a generated one, then the
first by file and line; `others` says how many were not taken.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .keymodel import DispatchKeys
from .model import CEA, CEANF, CIA, CIA_NESTED

AUTOGRAD = "Autograd"
BATCHED_DECOMPOSITION = "FuncTorchBatchedDecomposition"
AUTOGRAD_OTHER = "AutogradOther"
FALLBACK_OP = "_"
AMBIGUOUS_KERNEL = "ambiguousAutogradOtherKernel"
_SOURCE_RANK = {"python": 0, "handwritten": 1, "generated": 2}


class EntryKind:
    """The words computeDispatchTableEntryWithDebug returns with the kernel it picked."""

    KERNEL = "kernel"
    DEFAULT_BACKEND = "default backend kernel"
    NESTED = "nested kernel"
    MATH = "math kernel"
    AMBIGUOUS = "ambiguous autogradother"
    AUTOGRAD = "autograd kernel"
    BATCHED = "batched kernel"
    FALLBACK = "backend fallback"


@dataclass(frozen=True)
class Registration:
    """One row of dispatcher_registrations, as the rules need it."""

    op: str  # aten::add.Tensor, or `_` for a backend fallback
    key: str  # as registered (alias keys by name)
    kernel: str | None
    source: str  # generated | handwritten | python
    file: str | None
    line: int | None
    fallthrough: bool
    kind: str  # impl | fallback | def


@dataclass(frozen=True)
class Entry:
    """One slot of an operator's dispatch table."""

    op: str
    key: str  # the runtime key
    kind: str  # an EntryKind word
    from_key: str | None  # the registration key the kernel comes from (None for the ambiguous kernel)
    reg: Registration | None
    others: int = 0  # registrations at from_key not taken (see the module docstring)


def compute(keys: DispatchKeys, registrations: Iterable[Registration]) -> tuple[list[Entry], list[str]]:
    """Every (op, runtime key) that gets an entry, ops in first-registration order, keys by priority;
    and the registration keys this checkout does not have (left out)."""
    per_op: dict[str, dict[str, list[Registration]]] = {}
    fallbacks: dict[str, list[Registration]] = {}
    unknown: dict[str, None] = {}
    for r in registrations:
        if r.kind == "def":
            continue
        key = keys.enum.canonical(r.key)
        if key is None or keys.enum.keys[key].kind == "per_backend":
            unknown[r.key] = None
            continue
        target = fallbacks if r.op == FALLBACK_OP or r.kind == "fallback" else per_op.setdefault(r.op, {})
        target.setdefault(key, []).append(r)
    rules = _Rules(keys, {k: _chosen(rs) for k, rs in fallbacks.items()})
    out: list[Entry] = []
    for op, regs in per_op.items():
        out.extend(rules.entries(op, regs))
    return out, list(unknown)


def _chosen(regs: list[Registration]) -> tuple[Registration, int]:
    best = min(regs, key=lambda r: (_SOURCE_RANK.get(r.source, 3), r.file or "", r.line or 0))
    return best, len(regs) - 1


class _Rules:
    """computeDispatchTableEntryWithDebug over one checkout's keys, with what every op shares precomputed."""

    def __init__(self, keys: DispatchKeys, fallbacks: dict[str, tuple[Registration, int]]):
        self.keys = keys
        self.fallbacks = fallbacks
        self.runtime = [k.name for k in keys.enum.runtime()]
        self.covers = {alias: frozenset(ks) for alias, ks in keys.covers.items()}
        self.backend_of_autograd = {k: frozenset(keys.runtime_in(ks)) for k, ks in keys.from_autograd.items()}
        other = keys.sets.get("autogradother_backends")
        self.autogradother = frozenset(keys.runtime_in(other)) if other is not None else frozenset()

    def entries(self, op: str, regs: dict[str, list[Registration]]) -> Iterator[Entry]:
        kernels = {k: _chosen(rs) for k, rs in regs.items()}
        non_alias = frozenset(k for k in kernels if not self.keys.enum.is_alias(k))
        for key in self.runtime:
            picked = self._entry(key, kernels, non_alias)
            if picked is None:
                continue
            kind, from_key = picked
            if kind == EntryKind.AMBIGUOUS:
                yield Entry(op, key, kind, None, None)
                continue
            source = self.fallbacks if kind == EntryKind.FALLBACK else kernels
            reg, others = source[from_key]
            yield Entry(op, key, kind, from_key, reg, others)

    def _in(self, key: str, alias: str) -> bool:
        return key in self.covers.get(alias, ())

    def _entry(self, key: str, kernels: dict, non_alias: frozenset[str]) -> tuple[str, str | None] | None:
        # 1. a kernel registered at the key itself (OperatorEntry.cpp:298 / :291)
        if key in kernels:
            return EntryKind.KERNEL, key
        # 2.1 CompositeExplicitAutogradNonFunctional, then 2.2 CompositeExplicitAutograd, for the keys
        #     they cover (:304, :312 / :297, :305)
        for alias in (CEANF, CEA):
            if alias in kernels and self._in(key, alias):
                return EntryKind.DEFAULT_BACKEND, alias
        # has_backend_kernel: a kernel at a backend key of this autograd key, or a CompositeExplicitAutograd
        # kernel (:320 / :313)
        has_backend_kernel = bool(non_alias & self.backend_of_autograd.get(key, frozenset())) or CEA in kernels
        # 2.3 the nested-tensor math kernel (:338 / :330), then CompositeImplicitAutograd's (:344 / :336):
        #     AutogradOther is ambiguous when any of its backends has a kernel (:346 / :338); an autograd
        #     key takes the math kernel only without a backend kernel
        if CIA_NESTED in kernels and self._in(key, CIA_NESTED):
            return EntryKind.NESTED, CIA_NESTED
        if CIA in kernels and self._in(key, CIA):
            if key == AUTOGRAD_OTHER and non_alias & self.autogradother:
                return EntryKind.AMBIGUOUS, None
            if not has_backend_kernel:
                return EntryKind.MATH, CIA
        # 2.4 the Autograd alias (:356 / :348)
        if AUTOGRAD in kernels and self._in(key, AUTOGRAD):
            return EntryKind.AUTOGRAD, AUTOGRAD
        # 2.5 FuncTorchBatchedDecomposition (:364; 1.13.1 has neither the key nor the rule)
        if BATCHED_DECOMPOSITION in kernels and self._in(key, BATCHED_DECOMPOSITION):
            return EntryKind.BATCHED, BATCHED_DECOMPOSITION
        # 3. the key's backend fallback (:375 / :359); 4. else missing, no entry (:380 / :364)
        if key in self.fallbacks:
            return EntryKind.FALLBACK, key
        return None
