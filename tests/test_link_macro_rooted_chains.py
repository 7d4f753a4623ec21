"""Chains of member calls that start at a use of the file's own macro (indexer/cxx/body_macros.py `expanded_chain`):
2.6.0 TensorIterator.cpp:1106 defines `NULLARY_OP_CONFIG()` as `TensorIteratorConfig().set_check_mem_overlap(true)
...` and :1114/:1120 write `NULLARY_OP_CONFIG().add_output(out).build()`. The call's callee is written with the use
expanded, so the link stage types `.build` from the class made in place instead of finding every `build` of the
checkout. Small checkout in tmp_path; the expected lines are the comments' `:N`."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer import cxx

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: fill_it(Tensor self) -> Tensor
  dispatch:
    CPU: fill_it_cpu
"""
CONFIG_H = """\
namespace at {
struct Tensor {};
struct TensorIterator { void run() {} };
struct TensorIteratorConfig {
  TensorIteratorConfig& add_output(const Tensor& t) { return *this; }
  TensorIteratorConfig& check_all_same_dtype(bool check) { return *this; }
  TensorIteratorConfig& resize_outputs(bool resize) { return *this; }
  TensorIterator build() { return TensorIterator(); }                  // :8
};
struct GraphBuilder { int build() { return 0; } };                     // :10
} // namespace at
"""
USER_CPP = """\
#include "Config.h"
#define NULLARY_CONFIG()                    \\
  TensorIteratorConfig()                    \\
    .check_all_same_dtype(false)            \\
  /* a comment inside the body */           \\
    .resize_outputs(false)
#define CHECKED(flag) TensorIteratorConfig().check_all_same_dtype(flag)
#define TWICE(x) (x + x)
namespace at {
namespace native {
void nullary(const Tensor& out) {
  auto iter = NULLARY_CONFIG()
      .add_output(out)
      .build();                                                        // :14 written at :12
}
void checked(const Tensor& out) {
  auto iter = CHECKED(true).add_output(out).build();                   // :17
}
int sum() {
  return TWICE(1).build();                                             // :20
}
void before(const Tensor& out) {
  auto iter = LATER().build();                                         // :23
}
} // namespace native
} // namespace at
#define LATER() TensorIteratorConfig()
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("macro_chains"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Config.h": CONFIG_H,
        N + "User.cpp": USER_CPP})


def _builds() -> list[tuple[int, str]]:
    f = cxx.extract(USER_CPP.encode(), N + "User.cpp")
    return [(c.line, c.callee) for c in f.calls if c.callee_name == "build"]


def test_the_callee_is_written_with_the_macro_use_expanded():
    assert _builds() == [
        (12, "TensorIteratorConfig().check_all_same_dtype(false).resize_outputs(false).add_output(out).build"),
        (17, "TensorIteratorConfig().check_all_same_dtype(true).add_output(out).build"),
        # an expansion that is no chain of calls, and a macro defined only after the use, stay as written
        (20, "TWICE(1).build"),
        (23, "LATER().build")]


def test_a_macro_rooted_chain_resolves_to_the_member_of_the_class_made_in_place(db: Path):
    with sqlite3.connect(db) as conn:
        got = conn.execute(
            "SELECT s.name, e.how, d.name || ':' || d.line FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE e.kind = 'calls' AND e.target LIKE '%.build' "
            "AND s.name IN ('at::native::nullary', 'at::native::checked') ORDER BY s.name").fetchall()
    # every step returns TensorIteratorConfig& (Config.h:5-7), whose build is Config.h:8, not GraphBuilder's (:10)
    assert got == [("at::native::checked", "receiver-type", "at::TensorIteratorConfig::build:8"),
                   ("at::native::nullary", "receiver-type", "at::TensorIteratorConfig::build:8")]
