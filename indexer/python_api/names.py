"""Name resolution for one Python file: module names, imports, scopes, dotted names, and classify.

A name in a def means, in this order: an import made inside the def, a local
value (parameter or assigned name), an import of the module, or a module-level
def, class or assignment. A dotted expression resolves through its head;
``rooted`` says whether the head was an import or a module-level name, which is
what makes the result a name the linker can follow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..facts import Location
from ..vocab import PyCallKind
from .syntax import DEF_NODES, module_statements, simple_assign

MODULE_ROOTS = frozenset({"torch.nn.Module", "torch.nn.modules.Module", "torch.nn.modules.module.Module"})
TENSOR_BASES = frozenset({"torch._C.TensorBase", "torch._C._TensorBase"})
OPS_NAMESPACE = "torch.ops"  # the namespace of op packets: torch.ops.<ns>.<op>[.<overload>]

_RENAMES = (("torch._ops.ops", OPS_NAMESPACE), ("torch._C._TensorBase", "torch._C.TensorBase"))


def module_name(path: str) -> str:
    """``torch/nn/modules/conv.py`` -> ``torch.nn.modules.conv``; a package's ``__init__.py`` -> the package."""
    p = path.replace("\\", "/")
    if p.endswith(".py"):
        p = p[:-3]
    parts = [x for x in p.split("/") if x and x != "."]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package_init(path: str) -> bool:
    return path.replace("\\", "/").endswith("__init__.py")


def normalize(dotted: str) -> str:
    """One spelling per namespace: torch._ops.ops -> torch.ops, torch._C._TensorBase (1.x) -> torch._C.TensorBase."""
    for old, new in _RENAMES:
        if dotted == old or dotted.startswith(old + "."):
            return new + dotted[len(old) :]
    return dotted


def classify(dotted: str) -> tuple[PyCallKind, str]:
    """A resolved dotted callee -> (PyCallKind, name). Unknown shapes are python calls."""
    d = normalize(dotted)
    parts = d.split(".")
    if d.startswith("torch._C._nn.") and len(parts) == 4:
        return PyCallKind.TORCH_C_NN, parts[3]
    if d.startswith("torch._VF.") and len(parts) == 3:
        return PyCallKind.VF, parts[2]
    if (op := _packet(d, parts)) is not None:
        return PyCallKind.TORCH_OPS, "::".join(op)
    if d.startswith("torch._C.TensorBase.") and len(parts) == 4:
        return PyCallKind.TENSOR_BASE, parts[3]
    if d.startswith("torch.Tensor.") and len(parts) == 3:
        return PyCallKind.TENSOR_METHOD, parts[2]
    if d.startswith("torch._C.") and len(parts) >= 3:
        return PyCallKind.TORCH_C, ".".join(parts[2:])
    if d.startswith("torch.nn.functional.") and len(parts) == 4:
        return PyCallKind.FUNCTIONAL, parts[3]
    if d.startswith("torch.") and len(parts) == 2:
        return PyCallKind.TORCH, parts[1]
    return PyCallKind.PYTHON, parts[-1]


def op_of(dotted: str) -> tuple[str, str] | None:
    """``torch.ops.aten.add.Tensor`` -> ("aten", "add.Tensor"); None when not an op (packet) reference."""
    d = normalize(dotted)
    return _packet(d, d.split("."))


def _packet(d: str, parts: list[str]) -> tuple[str, str] | None:
    """(namespace, op) of a normalized torch.ops.<ns>.<op>[.<overload>], split at dots into parts."""
    if d.startswith(OPS_NAMESPACE + ".") and len(parts) in (4, 5):
        return parts[2], ".".join(parts[3:])
    return None


@dataclass
class Scope:
    """Where the walk is: the qualified name calls are charged to, and the class, if any."""

    owner: str
    cls: str | None = None  # qualified name of the innermost class
    locals: frozenset[str] = frozenset()  # parameters and assigned names: values, not imports
    aliases: dict[str, str] = field(default_factory=dict)  # imports made inside the def


class Names:
    """What the names of one file mean: its module and package, its imports and module-level names."""

    def __init__(self, path: str, module: str) -> None:
        self.path = path
        self.module = module
        self.is_package = is_package_init(path)
        self.package = module if self.is_package else module.rpartition(".")[0]
        self.aliases: dict[str, str] = {}  # local name -> dotted
        self.globals_: set[str] = set()  # module-level names (defs, classes, assignments)
        self.defined: set[str] = set()  # module-level def/class names
        self.module_values: dict[str, ast.expr] = {}  # NAME = <expr> at module level
        self.module_scope = Scope(module)

    def loc(self, node: ast.AST) -> Location:
        return Location(self.path, getattr(node, "lineno", 0))

    def qualified(self, prefix: str, name: str) -> str:
        return f"{prefix}.{name}" if prefix else name

    def absolute(self, module: str | None, level: int) -> str:
        """The absolute module of ``from <level dots><module> import ...``."""
        if level == 0:
            return module or ""
        base = self.package.split(".") if self.package else []
        if level > 1:
            base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def resolve(self, node: ast.expr, scope: Scope) -> tuple[str, bool] | None:
        """An expression -> (dotted name, rooted); rooted: it starts at an import or a module-level name."""
        if isinstance(node, ast.Name):
            n = node.id
            if n in scope.aliases:
                return scope.aliases[n], True
            if n in scope.locals:
                return n, False
            if n in self.aliases:
                return self.aliases[n], True
            if n in self.globals_:
                return self.qualified(self.module, n), True
            return n, False
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value, scope)
            if base is None:
                return None
            return f"{base[0]}.{node.attr}", base[1]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
            return "super()", False
        return None

    def dotted(self, node: ast.expr, scope: Scope) -> str | None:
        r = self.resolve(node, scope)
        return normalize(r[0]) if r else None

    def collect_imports(self, body: list[ast.stmt]) -> None:
        """First pass over module-level statements (also inside if/try/with): imports, defs, aliases."""
        for stmt in module_statements(body):
            if isinstance(stmt, ast.Import):
                for a in stmt.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        top = a.name.split(".")[0]
                        self.aliases.setdefault(top, top)
            elif isinstance(stmt, ast.ImportFrom):
                src = self.absolute(stmt.module, stmt.level)
                for a in stmt.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{src}.{a.name}" if src else a.name
            elif isinstance(stmt, (*DEF_NODES, ast.ClassDef)):
                self.globals_.add(stmt.name)
                self.defined.add(stmt.name)
                self.aliases.pop(stmt.name, None)
        self.collect_module_values(body)

    def collect_module_values(self, body: list[ast.stmt]) -> None:
        """Module-level ``NAME = value``; ``aten = torch._ops.ops.aten`` is an alias (a rooted dotted value)."""
        for stmt in module_statements(body):
            target, value = simple_assign(stmt)
            if target is None or value is None:
                continue
            self.module_values[target] = value
            if target not in self.aliases:
                self.globals_.add(target)
            if isinstance(value, (ast.Name, ast.Attribute)):
                r = self.resolve(value, self.module_scope)
                if r and r[1] and target not in self.defined:
                    self.aliases[target] = normalize(r[0])
                    self.globals_.discard(target)

    def local_imports(self, imports: Iterable[ast.Import | ast.ImportFrom]) -> dict[str, str]:
        """Imports written inside a def (nested defs included), in ast.walk's order: name -> dotted.

        A name bound twice to different modules takes the later binding in that order.
        """
        return dict(self.imported(imports))

    def imported(self, imports: Iterable[ast.Import | ast.ImportFrom]) -> Iterator[tuple[str, str]]:
        """(local name, dotted) for each name that import statements bind, in their order."""
        for sub in imports:
            if isinstance(sub, ast.Import):
                for a in sub.names:
                    yield a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0]
            else:
                src = self.absolute(sub.module, sub.level)
                for a in sub.names:
                    if a.name != "*":
                        yield a.asname or a.name, f"{src}.{a.name}" if src else a.name
