"""Linking the Python layer, at query time: a Python name -> the Python hops -> the aten ops it reaches.

The index stores the Python facts per file (py_defs, py_classes, py_calls,
py_bindings, py_reexports, py_decomps); this module follows names across them
the way Python and PyTorch's bindings do:

- a dotted name is looked up as a def, class or binding; otherwise through the
  re-exports of its module (imports, `import *` honouring `__all__`, the
  `for name in dir(_C._VariableFunctions)` loop of torch/__init__.py), and a
  member of a class through its bases in Python's MRO (C3: methods are inherited);
- an nn.Module class goes to its forward (inherited or its own), an optimizer
  class to its step, `self.x(...)` to the method of the traced class's MRO (so
  `_conv_forward` helpers are followed; in torch.Tensor and its subclasses a
  `self.x(...)` no Python def answers to TensorBase's x, the op's method variant;
  a submodule's `self.norm1(...)` to the forward of the class a method assigned to
  it, py_attributes), `super().x(...)` to the classes after the defining class in
  that MRO;
- the bindings to aten ops are torchgen's: an op with `python_module: M` (nn,
  linalg, special, fft, sparse, nested) is `torch._C._M.<name>`; the `function`
  variant is `torch.<name>` = `torch._C._VariableFunctions.<name>` = `_VF.<name>`;
  the `method` variant is `Tensor.<name>` (unless torch/_tensor.py defines it in
  Python); `torch.ops.aten.<name>[.<overload>]` is the op itself. A name reaches
  every overload bound under it.
- a dunder (`Tensor.__add__`, or each operator of an expression, operators.py)
  is the def or binding of torch/_tensor.py, else the op named like it (the
  method variant), else the entry of a C++ method table of torch._C.TensorBase
  (bindings.py): the entry's file:line, the C++ function (its definition, or
  the template slot tools/autograd generates it into) and a generated
  function's ops;
- a name no Python def, class or op answers (`torch.tensor`,
  `torch.is_grad_enabled`, `torch._C._nn._parse_to`) is looked up the same way
  in the namespaces it comes from: torch._C.<M>.x in torch._C.<M>, torch.x in
  what torch/__init__.py star-imports or loops over (torch._C,
  torch._C._VariableFunctions);
- the ops a trace reaches below what was asked are marked plumbing when
  plumbing.py says so; render groups them.
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from dataclasses import dataclass, replace

from ..indexer import naming
from ..indexer.errors import TgIndexError
from ..indexer.facts import Location
from ..indexer.python_api import classify
from ..indexer.vocab import PyCallKind
from . import operators, plumbing
from .bindings import Binding, Bindings
from .conditions import Branches
from .generated_bindings import TENSOR_BASE
from .match import shown
from .results import Decomp, Hop, HopKind, OpRef, PyTrace, Truncation

NO_OP = "no op in native_functions.yaml answers this name"
CXX_BINDING = "C++ binding (python_variable_methods.cpp) not indexed yet"  # an index without method tables
NO_CXX_BINDING = "no C++ method table of torch._C.TensorBase binds it"

PY_MODULES = ("nn", "linalg", "special", "fft", "sparse", "nested")
# Usual spellings -> the dotted name they stand for (longest prefix first).
SPELLINGS: tuple[tuple[str, str], ...] = (
    ("torch.ops.aten::", "torch.ops.aten."),
    ("aten::", "torch.ops.aten."),
    ("ops.aten.", "torch.ops.aten."),
    ("aten.", "torch.ops.aten."),
    ("F.", "torch.nn.functional."),
    ("nn.functional.", "torch.nn.functional."),
    ("nn.", "torch.nn."),
    ("Tensor.", "torch.Tensor."),
    ("_VF.", "torch._VF."),
    ("_C.", "torch._C."),
    *((f"{m}.", f"torch.{m}.") for m in PY_MODULES if m != "nn"),
)


@dataclass(frozen=True)
class Entity:
    kind: str  # def, class, binding, c (a name of torch._C._VariableFunctions exported by torch)
    name: str  # qualified name
    loc: Location | None = None
    cls: str | None = None  # defs: the enclosing class
    instance: str | None = None  # a forward reached through an attribute: the class of the attribute's object


@dataclass(frozen=True)
class Unbound:
    name: str  # a name meant for an aten op that no op answers: torch.relu_ in a checkout without relu_
    reason: str = NO_OP  # or CXX_BINDING: a dunder no method table of the index binds


@dataclass(frozen=True)
class Bound:
    binding: Binding  # a name bound in C++: the method-table entry, the C++ function, a generated one's ops


def _excluded(name: str, excludes: list[str]) -> bool:
    return any(name.startswith(e[:-1]) if e.endswith("*") else name == e for e in excludes)


def _is_dunder(dotted: str) -> bool:
    leaf = dotted.rpartition(".")[2]
    return dotted.startswith("torch.Tensor.") and len(leaf) > 4 and leaf.startswith("__") and leaf.endswith("__")


def _how(found: list[Entity | OpRef | Unbound]) -> str:
    """How a dunder was resolved, for the operator's hop."""
    item = found[0]
    if isinstance(item, Unbound):
        return item.reason
    if isinstance(item, Bound):
        return f"C++ method table {item.binding.table} ({item.binding.entry})"
    if isinstance(item, OpRef):
        return "the op named like the dunder in native_functions.yaml (method variant)"
    if item.kind == "binding":
        return f"bound in {item.loc.file}" if item.loc else "bound in Python"
    return f"Python def in {item.loc.file}" if item.loc else "Python def"


def _plumbing(hop: Hop, asked: set[str]) -> Hop:
    """An op hop marked with why it is plumbing (never one the name itself stands for)."""
    if hop.kind != HopKind.OP or hop.name in asked or hop.name.partition(".")[0] in asked:
        return hop
    why = plumbing.reason(hop.name)
    return replace(hop, plumbing=why) if why else hop


class PyLinker:
    """Python names -> hops and aten ops, over the py_* tables of an open index."""

    def __init__(self, conn: sqlite3.Connection, max_hops: int = 8):
        self.conn = conn
        self.max_hops = max_hops
        self._lookups: dict[str, Entity | None] = {}
        self._mros: dict[str, list[str]] = {}
        self._ops: dict[str, list[tuple[str, list[str], str | None]]] = {}
        self._all: dict[str, frozenset[str] | None] = {}
        self._not_followed: dict[str, None] = {}  # defs and classes at --hops, with calls not followed
        self.bindings = Bindings(conn)
        self.branches = Branches(conn)  # the conditions that pick each call (conditions.py)

    # -- names ----------------------------------------------------------------------------------

    @staticmethod
    def spell(name: str) -> str:
        """nn.X -> torch.nn.X, F.x -> torch.nn.functional.x, aten::mm -> torch.ops.aten.mm ..."""
        name = name.strip()
        if name.startswith("torch."):
            return name.replace("torch.ops.aten::", "torch.ops.aten.")
        for short, full in SPELLINGS:
            if name.startswith(short):
                return full + name[len(short):]
        return name

    def _exact(self, dotted: str) -> Entity | None:
        row = self.conn.execute("SELECT qualname, file, line, cls FROM py_defs WHERE qualname = ? ORDER BY id LIMIT 1",
                                (dotted,)).fetchone()
        if row:
            return Entity("def", row[0], Location(row[1], row[2]), row[3])
        row = self.conn.execute("SELECT qualname, file, line FROM py_classes WHERE qualname = ? ORDER BY id LIMIT 1",
                                (dotted,)).fetchone()
        if row:
            return Entity("class", row[0], Location(row[1], row[2]))
        row = self.conn.execute("SELECT qualname, file, line FROM py_bindings WHERE qualname = ? ORDER BY id LIMIT 1",
                                (dotted,)).fetchone()
        if row:
            return Entity("binding", row[0], Location(row[1], row[2]))
        return None

    def _module_all(self, module: str) -> frozenset[str] | None:
        """The names of a module's __all__, None when it has none (then every public name is exported)."""
        if module not in self._all:
            names = [r[0] for r in self.conn.execute(
                "SELECT name FROM py_reexports WHERE module = ? AND kind = 'all'", (module,))]
            self._all[module] = frozenset(names) if names else None
        return self._all[module]

    def lookup(self, dotted: str, seen: frozenset[str] = frozenset()) -> Entity | None:
        """A dotted name -> the def, class or binding it is, following re-exports and class bases."""
        top = not seen
        if top and dotted in self._lookups:
            return self._lookups[dotted]
        found = None if dotted in seen or len(seen) > 16 else self._lookup(dotted, seen | {dotted})
        if top:
            self._lookups[dotted] = found
        return found

    def _lookup(self, dotted: str, seen: frozenset[str]) -> Entity | None:
        found = self._exact(dotted)
        if found is not None:
            return found
        module, _, leaf = dotted.rpartition(".")
        if not module:
            return None
        parent = self.lookup(module, seen)
        if parent is not None and parent.kind == "class":
            return self.member(parent.name, leaf)
        rows = self.conn.execute("SELECT kind, source, excludes FROM py_reexports WHERE module = ? AND name IN (?, '*') "
                                 "AND kind != 'all' ORDER BY line DESC, id DESC", (module, leaf)).fetchall()
        for kind, source, excludes in rows:  # the later statement wins, as in Python
            if kind == "import":
                found = self.lookup(source, seen)
            elif kind == "star_import":
                exported = self._module_all(source)
                if leaf.startswith("_") or (exported is not None and leaf not in exported):
                    continue
                found = self.lookup(f"{source}.{leaf}", seen)
            elif (kind in ("dir_loop", "getattr_forward") and source.endswith("_VariableFunctions")
                  and not _excluded(leaf, json.loads(excludes)) and self.ops_bound("function", leaf, None)):
                found = Entity("c", f"torch._C._VariableFunctions.{leaf}")
            if found is not None:
                return found
        return None

    def _imported(self, module: str, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM py_reexports WHERE module = ? AND name = ? AND kind = 'import'",
                                 (module, name)).fetchone() is not None

    def bases(self, cls: str) -> list[str]:
        row = self.conn.execute("SELECT bases FROM py_classes WHERE qualname = ? ORDER BY id LIMIT 1", (cls,)).fetchone()
        return json.loads(row[0]) if row else []

    def mro(self, cls: str, seen: frozenset[str] = frozenset()) -> list[str]:
        """The class and its bases in Python's method resolution order (C3 over the bases the index resolves to
        classes: LazyBatchNorm1d(_LazyNormBase, _BatchNorm) looks in LazyModuleMixin, then _BatchNorm, before
        their shared _NormBase); bases it cannot order so are taken depth-first after the rest."""
        if cls in self._mros:
            return self._mros[cls]
        if cls in seen or len(seen) > 16:
            return [cls]
        parents: list[str] = []
        for base in self.bases(cls):
            found = self.lookup(base)
            if found is not None and found.kind == "class" and found.name not in parents and found.name != cls:
                parents.append(found.name)
        seqs = [s for s in (*(list(self.mro(p, seen | {cls})) for p in parents), list(parents)) if s]
        out = [cls]
        while seqs:
            head = next((q[0] for q in seqs if not any(q[0] in other[1:] for other in seqs)), None)
            if head is None:  # no consistent order: the rest depth-first, each class once
                out += [c for q in seqs for c in q if c not in out]
                out = list(dict.fromkeys(out))
                break
            out.append(head)
            seqs = [q[1:] if q[0] == head else q for q in seqs]
            seqs = [q for q in seqs if q]
        self._mros[cls] = out
        return out

    def attribute_calls(self, cls: str, attr: str) -> list[Entity]:
        """What calling `self.attr(...)` runs on an instance of cls: the classes the first class of its MRO with
        such assignments assigns to the attribute (py_attributes: `self.norm1 = LayerNorm(...)`, each branch of
        a conditional one), each object's forward (an nn.Module: Module.__call__ runs it) or else __call__. A
        function's result (`self.activation = _get_activation_fn(...)`) is not typed: nothing."""
        for c in self.mro(cls):
            targets = [r[0] for r in self.conn.execute(
                "SELECT DISTINCT target FROM py_attributes WHERE cls = ? AND name = ? ORDER BY id", (c, attr))]
            if not targets:
                continue
            out: list[Entity] = []
            for target in targets:
                found = self.lookup(target)
                if found is None or found.kind != "class":
                    continue
                entry = self.member(found.name, "forward") or self.member(found.name, "__call__")
                if entry is not None and entry.kind == "def":
                    out.append(replace(entry, instance=found.name))
            return out
        return []

    def _tensor_class(self, cls: str) -> bool:
        """Whether the class derives from the C tensor type (torch._C.TensorBase; 1.x's torch._C._TensorBase), whose
        methods the Python facts do not hold: torch.Tensor and its subclasses (Parameter ...)."""
        return any(b in (TENSOR_BASE, "torch._C._TensorBase") for c in self.mro(cls) for b in self.bases(c))

    def _own_member(self, cls: str, name: str) -> Entity | None:
        row = self.conn.execute("SELECT qualname, file, line, cls FROM py_defs WHERE cls = ? AND name = ? "
                                "ORDER BY id LIMIT 1", (cls, name)).fetchone()
        if row:
            return Entity("def", row[0], Location(row[1], row[2]), row[3])
        row = self.conn.execute("SELECT qualname, file, line FROM py_bindings WHERE qualname = ? ORDER BY id LIMIT 1",
                                (f"{cls}.{name}",)).fetchone()
        if row:
            return Entity("binding", row[0], Location(row[1], row[2]))
        return None

    def member(self, cls: str, name: str, after: str | None = None) -> Entity | None:
        """cls.name: the first class of cls's MRO that defines or binds it; after: only the classes after that
        one in the MRO (what `super().name` in a method of `after` reaches on an instance of cls)."""
        order = self.mro(cls)
        if after is not None:
            order = order[order.index(after) + 1:] if after in order else self.mro(after)[1:]
        for c in order:
            hit = self._own_member(c, name)
            if hit is not None:
                return hit
        return None

    # -- aten ops ---------------------------------------------------------------------------------

    def ops_bound(self, variant: str | None, base: str, python_module: str | None) -> tuple[str, ...]:
        """The ops a Python binding of `base` dispatches over: variant function/method (None: any),
        and for functions the python_module (None: torch / _VariableFunctions)."""
        if base not in self._ops:
            self._ops[base] = [(n, json.loads(v), pm) for n, v, pm in self.conn.execute(
                "SELECT name, variants, python_module FROM ops WHERE base = ? ORDER BY id", (base,))]
        out = []
        for name, variants, module in self._ops[base]:
            if variant == "method" and "method" in variants or variant == "function" and "function" in variants and module == python_module or variant is None:
                out.append(name)
        return tuple(out)

    def _aten(self, spec: str) -> OpRef | Unbound:
        """torch.ops.aten.<name>[.<overload>]: `.default` is the overload-less op."""
        base, overload = naming.split_op(spec)
        if not overload:
            ops = self.ops_bound(None, base, None)
            return OpRef(base, ops) if ops else Unbound(f"torch.ops.aten.{spec}")
        name = base if overload == "default" else spec
        row = self.conn.execute("SELECT name FROM ops WHERE name = ?", (name,)).fetchone()
        return OpRef(name, (name,)) if row else Unbound(f"torch.ops.aten.{spec}")

    def targets(self, kind: str, name: str, target: str, self_cls: str | None,
                def_cls: str | None, caller: str | None = None) -> list[Entity | OpRef | Unbound]:
        """What one call (or binding) reaches: Python entities to follow, aten ops, or a name no op answers.
        caller: the def or binding making the call; a name that looks up to it is not it (torch/functional.py's
        `istft = _add_docstr(torch.istft, ...)` binds the C function torch.istft was before torch star-imported
        torch.functional, not itself)."""
        def op(variant: str, base: str, module: str | None, written: str) -> list[Entity | OpRef | Unbound]:
            ops = self.ops_bound(variant, base, module)
            return [OpRef(base, ops)] if ops else [Unbound(written)]

        if kind == PyCallKind.FUNCTIONAL:
            found = self.lookup(f"torch.nn.functional.{name}")
            return [found] if found else []
        if kind == PyCallKind.TORCH:
            found = self.lookup(f"torch.{name}")
            if found is not None and found.kind != "c" and found.name != caller:
                return [found]
            if not self.ops_bound("function", name, None) and self._imported("torch", name):
                return []  # a Python name torch imports from a module the index does not read (torch.no_grad)
            return op("function", name, None, f"torch.{name}")
        if kind == PyCallKind.VF:
            return op("function", name, None, f"torch._VF.{name}")
        if kind == PyCallKind.TORCH_C_NN:
            return op("function", name, "nn", f"torch._C._nn.{name}")
        if kind == PyCallKind.TORCH_C:
            module, _, leaf = name.partition(".")
            if not leaf or "." in leaf:
                return []
            if module == "_VariableFunctions":
                return op("function", leaf, None, f"torch._C.{name}")
            if module.lstrip("_") in PY_MODULES and module.startswith("_"):
                return op("function", leaf, module[1:], f"torch._C.{name}")
            if module in ("TensorBase", "_TensorBase"):
                return op("method", leaf, None, f"torch._C.{name}")
            return []
        if kind == PyCallKind.TENSOR_BASE:
            return op("method", name, None, f"torch._C.TensorBase.{name}")
        if kind == PyCallKind.TENSOR_METHOD:
            tensor = self.lookup("torch.Tensor")
            found = self.member(tensor.name, name) if tensor is not None and tensor.kind == "class" else None
            if found is not None:
                return [found]
            ops = self.ops_bound("method", name, None)
            return [OpRef(name, ops)] if ops else []  # x.append(...) on a list is no op
        if kind == PyCallKind.TORCH_OPS:
            ns, _, spec = name.partition("::")
            return [self._aten(spec)] if ns == "aten" else [Unbound(f"torch.ops.{ns}.{spec}")]
        # python
        head, _, rest = target.partition(".")
        if head in ("self", "cls") and rest and "." not in rest and self_cls:
            found = self.member(self_cls, rest)
            if found is None and self._tensor_class(self_cls):  # Tensor's own `self.to_sparse()`: TensorBase's
                return self.targets(PyCallKind.TENSOR_BASE, rest, f"{TENSOR_BASE}.{rest}", self_cls, def_cls)
            if found is None:  # `self.self_attn(...)`: the object a method assigned to the attribute, called
                return self.attribute_calls(self_cls, rest)
        elif head == "super()" and rest and "." not in rest and def_cls:
            found = self.member(self_cls or def_cls, rest, after=def_cls)
        elif "." in target and not target.startswith("<"):
            found = self.lookup(target)
        else:
            found = None
        if found is None or found.kind == "class":
            return []
        if found.kind == "c":
            return self.targets(*classify(found.name), found.name, self_cls, def_cls)
        return [found]

    # -- the walk ---------------------------------------------------------------------------------

    def start(self, name: str) -> tuple[str, list[Entity | OpRef | Unbound]]:
        """The dotted name asked and what it is; one-line errors for unknown or ambiguous names."""
        dotted = self.spell(name)
        if "." not in dotted:
            candidates = [f"torch.nn.{dotted}", f"torch.nn.functional.{dotted}", f"torch.{dotted}",
                          f"torch.Tensor.{dotted}"]
            hits = [c for c in candidates if self._resolves(c)]
            if len(hits) == 1:
                dotted = hits[0]
            elif hits:
                raise TgIndexError(f"ambiguous name {shown(name)}; one of " + ", ".join(repr(h) for h in hits))
        kind, short = classify(dotted)
        if kind in (PyCallKind.TORCH_C_NN, PyCallKind.VF, PyCallKind.TORCH_C, PyCallKind.TENSOR_BASE, PyCallKind.TORCH_OPS):
            found = [t for t in self.targets(kind, short, dotted, None, None) if not isinstance(t, Unbound)]
        else:
            entity = self.lookup(dotted)
            if entity is not None and entity.kind != "c":
                found = [entity]
            elif kind == PyCallKind.TORCH or (entity is not None and entity.kind == "c"):
                found = [t for t in self.targets(PyCallKind.TORCH, dotted.split(".", 1)[1], dotted, None, None)
                         if not isinstance(t, Unbound)] if dotted.count(".") == 1 else []
            elif kind == PyCallKind.TENSOR_METHOD:
                found = [t for t in self.targets(kind, short, dotted, None, None) if not isinstance(t, Unbound)]
            else:
                found = []
        if not found:
            found = [Bound(b) for b in self.cxx_bindings(dotted)]
        if not found and _is_dunder(dotted):
            return dotted, [Unbound(dotted, NO_CXX_BINDING if self.bindings.available() else CXX_BINDING)]
        if not found:
            raise TgIndexError(f"unknown Python name {shown(name)}" + self._close(dotted))
        return dotted, found

    def cxx_bindings(self, dotted: str) -> list[Binding]:
        """The C++ bindings of a torch._C name, of a Tensor method or dunder (torch._C.TensorBase), and of a
        torch.x that torch/__init__.py takes from torch._C (star import) or torch._C._VariableFunctions (dir loop)."""
        module, _, leaf = dotted.rpartition(".")
        if not leaf or not module:
            return []
        namespaces = [module] if module.startswith("torch._C") else []
        if module == "torch.Tensor":  # the C type torch.Tensor derives from: TensorBase (2.x), _TensorBase (1.x)
            tensor = self.lookup("torch.Tensor")
            bases = self.bases(tensor.name) if tensor is not None and tensor.kind == "class" else []
            # the Python facts write torch._C._TensorBase as torch._C.TensorBase (names.normalize); C++ keeps 1.x's name
            namespaces = [b for b in bases if b.startswith("torch._C.")] + [TENSOR_BASE, "torch._C._TensorBase"]
        if module == "torch":
            for kind, source, excludes in self.conn.execute(
                    "SELECT kind, source, excludes FROM py_reexports WHERE module = 'torch' AND name = '*' "
                    "AND source LIKE 'torch._C%' ORDER BY line DESC, id DESC"):
                if kind == "star_import" and not leaf.startswith("_") or kind == "dir_loop" and not _excluded(
                        leaf, json.loads(excludes)):
                    namespaces.append(source)
        for namespace in dict.fromkeys(namespaces):
            found = self.bindings.lookup(namespace, leaf)
            if found:
                return found
        return []

    def _resolves(self, dotted: str) -> bool:
        try:
            self.start(dotted)
            return True
        except TgIndexError:
            return False

    def _close(self, dotted: str) -> str:
        """'; did you mean ...?' from the public names of the index (Python names and op bindings)."""
        leaf = dotted.rpartition(".")[2]
        names: set[str] = set()
        for (q,) in self.conn.execute("SELECT qualname FROM py_defs WHERE kind = 'function' UNION "
                                      "SELECT qualname FROM py_classes WHERE nn_module = 1 UNION "
                                      "SELECT qualname FROM py_bindings"):
            names.add(q)
        for (q,) in self.conn.execute("SELECT module || '.' || name FROM py_reexports WHERE kind = 'import'"):
            names.add(q)
        for (q,) in self.conn.execute("SELECT s.module || '.' || a.name FROM py_reexports s JOIN py_reexports a "
                                      "ON a.module = s.source AND a.kind = 'all' WHERE s.kind = 'star_import'"):
            names.add(q)
        for (module_name, leaf_name) in self.conn.execute(
                "SELECT module, name FROM py_reexports WHERE kind = 'all'"):
            names.add(f"{module_name}.{leaf_name}")
        for base, variants, pm in self.conn.execute("SELECT DISTINCT base, variants, python_module FROM ops"):
            v = json.loads(variants)
            if "function" in v:
                names.add(f"torch._C._{pm}.{base}" if pm else f"torch.{base}")
            if "method" in v:
                names.add(f"torch.Tensor.{base}")
        leaves: dict[str, list[str]] = {}
        for n in names:
            leaves.setdefault(n.rsplit(".", 1)[-1], []).append(n)
        close_leaves = difflib.get_close_matches(leaf, list(leaves), n=4, cutoff=0.7)
        ranked = sorted((n for lf in close_leaves for n in leaves[lf] if not n.rsplit(".", 1)[0].endswith(lf)),
                        key=lambda n: (-difflib.SequenceMatcher(None, n, dotted).ratio(), n))[:3]
        return f"; did you mean {', '.join(repr(r) for r in ranked)}?" if ranked else ""

    def trace(self, name: str) -> PyTrace:
        """A Python name or an expression with operators -> its hops and the aten ops reached."""
        hops: list[Hop] = []
        ops: dict[str, OpRef] = {}
        asked: set[str] = set()  # the ops the name (or an operator) stands for itself: never plumbing
        expanded: set[tuple[str, str | None]] = set()
        self._not_followed = {}
        self.branches.reset()
        if operators.looks_like_expression(name):
            resolved = []
            for operator in operators.operators(name):
                dotted, found = self.start(f"torch.Tensor.{operator.dunder}")
                resolved.append(dotted)
                how = _how(found)
                note = f"{operator.note}; {how}" if operator.note else how
                hops.append(Hop(0, HopKind.OPERATOR, dotted, target=operator.text, note=note))
                self._walk(dotted, found, 1, hops, ops, asked, expanded)
            dotted = ", ".join(dict.fromkeys(resolved))
        else:
            dotted, found = self.start(name)
            self._walk(dotted, found, 0, hops, ops, asked, expanded)
        marked = [_plumbing(h, asked) for h in hops]
        refs = tuple(replace(r, plumbing=None if {r.spec, r.spec.partition(".")[0]} & asked else plumbing.reason(r.spec))
                     for r in ops.values())
        cut = (Truncation("Python calls below --hops not followed", self.max_hops, tuple(self._not_followed)),)
        return PyTrace(name, dotted, tuple(marked), refs, cut if self._not_followed else ())

    def _walk(self, dotted: str, found: list[Entity | OpRef | Unbound], depth: int, hops: list[Hop],
              ops: dict[str, OpRef], asked: set[str], expanded: set[tuple[str, str | None]]) -> None:
        """The hops below what a name (or a dunder) stands for, starting at `depth`."""
        asked.add(dotted.rpartition(".")[2])  # Tensor.unflatten's own op is no plumbing, though Python defines it
        for item in found:
            if isinstance(item, OpRef):
                hops.append(Hop(depth, HopKind.OP, item.spec, classify(dotted)[0], dotted))
                ops.setdefault(item.spec, item)
                asked.add(item.spec)
                continue
            if isinstance(item, Unbound):
                hops.append(Hop(depth, HopKind.UNRESOLVED, item.name, note=item.reason))
                continue
            if isinstance(item, Bound):
                self._bound(item.binding, depth, hops, ops, asked)
                continue
            kind = HopKind(item.kind) if item.kind != "def" else (HopKind.METHOD if item.cls else HopKind.FUNCTION)
            hops.append(Hop(depth, kind, item.name, definition=item.loc))
            self._expand(item, depth, item.name if item.kind == "class" else item.cls, hops, ops, expanded)

    @staticmethod
    def _bound(binding: Binding, depth: int, hops: list[Hop], ops: dict[str, OpRef], asked: set[str]) -> None:
        """A C++ binding's hops: the method-table entry with the C++ function, then a generated function's ops."""
        wrapped = f" in {', '.join(binding.wrappers)}" if binding.wrappers else ""
        if binding.generated:
            where = (f"generated by tools/autograd/gen_python_functions.py into the ${{py_methods}} slot of "
                     f"{binding.definition.file}" if binding.definition else "generated by tools/autograd")
        elif binding.definition is not None:
            where = f"hand-written C++ {binding.function} at {binding.definition}"
        else:
            where = f"C++ {binding.function}: no definition in the index"
        note = f"method table {binding.table}: {binding.function}{wrapped}; {where}"
        hops.append(Hop(depth, HopKind.BINDING, binding.python, "cxx", binding.function, binding.entry,
                        binding.definition, note))
        called: dict[str, list[str]] = {}  # base -> its overloads called (an overload set gives each)
        first: dict[str, Location] = {}
        for op, where in binding.calls:
            base = naming.split_op(op)[0]
            called.setdefault(base, []).append(op)
            first.setdefault(base, where)
        for base, overloads in called.items():
            hops.append(Hop(depth + 1, HopKind.OP, base, "cxx", binding.function, first[base],
                            note=f"called through the dispatcher in {binding.function} or a function it calls: "
                                 + ", ".join(overloads)))
            ops.setdefault(base, OpRef(base, tuple(overloads)))
        if binding.ops:
            base = naming.split_op(binding.ops[0])[0]
            hops.append(Hop(depth + 1, HopKind.OP, base, "cxx", binding.function, binding.definition,
                            note="the ops tools/autograd binds under this name: " + ", ".join(binding.ops)))
            ops.setdefault(base, OpRef(base, binding.ops))
            asked.add(base)

    def _calls(self, entity: Entity) -> list[tuple[str, str, str, Location]]:
        if entity.kind == "def":
            rows = self.conn.execute("SELECT kind, name, target, file, line FROM py_calls WHERE caller = ? "
                                     "ORDER BY line, id", (entity.name,)).fetchall()
        elif entity.kind == "binding":
            rows = self.conn.execute("SELECT kind, name, target, file, line FROM py_bindings WHERE qualname = ? "
                                     "ORDER BY id", (entity.name,)).fetchall()
        else:
            return []
        return [(k, n, t, Location(f, ln)) for k, n, t, f, ln in rows]

    def _expand(self, entity: Entity, depth: int, self_cls: str | None, hops: list[Hop], ops: dict[str, OpRef],
                expanded: set[tuple[str, str | None]]) -> None:
        if depth >= self.max_hops:
            if entity.kind == "class" or self._calls(entity):
                self._not_followed[entity.name] = None
            return
        if entity.kind == "class":
            init = self.member(entity.name, "__init__")
            self.branches.init = self.branches.init or (init.name if init is not None else None)
            # an nn.Module runs its forward, an optimizer its step (inherited or its own)
            for method, hop_kind in (("forward", HopKind.FORWARD), ("step", HopKind.STEP)):
                entry = self.member(entity.name, method)
                if entry is not None:
                    hops.append(Hop(depth + 1, hop_kind, entry.name, definition=entry.loc))
                    expanded.add((entry.name, self_cls))
                    self._expand(entry, depth + 1, self_cls, hops, ops, expanded)
                    break
            return
        seen_here: set[str] = set()
        picked = self.branches.hop  # a hop with the conditions that pick its call
        for kind, short, target, where in self._calls(entity):
            for reached in self.targets(kind, short, target, self_cls, entity.cls, entity.name):
                if isinstance(reached, OpRef):
                    key = f"op:{reached.spec}"
                    if key not in seen_here:
                        seen_here.add(key)
                        hops.append(picked(Hop(depth + 1, HopKind.OP, reached.spec, kind, target, where), entity.name, target))
                        ops.setdefault(reached.spec, reached)
                elif isinstance(reached, Unbound):
                    if reached.name not in seen_here:
                        seen_here.add(reached.name)
                        hops.append(picked(Hop(depth + 1, HopKind.UNRESOLVED, reached.name, kind, target, where,
                                               note=reached.reason), entity.name, target))
                else:
                    if reached.name in seen_here:
                        continue
                    seen_here.add(reached.name)
                    inner_self = reached.instance or (
                        self_cls if target.split(".")[0] in ("self", "cls", "super()") else reached.cls)
                    done = (reached.name, inner_self) in expanded
                    hops.append(picked(Hop(depth + 1, HopKind.BINDING if reached.kind == "binding" else HopKind.CALL,
                                           reached.name, kind, target, where, reached.loc, "see above" if done else None),
                                       entity.name, target))
                    if not done:
                        expanded.add((reached.name, inner_self))
                        self._expand(reached, depth + 1, inner_self, hops, ops, expanded)

    def decomps(self, spec: str) -> tuple[Decomp, ...]:
        """Decompositions, refs and py_impl kernels registered for an op (a base: for any of its overloads)."""
        base, overload = naming.split_op(spec)
        rows = self.conn.execute("SELECT kind, op, function, registrar, file, line FROM py_decomps "
                                 "WHERE op = ? OR substr(op, 1, ?) = ? ORDER BY file, line",
                                 (base, len(base) + 1, base + ".")).fetchall()
        out = []
        for kind, op, function, registrar, file, line in rows:
            op_overload = op.partition(".")[2]
            if overload and op_overload not in ("", overload):
                continue
            out.append(Decomp(kind, op, function, registrar, Location(file, line)))
        return tuple(out)
