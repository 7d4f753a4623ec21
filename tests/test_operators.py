"""Expressions -> the dunders Python calls (queries/operators.py), the plumbing table, and how trace groups plumbing."""

from __future__ import annotations

import pytest
from tg_index.indexer.errors import TgIndexError
from tg_index.indexer.facts import Location
from tg_index.queries import plumbing
from tg_index.queries.operators import looks_like_expression, operators
from tg_index.queries.render import trace_data, trace_text
from tg_index.queries.results import Hop, HopKind, Trace, TraceOp

from .conftest import run


def _read(expression: str) -> list[tuple[str, str, int]]:
    return [(o.dunder, o.text, o.column) for o in operators(expression)]


def test_operators_in_evaluation_order():
    assert _read("x @ w + b") == [("__matmul__", "x @ w", 1), ("__add__", "x @ w + b", 1)]
    assert _read("a + (b * c)") == [("__mul__", "b * c", 6), ("__add__", "a + (b * c)", 1)]
    assert _read("x[idx] += y") == [("__getitem__", "x[idx]", 1), ("__iadd__", "x[idx] += y", 1),
                                    ("__setitem__", "x[idx]", 1)]
    assert _read("x[i] = y - z") == [("__sub__", "y - z", 8), ("__setitem__", "x[i]", 1)]
    assert _read("del x[0]") == [("__delitem__", "x[0]", 5)]
    assert _read("-x") == [("__neg__", "-x", 1)]
    assert _read("~m | +x") == [("__invert__", "~m", 1), ("__pos__", "+x", 6), ("__or__", "~m | +x", 1)]
    assert _read("not x") == [("__bool__", "not x", 1)]
    assert _read("a < b") == [("__lt__", "a < b", 1)]
    assert _read("a <= b != c") == [("__le__", "a <= b != c", 1), ("__ne__", "a <= b != c", 1)]
    assert _read("a in x") == [("__contains__", "a in x", 1)]
    assert _read("x[x > 0]") == [("__gt__", "x > 0", 3), ("__getitem__", "x[x > 0]", 1)]
    assert _read("x >>= 1") == [("__irshift__", "x >>= 1", 1)]


def test_reflected_forms_and_fallbacks_are_notes():
    [add] = operators("x + y")
    assert add.note == "reflected: the right operand's __radd__ when this returns NotImplemented"
    [rsub] = operators("2 - x")  # int.__sub__(tensor) is NotImplemented: Python calls x.__rsub__
    assert (rsub.dunder, rsub.note) == ("__rsub__", "the left operand is a number: Python calls the right "
                                                    "operand's __rsub__")
    [gt] = operators("0.5 < x")
    assert (gt.dunder, gt.note) == ("__gt__", "the left operand is a number: Python calls the right operand's __gt__")
    [iadd] = operators("x += 1")
    assert iadd.note == "Python falls back to __add__ when the type has no __iadd__"
    [contains] = operators("a not in x")
    assert contains.note == "of the right operand; `not in` negates the result"
    [power] = operators("2 ** 3")  # two numbers: the left operand's own method
    assert power.dunder == "__pow__"


def test_expression_errors_are_one_line():
    with pytest.raises(TgIndexError) as e:
        operators("x +")
    assert str(e.value) == "expression 'x +' does not parse: invalid syntax (column 4)"
    with pytest.raises(TgIndexError) as e:
        operators("f(x) is None")
    assert str(e.value) == ("expression 'f(x) is None' has no operator; trace takes a Python name (torch.add, "
                            "Tensor.__add__) or an expression with an operator (x @ w + b)")


def test_names_are_not_expressions():
    assert not any(map(looks_like_expression, ["torch.add", "aten::mm", "Tensor.__add__", "F.relu", "nn.LayerNorm"]))
    assert all(map(looks_like_expression, ["x @ w", "-x", "x[0]", "a<b", "x.add(y)"]))


def test_plumbing_table_gives_a_reason_per_op():
    assert plumbing.reason("size") == "reads shape or dtype metadata; no kernel touches the data"
    assert plumbing.reason("size.int") == plumbing.reason("size")
    assert plumbing.reason("view") == "a view: new sizes and strides over the same storage, no data moved"
    assert plumbing.reason("contiguous") == ("returns self when already contiguous; else a plain copy into the "
                                             "default layout")
    assert plumbing.reason("matmul") is None and plumbing.reason("add.Tensor") is None
    assert all(why and why[0].islower() for why in plumbing.PLUMBING.values())


def _trace() -> Trace:
    f = "torch/nn/functional.py"
    hops = (Hop(0, HopKind.FUNCTION, "torch.nn.functional.f", definition=Location(f, 10)),
            Hop(1, HopKind.OP, "size", "tensor_method", "input.size", Location(f, 11), plumbing=plumbing.reason("size")),
            Hop(1, HopKind.OP, "mm", "torch", "torch.mm", Location(f, 12)))
    ops = (TraceOp("size", ("input.size",), (), (), plumbing.reason("size")), TraceOp("mm", ("torch.mm",), ()))
    return Trace("F.f", "torch.nn.functional.f", hops, ops)


def test_plumbing_is_grouped_after_the_work_and_inline_with_all():
    t = _trace()
    assert trace_text(t) == (
        "F.f = torch.nn.functional.f\n"
        "  function torch.nn.functional.f  torch/nn/functional.py:10\n"
        "    op mm  (torch.mm)  torch/nn/functional.py:12\n"
        "  plumbing calls (1; --all shows them in line):\n"
        "    size  (input.size)  torch/nn/functional.py:11\n"
        "aten ops reached (1):\n"
        "  mm  via torch.mm\n"
        "plumbing ops (1; --all shows their dispatch tables):\n"
        "  size  via input.size  [reads shape or dtype metadata; no kernel touches the data]\n")
    assert trace_text(t, inline=True) == (
        "F.f = torch.nn.functional.f\n"
        "  function torch.nn.functional.f  torch/nn/functional.py:10\n"
        "    op size  (input.size)  torch/nn/functional.py:11\n"
        "    op mm  (torch.mm)  torch/nn/functional.py:12\n"
        "aten ops reached (2):\n"
        "  size  via input.size\n"
        "    plumbing: reads shape or dtype metadata; no kernel touches the data\n"
        "  mm  via torch.mm\n")
    data = trace_data(t)
    assert [o["op"] for o in data["ops"]] == ["mm"]
    assert data["plumbing"] == [{"op": "size", "reached_by": ["input.size"], "overloads": [], "decompositions": [],
                                 "plumbing": "reads shape or dtype metadata; no kernel touches the data"}]
    assert data["hops"][1]["plumbing"] == "reads shape or dtype metadata; no kernel touches the data"
    inline = trace_data(t, inline=True)
    assert [o["op"] for o in inline["ops"]] == ["size", "mm"] and "plumbing" not in inline


def test_cli_expression_errors(mini_db):
    done = run("tg-query", "--db", str(mini_db), "trace", "x @")
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", "error: expression 'x @' does not parse: invalid syntax (column 4)\n")
    done = run("tg-query", "--db", str(mini_db), "trace", "x is y")
    assert done.returncode == 1 and done.stderr.startswith("error: expression 'x is y' has no operator;")
