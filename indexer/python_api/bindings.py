"""Recogniser of names bound directly to a callee at module or class level.

``gelu = _add_docstr(torch._C._nn.gelu, ...)``, ``max_pool1d = boolean_dispatch(if_true=..., if_false=...)``,
``softplus = torch._C._nn.softplus``, ``X = _make_alias(Y)`` and ``X = _make_inplace(Y)``.
Any other ``X = call(...)`` may still be a registration (decomps).
"""

from __future__ import annotations

import ast

from ..facts import Location
from ..vocab import PyCallKind
from .decomps import Decomps
from .facts import BindingFact, Collected
from .kinds import BindingVia
from .names import Names, Scope, classify, normalize
from .syntax import simple_assign

_DOCSTR = ("_add_docstr", "add_docstr")
_DISPATCH_ARGS = ("if_true", "if_false")


class Bindings:
    """Finds the bindings of one file and appends their BindingFacts, in source order."""

    def __init__(self, names: Names, found: Collected, decomps: Decomps) -> None:
        self.names = names
        self.found = found
        self.decomps = decomps

    def statement(self, stmt: ast.stmt, scope: Scope, prefix: str) -> None:
        """``NAME = value`` in a module or class body (prefix: its qualified name)."""
        target, value = simple_assign(stmt)
        if target is None or value is None:
            return
        qual = self.names.qualified(prefix, target)
        loc = self.names.loc(stmt)
        if isinstance(value, (ast.Name, ast.Attribute)):
            self.bind(qual, value, BindingVia.ASSIGN, scope, loc)
            return
        if not isinstance(value, ast.Call):
            return
        leaf = (self.names.dotted(value.func, scope) or "").rsplit(".", 1)[-1]
        if leaf in _DOCSTR and value.args:
            self.bind(qual, value.args[0], BindingVia.ADD_DOCSTR, scope, loc)
        elif leaf == BindingVia.BOOLEAN_DISPATCH:
            for kw in value.keywords:
                if kw.arg in _DISPATCH_ARGS:
                    self.bind(qual, kw.value, BindingVia.BOOLEAN_DISPATCH, scope, loc)
        elif leaf == BindingVia.MAKE_ALIAS and value.args:
            self.bind(qual, value.args[0], BindingVia.MAKE_ALIAS, scope, loc)
        elif leaf == BindingVia.MAKE_INPLACE and value.args and isinstance(value.args[0], ast.Name):
            self.bind(qual, value.args[0], BindingVia.MAKE_INPLACE, scope, loc)
            self.decomps.inplace_ref(value.args[0], qual, loc)
        else:
            self.decomps.registration_call(value, scope, fallback_fn=qual)

    def bind(self, qual: str, expr: ast.expr, via: BindingVia, scope: Scope, loc: Location) -> None:
        """qual is bound to expr, when expr names something the linker can follow (not a local value)."""
        r = self.names.resolve(expr, scope)
        if r is None or not r[1]:
            return
        dotted = normalize(r[0])
        kind, name = classify(dotted)
        if isinstance(expr, ast.Name) and expr.id in self.names.defined:
            kind = PyCallKind.PYTHON  # a def of this file, as for calls
        self.found.bindings.append(BindingFact(qual, kind, name, dotted, via, loc))
