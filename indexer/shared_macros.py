"""The build's second extraction pass: files whose definitions are written through another file's X-macro list.

`AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(DEFINE_CAST)` in TensorMethods.cpp applies a list that c10/core/ScalarType.h
defines to a macro of the file that writes functions. Extraction is per file and pure, so on the first pass
it only records the use (definition_macro_uses, expanded NULL). Once every file is extracted, the macros table
holds every #define; this stage finds the list's #define as the use sees it (dispatcher/macro_uses.MacroTable:
the file's own, then one its includes reach, then the first by path), with the function-like macros its body
names in turn, and extracts the file again with them (cxx.extract's `shared`). The file's rows are replaced
by the new ones; each use then carries the hash of the #defines it was expanded with, so an update extracts
a kept file again only when those #defines changed.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping

from .cxx.preprocessor import Define

MAX_SHARED = 64  # #defines given to one file at most (a list naming others: AT_FORALL_..._AND3 -> its parts)
_WORD = re.compile(r"[A-Za-z_]\w*")


def needed(lookup: Callable[[str], Define | None], names: list[str]) -> dict[str, Define]:
    """The function-like #defines the uses' macros are, and those their bodies name, transitively."""
    out: dict[str, Define] = {}
    todo = list(names)
    while todo and len(out) < MAX_SHARED:
        name = todo.pop()
        if name in out:
            continue
        d = lookup(name)
        if d is None or d.params is None:
            continue
        out[name] = d
        todo.extend(w for w in _WORD.findall(d.body) if w not in out and w not in d.params)
    return out


def uses_by_file(conn: sqlite3.Connection) -> dict[str, list[tuple[str, int, str | None]]]:
    """definition_macro_uses by file: (macro, line, expanded)."""
    out: dict[str, list[tuple[str, int, str | None]]] = {}
    for file, name, line, expanded in conn.execute(
            "SELECT file, name, line, expanded FROM definition_macro_uses ORDER BY id"):
        out.setdefault(file, []).append((name, line, expanded))
    return out


def expand(conn: sqlite3.Connection, contents: Mapping[str, bytes], stub_header: bytes | None, includes) -> list[str]:
    """Extract again the files whose X-macro uses the macros table can now expand, replacing their rows;
    the paths extracted again. includes: the include graph of the C++ facts (link.includes.IncludeGraph)."""
    from . import cxx
    from .cxx.expansions import shared_hash
    from .dispatcher.macro_uses import MacroTable
    from .rows import RowBatch, cxx_tables, file_rows

    uses = uses_by_file(conn)
    if not uses:
        return []
    table = MacroTable(conn.execute(
        "SELECT name, params, body, file, line FROM macros WHERE truncated = 0 AND params IS NOT NULL ORDER BY id"),
        includes)
    ids = dict(conn.execute("SELECT path, id FROM files"))
    macros = None  # the DispatchStub macros, read from the header (80 ms) when a file is extracted again
    tables = cxx_tables()
    batch = RowBatch(conn.executemany, tables)
    done: list[str] = []
    for file, rows in sorted(uses.items()):
        if file not in ids or file not in contents:
            continue
        shared: dict[str, Define] = {}
        for name, line, _ in rows:
            shared.update(needed(table.at(file, line), [name]))
        if not shared:
            continue
        tag = shared_hash(shared)
        if all(expanded == tag for _, _, expanded in rows):
            continue  # extracted with these #defines already
        data = contents[file]  # (a file an update did not read is read now: discover.Contents)
        if macros is None:
            macros = cxx.stub_macros(stub_header) if stub_header else cxx.DEFAULT_STUB_MACROS
        facts = cxx.extract(data, file, macros, shared)
        if facts.failure is not None:
            continue  # the first pass's rows stay
        for t in tables:
            conn.execute(f"DELETE FROM {t.name} WHERE file_id = ?", (ids[file],))
        batch.add(ids[file], file, file_rows(tables, facts))
        done.append(file)
    batch.flush()
    return done

