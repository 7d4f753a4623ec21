"""Kernels Python registers with the dispatcher when `import torch` runs, read with the stdlib ast.

The forms, in the files of IMPORT_SOURCES:
- `@register_meta(aten.X.overload)` (a list or tuple of ops too; an op packet `aten.X` is every
  overload of X): torch/_meta_registrations.py puts the function in its meta table and
  activate_meta() registers it at Meta through `Library("aten", "IMPL", "Meta")`;
- a library object `lib = torch.library.Library(ns, "DEF" | "IMPL" | "FRAGMENT"[, key])` and its
  `lib.define(schema)` (a def) and `lib.impl(name, fn[, key])` calls with a written name;
- `@impl(lib, name, key)` / `@torch.library.impl(lib | "ns::op", key)` decorators;
- `@register_fake("ns::op")` / `@impl_abstract("ns::op")`: the fake kernel, registered at Meta.
Plus the py_impl kernels of the py_decomps facts (`@aten.X.py_impl(DispatchKey.K)`), which
register with the Python dispatcher at key K.

activate_meta() (torch/_meta_registrations.py) does not register at Meta an op that has a
CompositeImplicitAutograd kernel, a view op, or one of the names it lists in a set literal: the
names are read from that function here (`skipped_by_activate_meta`), and the stage drops the
composite and view ones (stage.py, activate_meta_filter), which needs the other registrations.
The rest of the decomposition tables that activate_meta also registers at Meta (post_autograd,
pre_autograd entries without a meta of their own) are not modelled.
"""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

from .. import discover
from ..python_api import module_name
from ..vocab import RegistrationKind
from .rows import DispatcherRow, RegistrationSource

IMPORT_SOURCES = ("torch/_meta_registrations.py", "torch/ao/quantization/fx/_decomposed.py")
META = "Meta"
_LIBRARY_KINDS = ("DEF", "IMPL", "FRAGMENT")


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _const(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _key(text: str | None) -> str | None:
    """"Meta", DispatchKey.Meta -> Meta."""
    return text.rsplit(".", 1)[-1] if text else None


def aten_op(dotted: str, overloads: dict[str, list[str]]) -> list[str]:
    """`aten.mm.default` -> [aten::mm]; `aten.add.Tensor` -> [aten::add.Tensor]; `aten.add` -> every overload."""
    parts = dotted.split(".")
    if parts[:1] == ["torch"] and parts[1:2] == ["ops"]:
        parts = parts[2:]
    if len(parts) == 3:
        ns, name, overload = parts
        return [f"{ns}::{name}" if overload == "default" else f"{ns}::{name}.{overload}"]
    if len(parts) == 2:
        ns, name = parts
        return [f"{ns}::{o}" for o in overloads.get(name, [])]
    return []


class _Reader(ast.NodeVisitor):
    def __init__(self, rel: str, overloads: dict[str, list[str]]):
        self.rel, self.module, self.overloads = rel, module_name(rel), overloads
        self.libs: dict[str, tuple[str, str, str | None]] = {}  # variable -> (namespace, kind, key)
        self.rows: list[DispatcherRow] = []
        self.scope: list[str] = []

    def _row(self, op: str, key: str | None, kind: RegistrationKind, generator: str, kernel: str | None, line: int):
        self.rows.append(DispatcherRow(op, key, kind, RegistrationSource.PYTHON, generator, kernel, self.rel, line))

    def visit_Assign(self, node: ast.Assign) -> None:
        v = node.value
        if isinstance(v, ast.Call) and (_dotted(v.func) or "").split(".")[-1] == "Library" and len(v.args) >= 2:
            ns, kind = _const(v.args[0]), _const(v.args[1])
            key = _const(v.args[2]) if len(v.args) > 2 else None
            for t in node.targets:
                if isinstance(t, ast.Name) and ns and kind in _LIBRARY_KINDS:
                    self.libs[t.id] = (ns, kind, key)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.libs:
            ns, _kind, lib_key = self.libs[f.value.id]
            if f.attr == "define" and node.args and (schema := _const(node.args[0])):
                self._row(_qualified(ns, schema.split("(", 1)[0].strip()), None, RegistrationKind.DEF,
                          "Library.define", None, node.lineno)
            elif f.attr == "impl" and len(node.args) >= 2 and (name := _const(node.args[0])):
                key = _const(node.args[2]) if len(node.args) > 2 else _const(_keyword(node, "dispatch_key"))
                fn = _dotted(node.args[1])
                self._row(_qualified(ns, name), _key(key) or lib_key, RegistrationKind.IMPL, "Library.impl",
                          self._qualname(fn) if fn else None, node.lineno)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = ".".join([self.module, *self.scope, node.name])
        for d in node.decorator_list:
            if isinstance(d, ast.Call):
                self._decorator(d, qualname)
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _decorator(self, d: ast.Call, qualname: str) -> None:
        name = (_dotted(d.func) or "").split(".")[-1]
        line = d.lineno
        if name == "register_meta" and d.args:
            for op in self._ops(d.args[0]):
                self._row(op, META, RegistrationKind.IMPL, "register_meta", qualname, line)
        elif name == "impl" and d.args:
            first = d.args[0]
            if isinstance(first, ast.Name) and first.id in self.libs and len(d.args) >= 2:
                ns, _kind, lib_key = self.libs[first.id]
                key = _const(d.args[2]) if len(d.args) > 2 else None
                op = _const(d.args[1])
                if op:
                    self._row(_qualified(ns, op), _key(key) or lib_key, RegistrationKind.IMPL, "torch.library.impl",
                              qualname, line)
            elif (op := _const(first)) and "::" in op:
                key = (_const(d.args[1]) or _dotted(d.args[1])) if len(d.args) > 1 else _const(_keyword(d, "types"))
                self._row(op, _key(key), RegistrationKind.IMPL, "torch.library.impl", qualname, line)
        elif name in ("register_fake", "impl_abstract") and d.args and (op := _const(d.args[0])) and "::" in op:
            self._row(op, META, RegistrationKind.IMPL, name, qualname, line)

    def _ops(self, node: ast.expr) -> list[str]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return [op for e in node.elts for op in self._ops(e)]
        d = _dotted(node)
        return aten_op(d, self.overloads) if d else []

    def _qualname(self, name: str) -> str:
        return name if "." in name else f"{self.module}.{name}"


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg == name), None)


def _qualified(ns: str, op: str) -> str:
    return op if "::" in op else f"{ns}::{op}"


def read(rel: str, source: bytes, overloads: dict[str, list[str]]) -> list[DispatcherRow]:
    """The registrations one file makes; none when it does not parse."""
    try:
        tree = ast.parse(source, rel)
    except (SyntaxError, ValueError):
        return []
    reader = _Reader(rel, overloads)
    reader.visit(tree)
    skipped = skipped_by_activate_meta(tree)
    return [r for r in reader.rows if not (r.generator == "register_meta" and r.op in skipped)]


def skipped_by_activate_meta(tree: ast.Module) -> frozenset[str]:
    """The op names activate_meta() lists in a set literal of strings (`"aten::clone"`, ...): it registers
    no Meta kernel for them."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "activate_meta":
            return frozenset(e.value for n in ast.walk(node) if isinstance(n, ast.Set) for e in n.elts
                             if isinstance(e, ast.Constant) and isinstance(e.value, str) and "::" in e.value)
    return frozenset()


_PY_IMPL = re.compile(r"py_impl\((.*)\)")


def py_impl_rows(conn: sqlite3.Connection) -> list[DispatcherRow]:
    """`@aten.X.py_impl(DispatchKey.K)` kernels from py_decomps."""
    rows = []
    for op, ns, fn, registrar, file, line in conn.execute(
            "SELECT op, namespace, function, registrar, file, line FROM py_decomps "
            "WHERE kind = 'py_impl' AND op IS NOT NULL ORDER BY id"):
        m = _PY_IMPL.fullmatch(registrar)
        name = op.removesuffix(".default")
        rows.append(DispatcherRow(_qualified(ns or "aten", name), _key(m.group(1)) if m else None,
                                  RegistrationKind.IMPL, RegistrationSource.PYTHON, "py_impl", fn, file, line))
    return rows


def python_rows(conn: sqlite3.Connection, root: Path) -> list[DispatcherRow]:
    overloads: dict[str, list[str]] = {}
    for (name,) in conn.execute("SELECT name FROM ops ORDER BY id"):
        overloads.setdefault(name.split(".", 1)[0], []).append(name)
    rows: list[DispatcherRow] = []
    for rel in IMPORT_SOURCES:
        try:
            source = discover.read_regular(discover.classify(root, rel), discover.DEFAULT_MAX_FILE_SIZE)
        except discover.Skipped:  # not in this checkout (older versions), or not a regular file
            continue
        rows.extend(read(rel, source, overloads))
    return rows + py_impl_rows(conn)
