"""The chains the build walks and keeps (indexer/chain_stage.py, queries/chain_store.py): a fresh Index reads them
instead of walking the graph, and answers what a walk answers; rows another code made are not read, and the next
build walks them again. The incremental side is in test_link_incremental.py (test_a_rebuild_keeps_only_chains...)."""

from __future__ import annotations

import shutil
import zlib
import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer import build as build_module
from tg_index.indexer import code_hash
from tg_index.indexer.build import build
from tg_index.indexer.facts import Location
from tg_index.indexer.link.kinds import How
from tg_index.indexer.vocab import StepKind
from tg_index.queries import chain_store
from tg_index.queries.api import Index
from tg_index.queries.results import Step, Truncation

from .conftest import FIXTURES

_WALK = "FROM edges e LEFT JOIN nodes n"  # the statements a walk reads a node's edges with (chain._EDGES)


@pytest.fixture(scope="module")
def link_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("link") / "link.db"
    build(FIXTURES / "link", out, jobs=1)
    return out


def _ops(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT name FROM ops ORDER BY name")]


def _meta(db: Path, key: str) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


@pytest.mark.parametrize("which", ["link", "mini"])
def test_a_fresh_index_reads_the_chains_and_answers_as_a_walk(which: str, link_db: Path, mini_db: Path):
    db = link_db if which == "link" else mini_db
    assert _meta(db, "chains") == "whole" and int(_meta(db, "chains_walked") or 0) > 0
    for op in _ops(db):
        fresh = Index.open(db)
        seen: list[str] = []
        fresh.conn.set_trace_callback(seen.append)
        answer = fresh.kernels_for(op)
        walked = Index.open(db)
        walked.linker().stored_chains = False
        assert answer == walked.kernels_for(op), op
        assert not [s for s in seen if _WALK in s], op  # no node's edges read


def test_rows_another_code_made_are_not_read(link_db: Path, tmp_path: Path):
    db = tmp_path / "other.db"
    shutil.copyfile(link_db, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = 'another code' WHERE key = ?", (chain_store.META_KEY,))
    ix = Index.open(db)
    seen: list[str] = []
    ix.conn.set_trace_callback(seen.append)
    assert ix.kernels_for("scale") == Index.open(link_db).kernels_for("scale")
    assert [s for s in seen if _WALK in s]  # walked


def test_a_build_walks_the_chains_again_when_the_walking_code_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    tree, db = tmp_path / "tree", tmp_path / "ix.db"
    shutil.copytree(FIXTURES / "link", tree)
    monkeypatch.setattr(build_module, "SETTLED_NS", 0)
    build(tree, db, jobs=1)
    assert _meta(db, "chains_key") == code_hash.chain_walk()
    before = db.stat().st_mtime_ns
    build(tree, db, jobs=1)  # nothing changed: the index is left as it is
    assert db.stat().st_mtime_ns == before
    monkeypatch.setattr(code_hash, "chain_walk", lambda: "0123456789abcdef")
    monkeypatch.setattr(chain_store, "_code_key", None)
    build(tree, db, jobs=1)
    assert (_meta(db, "chains_key"), _meta(db, "chains"), _meta(db, "linked")) == ("0123456789abcdef", "whole",
                                                                                  "incremental")
    seen: list[str] = []
    ix = Index.open(db)
    ix.conn.set_trace_callback(seen.append)
    ix.kernels_for("scale")
    assert not [s for s in seen if _WALK in s]


def test_a_row_gives_back_the_steps_and_truncations_it_was_made_of():
    here, there = Location("aten/src/ATen/native/cuda/A.cu", 12), Location("aten/src/ATen/native/A.cpp", 3)
    steps = [Step("definition", "at::native::a_cuda", here, "CUDA", "a CUDA", 0, "yaml", there, None),
             Step("dtypes", "AT_DISPATCH_FLOATING_TYPES", here, None, "float, double", 1, None, None, 0),
             Step("op", "mul", None, parent=0),
             Step("launch", "gpu_kernel", there, detail="<<<grid, block>>>", depth=2, site=here, parent=1)]
    cuts = (Truncation("calls below --depth not followed", 8, ("at::native::deep",)), Truncation("a rule", -1))
    got_steps, got_cuts = chain_store.decode(chain_store.encode(steps, cuts))
    assert got_steps == steps and got_cuts == cuts
    assert got_steps[0].loc is got_steps[1].loc and got_steps[0].site is got_steps[3].loc  # a Location per place
    assert chain_store.decode_reads(chain_store.encode_reads({5, 2, 9}, {"add", "gpu_kernel"})) == \
        ([2, 5, 9], ["add", "gpu_kernel"])


def test_a_decoded_step_is_the_step_its_constructor_makes():
    """decode sets a step's attributes itself, as results.new_step does: the same object, field for field."""
    made = Step("call", "at::native::f", Location("a.cpp", 3), "CPU", "why", 2, "exact", Location("b.cpp", 4), 1)
    [got], _cuts = chain_store.decode(chain_store.encode([made], ()))
    assert got == made and hash(got) == hash(made) and repr(got) == repr(made)
    assert list(vars(got).items()) == list(vars(made).items())
    assert list(vars(got.loc).items()) == list(vars(made.loc).items()) and got.loc == made.loc


def test_a_row_writes_a_repeated_string_once_and_reads_it_back_as_one_object():
    """A chain repeats its files, kinds, hows and dtype lists: encode makes equal strings one object, which marshal
    writes once (later ones refer to it), so a row does not grow by the string per step, and decode makes each
    once. A StrEnum member (StepKind, How) is stored and read back as its value, a plain str."""
    def steps(n: int) -> list[Step]:
        # "".join makes a new str object per step, as a walk does when it builds names and details
        return [Step(StepKind.CALL, "at::native::f", Location("".join(["aten/src/ATen/native/", "cuda/Loops.cuh"]), i),
                     "CUDA", "".join(["float, double, ", "c10::Half, c10::BFloat16"]), 1, How.EXACT, None, None)
                for i in range(n)]
    many, few = chain_store.encode(steps(400), ()), chain_store.encode(steps(1), ())
    raw_many, raw_few = zlib.decompress(many), zlib.decompress(few)
    # per step about 51 bytes (two tuples, ints, a 5-byte reference per string); the 35-byte file, the 40-byte
    # dtype list and the name written again would be 90 more
    assert (len(raw_many) - len(raw_few)) / 399 < 64
    got, _cuts = chain_store.decode(many)
    assert got == steps(400)
    assert got[0].loc.file is got[399].loc.file and got[0].detail is got[399].detail
    assert type(got[0].kind) is str and got[0].kind == "call" and type(got[0].how) is str and got[0].how == "exact"
    # a str subclass none of the enums encode knows is written as its value too
    from enum import StrEnum

    class Odd(StrEnum):
        SIDE = "side"

    [odd], _cuts = chain_store.decode(chain_store.encode([Step("call", "f", None, Odd.SIDE, detail=Odd.SIDE)], ()))
    assert type(odd.device) is str and odd.device == "side" and odd.detail == "side"
