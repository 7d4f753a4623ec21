"""Killing builds of the real 2.6.0 tree: at random points the index stays whole and answers, and
workers whose parent was killed end without a word."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from tg_index.indexer.discover import DEFAULT_EXCLUDES

from ..conftest import BIN, real_tree

KILLS = 10
LATEST_KILL = 3.0  # seconds after the start: reading the sources, copying the index, the first chunks


def _tg_index(db: Path, *args: str) -> list[str]:
    return [str(BIN / "tg-index"), str(real_tree("2.6.0")), "--db", str(db), "-q", *args]


def _answers(db: Path) -> None:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    result = subprocess.run([str(BIN / "tg-query"), "--db", str(db), "op", "add.out"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)")


def _identity(db: Path) -> tuple[int, int, int]:
    st = db.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def test_ten_kills_at_random_points(real_dbs, tmp_path: Path):
    db = tmp_path / "index.db"
    shutil.copyfile(real_dbs("2.6.0"), db)  # the session's complete build of the tree
    _answers(db)
    before = _identity(db)
    seed = int(os.environ.get("TG_KILL_SEED") or time.time_ns())
    rng = random.Random(seed)
    for i in range(KILLS):
        # Another exclude list changes the extractor key: every C++ file is parsed again into a copy of the index.
        excludes = [a for name in (*DEFAULT_EXCLUDES, f"kill-test-{i}") for a in ("--exclude", name)]
        proc = subprocess.Popen(_tg_index(db, *excludes), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        after = rng.uniform(0.0, LATEST_KILL)
        time.sleep(after)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL, f"seed {seed}, kill {i} after {after:.2f} s: the build ended first"
        assert _identity(db) == before, f"seed {seed}, kill {i} after {after:.2f} s"
        _answers(db)
    # The next build, with nothing changed, removes what the killed ones left behind.
    subprocess.run(_tg_index(db), check=True, capture_output=True, timeout=600)
    assert [p.name for p in tmp_path.iterdir()] == ["index.db"]
    assert _identity(db) == before


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (FileNotFoundError, ProcessLookupError):
        return True


def test_workers_end_quietly_when_the_build_is_killed(tmp_path: Path):
    db = tmp_path / "index.db"
    proc = subprocess.Popen(_tg_index(db, "--jobs", "2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".index.db.*.tmp")):  # the pool runs and the temporary file is being written
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert len(workers) >= 2
    os.kill(proc.pid, signal.SIGKILL)  # the main process only, not its group
    out, err = proc.communicate(timeout=60)  # ends when every holder of the pipes (the workers too) is gone
    assert (out, err) == ("", "")
    deadline = time.monotonic() + 10
    while not all(_gone(w) for w in workers):
        assert time.monotonic() < deadline, [w for w in workers if not _gone(w)]
        time.sleep(0.05)
