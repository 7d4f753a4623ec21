"""Dtype sets written through a wrapper macro, and the #define that writes them (indexer/cxx/dtypes.py,
indexer/link/dtype_macros.py).

2.6.0 cuda/Loss.cu:159 defines `AT_DISPATCH_NLL_LOSS_INDEX_TYPES(TYPE, NAME, ...)` as an AT_DISPATCH_SWITCH of
two `AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Byte / Long, index_t, __VA_ARGS__)` cases, used at :308;
SparseCsrTensorUtils.h:140 defines AT_DISPATCH_SPARSE_VALUE_TYPES, a switch of
`AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND4(kComplexHalf, kHalf, kBool, kBFloat16, ...)`, used in other files;
nested/cuda/NestedTensorTransformerFunctions.cu:1471 defines a case of its own (DISPATCH_DENSE_TO_JAGGED_CASE)
that the switch at :1504 writes, beside a commented-out one. The fixtures below are of the same shapes; expected
lines are the comments' `:N`.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tg_index.indexer import cxx
from tg_index.indexer.build import build

from .conftest import built_tree

N = "aten/src/ATen/native/"

LOCAL_CU = b"""\
#define AT_DISPATCH_MY_INDEX_TYPES(TYPE, NAME, ...)                              \\
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                 \\
  AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Byte, index_t, __VA_ARGS__)    \\
  AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Long, index_t, __VA_ARGS__))
#define MY_CASE(TYPE) AT_DISPATCH_CASE(TYPE, [&] { work<scalar_t>(); })
namespace at::native {
void loss_kernel(const Tensor& t) {
  AT_DISPATCH_MY_INDEX_TYPES(t.scalar_type(), "loss_index", [&] {               // :8
    work<index_t>();
  });
  AT_DISPATCH_SWITCH(t.scalar_type(), "loss_values",                              // :11
      MY_CASE(at::ScalarType::Half)
      // MY_CASE(at::ScalarType::Int)
      AT_DISPATCH_CASE_FLOATING_TYPES_AND2(kLong, kBFloat16, [&] { work<scalar_t>(); })
      AT_DISPATCH_CASE_QINT(at::kQInt8, at::qint8, [&] { work<scalar_t>(); }));
}
}
"""


def test_a_switch_s_cases_and_a_local_wrapper_s_make_the_set():
    f = cxx.extract(LOCAL_CU, N + "cuda/Loss.cu")
    assert [(d.macro, d.dtypes, d.name, d.line, d.via) for d in f.dtype_dispatches] == [
        ("AT_DISPATCH_MY_INDEX_TYPES", ("at::ScalarType::Byte", "at::ScalarType::Long"), "loss_index", 8,
         "AT_DISPATCH_SWITCH"),
        # MY_CASE, a case of the file's own, is read in the switch (its commented-out use is not) and is no
        # dispatch of its own; a set case adds its first n arguments (_AND2); AT_DISPATCH_CASE_QINT is one type
        ("AT_DISPATCH_SWITCH", ("at::ScalarType::Half", "FLOATING_TYPES", "kLong", "kBFloat16", "at::kQInt8"),
         "loss_values", 11, None)]


YAML = """\
- func: loss_thing(Tensor self) -> Tensor
  dispatch:
    CPU: loss_thing_cpu
"""
DISPATCH_H = """\
#pragma once
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...) switch (TYPE) { __VA_ARGS__ }
#define AT_DISPATCH_CASE_ALL_TYPES(...) AT_DISPATCH_CASE(kInt, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...) \\
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Int, index_t, __VA_ARGS__))
"""
UTILS_H = """\
#pragma once
#include <ATen/Dispatch.h>
#define AT_DISPATCH_MY_VALUE_TYPES(TYPE, NAME, ...) \\
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND2(kHalf, kBool, __VA_ARGS__))
#define AT_DISPATCH_MY_LAYOUTS(LAYOUT, NAME, ...) \\
  [&] { switch (LAYOUT) { case kSparseCsr: return __VA_ARGS__(); default: return; } }()
"""
THING_CPP = """\
#include <ATen/Dispatch.h>
#include <ATen/MyUtils.h>
#define AT_DISPATCH_MY_INDEX_TYPES(TYPE, NAME, ...)                              \\
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                 \\
  AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Byte, index_t, __VA_ARGS__))
namespace at::native {
Tensor loss_thing_cpu(const Tensor& self) {
  AT_DISPATCH_ALL_TYPES(self.scalar_type(), "all", [&] {});                     // :8, the dispatch header's
  AT_DISPATCH_INDEX_TYPES(self.scalar_type(), "index", [&] {});                 // :9, the dispatch header's
  AT_DISPATCH_MY_VALUE_TYPES(self.scalar_type(), "values", [&] {});             // :10, MyUtils.h:3
  AT_DISPATCH_MY_LAYOUTS(self.layout(), "layouts", [&] {});                     // :11, MyUtils.h:5
  AT_DISPATCH_MY_INDEX_TYPES(self.scalar_type(), "mine", [&] {});               // :12, :3
  return self;
}
}
"""
FILES = {N + "native_functions.yaml": YAML, "aten/src/ATen/Dispatch.h": DISPATCH_H,
         "aten/src/ATen/MyUtils.h": UTILS_H, N + "cpu/Thing.cpp": THING_CPP}


def _dtype_edges(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT kind, file, line, how, target, detail FROM edges WHERE kind IN ('dtypes', "
                            "'defined-at') AND src IN (SELECT id FROM nodes WHERE name LIKE '%loss_thing_cpu') "
                            "ORDER BY id").fetchall()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("dtype_macros"), FILES)


WRITES = "the #define of the macro that writes the dtype set"
EXPECTED = [
    ("dtypes", N + "cpu/Thing.cpp", 8, "exact", "all", "AT_DISPATCH_ALL_TYPES(ALL_TYPES)"),
    ("dtypes", N + "cpu/Thing.cpp", 9, "exact", "index", "AT_DISPATCH_INDEX_TYPES(INDEX_TYPES)"),
    # a header's wrapper: its set read from its #define's body
    ("dtypes", N + "cpu/Thing.cpp", 10, "exact", "values", "AT_DISPATCH_MY_VALUE_TYPES(ALL_TYPES, kHalf, kBool)"),
    ("defined-at", "aten/src/ATen/MyUtils.h", 3, "macro", "AT_DISPATCH_MY_VALUE_TYPES", WRITES),
    # dispatching over no dtype: what its name says stays, its #define is shown
    ("dtypes", N + "cpu/Thing.cpp", 11, "exact", "layouts", "AT_DISPATCH_MY_LAYOUTS(MY_LAYOUTS)"),
    ("defined-at", "aten/src/ATen/MyUtils.h", 5, "macro", "AT_DISPATCH_MY_LAYOUTS", WRITES),
    # the file's own wrapper (extraction expanded it)
    ("dtypes", N + "cpu/Thing.cpp", 12, "exact", "mine", "AT_DISPATCH_MY_INDEX_TYPES(at::ScalarType::Byte)"),
    ("defined-at", N + "cpu/Thing.cpp", 3, "macro", "AT_DISPATCH_MY_INDEX_TYPES", WRITES)]


def test_a_wrapper_s_dtypes_edge_is_followed_by_its_define(built):
    assert _dtype_edges(built) == EXPECTED


def test_the_chain_shows_the_define_below_the_dtype_set(built):
    from tg_index.queries.api import Index

    [answer] = Index.open(built).kernels_for("loss_thing")
    [cpu] = answer.keys
    assert [(str(s.kind), s.name, s.file, s.line) for s in cpu.chain if str(s.kind) in ("dtypes", "defined")] == [
        ("dtypes", "all", N + "cpu/Thing.cpp", 8),
        ("dtypes", "index", N + "cpu/Thing.cpp", 9),
        ("dtypes", "values", N + "cpu/Thing.cpp", 10),
        ("defined", "AT_DISPATCH_MY_VALUE_TYPES", "aten/src/ATen/MyUtils.h", 3),
        ("dtypes", "layouts", N + "cpu/Thing.cpp", 11),
        ("defined", "AT_DISPATCH_MY_LAYOUTS", "aten/src/ATen/MyUtils.h", 5),
        ("dtypes", "mine", N + "cpu/Thing.cpp", 12),
        ("defined", "AT_DISPATCH_MY_INDEX_TYPES", N + "cpu/Thing.cpp", 3)]


def test_an_update_that_edits_a_header_s_wrapper_gives_what_a_cold_build_does(tmp_path):
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    (root / "aten/src/ATen/MyUtils.h").write_text(
        UTILS_H.replace("#include <ATen/Dispatch.h>\n", "#include <ATen/Dispatch.h>\n\n").replace("kBool", "kBFloat16"))
    build(root, db, jobs=1)
    got = _dtype_edges(db)
    assert got[2:4] == [
        ("dtypes", N + "cpu/Thing.cpp", 10, "exact", "values", "AT_DISPATCH_MY_VALUE_TYPES(ALL_TYPES, kHalf, kBFloat16)"),
        ("defined-at", "aten/src/ATen/MyUtils.h", 4, "macro", "AT_DISPATCH_MY_VALUE_TYPES", WRITES)]
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    cold = fresh / "cold.db"
    build(fresh, cold, jobs=1)
    assert _dtype_edges(cold) == got


def test_an_update_of_the_using_file_replaces_its_define_edges(tmp_path):
    # the defined-at edge of a header's wrapper is written at the header's line: an incremental link replaces it
    # with the other edges of the function it starts at (incremental._write), and a function that goes takes it along
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    thing = root / N / "cpu/Thing.cpp"
    thing.write_text(THING_CPP.replace('"values"', '"value_set"'))
    build(root, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone() == ("incremental",)
    got = _dtype_edges(db)
    assert got == [e if e[4] != "values" else (*e[:4], "value_set", e[5]) for e in EXPECTED]
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    build(fresh, fresh / "cold.db", jobs=1)
    assert _dtype_edges(fresh / "cold.db") == got
    thing.write_text(THING_CPP.replace("loss_thing_cpu", "loss_thing_cpu_renamed"))
    build(root, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone() == ("incremental",)
        assert conn.execute("SELECT count(*) FROM edges WHERE kind = 'defined-at' AND src NOT IN "
                            "(SELECT id FROM nodes)").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM edges WHERE kind = 'defined-at'").fetchone() == (3,)
