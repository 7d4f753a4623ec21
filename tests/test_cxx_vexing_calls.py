"""A template call whose argument is a macro use parses as a declaration: it is still a call (calls.py)."""

from __future__ import annotations

from tg_index.indexer.cxx import extract

SRC = b"""\
namespace at { namespace cuda { namespace blas {
template <> void gemm<float>(CUDABLAS_GEMM_ARGTYPES(float)) {
  gemm_internal<float>(CUDABLAS_GEMM_ARGS(float));
  at::native::gemm<double>(ARGS(double));
  std::vector<int> v(n);
  int (*fp)(int);
  Foo (bar);
}
}}}
std::vector<int> (g)(int);
"""


def test_a_vexing_parse_in_a_body_is_a_call_with_one_argument():
    facts = extract(SRC, "aten/src/ATen/cuda/CUDABlas.cpp")
    assert [(c.caller, c.callee, c.callee_name, c.line, c.argc) for c in facts.calls] == [
        ("at::cuda::blas::gemm<float>", "Foo", "Foo", 7, 1),  # tree-sitter itself reads `Foo (bar);` as a call
        ("at::cuda::blas::gemm<float>", "gemm_internal<float>", "gemm_internal", 3, 1),
        ("at::cuda::blas::gemm<float>", "at::native::gemm<double>", "gemm", 4, 1),
    ]
