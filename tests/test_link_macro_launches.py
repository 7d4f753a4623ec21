"""A `<<<...>>>` written in a file-scope #define and used inside a kernel is a launch of that kernel: the launch is
at the #define's line, before the function that uses the macro (2.6.0 cuda/AveragePool3d.cu:335
LAUNCH_UPDATE_OUTPUT_KERNEL_WIDTH, used in avg_pool3d_out_cuda's impl at :347; cuda/DepthwiseConv3d.cu:357
DWCONV3D_FORWARD_DISPATCH_SPECIALIZATION, used in conv_depthwise3d_cuda at :452). Such launches had no edge, and
conv_depthwise3d's CUDA chain named the launch of a backward kernel written in the #define after it (the function
was read on past its end: test_damaged_definition_end.py).

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: depthwise3d(Tensor self, int ks) -> Tensor
  dispatch:
    CUDA: depthwise3d_cuda

- func: depthwise3d_backward(Tensor grad, int ks) -> Tensor
  dispatch:
    CUDA: depthwise3d_backward_cuda
"""
KERNELS_CU = """\
namespace at::native {
namespace {
template <typename scalar_t, int K>
__global__ void fwd_kernel(scalar_t* out) {}                                   // :4
template <typename scalar_t, int K>
__global__ void bwd_kernel(scalar_t* out) {}                                   // :6
}

#define FWD_CASE(k) \\
  if (ks == (k)) { \\
    fwd_kernel<scalar_t, (k)><<<1, 1>>>(out); \\
  } else

#define FWD_OTHERS \\
  { \\
    fwd_kernel<scalar_t, -1><<<1, 1>>>(out); \\
  }

Tensor depthwise3d_cuda(const Tensor& self, int64_t ks) {                      // :19
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "depthwise3d_cuda", [&] {
        scalar_t* out = nullptr;
        FWD_CASE(3)
        FWD_CASE(5)
        FWD_OTHERS
      }
  );
  return self;
}

#undef FWD_CASE
#undef FWD_OTHERS

#define BWD_CASE(k) \\
  if (ks == (k)) { \\
    bwd_kernel<scalar_t, (k)><<<1, 1>>>(out); \\
  } else

Tensor depthwise3d_backward_cuda(const Tensor& grad, int64_t ks) {             // :38
  AT_DISPATCH_FLOATING_TYPES(grad.scalar_type(), "depthwise3d_backward_cuda", [&] {
        scalar_t* out = nullptr;
        BWD_CASE(3)
        {}
      }
  );
  return grad;
}
}  // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("macro_launches"), {
        N + "native_functions.yaml": YAML, N + "cuda/Depthwise.cu": KERNELS_CU})


def _launches(db, function: str) -> set[tuple[str, int]]:
    conn = sqlite3.connect(db)
    return set(conn.execute(
        "SELECT d.name, e.line FROM edges e JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = e.dst "
        "WHERE e.kind = 'launches' AND s.name = ?", (function,)))


def test_a_file_scope_macro_s_launch_is_the_using_function_s(db):
    # :11 (FWD_CASE) and :16 (FWD_OTHERS, an object-like macro: not expanded, so only FWD_CASE's launch is known)
    assert _launches(db, "at::native::depthwise3d_cuda") == {("at::native::(anonymous)::fwd_kernel", 11)}
    # :35 (BWD_CASE), used at :41
    assert _launches(db, "at::native::depthwise3d_backward_cuda") == {("at::native::(anonymous)::bwd_kernel", 35)}


def test_the_cuda_chain_reaches_the_kernel_the_macro_launches(db):
    answer = Index.open(db).kernels_for("depthwise3d")[0]
    chain = next(k for k in answer.keys if k.key == "CUDA").chain
    kernels = {(s.name, s.line) for s in chain if s.kind == "global_kernel"}
    assert kernels == {("at::native::(anonymous)::fwd_kernel", 4)}
