"""A method called on a receiver of no known type is taken for at::Tensor's method of an op of its name only when
one of the op's overloads fits the argument count ("method of an op's name"): `v.size()` is no size.int (that takes
a dim) but a container's, `v.size(0)` may be the op's. 2.6.0 has about a thousand such 0-argument `size()` calls on
vectors and lists (torch/csrc/jit/tensorexpr/llvm_codegen.cpp:2645 `bufs.size()`) that were taken for size.int.
The fixture is written here; its line numbers are the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
KERNEL = """\
namespace at::native {
Tensor& guess(const Tensor& self, Tensor& out) {
  auto v = make_list();
  int64_t n = v.size();
  int64_t d = v.size(0);
  auto s = v.sum();
  int64_t m = self.size(0);
  return out;
}
}
"""
YAML = """\
- func: guess(Tensor self, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: guess
- func: size.int(Tensor self, int dim) -> int
  variants: function, method
- func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
  variants: function, method
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("untyped_receivers"), {
        f"{N}Guess.cpp": KERNEL, f"{N}native_functions.yaml": YAML})


def _edges(db: Path, line: int) -> list[tuple[str, str | None, str | None, str | None]]:
    """(kind, how, detail, target op) of each edge written on that line of Guess.cpp."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.kind, e.how, e.detail, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
            "WHERE e.file = ? AND e.line = ? ORDER BY e.kind, n.name", (f"{N}Guess.cpp", line)).fetchall()


def test_a_count_no_overload_takes_is_no_op_call(db: Path) -> None:
    got = _edges(db, 4)
    assert all(kind != "redispatches-to-op" and how != "op" for kind, how, _detail, _op in got), got


def test_a_count_that_fits_is_the_op_guessed(db: Path) -> None:
    assert ("redispatches-to-op", "op", "method of an op's name", "size.int") in _edges(db, 5)
    assert ("redispatches-to-op", "op", "method of an op's name", "sum") in _edges(db, 6)


def test_a_tensor_receiver_is_no_guess(db: Path) -> None:
    assert ("redispatches-to-op", "op", "Tensor method", "size.int") in _edges(db, 7)
