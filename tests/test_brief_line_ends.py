"""Where a brief line ends (queries/brief.py _path_first): never in a library that does not run on the key's device,
nor at a stub with no kernel for it; a C API's size query is a query; a CUTLASS operator's run is a host call.

- 2.6.0 Convolution.cpp:1534, _convolution's `case ConvBackend::Xnnpack2d:` calls XNNPACK (xnn_run_operator, through
  xnnpack::convolution2d): its CUDA line named that, and, with it gone, mkldnn_convolution_transpose_stub, which has
  no CUDA kernel; the line now names the ops it redispatches to (cudnn_convolution ...).
- sparse/cuda/cuSPARSELtOps.cpp:18, _cslt_compress: cusparseLtSpMMACompressedSize2 before cusparseLtSpMMACompress2.
- cuda/MixedDtypesLinear.cu:147, `gemm_op.run(stream)`; CUTLASS's other calls (a cutlass::TensorRef made) are device
  helpers, which ended the line before."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index
from tg_index.queries.brief import kernels_for_brief

from .conftest import FIXTURES, built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: conv_like(Tensor self, int backend) -> Tensor
  dispatch:
    CompositeExplicitAutograd: conv_like
- func: _conv_cuda_only(Tensor self) -> Tensor
  dispatch:
    CUDA: _conv_cuda_only_cuda
- func: compress_like(Tensor self) -> Tensor
  dispatch:
    CUDA: compress_like_cuda
- func: cutlass_like(Tensor self) -> Tensor
  dispatch:
    CUDA: cutlass_like_cuda
"""
CONV_H = """\
namespace at { namespace native {
using winograd_fn = void (*)(const Tensor&);
DECLARE_DISPATCH(winograd_fn, winograd_stub);
} }
"""
CONV_CPP = """\
#include <ATen/native/Conv.h>
namespace at { namespace native {
DEFINE_DISPATCH(winograd_stub);
Tensor conv_like(const Tensor& self, int64_t backend) {
  switch (backend) {
    case 0:
      xnn_run_operator(nullptr, nullptr);                                    // :7
      break;
    case 1:
      return at::_conv_cuda_only(self);                                      // :10
    default:
      winograd_stub(self.device().type(), self);                             // :12
  }
  return self;
}
} }
"""
CPU_CONV_CPP = """\
#include <ATen/native/Conv.h>
namespace at { namespace native {
namespace {
void winograd_kernel(const Tensor& self) {
  at::parallel_for(0, 4, 1, [&](int64_t b, int64_t e) { });
}
}
REGISTER_DISPATCH(winograd_stub, &winograd_kernel)
} }
"""
CUDA_CPP = """\
namespace at { namespace native {
Tensor _conv_cuda_only_cuda(const Tensor& self) {
  cudnnConvolutionForward(nullptr);                                          // :3
  return self;
}
Tensor compress_like_cuda(const Tensor& self) {
  size_t size = 0;
  cusparseLtSpMMACompressedSize2(nullptr, &size);                            // :8
  cusparseLtSpMMACompress2(nullptr, nullptr);                                // :9
  return self;
}
} }
"""
CUTLASS_CU = """\
namespace at { namespace native {
template <typename Kernel>
void run_gemm(float* p) {
  using Gemm = cutlass::gemm::device::GemmUniversalBase<Kernel>;
  Gemm gemm_op;
  gemm_op.initialize(p);
  gemm_op.run(p);                                                            // :7
}
Tensor cutlass_like_cuda(const Tensor& self) {
  auto ref = cutlass::TensorRef<float, int>(nullptr);                        // :10
  run_gemm<int>(nullptr);                                                    // :11
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    keys = FIXTURES / "dispatch_keys"  # the dispatcher's keys, for a composite kernel asked for by CUDA
    files = {str(p.relative_to(keys)): p.read_text() for p in (keys / "c10").rglob("*") if p.is_file()}
    return Index.open(built_tree(tmp_path_factory.mktemp("line_ends"), {
        **files, N + "native_functions.yaml": YAML, N + "Conv.h": CONV_H, N + "Conv.cpp": CONV_CPP,
        N + "cpu/ConvKernel.cpp": CPU_CONV_CPP, N + "cuda/Conv.cpp": CUDA_CPP, N + "cuda/Cutlass.cu": CUTLASS_CU}))


def _line(ix: Index, op: str, key: str) -> dict:
    [answer] = [a for a in ix.kernels_for(op, (key,)) if a.op == op]
    [line] = kernels_for_brief(answer)["keys"]
    return line


def test_a_gpu_line_does_not_end_in_a_cpu_library_nor_a_stub_without_its_kernel(ix: Index):
    line = _line(ix, "conv_like", "CUDA")
    assert line["key"] == "CUDA <- CompositeExplicitAutograd"
    assert "path" not in line  # not xnn_run_operator (Conv.cpp:7), not winograd_stub (:12), which CUDA lacks
    assert line["redispatches"] == ["_conv_cuda_only"]
    assert "xnnpack:xnn_run_operator" in line["library"]  # listed all the same


def test_the_cpu_line_may_end_in_the_cpu_library(ix: Index):
    line = _line(ix, "conv_like", "CPU")
    assert line["library"][0] == "xnnpack:xnn_run_operator" and line["path"] == ["library"]  # Conv.cpp:7
    assert line["stubs"] == ["winograd_stub"] and line["registered"] == ["winograd_kernel"]


def test_a_size_query_is_no_end(ix: Index):
    line = _line(ix, "compress_like", "CUDA")
    assert line["library"][0] == "cusparse:cusparseLtSpMMACompress2" and line["path"] == ["library"]


def test_a_cutlass_operator_s_run_ends_the_line(ix: Index):
    line = _line(ix, "cutlass_like", "CUDA")
    assert line["library"][0] == "cutlass:gemm_op.run"  # Cutlass.cu:7, below run_gemm; not the TensorRef at :10
