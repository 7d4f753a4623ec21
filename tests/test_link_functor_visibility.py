"""A class made in place runs its operator() only when the caller can see that class: 1.13.1's kernels write
`Tensor()` (transformers/cuda/attention.cu:498 `return std::make_tuple(Tensor(), Tensor());`), an at::Tensor, and
lookup of `Tensor::operator()` from at::native found the one class of the checkout whose name ends in Tensor and has
an operator(), nvfuser::Tensor (torch/csrc/jit/codegen/cuda/python_frontend/fusion_definition.h:49), which no
kernel file includes: 309 runs-functor edges to it, and 69 to nvfuser::Scalar::operator(). A functor the caller's
file or its includes write is still run.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: make_pair(Tensor self) -> Tensor
  dispatch:
    CPU: make_pair_cpu
"""
TENSOR_H = """\
#pragma once
namespace at {
class Tensor {
 public:
  Tensor() {}
  int dim() const { return 0; }
};
} // namespace at
"""
OPS_H = """\
#pragma once
namespace at::native {
struct Scale {
  void operator()(int x) const { scale_loop(x); }                             // :4
};
} // namespace at::native
"""
FRONTEND_H = """\
#pragma once
namespace frontend {
struct Tensor {
  int operator()(int x) const { return record(x); }                           // :4
};
} // namespace frontend
"""
KERNEL_CPP = """\
#include <ATen/core/Tensor.h>
#include <ATen/native/Ops.h>
namespace at::native {
Tensor make_pair_cpu(const Tensor& self) {
  Scale()(3);                                                                  // :5
  return Tensor();                                                             // :6
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("functor_visibility"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/core/Tensor.h": TENSOR_H, N + "Ops.h": OPS_H,
        "torch/csrc/frontend/frontend.h": FRONTEND_H, N + "Kernel.cpp": KERNEL_CPP})


def _functors(db) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.line, n.name, n.file, n.line FROM edges e JOIN nodes n ON n.id = e.dst "
            "WHERE e.kind = 'runs-functor' AND e.file LIKE '%Kernel.cpp'"))


def test_a_class_the_caller_cannot_see_runs_nothing(db):
    assert not {f for f in _functors(db) if f[1].startswith("frontend::")}


def test_a_functor_the_caller_includes_still_runs(db):
    assert (5, "at::native::Scale::operator()", N + "Ops.h", 4) in _functors(db)
