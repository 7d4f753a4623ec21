"""Python method tables in C++ (indexer/cxx/method_tables.py) and trace through them (queries/bindings.py).

The fixture tree tests/fixtures/bindings is a small torch/csrc + tools/autograd/templates in the shapes
PyTorch writes them; the end-to-end tests lay it over the mini checkout (whose native_functions.yaml has
add, add_, mul.Scalar, relu ...) and build the index.
"""

from __future__ import annotations

import shutil

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.cxx import extract
from tg_index.indexer.errors import TgIndexError
from tg_index.queries.api import Index
from tg_index.queries.render import trace_data

from .conftest import FIXTURES, MINI, run

TREE = FIXTURES / "bindings"
VM = "tools/autograd/templates/python_variable_methods.cpp"
PV = "torch/csrc/autograd/python_variable.cpp"
MANUAL = "torch/csrc/autograd/python_torch_functions_manual.cpp"
CXX = ("castPyCFunctionWithKeywords", "TypeError_to_NotImplemented_")
KW = "METH_VARARGS | METH_KEYWORDS"


def facts(rel: str):
    got = extract((TREE / rel).read_bytes(), rel)
    assert got.failure is None
    defs = [(d.table_name, d.table_line, d.python_name, d.function, d.wrappers, d.flags, d.line) for d in got.method_defs]
    installs = [(i.kind, i.target, i.source, i.line) for i in got.method_installs]
    return defs, installs


def test_a_template_table_its_wrappers_and_slots():
    defs, installs = facts(VM)
    t = "torch::autograd::variable_methods"
    assert defs == [
        ("", 0, None, None, (), "${generated_comment}", 2),
        ("", 0, None, None, (), "${py_methods}", 23),
        (t, 25, "__add__", "THPVariable_add", CXX, KW, 26),
        (t, 25, "__iadd__", "THPVariable_add_", CXX, KW, 27),
        (t, 25, "__mul__", "THPVariable_mul", CXX, KW, 28),
        (t, 25, "__invert__", "THPVariable_invert", (), "METH_NOARGS", 29),
        (t, 25, "size", "THPVariable_size", ("castPyCFunctionWithKeywords",), KW, 30),
        (t, 25, "__eq__", "THPVariable___eq__", ("castPyCFunctionWithKeywords",), KW, 31),
        (t, 25, None, None, (), "${py_method_defs}", 32)]  # the {nullptr} sentinel is no entry
    assert installs == []


def test_mapping_slots_a_type_object_and_its_methods():
    defs, installs = facts(PV)
    assert defs == [
        ("THPVariable_as_mapping", 11, "__getitem__", "THPVariable_getitem", (), "mp_subscript", 13),
        ("THPVariable_as_mapping", 11, "__delitem__", "THPVariable_setitem", (), "mp_ass_subscript", 14),
        ("THPVariable_as_mapping", 11, "__setitem__", "THPVariable_setitem", (), "mp_ass_subscript", 14),
        ("extra_methods", 17, "as_subclass", "THPVariable_as_subclass", ("castPyCFunctionWithKeywords",), KW, 18)]
    assert installs == [
        ("name", "THPVariableType", "torch._C.TensorBase", 24),  # tp_name after PyVarObject_HEAD_INIT
        ("tp_as_mapping", "THPVariableType", "THPVariable_as_mapping", 24),  # the 12th slot, from tp_name
        ("add", "methods", "torch::autograd::variable_methods", 43),
        ("add", "methods", "extra_methods", 44),
        ("tp_methods", "THPVariableType", "methods", 45),
        ("attribute", "TensorBase", "THPVariableType", 46)]


def test_module_defs_returns_instances_and_a_damaged_declaration():
    assert facts("tools/autograd/templates/python_nn_functions.cpp")[1] == [
        ("add", "def", "nn_functions", 17), ("name", "def", "torch._C._nn", 17), ("attribute", "_nn", "nn", 25)]
    assert facts("torch/csrc/autograd/init.cpp") == (
        [("torch::autograd::methods", 8, "is_grad_enabled", "is_grad_enabled", (), "METH_NOARGS", 9)],
        [("returns", "torch::autograd::python_functions", "methods", 13)])
    # END_HANDLE_TH_ERRORS before the table leaves its declaration damaged: still read
    assert facts("torch/csrc/Module.cpp") == (
        [("TorchMethods", 8, "get_default_dtype", "THPModule_getDefaultDtype", (), "METH_NOARGS", 9)],
        [("add", "methods", "TorchMethods", 15), ("add", "methods", "torch::autograd::python_functions", 16),
         ("add", "torchmodule", "methods", 17), ("name", "torchmodule", "torch._C", 17)])
    assert facts(MANUAL)[1] == [
        ("add", "torch_functions", "torch_functions_manual", 16),  # torch_functions.assign(table, ...)
        ("name", "THPVariableFunctions", "torch._C._VariableFunctionsClass", 19),
        ("tp_methods", "THPVariableFunctions", "torch_functions", 27),
        ("attribute", "_VariableFunctionsClass", "THPVariableFunctions", 28),
        ("instance", "THPVariableFunctionsModule", "THPVariableFunctions", 29),
        ("attribute", "_VariableFunctions", "THPVariableFunctionsModule", 30)]
    assert facts("tools/autograd/templates/python_torch_functions.cpp")[1] == [
        ("add", "torch_functions", "torch_functions_shard", 10)]  # torch_functions.insert(end, table, ...)


def test_a_file_without_table_types_yields_nothing():
    got = extract(b"int f() { return 0; }\nstatic int t[] = {1, 2};\n", "a.cpp")
    assert (got.method_defs, got.method_installs) == ((), ())


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    root = tmp_path_factory.mktemp("bindings") / "checkout"
    shutil.copytree(MINI, root)
    shutil.copytree(TREE, root, dirs_exist_ok=True)
    db = root.parent / "index.db"
    build(root, db)
    return Index.open(db)


def hops(ix: Index, name: str) -> list[tuple]:
    return [(h.depth, h.kind, h.name, h.via, h.target, str(h.call) if h.call else None,
             str(h.definition) if h.definition else None) for h in ix.trace(name).hops]


def test_dunder_to_a_generated_binding_and_its_ops(ix: Index):
    assert hops(ix, "Tensor.__add__") == [
        (0, "binding", "torch._C.TensorBase.__add__", "cxx", "THPVariable_add", f"{VM}:26", f"{VM}:23"),
        (1, "op", "add", "cxx", "THPVariable_add", f"{VM}:23", None)]
    [hop, op] = ix.trace("Tensor.__add__").hops
    assert hop.note == ("method table torch::autograd::variable_methods: THPVariable_add in castPyCFunctionWithKeywords, "
                        "TypeError_to_NotImplemented_; generated by tools/autograd/gen_python_functions.py into the "
                        f"${{py_methods}} slot of {VM}")
    # the method variant only: add.out is a function
    assert op.note == "the ops tools/autograd binds under this name: add.Tensor"
    assert [(o.op, [a.op for a in o.overloads]) for o in ix.trace("Tensor.__add__").ops] == [("add", ["add.Tensor"])]


def test_in_place_and_a_skipped_signature(ix: Index):
    assert hops(ix, "x += y")[1:] == [
        (1, "binding", "torch._C.TensorBase.__iadd__", "cxx", "THPVariable_add_", f"{VM}:27", f"{VM}:23"),
        (2, "op", "add_", "cxx", "THPVariable_add_", f"{VM}:23", None)]
    # mul.Scalar and mul_.Scalar are in SKIP_PYTHON_BINDINGS_SIGNATURES: no generated THPVariable_mul
    assert hops(ix, "x * y")[1:] == [
        (1, "binding", "torch._C.TensorBase.__mul__", "cxx", "THPVariable_mul", f"{VM}:28", None)]
    assert ix.trace("x * y").hops[1].note == ("method table torch::autograd::variable_methods: THPVariable_mul in "
                                              "castPyCFunctionWithKeywords, TypeError_to_NotImplemented_; C++ "
                                              "THPVariable_mul: no definition in the index")


def test_hand_written_bindings_and_the_ops_their_cxx_calls(ix: Index):
    # __invert__ -> THPVariable_invert (16) -> dispatch_relu (12) -> self.relu() at 13
    assert hops(ix, "~x")[1:] == [
        (1, "binding", "torch._C.TensorBase.__invert__", "cxx", "THPVariable_invert", f"{VM}:29", f"{VM}:16"),
        (2, "op", "relu", "cxx", "THPVariable_invert", f"{VM}:13", None)]
    ix_get = "torch/csrc/autograd/python_variable_indexing.cpp"
    assert hops(ix, "x[i]")[1:] == [
        (1, "binding", "torch._C.TensorBase.__getitem__", "cxx", "THPVariable_getitem", f"{PV}:13", f"{ix_get}:2"),
        (2, "op", "relu", "cxx", "THPVariable_getitem", f"{ix_get}:3", None)]
    assert [h[:3] for h in hops(ix, "x[i] = v")] == [
        (0, "operator", "torch.Tensor.__setitem__"), (1, "binding", "torch._C.TensorBase.__setitem__")]
    assert ix.trace("x[i] = v").hops[0].note == f"C++ method table THPVariable_as_mapping ({PV}:14)"


def test_a_hand_written_binding_that_calls_a_generated_one(ix: Index):
    """THPVariable___eq__ (41) returns THPVariable_add(...) at 43: the function tools/autograd generates into the
    ${py_methods} slot, not in the checkout; its ops are the hand-written one's."""
    assert hops(ix, "x == y")[1:] == [
        (1, "binding", "torch._C.TensorBase.__eq__", "cxx", "THPVariable___eq__", f"{VM}:31", f"{VM}:41"),
        (2, "op", "add", "cxx", "THPVariable___eq__", f"{VM}:43", None)]
    assert [(o.op, [a.op for a in o.overloads]) for o in ix.trace("x == y").ops] == [("add", ["add.Tensor"])]


def test_torch_c_names_through_the_installs(ix: Index):
    # init.cpp's methods -> python_functions() -> Module.cpp's methods -> PyModuleDef "torch._C"
    assert hops(ix, "torch._C.is_grad_enabled") == [
        (0, "binding", "torch._C.is_grad_enabled", "cxx", "is_grad_enabled", "torch/csrc/autograd/init.cpp:9",
         "torch/csrc/autograd/init.cpp:4")]
    # torch/__init__.py: `from torch._C import *`
    assert hops(ix, "torch.is_grad_enabled") == hops(ix, "torch._C.is_grad_enabled")
    assert hops(ix, "torch.get_default_dtype")[0][4:] == ("THPModule_getDefaultDtype", "torch/csrc/Module.cpp:9",
                                                         "torch/csrc/Module.cpp:2")
    # the dir(_C._VariableFunctions) loop; the instance of _VariableFunctionsClass set as _VariableFunctions
    assert hops(ix, "torch.tensor") == [
        (0, "binding", "torch._C._VariableFunctions.tensor", "cxx", "THPVariable_tensor", f"{MANUAL}:9",
         f"{MANUAL}:4")]
    nn = "tools/autograd/templates/python_nn_functions.cpp"
    assert hops(ix, "torch._C._nn._parse_to") == [
        (0, "binding", "torch._C._nn._parse_to", "cxx", "THPVariable__parse_to", f"{nn}:10", f"{nn}:4")]


def test_what_resolved_before_resolves_the_same(ix: Index):
    # Tensor.relu is a Python binding of _tensor.py, torch.add an op: no C++ table is asked
    assert [h.kind for h in ix.trace("Tensor.relu").hops] == ["binding", "op"]
    assert [(h.kind, h.name) for h in ix.trace("torch.add").hops] == [("op", "add")]


def test_errors_stay_one_line(ix: Index):
    with pytest.raises(TgIndexError, match=r"^unknown Python name 'torch\._C\.no_such'"):
        ix.trace("torch._C.no_such")
    with pytest.raises(TgIndexError, match=r"^expression 'x @' does not parse: invalid syntax \(column 4\)$"):
        ix.trace("x @")
    with pytest.raises(TgIndexError, match=r"^expression '\(x\)' has no operator; "):
        ix.trace("(x)")


def test_json_of_a_binding(ix: Index):
    data = trace_data(ix.trace("Tensor.__add__"))
    assert data["hops"][0]["via"] == "cxx" and data["hops"][0]["call"] == {"file": VM, "line": 26}
    assert [o["op"] for o in data["ops"]] == ["add"]


def test_cli_trace_of_a_dunder(ix: Index):
    out = run("tg-query", "--db", str(ix.conn.execute("PRAGMA database_list").fetchone()[2]), "trace",
              "Tensor.__invert__")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1] == (
        f"  bound torch._C.TensorBase.__invert__  {VM}:29 -> {VM}:16  [method table torch::autograd::variable_methods: "
        f"THPVariable_invert; hand-written C++ THPVariable_invert at {VM}:16]")
