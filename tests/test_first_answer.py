"""What makes a fresh Index's first answer cheaper keeps it the answer it was: steps made without the dataclass's
__init__ equal those it makes, the generated-wrapper lookup asks the registrations once per op, and the places a
walk tells its steps apart by are the Linker's one object per file and line."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.facts import Location
from tg_index.queries.api import Index
from tg_index.queries.results import Step, new_step, to_data

LINK = Path(__file__).parent / "fixtures" / "link"


def test_new_step_is_the_step_its_constructor_makes():
    here, there = Location("aten/src/ATen/native/BinaryOps.cpp", 12), Location("a.cu", 3)
    for values in [("call", "at::native::add_out", here, None, None, 0, "exact", there, None),
                   ("registered", "add_kernel", here, "CPU", "AVX2", 2, None, None, 7),
                   ("dtypes", "AT_DISPATCH", None, None, "float, double", 1, None, None, 0)]:
        made, fast = Step(*values), new_step(*values)
        assert made == fast and hash(made) == hash(fast) and repr(made) == repr(fast)
        assert list(vars(made).items()) == list(vars(fast).items())
        assert to_data(made) == to_data(fast)
        assert replace(fast, parent=5) == replace(made, parent=5)
        assert [f.name for f in fields(fast)] == list(vars(fast))


def test_the_generated_wrapper_keys_are_asked_once_per_op(mini_db: Path):
    ix = Index.open(mini_db)
    seen: list[str] = []
    ix.conn.set_trace_callback(seen.append)
    [answer] = ix.kernels_for("add.out")
    ix.kernels_for("add.out")
    ix.conn.set_trace_callback(None)
    assert len(answer.keys) > 1
    assert sum("SELECT DISTINCT dispatch_key FROM registrations" in s for s in seen) == 1
    assert not any("JOIN definitions d ON d.file = r.file" in s for s in seen)  # no --codegen files here
    assert all(k.wrapper is None for k in answer.keys)



@pytest.mark.parametrize("which", ["link", "mini"])
def test_every_place_a_walk_shows_is_the_linker_s_one_object(which: str, mini_db: Path,
                                                               tmp_path_factory: pytest.TempPathFactory):
    """A walk tells steps apart by their places' identity (_Walk.add): every place in a chain it makes is the
    Linker's one Location for that file and line."""
    db = mini_db
    if which == "link":
        db = tmp_path_factory.mktemp("link") / "link.db"
        build(LINK, db, jobs=1)
    ix = Index.open(db)
    linker = ix.linker()
    linker.stored_chains = False  # walked here, not read from the index
    walked = 0
    for key, kernel, origin, ns, structured, func in ix.conn.execute(
            "SELECT k.key, k.kernel, k.origin, k.cpp_namespace, k.structured, o.func FROM dispatch k "
            "JOIN ops o ON o.id = k.op_id ORDER BY k.id").fetchall():
        found, _reason, _n = linker.definition(key, kernel, ns, origin, bool(structured), func)
        if found is None:
            continue
        steps, _cuts = linker.chain(found, key, 8, kernel=True)
        for step in steps:
            for loc in (step.loc, step.site):
                if loc is not None:
                    assert linker._places.get((loc.file, loc.line)) is loc, (key, kernel, step)
                    walked += 1
    assert walked > 10


def test_the_kernels_of_ops_are_read_without_their_kernel_nodes(mini_db: Path):
    """The has-kernel edge's target is the kernel node the implements edge leaves (the build makes both from one
    node): reading the kernels of every op without joining that node gives the rows the join gave."""
    from tg_index.queries import chain

    ix = Index.open(mini_db)
    ops = json.dumps([r[0] for r in ix.conn.execute("SELECT id FROM nodes WHERE kind = 'op' ORDER BY id")])
    joined = chain._KERNELS.replace("JOIN edges im ON im.src = hk.dst",
                                    "JOIN nodes kn ON kn.id = hk.dst JOIN edges im ON im.src = hk.dst")
    assert joined != chain._KERNELS
    rows = ix.conn.execute(chain._KERNELS, (ops,)).fetchall()
    assert rows and rows == ix.conn.execute(joined, (ops,)).fetchall()


def test_a_kernel_s_definition_is_asked_once(mini_db: Path):
    ix = Index.open(mini_db)
    seen: list[str] = []
    ix.conn.set_trace_callback(seen.append)
    first = ix.kernels_for("add.out")
    asked = sum("JOIN edges e ON e.src = kn.id" in s for s in seen)
    assert ix.kernels_for("add.out") == first and Index.open(mini_db).kernels_for("add.out") == first
    ix.conn.set_trace_callback(None)
    # every key's definition in one statement (Linker.op_definitions), and the meta row's (another op's may be it)
    assert 1 <= asked <= 2 < len(first[0].keys)
    assert sum("JOIN edges e ON e.src = kn.id" in s for s in seen) == asked  # the repeats read none
