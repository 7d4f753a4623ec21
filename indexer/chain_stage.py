"""The chain stage: the chains kernels-for shows, walked once at build time and kept in table chains
(queries/chain_store.py), so that a fresh Index reads an answer's chains instead of walking the graph below them.

A whole build asks kernels-for of every op at the default depth with a recording Linker (each walk it makes is a
row), in `jobs` new processes over parts of the ops in name order: the overloads of a name share most of their
chains, and a process walks a chain it shares once.

An incremental build keeps the rows no change can reach. The link reports what it changed (link/stage.py
GraphChanges): the nodes added, removed or moved, those with another device_path, those whose edges are not the
ones they had, and the names whose definitions came or went. To those the stage adds every node of a changed
file (a walk reads a file's device branches and #if stretches with its edges) and of a file whose #if stretches
the checkout's #defines now decide otherwise (indexer/guards.py decides them with every file's #defines). A row
is walked again when its walk read the edges of such a node or of a node with an edge to one (the edge's row
holds the target's place, kind and device_path), or looked up such a name by name; and the ops whose kernels
changed are asked again, for the (op, key) kernels that are new. A changed yaml file, another link or other
walking code: every op is walked again.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import index_file, parent_watch
from .errors import WorkerDied
from .link import parallel
from .link.kinds import NodeKind
from .link.stage import GraphChanges
from .vocab import PREPROCESSOR

TABLES = ("chains",)  # the table the stage writes (queries/chain_store.py reads it)
MIN_PART = 200  # fewer ops or chains than this per process are not worth a fork
_INSERT = "INSERT OR REPLACE INTO chains (node, key, depth, kernel, body, reads) VALUES (?, ?, ?, ?, ?, ?)"


def fill(conn: sqlite3.Connection, db: Path, jobs: int) -> int:
    """Every op's chains, walked over the committed index at db (conn's file); the rows written."""
    conn.execute("DELETE FROM chains")
    return _walk_into(conn, db, [("op", r[0]) for r in conn.execute("SELECT name FROM ops ORDER BY name")], jobs)


def update(conn: sqlite3.Connection, db: Path, old_db: Path, changes: GraphChanges, jobs: int) -> int | None:
    """The rows an incremental link's changes may reach, walked again over the committed index at db (conn's
    file; old_db: the index before the build); the rows written, or None when every op must be walked again
    (the yaml changed)."""
    from ..queries.chain_store import decode_reads

    if any(path.endswith(".yaml") for path in changes.files):
        return None
    files = set(changes.files) | _guards_changed(conn, old_db)
    touched = set(changes.nodes) | {r[0] for r in conn.execute(
        "SELECT id FROM nodes WHERE file IN (SELECT value FROM json_each(?))", (json.dumps(sorted(files)),))}
    wanted = json.dumps(sorted(touched))
    affected = touched | {r[0] for r in conn.execute(
        "SELECT DISTINCT src FROM edges WHERE dst IN (SELECT value FROM json_each(?))", (wanted,))}
    names = set(changes.names) | {r[0].rsplit("::", 1)[-1] for r in conn.execute(
        "SELECT name FROM nodes WHERE id IN (SELECT value FROM json_each(?))", (wanted,))}
    stale = []
    for node, key, depth, kernel, reads in conn.execute("SELECT node, key, depth, kernel, reads FROM chains"):
        read, looked = decode_reads(reads)
        if not affected.isdisjoint(read) or not names.isdisjoint(looked):
            stale.append((node, key, depth, kernel))
    conn.executemany("DELETE FROM chains WHERE node = ? AND key = ? AND depth = ? AND kernel = ?", stale)
    there = {r[0] for r in conn.execute("SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?))",
                                        (json.dumps(sorted({m[0] for m in stale})),))}
    ops = sorted(r[0] for r in conn.execute("SELECT name FROM nodes WHERE kind = ? AND id IN (SELECT value FROM "
                                            "json_each(?))", (NodeKind.OP, json.dumps(sorted(affected)))))
    return _walk_into(conn, db, [("op", op) for op in ops] + [("chain", m) for m in stale if m[0] in there], jobs)


def _guards_changed(conn: sqlite3.Connection, old_db: Path) -> set[str]:
    """The files whose #if stretches are decided otherwise than in the index before (guards.mark)."""
    query = "SELECT file, first_line, last_line, not_on FROM device_branches WHERE branch = ?"
    with sqlite3.connect(index_file.read_only_uri(old_db), uri=True) as old:
        before = set(old.execute(query, (PREPROCESSOR,)))
    after = set(conn.execute(query, (PREPROCESSOR,)))
    return {row[0] for row in before ^ after}


def _walk_into(conn: sqlite3.Connection, db: Path, work: list[tuple[str, object]], jobs: int) -> int:
    """Walk the work (("op", name): kernels-for of an op; ("chain", memo): one Linker walk) over db, in `jobs`
    parts, and write the rows. More than one part goes to new Python processes (`python -m` this module), not
    forked ones: this process holds what the link stage left of its heap, half a gigabyte, which a forked
    child's RSS would count again; and a spawned multiprocessing worker imports the caller's main module,
    which a script calling build() without a `__main__` guard would run again. This process waits."""
    conn.commit()  # the workers read the file
    bounds = parallel.parts(len(work), jobs, MIN_PART)
    if len(bounds) == 1:
        parts = [_walk(db, work)]
    else:
        parts = _in_processes(db, [work[start:end] for start, end in bounds])
    rows: dict[tuple, tuple] = {}
    for part in parts:
        for row in part:
            rows[row[:4]] = row
    conn.executemany(_INSERT, rows.values())
    return len(rows)


def _in_processes(db: Path, parts: list[list[tuple[str, object]]]) -> list[list[tuple]]:
    """_walk of each part in a process of its own, at once: the part goes in as JSON on stdin, the rows come
    back pickled on stdout (this module's own output, read from a child it started). The children ignore
    Ctrl-C and end with this process (parent_watch); any failure kills the others."""
    command = [sys.executable, "-m", __name__, str(db), str(os.getpid())]
    procs = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in parts]
    try:
        with ThreadPoolExecutor(len(procs)) as pool:
            done = list(pool.map(lambda pp: pp[0].communicate(json.dumps(pp[1]).encode()), zip(procs, parts)))
        for proc, (out, err) in zip(procs, done):
            if proc.returncode < 0:  # killed (WorkerDied.of says by what)
                raise WorkerDied.of("chain stage", proc.returncode)
            if proc.returncode != 0:
                lines = err.decode(errors="replace").strip().splitlines()
                raise RuntimeError(f"the chain stage's worker failed (exit {proc.returncode}): "
                                   f"{lines[-1] if lines else 'no message'}")
        try:
            return [pickle.loads(out) for out, _err in done]
        except (pickle.UnpicklingError, EOFError) as exc:  # its output cut short: it ended while writing it
            raise WorkerDied.of("chain stage", 0, f"its answer cut short: {exc}") from exc
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _serve() -> None:
    """A worker of _in_processes: `python -m tg_index.indexer.chain_stage DB PARENT_PID`, the part on stdin."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends its workers
    parent_watch.exit_with_parent(int(sys.argv[2]))
    work = [(kind, tuple(what) if kind == "chain" else what) for kind, what in json.load(sys.stdin)]
    sys.stdout.buffer.write(pickle.dumps(_walk(Path(sys.argv[1]), work), protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()


def _walk(db: Path, items: Iterable[tuple[str, object]]) -> list[tuple]:
    """The rows of the walks the items make, each chain once."""
    from ..queries import chain_store
    from ..queries.api import Index

    rows: dict[tuple, tuple] = {}

    def record(memo: tuple, steps: list, cuts: tuple, reads: set[int], names: set[str]) -> None:
        if memo not in rows:
            rows[memo] = (*memo[:3], int(memo[3]), chain_store.encode(steps, cuts),
                          chain_store.encode_reads(reads, names))

    ix = Index.open(db)
    try:
        linker = ix.linker()
        linker.record = record
        for kind, what in items:
            if kind == "op":
                ix.kernels_for(str(what))
            else:
                node, key, depth, kernel = what  # type: ignore[misc]
                linker.chain_from(node, key, depth, bool(kernel))
    finally:
        ix.conn.close()
    return list(rows.values())


if __name__ == "__main__":
    _serve()
