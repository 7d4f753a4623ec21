"""Code under an #if that the checkout's own #defines make false in every build is not followed
(indexer/guards.py).

The fixture's kernel has one stretch under each kind of guard: `#if USE_FAST_PATH()` and its `#else`
(jit_macros.h defines it `true`, as 2.6.0 aten/src/ATen/jit_macros.h:6 does AT_USE_JITERATOR()), `#if KNOB`
(a default under `#ifndef KNOB`, which a build may override), `#if FLAVOUR` (defined differently in two files),
`#if VERSION_NUM == 3` / `#elif VERSION_NUM == 2` (defined once as 2), `#if 0`, and `#ifdef USE_ROCM` (a build
flag, which a CUDA build does not set), and `#if defined(C10_MOBILE) && ...` (an Android or iOS build's, which
has no GPU backend). Every path function ends in a vendor call, so each is device work a CUDA
chain would show."""

from __future__ import annotations

import sqlite3

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.cxx.conditions import Env, evaluate, may_be_false, value_of
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: thing(Tensor self) -> Tensor
  dispatch:
    CUDA: thing_cuda
- func: other(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: other_composite
"""
JIT_MACROS_H = """\
#pragma once
#define USE_FAST_PATH() true
#define VERSION_NUM 2
"""
KNOBS_H = """\
#pragma once
#ifndef KNOB
#define KNOB 0
#endif
#define FLAVOUR 1
"""
OTHER_KNOBS_H = """\
#pragma once
#define FLAVOUR 2
"""
PATHS_H = """\
#pragma once
namespace at { namespace native {
inline void fast_path(int n) { cublasSgemm(n); }
inline void slow_path(int n) { cublasDgemm(n); }
inline void knob_path(int n) { cublasHgemm(n); }
inline void flavour_path(int n) { cublasCgemm(n); }
inline void v3_path(int n) { cublasZgemm(n); }
inline void v2_path(int n) { cublasSgemv(n); }
inline void never_path(int n) { cublasDgemv(n); }
inline void rocm_path(int n) { cublasCgemv(n); }
inline void mobile_path(int n) { cublasZgemv(n); }
} }
"""
THING_CU = """\
#include <ATen/jit_macros.h>
#include <ATen/Knobs.h>
#include <ATen/native/Paths.h>
namespace at { namespace native {
Tensor thing_cuda(const Tensor& self) {
#if USE_FAST_PATH()
  fast_path(1);
#else
  slow_path(2);
#endif
#if KNOB
  knob_path(3);
#endif
#if FLAVOUR
  flavour_path(4);
#endif
#if VERSION_NUM == 3
  v3_path(5);
#elif VERSION_NUM == 2
  v2_path(6);
#endif
#if 0
  never_path(7);
#endif
#ifdef USE_ROCM
  rocm_path(8);
#endif
#if defined(C10_MOBILE) && defined(USE_XNNPACK)
  mobile_path(9);
#endif
  return self;
}
Tensor other_composite(const Tensor& self) {
  fast_path(1);
#if 0 && USE_FAST_PATH()
  never_path(2);
#endif
#ifdef USE_ROCM
  rocm_path(3);
#endif
#if defined(C10_MOBILE)
  mobile_path(4);
#endif
  return self;
}
} }
"""
FILES = {N + "native_functions.yaml": YAML, "aten/src/ATen/jit_macros.h": JIT_MACROS_H,
         "aten/src/ATen/Knobs.h": KNOBS_H, "aten/src/ATen/OtherKnobs.h": OTHER_KNOBS_H,
         N + "Paths.h": PATHS_H, N + "cuda/Thing.cu": THING_CU}


def _called(answer_key) -> list[str]:
    return [s.name.rsplit("::", 1)[-1] for s in answer_key.chain if s.kind == "call"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("guards"), FILES)


def test_a_stretch_the_checkouts_defines_make_false_is_not_followed(db):
    [answer] = Index.open(db).kernels_for("thing")
    [cuda] = answer.keys
    assert _called(cuda) == ["fast_path", "knob_path", "flavour_path", "v2_path"]
    [cut] = [t for t in cuda.truncated if "#defines" in t.what]
    assert cut.names == (
        "Thing.cu:8 #if !(USE_FAST_PATH()): USE_FAST_PATH() is `true`, jit_macros.h:2 -> slow_path",
        "Thing.cu:17 #if VERSION_NUM == 3: VERSION_NUM is `2`, jit_macros.h:3 -> v3_path",
        "Thing.cu:22 #if 0: false -> never_path")
    # `#ifdef USE_ROCM` (:25): a CUDA key's chain is a CUDA build's, which does not compile it; nor the stretch
    # only a mobile build compiles (:28)
    [rocm] = [t for t in cuda.truncated if "never run on CUDA" in t.what]
    assert rocm.names == (
        "Thing.cu:25 #if defined(USE_ROCM): only a ROCm build (USE_ROCM) compiles it: rocm_path",
        "Thing.cu:28 #if defined(C10_MOBILE) && defined(USE_XNNPACK): only an Android or iOS build (C10_MOBILE) "
        "compiles it: mobile_path")


def test_a_hip_walk_follows_the_rocm_build(db):
    ix = Index.open(db)
    [(node,)] = ix.conn.execute("SELECT id FROM nodes WHERE name = 'at::native::thing_cuda'").fetchall()
    steps, _cuts = ix.linker().chain_from(node, "HIP", 8, True)
    assert [s.name.rsplit("::", 1)[-1] for s in steps if s.kind == "call"] == \
        ["fast_path", "knob_path", "flavour_path", "v2_path", "rocm_path"]  # not mobile_path: a ROCm build's neither


def test_a_composite_walk_leaves_it_out_too(db):
    """A composite kernel runs in every build of a CPU or GPU key (a ROCm one's included: rocm_path), none of
    which is a mobile build (vocab.BASE_BUILD): what only those compile is named, not followed."""
    [answer] = Index.open(db).kernels_for("other")
    [composite] = answer.keys
    assert _called(composite) == ["fast_path", "rocm_path"]
    assert {t.what: t.names for t in composite.truncated} == {
        "calls under an #if that the checkout's own #defines make false in every build, not followed": (
            "Thing.cu:35 #if 0 && USE_FAST_PATH(): USE_FAST_PATH() is `true`, jit_macros.h:2 -> never_path",),
        "calls in branches that never run in a desktop or server build, not followed": (
            "Thing.cu:41 #if defined(C10_MOBILE): only an Android or iOS build (C10_MOBILE) compiles it: mobile_path",)}


def test_the_rows_the_build_writes(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT first_line, last_line, line, not_on, condition FROM device_branches "
                            "WHERE branch = '#if' ORDER BY first_line").fetchall()
        guards = dict(conn.execute("SELECT name, guard FROM macros WHERE name IN ('KNOB', 'FLAVOUR', 'VERSION_NUM')"))
    # a stretch runs from the line after its directive to the next directive's line; `#ifdef USE_ROCM` (Thing.cu:25)
    # is a build's choice, and a CUDA build's is not to compile it (link/configurations.py builds_without); neither
    # a CUDA nor a ROCm build is a mobile one (Thing.cu:28)
    assert rows == [(7, 8, 6, "", "USE_FAST_PATH()"), (9, 10, 8, "never compiled", "!(USE_FAST_PATH())"),
                    (12, 13, 11, "", "KNOB"), (15, 16, 14, "", "FLAVOUR"),
                    (18, 19, 17, "never compiled", "VERSION_NUM == 3"),
                    (20, 21, 19, "", "!(VERSION_NUM == 3) && VERSION_NUM == 2"), (23, 24, 22, "never compiled", "0"),
                    (26, 27, 25, "CUDA", "defined(USE_ROCM)"),
                    (29, 30, 28, "CPU,CUDA,HIP", "defined(C10_MOBILE) && defined(USE_XNNPACK)"),
                    (36, 37, 35, "never compiled", "0 && USE_FAST_PATH()"), (39, 40, 38, "CUDA", "defined(USE_ROCM)"),
                    (42, 43, 41, "CPU,CUDA,HIP", "defined(C10_MOBILE)")]
    assert guards == {"KNOB": "!defined(KNOB)", "FLAVOUR": None, "VERSION_NUM": None}


def test_an_update_decides_again_when_a_define_changes(tmp_path):
    db = built_tree(tmp_path, FILES)
    (tmp_path / "aten/src/ATen/jit_macros.h").write_text(JIT_MACROS_H.replace("true", "false"))
    build(tmp_path, db, jobs=1)
    [answer] = Index.open(db).kernels_for("thing")
    assert _called(answer.keys[0]) == ["slow_path", "knob_path", "flavour_path", "v2_path"]


@pytest.mark.parametrize("expr, value", [
    ("F()", 1), ("!(F())", 0), ("F() && G", None), ("0 && G", 0), ("F() || G", 1), ("N >= 2", 1), ("N == 3", 0),
    ("defined(F)", None), ("!defined(N) && N", None), ("H(1)", None), ("__CUDA_ARCH__ >= 800", None)])
def test_an_expression_over_known_values(expr: str, value: int | None):
    known = {("F", True): 1, ("N", False): 2}
    got = evaluate(expr, Env(lookup=lambda name, called: known.get((name, called))))
    assert got == (None if value is None else bool(value))


def test_a_value_is_the_integer_read():
    assert value_of("(N + 1) * 2", Env(lookup=lambda name, called: 4 if name == "N" else None)) == 10


@pytest.mark.parametrize("guard, maybe", [
    ("AT_USE_JITERATOR()", True), ("0", True), ("0 && defined(X)", True), ("!defined(X) && Y", True),
    ("defined(USE_ROCM)", False), ("!defined(USE_ROCM) && !defined(_MSC_VER)", False), ("!(0)", False),
    ("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800", False)])
def test_which_guards_are_written_for_the_build_to_decide(guard: str, maybe: bool):
    assert may_be_false(guard) is maybe


def test_ops_for_does_not_go_up_through_a_stretch_no_build_compiles(db):
    ix = Index.open(db)
    assert [(h.op, h.key) for h in ix.ops_for("at::native::fast_path").hits] == [("other", "CompositeExplicitAutograd"),
                                                                              ("thing", "CUDA")]
    slow = ix.ops_for("at::native::slow_path")
    assert slow.hits == ()
    assert [t.names for t in slow.truncated if "#defines" in t.what] == [
        ("at::native::thing_cuda (Thing.cu:8 #if !(USE_FAST_PATH()): USE_FAST_PATH() is `true`, jit_macros.h:2)",)]


def test_a_guard_that_contradicts_itself_is_never_compiled(tmp_path):
    """2.6.0 vec256/vec256_int.h:963 writes `#ifndef CPU_CAPABILITY_AVX2` inside the file's `#ifdef
    CPU_CAPABILITY_AVX2` (:38): no build compiles the stretch, whatever it defines."""
    files = {N + "native_functions.yaml": YAML, N + "Paths.h": PATHS_H, N + "cuda/Thing.cu": """\
#include <ATen/native/Paths.h>
namespace at { namespace native {
Tensor thing_cuda(const Tensor& self) {
#ifdef CPU_CAPABILITY_AVX2
#ifndef CPU_CAPABILITY_AVX2
  never_path(1);
#else
  fast_path(2);
#endif
#endif
  return self;
}
Tensor other_composite(const Tensor& self) { return self; }
} }
"""}
    db = built_tree(tmp_path, files)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT line, not_on FROM device_branches WHERE branch = '#if' ORDER BY line").fetchall()
    assert rows == [(5, "never compiled")]
    [answer] = Index.open(db).kernels_for("thing")
    assert _called(answer.keys[0]) == ["fast_path"]
    assert [n for t in answer.keys[0].truncated for n in t.names] == [
        "Thing.cu:5 #if defined(CPU_CAPABILITY_AVX2) && !defined(CPU_CAPABILITY_AVX2): it contradicts itself -> "
        "never_path"]
