"""A header every #include of which is written under an #if is compiled only where that condition holds, and its
definitions take the condition as their guard (includes.guard, link/includes.py inclusion_guards): 1.13.1
native/cuda/Loops.cuh:77-81 includes CUDALoops.cuh under `#if !defined(USE_ROCM)` and ROCmLoops.cuh in the #else,
and each defines at::native::gpu_kernel_impl. The call at Loops.cuh:105 is one definition per build configuration,
and a CUDA key's chain follows the CUDA build's (queries/chain.py _other_builds), a HIP key's the ROCm build's.
The fixture below has that shape; the line numbers in the comments are its own."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer.cxx import extract
from tg_index.indexer.link.includes import IncludeGraph
from tg_index.queries.api import Index
from tg_index.queries.chain import Linker
from tg_index.queries.results import StepKind

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: scale(Tensor self) -> Tensor
  dispatch:
    CUDA: scale_cuda
"""
LOOPS_CUH = """\
#pragma once
#if !defined(USE_ROCM)
  #include <ATen/native/cuda/CUDALoops.cuh>
#else
  #include <ATen/native/cuda/ROCmLoops.cuh>
#endif
#ifdef USE_A
#include <ATen/native/cuda/Shared.cuh>
#endif
namespace at { namespace native {
template <typename func_t>
void gpu_kernel(TensorIteratorBase& iter, const func_t& f) {                   // :12
  gpu_kernel_impl(iter, f);                                                     // :13
}
}} // namespace at::native
"""
CUDA_LOOPS = """\
#pragma once
namespace at { namespace native {
template <typename func_t>
__global__ void vectorized_kernel(int n, func_t f) {}                           // :4
template <typename func_t>
void gpu_kernel_impl(TensorIteratorBase& iter, const func_t& f) {              // :6
  vectorized_kernel<<<1, 128>>>(iter.numel(), f);                               // :7
}
}} // namespace at::native
"""
ROCM_LOOPS = """\
#pragma once
namespace at { namespace native {
template <typename func_t>
__global__ void legacy_kernel(int n, func_t f) {}                               // :4
template <typename func_t>
void gpu_kernel_impl(TensorIteratorBase& iter, const func_t& f) {              // :6
  legacy_kernel<<<1, 256>>>(iter.numel(), f);                                   // :7
}
}} // namespace at::native
"""
SHARED_CUH = """\
#pragma once
namespace at { namespace native {
inline int lanes() { return 4; }
}}
"""
OTHER_CU = """\
#if defined(USE_B)
#include <ATen/native/cuda/Shared.cuh>
#endif
#include <ATen/native/cuda/Plain.cuh>
"""
PLAIN_CUH = """\
#pragma once
namespace at { namespace native {
inline int width() { return 8; }
}}
"""
SCALE_CU = """\
#include <ATen/native/cuda/Loops.cuh>
namespace at { namespace native {
Tensor scale_cuda(const Tensor& self) {                                         // :3
  auto iter = TensorIterator::unary_op(self, self);
  gpu_kernel(iter, [] GPU_LAMBDA (float a) -> float { return a * 2; });        // :5
  return self;
}
}} // namespace at::native
"""
FILES = {N + "native_functions.yaml": YAML, N + "cuda/Loops.cuh": LOOPS_CUH, N + "cuda/CUDALoops.cuh": CUDA_LOOPS,
         N + "cuda/ROCmLoops.cuh": ROCM_LOOPS, N + "cuda/Shared.cuh": SHARED_CUH, N + "cuda/Other.cu": OTHER_CU,
         N + "cuda/Plain.cuh": PLAIN_CUH, N + "cuda/Scale.cu": SCALE_CU}
ROCM = "!(!defined(USE_ROCM))"  # the #else of `#if !defined(USE_ROCM)`, as directives.py writes it


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("inclusion_guards"), FILES)


def test_extraction_keeps_the_guard_of_each_include():
    got = [(i.target, i.line, i.guard) for i in extract(LOOPS_CUH.encode(), N + "cuda/Loops.cuh").includes]
    assert got == [("ATen/native/cuda/CUDALoops.cuh", 3, "!defined(USE_ROCM)"),
                   ("ATen/native/cuda/ROCmLoops.cuh", 5, ROCM),
                   ("ATen/native/cuda/Shared.cuh", 8, "defined(USE_A)")]
    assert [i.guard for i in extract(OTHER_CU.encode(), N + "cuda/Other.cu").includes] == ["defined(USE_B)", None]


def test_inclusion_guards_join_every_include_and_leave_an_unguarded_one_out():
    graph = IncludeGraph(list(FILES), [(N + "cuda/Loops.cuh", "ATen/native/cuda/CUDALoops.cuh", True,
                                        "!defined(USE_ROCM)"),
                                       (N + "cuda/Loops.cuh", "ATen/native/cuda/ROCmLoops.cuh", True, ROCM),
                                       (N + "cuda/Loops.cuh", "ATen/native/cuda/Shared.cuh", True, "defined(USE_A)"),
                                       (N + "cuda/Other.cu", "ATen/native/cuda/Shared.cuh", True, "defined(USE_B)"),
                                       (N + "cuda/Other.cu", "ATen/native/cuda/Plain.cuh", True, None),
                                       (N + "cuda/Scale.cu", "ATen/native/cuda/Loops.cuh", True, None)])
    assert graph.inclusion_guards() == {N + "cuda/CUDALoops.cuh": "!defined(USE_ROCM)", N + "cuda/ROCmLoops.cuh": ROCM,
                                        N + "cuda/Shared.cuh": "(defined(USE_A)) || (defined(USE_B))"}


def test_definitions_take_the_guard_of_their_file(db: Path):
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute("SELECT file || ':' || line, detail FROM nodes WHERE kind IN ('function', "
                                "'global_kernel')"))
    assert got[N + "cuda/CUDALoops.cuh:6"] == "!defined(USE_ROCM)"
    assert got[N + "cuda/CUDALoops.cuh:4"] == "!defined(USE_ROCM)"
    assert got[N + "cuda/ROCmLoops.cuh:6"] == ROCM
    assert got[N + "cuda/Shared.cuh:3"] == "(defined(USE_A)) || (defined(USE_B))"
    assert got[N + "cuda/Plain.cuh:3"] is None  # included without a guard
    assert got[N + "cuda/Loops.cuh:12"] is None


def test_the_call_is_one_definition_per_build_configuration(db: Path):
    with sqlite3.connect(db) as conn:
        got = conn.execute("SELECT n.file, n.line, e.how FROM edges e JOIN nodes n ON n.id = e.dst "
                           "WHERE e.kind = 'calls' AND e.file = ? AND e.line = 13 ORDER BY n.file",
                           (N + "cuda/Loops.cuh",)).fetchall()
    assert got == [(N + "cuda/CUDALoops.cuh", 6, "per-build-configuration"),
                   (N + "cuda/ROCmLoops.cuh", 6, "per-build-configuration")]


def test_the_cuda_chain_follows_the_cuda_build(db: Path):
    [answer] = Index.open(db).kernels_for("scale")
    [cuda] = [k for k in answer.keys if k.key == "CUDA"]
    launched = [s.name for s in cuda.chain if s.kind == StepKind.GLOBAL_KERNEL]
    assert launched == ["at::native::vectorized_kernel"]
    [impl] = [s for s in cuda.chain if s.name == "at::native::gpu_kernel_impl"]
    assert (impl.loc.file, impl.loc.line, impl.detail) == (N + "cuda/CUDALoops.cuh", 6, "#if !defined(USE_ROCM)")
    [cut] = [t for t in cuda.truncated if "ROCm" in t.what]
    assert cut.names == (f"gpu_kernel_impl -> at::native::gpu_kernel_impl {N}cuda/ROCmLoops.cuh:6 "
                         "(#if defined(USE_ROCM))",)


def test_a_hip_chain_follows_the_rocm_build(db: Path):
    ix = Index.open(db)
    linker = Linker(ix.conn)
    [(node,)] = ix.conn.execute("SELECT id FROM nodes WHERE name = 'at::native::scale_cuda'").fetchall()
    steps, cuts = linker.chain_from(node, "HIP", 8, True)
    assert [s.name for s in steps if s.kind == StepKind.GLOBAL_KERNEL] == ["at::native::legacy_kernel"]
    assert any("does not compile" in c.what for c in cuts)
    steps, _ = linker.chain_from(node, "CompositeExplicitAutograd", 8, True)  # no device: both builds
    assert {s.name for s in steps if s.kind == StepKind.GLOBAL_KERNEL} == {"at::native::vectorized_kernel",
                                                                           "at::native::legacy_kernel"}


def _graph(db: Path) -> tuple[list[tuple], list[tuple]]:
    """The definitions' guards and the CUDA chain of scale."""
    with sqlite3.connect(db) as conn:
        guards = conn.execute("SELECT file, line, detail FROM nodes WHERE kind IN ('function', 'global_kernel') "
                              "ORDER BY file, line").fetchall()
    [answer] = Index.open(db).kernels_for("scale")
    return guards, [(s.kind, s.name, s.loc and (s.loc.file, s.loc.line), s.detail) for k in answer.keys
                    for s in k.chain]


@pytest.mark.parametrize("edited", ["Loops.cuh", "Other.cu"])
def test_an_edit_of_an_include_guard_gives_the_cold_build(tmp_path: Path, monkeypatch, edited: str):
    """The guard of an #include changes (Loops.cuh's two includes swap their branches; Other.cu, which no file
    includes, includes Shared.cuh unguarded): the update gives what a cold build of the edited tree gives."""
    from tg_index.indexer import build as build_module
    from tg_index.indexer.build import build

    monkeypatch.setattr(build_module, "SETTLED_NS", 0)
    db = built_tree(tmp_path / "tree", FILES)
    tree = db.parent
    if edited == "Loops.cuh":
        text = LOOPS_CUH.replace("#if !defined(USE_ROCM)", "#if defined(USE_ROCM)")
    else:
        text = OTHER_CU.replace("#if defined(USE_B)", "#if 1 || defined(USE_B)").replace("#endif\n", "#endif\n#include "
                                                                                        "<ATen/native/cuda/Shared.cuh>\n")
    (tree / N / "cuda" / edited).write_text(text)
    build(tree, db, jobs=1)
    cold = tmp_path / "cold"
    shutil.copytree(tree, cold, ignore=shutil.ignore_patterns("ix.db*"))  # the sources alone: a cold build
    build(cold, cold / "ix.db", jobs=1)
    assert _graph(db) == _graph(cold / "ix.db")
    guards, chain = _graph(db)
    if edited == "Loops.cuh":  # ROCmLoops.cuh is now the CUDA build's
        assert [name for kind, name, _at, _detail in chain if kind == StepKind.GLOBAL_KERNEL] == \
            ["at::native::legacy_kernel"]
    else:
        assert (N + "cuda/Shared.cuh", 3, None) in guards
