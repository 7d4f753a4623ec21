"""tg-query trace on operators and dunders, on real 2.6.0 (and 1.13.1 where torch/_tensor.py differs).

Every expected answer is read in the tree: torch/_tensor.py for the dunders
Python defines or binds, native_functions.yaml for the ops named like a dunder.
Dunders only C++ binds go to their method-table entry (the C++ half is
tests/integration/test_trace_bindings_real.py).
"""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index
from tg_index.queries.render import trace_data

pytestmark = pytest.mark.integration

T = "torch/_tensor.py"
VM = "tools/autograd/templates/python_variable_methods.cpp"  # the variable_methods table; ${py_methods} at 1082
VM_TABLE = "C++ method table torch::autograd::variable_methods"


def hops(ix: Index, expression: str) -> list[tuple]:
    """(depth, kind, name, target, call, definition) of each hop; an operator's target is its source text."""
    return [(h.depth, h.kind, h.name, h.target, str(h.call) if h.call else None,
             str(h.definition) if h.definition else None) for h in ix.trace(expression).hops]


def unresolved(ix: Index, expression: str) -> list[tuple[str, str | None]]:
    return [(h.name, h.note) for h in ix.trace(expression).hops if h.kind == "unresolved"]


def test_matmul_then_add_are_cxx_bindings(ix: Index):
    # 2.6.0's _tensor.py defines __rmatmul__ (1121) but neither __matmul__ nor __add__: VM:1277 and VM:1245 bind them
    assert [(h[0], h[1], h[2], h[3]) for h in hops(ix, "x @ w + b")] == [
        (0, "operator", "torch.Tensor.__matmul__", "x @ w"),
        (1, "binding", "torch._C.TensorBase.__matmul__", "THPVariable_matmul"), (2, "op", "matmul", "THPVariable_matmul"),
        (0, "operator", "torch.Tensor.__add__", "x @ w + b"),
        (1, "binding", "torch._C.TensorBase.__add__", "THPVariable_add"), (2, "op", "add", "THPVariable_add")]
    assert unresolved(ix, "x @ w + b") == []
    assert ix.trace("x @ w + b").resolved == "torch.Tensor.__matmul__, torch.Tensor.__add__"
    assert [o.op for o in ix.trace("x @ w + b").ops] == ["matmul", "add"]


def test_index_read_and_write_in_place(ix: Index):
    t = ix.trace("x[idx] += y")
    assert [(h.kind, h.name, h.target) for h in t.hops if h.kind == "operator"] == [
        ("operator", "torch.Tensor.__getitem__", "x[idx]"), ("operator", "torch.Tensor.__iadd__", "x[idx] += y"),
        ("operator", "torch.Tensor.__setitem__", "x[idx]")]
    # python_variable.cpp:1750/1751 (PyMappingMethods) and VM:1247
    assert [(h.name, h.call.line) for h in t.hops if h.kind == "binding"] == [
        ("torch._C.TensorBase.__getitem__", 1750), ("torch._C.TensorBase.__iadd__", 1247),
        ("torch._C.TensorBase.__setitem__", 1751)]
    assert unresolved(ix, "x[idx] += y") == []


def test_negation_is_bound_in_tensor_py(ix: Index):
    # _tensor.py:1125  __neg__ = _C.TensorBase.neg
    assert hops(ix, "-x") == [(0, "operator", "torch.Tensor.__neg__", "-x", None, None),
                              (1, "binding", "torch._tensor.Tensor.__neg__", None, None, f"{T}:1125"),
                              (2, "op", "neg", "torch._C.TensorBase.neg", f"{T}:1125", None)]
    assert ix.trace("-x").hops[0].note == f"bound in {T}"
    [op] = ix.trace("-x").ops
    assert (op.op, [a.op for a in op.overloads]) == ("neg", ["neg"])


def test_comparison_and_its_reflection(ix: Index):
    [operator, hop, op] = ix.trace("a < b").hops
    assert operator.note == (f"reflected: the right operand's __gt__ when this returns NotImplemented; {VM_TABLE} "
                             f"({VM}:1262)")
    assert (hop.kind, hop.name, hop.target, str(hop.call)) == ("binding", "torch._C.TensorBase.__lt__", "THPVariable_lt",
                                                               f"{VM}:1262")
    assert (op.kind, op.name) == ("op", "lt")


def test_number_on_the_left_uses_the_reflected_python_def(ix: Index):
    # _tensor.py:1072 def __rsub__: 1073 return _C._VariableFunctions.rsub(self, other)
    assert hops(ix, "2 - x") == [(0, "operator", "torch.Tensor.__rsub__", "2 - x", None, None),
                                 (1, "method", "torch._tensor.Tensor.__rsub__", None, None, f"{T}:1072"),
                                 (2, "op", "rsub", "torch._C._VariableFunctions.rsub", f"{T}:1073", None)]
    # _tensor.py:1121 def __rmatmul__: 1122 return torch.matmul(other, self)
    assert hops(ix, "1 @ x")[1:] == [(1, "method", "torch._tensor.Tensor.__rmatmul__", None, None, f"{T}:1121"),
                                     (2, "op", "matmul", "torch.matmul", f"{T}:1122", None)]


def test_floor_division_and_contains_are_python_defs(ix: Index):
    # _tensor.py:1105 def __floordiv__: 1106 return torch.floor_divide(self, other)
    assert hops(ix, "x // y")[1:] == [(1, "method", "torch._tensor.Tensor.__floordiv__", None, None, f"{T}:1105"),
                                      (2, "op", "floor_divide", "torch.floor_divide", f"{T}:1106", None)]
    # _tensor.py:1210 def __contains__: 1223 return bool((element == self).any().item())
    assert [o.op for o in ix.trace("a in x").ops] == ["item", "any"]
    assert hops(ix, "a in x")[1] == (1, "method", "torch._tensor.Tensor.__contains__", None, None, f"{T}:1210")


def test_ops_named_like_the_dunder(ix: Index):
    # native_functions.yaml:8354 __and__.Scalar, 8358 __and__.Tensor; 8522/8530 __ilshift__; 8429/8433 __ior__
    for expression, op in (("x & y", "__and__"), ("x <<= 2", "__ilshift__"), ("x |= m", "__ior__")):
        t = ix.trace(expression)
        assert [(h.depth, h.kind, h.name, h.target) for h in t.hops][1:] == [(1, "op", op, f"torch.Tensor.{op}")]
        assert t.hops[0].note.endswith("; the op named like the dunder in native_functions.yaml (method variant)")
        [found] = t.ops
        assert [(a.op, str(a.location)) for a in found.overloads][0][0] == f"{op}.Scalar"
    [found] = ix.trace("x & y").ops
    assert [str(a.location) for a in found.overloads] == ["aten/src/ATen/native/native_functions.yaml:8354",
                                                          "aten/src/ATen/native/native_functions.yaml:8358"]


def test_in_place_division_is_bound_to_an_unindexed_base_method(ix: Index):
    # _tensor.py:1080  __itruediv__ = _C.TensorBase.__idiv__ (no op named __idiv__)
    assert hops(ix, "x /= y")[1:] == [
        (1, "binding", "torch._tensor.Tensor.__itruediv__", None, None, f"{T}:1080"),
        (2, "unresolved", "torch._C.TensorBase.__idiv__", "torch._C.TensorBase.__idiv__", f"{T}:1080", None)]


def test_dunder_names(ix: Index):
    assert [(h.kind, h.name, h.note) for h in ix.trace("Tensor.__add__").hops] == [
        ("binding", "torch._C.TensorBase.__add__", f"method table torch::autograd::variable_methods: THPVariable_add in "
         f"castPyCFunctionWithKeywords, TypeError_to_NotImplemented_; generated by tools/autograd/gen_python_functions.py "
         f"into the ${{py_methods}} slot of {VM}"),
        ("op", "add", "the ops tools/autograd binds under this name: add.Tensor")]
    assert [(h.kind, h.name) for h in ix.trace("torch.Tensor.__neg__").hops] == [
        ("binding", "torch._tensor.Tensor.__neg__"), ("op", "neg")]
    assert [(h.kind, h.name) for h in ix.trace("Tensor.__and__").hops] == [("op", "__and__")]
    # python_variable.cpp:1750 mp_subscript -> THPVariable_getitem (python_variable_indexing.cpp:334)
    # and TensorIndexing.h:563 `self.index(...)` in dispatch_index
    assert [h.name for h in ix.trace("Tensor.__getitem__").hops] == ["torch._C.TensorBase.__getitem__", "alias",
                                                                      "unsqueeze", "index"]


def test_expression_json(ix: Index):
    data = trace_data(ix.trace("-x"))
    assert data["hops"][0] == {"depth": 0, "kind": "operator", "name": "torch.Tensor.__neg__", "target": "-x",
                               "note": f"bound in {T}"}
    assert [o["op"] for o in data["ops"]] == ["neg"] and data["plumbing"] == []


def test_older_tree_binds_through_underscore_tensorbase(old: Index):
    # 1.13.1 _tensor.py:887  __neg__ = _C._TensorBase.neg; 833 def __rsub__ (834 _C._VariableFunctions.rsub)
    assert hops(old, "-x")[1:] == [(1, "binding", "torch._tensor.Tensor.__neg__", None, None, f"{T}:887"),
                                   (2, "op", "neg", "torch._C.TensorBase.neg", f"{T}:887", None)]
    assert hops(old, "2 - x")[1:] == [(1, "method", "torch._tensor.Tensor.__rsub__", None, None, f"{T}:833"),
                                      (2, "op", "rsub", "torch._C._VariableFunctions.rsub", f"{T}:834", None)]
    assert hops(old, "1 @ x")[1][5] == f"{T}:883"
    # 1.13.1: VM:1232 {"__add__", ...THPVariable_add...} of torch._C._TensorBase
    assert unresolved(old, "x + y") == []
    assert [(h.kind, h.name, str(h.call)) for h in old.trace("x + y").hops][1] == (
        "binding", "torch._C._TensorBase.__add__", f"{VM}:1232")


def test_plumbing_grouped_in_real_module_traces(ix: Index):
    # rnn.py LSTM.forward: 1081 input.unsqueeze, 1082 input.size, 1157 output.squeeze around _VF.lstm
    t = ix.trace("nn.LSTM")
    assert [o.op for o in t.ops if o.plumbing] == ["unsqueeze", "size", "squeeze"]
    assert "lstm" in [o.op for o in t.ops if not o.plumbing]
    data = trace_data(t)
    assert [o["op"] for o in data["plumbing"]] == ["unsqueeze", "size", "squeeze"]
    assert not {o["op"] for o in data["ops"]} & {"unsqueeze", "size", "squeeze"}
    # the name asked is never plumbing
    assert [o.plumbing for o in ix.trace("Tensor.view").ops] == [None]
    assert [o.plumbing for o in ix.trace("Tensor.unflatten").ops] == [None]
