"""ops-for goes up a redispatch only to the kernels whose key runs the op's kernel it came through.

kernels-for follows a redispatch into the called op's kernel for the walk's own key (else a composite one), and
ops-for walks the same edges up: a path through an op's CUDA kernel reaches the kernels that redispatch to the op
only where they run for CUDA too, or are composite. On 2.6.0 `ops-for cublasSgemm` reported _cdist_forward's CPU
kernel (its path went up through mm.out's CUDA kernel, structured_mm_out_cuda), and `ops-for add_stub` 5,472
(op, key) rows, most through NestedTensor and sparse kernels that no dense tensor runs (sinh's Meta kernel ->
empty_like_nested -> clone_nested -> ...).
"""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: inner(Tensor self) -> Tensor
  dispatch:
    CPU: inner_cpu
    CUDA: inner_cuda

- func: outer(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: outer

- func: nested_outer(Tensor self) -> Tensor
  dispatch:
    NestedTensorCPU, NestedTensorCUDA: nested_outer

- func: composite_outer(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: composite_outer

- func: outermost(Tensor self) -> Tensor
  dispatch:
    CPU: outermost_cpu
    CUDA: outermost_cuda
"""
INNER_CU = """\
namespace at::native {
__global__ void inner_kernel(float* data) {}
Tensor inner_cuda(const Tensor& self) {
  inner_kernel<<<1, 1>>>(nullptr);
  return self;
}
Tensor inner_cpu(const Tensor& self) {
  return self;
}
} // namespace at::native
"""
OUTER_CPP = """\
namespace at::native {
Tensor outer(const Tensor& self) {
  return at::inner(self);
}
Tensor nested_outer(const Tensor& self) {
  return at::inner(self);
}
Tensor composite_outer(const Tensor& self) {
  return at::inner(self);
}
Tensor outermost_cpu(const Tensor& self) {
  return at::composite_outer(self);
}
Tensor outermost_cuda(const Tensor& self) {
  return at::composite_outer(self);
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("runtime_key"), {
        N + "native_functions.yaml": YAML, N + "cuda/Inner.cu": INNER_CU, N + "Outer.cpp": OUTER_CPP})


def test_a_redispatch_reaches_the_kernel_of_its_callers_key(db):
    hits = Index.open(db).ops_for("inner_kernel")
    assert sorted((h.op, h.key) for h in hits) == [
        ("composite_outer", "CompositeImplicitAutograd"),  # a composite kernel runs for CUDA tensors too
        ("inner", "CUDA"),
        ("outer", "CUDA"),  # not outer's CPU row: at::inner on CPU tensors runs inner_cpu
        ("outermost", "CUDA"),  # through the composite: still CUDA's kernel only
    ]  # and no NestedTensorCPU / NestedTensorCUDA row: at::inner on a nested tensor runs no inner kernel
    outermost = next(h for h in hits if h.op == "outermost")
    assert outermost.path == ("at::native::outermost_cuda", "redispatch to composite_outer",
                              "at::native::composite_outer", "redispatch to inner", "at::native::inner_cuda",
                              "at::native::inner_kernel")
