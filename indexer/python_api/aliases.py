"""Calls through a local alias of a function: `func = _fused_adam` ... `func(...)`, as the optimizers choose a path.

A local name counts as an alias when every binding of it in the def is a plain
assignment of a function reference (a name or a dotted name that starts at an
import or a module-level name), or of a conditional expression whose values are
such references (`index_put = aten.index_put_ if inplace else aten.index_put`).
A call of the alias then stands for a call of each function assigned, charged
at the line of the assignment: the call of `func(...)` itself is kept as it is
(a python call of `func`), and the facts add one call per function assigned.
Which condition picks which one is in py_branches (branches.py).
"""

from __future__ import annotations

import ast

from .syntax import Def


def _called_locals(calls: list[ast.Call], local: frozenset[str]) -> set[str]:
    return {c.func.id for c in calls if isinstance(c.func, ast.Name) and c.func.id in local}


def aliases(node: Def, calls: list[ast.Call], local: frozenset[str]) -> dict[str, list[ast.Assign]]:
    """Local names called in the def whose every binding is `name = <function reference>` -> those assignments."""
    wanted = _called_locals(calls, local)
    if not wanted:
        return {}
    plain: dict[str, list[ast.Assign]] = {}
    plain_targets: set[int] = set()
    spoiled: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id in wanted and _is_reference(n.value):
            plain.setdefault(n.targets[0].id, []).append(n)
            plain_targets.add(id(n.targets[0]))
        elif isinstance(n, ast.arg) and n.arg in wanted:
            spoiled.add(n.arg)  # a parameter may be any callable
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n is not node \
                and n.name in wanted:
            spoiled.add(n.name)
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in wanted and not isinstance(n.ctx, ast.Load) \
                and id(n) not in plain_targets:
            spoiled.add(n.id)  # a for target, a with target, an augmented assignment, del ...
    return {name: found for name, found in plain.items() if name not in spoiled}


def _is_reference(value: ast.expr) -> bool:
    """A name, a dotted name, or `A if T else B` of references."""
    if isinstance(value, ast.IfExp):
        return _is_reference(value.body) and _is_reference(value.orelse)
    return isinstance(value, ast.Name | ast.Attribute)


def reference_call(reference: ast.expr, assign: ast.Assign) -> ast.Call:
    """A reference assigned in `func = ...` as the call `X()` written at the assignment's line (for the walk's
    call classifier)."""
    call = ast.Call(func=reference, args=[], keywords=[])
    return ast.copy_location(call, assign)
