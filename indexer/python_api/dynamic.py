"""Calls of a name spelled at run time from a literal table: ``getattr(mod, f"enable_{name}_sdp")(flag)``.

torch.nn.attention's sdpa_kernel turns its backends into flag setters this way:

    _backend_names = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION", ...}
    for name, val in _backend_names.items():
        getattr(torch.backends.cuda, f"enable_{name}_sdp")(enabled)

A call of ``getattr(X, <f-string>)`` inside ``for ... in T`` (or ``T.items()``,
``T.keys()``, ``T.values()``) stands for one call of ``X.<name>`` per entry of
T, when T is a module-level dict, list or tuple of string constants and every
value the f-string formats is a plain loop variable bound to those strings.
Each expansion is handed to the walk's call classifier as the call
``X.<name>()`` written at the getattr call's place; anything else adds nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .syntax import Def, calls_name


def _spelled(call: ast.Call) -> tuple[ast.expr, ast.JoinedStr] | None:
    """``getattr(X, f"...")(...)`` -> (X, the f-string)."""
    inner = call.func
    if calls_name(inner, "getattr") and len(inner.args) == 2 and isinstance(inner.args[1], ast.JoinedStr):
        return inner.args[0], inner.args[1]
    return None


def _entries(iterable: ast.expr, table: ast.expr) -> list[tuple[str | None, str | None]] | None:
    """(key, value) strings of a literal table as the for loop reads it; None when it is no such table."""
    if isinstance(table, ast.Dict):
        keys = [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None for k in table.keys]
        values = [v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else None for v in table.values]
        method = iterable.func.attr if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) \
            else "keys"
        if method == "items":
            return list(zip(keys, values))
        return [(v, None) for v in (values if method == "values" else keys)]
    if isinstance(table, ast.List | ast.Tuple) and isinstance(iterable, ast.Name):
        return [(e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else None, None) for e in table.elts]
    return None


def _table_name(iterable: ast.expr) -> str | None:
    """The name a for loop iterates: T, T.items(), T.keys(), T.values()."""
    if isinstance(iterable, ast.Name):
        return iterable.id
    if isinstance(iterable, ast.Call) and not iterable.args and isinstance(iterable.func, ast.Attribute) \
            and iterable.func.attr in ("items", "keys", "values") and isinstance(iterable.func.value, ast.Name):
        return iterable.func.value.id
    return None


def _loop_names(target: ast.expr) -> tuple[str | None, str | None]:
    """The names a for target binds to an entry's key and value: `name` or `name, val`."""
    if isinstance(target, ast.Name):
        return target.id, None
    if isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return tuple(e.id if isinstance(e, ast.Name) else None for e in target.elts)  # type: ignore[return-value]
    return None, None


def _spell(fstring: ast.JoinedStr, bound: dict[str, str | None]) -> str | None:
    out = []
    for part in fstring.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
        elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) and part.format_spec is None \
                and part.conversion == -1 and bound.get(part.value.id) is not None:
            out.append(bound[part.value.id])  # type: ignore[arg-type]
        else:
            return None
    name = "".join(out)
    return name if name.isidentifier() else None


def has_spelled(calls: list[ast.Call]) -> bool:
    """Whether any of a def's calls is a call of ``getattr(X, f"...")`` (the cheap test before expansions)."""
    return any(_spelled(c) is not None for c in calls)


def expansions(node: Def, module_values: dict[str, ast.expr],
               local: frozenset[str]) -> Iterator[tuple[ast.Call, ast.Call]]:
    """(the call ``X.<name>()``, the getattr call it stands for) for the spelled getattr calls of a def, in the
    order of its for loops."""
    for loop in ast.walk(node):
        if not isinstance(loop, ast.For):
            continue
        table = _table_name(loop.iter)
        if table is None or table in local or table not in module_values:
            continue
        entries = _entries(loop.iter, module_values[table])
        key_name, value_name = _loop_names(loop.target)
        if entries is None or key_name is None and value_name is None:
            continue
        for call in (n for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Call)):
            spelled = _spelled(call)
            if spelled is None:
                continue
            for key, value in entries:
                bound = {k: v for k, v in ((key_name, key), (value_name, value)) if k is not None}
                name = _spell(spelled[1], bound)
                if name is not None:
                    attr = ast.Attribute(value=spelled[0], attr=name, ctx=ast.Load())
                    yield ast.copy_location(ast.Call(func=attr, args=[], keywords=[]), call), call
