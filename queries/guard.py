"""The one guarded SQLite connection of the read side (tg-query sql, Index.sql, the MCP server's sql).

Three locks, each enough on its own for writes:
- the file is opened read-only by URI (`mode=ro`), so SQLite never writes it;
- `PRAGMA query_only` is on before anything else runs;
- an authorizer allows only reading: SELECT, reads of columns, recursive CTEs,
  function calls (but not load_extension), and PRAGMAs that only report
  (table_info, table_list, index_list, user_version without a value, ...).
  It denies ATTACH and DETACH (VACUUM and VACUUM INTO ask for ATTACH too),
  every write, transactions, and any PRAGMA that would change state, at
  prepare time: a refused statement never runs, so it creates no file.

Ad-hoc queries also run under a time limit (a progress handler looks at the
clock every few thousand VM steps) and Ctrl-C stops them.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from ..indexer.errors import Interrupted, TgIndexError
from ..indexer.index_file import read_only_uri

DEFAULT_TIMEOUT = 10.0  # seconds an ad-hoc query may run
_STEPS = 5_000  # VM instructions between two looks at the clock

_ALLOWED = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE})
# PRAGMAs that only report, with or without an argument (the argument names what to report on).
_REPORTING = frozenset("""table_info table_xinfo table_list index_list index_info index_xinfo foreign_key_list
foreign_key_check database_list collation_list function_list module_list pragma_list compile_options
integrity_check quick_check""".split())
# PRAGMAs that report when they are given no value (with one, they change state).
_READABLE = frozenset("""user_version schema_version application_id page_count page_size freelist_count encoding
data_version query_only foreign_keys journal_mode max_page_count cache_size auto_vacuum busy_timeout""".split())
_DENIED_FUNCTIONS = frozenset({"load_extension"})
# The schema table is "updated" while a table-valued PRAGMA (pragma_table_info) is prepared, and CREATE/DROP
# ask to write it before their own action is checked. A direct write of it needs PRAGMA writable_schema,
# which is denied (and the file is open read-only), so these checks pass and the statement's own is refused.
_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})
_ACTIONS = {getattr(sqlite3, n): n.removeprefix("SQLITE_").replace("_", " ") for n in """SQLITE_CREATE_INDEX
SQLITE_CREATE_TABLE SQLITE_CREATE_TEMP_INDEX SQLITE_CREATE_TEMP_TABLE SQLITE_CREATE_TEMP_TRIGGER
SQLITE_CREATE_TEMP_VIEW SQLITE_CREATE_TRIGGER SQLITE_CREATE_VIEW SQLITE_DELETE SQLITE_DROP_INDEX SQLITE_DROP_TABLE
SQLITE_DROP_TEMP_INDEX SQLITE_DROP_TEMP_TABLE SQLITE_DROP_TEMP_TRIGGER SQLITE_DROP_TEMP_VIEW SQLITE_DROP_TRIGGER
SQLITE_DROP_VIEW SQLITE_INSERT SQLITE_PRAGMA SQLITE_READ SQLITE_SELECT SQLITE_TRANSACTION SQLITE_UPDATE
SQLITE_ATTACH SQLITE_DETACH SQLITE_ALTER_TABLE SQLITE_REINDEX SQLITE_ANALYZE SQLITE_CREATE_VTABLE
SQLITE_DROP_VTABLE SQLITE_FUNCTION SQLITE_SAVEPOINT SQLITE_RECURSIVE""".split() if hasattr(sqlite3, n)}


def _refusal(action: int, arg1: str | None, arg2: str | None) -> str | None:
    """None when the action only reads; otherwise what is refused, in words."""
    if action in _ALLOWED:
        return None
    if action == sqlite3.SQLITE_FUNCTION:
        return f"the function {arg2}()" if (arg2 or "").lower() in _DENIED_FUNCTIONS else None
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in _REPORTING or (name in _READABLE and arg2 is None):
            return None
        return f"PRAGMA {arg1}" + (f" = {arg2}" if arg2 is not None else "")
    if action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE) and \
            (arg1 or "").lower() in _SCHEMA_TABLES:
        return None  # CREATE and DROP are refused by their own action; a direct write needs writable_schema
    if action == sqlite3.SQLITE_ATTACH:
        return f"ATTACH of {arg1!r} (VACUUM and VACUUM INTO attach too)" if arg1 else "VACUUM"
    if action == sqlite3.SQLITE_TRANSACTION:
        return f"{arg1} (a transaction)"
    what = _ACTIONS.get(action, f"action {action}")
    if action in (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE):
        return f"{what} on {arg1}"
    if action == sqlite3.SQLITE_ALTER_TABLE:
        return f"{what} {arg2}"
    return f"{what} {arg1}" if arg1 and action != sqlite3.SQLITE_SAVEPOINT else what


class Guard:
    """The authorizer, time limit and Ctrl-C handling of one read-only connection."""

    def __init__(self, conn: sqlite3.Connection, path: Path | None = None):
        self.conn = conn
        self.path = path
        self.refused: str | None = None  # the first thing the authorizer refused in the current statement
        conn.set_authorizer(self._authorize)

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, _db: str | None, _src: str | None) -> int:
        what = _refusal(action, arg1, arg2)
        if what is None:
            return sqlite3.SQLITE_OK
        if self.refused is None:
            self.refused = what
        return sqlite3.SQLITE_DENY

    def run(self, query: str, params: tuple[Any, ...] = (), timeout: float = DEFAULT_TIMEOUT
            ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one ad-hoc statement: (column names, rows). Refused, timed out or interrupted: one-line errors."""
        if timeout <= 0:
            raise TgIndexError(f"--timeout must be more than 0 seconds, got {timeout:g}")
        self.refused = None
        stop: list[str] = []
        deadline = time.monotonic() + timeout

        def progress() -> int:
            if not stop and time.monotonic() > deadline:
                stop.append("timeout")
            return 1 if stop else 0

        previous = _catch_sigint(stop)
        self.conn.set_progress_handler(progress, _STEPS)
        try:
            cur = self.conn.execute(query, params)
            rows = cur.fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc, stop, timeout) from None
        finally:
            self.conn.set_progress_handler(None, 0)
            _restore_sigint(previous)
        if "interrupt" in stop:
            raise Interrupted("interrupted; the query was stopped")
        return [d[0] for d in cur.description] if cur.description else [], rows

    def _error(self, exc: sqlite3.Error, stop: list[str], timeout: float) -> TgIndexError:
        message = str(exc)
        if stop and stop[0] == "interrupt":
            return Interrupted("interrupted; the query was stopped")
        if stop:
            return TgIndexError(f"the query ran longer than the time limit of {timeout:g} s and was stopped; "
                                "give more with --timeout SECONDS")
        if self.refused is not None:
            return TgIndexError(f"the index is read-only here; {self.refused} is refused (tg-query sql only reads)")
        if "readonly" in message or "read-only" in message or "may not be modified" in message:
            return TgIndexError(f"the index is read-only here; {message}")
        if "malformed" in message or "not a database" in message:
            return TgIndexError(f"the index at {self.path} is damaged ({message}); rebuild it with `tg-index`")
        return TgIndexError(f"SQL error: {message}")


def _catch_sigint(stop: list[str]) -> tuple[Any] | None:
    """While a query runs, Ctrl-C marks it to stop (the progress handler ends it); only the main thread can.
    (signal and threading are imported here: a process that runs no ad-hoc query does without them.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return (signal.signal(signal.SIGINT, lambda _sig, _frame: stop.append("interrupt")),)


def _restore_sigint(previous: tuple[Any] | None) -> None:
    if previous is not None:
        import signal

        signal.signal(signal.SIGINT, previous[0] if previous[0] is not None else signal.default_int_handler)


def connect(db: Path) -> tuple[sqlite3.Connection, Guard]:
    """Open an index read-only by URI with query_only on and the guard installed."""
    conn = sqlite3.connect(read_only_uri(db.resolve(), immutable=True), uri=True)
    conn.execute("PRAGMA query_only=ON")
    return conn, Guard(conn, db)
