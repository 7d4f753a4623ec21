"""What the Python layer records of one file: frozen facts, and the collector the walk fills in order."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..facts import Location
from ..vocab import PyCallKind
from .kinds import BindingVia, BranchKind, DecompHow, DecompKind, FlagKind, PyDefKind, ReexportKind


@dataclass(frozen=True)
class DefFact:
    qualname: str  # "torch.nn.modules.conv.Conv2d._conv_forward"
    name: str  # "_conv_forward"
    kind: PyDefKind  # function (module level) | method (in a class body)
    cls: str | None  # qualified name of the enclosing class, for methods
    loc: Location  # line of the `def` keyword
    end_line: int


@dataclass(frozen=True)
class ClassFact:
    qualname: str  # "torch.nn.modules.normalization.LayerNorm"
    name: str  # "LayerNorm"
    bases: tuple[str, ...]  # resolved: ("torch.nn.modules.module.Module",)
    bases_written: tuple[str, ...]  # as in the source: ("Module",)
    is_module: bool  # an nn.Module subclass on the evidence of this file alone
    forward: str | None  # qualified name of the forward it defines, if any
    loc: Location
    end_line: int


@dataclass(frozen=True)
class CallFact:
    caller: str  # qualified name of the def (or class, or module) making the call
    kind: PyCallKind
    name: str  # what the linker matches: "layer_norm", "aten::add.Tensor", "_linalg.linalg_det"
    target: str  # resolved dotted callee: "torch.layer_norm", "self._conv_forward"
    loc: Location


@dataclass(frozen=True)
class BindingFact:
    qualname: str  # the bound name: "torch.nn.functional.gelu"
    kind: PyCallKind  # for what it is bound to
    name: str  # as CallFact.name: "gelu"
    target: str  # "torch._C._nn.gelu"
    via: BindingVia
    loc: Location


@dataclass(frozen=True)
class ReexportFact:
    module: str  # the re-exporting module: "torch"
    name: str  # the name it exports; "*" for a whole namespace
    source: str  # where it comes from: "torch.autograd.no_grad", "torch._C._VariableFunctions"; "" for __all__
    kind: ReexportKind
    excludes: tuple[str, ...]  # dir_loop: names skipped, "__*" for a skipped prefix
    loc: Location


@dataclass(frozen=True)
class DecompFact:
    kind: DecompKind
    op: str | None  # aten op as written: "native_layer_norm", "add.Tensor"; None: registers no op
    namespace: str  # "aten" ("" when op is None)
    function: str  # qualified name of the Python function
    registrar: str  # "register_decomposition", "_make_elementwise_unary_reference", "py_impl(Autograd)" ...
    how: DecompHow
    loc: Location  # the registration: decorator line, call line, or def line for "none"


@dataclass(frozen=True)
class Condition:
    """One branch that must be taken to reach a call (branches.py)."""

    kind: BranchKind  # if, elif, else, ifexp, ifexp_else
    test: str  # the test as source text (ast.unparse): "fused and (not torch.jit.is_scripting())"; "" for an else
    negated: tuple[str, ...]  # the earlier tests of the same chain, false here
    line: int  # the test's line; for an else, the line of the last test of its chain

    def __str__(self) -> str:
        if self.kind in (BranchKind.ELSE, BranchKind.IFEXP_ELSE):
            return "else: " + ", ".join(f"not ({t})" for t in self.negated)
        return f"{'elif' if self.kind == BranchKind.ELIF else 'if'} {self.test}"


@dataclass(frozen=True)
class BranchFact:
    caller: str  # as the CallFact's caller
    target: str  # as the CallFact's target: the call it guards is (caller, target, loc)
    loc: Location  # the call's line (for a call through a local alias, the assignment's line)
    conditions: tuple[Condition, ...]  # outermost first


@dataclass(frozen=True)
class FlagFact:
    function: str  # qualified name of the def
    name: str  # a name that a test of the def reads: "foreach"
    kind: FlagKind  # parameter (its default) or assign
    text: str  # "foreach=None"; "_, foreach = _default_to_fused_or_foreach(params, differentiable, use_fused=False)"
    conditions: tuple[Condition, ...]  # of the assignment, outermost first; () for a parameter
    loc: Location  # the parameter's or the assignment's line


@dataclass(frozen=True)
class AttributeFact:
    cls: str  # qualified name of the class whose method assigns it: "torch.nn.modules.transformer.TransformerDecoderLayer"
    name: str  # the attribute: "self_attn"
    target: str  # the resolved dotted callee whose result is assigned: "torch.nn.modules.activation.MultiheadAttention"
    method: str  # qualified name of the method with the assignment: "...TransformerDecoderLayer.__init__"
    loc: Location  # the assignment's line


@dataclass(frozen=True)
class PyFacts:
    path: str
    module: str
    defs: tuple[DefFact, ...] = ()
    classes: tuple[ClassFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    bindings: tuple[BindingFact, ...] = ()
    reexports: tuple[ReexportFact, ...] = ()
    decomps: tuple[DecompFact, ...] = ()
    branches: tuple[BranchFact, ...] = ()
    flags: tuple[FlagFact, ...] = ()
    attributes: tuple[AttributeFact, ...] = ()
    error: str | None = None  # "torch/x.py:3: invalid syntax" when the file does not parse


@dataclass
class Collected:
    """The facts of one file in the order the walk and its recognisers find them."""

    defs: list[DefFact] = field(default_factory=list)
    classes: dict[str, ClassFact] = field(default_factory=dict)  # by qualified name; a redefinition replaces
    calls: list[CallFact] = field(default_factory=list)
    bindings: list[BindingFact] = field(default_factory=list)
    reexports: list[ReexportFact] = field(default_factory=list)
    decomps: list[DecompFact] = field(default_factory=list)
    branches: list[BranchFact] = field(default_factory=list)
    flags: list[FlagFact] = field(default_factory=list)
    attributes: list[AttributeFact] = field(default_factory=list)

    def frozen(self, path: str, module: str) -> PyFacts:
        return PyFacts(
            path,
            module,
            defs=tuple(self.defs),
            classes=tuple(self.classes.values()),
            calls=tuple(self.calls),
            bindings=tuple(self.bindings),
            reexports=tuple(self.reexports),
            decomps=tuple(self.decomps),
            branches=tuple(self.branches),
            flags=tuple(self.flags),
            attributes=tuple(self.attributes),
        )
