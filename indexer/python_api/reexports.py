"""Recognisers of what a module re-exports: package imports, ``import *``, ``__all__``, dir loops, getattr forwards.

Only module-level statements count, and those under ``if TYPE_CHECKING:`` do
not (except ``__all__.append/extend``, which is read wherever it is written).
"""

from __future__ import annotations

import ast

from ..facts import Location
from .facts import Collected, ReexportFact
from .kinds import ReexportKind
from .names import Names, Scope
from .syntax import calls_name, is_name, simple_assign, strings

_ALL = "__all__"
_SYS_MODULE = "sys.modules[__name__]"


class Reexports:
    """Finds the re-exports of one module and appends their ReexportFacts, in source order."""

    def __init__(self, names: Names, found: Collected, tree: ast.Module) -> None:
        self.names = names
        self.found = found
        self.tree = tree

    def add(self, name: str, source: str, kind: ReexportKind, loc: Location, excludes: tuple[str, ...] = ()) -> None:
        self.found.reexports.append(ReexportFact(self.names.module, name, source, kind, excludes, loc))

    def statement(self, stmt: ast.stmt, scope: Scope, type_checking: bool) -> None:
        """One module-level statement (not a def, class or block)."""
        loc = self.names.loc(stmt)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.all_update(stmt.value, loc)
        if type_checking:
            return
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if self.names.is_package:
                self.package_import(stmt, loc)
        elif isinstance(stmt, ast.For):
            self.dir_loop(stmt, scope)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            target, value = simple_assign(stmt)
            if target == _ALL and value is not None:
                self.all_names(value, loc)
            elif isinstance(stmt, ast.Assign):
                self.getattr_forward(stmt, loc)
        elif isinstance(stmt, ast.AugAssign) and is_name(stmt.target, _ALL):
            self.all_names(stmt.value, loc)

    def package_import(self, stmt: ast.Import | ast.ImportFrom, loc: Location) -> None:
        """An import in a package's __init__.py: each name it binds is the package's."""
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname:
                    self.add(a.asname, a.name, ReexportKind.IMPORT, loc)
            return
        src = self.names.absolute(stmt.module, stmt.level)
        for a in stmt.names:
            if a.name == "*":
                self.add("*", src, ReexportKind.STAR_IMPORT, loc)
            else:
                self.add(a.asname or a.name, f"{src}.{a.name}", ReexportKind.IMPORT, loc)

    def all_names(self, value: ast.expr, loc: Location) -> None:
        for s in strings(value):
            self.add(s, "", ReexportKind.ALL, loc)

    def all_update(self, call: ast.Call, loc: Location) -> None:
        """``__all__.append("x")`` / ``__all__.extend([...])``."""
        f = call.func
        if isinstance(f, ast.Attribute) and is_name(f.value, _ALL) and f.attr in ("append", "extend") and call.args:
            self.all_names(call.args[0], loc)

    def dir_loop(self, stmt: ast.For, scope: Scope) -> None:
        """``for NAME in dir(X): ... globals()[NAME] = ...``: every name of X is exported."""
        it = stmt.iter
        if not (isinstance(stmt.target, ast.Name) and calls_name(it, "dir") and len(it.args) == 1):
            return
        exports = any(
            isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and calls_name(n.value, "globals")
            for n in ast.walk(stmt)
        )
        source = self.names.dotted(it.args[0], scope)
        if not exports or source is None:
            return
        excludes = self.dir_loop_excludes(stmt, stmt.target.id)
        self.add("*", source, ReexportKind.DIR_LOOP, self.names.loc(stmt), tuple(excludes))

    def dir_loop_excludes(self, stmt: ast.For, var: str) -> list[str]:
        """Names a dir loop skips: ``if NAME.startswith(...): continue`` ("p*"), ``if NAME in [...]: continue``."""
        excludes: list[str] = []
        for s in stmt.body:
            if not (isinstance(s, ast.If) and any(isinstance(b, ast.Continue) for b in s.body)):
                continue
            for n in ast.walk(s.test):
                if (
                    isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "startswith"
                    and is_name(n.func.value, var)
                ):
                    excludes.extend(f"{p}*" for p in (strings(n.args[0]) if n.args else ()))
                elif (
                    isinstance(n, ast.Compare)
                    and is_name(n.left, var)
                    and len(n.ops) == 1
                    and isinstance(n.ops[0], ast.In)
                ):
                    right = n.comparators[0]
                    if isinstance(right, ast.Name) and right.id in self.names.module_values:
                        right = self.names.module_values[right.id]
                    excludes.extend(strings(right))
        return excludes

    def getattr_forward(self, stmt: ast.Assign, loc: Location) -> None:
        """``sys.modules[__name__] = Cls(...)`` where Cls.__getattr__ forwards to ``self.x = <module>``."""
        target, value = stmt.targets[0], stmt.value
        if not (len(stmt.targets) == 1 and isinstance(target, ast.Subscript) and ast.unparse(target) == _SYS_MODULE):
            return
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return
        cls = next((c for c in self.tree.body if isinstance(c, ast.ClassDef) and c.name == value.func.id), None)
        if cls is None or not any(isinstance(s, ast.FunctionDef) and s.name == "__getattr__" for s in cls.body):
            return
        for n in ast.walk(cls):
            if (
                isinstance(n, ast.Assign)
                and len(n.targets) == 1
                and isinstance(n.targets[0], ast.Attribute)
                and is_name(n.targets[0].value, "self")
            ):
                src = self.names.dotted(n.value, self.names.module_scope)
                if src and src.startswith("torch."):
                    self.add("*", src, ReexportKind.GETATTR_FORWARD, loc)
                    return
