"""An op of native_functions.yaml called through `at::` is a redispatch, though its name reads as a vendor
library's: 2.6.0 Linear.cpp:87 `at::mkldnn_linear(...)`, Convolution.cpp:1532 `at::cudnn_convolution(...)` and
:1596 `at::mkldnn_convolution(...)` are ops whose MkldnnCPU or CUDA kernels call oneDNN or cuDNN. They were
calls-library edges (onednn, cudnn) that ended the chain there, so linear's brief named `onednn:mkldnn_linear` and
_convolution's CUDA path never reached cudnn_convolution's kernel. A name of the library itself (`dnnl::matmul`,
`at::mkldnn_helper` that is no op) stays the library's.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: mkldnn_linear(Tensor self, Tensor weight, Tensor? bias=None) -> Tensor
  dispatch:
    MkldnnCPU: mkldnn_linear

- func: linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
  dispatch:
    CompositeImplicitAutograd: linear
"""
LINEAR_CPP = """\
namespace at::native {
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  if (input.is_mkldnn()) {
    return at::mkldnn_linear(input, weight, bias);                             // :4
  }
  at::mkldnn_prepare(input);                                                   // :6
  dnnl::matmul(input, weight);                                                 // :7
  return input;
}
}
"""
MKLDNN_CPP = """\
namespace at::native {
Tensor mkldnn_linear(const Tensor& self, const Tensor& weight, const std::optional<Tensor>& bias) { // :2
  return self;
}
}
"""


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("op_named_like_library"), {
        N + "native_functions.yaml": YAML, N + "Linear.cpp": LINEAR_CPP, N + "mkldnn/Linear.cpp": MKLDNN_CPP})
    out: dict[int, set[tuple]] = {}
    with sqlite3.connect(db) as conn:
        for kind, line, how, target, dst in conn.execute(
                "SELECT e.kind, e.line, e.how, e.target, d.name FROM edges e LEFT JOIN nodes d ON d.id = e.dst "
                "WHERE e.file = ? AND e.kind IN ('calls', 'calls-library', 'redispatches-to-op')", (N + "Linear.cpp",)):
            out.setdefault(line, set()).add((kind, how, target, dst))
    return out


def test_an_op_called_through_at_is_a_redispatch_whatever_its_name(edges):
    assert edges[4] == {("redispatches-to-op", "op", "at::mkldnn_linear", "mkldnn_linear")}


def test_a_library_name_that_is_no_op_stays_the_library_s(edges):
    assert {(kind, how) for kind, how, _t, _d in edges[6]} == {("calls-library", "vendor")}
    assert {(kind, how) for kind, how, _t, _d in edges[7]} == {("calls-library", "vendor")}
