"""Every member of an overload set is a step where the walk shows one of them: 2.6.0 cpu/BlasKernel.cpp:450's
`gemm_notrans_(m, n, k, ...)` in gemm_core_ is an overload set chosen by enable_if on the dtype, the plain loop
at :104 for float and double beside the Half/BFloat16 one at :140, which calls `sum` (a functor run, device work
by the graph's measure). A C++ reader names both; the loop at :104 leads to no device work of its own, so the walk
showed :140 only (queries/chain.py _loop_overload). A loop overload set none of whose members is shown, or a
member with no loop, or one outside native/, stays out."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: gemm_thing(Tensor self) -> Tensor
  dispatch:
    CPU: gemm_thing_cpu
"""
BLAS_CPP = """\
namespace at { namespace native {
namespace {
template <typename scalar_t, typename opmath_t>
std::enable_if_t<std::is_same_v<scalar_t, opmath_t>, void>
notrans_(int64_t n, scalar_t* c) {                                               // :5, a plain loop
  for (int64_t i = 0; i < n; i++) { c[i] = 0; }
}
template <typename scalar_t, typename opmath_t>
std::enable_if_t<!std::is_same_v<scalar_t, opmath_t>, void>
notrans_(int64_t n, scalar_t* c) {                                               // :10, a loop with device work
  at::parallel_for(0, n, 1, [&](int64_t b, int64_t e) { for (int64_t i = b; i < e; i++) { c[i] = 0; } });
}
template <typename scalar_t, typename opmath_t>
std::enable_if_t<std::is_same_v<scalar_t, opmath_t>, void>
transb_(int64_t n, scalar_t* c) {                                                // :15, loops alone
  for (int64_t i = 0; i < n; i++) { c[i] = 1; }
}
template <typename scalar_t, typename opmath_t>
std::enable_if_t<!std::is_same_v<scalar_t, opmath_t>, void>
transb_(int64_t n, scalar_t* c) {                                                // :20
  for (int64_t i = 0; i < n; i++) { c[i] = 2; }
}
template <typename scalar_t, typename opmath_t>
void core_(bool t, int64_t n, scalar_t* c) {
  if (t) {
    notrans_<scalar_t, opmath_t>(n, c);                                        // :26
  } else {
    transb_<scalar_t, opmath_t>(n, c);                                         // :28
  }
}
}
Tensor gemm_thing_cpu(const Tensor& self) {
  core_<float, float>(true, 4, nullptr);                                       // :33
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    db = built_tree(tmp_path_factory.mktemp("loop_overloads"),
                    {N + "native_functions.yaml": YAML, N + "cpu/BlasKernel.cpp": BLAS_CPP})
    return Index.open(db)


def test_each_overload_of_a_set_one_member_of_which_is_shown_is_a_step(ix: Index):
    [answer] = ix.kernels_for("gemm_thing")
    [cpu] = answer.keys
    calls = [(s.name.rsplit("::", 1)[-1], s.loc.line, s.site.line if s.site else None) for s in cpu.chain
             if s.kind == "call"]
    # notrans_ :5 joins :10 (the set's order); neither transb_ is shown: no member of that set is
    assert calls == [("core_", 24, 33), ("notrans_", 5, 26), ("notrans_", 10, 26)]
