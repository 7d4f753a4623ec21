"""Shapes of Python syntax that the walk and the recognisers read (stdlib ast nodes in, plain values out)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

Def = ast.FunctionDef | ast.AsyncFunctionDef
DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
TRY_NODES = (ast.Try, getattr(ast, "TryStar", ast.Try))
WITH_NODES = (ast.With, ast.AsyncWith)
SEQUENCE_NODES = (ast.List, ast.Tuple, ast.Set)


def module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, descending into if/try/with blocks but not into defs or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from module_statements(stmt.body)
            yield from module_statements(stmt.orelse)
        elif isinstance(stmt, TRY_NODES):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                yield from module_statements(part)
        elif isinstance(stmt, WITH_NODES):
            yield from module_statements(stmt.body)


def simple_assign(stmt: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """``NAME = value`` or ``NAME: T = value`` -> (NAME, value); anything else -> (None, None)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value
    return None, None


def strings(node: ast.expr) -> list[str]:
    """The string constants of ``"x"`` or of a list, tuple or set display; [] for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, SEQUENCE_NODES):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def is_name(node: ast.AST, name: str) -> bool:
    """node is the bare name ``name``."""
    return isinstance(node, ast.Name) and node.id == name


def calls_name(node: ast.AST, name: str) -> bool:
    """node is a call of the bare name ``name``: ``dir(...)``, ``globals()``."""
    return isinstance(node, ast.Call) and is_name(node.func, name)


def keywords(call: ast.Call) -> dict[str, ast.expr]:
    """A call's keyword arguments by name (``**kwargs`` left out)."""
    return {k.arg: k.value for k in call.keywords if k.arg}
