"""tg-query trace on real PyTorch 2.6.0: the Python hops and the aten ops, expected answers read in the sources."""

from __future__ import annotations

import re

import pytest
from tg_index.queries.api import Index

from ..conftest import real_tree
from .test_python_recall import _scan_module_classes

pytestmark = pytest.mark.integration


def path(ix: Index, name: str) -> list[tuple[str, str]]:
    """(kind, name) of the hops that are not ops: the Python path."""
    return [(h.kind, h.name) for h in ix.trace(name).hops if h.kind not in ("op", "unresolved")]


def reached(ix: Index, name: str) -> dict[str, tuple[tuple[str, ...], set[str]]]:
    """op -> (the callees that reach it, the overloads it stands for)."""
    return {o.op: (o.reached_by, {a.op for a in o.overloads}) for o in ix.trace(name).ops}


NN = "torch.nn.modules"
F = "torch.nn.functional"

# name -> (the Python path, in order; {op: callee} that must be among the ops reached)
TRACES = {
    # torch/nn/modules/normalization.py:216 forward -> F.layer_norm; functional.py:2910 torch.layer_norm
    "nn.LayerNorm": ([("class", f"{NN}.normalization.LayerNorm"), ("forward", f"{NN}.normalization.LayerNorm.forward"),
                      ("call", f"{F}.layer_norm")], {"layer_norm": "torch.layer_norm"}),
    # functional.py:3494 return torch._C._nn.cross_entropy_loss(...)
    "F.cross_entropy": ([("function", f"{F}.cross_entropy")], {"cross_entropy_loss": "torch._C._nn.cross_entropy_loss"}),
    # rnn.py:1124 result = _VF.lstm(...)
    "nn.LSTM": ([("class", f"{NN}.rnn.LSTM"), ("forward", f"{NN}.rnn.LSTM.forward")], {"lstm": "torch._VF.lstm"}),
    "nn.GRU": ([("class", f"{NN}.rnn.GRU"), ("forward", f"{NN}.rnn.GRU.forward")], {"gru": "torch._VF.gru"}),
    # linear.py forward -> F.linear = _add_docstr(torch._C._nn.linear, ...) (functional.py:2309)
    "nn.Linear": ([("class", f"{NN}.linear.Linear"), ("forward", f"{NN}.linear.Linear.forward"),
                   ("binding", f"{F}.linear")], {"linear": "torch._C._nn.linear"}),
    # LazyLinear inherits Linear.forward
    "nn.LazyLinear": ([("class", f"{NN}.linear.LazyLinear"), ("forward", f"{NN}.linear.Linear.forward"),
                       ("binding", f"{F}.linear")], {"linear": "torch._C._nn.linear"}),
    # conv.py:553 forward -> self._conv_forward (536) -> F.conv2d = _add_docstr(torch.conv2d) / F.pad
    "nn.Conv2d": ([("class", f"{NN}.conv.Conv2d"), ("forward", f"{NN}.conv.Conv2d.forward"),
                   ("call", f"{NN}.conv.Conv2d._conv_forward"), ("binding", f"{F}.conv2d"), ("call", f"{F}.pad")],
                  {"conv2d": "torch.conv2d", "pad": "torch._C._nn.pad"}),
    # functional.py:1987 gelu = _add_docstr(torch._C._nn.gelu, ...)
    "nn.GELU": ([("class", f"{NN}.activation.GELU"), ("forward", f"{NN}.activation.GELU.forward"),
                 ("binding", f"{F}.gelu")], {"gelu": "torch._C._nn.gelu"}),
    "nn.ReLU": ([("class", f"{NN}.activation.ReLU"), ("forward", f"{NN}.activation.ReLU.forward"),
                 ("call", f"{F}.relu")], {"relu": "torch.relu", "relu_": "torch.relu_"}),
    # functional.py:1425 _VF.dropout_(...) if inplace else _VF.dropout(...)
    "nn.Dropout": ([("class", f"{NN}.dropout.Dropout"), ("forward", f"{NN}.dropout.Dropout.forward"),
                    ("call", f"{F}.dropout")], {"dropout": "torch._VF.dropout", "dropout_": "torch._VF.dropout_"}),
    # BatchNorm2d inherits _BatchNorm.forward -> F.batch_norm -> torch.batch_norm
    "nn.BatchNorm2d": ([("class", f"{NN}.batchnorm.BatchNorm2d"), ("forward", f"{NN}.batchnorm._BatchNorm.forward"),
                        ("call", f"{NN}.batchnorm.BatchNorm2d._check_input_dim"), ("call", f"{F}.batch_norm")],
                       {"batch_norm": "torch.batch_norm"}),
    # batchnorm.py:344 LazyBatchNorm1d(_LazyNormBase, _BatchNorm), :208 _LazyNormBase(LazyModuleMixin, _NormBase):
    # Python's MRO puts _BatchNorm (:143, forward :159) before their shared _NormBase and Module
    "nn.LazyBatchNorm1d": ([("class", f"{NN}.batchnorm.LazyBatchNorm1d"),
                            ("forward", f"{NN}.batchnorm._BatchNorm.forward"),
                            ("call", f"{NN}.batchnorm.LazyBatchNorm1d._check_input_dim"), ("call", f"{F}.batch_norm")],
                           {"batch_norm": "torch.batch_norm"}),
    "nn.Embedding": ([("class", f"{NN}.sparse.Embedding"), ("forward", f"{NN}.sparse.Embedding.forward"),
                      ("call", f"{F}.embedding")], {"embedding": "torch.embedding"}),
    "nn.CrossEntropyLoss": ([("class", f"{NN}.loss.CrossEntropyLoss"), ("forward", f"{NN}.loss.CrossEntropyLoss.forward"),
                             ("call", f"{F}.cross_entropy")], {"cross_entropy_loss": "torch._C._nn.cross_entropy_loss"}),
    "nn.MSELoss": ([("class", f"{NN}.loss.MSELoss"), ("forward", f"{NN}.loss.MSELoss.forward"),
                    ("call", f"{F}.mse_loss")], {"mse_loss": "torch._C._nn.mse_loss"}),
    # max_pool2d = boolean_dispatch(if_true=max_pool2d_with_indices, if_false=_max_pool2d)
    "nn.MaxPool2d": ([("class", f"{NN}.pooling.MaxPool2d"), ("forward", f"{NN}.pooling.MaxPool2d.forward"),
                      ("binding", f"{F}.max_pool2d"), ("call", f"{F}.max_pool2d_with_indices"),
                      ("call", f"{F}._max_pool2d")],
                     {"max_pool2d_with_indices": "torch._C._nn.max_pool2d_with_indices", "max_pool2d": "torch.max_pool2d"}),
    # functional.py softmax: ret = input.softmax(dim) -> the method variant
    "F.softmax": ([("function", f"{F}.softmax"), ("call", f"{F}._get_softmax_dim")], {"softmax": "input.softmax"}),
    "F.scaled_dot_product_attention": ([("binding", f"{F}.scaled_dot_product_attention")],
                                       {"scaled_dot_product_attention": "torch._C._nn.scaled_dot_product_attention"}),
    "F.silu": ([("function", f"{F}.silu")], {"silu": "torch._C._nn.silu", "silu_": "torch._C._nn.silu_"}),
    # torch.norm is torch.functional.norm (from torch.functional import * after the _VariableFunctions loop)
    "torch.norm": ([("function", "torch.functional.norm")], {"norm": "torch._VF.norm",
                                                             "linalg_vector_norm": "torch._C._linalg.linalg_vector_norm"}),
    "torch.einsum": ([("function", "torch.functional.einsum")], {"einsum": "torch._VF.einsum"}),
    # _tensor.py:1013 Tensor.split is Python: torch._VF.split / split_with_sizes
    "Tensor.split": ([("method", "torch._tensor.Tensor.split")],
                     {"split": "torch._VF.split", "split_with_sizes": "torch._VF.split_with_sizes"}),
    "Tensor.norm": ([("method", "torch._tensor.Tensor.norm"), ("call", "torch.functional.norm")], {"norm": "torch._VF.norm"}),
    "torch.add": ([], {"add": "torch.add"}),
    "torch.matmul": ([], {"matmul": "torch.matmul"}),
    "Tensor.matmul": ([], {"matmul": "torch.Tensor.matmul"}),
    "_VF.lstm": ([], {"lstm": "torch._VF.lstm"}),
    "torch.ops.aten.mm": ([], {"mm": "torch.ops.aten.mm"}),
    "torch.ops.aten.add.Tensor": ([], {"add.Tensor": "torch.ops.aten.add.Tensor"}),
    # linalg/__init__.py:360 det = _add_docstr(_linalg.linalg_det, ...): python_module linalg
    "torch.linalg.det": ([("binding", "torch.linalg.det")], {"linalg_det": "torch._C._linalg.linalg_det"}),
    "special.erf": ([("binding", "torch.special.erf")], {"special_erf": "torch._C._special.special_erf"}),
    "fft.fft": ([("binding", "torch.fft.fft")], {"fft_fft": "torch._C._fft.fft_fft"}),
}


@pytest.mark.parametrize("name", list(TRACES))
def test_trace_reaches_the_right_ops(ix: Index, name: str):
    hops, ops = TRACES[name]
    got_path = path(ix, name)
    assert got_path[: len(hops)] == hops or all(h in got_path for h in hops), got_path
    got = reached(ix, name)
    for op, callee in ops.items():
        assert op in got, f"{op} not reached; got {sorted(got)}"
        assert callee in got[op][0]


def test_overloads_follow_the_variants(ix: Index):
    r = reached
    assert r(ix, "_VF.lstm")["lstm"][1] == {"lstm.input", "lstm.data"}
    assert r(ix, "nn.LSTM")["lstm"][1] == {"lstm.input", "lstm.data"}
    assert r(ix, "Tensor.matmul")["matmul"][1] == {"matmul"}  # matmul.out has no method variant
    assert r(ix, "torch.matmul")["matmul"][1] == {"matmul", "matmul.out"}
    assert {"add.Tensor", "add.out"} <= r(ix, "torch.add")["add"][1]
    assert not any(o.startswith("add_") for o in r(ix, "torch.add")["add"][1])
    assert r(ix, "torch.ops.aten.add.Tensor")["add.Tensor"][1] == {"add.Tensor"}
    assert r(ix, "torch.ops.aten.mm.default")["mm"][1] == {"mm"}
    assert {"mm", "mm.out"} <= r(ix, "torch.ops.aten.mm")["mm"][1]
    assert r(ix, "F.softmax")["softmax"][1] == {"softmax.int", "softmax.Dimname"}


def test_layer_norm_kernels_and_decompositions(ix: Index):
    t = ix.trace("nn.LayerNorm")
    [op] = t.ops
    [answer] = op.overloads
    [key] = answer.keys
    assert (key.key, key.qualified_name, key.definition.file) == (
        "CompositeImplicitAutograd", "at::native::layer_norm_symint", "aten/src/ATen/native/layer_norm.cpp")
    hop = next(h for h in t.hops if h.kind == "op")
    assert (hop.target, str(hop.call)) == ("torch.layer_norm", "torch/nn/functional.py:2910")


def test_layer_norm_composite_reaches_native_layer_norm(ix: Index):
    [op] = ix.trace("nn.LayerNorm").ops
    [key] = op.overloads[0].keys
    assert "native_layer_norm" in [s.name for s in key.chain if s.kind == "redispatch"]
    assert any(d.op == "native_layer_norm" and d.kind == "ref" for d in op.decompositions)


def test_gelu_ref_is_shown(ix: Index):
    [op] = ix.trace("nn.GELU").ops
    assert ("ref", "gelu", "torch._refs.nn.functional.gelu", "torch/_refs/nn/functional/__init__.py") in {
        (d.kind, d.op, d.function, d.location.file) for d in op.decompositions}


def test_every_functional_def_is_indexed_and_traces(ix: Index):
    rel = "torch/nn/functional.py"
    lines = (real_tree("2.6.0") / rel).read_text().splitlines()
    top_level = {(m[2], i) for i, line in enumerate(lines, 1) if (m := re.match(r"(async\s+)?def\s+(\w+)", line))}
    _, rows = ix.sql("SELECT name, line FROM py_defs WHERE file = ? AND kind = 'function'", (rel,))
    got = set(rows)
    assert len(top_level) == 117
    assert top_level <= got, f"missed: {sorted(top_level - got)}"
    assert all(lines[line - 1][:1].isspace() for _, line in got - top_level)  # defs in module-level if/try
    for name, _ in sorted(top_level):
        assert ix.trace(f"F.{name}").resolved == f"torch.nn.functional.{name}"


def test_every_module_subclass_under_nn_modules_is_indexed(ix: Index):
    expected = _scan_module_classes(real_tree("2.6.0"))
    _, rows = ix.sql("SELECT file, name FROM py_classes WHERE nn_module = 1 AND file LIKE 'torch/nn/modules/%'")
    assert len(expected) > 150
    assert set(rows) == expected, f"missed {sorted(expected - set(rows))}, extra {sorted(set(rows) - expected)}"
    # and every one torch.nn exports traces to its forward
    exported = {r[0] for r in ix.sql("SELECT name FROM py_reexports WHERE module = 'torch.nn.modules' AND kind = 'all'")[1]}
    traced = 0
    for _, name in sorted(expected):
        if name in exported:
            hops = ix.trace(f"nn.{name}").hops
            assert hops[0].kind == "class" and any(h.kind == "forward" for h in hops), name
            traced += 1
    assert traced == 160
