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
import signal
import sqlite3
import stat
import sys
import threading
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from . import parent_watch
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


def install(tmp: Path, db: Path) -> None:
    """Put the finished file tmp in db's place at once: a reader opens the old index or the new one, never none.

    On Linux the two names are exchanged (renameat2 with RENAME_EXCHANGE) and the old index, now at tmp's
    name, is removed. os.replace would do the same in one call, but ext4 (auto_da_alloc) allocates and starts
    writing a file renamed over another before the rename returns, 0.15-0.2 s for a 340 MB index; after an
    exchange the kernel writes it out later. Where the exchange is not offered (another system, an old
    kernel, a file system without it, no index there yet), os.replace."""
    if _exchange(tmp, db):
        tmp.unlink(missing_ok=True)
    else:
        os.replace(tmp, db)


_AT_FDCWD = -100  # <fcntl.h>: paths relative to the working folder
_RENAME_EXCHANGE = 2  # <linux/fs.h>: 1 << 1


def _exchange(a: Path, b: Path) -> bool:
    """Whether the names a and b were exchanged at once; False leaves both as they were."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2  # glibc 2.28 and later
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    return renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0


def check(db: Path | str) -> IndexFile:
    """Where a build may write its index, or a TgIndexError naming the problem and the fix."""
    return begin_check(db)()


def begin_check(db: Path | str) -> PendingCheck:
    """check() in two halves. Whether the path may be written at all (a file of ours, a folder that takes
    files) is decided here, at once. SQLite's quick_check of an existing index reads every page (about a
    third of a second for a 2.6.0 index); it runs meanwhile, and the object returned waits for it when
    called and gives check()'s answer (or raises its TgIndexError).

    The quick_check of an index that carries our id runs in a forked process where fork is the way
    processes start (Linux) and this process runs no other thread: a build goes on to update a copy of the
    index and asks for the answer only before it renames that copy over the index. A thread would do the
    same work, but a process forked later (the build's workers) while the thread is inside SQLite could
    inherit one of SQLite's locks held and wait for it for ever; for the same reason nothing is forked
    while other threads run. Elsewhere, and for an index from before the id (whose check may still refuse
    the file), a thread runs it and the build waits for the answer before it writes anything."""
    if str(db) == "":
        raise TgIndexError(EMPTY_DB)
    path = Path(db).expanduser()
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # a new file (or a folder in its path is a file)
        _check_folder(db, path)
        return PendingCheck(path, answer=IndexFile(path, State.NEW))
    except OSError as exc:
        raise TgIndexError(f"--db {db}: cannot look at it ({exc.strerror or exc}); choose another path") from None
    _refuse_non_file(db, mode)
    marked = _read_header(db, path)
    if not marked:  # an index from before the application id: known by its schema, read here
        _inspect(db, path, marked)
    _check_folder(db, path)
    if marked and sys.platform.startswith("linux") and threading.active_count() == 1:
        return PendingCheck(path, child=_fork_check(db, path))
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(_outcome(db, path, marked)), daemon=True)
    worker.start()
    return PendingCheck(path, thread=(worker, outcome))


class PendingCheck:
    """begin_check()'s answer on its way. Calling it waits for the answer (once; later calls repeat it).

    deferred: the answer comes from a forked process, and an index of ours is assumed meanwhile (the answer
    can only be INDEX or CORRUPTED): a build may update a copy of it, as long as it calls this before it
    renames the copy over the index. close() stops a check whose answer is no longer wanted."""

    def __init__(self, path: Path, *, answer: IndexFile | None = None,
                 thread: tuple[threading.Thread, list] | None = None, child: tuple[int, int] | None = None):
        self.path = path
        self._answer = answer
        self._thread = thread
        self._child = child

    @property
    def deferred(self) -> bool:
        return self._child is not None and self._answer is None

    def __call__(self) -> IndexFile:
        if self._answer is None:
            if self._thread is not None:
                worker, outcome = self._thread
                worker.join()
                found = outcome[0]
            else:
                found = self._from_child()
            if isinstance(found, TgIndexError):
                raise found
            self._answer = found
        return self._answer

    def _from_child(self) -> IndexFile:
        pid, reading = self._child
        self._child = None
        with os.fdopen(reading, "rb") as pipe:
            said = pipe.read().decode("utf-8", "replace")
        _reap(pid)
        state, _, problem = said.partition("\t")
        if state == State.INDEX.value:
            return IndexFile(self.path, State.INDEX)
        if state == State.CORRUPTED.value:
            return IndexFile(self.path, State.CORRUPTED, problem)
        # The process ended without an answer (killed from outside): the check is made here instead.
        return _outcome(self.path, self.path, True)

    def close(self) -> None:
        """Stop the forked check if its answer was not asked for (a build that failed, or was interrupted)."""
        if self._child is None:
            return
        pid, reading = self._child
        self._child = None
        os.close(reading)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _reap(pid)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:  # waited for already (by a caller's own wait for any child)
        pass


def _fork_check(db: Path | str, path: Path) -> tuple[int, int]:
    """A forked process that runs the quick_check of an index of ours and writes its state (and problem)
    to a pipe: (its pid, the pipe's reading end). It ignores Ctrl-C (the build handles it and stops it) and
    ends when the build's process is gone."""
    reading, writing = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(reading)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            parent_watch.exit_with_parent(parent)
            found = _outcome(db, path, True)
            os.write(writing, f"{found.state.value}\t{found.problem}".encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(writing)
    return pid, reading


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
