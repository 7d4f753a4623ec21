"""A kernel launched through a lambda's parameter, the lambda handed to functions that call it with each kernel:
2.6.0 transformers/cuda/attention.cu:1230 `auto launchKernel = [&](auto _k, auto kernel_fn) {` ... :1383
`kernel_fn<<<blocks, p.getThreadsGrid(), smem_bytes, stream>>>(p);`, the lambda handed at :1388 to
`dispatch_cutlassF<scalar_t>(launchKernel, computeCapability)` (mem_eff_attention/kernels/cutlassF.h:284), which
hands it on to `dispatch_cutlassF_f16_sm80(cb, cc)` (:299), which calls it with each kernel:
`cb(AttentionKernel<...>(), fmha_cutlassF_f16_aligned_64x64_rf_sm80)` (:152). The launch's kernel was
not-in-checkout ("kernel_fn"); it now launches each function so handed, looked up where it is written.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer.build import build
from tg_index.indexer.cxx import extract
from tg_index.queries.api import Index
from tg_index.queries.results import StepKind

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: attend(Tensor self) -> Tensor
  dispatch:
    CUDA: attend_cuda
"""
DISPATCH_H = """\
#pragma once
namespace mem_eff {
__global__ void fmha_f16_64x64_sm80(int p);
__global__ void fmha_f16_32x128_sm80(int p);
__global__ void fmha_f32_64x64_sm50(int p);

template <typename T> void dispatch_f16_sm80(T cb, int cc) {                    // :7
    cb(Kernel<float>(), fmha_f16_64x64_sm80);                                 // :8
    cb(Kernel<float>(), fmha_f16_32x128_sm80);                                // :9
}

template <typename T> void dispatch_f32_sm50(T cb, int cc) {                    // :12
    cb(Kernel<float>(), fmha_f32_64x64_sm50);                                 // :13
}

template <typename DT, typename T>
void dispatch_all(T cb, int cc = 0) {                                           // :17
    if (cc >= 80) {
        dispatch_f16_sm80(cb, cc);                                              // :19
    }
    dispatch_f32_sm50(cb, cc);                                                  // :21
    log_choice(cc);
}
} // namespace mem_eff
"""
KERNELS_CU = """\
#include <ATen/native/cuda/mem_eff/dispatch.h>
namespace mem_eff {
__global__ void fmha_f16_64x64_sm80(int p) { body(p); }                        // :3
__global__ void fmha_f16_32x128_sm80(int p) { body(p); }                       // :4
__global__ void fmha_f32_64x64_sm50(int p) { body(p); }                        // :5
} // namespace mem_eff
"""
ENTRY_CU = """\
#include <ATen/native/cuda/mem_eff/dispatch.h>
namespace at::native {
using namespace mem_eff;
Tensor attend_cuda(const Tensor& self) {
  auto launchKernel = [&](auto _k, auto kernel_fn) {                           // :5
    int smem = 0;
    kernel_fn<<<1, 32, smem, 0>>>(3);                                          // :7
  };
  dispatch_all<float>(launchKernel, 80);                                       // :9
  other_launch(self);
  return self;
}
void other_launch(const Tensor& self) {                                        // :13
  auto k = [](auto kernel_fn) { kernel_fn<<<1, 1>>>(0); };                     // :14
  k(3);                                                                        // :15
  dispatch_all<float>([&](auto _k, auto fn) { fn<<<2, 64>>>(1); }, 75);        // :16
}
} // namespace at::native
"""
FILES = {N + "native_functions.yaml": YAML, N + "cuda/mem_eff/dispatch.h": DISPATCH_H,
         N + "cuda/mem_eff/kernels.cu": KERNELS_CU, N + "cuda/Attend.cu": ENTRY_CU}
ALL = {"mem_eff::fmha_f16_64x64_sm80", "mem_eff::fmha_f16_32x128_sm80", "mem_eff::fmha_f32_64x64_sm50"}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("handed_lambda"), FILES)


def test_extraction_names_where_the_lambda_is_handed():
    facts = extract(ENTRY_CU.encode(), N + "cuda/Attend.cu")
    handed = {(x.line, x.kernel): json.loads(x.handed) if x.handed else None for x in facts.launches}
    # the variable's lambda: parameter 1, handed at :9 as argument 0 of 2
    assert handed[(7, "kernel_fn")] == [1, [["dispatch_all<float>", "dispatch_all", 0, 9, 2]]]
    # a lambda called where it is made, never handed to a function: nothing to follow
    assert handed[(14, "kernel_fn")] is None
    # a lambda written as the argument itself: parameter 1, argument 0 of the call at :16
    assert handed[(16, "fn")] == [1, [["dispatch_all<float>", "dispatch_all", 0, 16, 2]]]


def _launches(db: Path, line: int) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT n.name, n.kind, n.file, n.line, e.how, e.detail FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
            "WHERE e.kind = 'launches' AND e.file LIKE '%Attend.cu' AND e.line = ?", (line,)))


def test_the_launch_reaches_each_kernel_the_lambda_is_called_with(db):
    got = _launches(db, 7)
    assert {g[0] for g in got} == ALL
    assert all(g[1] == "global_kernel" and g[2].endswith("mem_eff/kernels.cu") for g in got)
    by = {g[0]: g[5] for g in got}
    assert by["mem_eff::fmha_f16_64x64_sm80"] == (
        "<<<1, 32, smem, 0>>> through kernel_fn, handed to it by mem_eff::dispatch_f16_sm80 "
        f"({N}cuda/mem_eff/dispatch.h:8)")
    assert by["mem_eff::fmha_f32_64x64_sm50"].endswith(f"mem_eff::dispatch_f32_sm50 ({N}cuda/mem_eff/dispatch.h:13)")
    assert {(g[0], g[3]) for g in got} == {("mem_eff::fmha_f16_64x64_sm80", 3), ("mem_eff::fmha_f16_32x128_sm80", 4),
                                           ("mem_eff::fmha_f32_64x64_sm50", 5)}
    assert {g[0] for g in _launches(db, 16)} == ALL  # the lambda written as the argument


def test_a_launch_with_nowhere_to_follow_stays_unresolved(db):
    got = _launches(db, 14)
    assert got == {(None, None, None, None, "not-in-checkout", "<<<1, 1>>>")}


def test_kernels_for_ends_at_the_kernels(db):
    [answer] = Index.open(db).kernels_for("attend")
    [cuda] = [k for k in answer.keys if k.key == "CUDA"]
    launched = {s.name for s in cuda.chain if s.kind == StepKind.GLOBAL_KERNEL}
    assert ALL <= launched


def _kernel_edges(db: Path) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT n.name, e.line, e.detail FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.kind = 'launches' "
            "AND e.file LIKE '%Attend.cu'"))


def test_an_edit_of_the_functions_it_is_handed_to_relinks_the_launch(tmp_path: Path, monkeypatch):
    """Only the header changes (a kernel handed no more): the launching file is resolved again, as a cold build
    of the edited tree gives."""
    from tg_index.indexer import build as build_module

    monkeypatch.setattr(build_module, "SETTLED_NS", 0)
    tree = tmp_path / "tree"
    for rel, text in FILES.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    db = tmp_path / "ix.db"
    build(tree, db, jobs=1)
    header = tree / N / "cuda/mem_eff/dispatch.h"
    header.write_text(DISPATCH_H.replace("    cb(Kernel<float>(), fmha_f16_32x128_sm80);", "    log_choice(cc);"))
    build(tree, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone()[0] == "incremental"
    names = {n for n, _line, _detail in _kernel_edges(db)}
    assert names == ALL - {"mem_eff::fmha_f16_32x128_sm80"}
    cold = tmp_path / "cold"
    shutil.copytree(tree, cold)
    build(cold, cold / "ix.db", jobs=1)
    assert _kernel_edges(db) == _kernel_edges(cold / "ix.db")
    # the chain the build keeps for the op is walked again: the answer is the cold build's
    assert _chain(db) == _chain(cold / "ix.db")
    assert "mem_eff::fmha_f16_32x128_sm80" not in {name for _kind, name, _file, _line in _chain(db)}


def _chain(db: Path) -> list[tuple]:
    [answer] = Index.open(db).kernels_for("attend")
    return [(s.kind, s.name, s.file, s.line) for k in answer.keys for s in k.chain]
