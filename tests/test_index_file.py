"""What --db may name: new files and indexes of ours are written, anything else is refused with one
line before the build reads a source; corrupted indexes of ours are rebuilt; default names per checkout."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

from tg_index.indexer import index_file, paths
from tg_index.indexer.build import build
from tg_index.indexer.errors import TgIndexError
from tg_index.indexer.index_file import APPLICATION_ID, State

from .conftest import BIN, MINI, run

NATIVE = "aten/src/ATen/native/native_functions.yaml"
NOT_OURS = "exists and is not a tg-index database; choose another path"


def _listing(root: Path) -> dict[str, tuple]:
    """Every entry under root with its type, size, mtime and content hash: what a test compares."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            st = path.lstat()
            seen[str(path.relative_to(root))] = (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns)
    return seen


def _one_line(result) -> str:
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1, result.stderr
    return result.stderr.rstrip("\n")


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A checkout whose native_functions.yaml does not parse: a refusal shows the check came first."""
    dest = tmp_path / "broken"
    shutil.copytree(MINI, dest)
    (dest / NATIVE).write_text("- func: [unclosed\n")
    return dest


def _refusals(tmp_path: Path, broken: Path) -> list[tuple[str, str]]:
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    sock.close()
    with sqlite3.connect(tmp_path / "other.db") as conn:  # someone else's SQLite file, with a meta table
        conn.execute("CREATE TABLE meta (key, value)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    (tmp_path / "link.txt").symlink_to(tmp_path / "notes.txt")
    tags = broken / "aten/src/ATen/native/tags.yaml"
    t = str(tmp_path)
    return [
        (f"{t}/notes.txt", f"error: --db {t}/notes.txt {NOT_OURS}"),
        (f"{t}/link.txt", f"error: --db {t}/link.txt {NOT_OURS}"),
        (str(tags), f"error: --db {tags} {NOT_OURS}"),
        (f"{t}/other.db", f"error: --db {t}/other.db {NOT_OURS}"),
        (f"{t}/folder", f"error: --db {t}/folder is a directory; give a file path, e.g. --db {t}/folder/pytorch.db"),
        ("", "error: --db is empty; give the index file's path, e.g. --db pytorch.db"),
        ("/dev/null", "error: --db /dev/null is a device, not a file; choose another path"),
        (f"{t}/fifo", f"error: --db {t}/fifo is a FIFO, not a file; choose another path"),
        (f"{t}/sock", f"error: --db {t}/sock is a socket, not a file; choose another path"),
        ("/proc/x.db", "error: --db /proc/x.db: cannot create a file in /proc (No such file or directory); choose a writable folder"),
        ("/proc/tg/x.db", "error: --db /proc/tg/x.db: cannot create the folder /proc/tg (No such file or directory); choose a writable folder"),
        (f"{t}/notes.txt/x.db", f"error: --db {t}/notes.txt/x.db: {t}/notes.txt is not a folder; choose another path"),
    ]


def test_refused_before_the_build_with_one_line(tmp_path: Path, broken: Path):
    cases = _refusals(tmp_path, broken)
    before = _listing(tmp_path)
    null = os.stat("/dev/null")
    for db, message in cases:
        result = run("tg-index", str(broken), "--db", db, "-q", env={"TILEGYM_SKILL_CACHE_DIR": str(tmp_path / "cache")})
        assert result.returncode == 1, (db, result.stderr)
        assert _one_line(result) == message
        assert result.stdout == ""
    assert _listing(tmp_path) == before  # nothing written, nothing replaced
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and os.stat("/dev/null").st_rdev == null.st_rdev
    assert not os.path.lexists("/proc/x.db")


def test_read_only_folder_is_refused_as_it_really_fails(tmp_path: Path, broken: Path):
    """Root writes into a mode-555 folder anyway; without the override capability, as a user, it fails."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    drop = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    result = subprocess.run([*drop, str(BIN / "tg-index"), str(broken), "--db", str(folder / "x.db"), "-q"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert _one_line(result) == \
        f"error: --db {folder}/x.db: cannot create a file in {folder} (Permission denied); choose a writable folder"
    assert list(folder.iterdir()) == []


def test_the_library_refuses_too(tmp_path: Path, broken: Path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    with pytest.raises(TgIndexError) as err:
        build(broken, notes)
    assert str(err.value) == f"--db {notes} {NOT_OURS}"
    assert notes.read_text() == "keep me"


def test_new_paths_and_indexes_of_ours_are_written(mini: Path, tmp_path: Path):
    db = tmp_path / "a" / "b" / "ix.db"  # missing folders are made
    assert index_file.check(db) == index_file.IndexFile(db, State.NEW)
    assert (tmp_path / "a" / "b").is_dir() and list((tmp_path / "a" / "b").iterdir()) == []
    build(mini, db)
    assert index_file.check(db) == index_file.IndexFile(db, State.INDEX)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    link = tmp_path / "link.db"
    link.symlink_to(db)
    summary = build(mini, link)  # a symlink is followed: the index it points to is updated, the link stays
    assert summary.db == db and link.is_symlink() and link.resolve() == db


def test_uri_characters_in_the_name_are_a_name(mini: Path, tmp_path: Path):
    db = tmp_path / "out" / "my index?#%.db"
    build(mini, db)
    assert index_file.check(db).state is State.INDEX
    before = db.stat()
    again = run("tg-index", str(mini), "--db", str(db), "-q")
    assert again.returncode == 0, again.stderr
    after = db.stat()  # the previous index was read: nothing changed, so it was left as it was
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert [p.name for p in db.parent.iterdir()] == ["my index?#%.db"]


def test_an_index_from_before_the_application_id_is_ours(mini: Path, mini_db: Path, tmp_path: Path):
    old = tmp_path / "old.db"
    shutil.copy(mini_db, old)
    with sqlite3.connect(old) as conn:
        conn.execute("PRAGMA application_id = 0")
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")  # another schema: rebuilt
    assert index_file.check(old).state is State.INDEX
    result = run("tg-index", str(mini), "--db", str(old), "-q")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    with sqlite3.connect(old) as conn:
        assert conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] != "0"


def _damage(db: Path, offset: int, data: bytes) -> None:
    with open(db, "r+b") as f:
        f.seek(offset)
        f.write(data)


@pytest.mark.parametrize(("how", "problem"), [
    ("pages", "database disk image is malformed"),
    ("header", "file is not a database"),
    ("truncated", "database disk image is malformed"),
])
def test_a_corrupted_index_of_ours_is_rebuilt(mini: Path, mini_db: Path, tmp_path: Path, how: str, problem: str):
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    if how == "pages":
        _damage(db, 4096 * 3, b"\xff" * 4096 * 5)
    elif how == "header":
        _damage(db, 16, b"\x00\x07\x09\x09")  # page size and format bytes: SQLite no longer reads it
    else:
        os.truncate(db, 50_000)
    assert index_file.check(db) == index_file.IndexFile(db, State.CORRUPTED, problem)
    result = run("tg-index", str(mini), "--db", str(db), "-q")
    assert result.returncode == 0, result.stderr
    assert _one_line(result) == f"notice: the index at {db} is corrupted ({problem}); building it again from scratch"
    assert result.stdout.startswith("indexed 10 ops, 13 kernels, 20 files, built-in DispatchStub macros (DispatchStub.h missing) in ")
    with sqlite3.connect(db) as conn, sqlite3.connect(mini_db) as fresh:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        query = "SELECT op, key, kernel, origin FROM dispatch ORDER BY op, key"
        assert conn.execute(query).fetchall() == fresh.execute(query).fetchall()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix.db", "mini"]
    again = run("tg-index", str(mini), "--db", str(db), "-q")
    assert again.returncode == 0 and again.stderr == ""


def test_an_index_whose_first_bytes_are_gone_cannot_be_told_and_is_refused(mini_db: Path, tmp_path: Path, broken: Path):
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    _damage(db, 0, b"\x00" * 100)
    result = run("tg-index", str(broken), "--db", str(db), "-q")
    assert (result.returncode, _one_line(result)) == (1, f"error: --db {db} {NOT_OURS}")


def test_a_sqlite_file_whose_schema_cannot_be_read_is_refused(mini_db: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA application_id = 0")
    _damage(db, 100, b"\xff" * 3996)  # page 1, where sqlite_master lives
    with pytest.raises(TgIndexError) as err:
        index_file.check(db)
    assert str(err.value) == (f"--db {db} is a SQLite file that tg-index cannot read as its own "
                              "(database disk image is malformed); delete it or choose another path")


def test_default_index_names_differ_per_checkout_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TILEGYM_SKILL_CACHE_DIR", str(tmp_path / "cache"))
    a, b = tmp_path / "a" / "pytorch", tmp_path / "b" / "pytorch"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    (tmp_path / "alias").symlink_to(a)
    ia, ib = paths.index_for(a), paths.index_for(b)
    assert ia != ib
    assert ia.parent == ib.parent == tmp_path / "cache" / "index"
    for index in (ia, ib):
        name, tag = index.stem.rsplit("-", 1)
        assert (name, len(tag), index.suffix) == ("pytorch", 8, ".db")
        assert all(c in "0123456789abcdef" for c in tag)
    monkeypatch.chdir(tmp_path / "a")
    assert paths.index_for(Path("pytorch")) == ia  # relative paths and symlinks: the same checkout, the same index
    assert paths.index_for(tmp_path / "alias").stem.endswith(ia.stem[-8:])


def test_two_checkouts_named_alike_keep_two_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cache = tmp_path / "cache"
    env = {"TILEGYM_SKILL_CACHE_DIR": str(cache), "TG_INDEX_DB": ""}
    shutil.copytree(MINI, cache / "pytorch-source")  # the default checkout
    shutil.copytree(MINI, tmp_path / "other" / "pytorch-source")
    for args in ((), (str(tmp_path / "other" / "pytorch-source"),)):
        result = run("tg-index", *args, "-q", env=env)
        assert result.returncode == 0, result.stderr
    indexes = sorted(p.name for p in (cache / "index").iterdir())
    assert len(indexes) == 2 and all(n.startswith("pytorch-source-") for n in indexes)
    info = run("tg-query", "info", "--json", env=env)  # no --db: the default checkout's index
    assert info.returncode == 0, info.stderr
    meta = json.loads(info.stdout)
    monkeypatch.setenv("TILEGYM_SKILL_CACHE_DIR", str(cache))
    assert (meta["checkout"], meta["db"]) == (str(cache / "pytorch-source"), str(paths.index_for(cache / "pytorch-source")))


def test_the_deep_check_is_the_second_half(mini_db: Path, tmp_path: Path):
    """begin_check refuses a file that is not ours at once (before a build reads the checkout); the quick_check
    of an index of ours answers through the function it returns."""
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    with pytest.raises(TgIndexError, match=NOT_OURS):
        index_file.begin_check(notes)
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    _damage(db, 4096 * 3, b"\xff" * 4096 * 5)
    pending = index_file.begin_check(db)
    assert pending() == index_file.IndexFile(db, State.CORRUPTED, "database disk image is malformed")
    assert index_file.begin_check(mini_db)() == index_file.IndexFile(mini_db, State.INDEX)


def _late_answer(monkeypatch: pytest.MonkeyPatch, problem: str) -> None:
    """The quick_check finds the index corrupted (its pages read well: only the answer is what SQLite would say).
    The forked process that runs it is a copy of this one, patch included."""
    real = index_file._inspect

    def inspect(db, path, marked, deep=False):
        return index_file.IndexFile(path, State.CORRUPTED, problem) if deep else real(db, path, marked)
    monkeypatch.setattr(index_file, "_inspect", inspect)


def test_an_update_goes_on_while_the_check_runs_and_is_dropped_when_it_finds_corruption(
        mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """The quick_check of an index of ours runs in a forked process while the build updates a copy of the index;
    its answer is asked for before the rename. Here the update reads the index without trouble and the answer
    comes back corrupted: the update's result is dropped, and the index is built again from scratch."""
    db = tmp_path / "ix.db"
    build(mini, db)
    kernel = mini / "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp"
    kernel.write_text(kernel.read_text() + "\nvoid added_after_the_first_build() {}\n")
    capsys.readouterr()
    _late_answer(monkeypatch, "found late")
    pending = index_file.begin_check(db)
    assert pending.deferred
    pending.close()
    from tg_index.indexer import build as build_module
    real_write, writes = build_module._write, []

    def write(run, *args):
        writes.append(run.previous is not None)
        return real_write(run, *args)
    monkeypatch.setattr(build_module, "_write", write)
    build(mini, db)
    assert writes == [True, False]  # the update of the index as it was, then a build from scratch
    assert capsys.readouterr().err == f"notice: the index at {db} is corrupted (found late); building it again from scratch\n"
    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        assert conn.execute("SELECT count(*) FROM definitions WHERE name = 'added_after_the_first_build'").fetchone() == (1,)
    assert int(meta["parsed"]) == len([f for f in mini.rglob("*") if f.suffix in (".cpp", ".h", ".cu", ".cuh")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix.db", "mini"]


def test_no_check_is_forked_while_other_threads_run(mini_db: Path, tmp_path: Path):
    """A process forked while another thread is inside SQLite could inherit one of its locks held: with other
    threads running, the check runs in a thread and its answer is waited for before anything is written."""
    import threading

    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    alone = index_file.begin_check(db)
    assert alone.deferred
    assert alone() == index_file.IndexFile(db, State.INDEX)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pending = index_file.begin_check(db)
        assert not pending.deferred
        assert pending() == index_file.IndexFile(db, State.INDEX)
    finally:
        stop.set()
        other.join()


def test_an_update_that_fails_waits_for_the_check(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An error in the update of an index the check finds sound is the build's error; where the check finds the
    index corrupted, the error came from what was read of it, and the index is built again from scratch."""
    from tg_index.indexer import build as build_module

    db = tmp_path / "ix.db"
    build(mini, db)
    (mini / "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp").write_text("void changed() {}\n")
    real_write = build_module._write

    def failing(run, *args):
        if run.previous is not None:
            raise sqlite3.DatabaseError("what an update of a broken index meets")
        return real_write(run, *args)
    monkeypatch.setattr(build_module, "_write", failing)
    with pytest.raises(sqlite3.DatabaseError, match="what an update of a broken index meets"):
        build(mini, db)
    _late_answer(monkeypatch, "found late")
    summary = build(mini, db)
    assert summary.files > 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM definitions WHERE name = 'changed'").fetchone() == (1,)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix.db", "mini"]


def test_an_unreadable_old_index_is_refused_from_the_second_half(mini_db: Path, tmp_path: Path):
    """A file without our id whose schema reads as ours but whose pages do not: the refusal comes once the
    quick_check has run, still before anything is written."""
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA application_id = 0")
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'dispatch'").fetchone()[0]
    _damage(db, 4096 * (root - 1), b"\xff" * 4096)  # a table the schema test does not read
    pending = index_file.begin_check(db)
    with pytest.raises(TgIndexError) as err:
        pending()
    assert str(err.value) == (f"--db {db} is a SQLite file that tg-index cannot read as its own "
                              "(database disk image is malformed); delete it or choose another path")


def test_nothing_changed_is_decided_without_the_extractor_and_link_code(mini: Path, tmp_path: Path):
    """An index that is up to date is found so from the code hashes (code_hash.py), which read the packages'
    files: neither the C++ extractor nor the link stage is imported (their imports are a tenth of a second)."""
    db = tmp_path / "ix.db"
    build(mini, db)
    probe = ("import sys; from pathlib import Path; from tg_index.indexer.build import build; "
             f"build(Path({str(mini)!r}), Path({str(db)!r})); "
             "print(sorted(m for m in sys.modules if m.startswith(('tg_index.indexer.cxx', 'tg_index.indexer.link', "
             "'tree_sitter', 'sqlalchemy'))))")
    result = subprocess.run([str(BIN / "python"), "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
    (mini / NATIVE).write_text((mini / NATIVE).read_text() + "\n")
    result = subprocess.run([str(BIN / "python"), "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "'tg_index.indexer.link'" in result.stdout  # a change: the build goes on and links


def test_install_puts_the_new_file_in_place_and_leaves_the_old_to_its_readers(tmp_path: Path):
    db, tmp = tmp_path / "x.db", tmp_path / ".x.db.1.tmp"
    db.write_bytes(b"old index")
    tmp.write_bytes(b"new index")
    with open(db, "rb") as reader:  # a query that opened the index before the build's end
        index_file.install(tmp, db)
        assert reader.read() == b"old index"
    assert db.read_bytes() == b"new index"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.db"]


def test_install_without_an_index_there_renames(tmp_path: Path):
    db, tmp = tmp_path / "x.db", tmp_path / ".x.db.1.tmp"
    tmp.write_bytes(b"new index")
    index_file.install(tmp, db)
    assert db.read_bytes() == b"new index"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.db"]


@pytest.mark.skipif(not os.uname().sysname == "Linux", reason="renameat2 is Linux's")
def test_on_linux_the_names_are_exchanged_not_renamed_over(tmp_path: Path):
    # A rename over an existing file makes ext4 write the new one out before the rename returns
    # (auto_da_alloc); the exchange does not. That it happened is seen in both names' contents.
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"A")
    b.write_bytes(b"B")
    assert index_file._exchange(a, b)
    assert (a.read_bytes(), b.read_bytes()) == (b"B", b"A")
    assert not index_file._exchange(a, tmp_path / "missing")  # nothing to exchange with: os.replace's case
    assert a.read_bytes() == b"B"


def test_install_falls_back_to_a_rename_where_there_is_no_exchange(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(index_file, "_exchange", lambda a, b: False)
    db, tmp = tmp_path / "x.db", tmp_path / ".x.db.1.tmp"
    db.write_bytes(b"old index")
    tmp.write_bytes(b"new index")
    index_file.install(tmp, db)
    assert db.read_bytes() == b"new index"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.db"]
