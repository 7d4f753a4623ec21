"""The incremental link on real 2.6.0: a copy of the tree in tmp_path (hard links; an edited file is
replaced by a new one, never written in place, so the tree under the cache is not changed) is indexed,
edited and indexed again; each rebuild's graph equals, without ids, the graph of a cold build of the
edited tree, and the chains it keeps are those a walk gives. The edits: the bench's rename
(tests/bench.py), linked in place, and lines added to a header many files include, linked whole since
its call sites bind template arguments other files' edges name."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build

from ..conftest import real_tree
from ..test_link_incremental import graph, meta, stale_chains

RENAMED = "aten/src/ATen/native/cuda/ActivationSoftplusKernel.cu"
HEADER = "aten/src/ATen/native/cuda/Loops.cuh"


def _replace(tree: Path, rel: str, old: str, new: str) -> None:
    """The file's text with the first old replaced, written to a new file renamed over it (the hard link
    to the cached tree is broken, not written through)."""
    path = tree / rel
    text = path.read_text()
    assert old in text, (rel, old)
    fresh = path.with_name(path.name + ".edit")
    fresh.write_text(text.replace(old, new, 1))
    os.replace(fresh, path)


@pytest.fixture(scope="module", autouse=True)
def settled_at_once():
    """The files just linked into the copy count as settled (linking changes an inode's change time): each
    update takes the unchanged files as the build before read them, without reading them."""
    from tg_index.indexer import build as build_module

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build_module, "SETTLED_NS", 0)
        yield


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("inc-real")
    tree = root / "pytorch"
    shutil.copytree(real_tree("2.6.0"), tree, symlinks=True, copy_function=os.link)
    db = root / "ix.db"
    build(tree, db, jobs=2)
    assert len(json.loads(meta(db, "file_stats"))) > 4000  # every source file's status recorded
    return tree, db


def _rebuild_equals_cold(tree: Path, db: Path, tmp_path: Path, how: str = "incremental") -> None:
    build(tree, db, jobs=2)
    assert meta(db, "linked") == meta(db, "chains") == how
    assert stale_chains(db) == []  # the chains kept (indexer/chain_stage.py) are those a walk gives now
    cold = tmp_path / "cold.db"
    build(tree, cold, jobs=2)
    assert graph(db) == graph(cold)


def test_the_bench_rename(indexed: tuple[Path, Path], tmp_path: Path):
    tree, db = indexed
    _replace(tree, RENAMED, "softplus_kernel(", "softplus_kernel_renamed(")
    _rebuild_equals_cold(tree, db, tmp_path)
    assert meta(db, "kept_stages") == "dispatcher,dispatch_table"
    with sqlite3.connect(db) as conn:
        kept = conn.execute("SELECT count(*) FROM chains").fetchone()[0]
    assert 0 < int(meta(db, "chains_walked") or 0) < kept / 10  # softplus's chains, and those that call its kernel


def test_lines_added_to_a_header(indexed: tuple[Path, Path], tmp_path: Path):
    tree, db = indexed
    _replace(tree, HEADER, "namespace at::native {\n", "namespace at::native {\n\n// added by a test\n"
             "inline int tg_index_probe(int n) { return n + 1; }\n")
    # linked whole: Loops.cuh's calls write template arguments (iter.scalar_value<opmath_arg1_t>(1) at
    # Loops.cuh:180, handed on to c10::fetch_and_cast's dest_t), and the bound edges in
    # c10/core/DynamicCast.h name those lines
    _rebuild_equals_cold(tree, db, tmp_path, "whole")
