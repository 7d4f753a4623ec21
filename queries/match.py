"""How the read side matches names in SQL: exactly, at a `::` boundary, by an escaped prefix, or by a user's glob.

A name the user gives is never a pattern: `symbol ADD_KERNEL` or `symbol '%'`
match nothing unless a definition has that very name. Only `ops --name` takes
a glob, SQLite's GLOB (case-sensitive, `*`, `?`, `[...]`), passed as written.
"""

from __future__ import annotations

from ..indexer.errors import TgIndexError

MAX_PATTERN = 50_000  # SQLite's default SQLITE_MAX_LIKE_PATTERN_LENGTH: longer GLOB patterns are refused
_SHOWN = 80


def glob_literal(text: str) -> str:
    """`text` as a GLOB pattern that matches exactly it: `*`, `?` and `[` are bracketed."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def prefix_glob(text: str) -> str:
    """A GLOB pattern for the names that start with `text`."""
    return glob_literal(text) + "*"


def suffix_clause(column: str) -> str:
    """SQL that is true when `column` is the bound name or ends with `::` + it (two parameters: see suffix_args)."""
    return f"({column} = ? OR substr({column}, -?) = ?)"


def suffix_args(name: str) -> tuple[str, int, str]:
    tail = "::" + name
    return name, len(tail), tail


def at_boundary(written: str, name: str) -> bool:
    """`cuda::blas::gemm` ends with `blas::gemm` at a `::` boundary; `cublas::gemm` does not."""
    return written == name or written.endswith("::" + name)


def user_glob(pattern: str, option: str) -> str:
    """A glob the user wrote, checked so that SQLite does not refuse it with a message about something else."""
    if len(pattern) > MAX_PATTERN:
        raise TgIndexError(f"{option} pattern is {len(pattern)} characters long; the limit is {MAX_PATTERN}")
    return pattern


def shown(name: str) -> str:
    """A name as an error message shows it: repr'd, and shortened when it is very long."""
    if len(name) <= _SHOWN:
        return repr(name)
    return repr(name[:60]) + f"... ({len(name)} characters)"
