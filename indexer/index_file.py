"""The index file: what a build may write to, checked before the build reads anything.

A build writes a temporary file beside the index and renames it over the index, so the
path must be a new file in a folder that takes new files, or an index of ours. Anything
else is refused with one line, and nothing is written.

How a file is told to be ours: it starts with SQLite's 16-byte header string and its
header carries APPLICATION_ID at bytes 68-71 (`PRAGMA application_id`, which every build
sets), or, for an index written before the id existed, SQLite reads its schema and finds
our meta table with a schema_version row beside the ops, dispatch and files tables.
These header bytes survive damage elsewhere in the file, so an index of ours whose pages
are broken (`database disk image is malformed`) or whose other header fields are
(`file is not a database`) is still known as ours: it is rebuilt from scratch, with a
notice. A file whose first bytes are gone cannot be told from any other file and is
refused like one; delete it to rebuild.
"""

from __future__ import annotations

import enum
import os
import sqlite3
import stat
import threading
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from .errors import TgIndexError

SQLITE_HEADER = b"SQLite format 3\x00"
APPLICATION_ID = int.from_bytes(b"tgix", "big")  # 0x74676978, stored big-endian at byte 68
SET_APPLICATION_ID = f"PRAGMA application_id = {APPLICATION_ID}"
_ID_OFFSET = 68
_LEGACY_TABLES = {"meta", "ops", "dispatch", "files"}
EMPTY_DB = "--db is empty; give the index file's path, e.g. --db pytorch.db"


class State(enum.Enum):
    NEW = "new"              # nothing there yet
    INDEX = "index"          # an index of ours, readable
    CORRUPTED = "corrupted"  # an index of ours that SQLite finds damaged: rebuilt from scratch


@dataclass(frozen=True)
class IndexFile:
    path: Path          # where the index is written (a symlink given as --db is followed)
    state: State
    problem: str = ""   # what SQLite said of a corrupted index

    @property
    def notice(self) -> str:
        return f"notice: the index at {self.path} is corrupted ({self.problem}); building it again from scratch"


def read_only_uri(db: Path, immutable: bool = False) -> str:
    """The URI that opens db read-only; `?`, `#` and `%` in its name are escaped, not parsed.

    immutable: SQLite takes no locks and never checks whether the file changed. That holds for an
    index: a build never writes one in place, it renames a new file over it, and an open
    connection keeps reading the file it opened. Without it, every statement locks and unlocks the
    file, looks for a journal and rereads its header (about 15 system calls per statement)."""
    return f"{Path(db).absolute().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")


def temporary(db: Path) -> Path:
    """The file a build of this process writes before renaming it over db."""
    return db.with_name(f".{db.name}.{os.getpid()}.tmp")


def check(db: Path | str) -> IndexFile:
    """Where a build may write its index, or a TgIndexError naming the problem and the fix."""
    return begin_check(db)()


def begin_check(db: Path | str) -> Callable[[], IndexFile]:
    """check() in two halves. Whether the path may be written at all (a file of ours, a folder that takes
    files) is decided here, at once; SQLite's quick_check of an existing index, which reads every page
    (about half a second for a 2.6.0 index), runs in a thread meanwhile, and the function returned waits
    for it and gives check()'s answer (or raises its TgIndexError). A build reads the checkout in
    between: nothing is written before the answer is in."""
    if str(db) == "":
        raise TgIndexError(EMPTY_DB)
    path = Path(db).expanduser()
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # a new file (or a folder in its path is a file)
        _check_folder(db, path)
        return lambda: IndexFile(path, State.NEW)
    except OSError as exc:
        raise TgIndexError(f"--db {db}: cannot look at it ({exc.strerror or exc}); choose another path") from None
    _refuse_non_file(db, mode)
    marked = _read_header(db, path)
    if not marked:  # an index from before the application id: known by its schema, read here
        _inspect(db, path, marked)
    _check_folder(db, path)
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(_outcome(db, path, marked)), daemon=True)
    worker.start()

    def result() -> IndexFile:
        worker.join()
        found = outcome[0]
        if isinstance(found, TgIndexError):
            raise found
        return found
    return result


def _outcome(db: Path | str, path: Path, marked: bool) -> IndexFile | TgIndexError:
    try:
        return _inspect(db, path, marked, deep=True)
    except TgIndexError as exc:
        return exc


def _refuse_non_file(db: Path | str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise TgIndexError(f"--db {db} is a directory; give a file path, e.g. --db {Path(db) / 'pytorch.db'}")
    what = ("a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
            "a FIFO" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise TgIndexError(f"--db {db} is {what}, not a file; choose another path")


def _read_header(db: Path | str, path: Path) -> bool:
    """Whether an existing file carries our application id; a file that is not SQLite is refused."""
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise TgIndexError(f"--db {db}: cannot read it ({exc.strerror or exc}); choose another path") from None
    if not header.startswith(SQLITE_HEADER):
        raise TgIndexError(f"--db {db} exists and is not a tg-index database; choose another path")
    return header[_ID_OFFSET:_ID_OFFSET + 4] == APPLICATION_ID.to_bytes(4, "big")


def _inspect(db: Path | str, path: Path, marked: bool, deep: bool = False) -> IndexFile:
    """An existing SQLite file: an index of ours (readable or corrupted), or refused. Without `deep`, only
    whether it is ours (an unmarked file's schema); with it, also SQLite's quick_check of every page."""
    try:
        with closing(sqlite3.connect(read_only_uri(path), uri=True)) as conn:
            if not marked and not _has_our_schema(conn):
                raise TgIndexError(f"--db {db} exists and is not a tg-index database; choose another path")
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")] if deep else ["ok"]
    except sqlite3.DatabaseError as exc:
        if not marked:
            raise TgIndexError(f"--db {db} is a SQLite file that tg-index cannot read as its own ({exc}); "
                               "delete it or choose another path") from None
        return IndexFile(path, State.CORRUPTED, str(exc))
    if problems != ["ok"]:
        return IndexFile(path, State.CORRUPTED, problems[0] if problems else "quick_check gave no answer")
    return IndexFile(path, State.INDEX)


def _has_our_schema(conn: sqlite3.Connection) -> bool:
    """An index written before the application id: our tables, and meta with a schema_version."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not _LEGACY_TABLES <= tables:
        return False
    columns = {row[1] for row in conn.execute("PRAGMA table_info(meta)")}
    if columns != {"key", "value"}:
        return False
    return conn.execute("SELECT 1 FROM meta WHERE key = 'schema_version'").fetchone() is not None


def _check_folder(db: Path | str, path: Path) -> None:
    """The index's folder exists (it is made when missing) and takes new files: the temporary
    file is created there and removed. Trying is the only test that holds for root too, whom
    permission bits do not stop but /proc and read-only mounts do."""
    folder = path.parent
    ancestor = folder
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise TgIndexError(f"--db {db}: {ancestor} is not a folder; choose another path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TgIndexError(f"--db {db}: cannot create the folder {folder} ({exc.strerror or exc}); "
                           "choose a writable folder") from None
    probe = temporary(path)
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        return  # this process's temporary file is already there: the folder takes files
    except OSError as exc:
        raise TgIndexError(f"--db {db}: cannot create a file in {folder} ({exc.strerror or exc}); "
                           "choose a writable folder") from None
    probe.unlink()
