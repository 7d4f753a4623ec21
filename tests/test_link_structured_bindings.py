"""A name declared by a structured binding is the element of its place in the initializer's type: `auto [a0, a1]
= convert_to_float<scalar_t>(a);` makes a0 and a1 Vectorized<float> (convert_to_float returns a std::tuple of two,
2.6.0 aten/src/ATen/cpu/vec/functional_bfloat16.h:22), so `a1.abs()` is Vectorized's abs, not the op abs through
the dispatcher; it is also the latest declaration of its name, not a `float a0` of another lambda of the same
function (2.6.0 aten/src/ATen/native/cpu/BinaryOpsKernel.cpp:1006 and 1016). The extractor writes the type as
`decltype(std::get<N>(...))`; the link stage reads a std::tuple's, std::pair's or std::array's element. The
fixture is written here; its line numbers are the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

VEC = """\
namespace at::vec {
template <typename T> class Vectorized {
 public:
  Vectorized<T> abs() const { return *this; }
  Vectorized<T> neg() const { return *this; }
};
template <typename T> std::tuple<Vectorized<float>, Vectorized<float>> convert_to_float(const Vectorized<T>& a) {
  return {};
}
template <typename T> std::pair<Vectorized<T>, int64_t> with_count(const Vectorized<T>& a) { return {}; }
template <typename T> std::array<Vectorized<T>, 2> both(const Vectorized<T>& a) { return {}; }
}
"""
KERNEL = """\
#include <ATen/cpu/vec/vec.h>
namespace at::native {
using namespace at::vec;
Tensor& kern(const Tensor& self, Tensor& out) {
  auto scalar_op = [](float a) { float a0 = a; return a0; };
  Vectorized<BFloat16> a;
  auto [a0, a1] = convert_to_float<BFloat16>(a);
  a1.abs();
  a0.neg();
  const auto& [v, n] = with_count(a);
  v.abs();
  auto [lo, hi] = both(a);
  hi.neg();
  auto [t, u] = unknown_pair(self);
  u.neg();
  auto [c0, c1] = self.defined() ? std::make_tuple(a, a) : convert_to_float<BFloat16>(a);
  c1.neg();
  return out;
}
}
"""
YAML = """\
- func: kern(Tensor self, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: kern
- func: abs(Tensor self) -> Tensor
  variants: function, method
- func: neg(Tensor self) -> Tensor
  variants: function, method
"""
N = "aten/src/ATen/native/cpu/Kern.cpp"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("structured_bindings"), {
        "aten/src/ATen/cpu/vec/vec.h": VEC, N: KERNEL, "aten/src/ATen/native/native_functions.yaml": YAML})


def _edge(db: Path, line: int) -> tuple[str, str, str | None]:
    """(kind, how, target node) of the one edge written on that line of Kern.cpp."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT e.kind, e.how, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
                            "WHERE e.file = ? AND e.line = ?", (N, line)).fetchall()
    assert len(rows) == 1, rows
    return rows[0]


def test_the_extractor_writes_each_name_as_its_place(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute("SELECT callee, receiver_type FROM calls WHERE file = ? AND line IN (8, 9, 11)", (N,)))
    assert got == {"a1.abs": "decltype(std::get<1>(convert_to_float<BFloat16>(a)))",
                   "a0.neg": "decltype(std::get<0>(convert_to_float<BFloat16>(a)))",
                   "v.abs": "decltype(std::get<0>(with_count(a)))"}


def test_a_tuple_element_is_its_class(db: Path) -> None:
    assert _edge(db, 8) == ("calls", "receiver-type", "at::vec::Vectorized::abs")
    assert _edge(db, 9) == ("calls", "receiver-type", "at::vec::Vectorized::neg")  # not float a0 of line 5


def test_a_pair_and_an_array_element(db: Path) -> None:
    assert _edge(db, 11) == ("calls", "receiver-type", "at::vec::Vectorized::abs")
    assert _edge(db, 13) == ("calls", "receiver-type", "at::vec::Vectorized::neg")


def test_an_element_of_an_unknown_type_is_still_a_guess(db: Path) -> None:
    assert _edge(db, 15) == ("redispatches-to-op", "op", "neg")


def test_a_conditional_initializer_takes_the_branch_that_can_be_typed(db: Path) -> None:
    # `gamma_null ? std::make_tuple(fVec(1), fVec(1)) : load2f(gamma_data + d)` (2.6.0
    # aten/src/ATen/native/cpu/layer_norm_kernel.cpp:122): both branches are one std::tuple; load2f's is typed
    assert _edge(db, 17) == ("calls", "receiver-type", "at::vec::Vectorized::neg")

