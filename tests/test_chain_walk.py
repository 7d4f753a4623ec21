"""The walk of queries/chain.py as a first answer makes it: a fresh Index answers what a repeat answers, the
edges are read by one statement text per mode (prepared once per connection), and the cyclic collector is
paused only while a walk runs. On tests/fixtures/link and tests/fixtures/mini."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.queries import chain
from tg_index.queries.api import Index

LINK = Path(__file__).parent / "fixtures" / "link"


@pytest.fixture(scope="module")
def link_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("link") / "link.db"
    build(LINK, out, jobs=1)
    return out


def _ops(db: Path) -> list[str]:
    return [r[0] for r in Index.open(db).conn.execute("SELECT name FROM ops ORDER BY id")]


@pytest.mark.parametrize("which", ["link", "mini"])
def test_a_fresh_index_answers_as_a_repeat_does(which: str, link_db: Path, mini_db: Path):
    db = link_db if which == "link" else mini_db
    shared = Index.open(db)
    for op in _ops(db):
        first = Index.open(db).kernels_for(op)
        assert first == Index.open(db).kernels_for(op) == shared.kernels_for(op) == shared.kernels_for(op), op
        for depth in (0, 1):  # a shallower walk of the same nodes, after the deeper one filled the caches
            assert Index.open(db).kernels_for(op, depth=depth) == shared.kernels_for(op, depth=depth), (op, depth)


def test_edges_are_read_by_one_statement_text_per_mode(link_db: Path):
    ix = Index.open(link_db)
    ix.linker().stored_chains = False  # every chain walked, none read from the index
    seen: list[str] = []
    ix.conn.set_trace_callback(seen.append)
    for op in _ops(link_db):
        ix.kernels_for(op)
    ix.conn.set_trace_callback(None)
    edge_reads = {s.split("json_each(")[0] for s in seen if "FROM edges e LEFT JOIN nodes n" in s}
    assert edge_reads == {chain._SHOWN.split("json_each(")[0]}  # no functor in this tree: only the first mode
    assert chain._FUNCTOR != chain._SHOWN and "n.device_path IN (1, 2, 3)" in chain._SHOWN


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_only_during_a_walk(enabled: bool, link_db: Path):
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        ix = Index.open(link_db)
        linker = ix.linker()
        linker.stored_chains = False  # the chain walked, not read from the index
        states = []
        walk = linker._walk

        def watched(*args):
            states.append(gc.isenabled())
            return walk(*args)

        linker._walk = watched
        [answer] = ix.kernels_for("scale")
        assert states and not any(states)
        assert gc.isenabled() is enabled
        assert [k.key for k in answer.keys] == ["CPU", "CUDA"]
    finally:
        gc.enable() if was else gc.disable()


def test_op_bases_among_asks_only_for_the_names_given(mini_db: Path):
    ops = Index.open(mini_db).conn.execute("SELECT DISTINCT base FROM ops ORDER BY base").fetchall()
    bases = [b for (b,) in ops]
    names = bases + [b.rstrip("_") for b in bases] + [b + "_" for b in bases] + ["not_an_op", "_", ""]
    fresh = Index.open(mini_db).linker()
    whole = Index.open(mini_db).linker()
    assert fresh.op_bases_among(names) == whole.op_bases_among(names) == {n for n in names if n in whole.op_bases()}
    assert bases == ["add", "add_", "custom_op", "mul", "mul_", "relu", "sub"]
    # add_ and mul_ are bases; relu_ and sub_ are not, and no base loses its underscores to become them
    assert Index.open(mini_db).linker().op_bases_among(["add_", "relu_", "sub_", "mul", "sub", "x"]) == {
        "add_", "mul", "sub"}
