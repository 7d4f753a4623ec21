"""A member call whose receiver's type is not known (`pool.heaps.lower_bound(&key)`, a field of a field) is
resolved among member functions only: a free function of the same name is never its target. Every expected
edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: scale(Tensor self) -> Tensor
  dispatch:
    CPU: scale_cpu
"""
ALGO_H = """\
namespace c10::cuda {
template <typename Iter, typename Scalar>
Iter lower_bound(Iter start, Iter end, Scalar value) { return start; }
} // namespace c10::cuda
namespace at {
template <typename T> struct numeric_limits {
  static T lower_bound() { return T(); }
};
struct Ring {
  int rotate(int n) { return n; }
};
int rotate(int n);
int merge(int n) { return n; }
} // namespace at
"""
POOL_CPP = """\
#include "Algo.h"
namespace at::native {
struct Pool { Heaps heaps; Ring ring; };
int scale_cpu(Pool& pool, int key) {
  pool.heaps.lower_bound(&key);
  pool.heaps.rotate(key);
  pool.heaps.merge(key);
  return c10::cuda::lower_bound(&key, &key, 0);
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("members"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Algo.h": ALGO_H, N + "Pool.cpp": POOL_CPP})


def calls(db: Path, caller: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.line, e.target, e.how, d.name, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? AND e.kind = 'calls' ORDER BY e.id", (caller,)).fetchall()


def test_a_member_call_of_unknown_receiver_never_ends_in_a_free_function(db: Path):
    got = calls(db, "at::native::scale_cpu")
    # :5 the one class member of the name is numeric_limits<T>::lower_bound (a static member: unique by name,
    # as before); c10::cuda::lower_bound, a free function, is no candidate
    assert (5, "pool.heaps.lower_bound", "unique-name", "at::numeric_limits::lower_bound", None) in got
    assert not any(line == 5 and name == "c10::cuda::lower_bound" for line, _t, _h, name, _d in got)
    # :6 Ring::rotate is the only member of the name; the free at::rotate is not counted against it
    assert (6, "pool.heaps.rotate", "unique-name", "at::Ring::rotate", None) in got
    # :7 no class of the checkout has a member `merge`: the free at::merge is not it
    assert (7, "pool.heaps.merge", "not-in-checkout", None, "no member function of the name in the checkout") in got
    # :8 the free function, called as one
    assert (8, "c10::cuda::lower_bound", "exact", "c10::cuda::lower_bound", None) in got
