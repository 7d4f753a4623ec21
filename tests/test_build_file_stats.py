"""A build does not read again a file whose status (size, times, inode) is the one recorded when the index it
updates read it (meta file_stats): its hash is the recorded one. Whatever writes to a file changes its change
time, so a file rewritten with its size and modification time restored is still read again."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer import build as build_module
from tg_index.indexer import discover, index_file
from tg_index.indexer.build import build
from tg_index.indexer.index_file import State

KERNEL = "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"


@pytest.fixture
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files the test has just written count as settled (a build records their status)."""
    monkeypatch.setattr(build_module, "SETTLED_NS", 0)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The checkout's source files read from now on, in order."""
    read: list[str] = []
    real = discover.read_each

    def spy(root, rels, max_size, skipped):
        for found in real(root, rels, max_size, skipped):
            read.append(found[0])
            yield found
    monkeypatch.setattr(discover, "read_each", spy)
    return read


def _rows(db: Path, query: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(query).fetchall()


def _stats(db: Path) -> dict[str, list[int]]:
    return json.loads(_rows(db, "SELECT value FROM meta WHERE key = 'file_stats'")[0][0])


def _sources(tree: Path) -> set[str]:
    return {p.relative_to(tree).as_posix() for p in tree.rglob("*")
            if p.suffix in discover.CXX_LANGUAGES or p.suffix == ".py"} - {"setup.py"}


def test_a_file_whose_status_is_the_recorded_one_is_not_read_again(mini: Path, tmp_path: Path, settled_at_once,
                                                                     reads: list[str]):
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    recorded = _stats(db)
    assert set(recorded) == set(reads) and set(reads) >= {KERNEL, "aten/src/ATen/native/cuda/AddKernel.cu"}
    info = os.stat(mini / KERNEL)
    assert recorded[KERNEL] == [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev]
    reads.clear()
    before = db.read_bytes()
    build(mini, db, jobs=1)
    assert reads == [] and db.read_bytes() == before  # nothing read, nothing changed
    (mini / KERNEL).write_text((mini / KERNEL).read_text() + "\nvoid one_more() {}\n")
    build(mini, db, jobs=1)
    assert reads == [KERNEL]
    assert _rows(db, "SELECT count(*) FROM definitions WHERE name = 'one_more'") == [(1,)]
    assert _rows(db, f"SELECT sha256 FROM files WHERE path = '{KERNEL}'") == [
        (hashlib.sha256((mini / KERNEL).read_bytes()).hexdigest(),)]


def test_a_file_rewritten_with_its_size_and_modification_time_kept_is_read_again(mini: Path, tmp_path: Path,
                                                                                  settled_at_once):
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    kernel = mini / KERNEL
    info = os.stat(kernel)
    text = kernel.read_text()
    assert "add_kernel" in text
    kernel.write_text(text.replace("add_kernel", "sub_kernel"))  # as many bytes
    os.utime(kernel, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert (os.stat(kernel).st_size, os.stat(kernel).st_mtime_ns) == (info.st_size, info.st_mtime_ns)
    build(mini, db, jobs=1)
    assert _rows(db, f"SELECT count(*) FROM definitions WHERE name = 'sub_kernel' AND file = '{KERNEL}'") == [(1,)]
    assert _rows(db, f"SELECT count(*) FROM definitions WHERE name = 'add_kernel' AND file = '{KERNEL}'") == [(0,)]


def test_files_written_just_before_a_build_are_not_recorded(mini: Path, tmp_path: Path, reads: list[str]):
    """A file changed within SETTLED_NS of the build's start could be written again within the same tick of
    a coarse file system clock: its status is not recorded, and the next build reads it again."""
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    assert _stats(db) == {}
    first = sorted(reads)
    reads.clear()
    build(mini, db, jobs=1)
    assert sorted(reads) == first == sorted(_sources(mini) & set(first))


def test_another_extractor_reads_the_files_it_did_not_read(mini: Path, tmp_path: Path, settled_at_once,
                                                           monkeypatch: pytest.MonkeyPatch, reads: list[str]):
    """Every file is extracted again when the extractor changed, the unread ones read when their turn comes:
    the index is the one a build from scratch makes."""
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    reads.clear()
    monkeypatch.setattr(build_module, "_extractor_hash", lambda: "another extractor")
    build(mini, db, jobs=1)
    assert set(reads) == {rel for rel in _stats(db) if not rel.endswith(".py")}  # the Python files' rows stay
    fresh = tmp_path / "fresh.db"
    build(mini, fresh, jobs=1)
    for query in ("SELECT path, language, sha256, size, parse_errors, status FROM files",
                  "SELECT file, line, kind, qualified_name, signature FROM definitions",
                  "SELECT file, line, caller, callee FROM calls", "SELECT file, line, stub, kind, device, kernel FROM stubs"):
        assert sorted(map(repr, _rows(db, query))) == sorted(map(repr, _rows(fresh, query))), query


def test_a_corrupted_index_s_record_is_not_trusted(mini: Path, tmp_path: Path, settled_at_once,
                                                   monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """A corrupted index is built again from scratch from files all read again: the hashes it recorded (here a
    wrong one, as damage could give) are not taken over."""
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE files SET sha256 = ? WHERE path = ?", ("0" * 64, KERNEL))
    real = index_file._inspect
    monkeypatch.setattr(index_file, "_inspect", lambda db_, path, marked, deep=False: index_file.IndexFile(
        path, State.CORRUPTED, "damaged") if deep else real(db_, path, marked))
    build(mini, db, jobs=1)
    assert "is corrupted (damaged); building it again from scratch" in capsys.readouterr().err
    assert _rows(db, f"SELECT sha256 FROM files WHERE path = '{KERNEL}'") == [
        (hashlib.sha256((mini / KERNEL).read_bytes()).hexdigest(),)]


def test_a_record_of_another_checkout_is_not_used(mini: Path, tmp_path: Path, settled_at_once, reads: list[str]):
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    other = tmp_path / "other"
    shutil.copytree(mini, other, copy_function=os.link)  # the same inodes, times and sizes
    reads.clear()
    build(other, db, jobs=1)
    assert KERNEL in reads
