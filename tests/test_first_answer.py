"""What makes a fresh Index's first answer cheaper keeps it the answer it was: steps made without the dataclass's
__init__ equal those it makes, and the generated-wrapper lookup asks the registrations once per op."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

from tg_index.indexer.facts import Location
from tg_index.queries.api import Index
from tg_index.queries.results import Step, new_step, to_data


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
