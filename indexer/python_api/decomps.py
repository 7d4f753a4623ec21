"""Recognisers of decompositions, references and py_impl kernels, each with the aten op it registers.

The forms: ``@register_decomposition(aten.X)`` (and look-alike registrars),
``register_decomposition(ops)(fn)`` written as a call, ``@aten.X.py_impl(key)``,
torch._refs' ``@_make_elementwise_*_reference`` factories with their naming
rule, ``X = _make_inplace(Y)``, and module-level defs that register an inner
def for one of their parameters (``register_inplace(aten.add_, aten.add)``).
"""

from __future__ import annotations

import ast

from ..facts import Location
from .facts import Collected, DecompFact
from .kinds import DecompHow, DecompKind
from .names import Names, Scope, op_of
from .syntax import SEQUENCE_NODES, Def, is_name, keywords

REFS = "torch._refs"  # the package whose registrations are references
_PY_IMPL = ".py_impl"


def inplace_op(base: str) -> str:
    """The in-place op of a functional one: ``cos`` -> ``cos_`` (torch._refs' _make_inplace)."""
    return base + "_"


def refs_op(refs_module: str, name: str) -> str:
    """torch._refs' get_aten_op: a ref ``name`` in torch._refs.<sub> registers aten ``<sub>_<name>``
    (dots of a deeper submodule become underscores); in torch._refs itself, aten ``<name>``."""
    rest = refs_module[len(REFS) :].lstrip(".")
    return f"{rest.replace('.', '_')}_{name}" if rest else name


class Decomps:
    """Finds the registrations of one file and appends their DecompFacts, in source order."""

    def __init__(self, names: Names, found: Collected) -> None:
        self.names = names
        self.found = found
        self.in_refs = names.module.startswith(REFS)
        self.kind = DecompKind.REF if self.in_refs else DecompKind.DECOMPOSITION
        # module-level defs that register an inner def for one of their parameters:
        # def register_inplace(aten_op, outplace_op): @register_decomposition(aten_op) def inplace_op ...
        self.helpers: dict[str, tuple[int, str]] = {}  # def name -> (param index, registrar)

    def add(self, kind: DecompKind, op: str | None, ns: str, fn: str, registrar: str, how: DecompHow,
            loc: Location) -> None:
        self.found.decomps.append(DecompFact(kind, op, ns, fn, registrar, how, loc))

    def ops_in(self, node: ast.expr, scope: Scope, depth: int = 0) -> list[tuple[str, str]] | None:
        """Op references in a registrar argument: aten.X, [aten.X.default, aten.Y], a module-level list,
        getattr(aten, "X"); None when one of them is not an op."""
        if isinstance(node, SEQUENCE_NODES):
            out: list[tuple[str, str]] = []
            for elt in node.elts:
                sub = self.ops_in(elt, scope, depth + 1)
                if sub is None:
                    return None
                out.extend(sub)
            return out
        if (
            isinstance(node, ast.Call)
            and is_name(node.func, "getattr")
            and len(node.args) == 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            base = self.names.dotted(node.args[0], scope)
            op = op_of(f"{base}.{node.args[1].value}") if base else None
            return [op] if op else None
        if isinstance(node, ast.Name) and node.id in self.names.module_values and depth < 3:
            value = self.names.module_values[node.id]
            if isinstance(value, SEQUENCE_NODES):
                return self.ops_in(value, scope, depth + 1)
        d = self.names.dotted(node, scope)
        op = op_of(d) if d else None
        return [op] if op else None

    def registrar(self, call: ast.Call, scope: Scope) -> str | None:
        """The registrar name when call is register_decomposition(...) or a look-alike."""
        callee = self.names.dotted(call.func, scope)
        if callee is None:
            return None
        leaf = callee.rsplit(".", 1)[-1]
        if "register" in leaf and "decomp" in leaf and "jit" not in leaf:
            return leaf
        return None

    def decorator(self, deco: ast.expr, qual: str, fname: str) -> None:
        """A decorator of the def qual (named fname): a registrar, a py_impl or a refs factory."""
        scope = self.names.module_scope
        if not isinstance(deco, ast.Call):
            return
        loc = self.names.loc(deco)
        name = self.registrar(deco, scope)
        if name is not None and deco.args:
            for ns, op in self.ops_in(deco.args[0], scope) or ():
                self.add(self.kind, op, ns, qual, name, DecompHow.WRITTEN, loc)
            return
        callee = self.names.dotted(deco.func, scope) or ""
        if callee.endswith(_PY_IMPL) and deco.args:
            op = op_of(callee[: -len(_PY_IMPL)])
            if op:
                key = ast.unparse(deco.args[0]).rsplit(".", 1)[-1]
                self.add(DecompKind.PY_IMPL, op[1], op[0], qual, f"py_impl({key})", DecompHow.WRITTEN, loc)
            return
        leaf = callee.rsplit(".", 1)[-1]
        if leaf.startswith("_make_elementwise") and leaf.endswith("_reference"):
            self.factory_ref(deco, leaf, qual, fname, loc, scope)

    def factory_ref(self, deco: ast.Call, leaf: str, qual: str, fname: str, loc: Location, scope: Scope) -> None:
        """@_make_elementwise_{unary,binary}_reference(...): torch._refs' naming rule (prims_common.get_aten_op)."""
        kw = keywords(deco)
        reg = kw.get("should_register_decomposition")
        if isinstance(reg, ast.Constant) and reg.value is False:
            self.add(DecompKind.REF, None, "", qual, leaf, DecompHow.NONE, loc)
            return
        if "aten_op" in kw and not is_name(kw["aten_op"], "infer_aten_op"):
            value = kw["aten_op"]
            if isinstance(value, ast.Constant) and value.value is None:
                self.add(DecompKind.REF, None, "", qual, leaf, DecompHow.NONE, loc)
                return
            ops = self.ops_in(value, scope)
            for ns, op in ops or ():
                self.add(DecompKind.REF, op, ns, qual, leaf, DecompHow.WRITTEN, loc)
            if not ops:
                self.add(DecompKind.REF, None, "", qual, leaf, DecompHow.NONE, loc)
            return
        name = kw.get("name")
        base = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else fname
        self.add(DecompKind.REF, refs_op(self.names.module, base), "aten", qual, leaf, DecompHow.INFERRED, loc)

    def public_ref(self, node: Def, qual: str, found_before: int) -> None:
        """A public module-level def of torch._refs whose decorators registered nothing visible."""
        if self.in_refs and not node.name.startswith("_") and len(self.found.decomps) == found_before:
            self.add(DecompKind.REF, None, "", qual, "", DecompHow.NONE, self.names.loc(node))

    def inplace_ref(self, inner: ast.Name, qual: str, loc: Location) -> None:
        """``X = _make_inplace(Y)`` in torch._refs: the ref of aten ``Y_``."""
        if self.in_refs:
            self.add(DecompKind.REF, inplace_op(inner.id), "aten", qual, "_make_inplace", DecompHow.INFERRED, loc)

    def note_helper(self, node: Def, nested: list[Def], scope: Scope) -> None:
        """Record node as a helper when an inner def is registered for one of its parameters.

        nested: the inner defs in ast.walk's order; the first that registers decides.
        """
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        for sub in nested:
            found = self.registered_param(sub, params, scope)
            if found is not None:
                self.helpers[node.name] = found
                return

    def registered_param(self, sub: Def, params: list[str], scope: Scope) -> tuple[int, str] | None:
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

    def registration_call(self, value: ast.Call, scope: Scope, fallback_fn: str) -> None:
        """register_decomposition(ops)(fn) written as a call, X = register_decomposition(ops)(fn),
        or a call of a registering helper: register_inplace(aten.add_, aten.add)."""
        if isinstance(value.func, ast.Name) and value.func.id in self.helpers:
            self.helper_call(value, value.func.id, scope)
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
            d = self.names.resolve(fn, scope)
            if d and d[1]:
                fn_qual = d[0]
        for ns, op in self.ops_in(inner.args[0], scope) or ():
            self.add(self.kind, op, ns, fn_qual, name, DecompHow.WRITTEN, self.names.loc(value))

    def helper_call(self, value: ast.Call, helper: str, scope: Scope) -> None:
        """A call of a module-level def that registers an inner def for its parameter at index."""
        index, _ = self.helpers[helper]
        if index < len(value.args):
            qual = self.names.qualified(self.names.module, helper)
            for ns, op in self.ops_in(value.args[index], scope) or ():
                self.add(self.kind, op, ns, qual, helper, DecompHow.WRITTEN, self.names.loc(value))
