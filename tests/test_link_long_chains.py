"""Long chains of member calls (indexer/cxx/receivers.py `chain_steps`): a chain longer than 200 characters is
recorded with each argument written `_`, so the link stage types it step by step as it does a short one;
one that does not fit in 400 characters so written stays `(...).name`. Small checkout in tmp_path; the expected
lines are the comments' `:N`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer import cxx

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: scale(Tensor self, Scalar factor) -> Tensor
  dispatch:
    CPU: scale_cpu
"""
CONFIG_H = """\
namespace at {
struct Tensor {};
struct TensorIterator { void run() {} };                   // :3
struct TensorIteratorConfig {
  TensorIteratorConfig& add_output(const Tensor& t) { return *this; }
  TensorIteratorConfig& add_const_input(const Tensor& t) { return *this; }
  TensorIteratorConfig& check_all_same_dtype(bool check) { return *this; }
  TensorIteratorConfig& declare_static_shape(int shape, int squash) { return *this; }
  TensorIterator build() { return TensorIterator(); }
};
} // namespace at
"""
USER_CPP = """\
#include "Config.h"
namespace at {
namespace native {
void user(const Tensor& out, const Tensor& first_input, const Tensor& second_input) {
  auto iter = TensorIteratorConfig()
      .check_all_same_dtype(false)  // a comment in the chain
      .add_output(out)
      .add_const_input(first_input)
      .add_const_input(second_input)
      .add_const_input(first_input)
      .declare_static_shape(/*shape=*/1, /*squash=*/0)
      .build();
}
void builder(const Tensor& out, const Tensor& a, const Tensor& b) {  // :15
  auto iter = TensorIteratorConfig()
      .check_all_same_dtype(false)
      .add_output(out)
      .add_const_input(a)
      .add_const_input(b)
      .add_const_input(a)
      .add_const_input(b)
      .add_const_input(a)
      .add_const_input(b)
      .declare_static_shape(1, 0)
      .build();
  iter.run();                                                        // :27
}
} // namespace native
} // namespace at
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("chains"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Config.h": CONFIG_H,
        N + "User.cpp": USER_CPP})


def test_a_long_chain_is_recorded_with_its_steps():
    f = cxx.extract(USER_CPP.encode(), N + "User.cpp")
    long = [(c.callee, c.argc) for c in f.calls if c.callee_name in ("declare_static_shape", "build") and c.line == 5]
    assert long == [
        ("TensorIteratorConfig().check_all_same_dtype(_).add_output(_).add_const_input(_).add_const_input(_)"
         ".add_const_input(_).declare_static_shape", 2),
        ("TensorIteratorConfig().check_all_same_dtype(_).add_output(_).add_const_input(_).add_const_input(_)"
         ".add_const_input(_).declare_static_shape(_,_).build", 0)]


def test_a_long_chain_resolves_by_the_return_types_of_its_steps(db: Path):
    with sqlite3.connect(db) as conn:
        got = conn.execute(
            "SELECT e.target, e.how, d.name || ':' || d.line FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = 'at::native::user' AND e.kind = 'calls' "
            "AND e.line = 5 AND (e.target LIKE '%.build' OR e.target LIKE '%.declare_static_shape') "
            "ORDER BY e.id").fetchall()
    chain = "TensorIteratorConfig().check_all_same_dtype(_).add_output(_).add_const_input(_).add_const_input(_)" \
        ".add_const_input(_).declare_static_shape"
    # each step returns TensorIteratorConfig& (Config.h:5-8): the next is its member; build is :9
    assert got == [(chain, "receiver-type", "at::TensorIteratorConfig::declare_static_shape:8"),
                   (chain + "(_,_).build", "receiver-type", "at::TensorIteratorConfig::build:9")]


def test_a_chain_that_does_not_fit_stays_cut():
    steps = "".join(f".add_const_input(input_number_{i})" for i in range(24))
    source = f"void f() {{ auto it = TensorIteratorConfig(){steps}.build(); }}\n"
    f = cxx.extract(source.encode(), N + "Long.cpp")
    assert [c.callee for c in f.calls if c.callee_name == "build"] == ["(...).build"]


def test_a_chain_of_more_than_200_characters_written_by_its_steps_is_kept():
    # as 2.6.0 TensorShape.cpp:664-672 (cat's TensorIteratorConfig() and seven steps before .build(): 221 characters
    # written by its steps) was cut, and its .build() was ambiguous between TensorIteratorConfig's and
    # TensorIteratorBase's
    steps = "".join(f".add_const_input(input_number_{i})" for i in range(12))
    source = f"void f() {{ auto it = TensorIteratorConfig(){steps}.build(); }}\n"
    f = cxx.extract(source.encode(), N + "Long.cpp")
    assert [c.callee for c in f.calls if c.callee_name == "build"] == [
        "TensorIteratorConfig()" + ".add_const_input(_)" * 12 + ".build"]


def test_an_auto_variable_made_by_a_long_chain_is_typed_by_its_steps(db: Path):
    # :16-26, ten steps after TensorIteratorConfig(), longer than an initializer written out whole: `iter` is
    # written by its steps, typed step by step to TensorIterator (Config.h:9), whose run is Config.h:3
    with sqlite3.connect(db) as conn:
        got = conn.execute(
            "SELECT e.how, d.name || ':' || d.line FROM edges e LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE e.kind = 'calls' AND e.target = 'iter.run'").fetchall()
    assert got == [("receiver-type", "at::TensorIterator::run:3")]
