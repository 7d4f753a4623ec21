"""tg-query sql and Index.sql: only reading gets through, a query ends by its time limit, Ctrl-C stops it.

Every write path of issue 15 (items 21-23) is tried through the CLI and the API on a copy of the
fixture index in a folder of its own: each is refused with one line, no file appears in the folder
and the index's bytes (sha256) are unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from tg_index.indexer.errors import Interrupted, TgIndexError
from tg_index.queries.api import Index

from .conftest import BIN, run

COUNT_TO_1E9 = ("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000) "
                "SELECT count(*) FROM c")
REFUSED = "the index is read-only here; {} is refused (tg-query sql only reads)"


def _writes(folder: Path) -> list[tuple[str, str]]:
    """(statement, what the refusal names): every write path the battery of issue 15 tried."""
    other, copy, rwc = folder / "other.db", folder / "copy.db", folder / "rwc.db"
    attach = "ATTACH of {!r} (VACUUM and VACUUM INTO attach too)"
    return [
        ("PRAGMA query_only=0", "PRAGMA query_only = 0"),
        ("PRAGMA query_only = OFF", "PRAGMA query_only = OFF"),
        (f"ATTACH DATABASE '{other}' AS x", attach.format(str(other))),
        (f"ATTACH DATABASE 'file:{rwc}?mode=rwc' AS y", attach.format(f"file:{rwc}?mode=rwc")),
        (f"VACUUM INTO '{copy}'", attach.format(str(copy))),
        ("VACUUM", "VACUUM"),
        ("DETACH DATABASE main", "DETACH main"),
        ("CREATE TABLE t (a)", "CREATE TABLE t"),
        ("CREATE TEMP TABLE t (a)", "CREATE TEMP TABLE t"),
        ("CREATE VIEW v AS SELECT 1", "CREATE VIEW v"),
        ("CREATE INDEX i ON ops (name)", "CREATE INDEX i"),
        ("DROP TABLE ops", "DROP TABLE ops"),
        ("DROP VIEW v_ops", "DROP VIEW v_ops"),
        ("ALTER TABLE ops ADD COLUMN z", "ALTER TABLE ops"),
        ("INSERT INTO meta VALUES ('a', 'b')", "INSERT on meta"),
        ("UPDATE ops SET name = 'x'", "UPDATE on ops"),
        ("DELETE FROM ops", "DELETE on ops"),
        ("BEGIN IMMEDIATE", "BEGIN (a transaction)"),
        ("COMMIT", "COMMIT (a transaction)"),
        ("SAVEPOINT s", "SAVEPOINT"),
        ("REINDEX ix_dispatch_op", "REINDEX ix_dispatch_op"),
        ("ANALYZE ops", "DELETE on sqlite_stat1"),
        ("ANALYZE", None),
        ("PRAGMA writable_schema = 1", "PRAGMA writable_schema = 1"),
        ("PRAGMA journal_mode = WAL", "PRAGMA journal_mode = WAL"),
        ("PRAGMA user_version = 7", "PRAGMA user_version = 7"),
        ("PRAGMA optimize", "PRAGMA optimize"),
        ("SELECT load_extension('x')", "the function load_extension()"),
    ]


@pytest.fixture
def index_copy(mini_db: Path, tmp_path: Path) -> Path:
    """The fixture index, alone in a folder whose listing the tests check."""
    folder = tmp_path / "alone"
    folder.mkdir()
    db = folder / "ix.db"
    shutil.copy(mini_db, db)
    return db


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_write_is_refused_through_the_cli(index_copy: Path):
    folder, before = index_copy.parent, _sha(index_copy)
    for statement, what in _writes(folder):
        result = run("tg-query", "--db", str(index_copy), "sql", statement)
        assert result.returncode == 1, statement
        line = result.stderr.rstrip("\n")
        assert "\n" not in line and "Traceback" not in line, statement
        if what is None:  # ANALYZE names the first table it would write
            assert line.startswith("error: the index is read-only here; ANALYZE "), line
        else:
            assert line == "error: " + REFUSED.format(what), statement
        assert sorted(p.name for p in folder.iterdir()) == ["ix.db"], statement
    assert _sha(index_copy) == before


def test_every_write_is_refused_through_the_api(index_copy: Path):
    folder, before = index_copy.parent, _sha(index_copy)
    ix = Index.open(index_copy)
    for statement, what in _writes(folder):
        with pytest.raises(TgIndexError) as err:
            ix.sql(statement)
        if what is not None:
            assert str(err.value) == REFUSED.format(what), statement
        assert sorted(p.name for p in folder.iterdir()) == ["ix.db"], statement
    # the refusals leave the connection as it was: reading still works, query_only is still on
    assert ix.sql("PRAGMA query_only") == (["query_only"], [(1,)])
    assert ix.sql("SELECT count(*) FROM ops") == (["count(*)"], [(10,)])
    assert _sha(index_copy) == before


def test_schema_table_writes_are_refused_by_sqlite_itself(index_copy: Path):
    ix = Index.open(index_copy)
    for statement in ("DELETE FROM sqlite_master", "UPDATE sqlite_master SET sql = ''",
                      "INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, '')"):
        with pytest.raises(TgIndexError) as err:
            ix.sql(statement)
        assert str(err.value) == "the index is read-only here; table sqlite_master may not be modified"


def test_reading_and_reporting_pragmas_get_through(index_copy: Path):
    ix = Index.open(index_copy)
    columns, rows = ix.sql("PRAGMA table_info(dispatch)")
    assert columns[:3] == ["cid", "name", "type"] and rows[1][1] == "op_id"
    assert ix.sql("SELECT name FROM pragma_table_list WHERE name = 'ops'")[1] == [("ops",)]
    assert ("ix_dispatch_op",) in [(r[1],) for r in ix.sql("PRAGMA index_list(dispatch)")[1]]
    assert ix.sql("SELECT count(*) FROM pragma_table_info('ops')")[1][0][0] > 10
    assert ix.sql("PRAGMA user_version")[1] == [(0,)]
    assert ix.sql("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) "
                  "SELECT sum(n), upper('x') FROM c")[1] == [(15, "X")]
    assert ix.sql("SELECT name FROM ops WHERE name = ?", ("relu",))[1] == [("relu",)]


def test_the_time_limit_ends_a_runaway_query(index_copy: Path):
    started = time.monotonic()
    result = run("tg-query", "--db", str(index_copy), "sql", COUNT_TO_1E9, "--timeout", "0.5")
    assert time.monotonic() - started < 20
    assert result.returncode == 1
    assert result.stderr == ("error: the query ran longer than the time limit of 0.5 s and was stopped; "
                             "give more with --timeout SECONDS\n")
    with pytest.raises(TgIndexError, match=r"^the query ran longer than the time limit of 0.2 s and was stopped"):
        Index.open(index_copy).sql(COUNT_TO_1E9, timeout=0.2)
    bad = run("tg-query", "--db", str(index_copy), "sql", "SELECT 1", "--timeout", "0")
    assert bad.stderr == "error: --timeout must be more than 0 seconds, got 0\n"


def test_ctrl_c_stops_a_running_query(index_copy: Path):
    proc = subprocess.Popen([str(BIN / "tg-query"), "--db", str(index_copy), "sql", COUNT_TO_1E9, "--timeout", "120"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # the interpreter is up and the query runs
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out, err) == (130, "", "error: interrupted; the query was stopped\n")


def test_ctrl_c_through_the_api(index_copy: Path):
    ix = Index.open(index_copy)
    previous = signal.signal(signal.SIGALRM, lambda *_: os.kill(os.getpid(), signal.SIGINT))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Interrupted, match="^interrupted; the query was stopped$"):
            ix.sql(COUNT_TO_1E9, timeout=60)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored after the query


def test_sql_json_and_errors_stay_one_line(index_copy: Path):
    ok = run("tg-query", "--db", str(index_copy), "sql", "SELECT kernel FROM v_dispatch WHERE op = 'relu'", "--json")
    assert json.loads(ok.stdout) == [{"kernel": "relu"}]
    two = run("tg-query", "--db", str(index_copy), "sql", "SELECT 1; DROP TABLE ops")
    assert two.stderr == "error: SQL error: You can only execute one statement at a time.\n"
