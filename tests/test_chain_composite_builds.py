"""A composite kernel's walk goes on in the kernels its redispatches run for CPU and CUDA; below a CUDA kernel it
is a CUDA build's walk (queries/chain.py _device_build): what only a ROCm build compiles there is named, not
followed, as in that op's own CUDA chain. 2.6.0 c10/cuda/CUDAFunctions.h:92's `hipMemcpyWithStream`, under
`#if defined(TORCH_HIP_VERSION)`, showed in 2,154 composite keys' chains (through copy_'s and item's CUDA kernels).
The composite kernel's own body stays every build's (a ROCm build runs it too)."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: thing(Tensor self) -> Tensor
  dispatch:
    CPU: thing_cpu
    CUDA: thing_cuda
- func: wrapper(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: wrapper_composite
"""
PATHS_H = """\
#pragma once
namespace at { namespace native {
inline void rocm_path(int n) { rocblas_sgemm(n); }
inline void cuda_path(int n) { cublasSgemm(n); }
inline void cpu_path(int n) { cblas_sgemm(n); }
} }
"""
THING_CPP = """\
#include <ATen/native/Paths.h>
namespace at { namespace native {
Tensor thing_cpu(const Tensor& self) {
#if defined(USE_ROCM)
  rocm_path(1);                                                                // :5, any build's CPU code
#endif
  cpu_path(2);
  return self;
}
Tensor wrapper_composite(const Tensor& self) {
#if defined(TORCH_HIP_VERSION)
  rocm_path(3);                                                                // :12, the composite's own body
#endif
  return at::thing(self);
}
} }
"""
THING_CU = """\
#include <ATen/native/Paths.h>
namespace at { namespace native {
Tensor thing_cuda(const Tensor& self) {
#if defined(TORCH_HIP_VERSION) && TORCH_HIP_VERSION >= 301
  rocm_path(4);                                                                // :5, a ROCm build's only
#else
  cuda_path(5);
#endif
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return Index.open(built_tree(tmp_path_factory.mktemp("composite_builds"), {
        N + "native_functions.yaml": YAML, N + "Paths.h": PATHS_H, N + "Thing.cpp": THING_CPP,
        N + "cuda/Thing.cu": THING_CU}))


def _calls(key) -> list[tuple[str, str]]:
    return [(s.name.rsplit("::", 1)[-1], f"{s.site.file.rsplit('/', 1)[-1]}:{s.site.line}") for s in key.chain
            if s.kind == "call"]


def test_below_a_redispatched_cuda_kernel_the_composite_walk_is_a_cuda_build_s(ix: Index):
    [answer] = ix.kernels_for("wrapper")
    [composite] = answer.keys
    assert [(s.name.rsplit("::", 1)[-1], s.device) for s in composite.chain if s.kind == "definition"] == [
        ("thing_cpu", "CPU"), ("thing_cuda", "CUDA")]
    # its own rocm_path (:12) and the CPU kernel's (Thing.cpp:5) are followed; thing_cuda's (Thing.cu:5) is not
    assert sorted(_calls(composite)) == [("cpu_path", "Thing.cpp:7"), ("cuda_path", "Thing.cu:7"),
                                         ("rocm_path", "Thing.cpp:12"), ("rocm_path", "Thing.cpp:5")]
    [cut] = [t for t in composite.truncated if "never run" in t.what]
    assert cut.names == ("Thing.cu:4 #if defined(TORCH_HIP_VERSION) && TORCH_HIP_VERSION >= 301: only a ROCm build "
                         "(TORCH_HIP_VERSION) compiles it: rocm_path",)
    # the op's own CUDA chain says the same
    [thing] = ix.kernels_for("thing")
    cuda = next(k for k in thing.keys if k.key == "CUDA")
    assert _calls(cuda) == [("cuda_path", "Thing.cu:7")]
