"""The answer types of trace: a Python name's hops, the aten ops they reach, and each op's kernels-for answer.

Part of the answer types of queries/results.py, which names them all (import them from there).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..indexer.facts import Location
from .results import KernelsFor, Truncation


class HopKind(StrEnum):
    """The kind of a hop of a Python trace."""

    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    BINDING = "binding"
    FORWARD = "forward"
    STEP = "step"  # an optimizer class's step, as forward is an nn.Module's
    CALL = "call"
    OP = "op"
    UNRESOLVED = "unresolved"
    OPERATOR = "operator"  # an operator of an expression traced: its dunder, the source text and how it resolved


@dataclass(frozen=True)
class Hop:
    depth: int  # 0: the name traced; +1 per call
    kind: HopKind
    name: str  # qualified Python name reached, or the aten op ("layer_norm", "add.Tensor")
    via: str | None = None  # the call kind (a PyCallKind: functional, torch, vf, torch_c_nn, python ...)
    target: str | None = None  # the callee as resolved in the source: torch.layer_norm, self._conv_forward
    call: Location | None = None  # where the call (or binding) is written
    definition: Location | None = None  # where the Python def, class or binding reached is
    note: str | None = None  # "see above" for a def already expanded; an operator's reflected form and resolution
    plumbing: str | None = None  # an op hop to a plumbing op (queries/plumbing.py): why it is plumbing


@dataclass(frozen=True)
class Decomp:
    kind: str  # decomposition, ref, py_impl
    op: str  # as written: native_layer_norm, add.Tensor
    function: str
    registrar: str
    location: Location


@dataclass(frozen=True)
class OpRef:
    spec: str  # the op name reached: a base (layer_norm) or an exact overload (add.Tensor)
    ops: tuple[str, ...]  # the ops of native_functions.yaml it stands for
    plumbing: str | None = None  # why it is plumbing (queries/plumbing.py); None: it does work, or it was asked


@dataclass(frozen=True)
class PyTrace:
    """The Python half of a trace: the hops and the aten ops reached."""

    name: str  # as asked
    resolved: str  # the dotted name it stands for
    hops: tuple[Hop, ...]
    ops: tuple[OpRef, ...]  # in the order they are first reached
    truncated: tuple[Truncation, ...] = ()


@dataclass(frozen=True)
class TraceOp:
    op: str  # the op reached: a base (layer_norm, every overload bound under it) or an exact overload (add.Tensor)
    reached_by: tuple[str, ...]  # the callees that reach it, as resolved in the source: torch.layer_norm
    overloads: tuple[KernelsFor, ...]  # the kernels-for answer of each overload
    decompositions: tuple[Decomp, ...] = ()  # decompositions, refs, py_impl kernels
    plumbing: str | None = None  # why it is plumbing (queries/plumbing.py); shown after the ops that do work


@dataclass(frozen=True)
class Trace:
    name: str  # as asked: nn.LayerNorm
    resolved: str  # what it stands for: torch.nn.LayerNorm
    hops: tuple[Hop, ...]  # the Python path, each with file:line
    ops: tuple[TraceOp, ...]
    chain: bool = False  # the answers carry the whole chain (else the dispatch table is what is shown)
    truncated: tuple[Truncation, ...] = ()  # Python calls not followed because of --hops
