"""tg-query trace on the fixture checkout's Python files (tests/fixtures/mini/torch): hops, ops, errors, the build."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.errors import TgIndexError
from tg_index.queries.api import Index
from tg_index.queries.render import trace_data, trace_text

from .conftest import run

ACT = "torch/nn/modules/activation.py"
FN = "torch/nn/functional.py"


def _hops(ix: Index, name: str) -> list[tuple]:
    return [(h.depth, h.kind, h.name, h.target, str(h.call) if h.call else None,
             str(h.definition) if h.definition else None) for h in ix.trace(name).hops]


def _ops(ix: Index, name: str) -> list[tuple]:
    return [(o.op, o.reached_by, tuple(a.op for a in o.overloads)) for o in ix.trace(name).ops]


@pytest.fixture(scope="module")
def ix(mini_db: Path) -> Index:
    return Index.open(mini_db)


def test_module_forward_through_an_inherited_helper(ix: Index):
    # ScaledReLU.forward -> self._scaled_forward (defined on the base class) -> F.scaled_relu -> _scale, relu
    assert _hops(ix, "nn.ScaledReLU") == [
        (0, "class", "torch.nn.modules.activation.ScaledReLU", None, None, f"{ACT}:16"),
        (1, "forward", "torch.nn.modules.activation.ScaledReLU.forward", None, None, f"{ACT}:17"),
        (2, "call", "torch.nn.modules.activation._ScaledBase._scaled_forward", "self._scaled_forward", f"{ACT}:18", f"{ACT}:12"),
        (3, "call", "torch.nn.functional.scaled_relu", "torch.nn.functional.scaled_relu", f"{ACT}:13", f"{FN}:24"),
        (4, "call", "torch.nn.functional._scale", "torch.nn.functional._scale", f"{FN}:25", f"{FN}:20"),
        (5, "op", "mul", "input.mul", f"{FN}:21", None),
        (4, "call", "torch.nn.functional.relu", "torch.nn.functional.relu", f"{FN}:25", f"{FN}:10"),
        (5, "unresolved", "torch.relu_", "torch.relu_", f"{FN}:14", None),
        (5, "op", "relu", "torch.relu", f"{FN}:16", None),
    ]
    assert _ops(ix, "nn.ScaledReLU") == [("mul", ("input.mul",), ("mul.Scalar",)),
                                         ("relu", ("torch.relu",), ("relu",))]


def test_inherited_forward_and_the_usual_spellings(ix: Index):
    lazy = _hops(ix, "torch.nn.LazyScaledReLU")
    assert lazy[:2] == [(0, "class", "torch.nn.modules.activation.LazyScaledReLU", None, None, f"{ACT}:21"),
                        (1, "forward", "torch.nn.modules.activation.ScaledReLU.forward", None, None, f"{ACT}:17")]
    assert _hops(ix, "nn.Linear") == _hops(ix, "torch.nn.Linear")
    assert _hops(ix, "F.relu") == _hops(ix, "torch.nn.functional.relu") == _hops(ix, "nn.functional.relu")
    assert ix.trace("F.relu").resolved == "torch.nn.functional.relu"
    assert ix.trace("aten::mul").resolved == ix.trace("aten.mul").resolved == "torch.ops.aten.mul"


def test_torch_ops_exact_overload_and_decompositions(ix: Index):
    t = ix.trace("nn.Linear")
    assert [(h.kind, h.name, h.target) for h in t.hops][2:] == [
        ("call", "torch.nn.functional.add_tensor", "torch.nn.functional.add_tensor"),
        ("op", "add.Tensor", "torch.ops.aten.add.Tensor")]
    [op] = t.ops
    assert [a.op for a in op.overloads] == ["add.Tensor"]
    assert [(d.kind, d.op, d.function, str(d.location)) for d in op.decompositions] == [
        ("decomposition", "add.Tensor", "torch._decomp.decompositions.add", "torch/_decomp/decompositions.py:12")]
    assert _ops(ix, "torch.ops.aten.add") == [("add", ("torch.ops.aten.add",), ("add.Tensor", "add.out"))]
    assert _ops(ix, "torch.ops.aten.relu.default") == [("relu", ("torch.ops.aten.relu.default",), ("relu",))]
    [mul] = ix.trace("aten::mul").ops
    assert [(d.kind, d.function) for d in mul.decompositions] == [("ref", "torch._refs.mul")]


def test_variants_decide_the_binding(ix: Index):
    # torch.X and _VF.X: the function variant; Tensor.X: the method variant (mul_.Scalar is another name)
    assert _ops(ix, "torch.add") == [("add", ("torch.add",), ("add.Tensor", "add.out"))]
    assert _ops(ix, "_VF.custom_op") == [("custom_op", ("torch._VF.custom_op",), ("custom_op", "custom_op.out"))]
    assert _ops(ix, "Tensor.mul") == [("mul", ("torch.Tensor.mul",), ("mul.Scalar",))]
    assert _ops(ix, "torch.mul") == [("mul", ("torch.mul",), ("mul.Scalar", "mul.Scalar_out"))]
    # a Tensor method bound in torch/_tensor.py to TensorBase
    assert _hops(ix, "Tensor.relu") == [
        (0, "binding", "torch._tensor.Tensor.relu", None, None, "torch/_tensor.py:6"),
        (1, "op", "relu", "torch._C.TensorBase.relu", "torch/_tensor.py:6", None)]


def test_python_defs_win_over_the_variable_functions(ix: Index):
    # torch/__init__.py: `from torch.functional import *` after the dir(_C._VariableFunctions) loop; __all__ honoured
    assert _hops(ix, "Tensor.addmul") == [
        (0, "method", "torch._tensor.Tensor.addmul", None, None, "torch/_tensor.py:8"),
        (1, "call", "torch.functional.addmul", "torch.addmul", "torch/_tensor.py:9", "torch/functional.py:7"),
        (2, "op", "mul", "<expr>.mul", "torch/functional.py:8", None),
        (2, "op", "add", "torch._VF.add", "torch/functional.py:8", None)]
    with pytest.raises(TgIndexError, match="^unknown Python name 'torch.unexported'"):
        ix.trace("torch.unexported")


def test_python_module_nn_binds_torch_c_nn(mini: Path, tmp_path: Path):
    native = mini / "aten/src/ATen/native/native_functions.yaml"
    native.write_text(native.read_text() + "\n- func: gelu(Tensor self) -> Tensor\n  python_module: nn\n")
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    ix = Index.open(db)
    assert _hops(ix, "nn.GELU")[2:] == [
        (2, "binding", "torch.nn.functional.gelu", "torch.nn.functional.gelu", f"{ACT}:27", f"{FN}:7"),
        (3, "op", "gelu", "torch._C._nn.gelu", f"{FN}:7", None)]
    assert _ops(ix, "torch._C._nn.gelu") == [("gelu", ("torch._C._nn.gelu",), ("gelu",))]
    with pytest.raises(TgIndexError, match="^unknown Python name 'torch.gelu'"):
        ix.trace("torch.gelu")  # python_module: nn is not in the torch namespace


def test_unknown_and_ambiguous_names(ix: Index):
    with pytest.raises(TgIndexError) as err:
        ix.trace("nn.ScaledRelu")
    assert str(err.value) == ("unknown Python name 'nn.ScaledRelu'; did you mean 'torch.nn.ScaledReLU', "
                              "'torch.nn.modules.ScaledReLU', 'torch.nn.functional.scaled_relu'?")
    with pytest.raises(TgIndexError) as err:
        ix.trace("relu")
    assert str(err.value) == ("ambiguous name 'relu'; one of 'torch.nn.functional.relu', 'torch.relu', "
                              "'torch.Tensor.relu'")
    assert ix.trace("ScaledReLU").resolved == "torch.nn.ScaledReLU"


def test_json_and_text(ix: Index):
    data = trace_data(ix.trace("F.relu"))
    assert data["hops"][0] == {"depth": 0, "kind": "function", "name": "torch.nn.functional.relu",
                               "definition": {"file": FN, "line": 10}}
    assert data["hops"][2] == {"depth": 1, "kind": "op", "name": "relu", "via": "torch", "target": "torch.relu",
                               "call": {"file": FN, "line": 16},
                               "conditions": [{"kind": "else", "test": "", "negated": ["inplace"], "line": 13,
                                               "text": "else: not (inplace)"}]}  # functional.py:13 if inplace: ... else:
    [op] = data["ops"]
    assert op["op"] == "relu" and op["reached_by"] == ["torch.relu"]
    assert op["overloads"][0]["keys"] == [
        {"key": "CompositeImplicitAutograd", "kernel": "relu", "origin": "composite_implicit", "definition": None}]
    assert op["decompositions"] == [{"kind": "decomposition", "op": "relu", "function": "torch._decomp.decompositions.relu",
                                     "registrar": "register_decomposition", "file": "torch/_decomp/decompositions.py",
                                     "line": 7}]
    text = trace_text(ix.trace("nn.Linear"))
    assert text.splitlines()[:5] == [
        "nn.Linear = torch.nn.Linear",
        "  class torch.nn.modules.linear.Linear  torch/nn/modules/linear.py:6",
        "    forward torch.nn.modules.linear.Linear.forward  torch/nn/modules/linear.py:7",
        f"      calls torch.nn.functional.add_tensor  torch/nn/modules/linear.py:8 -> {FN}:28",
        f"        op add.Tensor  (torch.ops.aten.add.Tensor)  {FN}:29",
    ]
    assert "aten ops reached (1):" in text


def test_cli_trace(mini_db: Path):
    result = run("tg-query", "--db", str(mini_db), "trace", "torch.ops.aten.add.Tensor", "--json", "--chain",
                 "--key", "CPU")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    [op] = data["ops"]
    [answer] = op["overloads"]
    assert answer["op"] == "add.Tensor" and [k["key"] for k in answer["keys"]] == ["CPU"]
    assert "backward" in answer  # --chain: the whole kernels-for answer
    bad = run("tg-query", "--db", str(mini_db), "trace", "F.rellu")
    assert bad.returncode == 1
    assert bad.stderr == ("error: unknown Python name 'F.rellu'; did you mean "
                          "'torch.nn.functional.relu', 'torch.Tensor.relu', 'torch.relu'?\n")


def test_build_records_python_files_and_skips_unchanged_ones(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT language, parse_errors, status FROM files WHERE path = ?",
                            ("torch/nn/modules/broken.py",)).fetchone() == (
            "python", 1, "error: torch/nn/modules/broken.py:1: invalid syntax")
        assert conn.execute("SELECT count(*) FROM files WHERE language = 'python'").fetchone() == (13,)
        assert conn.execute("SELECT qualname FROM py_classes WHERE nn_module = 1 ORDER BY qualname").fetchall() == [
            (f"torch.nn.modules.activation.{c}",) for c in ("GELU", "LazyScaledReLU", "ReLU", "ScaledReLU", "_ScaledBase")
        ] + [("torch.nn.modules.linear.Linear",)]
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    assert meta["py_parsed"] == "13" and len(meta["py_key"]) == 16
    before = db.read_bytes()
    build(mini, db, jobs=1)
    assert db.read_bytes() == before  # nothing changed: the index is not rewritten
    act = mini / "torch/nn/modules/activation.py"
    act.write_text(act.read_text().replace("class GELU(Module):", "class GELU(ReLU):"))
    build(mini, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert dict(conn.execute("SELECT key, value FROM meta"))["py_parsed"] == "1"
        assert conn.execute("SELECT bases FROM py_classes WHERE name = 'GELU'").fetchone() == (
            '["torch.nn.modules.activation.ReLU"]',)
        assert conn.execute("SELECT count(*) FROM py_defs WHERE file = ?", (str(act.relative_to(mini)),)).fetchone() == (4,)


def test_answer_types_live_in_one_module_without_a_cycle():
    """results.py holds the answer types: trace imports it, not api, and Trace's parts have their real types."""
    import subprocess
    import sys
    import typing

    from tg_index.indexer.facts import Location
    from tg_index.queries import results

    code = "import sys, tg_index.queries.trace; print('tg_index.queries.api' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False"
    hints = typing.get_type_hints(results.Trace)
    assert hints["hops"] == tuple[results.Hop, ...]
    assert typing.get_type_hints(results.TraceOp)["decompositions"] == tuple[results.Decomp, ...]
    assert typing.get_type_hints(results.Hop)["call"] == Location | None
    assert typing.get_type_hints(results.Step)["loc"] == Location | None
    assert typing.get_type_hints(results.KeyKernel)["location"] is Location


def test_operators_resolve_to_tensor_py_then_the_yaml_then_unresolved(mini: Path, tmp_path: Path):
    native = mini / "aten/src/ATen/native/native_functions.yaml"
    native.write_text(native.read_text() + "\n- func: __and__.Tensor(Tensor self, Tensor other) -> Tensor\n"
                      "  variants: method, function\n"
                      "\n- func: size.int(Tensor self, int dim) -> int\n  variants: function, method\n")
    tensor = mini / "torch/_tensor.py"
    tensor.write_text(tensor.read_text() + "\n    def __rsub__(self, other):\n"  # line 11
                      "        n = other.size(0)\n"
                      "        return torch.addmul(other, self, n)\n"
                      "\n    __pos__ = torch._C.TensorBase.relu\n")  # line 15
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    ix = Index.open(db)
    t = "torch/_tensor.py"
    # a number on the left: Python calls x.__rsub__, a def of _tensor.py; size is plumbing, add and mul do the work
    assert _hops(ix, "2 - x") == [
        (0, "operator", "torch.Tensor.__rsub__", "2 - x", None, None),
        (1, "method", "torch._tensor.Tensor.__rsub__", None, None, f"{t}:11"),
        (2, "op", "size", "other.size", f"{t}:12", None),
        (2, "call", "torch.functional.addmul", "torch.addmul", f"{t}:13", "torch/functional.py:7"),
        (3, "op", "mul", "<expr>.mul", "torch/functional.py:8", None),
        (3, "op", "add", "torch._VF.add", "torch/functional.py:8", None)]
    rsub = ix.trace("2 - x")
    assert [(o.op, o.plumbing) for o in rsub.ops] == [
        ("size", "reads shape or dtype metadata; no kernel touches the data"), ("mul", None), ("add", None)]
    assert trace_data(rsub)["plumbing"][0]["op"] == "size"
    assert _hops(ix, "+x")[1:] == [(1, "binding", "torch._tensor.Tensor.__pos__", None, None, f"{t}:15"),
                                   (2, "op", "relu", "torch._C.TensorBase.relu", f"{t}:15", None)]
    assert _hops(ix, "x & y")[1:] == [(1, "op", "__and__", "torch.Tensor.__and__", None, None)]
    assert ix.trace("x & y").hops[0].note == ("reflected: the right operand's __rand__ when this returns "
                                              "NotImplemented; the op named like the dunder in native_functions.yaml "
                                              "(method variant)")
    # only a C++ method table binds __add__ and __getitem__, and this checkout has none: unresolved, never a guess
    assert [(h.kind, h.name, h.note) for h in ix.trace("x[0] + y").hops if h.kind == "unresolved"] == [
        ("unresolved", "torch.Tensor.__getitem__", "no C++ method table of torch._C.TensorBase binds it"),
        ("unresolved", "torch.Tensor.__add__", "no C++ method table of torch._C.TensorBase binds it")]
    assert ix.trace("x[0] + y").ops == ()
    assert [(h.kind, h.name) for h in ix.trace("Tensor.__add__").hops] == [("unresolved", "torch.Tensor.__add__")]
    # the name asked is never plumbing
    assert [(o.op, o.plumbing) for o in ix.trace("Tensor.size").ops] == [("size", None)]
    out = run("tg-query", "--db", str(db), "trace", "-x")
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout.splitlines()[:2] == [
        "-x = torch.Tensor.__neg__",
        "  operator torch.Tensor.__neg__  `-x`    [no C++ method table of torch._C.TensorBase binds it]"]
