"""Stopping tg-index on the real 2.6.0 tree: Ctrl-C and kill -9 leave the previous index as it was."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

from ..conftest import BIN, MINI, real_tree


def _previous_index(tmp_path: Path) -> tuple[Path, str]:
    """An index (of the fixture checkout) that a new build of 2.6.0 will try to replace."""
    db = tmp_path / "index.db"
    subprocess.run([str(BIN / "tg-index"), str(MINI), "--db", str(db), "-q"], check=True, capture_output=True)
    return db, hashlib.sha256(db.read_bytes()).hexdigest()


def _start(db: Path) -> subprocess.Popen:
    proc = subprocess.Popen([str(BIN / "tg-index"), str(real_tree("2.6.0")), "--db", str(db), "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not list(db.parent.glob(f".{db.name}.*.tmp")):  # the build is writing its temporary file
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    return proc


def test_ctrl_c(tmp_path: Path):
    db, digest = _previous_index(tmp_path)
    proc = _start(db)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends to the whole process group
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == f"error: interrupted; the index at {db} is as it was before\n"
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert [p.name for p in tmp_path.iterdir()] == ["index.db"]


def test_kill_9_then_rebuild(tmp_path: Path):
    db, digest = _previous_index(tmp_path)
    proc = _start(db)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    leftovers = list(tmp_path.glob(".index.db.*.tmp"))
    assert leftovers  # nothing could remove it ...
    small = tmp_path / "mini"
    shutil.copytree(MINI, small)
    subprocess.run([str(BIN / "tg-index"), str(small), "--db", str(db), "-q"], check=True, capture_output=True)
    assert not any(p.exists() for p in leftovers)  # ... until the next build
