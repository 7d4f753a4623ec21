"""The answers' SQL finds its rows through indexes: no statement that kernels-for, ops-for or backward runs
scans a large table of a real index.

A scan is what makes an answer slow without making it wrong, so no other test sees it: the note of a kernel
with several definitions once read `calls` by file and line, which has no index, and a fresh Index's first
answer for add.out took 0.7 s instead of 0.03 s. Every statement the queries run is traced, and SQLite's own
plan for it (EXPLAIN QUERY PLAN) must not SCAN a table of more than LARGE rows. No time is measured.
"""

from __future__ import annotations

import sqlite3

import pytest

LARGE = 20_000  # rows; the ops, files and dispatch tables stay below it, calls, edges and nodes do not


def _scans(db, statements: list[str]) -> dict[str, str]:
    """plan line -> the first statement whose plan has it, for every SCAN of a large table."""
    raw = sqlite3.connect(db)
    try:
        large = {name for (name,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                 if raw.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] > LARGE}
        found: dict[str, str] = {}
        for sql in dict.fromkeys(statements):
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
                continue
            for *_ids, detail in raw.execute("EXPLAIN QUERY PLAN " + sql):
                words = detail.split()
                if words[0] == "SCAN" and words[1] in large:
                    found.setdefault(detail, sql)
        return found
    finally:
        raw.close()


@pytest.mark.parametrize("version", ["2.6.0", "1.13.1"])
def test_answers_scan_no_large_table(real_dbs, version):
    from tg_index.queries.api import Index

    db = real_dbs(version)
    ix = Index.open(db)
    ops = [name for (name,) in ix.conn.execute("SELECT name FROM ops ORDER BY name")]
    # Every op whose kernel has several definitions (the guard note's path), and every 25th op besides.
    several = {name for (name,) in ix.conn.execute(
        "SELECT DISTINCT o.name FROM edges e JOIN nodes k ON k.id = e.src JOIN ops o ON o.id = k.ref "
        "WHERE e.kind = 'implements' AND e.detail LIKE 'by-key:%' AND k.kind = 'kernel'")}
    assert len(several) > 50  # cudnn_convolution and the other CUDA/placeholder pairs
    statements: list[str] = []
    ix.conn.set_trace_callback(statements.append)
    for name in sorted(several | set(ops[::25])):
        ix.kernels_for(name)
        ix.backward_of(name)
    for name in ("add_stub", "gemm", "cudnn_convolution", "softmax_warp_forward"):
        ix.ops_for(name)
    ix.conn.set_trace_callback(None)
    assert len(statements) > 1000
    assert _scans(db, statements) == {}
