"""The walk over one file: module and class bodies, defs and the calls inside them; ``extract`` drives it.

The walk visits module and class bodies statement by statement (descending
into if/try/with blocks), records each module-level or class-level def and
class, and charges every call inside a def (nested defs and lambdas included)
to that def. Statements that are neither go to the recognisers: bindings,
registrations (decomps) and, at module level, re-exports.
"""

from __future__ import annotations

import ast
import builtins

from ..facts import Location
from ..vocab import PyCallKind
from . import branches, dynamic
from .aliases import aliases, reference_call
from .bindings import Bindings
from .decomps import Decomps
from .facts import AttributeFact, BranchFact, CallFact, ClassFact, Collected, Condition, DefFact, PyFacts
from .kinds import PyDefKind
from .names import MODULE_ROOTS, TENSOR_BASES, Names, Scope, classify, module_name, normalize
from .reexports import Reexports
from .subtree import Subtree
from .syntax import DEF_NODES, TRY_NODES, WITH_NODES, Def, is_type_checking

_BUILTINS = frozenset(dir(builtins))
# expressions whose attributes are not tensor methods: "{}".format(...), [..].append(...)
_VALUE_NODES = (
    ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set,
    ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp,
)  # fmt: skip
_SUPER = "super()."
_SELF = ("self", "cls")


class Walker:
    """Walks one parsed file, filling a Collected with its facts."""

    def __init__(self, names: Names, tree: ast.Module, lines: list[bytes] | None = None) -> None:
        self.names = names
        self.tree = tree
        self.lines = lines or []  # the source lines, for the text of branch tests
        self.found = Collected()
        self.tensor_classes: set[str] = set()  # classes of this file derived from TensorBase
        self.decomps = Decomps(names, self.found)
        self.bindings = Bindings(names, self.found, self.decomps)
        self.reexports = Reexports(names, self.found, tree)

    def walk_module(self) -> None:
        self.names.collect_imports(self.tree.body)
        names = self.names
        self.walk_body(self.tree.body, names.module_scope, prefix=names.module, cls=None, type_checking=False)

    def walk_body(self, body: list[ast.stmt], scope: Scope, prefix: str, cls: str | None, type_checking: bool) -> None:
        """Statements of a module or class body (not of a def)."""
        for stmt in body:
            if isinstance(stmt, DEF_NODES):
                self.walk_def(stmt, prefix, cls)
            elif isinstance(stmt, ast.ClassDef):
                self.walk_class(stmt, prefix, scope)
            elif isinstance(stmt, ast.If):
                self.scan_calls(stmt.test, scope)
                self.walk_body(stmt.body, scope, prefix, cls, type_checking or is_type_checking(stmt.test))
                self.walk_body(stmt.orelse, scope, prefix, cls, type_checking)
            elif isinstance(stmt, TRY_NODES):
                for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                    self.walk_body(part, scope, prefix, cls, type_checking)
            elif isinstance(stmt, WITH_NODES):
                for item in stmt.items:
                    self.scan_calls(item.context_expr, scope)
                self.walk_body(stmt.body, scope, prefix, cls, type_checking)
            else:
                if cls is None:
                    self.module_statement(stmt, scope, type_checking)
                self.bindings.statement(stmt, scope, prefix)
                self.scan_calls(stmt, scope)

    def module_statement(self, stmt: ast.stmt, scope: Scope, type_checking: bool) -> None:
        """A module-level statement: a registration written as a call, and what the module re-exports."""
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.decomps.registration_call(stmt.value, scope, fallback_fn="")
        self.reexports.statement(stmt, scope, type_checking)

    def walk_def(self, node: Def, prefix: str, cls: str | None) -> None:
        qual = self.names.qualified(prefix, node.name)
        kind = PyDefKind.METHOD if cls else PyDefKind.FUNCTION
        end = node.end_lineno or node.lineno
        self.found.defs.append(DefFact(qual, node.name, kind, cls, self.names.loc(node), end))
        before = len(self.found.decomps)
        for deco in node.decorator_list:
            self.decomps.decorator(deco, qual, node.name)
        sub = Subtree.of_def(node)
        scope = Scope(qual, cls, frozenset(sub.names), self.names.local_imports(sub.imports))
        if cls is None:
            self.decomps.note_helper(node, sub.defs, scope)
        guards = branches.guards(node, self.lines)
        self.add_calls(sub.calls, scope, guards)
        self.add_alias_calls(node, sub.calls, scope, guards)
        if dynamic.has_spelled(sub.calls):
            for spelled, written in dynamic.expansions(node, self.names.module_values, scope.locals):
                if (fact := self.call(spelled, scope)) is not None:
                    self.add_fact(fact, guards.get(id(written), ()))
        self.found.flags.extend(branches.flags(node, qual, self.names.path, guards, self.lines))
        if cls is None:
            self.decomps.public_ref(node, qual, before)
        else:
            self.add_attributes(node, qual, cls, scope)

    def add_attributes(self, node: Def, qual: str, cls: str, scope: Scope) -> None:
        """`self.x = Name(...)` in a method (each call of a conditional expression's branches too): what
        `self.x(...)` calls on the class's instances, where the callee resolves through the file's imports or
        definitions (a module's submodules: `self.self_attn = MultiheadAttention(...)`)."""
        args = node.args.posonlyargs + node.args.args
        if not args or any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
            return  # a static method's first parameter is no instance of the class (autograd.Function's ctx)
        me = args[0].arg  # self (cls in a class method: a class attribute, which instances see too)
        for n in ast.walk(node):
            if isinstance(n, ast.Assign):
                targets, value = n.targets, n.value
            elif isinstance(n, ast.AnnAssign) and n.value is not None:
                targets, value = [n.target], n.value
            else:
                continue
            names = [t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                     and t.value.id == me]
            if not names:
                continue
            for call in _assigned_calls(value):
                r = self.names.resolve(call.func, scope)
                if r is None or not r[1]:
                    continue
                for name in names:
                    self.found.attributes.append(AttributeFact(cls, name, normalize(r[0]), qual, self.names.loc(n)))

    def add_alias_calls(self, node: Def, calls: list[ast.Call], scope: Scope, guards: branches.Guards) -> None:
        """`func = _fused_adam` ... `func(...)`: a call of each function the local alias is assigned (aliases.py),
        kept only where the reference resolves to an import or a module-level name; each with the conditions of
        its assignment and of the conditional expression it is a value of."""
        for assigns in aliases(node, calls, scope.locals).values():
            for assign in assigns:
                for reference, inner in branches.if_exp_leaves(assign.value, self.lines):
                    resolved = self.names.resolve(reference, scope)
                    if resolved is not None and resolved[1]:
                        fact = self.call(reference_call(reference, assign), scope)
                        if fact is not None:
                            self.add_fact(fact, (*guards.get(id(assign), ()), *inner))

    def add_fact(self, fact: CallFact, conditions: tuple[Condition, ...]) -> None:
        """A call's fact, and the branches that pick it when there are any."""
        self.found.calls.append(fact)
        if conditions:
            self.found.branches.append(BranchFact(fact.caller, fact.target, fact.loc, conditions))

    def walk_class(self, node: ast.ClassDef, prefix: str, outer: Scope) -> None:
        qual = self.names.qualified(prefix, node.name)
        written = tuple(ast.unparse(b) for b in node.bases)
        bases = tuple(self.names.dotted(b, outer) or w for b, w in zip(node.bases, written))
        classes = self.found.classes
        is_module = any(b in MODULE_ROOTS or (b in classes and classes[b].is_module) for b in bases)
        if any(b in TENSOR_BASES or b in self.tensor_classes for b in bases):
            self.tensor_classes.add(qual)
        forward = None
        for stmt in node.body:
            if isinstance(stmt, DEF_NODES) and stmt.name == "forward":
                forward = f"{qual}.forward"
        classes[qual] = ClassFact(
            qual, node.name, bases, written, is_module, forward, self.names.loc(node), node.end_lineno or node.lineno
        )
        for b in node.bases:
            self.scan_calls(b, outer)
        self.walk_body(node.body, Scope(qual, qual), prefix=qual, cls=qual, type_checking=False)

    def scan_calls(self, node: ast.AST, scope: Scope) -> None:
        """Every call under node (nested defs and lambdas included) charged to scope.owner."""
        sub = Subtree()
        sub.add(node)
        self.add_calls(sub.calls, scope)

    def add_calls(self, calls: list[ast.Call], scope: Scope, guards: branches.Guards | None = None) -> None:
        """The facts of calls (in ast.walk's order) charged to scope.owner, with their conditions in a def."""
        for node in calls:
            fact = self.call(node, scope)
            if fact is not None:
                self.add_fact(fact, guards.get(id(node), ()) if guards else ())

    def call(self, node: ast.Call, scope: Scope) -> CallFact | None:
        """One call -> its fact; None for a builtin or a method of a literal value."""
        func = node.func
        r = self.names.resolve(func, scope)
        loc = self.names.loc(node)
        if r is None:
            # (expr).X(...) where expr is a call result, subscript ...: a method on a value
            if isinstance(func, ast.Attribute) and not isinstance(func.value, _VALUE_NODES):
                return CallFact(scope.owner, PyCallKind.TENSOR_METHOD, func.attr, f"<expr>.{func.attr}", loc)
            return None
        dotted, rooted = normalize(r[0]), r[1]
        if rooted:
            if isinstance(func, ast.Name) and func.id in self.names.defined and func.id not in scope.aliases:
                # a def or class of this very file: its qualified name is the whole answer
                return CallFact(scope.owner, PyCallKind.PYTHON, func.id, dotted, loc)
            kind, name = classify(dotted)
            return CallFact(scope.owner, kind, name, dotted, loc)
        if isinstance(func, ast.Name):
            if func.id in _BUILTINS and func.id not in scope.locals:
                return None
            return CallFact(scope.owner, PyCallKind.PYTHON, func.id, func.id, loc)
        assert isinstance(func, ast.Attribute)
        return self.value_method(func, dotted, scope, loc)

    def value_method(self, func: ast.Attribute, dotted: str, scope: Scope, loc: Location) -> CallFact | None:
        """``x.m(...)`` on a local value: super() and self calls are python (or TensorBase), a literal's
        methods no call at all, the rest tensor methods."""
        if dotted.startswith(_SUPER):
            if scope.cls in self.tensor_classes and dotted.count(".") == 1:
                return CallFact(scope.owner, PyCallKind.TENSOR_BASE, func.attr, dotted, loc)
            return CallFact(scope.owner, PyCallKind.PYTHON, func.attr, dotted, loc)
        if dotted.split(".")[0] in _SELF and scope.cls is not None and isinstance(func.value, ast.Name):
            return CallFact(scope.owner, PyCallKind.PYTHON, func.attr, dotted, loc)
        if isinstance(func.value, _VALUE_NODES):
            return None
        return CallFact(scope.owner, PyCallKind.TENSOR_METHOD, func.attr, dotted, loc)


def _assigned_calls(value: ast.expr) -> list[ast.Call]:
    """The calls whose result an assignment stores: the value, or each branch of a conditional expression."""
    if isinstance(value, ast.Call):
        return [value]
    if isinstance(value, ast.IfExp):
        return _assigned_calls(value.body) + _assigned_calls(value.orelse)
    return []


def extract(source: bytes, path: str) -> PyFacts:
    """One Python file -> its facts. Pure; a file that does not parse gives PyFacts.error."""
    module = module_name(path)
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        return PyFacts(path, module, error=f"{path}:{e.lineno or 0}: {e.msg}")
    except (ValueError, RecursionError, MemoryError) as e:
        return PyFacts(path, module, error=f"{path}:0: {type(e).__name__}: {e}")
    walker = Walker(Names(path, module), tree, source.splitlines())
    try:
        walker.walk_module()
    except RecursionError as e:
        return PyFacts(path, module, error=f"{path}:0: RecursionError: {e}")
    return walker.found.frozen(path, module)
