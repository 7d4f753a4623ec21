"""The answer types of the read side: every result the API returns, as frozen dataclasses.

api, chain, trace and render import this module (and nothing of each other's
types), so the answers have their real types everywhere. Every place in the
checkout is an indexer.facts.Location; `to_data` turns a result into
JSON-ready data, where a location becomes {"file", "line"}.
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from enum import StrEnum
from operator import attrgetter
from typing import Any, Callable, Iterator, TypeVar

from ..indexer.facts import Location
from ..indexer.link.kinds import How
from ..indexer.vocab import DefinitionKind, StepKind

# The meta function of a structured op is shown as a step of this kind (definitions.kind's value).
META_STEP = DefinitionKind.META_FUNC


_T = TypeVar("_T")


class Answer:
    """What every answer type shares: `==`, `hash` and `repr` as a frozen dataclass generates them (the class, then
    every field in order), and its refusal to assign or delete an attribute, written once here rather than
    generated and compiled per class at every start."""

    __slots__ = ()
    _values: Callable[[Any], tuple]  # the instance's field values in order (set by `answer`)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values(self) == self._values(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


def _init(cls: type, names: list[str], defaults: dict[str, Any], annotations: dict[str, Any]) -> Callable[..., None]:
    """The __init__ a frozen dataclass generates for these fields: each argument set with object.__setattr__, in
    order; a field with a default_factory takes a sentinel default and calls the factory."""
    params, body = ["self"], []
    for name in names:
        params.append(f"{name}=_default_{name}" if name in defaults else name)
        if name in defaults and defaults[name] is _FACTORY:
            body.append(f"    _set(self, {name!r}, _factory_{name}() if {name} is _FACTORY else {name})")
        else:
            body.append(f"    _set(self, {name!r}, {name})")
    space = {"_set": object.__setattr__, "_FACTORY": _FACTORY}
    for f in fields(cls):
        if f.name in defaults:
            space[f"_default_{f.name}"] = defaults[f.name]
            if defaults[f.name] is _FACTORY:
                space[f"_factory_{f.name}"] = f.default_factory
    exec(f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "    pass"), space)
    init = space["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**annotations, "return": None}
    return init


_FACTORY = object()  # the default of a field whose default is made per instance (field(default_factory=...))


def answer(cls: type[_T]) -> type[_T]:
    """An answer type: a frozen dataclass whose ==, hash, repr and refusal to change are Answer's, over the values
    of its fields. dataclass() makes the fields (dataclasses.fields, replace and asdict read them); the __init__
    is made here with one compile, where a frozen dataclass compiles three functions a class (__init__,
    __setattr__, __delattr__: about 0.5 ms each class, a tenth of a tg-query process's start)."""
    made = dataclass(init=False, eq=False, repr=False)(cls)
    made.__dataclass_params__.frozen = True  # what its instances are (Answer refuses every change)
    names, defaults, annotations, defaulted = [], {}, {}, False
    for f in fields(made):
        if f.default is not MISSING or f.default_factory is not MISSING:
            defaults[f.name] = f.default if f.default is not MISSING else _FACTORY
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        if f.name == "self" or f.kw_only:
            raise TypeError(f"{cls.__name__}.{f.name}: answer() makes no __init__ for a field named self or kw_only")
        names.append(f.name)
        annotations[f.name] = f.type
    made.__init__ = _init(made, names, defaults, annotations)
    made._values = attrgetter(*names) if len(names) > 1 else lambda self: tuple(getattr(self, n) for n in names)
    return made


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


@answer
class Truncation(Answer):
    """A result cut by a limit: what was cut, the limit, and the names concerned where they are known
    (the functions not followed, or the functions whose callers were cut)."""

    what: str
    limit: int  # -1: no limit, a rule (calls in a branch that never runs on the walk's device)
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        shown = ", ".join(self.names[:8]) + (f" and {len(self.names) - 8} more" if len(self.names) > 8 else "")
        return f"{self.what}" + (f" (limit {self.limit})" if self.limit >= 0 else "") + (f": {shown}" if shown else "")


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


@answer
class Step(Answer):
    """One step of a kernel's chain: what it is, where, and how the edge to it was resolved."""

    kind: StepKind | str  # a StepKind, or META_STEP for an op's meta function
    name: str
    loc: Location | None  # None: no place in the sources (an op named by a backward formula)
    device: str | None = None
    detail: str | None = None  # arch, dtype list, library family, launch helper ...
    depth: int = 0  # levels of calls below the kernel's own body (0)
    how: str | None = None  # how the edge to this step was resolved (indexer/link/kinds.py How; None: not said)
    site: Location | None = None  # where it is called or launched from, when loc is its definition
    parent: int | None = None  # the index, in its chain, of the step it was found below (None: in the kernel's body)

    @property
    def file(self) -> str | None:
        return self.loc.file if self.loc else None

    @property
    def line(self) -> int | None:
        return self.loc.line if self.loc else None


_new_object = object.__new__


def new_step(kind: StepKind | str, name: str, loc: Location | None, device: str | None, detail: str | None,
             depth: int, how: str | None, site: Location | None, parent: int | None) -> Step:
    """The Step that Step(kind, name, loc, device, detail, depth, how, site, parent) makes, its attributes set in
    the same order, without the frozen dataclass's __init__ (one object.__setattr__ per field: a walk makes a step
    per line of its answer, and that __init__ was about a fifth of a walk's time)."""
    step = _new_object(Step)
    d = step.__dict__
    d["kind"] = kind
    d["name"] = name
    d["loc"] = loc
    d["device"] = device
    d["detail"] = detail
    d["depth"] = depth
    d["how"] = how
    d["site"] = site
    d["parent"] = parent
    return step


# The step a block's step lies below, of those one node's expansion yields as siblings (chain.py): a registered
# function below its stub, its definition below the registration (a redispatched op's kernel below the op),
# a __global__ below its launch.
_BLOCK = {StepKind.REGISTERED: (StepKind.STUB,), StepKind.DEFINITION: (StepKind.REGISTERED, StepKind.REDISPATCH),
          StepKind.GLOBAL_KERNEL: (StepKind.LAUNCH,)}
_GENERATED_HEAD = (StepKind.REGISTERED,)  # the helper a generated registered kernel calls (chain.py: ufunc stubs)


def block_parents(chain: tuple[Step, ...] | list[Step]) -> list[int | None]:
    """The index of the step each step of a chain lies below: its `parent`, but for a step of a block (_BLOCK) the
    latest of its block's heads among its siblings (a registration's stub, a definition's registration or
    redispatch, a __global__'s launch). The brief's path and the drawings read the chain as this tree."""
    up: list[int | None] = [s.parent for s in chain]
    last: dict[tuple[int | None, str], int] = {}
    for i, s in enumerate(chain):
        block = _BLOCK.get(s.kind) if s.kind != StepKind.CALL or s.how != How.GENERATED else _GENERATED_HEAD
        if block is not None:
            heads = [last[(s.parent, h)] for h in block if (s.parent, h) in last]
            if heads:
                up[i] = max(heads)
        last[(s.parent, s.kind)] = i
    return up


@answer
class Definition(Answer):
    """A C++/CUDA definition as the linker follows it."""

    qualified_name: str
    kind: str
    loc: Location
    end_line: int
    signature: str = ""


@answer
class KeyKernel(Answer):
    """One dispatch key of an op: its kernel, where the yaml says so, the definition and the chain below it."""

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


@answer
class Formula(Answer):
    """One formula of a derivatives.yaml entry (input: backward; output: forward-mode)."""

    names: tuple[str, ...]
    kind: str
    formula: str
    location: Location


@answer
class Backward(Answer):
    """A derivatives.yaml entry an op's autograd kernel uses, with the op it comes from and how it is used."""

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


@answer
class KernelsFor(Answer):
    """kernels-for: an op's keys with their chains, its meta function and its backward."""

    op: str
    func: str
    location: Location
    structured: bool
    structured_delegate: str | None
    keys: tuple[KeyKernel, ...]
    backward: tuple[Backward, ...] = field(default=())
    meta: Step | None = None  # the TORCH_META_FUNC* of a structured op
    backward_calls: tuple[Step, ...] = ()  # ops and autograd helpers the backward formulas call


@answer
class Reach(Answer):
    """One (op, key) kernel whose chain reaches the name asked about, with the path."""

    op: str
    key: str
    kernel: str
    path: tuple[str, ...]  # from the kernel's definition down to the name asked about


@answer
class OpsFor(Answer):
    """ops-for: the (op, key) kernels that reach a name; iterating gives the hits."""

    name: str
    hits: tuple[Reach, ...]
    truncated: tuple[Truncation, ...] = ()

    def __iter__(self) -> Iterator[Reach]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)


# -- entries and C++ facts --------------------------------------------------------------------------


@answer
class OpInfo(Answer):
    """op: a native_functions.yaml entry with every field, its siblings and its backward."""

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


@answer
class OpSummary(Answer):
    """ops: one op of a listing."""

    name: str
    kind: str
    structured: bool
    tags: tuple[str, ...]
    location: Location


@answer
class Symbol(Answer):
    """symbol: a C++/CUDA definition found by name."""

    name: str
    qualified_name: str
    kind: str
    signature: str
    qualifiers: tuple[str, ...]
    macro: str | None
    location: Location
    end_line: int


@answer
class StubSite(Answer):
    """A DispatchStub's declaration, definition or registration."""

    kind: str  # declare, define, register
    macro: str
    device: str | None
    arch: str | None
    kernel: str | None
    is_nullptr: bool
    location: Location


@answer
class Use(Answer):
    """A place that calls, passes or launches a name."""

    caller: str | None
    name: str  # what was called or launched, as written
    how: str  # call, argument, triple_chevron, gpu_kernel ...
    location: Location


@answer
class StubInfo(Answer):
    """stub: a DispatchStub's declarations, definitions, registrations and callers."""

    stub: str
    declarations: tuple[StubSite, ...]
    definitions: tuple[StubSite, ...]
    registrations: tuple[StubSite, ...]
    callers: tuple[Use, ...]


@answer
class TypeSet(Answer):
    """An AT_DISPATCH dtype set as written."""

    macro: str
    dtypes: tuple[str, ...]
    name: str | None
    function: str | None
    location: Location


@answer
class KernelInfo(Answer):
    """kernel: a kernel's definitions, launches and dtype sets."""

    name: str
    definitions: tuple[Symbol, ...]
    launches: tuple[Use, ...]
    dtypes: tuple[TypeSet, ...]  # AT_DISPATCH sets in the functions that launch it


# -- doctor -----------------------------------------------------------------------------------------


@answer
class KeyHealth(Answer):
    """doctor: how the (op, key) rows of one dispatch key resolved."""

    key: str
    rows: int
    defined: int
    generated: int  # kernels PyTorch generates at build time (ufunc, autogen)
    unresolved: int

    @property
    def unresolved_share(self) -> float:
        return self.unresolved / self.rows if self.rows else 0.0


@answer
class Unresolved(Answer):
    """doctor: an (op, key) kernel without a definition, and why."""

    op: str
    key: str
    kernel: str
    origin: str
    reason: str
    location: Location


@answer
class PartialFile(Answer):
    """A file whose extraction failed (files.status 'partial: ...'): its facts may be incomplete."""

    file: str
    status: str


@answer
class CallShares(Answer):
    """How the call sites under `folder` resolved."""

    folder: str
    sites: int
    by_how: tuple[tuple[str, int], ...]  # every `how`, most sites first
    one_definition: int
    named_class: int
    several: int
    unresolved: int
    top_unresolved: tuple[tuple[str, str, int], ...]  # (how, callee as written, sites), most first
    per_build: int = 0  # one definition per build configuration (How.PER_BUILD)
    operators: tuple[tuple[str, int], ...] = ()  # the operator expressions on class operands: (how, sites), apart

    def share(self, count: int) -> float:
        return count / self.sites if self.sites else 0.0


@answer
class Health(Answer):
    """doctor: per-key shares, unresolved kernels, partial files and call shares."""

    keys: tuple[KeyHealth, ...]
    unresolved: tuple[Unresolved, ...]
    partial_files: tuple[PartialFile, ...] = ()
    calls: CallShares | None = None  # how the calls under aten/src/ATen/native resolved (the link stage)


# -- the Python trace -------------------------------------------------------------------------------


@answer
class Hop(Answer):
    """One hop of a Python trace."""

    depth: int  # 0: the name traced; +1 per call
    kind: HopKind
    name: str  # qualified Python name reached, or the aten op ("layer_norm", "add.Tensor")
    via: str | None = None  # the call kind (a PyCallKind: functional, torch, vf, torch_c_nn, python ...)
    target: str | None = None  # the callee as resolved in the source: torch.layer_norm, self._conv_forward
    call: Location | None = None  # where the call (or binding) is written
    definition: Location | None = None  # where the Python def, class or binding reached is
    note: str | None = None  # "see above" for a def already expanded; an operator's reflected form and resolution
    plumbing: str | None = None  # an op hop to a plumbing op (queries/plumbing.py): why it is plumbing


@answer
class Decomp(Answer):
    """A decomposition, ref or py_impl kernel of an op."""

    kind: str  # decomposition, ref, py_impl
    op: str  # as written: native_layer_norm, add.Tensor
    function: str
    registrar: str
    location: Location


@answer
class OpRef(Answer):
    """An aten op a Python trace reaches."""

    spec: str  # the op name reached: a base (layer_norm) or an exact overload (add.Tensor)
    ops: tuple[str, ...]  # the ops of native_functions.yaml it stands for
    plumbing: str | None = None  # why it is plumbing (queries/plumbing.py); None: it does work, or it was asked


@answer
class PyTrace(Answer):
    """The Python half of a trace: the hops and the aten ops reached."""

    name: str  # as asked
    resolved: str  # the dotted name it stands for
    hops: tuple[Hop, ...]
    ops: tuple[OpRef, ...]  # in the order they are first reached
    truncated: tuple[Truncation, ...] = ()


@answer
class TraceOp(Answer):
    """An op a trace reaches, with the kernels-for answer of each overload."""

    op: str  # the op reached: a base (layer_norm, every overload bound under it) or an exact overload (add.Tensor)
    reached_by: tuple[str, ...]  # the callees that reach it, as resolved in the source: torch.layer_norm
    overloads: tuple[KernelsFor, ...]  # the kernels-for answer of each overload
    decompositions: tuple[Decomp, ...] = ()  # decompositions, refs, py_impl kernels
    plumbing: str | None = None  # why it is plumbing (queries/plumbing.py); shown after the ops that do work


@answer
class Trace(Answer):
    """trace: the Python path from a name to the aten ops, and their kernels."""

    name: str  # as asked: nn.LayerNorm
    resolved: str  # what it stands for: torch.nn.LayerNorm
    hops: tuple[Hop, ...]  # the Python path, each with file:line
    ops: tuple[TraceOp, ...]
    chain: bool = False  # the answers carry the whole chain (else the dispatch table is what is shown)
    truncated: tuple[Truncation, ...] = ()  # Python calls not followed because of --hops


def to_data(value: Any) -> Any:
    """Dataclasses -> JSON-ready data; a location becomes {"file", "line"}."""
    if isinstance(value, list | tuple):
        return [to_data(v) for v in value]
    if isinstance(value, Step):  # a step's place is flat in its data: "file" and "line"; "how" when it is known
        data = {"kind": value.kind, "name": value.name, "file": value.file, "line": value.line,
                "device": value.device, "detail": value.detail, "depth": value.depth}
        if value.site is not None:
            data["site"] = {"file": value.site.file, "line": value.site.line}
        if value.parent is not None:
            data["parent"] = value.parent
        return data if value.how is None else {**data, "how": value.how}
    if hasattr(value, "__dataclass_fields__"):
        return {k: to_data(getattr(value, k)) for k in value.__dataclass_fields__}
    return value


def truncation_data(cuts: tuple[Truncation, ...]) -> dict[str, Any]:
    """The JSON fields of a cut result: {"truncated": true, "limits": [{"what", "limit", "names"}]}; {} if whole."""
    return {"truncated": True, "limits": to_data(cuts)} if cuts else {}


__all__ = ["Backward", "Decomp", "Definition", "Formula", "Health", "Hop", "HopKind", "KEY_ORDER", "KernelInfo",
           "KernelsFor", "KeyHealth", "KeyKernel", "Location", "META_STEP", "OpInfo", "OpRef", "OpSummary", "OpsFor",
           "PartialFile", "PyTrace", "Reach", "Step", "StubInfo", "StubSite", "Symbol", "Trace", "TraceOp",
           "Truncation", "TypeSet", "Unresolved", "Use", "key_rank", "to_data", "truncation_data"]
