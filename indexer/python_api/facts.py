"""What the Python layer records of one file: frozen facts, and the collector the walk fills in order."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..facts import Location
from ..vocab import PyCallKind
from .kinds import BindingVia, DecompHow, DecompKind, PyDefKind, ReexportKind


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
class PyFacts:
    path: str
    module: str
    defs: tuple[DefFact, ...] = ()
    classes: tuple[ClassFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    bindings: tuple[BindingFact, ...] = ()
    reexports: tuple[ReexportFact, ...] = ()
    decomps: tuple[DecompFact, ...] = ()
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
        )
