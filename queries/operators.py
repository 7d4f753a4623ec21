"""Python operators -> the dunder methods Python calls for them, read from an expression with the stdlib ast.

`x @ w + b` is `x.__matmul__(w)` then `.__add__(b)`; `x[idx] += y` is
`__getitem__`, `__iadd__`, `__setitem__`; `-x` is `__neg__`; `a < b` is
`__lt__`. The operators come in the order Python evaluates them. Where Python
would try the reflected form (`__radd__` of the right operand when the left's
`__add__` returns NotImplemented) or a fallback (`__add__` when there is no
`__iadd__`), the operator carries it as a note; when the left operand is a
number literal, Python calls the right operand's reflected form, and that is
the dunder.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator

from ..indexer.errors import TgIndexError
from .match import shown

# ast operator class -> the stem of its dunders: Add -> __add__, __radd__, __iadd__
BINARY: dict[type[ast.operator], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.MatMult: "matmul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "lshift", ast.RShift: "rshift",
    ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
}
UNARY: dict[type[ast.unaryop], str] = {
    ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__", ast.Not: "__bool__",
}
# comparison -> (its dunder, the reflected one Python tries on the right operand)
COMPARE: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("__lt__", "__gt__"), ast.LtE: ("__le__", "__ge__"), ast.Gt: ("__gt__", "__lt__"),
    ast.GtE: ("__ge__", "__le__"), ast.Eq: ("__eq__", "__eq__"), ast.NotEq: ("__ne__", "__ne__"),
}


@dataclass(frozen=True)
class Operator:
    dunder: str  # the method Python calls: __matmul__
    text: str  # the source of the operation: "x @ w"
    column: int  # 1-based column of the operation in the expression
    note: str | None = None  # the reflected form or fallback Python would use instead


def _is_number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, complex)


class _Reader:
    """One expression's operators, in evaluation order."""

    def __init__(self, source: str):
        self.source = source

    def op(self, dunder: str, node: ast.AST, note: str | None = None) -> Operator:
        text = ast.get_source_segment(self.source, node) or ""
        return Operator(dunder, " ".join(text.split()), node.col_offset + 1, note)

    def visit(self, node: ast.AST) -> Iterator[Operator]:
        if isinstance(node, ast.BinOp):
            yield from self.visit(node.left)
            yield from self.visit(node.right)
            yield self.binary(node)
        elif isinstance(node, ast.UnaryOp):
            yield from self.visit(node.operand)
            yield self.op(UNARY[type(node.op)], node)
        elif isinstance(node, ast.Compare):
            yield from self.compare(node)
        elif isinstance(node, ast.Subscript):
            yield from self.visit(node.value)
            yield from self.visit(node.slice)
            yield self.op({ast.Store: "__setitem__", ast.Del: "__delitem__"}.get(type(node.ctx), "__getitem__"), node)
        elif isinstance(node, ast.AugAssign):
            yield from self.augmented(node)
        elif isinstance(node, ast.Assign):
            yield from self.visit(node.value)
            for target in node.targets:
                yield from self.visit(target)
        else:
            for child in ast.iter_child_nodes(node):
                yield from self.visit(child)

    def binary(self, node: ast.BinOp) -> Operator:
        stem = BINARY[type(node.op)]
        if _is_number(node.left) and not _is_number(node.right):
            return self.op(f"__r{stem}__", node, f"the left operand is a number: Python calls the right "
                                                 f"operand's __r{stem}__")
        return self.op(f"__{stem}__", node, f"reflected: the right operand's __r{stem}__ when this returns "
                                            "NotImplemented")

    def compare(self, node: ast.Compare) -> Iterator[Operator]:
        yield from self.visit(node.left)
        left = node.left
        for cmp, right in zip(node.ops, node.comparators):
            yield from self.visit(right)
            if isinstance(cmp, ast.In | ast.NotIn):
                note = "of the right operand" + ("; `not in` negates the result" if isinstance(cmp, ast.NotIn) else "")
                yield self.op("__contains__", node, note)
            elif type(cmp) in COMPARE:
                mine, reflected = COMPARE[type(cmp)]
                if _is_number(left) and not _is_number(right):
                    yield self.op(reflected, node, f"the left operand is a number: Python calls the right operand's "
                                                   f"{reflected}")
                else:
                    yield self.op(mine, node, f"reflected: the right operand's {reflected} when this returns "
                                              "NotImplemented")
            left = right  # `is` and `is not` call no method

    def augmented(self, node: ast.AugAssign) -> Iterator[Operator]:
        stem = BINARY[type(node.op)]
        target = node.target
        if isinstance(target, ast.Subscript):
            yield from self.visit(target.value)
            yield from self.visit(target.slice)
            yield self.op("__getitem__", target)
        yield from self.visit(node.value)
        yield self.op(f"__i{stem}__", node, f"Python falls back to __{stem}__ when the type has no __i{stem}__")
        if isinstance(target, ast.Subscript):
            yield self.op("__setitem__", target, "stores the in-place result back")


def looks_like_expression(name: str) -> bool:
    """A trace argument that is not a dotted name (torch.add, aten::mm, Tensor.__add__) is an expression."""
    stripped = name.strip().replace("::", ".")
    return not all(part.isidentifier() for part in stripped.split("."))


def operators(expression: str) -> tuple[Operator, ...]:
    """The operators of an expression in evaluation order; a one-line error if it does not parse or has none."""
    source = expression.strip()
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as e:
        raise TgIndexError(f"expression {shown(expression)} does not parse: {e.msg} (column {e.offset})") from None
    found = tuple(_Reader(source).visit(tree))
    if not found:
        raise TgIndexError(f"expression {shown(expression)} has no operator; trace takes a Python name (torch.add, "
                           "Tensor.__add__) or an expression with an operator (x @ w + b)")
    return found
