"""A header declares the functions its source file defines: a caller that includes X.h sees the overloads X.cpp
defines beside the ones X.h itself defines. 2.6.0 native/CPUBlas.h defines the template `cpublas::gemm` (it calls
gemm_stub) and declares the overloads for double, float, complex ... that CPUBlas.cpp defines (they call BLAS's dgemm_,
sgemm_, cblas_*); addmm_impl_cpu_ calls `at::native::cpublas::gemm(...)` with scalar_t pointers inside
AT_DISPATCH (LinearAlgebra.cpp:1533), which reaches each of them by dtype. The link took the header's template
only (the include rule), so addmm's and mm's CPU chains never reached BLAS.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: mmx(Tensor self) -> Tensor
  dispatch:
    CPU: mmx_cpu
"""
CPUBLAS_H = """\
namespace at::native::cpublas {
template <typename scalar_t>
void gemm(int64_t m, const scalar_t* a, scalar_t* c) {                         // :3
  gemm_stub(m, a, c);
}
void gemm(int64_t m, const double* a, double* c);
void gemm(int64_t m, const float* a, float* c);
}
"""
CPUBLAS_CPP = """\
#include <ATen/native/CPUBlas.h>
namespace at::native::cpublas {
void gemm(int64_t m, const double* a, double* c) {                             // :3
  dgemm_(m, a, c);
}
void gemm(int64_t m, const float* a, float* c) {                               // :6
  sgemm_(m, a, c);
}
}
"""
MM_CPP = """\
#include <ATen/native/CPUBlas.h>
namespace at::native {
Tensor mmx_cpu(const Tensor& self) {
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "mmx", [&] {
    at::native::cpublas::gemm(3, self.const_data_ptr<scalar_t>(), self.mutable_data_ptr<scalar_t>());  // :5
  });
  return self;
}
}
"""
# A file that includes no header of CPUBlas: it sees no declaration of the source file's overloads.
OTHER_H = """\
namespace at::native::cpublas {
template <typename scalar_t>
void gemm(int64_t m, const scalar_t* a, scalar_t* c) {}                        // :3
}
"""
OTHER_CPP = """\
#include <ATen/native/other/Gemm.h>
namespace at::native {
void other_caller(const Tensor& self, float* p) {
  at::native::cpublas::gemm(3, p, p);                                          // :4
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("header_declares"), {
        N + "native_functions.yaml": YAML, N + "CPUBlas.h": CPUBLAS_H, N + "CPUBlas.cpp": CPUBLAS_CPP,
        N + "Mm.cpp": MM_CPP, N + "other/Gemm.h": OTHER_H, N + "other/Caller.cpp": OTHER_CPP})


def _targets(db, file: str, line: int) -> list[tuple[str, int]]:
    """(file, line) of the definitions the calls of `cpublas::gemm` written at that line reach."""
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT d.file, d.line FROM edges e JOIN nodes d ON d.id = e.dst WHERE e.kind = 'calls' "
                            "AND e.file LIKE ? AND e.line = ? AND e.target LIKE '%gemm%' ORDER BY d.file, d.line",
                            (f"%{file}", line)).fetchall()


def test_a_dependent_call_reaches_the_header_s_template_and_its_source_s_overloads(db):
    got = [(file, line) for file, line in _targets(db, "Mm.cpp", 5)]
    assert sorted(got) == [(N + "CPUBlas.cpp", 3), (N + "CPUBlas.cpp", 6), (N + "CPUBlas.h", 3)]


def test_a_header_that_declares_nothing_of_a_source_file_adds_none_of_it(db):
    assert _targets(db, "other/Caller.cpp", 4) == [(N + "other/Gemm.h", 3)]  # what the caller's includes reach
