"""The build's plan, without SQLite: which files keep their rows, which go, what is extracted."""

from __future__ import annotations

from tg_index.indexer.plan import Found, plan
from tg_index.indexer.rows import YAML_TABLE_NAMES

NATIVE = "aten/src/ATen/native/native_functions.yaml"
KEYS = {"cxx_key": "c1", "py_key": "p1"}
PREVIOUS = {"cxx_key": "c1", "py_key": "p1"}


def _found(**changes) -> Found:
    yaml = {NATIVE: "y"}
    cxx = {"a.cpp": "a", "b.cu": "b", "c.h": "c"}
    python = {"torch/x.py": "x", "torch/y.py": "y"}
    sizes = {"a.cpp": 10, "b.cu": 30, "c.h": 20}
    parts = {"yaml": yaml, "cxx": cxx, "python": python, "sizes": sizes, **changes}
    return Found(**parts)


# The previous index's files: path -> (id, sha256), as the build above recorded them.
OLD = {"b.cu": (1, "b"), "c.h": (2, "c"), "a.cpp": (3, "a"), NATIVE: (4, "y"), "torch/x.py": (5, "x"), "torch/y.py": (6, "y")}


def test_fresh_build_extracts_everything_largest_first():
    p = plan(None, {}, _found(), **KEYS)
    assert (p.fresh, p.up_to_date, p.yaml_changed, p.python_changed, p.analyze) == (True, False, True, True, True)
    assert p.cxx_todo == ("b.cu", "c.h", "a.cpp")
    assert p.py_todo == ("torch/x.py", "torch/y.py")
    assert (p.kept, p.stale, p.first_id, p.clear_tables) == (frozenset(), (), 1, ())


def test_nothing_changed_leaves_the_index_as_it_is():
    p = plan(PREVIOUS, OLD, _found(), **KEYS)
    assert p.up_to_date
    assert p.kept == frozenset(OLD)
    assert (p.stale, p.cxx_todo, p.py_todo, p.yaml_changed, p.python_changed, p.analyze) == ((), (), (), False, False, False)


def test_a_changed_file_is_stale_and_extracted_again_with_a_new_id():
    p = plan(PREVIOUS, OLD, _found(cxx={"a.cpp": "a", "b.cu": "B", "c.h": "c"}), **KEYS)
    assert not p.up_to_date
    assert p.stale == (1,)
    assert p.kept == frozenset(OLD) - {"b.cu"}
    assert (p.cxx_todo, p.py_todo, p.first_id) == (("b.cu",), (), 7)
    assert (p.yaml_changed, p.python_changed, p.clear_tables) == (False, False, ())


def test_a_removed_file_is_stale_and_nothing_is_extracted():
    p = plan(PREVIOUS, OLD, _found(python={"torch/x.py": "x"}), **KEYS)
    assert (p.stale, p.cxx_todo, p.py_todo) == ((6,), (), ())
    assert p.python_changed  # what crosses Python files is worked out again
    assert not p.analyze


def test_a_new_extractor_makes_its_files_stale_and_keeps_the_others():
    p = plan(PREVIOUS, OLD, _found(), cxx_key="c2", py_key="p1")
    assert p.stale == (1, 2, 3)
    assert p.kept == frozenset({NATIVE, "torch/x.py", "torch/y.py"})
    assert p.cxx_todo == ("b.cu", "c.h", "a.cpp")
    p = plan(PREVIOUS, OLD, _found(), cxx_key="c1", py_key="p2")
    assert (p.stale, p.py_todo, p.python_changed) == ((5, 6), ("torch/x.py", "torch/y.py"), True)


def test_a_changed_yaml_file_clears_the_yaml_tables():
    p = plan(PREVIOUS, OLD, _found(yaml={NATIVE: "Y"}), **KEYS)
    assert (p.yaml_changed, p.clear_tables, p.stale) == (True, YAML_TABLE_NAMES, (4,))
    assert (p.cxx_todo, p.py_todo) == ((), ())


def test_a_skipped_file_keeps_its_row_while_it_is_skipped_for_the_same_reason():
    out = "skipped: symlink leads out of the checkout"
    old = {**OLD, "out.cpp": (7, "")}  # a symlink out, recorded without a hash
    p = plan(PREVIOUS, old, _found(skipped={"out.cpp": out}), **KEYS, old_skips={"out.cpp": out})
    assert p.up_to_date and p.kept >= {"out.cpp"} and p.stale == ()
    # skipped for another reason now: listed again
    p = plan(PREVIOUS, old, _found(skipped={"out.cpp": "skipped: fifo"}), **KEYS, old_skips={"out.cpp": out})
    assert not p.up_to_date
    assert (p.stale, p.cxx_todo, p.first_id) == ((7,), (), 8)
    # no longer skipped (now a regular file): extracted
    p = plan(PREVIOUS, old, _found(cxx={**_found().cxx, "out.cpp": "o"}, sizes={**_found().sizes, "out.cpp": 5}),
             **KEYS, old_skips={"out.cpp": out})
    assert (p.up_to_date, p.stale, p.cxx_todo[-1]) == (False, (7,), "out.cpp")


def test_statistics_are_refreshed_when_a_twentieth_of_the_files_or_more_are_extracted_again():
    many = {f"f{i}.cpp": f"h{i}" for i in range(99)}  # with native_functions.yaml, 100 files
    old = {rel: (i, sha) for i, (rel, sha) in enumerate(many.items(), start=1)} | {NATIVE: (100, "y")}

    def changed(n: int) -> bool:
        cxx = {rel: (sha + "!" if i < n else sha) for i, (rel, sha) in enumerate(many.items())}
        return plan(PREVIOUS, old, Found(yaml={NATIVE: "y"}, cxx=cxx, python={}, sizes=dict.fromkeys(cxx, 1)),
                    **KEYS).analyze

    assert [changed(n) for n in (0, 1, 4, 5, 6, 99)] == [False, False, False, True, True, True]
