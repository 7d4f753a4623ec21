"""A composite kernel asked for by a runtime key (`kernels-for matmul --key CUDA`: `CUDA <- CompositeImplicitAutograd`)
works through the dispatcher: the ops its helpers call are its work on that device. 2.6.0 LinearAlgebra.cpp:2180
matmul calls _matmul_impl (:2000), whose at::mm, at::bmm, at::dot and at::mv calls (:2028-:2079) are the work;
_matmul_impl has device work of its own below resize_output (:2086, whose deterministic fill has an AT_DISPATCH,
TensorFactories.h:106), so it was no thin helper, and a walk for CUDA stopped at `redispatch mm` without going into
mm's CUDA kernel, where the walk of the CompositeImplicitAutograd key itself went on. Every helper of such a kernel
is now its body; the kernels its redispatches reach keep their own rules (a backend kernel's helpers' redispatches
are not followed).

The fixture is written here; each expected step is read in it (line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from tg_index.queries.api import Index
from tg_index.queries.brief import kernels_for_brief, kernels_for_brief_text

from .conftest import FIXTURES, built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: product(Tensor self, Tensor other) -> Tensor
- func: mm(Tensor self, Tensor mat2) -> Tensor
  dispatch:
    CPU: mm_cpu
    CUDA: mm_cuda
- func: scratch(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: scratch_kernel
"""
PRODUCT_CPP = """\
namespace at::native {
static void fill_scratch(const Tensor& out) {
  AT_DISPATCH_FLOATING_TYPES(out.scalar_type(), "fill_scratch", [&] {          // :3
    out.data_ptr<scalar_t>()[0] = 0;
  });
}
static Tensor product_impl(const Tensor& self, const Tensor& other) {
  fill_scratch(self);                                                          // :8
  return at::mm(self, other);                                                  // :9
}
Tensor product(const Tensor& self, const Tensor& other) {
  return product_impl(self, other);                                            // :12
}
}
"""
BLAS_CU = """\
namespace at::native {
__global__ void mm_kernel(float* out) {
  out[0] = 1;
}
static void mm_helper(const Tensor& self) {
  at::scratch(self);                                                           // :6
  mm_kernel<<<1, 1>>>(nullptr);                                                // :7
}
Tensor mm_cuda(const Tensor& self, const Tensor& mat2) {
  mm_helper(self);                                                             // :10
  return self;
}
}
"""
BLAS_CPP = """\
namespace at::native {
Tensor mm_cpu(const Tensor& self, const Tensor& mat2) {
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "mm_cpu", [&] {               // :3
    self.data_ptr<scalar_t>()[0] = 0;
  });
  return self;
}
Tensor scratch_kernel(const Tensor& self) {
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "scratch", [&] {
    self.data_ptr<scalar_t>()[0] = 0;
  });
  return self;
}
}
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory):
    keys = FIXTURES / "dispatch_keys"
    files = {str(p.relative_to(keys)): p.read_text() for p in (keys / "c10").rglob("*") if p.is_file()}
    db = built_tree(tmp_path_factory.mktemp("composite_for_runtime_key"), {
        **files, N + "native_functions.yaml": YAML, N + "Product.cpp": PRODUCT_CPP, N + "cuda/Blas.cu": BLAS_CU,
        N + "Blas.cpp": BLAS_CPP})
    return Index.open(db)


def _steps(key) -> list[tuple]:
    return [(s.kind, s.name, str(s.loc)) for s in key.chain]


def test_the_redispatch_of_a_helper_goes_on_into_the_runtime_keys_kernel(ix):
    (answer,) = ix.kernels_for("product", ("CUDA",))
    (key,) = answer.keys
    assert (key.key, key.qualified_name) == ("CUDA <- CompositeImplicitAutograd", "at::native::product")
    steps = _steps(key)
    assert ("call", "at::native::product_impl", N + "Product.cpp:7") in steps
    assert ("redispatch", "mm", N + "Product.cpp:9") in steps
    # mm's CUDA kernel and what it launches; not mm's CPU kernel
    assert ("definition", "at::native::mm_cuda", N + "cuda/Blas.cu:9") in steps
    assert ("global_kernel", "at::native::mm_kernel", N + "cuda/Blas.cu:2") in steps
    assert not [s for s in steps if s[1] == "at::native::mm_cpu"]
    # the backend kernel keeps its own rule: its helper's redispatch is a step, not followed into scratch's kernel
    assert ("redispatch", "scratch", N + "cuda/Blas.cu:6") in steps
    assert not [s for s in steps if s[1] == "at::native::scratch_kernel"]


def test_the_cpu_walk_takes_the_cpu_kernel(ix):
    (answer,) = ix.kernels_for("product", ("CPU",))
    steps = _steps(answer.keys[0])
    assert ("definition", "at::native::mm_cpu", N + "Blas.cpp:2") in steps
    assert not [s for s in steps if s[1] == "at::native::mm_cuda"]


def test_the_brief_names_the_op_that_does_the_work(ix):
    text = kernels_for_brief_text([kernels_for_brief(a) for a in ix.kernels_for("product", ("CUDA",))])
    assert text.splitlines()[1] == "  CUDA <- CompositeImplicitAutograd: product Product.cpp:11 => mm"
