"""A stub's registered function that works only through the dispatcher is the device's kernel, and its
redispatches are followed into their ops' kernels wherever the walk meets it (queries/chain.py _body).

2.6.0 native/TensorCompare.cpp:804 (isin.Tensor_Tensor_out's structured impl) calls isin_default_stub, whose CUDA
registration (REGISTER_CUDA_DISPATCH) is cuda/TensorCompare.cpp:21's isin_default_kernel_gpu (:11): it computes
isin with `ne`, `all`, `eq` and `any` (:15-16). Reached from isin.Scalar_Tensor's kernel, which redispatches to isin.Tensor_Tensor_out,
the registered function was a helper two levels down, whose redispatches a backend walk does not follow: the
CUDA chain stopped at the op names with no kernel below them. A helper of a backend kernel that only redispatches
(a size or view) stays unfollowed."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: ne.Tensor(Tensor self, Tensor other) -> Tensor
  dispatch:
    CUDA: ne_cuda
- func: isin.Tensor_Tensor(Tensor elements, Tensor test_elements) -> Tensor
  dispatch:
    CUDA: isin_cuda
- func: isin.Scalar_Tensor(Scalar element, Tensor test_elements) -> Tensor
  dispatch:
    CUDA: isin_scalar_cuda
- func: numel(Tensor self) -> int
  dispatch:
    CompositeImplicitAutograd: numel
"""
COMPARE_H = """\
namespace at { namespace native {
using isin_default_fn = void (*)(const Tensor&, const Tensor&, const Tensor&);
DECLARE_DISPATCH(isin_default_fn, isin_default_stub);
} }
"""
COMPARE_CPP = """\
#include <ATen/native/TensorCompare.h>
namespace at { namespace native {
DEFINE_DISPATCH(isin_default_stub);
Tensor isin_cuda(const Tensor& elements, const Tensor& test) {
  Tensor out;
  isin_default_stub(elements.device().type(), elements, test, out);         // :6
  return out;
}
Tensor isin_scalar_cuda(const Scalar& element, const Tensor& test) {
  return at::isin(test, test);                                               // :10
}
Tensor numel(const Tensor& self) { return self; }
} }
"""
CUDA_COMPARE_CPP = """\
#include <ATen/native/TensorCompare.h>
namespace at { namespace native {
namespace {
void isin_default_kernel_gpu(const Tensor& elements, const Tensor& test, const Tensor& out) {   // :4
  out.copy_(at::ne(elements, test));                                        // :5
}
}
REGISTER_CUDA_DISPATCH(isin_default_stub, &isin_default_kernel_gpu)         // :8
} }
"""
NE_CU = """\
namespace at { namespace native {
__global__ void ne_kernel(float* out) { out[0] = 1; }                      // :2
Tensor ne_cuda(const Tensor& self, const Tensor& other) {
  int n = self.numel();                                                     // :4
  ne_kernel<<<1, 1>>>(nullptr);                                             // :5
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("thin_registered"), {
        N + "native_functions.yaml": YAML, N + "TensorCompare.h": COMPARE_H, N + "TensorCompare.cpp": COMPARE_CPP,
        N + "cuda/TensorCompare.cpp": CUDA_COMPARE_CPP, N + "cuda/Ne.cu": NE_CU})


def test_a_thin_registered_kernel_s_redispatches_are_followed(db):
    [answer] = Index.open(db).kernels_for("isin.Scalar_Tensor")
    [cuda] = answer.keys
    got = [(s.kind, s.name, s.loc.line if s.loc else None) for s in cuda.chain]
    # isin_scalar_cuda -> isin.Tensor_Tensor (TensorCompare.cpp:10) -> isin_cuda -> isin_default_stub (:6) ->
    # isin_default_kernel_gpu (cuda/TensorCompare.cpp:4) -> ne.Tensor (:5) -> ne_cuda -> ne_kernel (Ne.cu:2)
    assert ("definition", "at::native::(anonymous)::isin_default_kernel_gpu", 4) in got
    assert ("redispatch", "ne.Tensor", 5) in got
    assert ("definition", "at::native::ne_cuda", 3) in got
    assert ("global_kernel", "at::native::ne_kernel", 2) in got
    # ne_cuda has device work of its own: its numel() (Ne.cu:4) is plumbing, not followed into numel's kernel
    assert ("definition", "at::native::numel", 12) not in got


def test_ops_for_counts_calls_as_kernels_for_does(db):
    # kernels-for reaches ne_kernel from isin.Scalar_Tensor's kernel in 3 levels of calls (isin_scalar_cuda ->
    # isin_cuda -> isin_default_kernel_gpu -> ne_cuda); going up, a registered kernel to its stub and a kernel to its
    # op take no level, so 5 (the __global__'s launcher and the last kernel's rows besides) find every op
    hits = Index.open(db).ops_for("ne_kernel", depth=5)
    assert [(h.op, h.key) for h in hits] == [("isin.Scalar_Tensor", "CUDA"), ("isin.Tensor_Tensor", "CUDA"),
                                             ("ne.Tensor", "CUDA")]
    assert [(h.op, h.key) for h in Index.open(db).ops_for("ne_kernel", depth=3)] == [("ne.Tensor", "CUDA")]
