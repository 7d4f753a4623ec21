"""tg-query on an index that was damaged or edited by hand: one line naming the fix, a non-zero exit."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.errors import TgIndexError
from tg_index.queries.api import Index

from .conftest import run

PAGE = 4096
COMMANDS = [("info",), ("doctor",), ("kernels-for", "add.out"), ("op", "relu"), ("ops",), ("symbol", "add_kernel"),
            ("stub", "add_stub"), ("kernel", "add_kernel_cuda"), ("callers", "add_stub"), ("ops-for", "add_stub"),
            ("trace", "nn.Linear"), ("export", "calls"), ("sql", "SELECT count(*) FROM calls")]


def _copy(mini_db: Path, tmp_path: Path) -> Path:
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    return db


def _overwrite(db: Path, start: int, length: int) -> None:
    with db.open("r+b") as f:
        f.seek(start)
        f.write(b"\xa5" * length)


def _line(result) -> str:
    assert result.returncode == 1, result.stdout[:300]
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    return result.stderr.rstrip("\n")


def test_bytes_overwritten_in_the_middle(mini_db: Path, tmp_path: Path):
    db = _copy(mini_db, tmp_path)
    size = db.stat().st_size
    _overwrite(db, size // 3 // PAGE * PAGE, size // 3 // PAGE * PAGE)
    damaged = f"error: the index at {db} is damaged (database disk image is malformed); rebuild it with `tg-index`"
    for command in COMMANDS:
        assert _line(run("tg-query", "--db", str(db), *command)) == damaged, command


def test_doctor_checks_every_page(mini_db: Path, tmp_path: Path):
    """One page overwritten: queries that do not read it still answer; doctor's quick_check finds it."""
    db = _copy(mini_db, tmp_path)
    pages = db.stat().st_size // PAGE
    _overwrite(db, pages // 2 * PAGE, PAGE)
    line = _line(run("tg-query", "--db", str(db), "doctor"))
    assert line.startswith(f"error: the index at {db} is damaged (quick_check: ")
    assert line.endswith("); rebuild it with `tg-index`")
    with pytest.raises(TgIndexError, match=r"is damaged \(quick_check: .*\); rebuild it with `tg-index`$"):
        Index.open(db).doctor()


def test_a_table_dropped_by_hand(mini_db: Path, tmp_path: Path):
    db = _copy(mini_db, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE stubs")
    lacks = f"error: the index at {db} lacks what tg-query reads (no such table: stubs); rebuild it with `tg-index`"
    for command in (("stub", "add_stub"), ("kernels-for", "add.out"), ("export", "stubs")):
        assert _line(run("tg-query", "--db", str(db), *command)) == lacks, command
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE edges")
    lacks = f"error: the index at {db} lacks what tg-query reads (no such table: edges); rebuild it with `tg-index`"
    for command in (("kernels-for", "sub.out"), ("ops-for", "add_stub")):  # the graph walks
        assert _line(run("tg-query", "--db", str(db), *command)) == lacks, command
    assert run("tg-query", "--db", str(db), "op", "relu").returncode == 0  # what does not need the table still answers
    sql = _line(run("tg-query", "--db", str(db), "sql", "SELECT * FROM stubs"))
    assert sql == "error: SQL error: no such table: stubs"


def test_meta_dropped_by_hand(mini_db: Path, tmp_path: Path):
    db = _copy(mini_db, tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE meta")
    assert _line(run("tg-query", "--db", str(db), "info")) == \
        f"error: {db} is not a tg-index database; rebuild it with `tg-index`"
