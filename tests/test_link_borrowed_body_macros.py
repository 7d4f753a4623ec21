"""A function body's use of another file's macro that calls one of its parameters: 2.6.0
aten/src/ATen/cuda/cub.cuh:38 defines `CUB_WRAPPER(func, ...)`, whose body calls `func(nullptr,
temp_storage_bytes, __VA_ARGS__)` twice, and cuda/cub-RadixSortPairs.cu:34 (which includes cub.cuh through
cub-RadixSortPairs.cuh) writes `CUB_WRAPPER(NO_ROCM(at_cuda_detail)::cub::DeviceRadixSort::SortPairsDescending,
...)`, NO_ROCM being another macro of cub.cuh (:48/:51). Extraction of one file sees a call of CUB_WRAPPER; the
build's second pass (indexer/shared_macros.py) extracts the file again with the #defines its includes reach, and
the expansion's call is the function's, at the use's line: cub's. A file that does not include the #define, or
defines a macro of the name itself, is not extracted again for it. Expected lines are the comments' `:N`.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tg_index.indexer.build import build

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: sort_thing(Tensor self) -> Tensor
  dispatch:
    CUDA: sort_thing_cuda
"""
WRAP_H = """\
#pragma once
#define WRAP(func, ...) do {                  \\
  int bytes = 0;                              \\
  func(nullptr, bytes, __VA_ARGS__);          \\
  func(bytes, bytes, __VA_ARGS__);            \\
} while (false)
#define PICK(x) x
namespace vendor_ns {
inline int helper() { return 0; }                                             // :9
}
"""
SORT_CU = """\
#include <ATen/cuda/wrap.cuh>
namespace at::native {
void sort_impl(int* keys, int n) {
  WRAP(PICK(vendor_ns)::cub::DeviceRadixSort::SortPairs,                      // :4
       keys, n);
}
Tensor sort_thing_cuda(const Tensor& self) {
  sort_impl(nullptr, 4);                                                      // :8
  return self;
}
}
"""
OTHER_CU = """\
namespace at::native {
void unrelated(int* keys) {
  WRAP(cub::DeviceScan::InclusiveSum, keys);                                  // :3, no #include of wrap.cuh
}
}
"""
OWN_CU = """\
#include <ATen/cuda/wrap.cuh>
#define WRAP(func, ...) func(__VA_ARGS__)
namespace at::native {
void own(int* keys) {
  WRAP(cub::DeviceReduce::Sum, keys);                                         // :5, the file's own WRAP
}
}
"""
FILES = {N + "native_functions.yaml": YAML, "aten/src/ATen/cuda/wrap.cuh": WRAP_H, N + "cuda/Sort.cu": SORT_CU,
         N + "cuda/Other.cu": OTHER_CU, N + "cuda/Own.cu": OWN_CU}


def _library(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT e.file, e.line, e.target, e.detail FROM edges e WHERE e.kind = 'calls-library' "
                            "ORDER BY e.file, e.line, e.target").fetchall()


def _uses(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT file, name, line, expanded IS NOT NULL FROM definition_macro_uses "
                            "ORDER BY file, line").fetchall()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("borrowed"), FILES)


def test_the_expansion_s_call_of_the_parameter_is_the_function_s(built):
    assert _library(built) == [
        (N + "cuda/Own.cu", 5, "cub::DeviceReduce::Sum", "cub"),  # the first pass: the file's own WRAP
        (N + "cuda/Sort.cu", 4, "vendor_ns::cub::DeviceRadixSort::SortPairs", "cub")]
    # recorded as expanded with the other file's #defines; Other.cu reaches no WRAP, Own.cu has its own
    assert _uses(built) == [(N + "cuda/Sort.cu", "WRAP", 4, 1)]


def test_the_kernel_s_chain_reaches_the_library_call(built):
    from tg_index.queries.api import Index

    [answer] = Index.open(built).kernels_for("sort_thing")
    [cuda] = answer.keys
    assert [(str(s.kind), s.name, s.file, s.line) for s in cuda.chain] == [
        ("call", "at::native::sort_impl", N + "cuda/Sort.cu", 3),
        ("library", "vendor_ns::cub::DeviceRadixSort::SortPairs", N + "cuda/Sort.cu", 4)]


def test_an_update_expands_again_only_when_the_defines_change(tmp_path, monkeypatch):
    from tg_index.indexer import shared_macros

    again: list[list[str]] = []
    expand = shared_macros.expand
    monkeypatch.setattr(shared_macros, "expand", lambda *a: again.append(expand(*a)) or again[-1])
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    (root / N / "cuda/Other.cu").write_text(OTHER_CU + "\n")  # another file changed: Sort.cu is not read again
    build(root, db, jobs=1)
    assert again == [[N + "cuda/Sort.cu"], []]
    assert _library(db)[1][2] == "vendor_ns::cub::DeviceRadixSort::SortPairs"
    with sqlite3.connect(db) as conn:
        first = conn.execute("SELECT expanded FROM definition_macro_uses").fetchall()
    (root / "aten/src/ATen/cuda/wrap.cuh").write_text(WRAP_H.replace("#define PICK(x) x", "#define PICK(x) ::x"))
    build(root, db, jobs=1)
    assert again[-1] == [N + "cuda/Sort.cu"]  # kept, extracted again with the new #defines
    assert _library(db)[1][2] == "::vendor_ns::cub::DeviceRadixSort::SortPairs"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT expanded FROM definition_macro_uses").fetchall() != first
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    cold = fresh / "cold.db"
    build(fresh, cold, jobs=1)
    assert _library(cold) == _library(db) and _uses(cold) == _uses(db)


MID_H = "#pragma once\n"
INCLUDING_CU = "#include <ATen/cuda/mid.cuh>\n" + OTHER_CU  # WRAP at :4, reached once mid.cuh includes wrap.cuh


def test_an_update_looks_at_the_files_it_extracted_unless_a_define_or_include_of_theirs_changed(tmp_path, monkeypatch):
    # The stage of an update looks only at the files extracted again when their #defines and #includes are as
    # before (every other file's expansion then reads what it read): build._macro_files.
    from tg_index.indexer import shared_macros

    looked: list[frozenset[str] | None] = []
    expand = shared_macros.expand
    monkeypatch.setattr(shared_macros, "expand", lambda *a: looked.append(a[5]) or expand(*a))
    root = tmp_path / "tree"
    db = built_tree(root, {**FILES, "aten/src/ATen/cuda/mid.cuh": MID_H, N + "cuda/Other.cu": INCLUDING_CU})
    assert looked == [None]  # a fresh build: every file
    before = _library(db)
    (root / N / "cuda/Own.cu").write_text(OWN_CU + "// edited\n")
    build(root, db, jobs=1)
    assert looked[-1] == frozenset({N + "cuda/Own.cu"})
    assert _library(db) == before
    # mid.cuh now includes wrap.cuh: Other.cu, not extracted again by the plan, reaches WRAP through it
    (root / "aten/src/ATen/cuda/mid.cuh").write_text(MID_H + "#include <ATen/cuda/wrap.cuh>\n")
    build(root, db, jobs=1)
    assert looked[-1] is None
    assert (N + "cuda/Other.cu", 4, "cub::DeviceScan::InclusiveSum", "cub") in _library(db)
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    cold = fresh / "cold.db"
    build(fresh, cold, jobs=1)
    assert _library(cold) == _library(db) and _uses(cold) == _uses(db)


def test_an_update_of_the_file_resolves_its_vendor_call_as_a_cold_build_does(tmp_path):
    # vendor_ns::cub::X is cub's because vendor_ns is a namespace of the checkout (wrap.cuh's helper) with no cub
    # in it (Resolver._undeclared_tail): an update, which reads the definitions of the names it looks up only,
    # takes the scopes of every definition from the last link (meta link_scopes)
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    (root / N / "cuda/Sort.cu").write_text(SORT_CU.replace("sort_impl(nullptr, 4);", "sort_impl(nullptr, 8);"))
    build(root, db, jobs=1)
    assert (N + "cuda/Sort.cu", 4, "vendor_ns::cub::DeviceRadixSort::SortPairs", "cub") in _library(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone() == ("incremental",)


CALLING_CU = """\
namespace at::native {
void sort_impl(int* keys, int n) {
  at::native::vendor_ns::cub::DeviceRadixSort::SortPairs(keys, n);             // :3
}
}
"""
HELPER_CPP = """\
namespace at::native {
int helper() { return 0; }
}
"""


def _call(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT e.kind, e.how, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
                            "WHERE e.file = ? AND e.line = 3", (N + "cuda/Calling.cu",)).fetchall()


def test_a_scope_another_file_adds_resolves_the_calls_that_name_it_again(tmp_path):
    # Helper.cpp's edit adds namespace at::native::vendor_ns, which Calling.cu's call names: the call is then cub's
    # (Resolver._undeclared_tail: the checkout defines nothing in at::native::vendor_ns::cub), not one outside the
    # checkout. Calling.cu calls no name whose definition changed; the update resolves it again because its text
    # names a scope whose entry in the scope map changed. (A new first component of a namespace is a checkout-wide
    # input: the graph would be linked whole.)
    root = tmp_path / "tree"
    db = built_tree(root, {N + "native_functions.yaml": YAML, N + "cuda/Calling.cu": CALLING_CU,
                           N + "Helper.cpp": HELPER_CPP})
    before = _call(db)
    (root / N / "Helper.cpp").write_text(HELPER_CPP + "namespace at::native::vendor_ns {\nint helper() { return 1; }\n}\n")
    build(root, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone() == ("incremental",)
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    cold = fresh / "cold.db"
    build(fresh, cold, jobs=1)
    assert _call(db) == _call(cold) != before
