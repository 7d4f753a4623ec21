"""Which condition picks a call: the if/elif/else and conditional expressions around each call of a def.

An optimizer chooses its implementation with a branch (``if fused and not
torch.jit.is_scripting(): func = _fused_adamw`` / ``elif foreach ...`` /
``else ...``) or a conditional expression (``f = aten.index_put_ if inplace
else aten.index_put``). For every statement and call under a def's body,
``guards`` gives the branches that must be taken to reach it, outermost first,
each as a Condition: its kind, the test as source text (as written when it
is on one line, else ast.unparse), the
tests of the same chain that are false there (``negated``), and the test's line.

- ``if T`` / ``elif T``: the body of that test; an elif's own test runs only
  when the earlier tests are false, so its calls carry an ``else`` of them.
- ``else``: no test of its own; ``negated`` holds every test of the chain, and
  the line is the last one's (the if or elif it is the else of).
- ``ifexp`` / ``ifexp_else``: the two values of ``A if T else B``.

Loops, with, try and boolean short-circuits add no condition. A nested def
keeps the conditions it is defined under.

``flags`` says where the names that these tests read get their values in the
def: a parameter's default (``fused=None``) and each assignment
(``_, foreach = _default_to_fused_or_foreach(...)``) with its own conditions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..facts import Location
from .facts import Condition, FlagFact
from .kinds import BranchKind, FlagKind
from .syntax import Def

Guards = dict[int, tuple[Condition, ...]]  # id(statement or call node) -> its conditions, outermost first


def text(lines: list[bytes], node: ast.expr) -> str:
    """An expression as written when it is on one line (offsets are UTF-8 bytes), else ast.unparse."""
    if node.lineno == node.end_lineno and 0 < node.lineno <= len(lines):
        return lines[node.lineno - 1][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
    return ast.unparse(node)


def guards(node: Def, lines: list[bytes]) -> Guards:
    """The conditions of every statement and call under node's body (nested defs included); unconditioned
    nodes are absent. lines: the file's source lines, for the tests' text."""
    out: Guards = {}
    for stmt in node.body:
        _visit(stmt, (), out, lines)
    return out


def _visit(node: ast.AST, conds: tuple[Condition, ...], out: Guards, lines: list[bytes]) -> None:
    if conds and isinstance(node, ast.stmt | ast.Call):
        out[id(node)] = conds
    if isinstance(node, ast.If):
        _chain(node, conds, out, lines)
        return
    if isinstance(node, ast.IfExp):
        _visit(node.test, conds, out, lines)
        for value, inner in ((node.body, 0), (node.orelse, 1)):
            _visit(value, (*conds, _if_exp_condition(node, inner, lines)), out, lines)
        return
    for child in ast.iter_child_nodes(node):
        _visit(child, conds, out, lines)


def _if_exp_condition(node: ast.IfExp, orelse: int, lines: list[bytes]) -> Condition:
    test = text(lines, node.test)
    if orelse:
        return Condition(BranchKind.IFEXP_ELSE, "", (test,), node.test.lineno)
    return Condition(BranchKind.IFEXP, test, (), node.test.lineno)


def _chain(node: ast.If, conds: tuple[Condition, ...], out: Guards, lines: list[bytes]) -> None:
    """if / elif ... / else: each body under its test, with the earlier tests negated."""
    earlier: list[str] = []
    current, kind = node, BranchKind.IF
    while True:
        test = text(lines, current.test)
        line = current.test.lineno
        before = (*conds, Condition(BranchKind.ELSE, "", tuple(earlier), line)) if earlier else conds
        _visit(current.test, before, out, lines)
        body_conds = (*conds, Condition(kind, test, tuple(earlier), line))
        for stmt in current.body:
            _visit(stmt, body_conds, out, lines)
        earlier.append(test)
        orelse = current.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If) and orelse[0].col_offset == current.col_offset:
            current, kind = orelse[0], BranchKind.ELIF  # `elif` (an `else:` holding an `if` is indented further)
            if conds:
                out[id(current)] = conds
            continue
        else_conds = (*conds, Condition(BranchKind.ELSE, "", tuple(earlier), line))
        for stmt in orelse:
            _visit(stmt, else_conds, out, lines)
        return


def if_exp_leaves(value: ast.expr, lines: list[bytes]) -> Iterator[tuple[ast.expr, tuple[Condition, ...]]]:
    """The values an expression may take with the conditions of each: ``A if T else B`` -> (A, if T), (B, else);
    anything else is its own only value."""
    if isinstance(value, ast.IfExp):
        for inner, part in ((0, value.body), (1, value.orelse)):
            condition = _if_exp_condition(value, inner, lines)
            for leaf, below in if_exp_leaves(part, lines):
                yield leaf, (condition, *below)
    else:
        yield value, ()


def _tested_names(node: Def) -> set[str]:
    """The bare names the if and conditional-expression tests of a def read."""
    names: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.If | ast.IfExp):
            names.update(x.id for x in ast.walk(n.test) if isinstance(x, ast.Name))
    return names


def _parameters(node: Def) -> Iterator[tuple[ast.arg, ast.expr]]:
    """(parameter, default) for each parameter that has a default."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    yield from zip(positional[len(positional) - len(args.defaults):], args.defaults)
    yield from ((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)


def _stored(target: ast.expr) -> Iterator[str]:
    """The names an assignment target binds: x, (_, x), [a, *b]."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for e in target.elts:
            yield from _stored(e)
    elif isinstance(target, ast.Starred):
        yield from _stored(target.value)


def flags(node: Def, function: str, path: str, found: Guards, lines: list[bytes]) -> list[FlagFact]:
    """Where the names read by the def's tests get their values: parameter defaults, then assignments in the def
    (nested defs included) in source order, each with its conditions."""
    wanted = _tested_names(node)
    if not wanted:
        return []
    out = [FlagFact(function, a.arg, FlagKind.PARAMETER, f"{a.arg}={text(lines, d)}", (), Location(path, a.lineno))
           for a, d in _parameters(node) if a.arg in wanted]
    assigns: list[FlagFact] = []
    for n in ast.walk(node):
        if isinstance(n, ast.Assign):
            targets = [t for target in n.targets for t in _stored(target)]
        elif isinstance(n, ast.AnnAssign | ast.AugAssign) and n.value is not None and n is not node:
            targets = list(_stored(n.target))
        else:
            continue
        written = text(lines, n)
        for name in dict.fromkeys(targets):
            if name in wanted:
                assigns.append(FlagFact(function, name, FlagKind.ASSIGN, written, found.get(id(n), ()),
                                        Location(path, n.lineno)))
    return out + sorted(assigns, key=lambda f: f.loc.line)
