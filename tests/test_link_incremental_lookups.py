"""An update resolves the files it resolves again with the definitions of the names they write
(stage.SOME_DEFINITIONS), where a cold link reads every definition: what a call's resolution reads of other
names must come along. A receiver reached through `->` is typed by what its class's operator-> returns
(Resolver._pointee): every operator-> is read, and an update that changes one links the graph whole."""

from __future__ import annotations

import shutil
import sqlite3

from tg_index.indexer.build import build

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: use_it(Tensor self) -> Tensor
  dispatch:
    CUDA: use_it_cuda
"""
HOLDER_H = """\
#pragma once
namespace at::native {
struct Thing { int run() const { return 1; } };
struct Other { int run() const { return 2; } };
struct Handle { Thing* p; Thing* operator->() const { return p; } };
}
"""
USE_CU = """\
#include <ATen/native/Holder.h>
namespace at::native {
int use_it(Handle h) {
  return h->run();                                                             // :4
}
}
"""
FILES = {N + "native_functions.yaml": YAML, N + "Holder.h": HOLDER_H, N + "cuda/Use.cu": USE_CU}


def _calls(db, line: int) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT e.kind, e.how, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
                            "WHERE e.file = ? AND e.line = ?", (N + "cuda/Use.cu", line)).fetchall()


def _linked(db) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone()[0]


def _cold(root, tmp_path):
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    build(fresh, fresh / "cold.db", jobs=1)
    return fresh / "cold.db"


def test_an_update_types_a_receiver_reached_through_arrow_as_a_cold_build_does(tmp_path):
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    assert _calls(db, 4) == [("calls", "receiver-type", "at::native::Thing::run")]  # Handle's -> returns a Thing*
    (root / N / "cuda/Use.cu").write_text("\n" + USE_CU)  # the call moves to :5
    build(root, db, jobs=1)
    assert _linked(db) == "incremental"
    assert _calls(db, 5) == _calls(_cold(root, tmp_path), 5) == [("calls", "receiver-type", "at::native::Thing::run")]


def test_an_update_that_changes_an_operator_arrow_links_whole(tmp_path):
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    # Handle's -> now returns an Other*: Use.cu, which writes no name of Holder.h's, reads it
    (root / N / "Holder.h").write_text(HOLDER_H.replace("Thing* operator->() const { return p; }",
                                                        "Other* operator->() const { return nullptr; }"))
    build(root, db, jobs=1)
    assert _linked(db) == "whole"
    assert _calls(db, 4) == _calls(_cold(root, tmp_path), 4) == [("calls", "receiver-type", "at::native::Other::run")]
