"""The answer types of the read side: every result the API returns, as frozen dataclasses.

api, chain, trace and render import this module (and nothing of each other's
types), so the answers have their real types everywhere. Every place in the
checkout is an indexer.facts.Location; `to_data` turns a result into
JSON-ready data, where a location becomes {"file", "line"}.

kernels-for's answer, which every other answer that shows a chain embeds, is
defined here; the types of the other questions are named here too and defined
beside it (results_lookup.py, results_health.py, results_trace.py), loaded on first
use: a frozen dataclass costs about a millisecond to build, and a `tg-query
kernels-for` process needs only its own few.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..indexer.facts import Location
from ..indexer.vocab import DefinitionKind, StepKind

# The meta function of a structured op is shown as a step of this kind (definitions.kind's value).
META_STEP = DefinitionKind.META_FUNC


@dataclass(frozen=True)
class Truncation:
    """A result cut by a limit: what was cut, the limit, and the names concerned where they are known
    (the functions not followed, or the functions whose callers were cut)."""

    what: str
    limit: int
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        shown = ", ".join(self.names[:8]) + (f" and {len(self.names) - 8} more" if len(self.names) > 8 else "")
        return f"{self.what} (limit {self.limit})" + (f": {shown}" if shown else "")


# -- the C++ chain ----------------------------------------------------------------------------------

# The order in which an answer shows dispatch keys: the ones users meet first (CPU, CUDA, Meta), the other
# devices, then the composite keys from the most specific to the most general; every other key follows in the
# order native_functions.yaml writes it. Text, JSON, brief, dot, mermaid and MCP all show keys in this order.
KEY_ORDER = ("CPU", "CUDA", "Meta", "MPS", "XPU", "HIP",
             "CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd",
             "CompositeImplicitAutogradNestedTensor")


def key_rank(key: str) -> int:
    """A key's place in KEY_ORDER; every other key after them (a stable sort keeps the yaml's order)."""
    return KEY_ORDER.index(key) if key in KEY_ORDER else len(KEY_ORDER)


@dataclass(frozen=True)
class Step:
    kind: StepKind | str  # a StepKind, or META_STEP for an op's meta function
    name: str
    loc: Location | None  # None: no place in the sources (an op named by a backward formula)
    device: str | None = None
    detail: str | None = None  # arch, dtype list, library family, launch helper ...
    depth: int = 0  # levels of calls below the kernel's own body (0)
    how: str | None = None  # how the edge to this step was resolved (indexer/link/kinds.py How; None: not said)
    site: Location | None = None  # where it is called or launched from, when loc is its definition

    @property
    def file(self) -> str | None:
        return self.loc.file if self.loc else None

    @property
    def line(self) -> int | None:
        return self.loc.line if self.loc else None


@dataclass(frozen=True)
class Definition:
    """A C++/CUDA definition as the linker follows it."""

    qualified_name: str
    kind: str
    loc: Location
    end_line: int
    signature: str = ""


@dataclass(frozen=True)
class KeyKernel:
    key: str
    kernel: str
    origin: str
    cpp_namespace: str
    via: str | None
    location: Location  # where native_functions.yaml says so
    definition: Location | None = None  # where the kernel is defined (None: generated, or not found)
    qualified_name: str | None = None
    note: str | None = None  # why there is no definition, or how many candidates there were
    chain: tuple[Step, ...] = ()
    truncated: tuple[Truncation, ...] = ()  # what the chain did not follow, and by which limit
    same_as: str | None = None  # an earlier key with the same definition and the same chain (text shows it once)
    wrapper: Step | None = None  # the generated wrapper registered for (op, key), when --codegen's files are indexed


@dataclass(frozen=True)
class Formula:
    names: tuple[str, ...]
    kind: str
    formula: str
    location: Location


@dataclass(frozen=True)
class Backward:
    op: str
    signature: str
    dispatch_key: str | None
    output_differentiability: tuple[Any, ...] | None
    saved_results: tuple[str, ...]
    formulas: tuple[Formula, ...]
    location: Location
    from_op: str | None = None  # the op whose entry this is, when tools/autograd lends it to another op
    applies_as: str | None = None  # how it is lent (a BackwardUse): in-place, out=, generated, foreach, view_copy
    note: str | None = None  # what tools/autograd does with it (out=: no grad_fn is recorded)


@dataclass(frozen=True)
class KernelsFor:
    op: str
    func: str
    location: Location
    structured: bool
    structured_delegate: str | None
    keys: tuple[KeyKernel, ...]
    backward: tuple[Backward, ...] = field(default=())
    meta: Step | None = None  # the TORCH_META_FUNC* of a structured op
    backward_calls: tuple[Step, ...] = ()  # ops and autograd helpers the backward formulas call


def to_data(value: Any) -> Any:
    """Dataclasses -> JSON-ready data; a location becomes {"file", "line"}."""
    if isinstance(value, list | tuple):
        return [to_data(v) for v in value]
    if isinstance(value, Step):  # a step's place is flat in its data: "file" and "line"; "how" when it is known
        data = {"kind": value.kind, "name": value.name, "file": value.file, "line": value.line,
                "device": value.device, "detail": value.detail, "depth": value.depth}
        if value.site is not None:
            data["site"] = {"file": value.site.file, "line": value.site.line}
        return data if value.how is None else {**data, "how": value.how}
    if hasattr(value, "__dataclass_fields__"):
        return {k: to_data(getattr(value, k)) for k in value.__dataclass_fields__}
    return value


def truncation_data(cuts: tuple[Truncation, ...]) -> dict[str, Any]:
    """The JSON fields of a cut result: {"truncated": true, "limits": [{"what", "limit", "names"}]}; {} if whole."""
    return {"truncated": True, "limits": to_data(cuts)} if cuts else {}


# The answer types defined beside this module, by the module that defines them.
_BESIDE = {
    "results_lookup": ("Reach", "OpsFor", "OpInfo", "OpSummary", "Symbol", "StubSite", "Use", "StubInfo", "TypeSet",
                       "KernelInfo"),
    "results_health": ("KeyHealth", "Unresolved", "PartialFile", "CallShares", "Health"),
    "results_trace": ("HopKind", "Hop", "Decomp", "OpRef", "PyTrace", "TraceOp", "Trace"),
}
_DEFINED_IN = {name: module for module, names in _BESIDE.items() for name in names}


def __getattr__(name: str) -> Any:
    """The answer types of the other questions, from the module beside this one that defines them."""
    module = _DEFINED_IN.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


__all__ = ["Backward", "Decomp", "Definition", "Formula", "Health", "Hop", "HopKind", "KEY_ORDER", "KernelInfo",
           "KernelsFor", "KeyHealth", "KeyKernel", "Location", "META_STEP", "OpInfo", "OpRef", "OpSummary", "OpsFor",
           "PartialFile", "PyTrace", "Reach", "Step", "StubInfo", "StubSite", "Symbol", "Trace", "TraceOp",
           "Truncation", "TypeSet", "Unresolved", "Use", "key_rank", "to_data", "truncation_data"]
