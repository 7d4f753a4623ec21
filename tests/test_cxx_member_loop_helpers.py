"""TensorIterator's own loop runners as launch helpers: `iter.for_each(loop, grain_size)` and
`iter.serial_for_each(loop, range)` run the lambda or functor written as their first argument (cpu/UnaryOpsKernel.cpp
of 2.6.0 :759 `iter.for_each(IMPLEMENT_ITERATOR_LAMBDA(op), grain_size)`, cpu/IndexKernel.cpp's
`iter.for_each(loop)`), so a CPU kernel's chain ends in the loop it runs. std::for_each is no helper, and a call
whose loop is not named (a function's result) records no launch. The fixture is written here; its line numbers are
the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
KERNEL = """\
namespace at::native {
struct FillLoop { void operator()(char** data, const int64_t* strides, int64_t n) const {} };
void fill_kernel(TensorIteratorBase& iter) {
  auto loop = [&](char** data, const int64_t* strides, int64_t n) {
    fill_row(data, n);
  };
  iter.for_each(loop, 2048);
}
void copy_rows(TensorIteratorBase& iter, Range range) {
  iter.serial_for_each([&](char** data, const int64_t* strides, int64_t n) {}, range);
}
void by_functor(TensorIteratorBase& iter) {
  iter.for_each(FillLoop(), 1024);
}
void not_a_loop(std::vector<int>& v, TensorIteratorBase& iter) {
  std::for_each(v.begin(), v.end(), [](int x) {});
  iter.for_each(make_loop(v), 1024);
}
void fill_row(char** data, int64_t n) {}
}
"""
OP = """\
namespace at::native {
Tensor& filled_out(const Tensor& self, Tensor& out) {
  auto iter = TensorIterator::unary_op(out, self);
  fill_kernel(iter);
  return out;
}
}
"""
YAML = """\
- func: filled.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: filled_out
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("loop_helpers"), {
        f"{N}cpu/FillKernel.cpp": KERNEL, f"{N}Fill.cpp": OP, f"{N}native_functions.yaml": YAML})


def test_the_iterators_loop_runners_launch_what_they_are_handed(db: Path):
    with sqlite3.connect(db) as conn:
        got = sorted(conn.execute("SELECT caller, kind, kernel, line, lambda_line FROM launches"))
    assert got == [
        ("at::native::by_functor", "for_each", "FillLoop", 13, None),
        ("at::native::copy_rows", "serial_for_each", None, 10, 10),
        ("at::native::fill_kernel", "for_each", None, 7, 4),  # the local lambda `loop`
    ]


def test_the_functor_a_loop_runner_is_handed_runs(db: Path):
    with sqlite3.connect(db) as conn:
        got = conn.execute("SELECT d.name, e.detail FROM edges e JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = "
                           "e.dst WHERE e.kind = 'runs-functor' AND s.name = 'at::native::by_functor'").fetchall()
    # the launch's edge (detail: the helper), beside the one every construction of a functor class has
    assert sorted(got) == [("at::native::FillLoop::operator()", "constructed"),
                           ("at::native::FillLoop::operator()", "for_each")]


def test_a_cpu_chain_ends_in_the_loop_its_kernel_runs(db: Path):
    [answer] = Index.open(db).kernels_for("filled.out")
    [cpu] = answer.keys
    steps = [(s.kind, s.name, s.line) for s in cpu.chain]
    assert ("call", "at::native::fill_kernel", 3) in steps
    assert ("launch", "lambda at line 4", 4) in steps  # run by iter.for_each at :7
