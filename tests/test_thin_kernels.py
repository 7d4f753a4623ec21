"""A thin kernel, one that reaches device work only through the dispatcher, has the helpers it calls that do
the same walked as part of its body (queries/chain.py): 2.6.0's norm.out impl calls the static
impl_func_norm, which calls at::linalg_vector_norm_out (ReduceOps.cpp:1529-1548); median_cuda calls
median_impl, which sorts (cuda/Sorting.cpp:133-193)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"

YAML = """\
- func: vnorm(Tensor self) -> Tensor
  dispatch:
    CPU: vnorm_cpu
    CUDA: vnorm_cuda

- func: norm(Tensor self) -> Tensor
  dispatch:
    CUDA: norm_cuda

- func: fat(Tensor self) -> Tensor
  dispatch:
    CUDA: fat_cuda

- func: clampish(Tensor self) -> Tensor
  dispatch:
    CUDA: clampish_cuda

- func: clampish_out(Tensor self) -> Tensor
  dispatch:
    CUDA: clampish_out_cuda

- func: divish(Tensor self) -> Tensor
  dispatch:
    CUDA: divish_cuda

- func: divish_scalar(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: divish_scalar
"""

NORM_CU = """\
namespace at::native {
__global__ void vnorm_kernel(float* x) {}
Tensor vnorm_cuda(const Tensor& self) {
  vnorm_kernel<<<1, 1>>>(nullptr);
  return self;
}
static Tensor norm_impl(const Tensor& self) {
  return at::vnorm(self);
}
Tensor norm_cuda(const Tensor& self) {
  return norm_impl(self);
}
static Tensor helper(const Tensor& self) {
  return at::vnorm(self);
}
Tensor fat_cuda(const Tensor& self) {
  vnorm_kernel<<<1, 1>>>(nullptr);
  return helper(self);
}
Tensor clampish_cuda(const Tensor& self) {
  return at::clampish_out(self);
}
Tensor clampish_out_cuda(const Tensor& self) {
  return at::vnorm(self);
}
Tensor divish_cuda(const Tensor& self) {
  return at::divish_scalar(self);
}
}
"""

VNORM_CPP = """\
namespace at::native {
Tensor vnorm_cpu(const Tensor& self) {
  return self;
}
}
"""


COMPOSITE_CPP = """\
namespace at::native {
Tensor divish_scalar(const Tensor& self) {
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "divish_scalar", [&] {});
  return at::vnorm(self);
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("thin"), {
        N + "native_functions.yaml": YAML, N + "cuda/Norm.cu": NORM_CU, N + "VNorm.cpp": VNORM_CPP,
        N + "Composite.cpp": COMPOSITE_CPP})


def chain(db: Path, op: str) -> list[tuple]:
    from tg_index.queries.api import Index

    [answer] = Index.open(db).kernels_for(op, ("CUDA",))
    [cuda] = answer.keys
    return [(str(s.kind), s.name, f"{s.file}:{s.line}", s.depth) for s in cuda.chain]


def test_a_thin_kernel_s_helper_is_followed_through_its_redispatch(db: Path):
    # norm_cuda (Norm.cu:10) calls norm_impl (:7), whose at::vnorm (:8) runs vnorm_cuda (:3) on CUDA,
    # which launches vnorm_kernel (:4, defined at :2)
    where = f"{N}cuda/Norm.cu"
    assert chain(db, "norm") == [
        ("call", "at::native::norm_impl", f"{where}:7", 0),
        ("redispatch", "vnorm", f"{where}:8", 1),
        ("definition", "at::native::vnorm_cuda", f"{where}:3", 1),
        ("launch", "vnorm_kernel", f"{where}:4", 2),
        ("global_kernel", "at::native::vnorm_kernel", f"{where}:2", 2),
    ]


def test_a_kernel_with_its_own_device_work_keeps_its_helpers_redispatches_out(db: Path):
    # fat_cuda launches (Norm.cu:17) itself: helper (:13), which only redispatches, is no step of it
    assert chain(db, "fat") == [
        ("launch", "vnorm_kernel", f"{N}cuda/Norm.cu:17", 0),
        ("global_kernel", "at::native::vnorm_kernel", f"{N}cuda/Norm.cu:2", 0),
    ]


def test_a_thin_kernel_reached_by_a_redispatch_is_walked_as_the_body(db: Path):
    # 2.6.0's hardtanh (Activation.cpp:433) redispatches to hardtanh.out, whose CUDA kernel hardtanh_out (:438) only
    # redispatches to clamp.out (:454). Here clampish_cuda (Norm.cu:20) -> at::clampish_out (:21) -> its CUDA kernel
    # clampish_out_cuda (:23), thin too -> at::vnorm (:24) -> vnorm_cuda (:3), which launches vnorm_kernel (:4)
    where = f"{N}cuda/Norm.cu"
    assert chain(db, "clampish") == [
        ("redispatch", "clampish_out", f"{where}:21", 0),
        ("definition", "at::native::clampish_out_cuda", f"{where}:23", 0),
        ("redispatch", "vnorm", f"{where}:24", 1),
        ("definition", "at::native::vnorm_cuda", f"{where}:3", 1),
        ("launch", "vnorm_kernel", f"{where}:4", 2),
        ("global_kernel", "at::native::vnorm_kernel", f"{where}:2", 2),
    ]


def test_a_composite_kernel_with_device_work_reached_by_a_redispatch_has_its_redispatches_followed(db: Path):
    # 1.13.1's _foreach_div.Scalar CPU kernel (ForeachOpsKernels.cpp:157) calls t.div(scalar), div.Scalar, whose
    # CompositeExplicitAutograd kernel div (BinaryOps.cpp:754) fills a 0-dim tensor (an AT_DISPATCH) and
    # redispatches to div.Tensor (:755). Here divish_cuda (Norm.cu:26) -> at::divish_scalar (:27) -> the composite
    # divish_scalar (Composite.cpp:2), with its own AT_DISPATCH (:3) -> at::vnorm (:4) -> vnorm_cuda (Norm.cu:3)
    where, composite = f"{N}cuda/Norm.cu", f"{N}Composite.cpp"
    assert chain(db, "divish") == [
        ("redispatch", "divish_scalar", f"{where}:27", 0),
        ("definition", "at::native::divish_scalar", f"{composite}:2", 0),
        ("redispatch", "vnorm", f"{composite}:4", 1),
        ("definition", "at::native::vnorm_cuda", f"{where}:3", 1),
        ("dtypes", "divish_scalar", f"{composite}:3", 1),
        ("launch", "vnorm_kernel", f"{where}:4", 2),
        ("global_kernel", "at::native::vnorm_kernel", f"{where}:2", 2),
    ]
