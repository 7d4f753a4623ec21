"""Python sources of a checkout -> PyFacts, with the stdlib ast (torch is never imported).

The Python layer is where people start: ``nn.LayerNorm.forward`` calls
``F.layer_norm``, which calls ``torch.layer_norm``, which is the aten op
``layer_norm`` bound through ``torch._C._VariableFunctions``. This extractor
records, per file, what is statically visible of that chain:

- DefFact       module-level functions and methods (qualified names, line range)
- ClassFact     classes with their bases (resolved and as written), nn.Module evidence, forward
- CallFact      calls made inside each def, classified by target kind (CallKind)
- BindingFact   names bound directly to a callee at module or class level
                (``gelu = _add_docstr(torch._C._nn.gelu, ...)``, ``boolean_dispatch``)
- ReexportFact  what a module re-exports (imports of packages, ``import *``,
                ``__all__``, the ``for name in dir(_C._VariableFunctions)`` loop,
                the ``torch._VF`` attribute forwarding)
- DecompFact    decompositions, references and ``py_impl`` kernels with their aten op

Conventions:
- Qualified names are dotted Python paths derived from the file path:
  ``torch/nn/modules/conv.py`` -> ``torch.nn.modules.conv``; ``__init__.py`` is the package.
- Call targets are resolved through the file's imports and module-level
  aliases (``import torch.nn.functional as F``, ``from .. import functional as F``,
  ``from torch import _VF``, ``aten = torch._ops.ops.aten`` ...) into ``target``,
  a dotted name; ``name`` is the part the linker matches on (see CallKind).
- Every line is 1-based; a def's line is the line of its ``def`` keyword.
- ``extract`` is pure: bytes in, frozen dataclasses out, no I/O, and a file
  that does not parse yields a PyFacts with ``error`` set instead of raising.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from .facts import Location

# Files of a checkout that carry the Python entry points, relative to its root.
# Globs follow pathlib.Path.glob ("**" is any depth of folders).
PY_SOURCES: tuple[str, ...] = (
    "torch/__init__.py",
    "torch/_VF.py",
    "torch/_tensor.py",
    "torch/functional.py",
    "torch/nn/__init__.py",
    "torch/nn/functional.py",
    "torch/nn/modules/**/*.py",
    "torch/nn/utils/rnn.py",
    "torch/linalg/__init__.py",
    "torch/special/__init__.py",
    "torch/fft/__init__.py",
    "torch/sparse/__init__.py",
    "torch/nested/__init__.py",
    "torch/_decomp/**/*.py",
    "torch/_refs/**/*.py",
)


class CallKind:
    """The kinds of call target, and what ``CallFact.name`` holds for each."""

    TORCH_C_NN = "torch_c_nn"  # torch._C._nn.X -> "X"
    VF = "vf"  # torch._VF.X -> "X"
    TORCH = "torch"  # torch.X -> "X" (one level only; torch.cuda.x is python)
    TENSOR_METHOD = "tensor_method"  # x.X(...) on a value, or torch.Tensor.X -> "X"
    TENSOR_BASE = "tensor_base"  # torch._C.TensorBase.X / _TensorBase.X, super().X in Tensor -> "X"
    TORCH_OPS = "torch_ops"  # torch.ops.ns.op[.overload] -> "ns::op[.overload]"
    TORCH_C = "torch_c"  # torch._C.<rest> -> "<rest>", e.g. "_VariableFunctions.add", "_linalg.linalg_det"
    FUNCTIONAL = "functional"  # torch.nn.functional.X -> "X"
    PYTHON = "python"  # anything else -> last component; target is the dotted callee

    ALL = (TORCH_C_NN, VF, TORCH, TENSOR_METHOD, TENSOR_BASE, TORCH_OPS, TORCH_C, FUNCTIONAL, PYTHON)


@dataclass(frozen=True)
class DefFact:
    qualname: str  # "torch.nn.modules.conv.Conv2d._conv_forward"
    name: str  # "_conv_forward"
    kind: str  # "function" (module level) | "method" (in a class body)
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
    kind: str  # a CallKind value
    name: str  # what the linker matches: "layer_norm", "aten::add.Tensor", "_linalg.linalg_det"
    target: str  # resolved dotted callee: "torch.layer_norm", "self._conv_forward"
    loc: Location


@dataclass(frozen=True)
class BindingFact:
    qualname: str  # the bound name: "torch.nn.functional.gelu"
    kind: str  # a CallKind value for what it is bound to
    name: str  # as CallFact.name: "gelu"
    target: str  # "torch._C._nn.gelu"
    via: str  # "_add_docstr" | "boolean_dispatch" | "_make_alias" | "assign"
    loc: Location


@dataclass(frozen=True)
class ReexportFact:
    module: str  # the re-exporting module: "torch"
    name: str  # the name it exports; "*" for a whole namespace
    source: str  # where it comes from: "torch.autograd.no_grad", "torch._C._VariableFunctions"; "" for __all__
    kind: str  # "import" | "star_import" | "dir_loop" | "getattr_forward" | "all"
    excludes: tuple[str, ...]  # dir_loop: names skipped, "__*" for a skipped prefix
    loc: Location


@dataclass(frozen=True)
class DecompFact:
    kind: str  # "decomposition" | "ref" (under torch/_refs) | "py_impl"
    op: str | None  # aten op as written: "native_layer_norm", "add.Tensor"; None: registers no op
    namespace: str  # "aten" ("" when op is None)
    function: str  # qualified name of the Python function
    registrar: str  # "register_decomposition", "_make_elementwise_unary_reference", "py_impl(Autograd)" ...
    how: str  # "written" (op in the source) | "inferred" (factory naming rule) | "none"
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


MODULE_ROOTS = frozenset({"torch.nn.Module", "torch.nn.modules.Module", "torch.nn.modules.module.Module"})
TENSOR_BASES = frozenset({"torch._C.TensorBase", "torch._C._TensorBase"})
_BUILTINS = frozenset(dir(builtins))
_Def = ast.FunctionDef | ast.AsyncFunctionDef
_VALUE_NODES = (
    ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set,
    ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp,
)  # fmt: skip


def module_name(path: str) -> str:
    """``torch/nn/modules/conv.py`` -> ``torch.nn.modules.conv``; a package's ``__init__.py`` -> the package."""
    p = path.replace("\\", "/")
    if p.endswith(".py"):
        p = p[:-3]
    parts = [x for x in p.split("/") if x and x != "."]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


_RENAMES = (("torch._ops.ops", "torch.ops"), ("torch._C._TensorBase", "torch._C.TensorBase"))


def _normalize(dotted: str) -> str:
    """One spelling per namespace: torch._ops.ops -> torch.ops, torch._C._TensorBase (1.x) -> torch._C.TensorBase."""
    for old, new in _RENAMES:
        if dotted == old or dotted.startswith(old + "."):
            return new + dotted[len(old) :]
    return dotted


def classify(dotted: str) -> tuple[str, str]:
    """A resolved dotted callee -> (CallKind, name). Unknown shapes are python calls."""
    d = _normalize(dotted)
    parts = d.split(".")
    if d.startswith("torch._C._nn.") and len(parts) == 4:
        return CallKind.TORCH_C_NN, parts[3]
    if d.startswith("torch._VF.") and len(parts) == 3:
        return CallKind.VF, parts[2]
    if d.startswith("torch.ops.") and len(parts) in (4, 5):
        name = f"{parts[2]}::{parts[3]}" + (f".{parts[4]}" if len(parts) == 5 else "")
        return CallKind.TORCH_OPS, name
    if d.startswith("torch._C.TensorBase.") and len(parts) == 4:
        return CallKind.TENSOR_BASE, parts[3]
    if d.startswith("torch.Tensor.") and len(parts) == 3:
        return CallKind.TENSOR_METHOD, parts[2]
    if d.startswith("torch._C.") and len(parts) >= 3:
        return CallKind.TORCH_C, ".".join(parts[2:])
    if d.startswith("torch.nn.functional.") and len(parts) == 4:
        return CallKind.FUNCTIONAL, parts[3]
    if d.startswith("torch.") and len(parts) == 2:
        return CallKind.TORCH, parts[1]
    return CallKind.PYTHON, parts[-1]


def _op_of(dotted: str) -> tuple[str, str] | None:
    """``torch.ops.aten.add.Tensor`` -> ("aten", "add.Tensor"); None when not an op (packet) reference."""
    d = _normalize(dotted)
    parts = d.split(".")
    if d.startswith("torch.ops.") and len(parts) in (4, 5):
        return parts[2], ".".join(parts[3:])
    return None


# --- the walker ----------------------------------------------------------------------


@dataclass
class _Scope:
    """Where the walker is: the qualified name calls are charged to, and the class, if any."""

    owner: str
    cls: str | None = None  # qualified name of the innermost class
    locals: frozenset[str] = frozenset()  # parameters and assigned names: values, not imports
    aliases: dict[str, str] = field(default_factory=dict)  # imports made inside the def


@dataclass
class _Walker:
    path: str
    module: str
    package: str
    tree: ast.Module
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> dotted
    globals_: set[str] = field(default_factory=set)  # module-level names (defs, classes, assignments)
    defined: set[str] = field(default_factory=set)  # module-level def/class names
    module_values: dict[str, ast.expr] = field(default_factory=dict)  # NAME = <expr> at module level
    classes: dict[str, ClassFact] = field(default_factory=dict)
    tensor_classes: set[str] = field(default_factory=set)
    defs: list[DefFact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    bindings: list[BindingFact] = field(default_factory=list)
    reexports: list[ReexportFact] = field(default_factory=list)
    decomps: list[DecompFact] = field(default_factory=list)
    # module-level defs that register an inner def for one of their parameters:
    # def register_inplace(aten_op, outplace_op): @register_decomposition(aten_op) def inplace_op ...
    helpers: dict[str, tuple[int, str]] = field(default_factory=dict)  # def name -> (param index, registrar)

    def loc(self, node: ast.AST) -> Location:
        return Location(self.path, getattr(node, "lineno", 0))

    # -- names ----------------------------------------------------------------------

    def absolute(self, module: str | None, level: int) -> str:
        """The absolute module of ``from <level dots><module> import ...``."""
        if level == 0:
            return module or ""
        base = self.package.split(".") if self.package else []
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def resolve(self, node: ast.expr, scope: _Scope) -> tuple[str, bool] | None:
        """An expression -> (dotted name, rooted); rooted: it starts at an import or a module-level name."""
        if isinstance(node, ast.Name):
            n = node.id
            if n in scope.aliases:
                return scope.aliases[n], True
            if n in scope.locals:
                return n, False
            if n in self.aliases:
                return self.aliases[n], True
            if n in self.globals_:
                return f"{self.module}.{n}" if self.module else n, True
            return n, False
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value, scope)
            if base is None:
                return None
            return f"{base[0]}.{node.attr}", base[1]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
            return "super()", False
        return None

    def dotted(self, node: ast.expr, scope: _Scope) -> str | None:
        r = self.resolve(node, scope)
        return _normalize(r[0]) if r else None

    # -- imports and module-level aliases ---------------------------------------------

    def collect_imports(self, body: list[ast.stmt]) -> None:
        """First pass over module-level statements (also inside if/try/with): imports, defs, aliases."""
        for stmt in _module_statements(body):
            if isinstance(stmt, ast.Import):
                for a in stmt.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.aliases.setdefault(top, top)
            elif isinstance(stmt, ast.ImportFrom):
                src = self.absolute(stmt.module, stmt.level)
                for a in stmt.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{src}.{a.name}" if src else a.name
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.globals_.add(stmt.name)
                self.defined.add(stmt.name)
                self.aliases.pop(stmt.name, None)
        # module-level `aten = torch._ops.ops.aten`: an alias when the value is a rooted dotted name
        for stmt in _module_statements(body):
            target, value = _simple_assign(stmt)
            if target is None or value is None:
                continue
            self.module_values[target] = value
            if target not in self.aliases:
                self.globals_.add(target)
            if isinstance(value, (ast.Name, ast.Attribute)):
                r = self.resolve(value, _Scope(self.module))
                if r and r[1] and target not in self.defined:
                    self.aliases[target] = _normalize(r[0])
                    self.globals_.discard(target)

    def local_imports(self, node: ast.AST, found: list[ast.Import | ast.ImportFrom]) -> dict[str, str]:
        """Imports written inside a def (nested defs included): name -> dotted.

        found: the def's import statements as _Subtree collected them. When a name is bound twice
        to different modules the later one in ast.walk's order wins, so that rare def is walked again.
        """
        out: dict[str, str] = {}
        for key, dotted in self.imported(found):
            if out.setdefault(key, dotted) != dotted:
                return dict(self.imported(n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))))
        return out

    def imported(self, imports: Iterable[ast.Import | ast.ImportFrom]) -> Iterator[tuple[str, str]]:
        """(local name, dotted) for each name that import statements bind, in their order."""
        for sub in imports:
            if isinstance(sub, ast.Import):
                for a in sub.names:
                    yield a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]
            else:
                src = self.absolute(sub.module, sub.level)
                for a in sub.names:
                    if a.name != "*":
                        yield a.asname or a.name, f"{src}.{a.name}" if src else a.name

    # -- module body ------------------------------------------------------------------

    def walk_module(self) -> None:
        self.collect_imports(self.tree.body)
        scope = _Scope(self.module)
        self.walk_body(self.tree.body, scope, prefix=self.module, cls=None, type_checking=False)

    def walk_body(
        self, body: list[ast.stmt], scope: _Scope, prefix: str, cls: str | None, type_checking: bool
    ) -> None:
        """Statements of a module or class body (not of a def)."""
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.walk_def(stmt, prefix, cls)
            elif isinstance(stmt, ast.ClassDef):
                self.walk_class(stmt, prefix, scope)
            elif isinstance(stmt, ast.If):
                tc = type_checking or _is_type_checking(stmt.test)
                self.scan_calls(stmt.test, scope)
                self.walk_body(stmt.body, scope, prefix, cls, tc)
                self.walk_body(stmt.orelse, scope, prefix, cls, type_checking)
            elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                self.walk_body(stmt.body, scope, prefix, cls, type_checking)
                for h in stmt.handlers:
                    self.walk_body(h.body, scope, prefix, cls, type_checking)
                self.walk_body(stmt.orelse, scope, prefix, cls, type_checking)
                self.walk_body(stmt.finalbody, scope, prefix, cls, type_checking)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    self.scan_calls(item.context_expr, scope)
                self.walk_body(stmt.body, scope, prefix, cls, type_checking)
            else:
                if cls is None:
                    self.module_statement(stmt, scope, type_checking)
                self.binding(stmt, scope, prefix)
                self.scan_calls(stmt, scope)

    def walk_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef, prefix: str, cls: str | None) -> None:
        qual = f"{prefix}.{node.name}" if prefix else node.name
        self.defs.append(
            DefFact(qual, node.name, "method" if cls else "function", cls, self.loc(node), node.end_lineno or node.lineno)
        )
        before = len(self.decomps)
        for deco in node.decorator_list:
            self.decorator(deco, qual, node)
        sub = _Subtree.of_def(node)
        scope = _Scope(qual, cls, frozenset(sub.names), self.local_imports(node, sub.imports))
        if cls is None:
            self.note_helper(node, sub.defs, scope)
        self.add_calls(sub.calls, scope)
        if cls is None and self.module.startswith("torch._refs") and not node.name.startswith("_"):
            if len(self.decomps) == before:  # a public ref whose decorators register nothing visible
                self.decomps.append(DecompFact("ref", None, "", qual, "", "none", self.loc(node)))

    def walk_class(self, node: ast.ClassDef, prefix: str, outer: _Scope) -> None:
        qual = f"{prefix}.{node.name}" if prefix else node.name
        written = tuple(ast.unparse(b) for b in node.bases)
        bases = tuple(self.dotted(b, outer) or w for b, w in zip(node.bases, written))
        is_module = any(b in MODULE_ROOTS or (b in self.classes and self.classes[b].is_module) for b in bases)
        if any(b in TENSOR_BASES or b in self.tensor_classes for b in bases):
            self.tensor_classes.add(qual)
        forward = None
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "forward":
                forward = f"{qual}.forward"
        self.classes[qual] = ClassFact(
            qual, node.name, bases, written, is_module, forward, self.loc(node), node.end_lineno or node.lineno
        )
        for b in node.bases:
            self.scan_calls(b, outer)
        self.walk_body(node.body, _Scope(qual, qual), prefix=qual, cls=qual, type_checking=False)

    # -- calls ------------------------------------------------------------------------

    def scan_calls(self, node: ast.AST, scope: _Scope) -> None:
        """Every call under node (nested defs and lambdas included) charged to scope.owner."""
        sub = _Subtree()
        sub.add(node)
        self.add_calls(sub.calls, scope)

    def add_calls(self, calls: list[ast.Call], scope: _Scope) -> None:
        """The facts of calls (in ast.walk's order) charged to scope.owner."""
        for node in calls:
            fact = self.call(node, scope)
            if fact is not None:
                self.calls.append(fact)

    def call(self, node: ast.Call, scope: _Scope) -> CallFact | None:
        func = node.func
        r = self.resolve(func, scope)
        loc = self.loc(node)
        if r is None:
            # (expr).X(...) where expr is a call result, subscript ...: a method on a value
            if isinstance(func, ast.Attribute) and not isinstance(func.value, _VALUE_NODES):
                return CallFact(scope.owner, CallKind.TENSOR_METHOD, func.attr, f"<expr>.{func.attr}", loc)
            return None
        dotted, rooted = r
        dotted = _normalize(dotted)
        if rooted:
            if isinstance(func, ast.Name) and func.id in self.defined and func.id not in scope.aliases:
                # a def or class of this very file: its qualified name is the whole answer
                return CallFact(scope.owner, CallKind.PYTHON, func.id, dotted, loc)
            kind, name = classify(dotted)
            return CallFact(scope.owner, kind, name, dotted, loc)
        if isinstance(func, ast.Name):
            if func.id in _BUILTINS and func.id not in scope.locals:
                return None
            return CallFact(scope.owner, CallKind.PYTHON, func.id, func.id, loc)
        assert isinstance(func, ast.Attribute)
        head = dotted.split(".")[0]
        if dotted.startswith("super()."):
            if scope.cls in self.tensor_classes and dotted.count(".") == 1:
                return CallFact(scope.owner, CallKind.TENSOR_BASE, func.attr, dotted, loc)
            return CallFact(scope.owner, CallKind.PYTHON, func.attr, dotted, loc)
        if head in ("self", "cls") and scope.cls is not None and isinstance(func.value, ast.Name):
            return CallFact(scope.owner, CallKind.PYTHON, func.attr, dotted, loc)
        if isinstance(func.value, _VALUE_NODES):
            return None
        return CallFact(scope.owner, CallKind.TENSOR_METHOD, func.attr, dotted, loc)

    # -- bindings ---------------------------------------------------------------------

    def binding(self, stmt: ast.stmt, scope: _Scope, prefix: str) -> None:
        target, value = _simple_assign(stmt)
        if target is None or value is None:
            return
        qual = f"{prefix}.{target}" if prefix else target
        loc = self.loc(stmt)

        def bind(expr: ast.expr, via: str) -> None:
            r = self.resolve(expr, scope)
            if r is None or not r[1]:
                return  # bound to a local value, not to something the linker can name
            dotted = _normalize(r[0])
            kind, name = classify(dotted)
            if isinstance(expr, ast.Name) and expr.id in self.defined:
                kind = CallKind.PYTHON  # a def of this file, as for calls
            self.bindings.append(BindingFact(qual, kind, name, dotted, via, loc))

        if isinstance(value, (ast.Name, ast.Attribute)):
            bind(value, "assign")
            return
        if not isinstance(value, ast.Call):
            return
        callee = self.dotted(value.func, scope) or ""
        leaf = callee.rsplit(".", 1)[-1]
        if leaf in ("_add_docstr", "add_docstr") and value.args:
            bind(value.args[0], "_add_docstr")
        elif leaf == "boolean_dispatch":
            for kw in value.keywords:
                if kw.arg in ("if_true", "if_false"):
                    bind(kw.value, "boolean_dispatch")
        elif leaf == "_make_alias" and value.args:
            bind(value.args[0], "_make_alias")
        elif leaf == "_make_inplace" and value.args and isinstance(value.args[0], ast.Name):
            bind(value.args[0], "_make_inplace")
            if self.module.startswith("torch._refs"):
                self.decomps.append(
                    DecompFact("ref", f"{value.args[0].id}_", "aten", qual, "_make_inplace", "inferred", loc)
                )
        else:
            self.registration_call(value, scope, fallback_fn=qual)

    # -- decompositions ---------------------------------------------------------------

    def decomp_kind(self) -> str:
        return "ref" if self.module.startswith("torch._refs") else "decomposition"

    def ops_in(self, node: ast.expr, scope: _Scope, depth: int = 0) -> list[tuple[str, str]] | None:
        """Op references in a registrar argument: aten.X, [aten.X.default, aten.Y], a module-level list, getattr(aten, "X")."""
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out: list[tuple[str, str]] = []
            for elt in node.elts:
                sub = self.ops_in(elt, scope, depth + 1)
                if sub is None:
                    return None
                out.extend(sub)
            return out
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            base = self.dotted(node.args[0], scope)
            op = _op_of(f"{base}.{node.args[1].value}") if base else None
            return [op] if op else None
        if isinstance(node, ast.Name) and node.id in self.module_values and depth < 3:
            value = self.module_values[node.id]
            if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
                return self.ops_in(value, scope, depth + 1)
        d = self.dotted(node, scope)
        op = _op_of(d) if d else None
        return [op] if op else None

    def registrar(self, call: ast.Call, scope: _Scope) -> str | None:
        """The registrar name when call is register_decomposition(...) or a look-alike."""
        callee = self.dotted(call.func, scope)
        if callee is None:
            return None
        leaf = callee.rsplit(".", 1)[-1]
        if "register" in leaf and "decomp" in leaf and "jit" not in leaf:
            return leaf
        return None

    def decorator(self, deco: ast.expr, qual: str, node: ast.AST) -> None:
        scope = _Scope(self.module)
        if not isinstance(deco, ast.Call):
            return
        loc = self.loc(deco)
        name = self.registrar(deco, scope)
        if name is not None and deco.args:
            for ns, op in self.ops_in(deco.args[0], scope) or ():
                self.decomps.append(DecompFact(self.decomp_kind(), op, ns, qual, name, "written", loc))
            return
        callee = self.dotted(deco.func, scope) or ""
        if callee.endswith(".py_impl") and deco.args:
            op = _op_of(callee[: -len(".py_impl")])
            if op:
                key = ast.unparse(deco.args[0]).rsplit(".", 1)[-1]
                self.decomps.append(DecompFact("py_impl", op[1], op[0], qual, f"py_impl({key})", "written", loc))
            return
        leaf = callee.rsplit(".", 1)[-1]
        if leaf.startswith("_make_elementwise") and leaf.endswith("_reference"):
            self.factory_ref(deco, leaf, qual, getattr(node, "name", ""), loc, scope)

    def factory_ref(self, deco: ast.Call, leaf: str, qual: str, fname: str, loc: Location, scope: _Scope) -> None:
        """@_make_elementwise_{unary,binary}_reference(...): torch._refs' naming rule (prims_common.get_aten_op)."""
        kw = {k.arg: k.value for k in deco.keywords if k.arg}
        reg = kw.get("should_register_decomposition")
        if isinstance(reg, ast.Constant) and reg.value is False:
            self.decomps.append(DecompFact("ref", None, "", qual, leaf, "none", loc))
            return
        if "aten_op" in kw and not (isinstance(kw["aten_op"], ast.Name) and kw["aten_op"].id == "infer_aten_op"):
            value = kw["aten_op"]
            if isinstance(value, ast.Constant) and value.value is None:
                self.decomps.append(DecompFact("ref", None, "", qual, leaf, "none", loc))
                return
            ops = self.ops_in(value, scope)
            for ns, op in ops or ():
                self.decomps.append(DecompFact("ref", op, ns, qual, leaf, "written", loc))
            if not ops:
                self.decomps.append(DecompFact("ref", None, "", qual, leaf, "none", loc))
            return
        name = kw.get("name")
        base = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else fname
        rest = self.module[len("torch._refs") :].lstrip(".")
        prefix = rest.replace(".", "_") + "_" if rest else ""
        self.decomps.append(DecompFact("ref", f"{prefix}{base}", "aten", qual, leaf, "inferred", loc))

    def note_helper(self, node: _Def, nested: list[_Def], scope: _Scope) -> None:
        """Record node as a helper when an inner def is registered for one of its parameters.

        nested: the inner defs as _Subtree collected them. The first registering decorator in
        ast.walk's order is the one recorded; only when inner defs disagree is that order needed,
        and then node is walked again.
        """
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        found = {self.registered_param(sub, params, scope) for sub in nested} - {None}
        if len(found) > 1:  # inner defs disagree: the first of them in ast.walk's order wins
            nested = [s for s in ast.walk(node) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
            hits = (self.registered_param(s, params, scope) for s in nested if s is not node)
            found = {next(h for h in hits if h is not None)}
        if found:
            self.helpers[node.name] = found.pop()

    def registered_param(self, sub: _Def, params: list[str], scope: _Scope) -> tuple[int, str] | None:
        """(parameter index, registrar) of sub's first decorator registering it for one of params."""
        for deco in sub.decorator_list:
            if (
                isinstance(deco, ast.Call)
                and deco.args
                and isinstance(deco.args[0], ast.Name)
                and deco.args[0].id in params
                and (name := self.registrar(deco, scope)) is not None
            ):
                return params.index(deco.args[0].id), name
        return None

    def registration_call(self, value: ast.Call, scope: _Scope, fallback_fn: str) -> None:
        """register_decomposition(ops)(fn) written as a call, X = register_decomposition(ops)(fn),
        or a call of a registering helper: register_inplace(aten.add_, aten.add)."""
        if isinstance(value.func, ast.Name) and value.func.id in self.helpers:
            index, _ = self.helpers[value.func.id]
            if index < len(value.args):
                helper = f"{self.module}.{value.func.id}"
                for ns, op in self.ops_in(value.args[index], scope) or ():
                    self.decomps.append(
                        DecompFact(self.decomp_kind(), op, ns, helper, value.func.id, "written", self.loc(value))
                    )
            return
        inner = value.func
        if not (isinstance(inner, ast.Call) and inner.args):
            return
        name = self.registrar(inner, scope)
        if name is None:
            return
        fn = value.args[0] if value.args else None
        fn_qual = fallback_fn
        if fn is not None:
            d = self.resolve(fn, scope)
            if d and d[1]:
                fn_qual = d[0]
        for ns, op in self.ops_in(inner.args[0], scope) or ():
            self.decomps.append(DecompFact(self.decomp_kind(), op, ns, fn_qual, name, "written", self.loc(value)))

    # -- re-exports -------------------------------------------------------------------

    def module_statement(self, stmt: ast.stmt, scope: _Scope, type_checking: bool) -> None:
        loc = self.loc(stmt)
        is_package = self.path.replace("\\", "/").endswith("__init__.py")
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.registration_call(stmt.value, scope, fallback_fn="")
            self.all_update(stmt.value, loc)
        if type_checking:
            return
        if isinstance(stmt, ast.ImportFrom) and is_package:
            src = self.absolute(stmt.module, stmt.level)
            for a in stmt.names:
                if a.name == "*":
                    self.reexports.append(ReexportFact(self.module, "*", src, "star_import", (), loc))
                else:
                    self.reexports.append(
                        ReexportFact(self.module, a.asname or a.name, f"{src}.{a.name}", "import", (), loc)
                    )
        elif isinstance(stmt, ast.Import) and is_package:
            for a in stmt.names:
                if a.asname:
                    self.reexports.append(ReexportFact(self.module, a.asname, a.name, "import", (), loc))
        elif isinstance(stmt, ast.For):
            self.dir_loop(stmt, scope)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            target, value = _simple_assign(stmt) if not isinstance(stmt, ast.AugAssign) else (None, None)
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                target, value = stmt.target.id, stmt.value
            if target == "__all__" and value is not None:
                for s in _strings(value):
                    self.reexports.append(ReexportFact(self.module, s, "", "all", (), loc))
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Subscript)
                and ast.unparse(stmt.targets[0]) == "sys.modules[__name__]"
            ):
                self.getattr_forward(stmt, loc)

    def all_update(self, call: ast.Call, loc: Location) -> None:
        f = call.func
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id == "__all__"
            and f.attr in ("append", "extend")
            and call.args
        ):
            for s in _strings(call.args[0]):
                self.reexports.append(ReexportFact(self.module, s, "", "all", (), loc))

    def dir_loop(self, stmt: ast.For, scope: _Scope) -> None:
        """``for NAME in dir(X): ... globals()[NAME] = ...``: every name of X is exported."""
        it = stmt.iter
        if not (
            isinstance(stmt.target, ast.Name)
            and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "dir"
            and len(it.args) == 1
        ):
            return
        var = stmt.target.id
        exports = any(
            isinstance(n, ast.Subscript)
            and isinstance(n.ctx, ast.Store)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "globals"
            for n in ast.walk(stmt)
        )
        source = self.dotted(it.args[0], scope)
        if not exports or source is None:
            return
        excludes: list[str] = []
        for s in stmt.body:
            if isinstance(s, ast.If) and any(isinstance(b, ast.Continue) for b in s.body):
                for n in ast.walk(s.test):
                    if (
                        isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute)
                        and n.func.attr == "startswith"
                        and isinstance(n.func.value, ast.Name)
                        and n.func.value.id == var
                    ):
                        excludes.extend(f"{p}*" for p in _strings(n.args[0]) if n.args)
                    elif (
                        isinstance(n, ast.Compare)
                        and isinstance(n.left, ast.Name)
                        and n.left.id == var
                        and len(n.ops) == 1
                        and isinstance(n.ops[0], ast.In)
                    ):
                        right = n.comparators[0]
                        if isinstance(right, ast.Name) and right.id in self.module_values:
                            right = self.module_values[right.id]
                        excludes.extend(_strings(right))
        self.reexports.append(ReexportFact(self.module, "*", source, "dir_loop", tuple(excludes), self.loc(stmt)))

    def getattr_forward(self, stmt: ast.Assign, loc: Location) -> None:
        """``sys.modules[__name__] = Cls(...)`` where Cls.__getattr__ forwards to ``self.x = <module>``."""
        value = stmt.value
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return
        cls = next((c for c in self.tree.body if isinstance(c, ast.ClassDef) and c.name == value.func.id), None)
        if cls is None:
            return
        has_getattr = any(isinstance(s, ast.FunctionDef) and s.name == "__getattr__" for s in cls.body)
        for n in ast.walk(cls):
            if (
                has_getattr
                and isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Attribute)
                and isinstance(n.targets[0].value, ast.Name)
                and n.targets[0].value.id == "self"
            ):
                src = self.dotted(n.value, _Scope(self.module))
                if src and src.startswith("torch."):
                    self.reexports.append(ReexportFact(self.module, "*", src, "getattr_forward", (), loc))
                    return


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, descending into if/try/with blocks but not into defs or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _module_statements(stmt.body)
            yield from _module_statements(stmt.orelse)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from _module_statements(part)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            yield from _module_statements(stmt.body)


def _simple_assign(stmt: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``NAME = value`` or ``NAME: T = value`` -> (NAME, value); anything else -> (None, None)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value
    return None, None


def _strings(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


# --- one traversal per def ------------------------------------------------------------------
#
# Each def needs its local names, its imports, its inner defs (note_helper) and its calls. One
# breadth-first traversal collects all four; it visits nodes in ast.walk's order (so calls keep
# the order ast.walk gave them) but reads each node type's child fields through one cached
# attrgetter and leaves out fields that hold no node of interest (contexts, operators, strings).

# Fields that never lead to a node the passes look at: expression contexts, operators, identifiers, flags.
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "asname", "level",
    "kind", "type_comment", "conversion", "simple", "is_async", "tag", "kwd_attrs",
})  # fmt: skip

# What a node type means to _Subtree.add: nothing, a name it stores, a call, a parameter, a def ...
_OTHER, _NAME, _CALL, _ARG, _DEF, _CLASS, _IMPORT = range(7)
_ROLES = {
    ast.Name: _NAME, ast.Call: _CALL, ast.arg: _ARG, ast.FunctionDef: _DEF, ast.AsyncFunctionDef: _DEF,
    ast.ClassDef: _CLASS, ast.Import: _IMPORT, ast.ImportFrom: _IMPORT,
}  # fmt: skip
_STORE_DEL = (ast.Store, ast.Del)
# type -> (role, getter of its child fields or None for a leaf, getter returns a tuple of fields)
_SPECS: dict[type, tuple[int, attrgetter | None, bool]] = {}


def _spec(t: type) -> tuple[int, attrgetter | None, bool]:
    """How _Subtree.add reads a node of type t; anything not an AST node (None, a str) is a leaf."""
    fields: tuple[str, ...] = ()
    if issubclass(t, ast.AST) and t is not ast.Constant:
        fields = tuple(f for f in t._fields if f not in _LEAF_FIELDS)
    getter = attrgetter(*fields) if fields else None
    spec = _SPECS[t] = (_ROLES.get(t, _OTHER), getter, len(fields) > 1)
    return spec


class _Subtree:
    """What the passes over a def need from its subtree, gathered by one breadth-first traversal."""

    __slots__ = ("calls", "defs", "imports", "names")

    def __init__(self) -> None:
        self.calls: list[ast.Call] = []  # in ast.walk's order under each root added
        self.names: set[str] = set()  # parameters, stored or deleted names, inner def and class names
        self.imports: list[ast.Import | ast.ImportFrom] = []
        self.defs: list[_Def] = []  # inner defs

    @classmethod
    def of_def(cls, node: _Def) -> _Subtree:
        """A def's subtree: calls of its body only (as the walker charges them), the rest of the whole def.

        The names are a def's local names, nested scopes included (an over-approximation).
        """
        sub = cls()
        for stmt in node.body:
            sub.add(stmt)
        calls, sub.calls = sub.calls, []  # decorators, defaults, annotations: their names count, not their calls
        for f in node._fields:
            if f != "body":
                value = getattr(node, f)
                for child in value if isinstance(value, list) else (value,):
                    if isinstance(child, ast.AST):
                        sub.add(child)
        sub.calls = calls
        return sub

    def add(self, root: ast.AST) -> None:
        """Traverse root's subtree (root included) breadth first, as ast.walk does."""
        calls, names, imports, defs = self.calls, self.names, self.imports, self.defs
        specs = _SPECS
        queue: list[Any] = [root]
        append, extend = queue.append, queue.extend
        for node in queue:  # a list iterator also yields what is appended while it runs
            t = type(node)
            spec = specs.get(t) or _spec(t)
            role, getter, many = spec
            if role:
                if role == _NAME:
                    if isinstance(node.ctx, _STORE_DEL):
                        names.add(node.id)
                    continue
                if role == _CALL:
                    calls.append(node)
                elif role == _ARG:
                    names.add(node.arg)
                elif role == _DEF:
                    names.add(node.name)
                    defs.append(node)
                elif role == _CLASS:
                    names.add(node.name)
                else:  # an import binds no name through a child node, and has no call under it
                    imports.append(node)
                    continue
            if getter is None:
                continue
            if many:
                for value in getter(node):
                    if type(value) is list:
                        extend(value)
                    elif value is not None:
                        append(value)
            else:
                value = getter(node)
                if type(value) is list:
                    extend(value)
                elif value is not None:
                    append(value)


def extract(source: bytes, path: str) -> PyFacts:
    """One Python file -> its facts. Pure; a file that does not parse gives PyFacts.error."""
    module = module_name(path)
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        return PyFacts(path, module, error=f"{path}:{e.lineno or 0}: {e.msg}")
    except (ValueError, RecursionError, MemoryError) as e:
        return PyFacts(path, module, error=f"{path}:0: {type(e).__name__}: {e}")
    is_package = path.replace("\\", "/").endswith("__init__.py")
    package = module if is_package else module.rpartition(".")[0]
    w = _Walker(path, module, package, tree)
    try:
        w.walk_module()
    except RecursionError as e:
        return PyFacts(path, module, error=f"{path}:0: RecursionError: {e}")
    return PyFacts(
        path,
        module,
        defs=tuple(w.defs),
        classes=tuple(w.classes.values()),
        calls=tuple(w.calls),
        bindings=tuple(w.bindings),
        reexports=tuple(w.reexports),
        decomps=tuple(w.decomps),
    )


# --- helpers around extract: which files, and the one cross-file question it can answer ---


def py_source_files(checkout: str | Path) -> list[str]:
    """The PY_SOURCES of a checkout as sorted relative posix paths (symlinks are not followed out)."""
    root = Path(checkout).resolve()
    found: set[str] = set()
    for pattern in PY_SOURCES:
        for p in root.glob(pattern):
            if p.is_file() and p.suffix == ".py" and p.resolve().is_relative_to(root):
                found.add(p.relative_to(root).as_posix())
    return sorted(found)


def module_classes(all_facts: Iterable[PyFacts]) -> frozenset[str]:
    """Qualified names of every nn.Module subclass, following bases across files and package re-exports."""
    facts = list(all_facts)
    classes = {c.qualname: c for f in facts for c in f.classes}
    imports: dict[str, str] = {}
    stars: dict[str, list[str]] = {}
    for f in facts:
        for r in f.reexports:
            if r.kind == "import":
                imports[f"{r.module}.{r.name}"] = r.source
            elif r.kind == "star_import":
                stars.setdefault(r.module, []).append(r.source)

    def canonical(name: str, depth: int = 0) -> str:
        if name in classes or depth > 8:
            return name
        if name in imports:
            return canonical(imports[name], depth + 1)
        mod, _, leaf = name.rpartition(".")
        for src in stars.get(mod, ()):
            cand = canonical(f"{src}.{leaf}", depth + 1)
            if cand in classes:
                return cand
        return name

    verdict: dict[str, bool] = {}

    def is_module(q: str, seen: frozenset[str] = frozenset()) -> bool:
        if q in verdict:
            return verdict[q]
        c = classes[q]
        result = c.is_module
        for b in c.bases:
            if result:
                break
            cb = canonical(b)
            result = cb in MODULE_ROOTS or (cb in classes and cb not in seen and is_module(cb, seen | {q}))
        verdict[q] = result
        return result

    return frozenset(q for q in classes if is_module(q))
