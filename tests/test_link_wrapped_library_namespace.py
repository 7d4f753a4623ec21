"""A library PyTorch compiles inside a namespace of its own is that library's: 2.6.0 cuda/cub.cuh:23 `#define
CUB_NS_PREFIX namespace at_cuda_detail {` puts CUB in at_cuda_detail, where the checkout defines functions of its own
too (cub.cuh:66 `at_cuda_detail::Max`), so cub's device-wide algorithms are called as
`at_cuda_detail::cub::DeviceScan::InclusiveScan` (cub.cuh:244, through CUB_WRAPPER) or, through the alias of
cub.cuh:89 `namespace cub = ::at_cuda_detail::cub;`, as `cub::DeviceReduce::Sum` (cuda/Nonzero.cu:190). The checkout
defines nothing in at_cuda_detail::cub: the calls were not-in-checkout (no work below them), and one with the name of
a function elsewhere in the checkout (torch::jit::tensorexpr::Sum) resolved to it by its unique name.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: nonzero(Tensor self) -> Tensor
  dispatch:
    CUDA: nonzero_cuda
"""
CUB_CUH = """\
namespace at_cuda_detail {
inline int Max() { return 1; }                                                  // :2
}
namespace at::cuda::cub {
namespace cub = ::at_cuda_detail::cub;
template <typename T>
void inclusive_scan(T* input, T* output, int n) {
  at_cuda_detail::cub::DeviceScan::InclusiveScan(nullptr, input, output, n);   // :8
}
}
"""
NONZERO_CU = """\
#include <ATen/cuda/cub.cuh>
namespace at::native {
Tensor nonzero_cuda(const Tensor& self) {
  at::cuda::cub::inclusive_scan(self.data_ptr<int>(), self.data_ptr<int>(), 4);  // :4
  at_cuda_detail::cub::DeviceReduce::Sum(nullptr, self, 4);                     // :5
  at_cuda_detail::Max();                                                        // :6
  return self;
}
}
"""
EXPR_CPP = """\
namespace torch::jit::tensorexpr {
class Sum {
 public:
  Sum(int a, int b, int c) {}                                                  // :4
};
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("wrapped_library"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/cuda/cub.cuh": CUB_CUH, N + "cuda/Nonzero.cu": NONZERO_CU,
        "torch/csrc/jit/tensorexpr/expr.cpp": EXPR_CPP})


def _edges(db, file: str) -> dict[int, set[tuple]]:
    out: dict[int, set[tuple]] = {}
    with sqlite3.connect(db) as conn:
        for kind, line, how, target, dst, family in conn.execute(
                "SELECT e.kind, e.line, e.how, e.target, d.name, e.detail FROM edges e "
                "LEFT JOIN nodes d ON d.id = e.dst WHERE e.file = ? AND e.kind IN ('calls', 'calls-library')", (file,)):
            out.setdefault(line, set()).add((kind, how, target, dst, family))
    return out


def test_a_call_into_the_wrapped_namespace_is_the_library_s(db):
    cub = _edges(db, "aten/src/ATen/cuda/cub.cuh")
    assert cub[8] == {("calls-library", "vendor", "at_cuda_detail::cub::DeviceScan::InclusiveScan",
                       "at_cuda_detail::cub::DeviceScan::InclusiveScan", "cub")}


def test_a_name_of_the_library_is_not_a_function_of_the_checkout_with_its_last_name(db):
    nonzero = _edges(db, N + "cuda/Nonzero.cu")
    assert nonzero[5] == {("calls-library", "vendor", "at_cuda_detail::cub::DeviceReduce::Sum",
                           "at_cuda_detail::cub::DeviceReduce::Sum", "cub")}
    # the checkout's own functions in the wrapping namespace stay its own
    assert {(kind, how, dst) for kind, how, _t, dst, _f in nonzero[6]} == {("calls", "exact", "at_cuda_detail::Max")}


def test_the_kernel_s_chain_goes_through_the_helper_to_the_library_call(db):
    from tg_index.queries.api import Index

    [answer] = Index.open(db).kernels_for("nonzero")
    [cuda] = answer.keys
    assert [(str(s.kind), s.name, s.file, s.line, s.detail) for s in cuda.chain] == [
        ("call", "at::cuda::cub::inclusive_scan", "aten/src/ATen/cuda/cub.cuh", 7, None),
        ("library", "at_cuda_detail::cub::DeviceReduce::Sum", N + "cuda/Nonzero.cu", 5, "cub"),
        ("library", "at_cuda_detail::cub::DeviceScan::InclusiveScan", "aten/src/ATen/cuda/cub.cuh", 8, "cub")]
