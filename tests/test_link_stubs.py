"""DispatchStubs by their qualified names (link/stubs.py): two stubs of one name in two namespaces are
two nodes, registrations and calls find theirs by C++ lookup from where they are written, and a function
of the stub's name nearer the caller hides the stub. The fixture is written here; each expected row is
read in it (line numbers are the fixture's)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.link.stubs import StubNames
from tg_index.queries.api import Index
from tg_index.queries.render import kernels_for_data

from .conftest import built_tree

N = "aten/src/ATen/native/"
COPY_H = """\
namespace at::native {
using copy_fn = void (*)(int&);
DECLARE_DISPATCH(copy_fn, copy_stub);
}
"""
BLAS_H = """\
namespace at::native {
namespace blas {
using blas_copy_fn = void (*)(int);
DECLARE_DISPATCH(blas_copy_fn, copy_stub);
}
}
"""
COPY_CPP = """\
#include "Copy.h"
#include "Blas.h"
namespace at::native {
DEFINE_DISPATCH(copy_stub);
void copy_impl(int& x) {
  copy_stub(kCPU, x);
}
namespace blas {
DEFINE_DISPATCH(copy_stub);
void blas_copy(int n) {
  copy_stub(kCPU, n);
}
}
void blas_entry(int n) { blas::blas_copy(n); }
}
"""
KERNEL_CPP = """\
#include "../Copy.h"
#include "../Blas.h"
namespace at::native {
namespace {
void copy_kernel(int& x) {}
void blas_copy_impl(int n) {}
void copy_stub(int& x) {}
void pad(int& x) {
  copy_stub(x);
}
}
REGISTER_DISPATCH(copy_stub, &copy_kernel);
REGISTER_DISPATCH(blas::copy_stub, &blas_copy_impl);
}
"""
YAML = """\
- func: copy_impl(Tensor self) -> Tensor
  dispatch:
    CPU: copy_impl
- func: blas_entry(Tensor self) -> Tensor
  dispatch:
    CPU: blas_entry
- func: pad(Tensor self) -> Tensor
  dispatch:
    CPU: pad
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("stubs"), {
        N + "Copy.h": COPY_H, N + "Blas.h": BLAS_H, N + "Copy.cpp": COPY_CPP, N + "cpu/CopyKernel.cpp": KERNEL_CPP,
        N + "native_functions.yaml": YAML})


def _rows(db: Path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


def test_two_stubs_of_one_name_are_two_nodes(db: Path):
    assert _rows(db, "SELECT name, detail, file, line FROM nodes WHERE kind = 'stub' ORDER BY id") == [
        ("blas::copy_stub", "at::native::blas::copy_stub", f"{N}Blas.h", 4),
        ("native::copy_stub", "at::native::copy_stub", f"{N}Copy.h", 3)]
    assert _rows(db, "SELECT scope, kind, line FROM stubs WHERE file = ? ORDER BY id", f"{N}Copy.cpp") == [
        ("at::native", "define", 4), ("at::native::blas", "define", 9)]


def test_sites_name_their_own_stub(db: Path):
    got = _rows(db, "SELECT s.name, e.kind, e.file, e.line, e.detail, d.name FROM edges e JOIN nodes s ON s.id = e.src "
                    "LEFT JOIN nodes d ON d.id = e.dst WHERE s.kind = 'stub' ORDER BY s.id, e.id")
    kernel, blas = f"{N}cpu/CopyKernel.cpp", "at::native::(anonymous)::blas_copy_impl"
    assert got == [  # cpu/CopyKernel.cpp's rows come first (its file id); the built-in REGISTER_DISPATCH: 3 arches
        ("blas::copy_stub", "registers", kernel, 13, "CPU DEFAULT", blas),
        ("blas::copy_stub", "registers", kernel, 13, "CPU AVX2", blas),
        ("blas::copy_stub", "registers", kernel, 13, "CPU AVX512", None),
        ("blas::copy_stub", "defined-at", f"{N}Copy.cpp", 9, None, None),
        ("blas::copy_stub", "declared-at", f"{N}Blas.h", 4, None, None),
        ("native::copy_stub", "registers", kernel, 12, "CPU DEFAULT", "at::native::(anonymous)::copy_kernel"),
        ("native::copy_stub", "registers", kernel, 12, "CPU AVX2", "at::native::(anonymous)::copy_kernel"),
        ("native::copy_stub", "registers", kernel, 12, "CPU AVX512", None),
        ("native::copy_stub", "defined-at", f"{N}Copy.cpp", 4, None, None),
        ("native::copy_stub", "declared-at", f"{N}Copy.h", 3, None, None)]


def test_calls_find_the_stub_of_their_scope(db: Path):
    got = _rows(db, "SELECT s.name, e.line, d.name FROM edges e JOIN nodes s ON s.id = e.src JOIN nodes d "
                    "ON d.id = e.dst WHERE e.kind = 'uses-stub' ORDER BY e.id")
    assert got == [("at::native::copy_impl", 6, "native::copy_stub"),
                   ("at::native::blas::blas_copy", 11, "blas::copy_stub")]


def test_a_function_nearer_the_caller_hides_the_stub(db: Path):
    got = _rows(db, "SELECT e.kind, e.how, d.name FROM edges e JOIN nodes s ON s.id = e.src LEFT JOIN nodes d "
                    "ON d.id = e.dst WHERE s.name = 'at::native::(anonymous)::pad'")
    assert got == [("calls", "same-namespace", "at::native::(anonymous)::copy_stub")]


def test_chains_and_ops_for_follow_the_right_stub(db: Path):
    ix = Index.open(db)
    chain = ix.kernels_for("blas_entry")[0].keys[0].chain
    assert [(s.kind, s.name, s.line, s.detail) for s in chain if s.kind in ("stub", "declared", "registered")] == [
        ("stub", "blas::copy_stub", 11, None), ("declared", "blas::copy_stub", 4, None),
        ("registered", "blas_copy_impl", 13, "DEFAULT"), ("registered", "blas_copy_impl", 13, "AVX2"),
        ("registered", "nullptr", 13, "AVX512")]
    # the walk's tree: the stub's steps lie below the call of blas_copy (the chain's first step), the
    # registered kernel's definition too
    assert [(s.kind, s.depth, s.parent) for s in chain][:3] == [("call", 0, None), ("stub", 1, 0), ("declared", 1, 0)]
    assert all(s.parent is None or (s.parent < i and chain[s.parent].depth == s.depth - 1) for i, s in enumerate(chain))
    steps = kernels_for_data(ix.kernels_for("blas_entry")[0])["keys"][0]["chain"]
    assert "parent" not in steps[0] and steps[1]["parent"] == 0  # JSON: parent when the step has one
    assert [(r.op, r.key) for r in ix.ops_for("blas::copy_stub")] == [("blas_entry", "CPU")]
    assert sorted(r.op for r in ix.ops_for("copy_stub")) == ["blas_entry", "copy_impl"]


def test_lookup_rules():
    names = StubNames([("x_stub", "declare", "at::native"), ("x_stub", "declare", "at::native::inner"),
                       ("y_stub", "declare", "at::native")], frozenset())
    assert names.lookup("x_stub", ["at::native::inner", "at::native", "at", ""]) == "at::native::inner::x_stub"
    assert names.lookup("inner::x_stub", ["at::native", "at", ""]) == "at::native::inner::x_stub"
    assert names.lookup("::at::native::x_stub", ["at::native::inner", ""]) == "at::native::x_stub"
    assert names.lookup("x_stub", ["other", ""], ("at::native",)) == "at::native::x_stub"
    assert names.called("y_stub", ["at::sparse", "at", ""], (), lambda n: []) == "at::native::y_stub"
    assert names.called("x_stub", ["at::sparse", "at", ""], (), lambda n: []) is None  # two: no guess
    assert names.called("y_stub", ["at::native", "at", ""], (), lambda n: [("at::native", True)]) is None
    assert names.called("y_stub", ["at::native", "at", ""], (), lambda n: [("at", False)]) == "at::native::y_stub"
    assert names.at_site("y_stub", "c10") == "at::native::y_stub"
    assert names.at_site("z_stub", "at::native") == "at::native::z_stub"
    names.declare_all(["at::native::z_stub"])  # a stub only a registration names: calls find it too
    assert "z_stub" in names.bare and names.called("z_stub", ["at::native", "at", ""], (), lambda n: []) \
        == "at::native::z_stub"
    assert names.shown() == {"at::native::x_stub": "native::x_stub", "at::native::inner::x_stub": "inner::x_stub",
                             "at::native::y_stub": "y_stub", "at::native::z_stub": "z_stub"}
