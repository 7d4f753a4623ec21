"""One breadth-first traversal of a def gives what the walk needs: calls, local names, imports, inner defs.

It reads each node type's child fields through one cached attrgetter and leaves
out fields that hold no node of interest (contexts, operators, identifiers).
The order of each list is ast.walk's where it decides a result:

- calls are in ast.walk's order under each root added (each statement of a
  def's body), which is the order py_calls rows have;
- imports and inner defs are in ast.walk's order over the whole def. The
  traversal notes each one's depth under its statement; ast.walk over the def
  visits by depth first and, at one depth, statement by statement, so a stable
  sort on that depth gives exactly its order (expressions hold no statements,
  so nothing outside the body can come between).
"""

from __future__ import annotations

import ast
from operator import attrgetter, itemgetter
from typing import Any

from .syntax import Def

# Fields that never lead to a node the passes look at: expression contexts, operators, identifiers, flags.
_LEAF_FIELDS = frozenset({
    "ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "asname", "level",
    "kind", "type_comment", "conversion", "simple", "is_async", "tag", "kwd_attrs",
})  # fmt: skip

# What a node type means to Subtree.add: nothing, a name it stores, a call, a parameter, a def ...
_OTHER, _NAME, _CALL, _ARG, _DEF, _CLASS, _IMPORT = range(7)
_ROLES = {
    ast.Name: _NAME, ast.Call: _CALL, ast.arg: _ARG, ast.FunctionDef: _DEF, ast.AsyncFunctionDef: _DEF,
    ast.ClassDef: _CLASS, ast.Import: _IMPORT, ast.ImportFrom: _IMPORT,
}  # fmt: skip
_STORE_DEL = (ast.Store, ast.Del)
# type -> (role, getter of its child fields or None for a leaf, getter returns a tuple of fields)
_SPECS: dict[type, tuple[int, attrgetter | None, bool]] = {}
_DEPTH = itemgetter(0)


def _spec(t: type) -> tuple[int, attrgetter | None, bool]:
    """How Subtree.add reads a node of type t; anything not an AST node (None, a str) is a leaf."""
    fields: tuple[str, ...] = ()
    if issubclass(t, ast.AST) and t is not ast.Constant:
        fields = tuple(f for f in t._fields if f not in _LEAF_FIELDS)
    getter = attrgetter(*fields) if fields else None
    spec = _SPECS[t] = (_ROLES.get(t, _OTHER), getter, len(fields) > 1)
    return spec


class Subtree:
    """What the walk needs from a subtree, gathered by one breadth-first traversal."""

    __slots__ = ("_defs", "_imports", "calls", "names")

    def __init__(self) -> None:
        self.calls: list[ast.Call] = []  # in ast.walk's order under each root added
        self.names: set[str] = set()  # parameters, stored or deleted names, inner def and class names
        self._imports: list[tuple[int, ast.Import | ast.ImportFrom]] = []  # (depth under its root, node)
        self._defs: list[tuple[int, Def]] = []

    @classmethod
    def of_def(cls, node: Def) -> Subtree:
        """A def's subtree: calls of its body only (as the walk charges them), the rest of the whole def.

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

    @property
    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        """The import statements, in ast.walk's order over the def (see the module docstring)."""
        return [n for _, n in sorted(self._imports, key=_DEPTH)]

    @property
    def defs(self) -> list[Def]:
        """The inner defs (at any depth), in ast.walk's order over the def."""
        return [n for _, n in sorted(self._defs, key=_DEPTH)]

    def add(self, root: ast.AST) -> None:
        """Traverse root's subtree (root included) breadth first, as ast.walk does, noting depths."""
        calls, names, imports, defs = self.calls, self.names, self._imports, self._defs
        specs = _SPECS
        queue: list[Any] = [root]
        append, extend = queue.append, queue.extend
        depth, next_depth_at = 0, 1  # the queue holds one depth after another; the next starts at that index
        for i, node in enumerate(queue):  # a list iterator also yields what is appended while it runs
            if i == next_depth_at:
                depth, next_depth_at = depth + 1, len(queue)
            t = type(node)
            role, getter, many = specs.get(t) or _spec(t)
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
                    defs.append((depth, node))
                elif role == _CLASS:
                    names.add(node.name)
                else:  # an import binds no name through a child node, and has no call under it
                    imports.append((depth, node))
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
