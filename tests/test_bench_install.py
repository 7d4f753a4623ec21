"""tests/bench.py's note beside the process figure: how the package is installed and whether its modules'
bytecode is current (a process that may not write bytecode compiles every stale module at every start)."""

from __future__ import annotations

import py_compile
import re
from pathlib import Path

from tests import bench


def test_bytecode_is_current_until_its_source_changes(tmp_path: Path):
    source = tmp_path / "mod.py"
    source.write_text("X = 1\n")
    assert not bench._compiled(source)  # no __pycache__ yet
    py_compile.compile(str(source), doraise=True)
    assert bench._compiled(source)
    source.write_text("X = 12\n")  # another size: the header no longer matches
    assert not bench._compiled(source)
    py_compile.compile(str(source), doraise=True)
    assert bench._compiled(source)


def test_the_note_names_the_install_and_counts_every_module():
    note = bench.install_note()
    found = re.fullmatch(r"(editable|wheel) install; (\d+) of (\d+) modules byte-compiled and current "
                         r"\(may write bytecode: (yes|no)(; run `make compile`)?\)", note)
    assert found, note
    compiled, total = int(found[2]), int(found[3])
    modules = sum(1 for name in ("indexer", "queries", "schema")
                  for _ in (Path(__file__).parent.parent / name).rglob("*.py"))
    assert total == modules and compiled <= total
    assert (found[5] is not None) == (compiled < total)
