"""Vendor calls in the graph: a call that computes ends a chain (calls-library); one that configures or
asks the library (MKL's thread and version functions, VSL's stream set-up) is an edge to the vendor that does no device work;
a PyTorch name that merely starts like a vendor's (MPSHooksRegistry, a c10 registry) is no vendor call."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .conftest import built_tree

N = "aten/src/ATen/native/"
SOURCE = """\
namespace at { namespace native {
void threads_only() {
  mkl_set_num_threads(1);
  mkl_get_max_threads();
}
void gemm_cpu(float* a) {
  cblas_sgemm(a);
}
void sample_cpu(int* out) {
  vslNewStream(out);
  viRngBernoulli(out);
}
void hooks() {
  MPSHooksRegistry()->Create();
  MPSGraphTensor* t = nullptr;
}
}}
"""


def _yaml(op: str, kernel: str) -> str:
    return f"- func: {op}(Tensor self) -> Tensor\n  dispatch:\n    CPU: {kernel}\n"


def test_service_calls_do_no_device_work(tmp_path: Path):
    db = built_tree(tmp_path, {N + "Blas.cpp": SOURCE, N + "native_functions.yaml": _yaml("gemmish", "gemm_cpu")})
    with sqlite3.connect(db) as conn:
        got = conn.execute("SELECT s.name, e.kind, e.target, e.how, e.dst IS NOT NULL FROM edges e "
                           "JOIN nodes s ON s.id = e.src WHERE e.kind IN ('calls', 'calls-library') ORDER BY e.id").fetchall()
        device = dict(conn.execute("SELECT name, device_path FROM nodes WHERE kind = 'function'"))
    assert ("at::native::threads_only", "calls", "mkl_set_num_threads", "vendor", 0) in got  # Blas.cpp:3
    assert ("at::native::threads_only", "calls", "mkl_get_max_threads", "vendor", 0) in got  # Blas.cpp:4
    assert ("at::native::gemm_cpu", "calls-library", "cblas_sgemm", "vendor", 1) in got  # Blas.cpp:7
    assert ("at::native::sample_cpu", "calls", "vslNewStream", "vendor", 0) in got  # Blas.cpp:10: MKL VSL's stream set-up
    assert ("at::native::sample_cpu", "calls-library", "viRngBernoulli", "vendor", 1) in got  # Blas.cpp:11
    assert not [g for g in got if g[2] == "MPSHooksRegistry" and g[3] == "vendor"]  # Blas.cpp:14
    assert device["at::native::threads_only"] == 0 and device["at::native::gemm_cpu"] == 1


QUERIES = """\
namespace at { namespace native {
void sort_cpu(int* a) {
  if (fbgemm::is_radix_sort_accelerated_with_openmp()) {
    fbgemm::radix_sort_parallel(a);
  }
  bool ok = fbgemm::fbgemmSupportedCPU();
}
void add_mkldnn(int* a) {
  auto attr = ideep::attr_t::fuse_relu();
  ideep::sum::compute(a);
}
}}
"""


def test_capability_checks_and_onednn_attributes_are_no_work(tmp_path: Path):
    db = built_tree(tmp_path, {N + "Sort.cpp": QUERIES, N + "native_functions.yaml": _yaml("sortish", "sort_cpu")})
    with sqlite3.connect(db) as conn:
        got = set(conn.execute("SELECT e.line, e.kind, e.target FROM edges e WHERE e.kind IN ('calls', 'calls-library')"))
    assert (3, "calls", "fbgemm::is_radix_sort_accelerated_with_openmp") in got  # Sort.cpp:3 asks the library
    assert (4, "calls-library", "fbgemm::radix_sort_parallel") in got  # Sort.cpp:4 sorts
    assert (6, "calls", "fbgemm::fbgemmSupportedCPU") in got
    assert (9, "calls", "ideep::attr_t::fuse_relu") in got  # Sort.cpp:9 names a post-op
    assert (10, "calls-library", "ideep::sum::compute") in got  # Sort.cpp:10 computes
