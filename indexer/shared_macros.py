"""The build's second extraction pass: files whose definitions are written through another file's X-macro list.

`AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(DEFINE_CAST)` in TensorMethods.cpp applies a list that c10/core/ScalarType.h
defines to a macro of the file that writes functions. Extraction is per file and pure, so on the first pass
it only records the use (definition_macro_uses, expanded NULL). Once every file is extracted, the macros table
holds every #define; this stage finds the list's #define as the use sees it (dispatcher/macro_uses.MacroTable:
the file's own, then one its includes reach, then the first by path), with the function-like macros its body
names in turn, and extracts the file again with them (cxx.extract's `shared`). The file's rows are replaced
by the new ones; each use then carries the hash of the #defines it was expanded with, so an update extracts
a kept file again only when those #defines changed.

A function body's use of another file's macro that calls one of its parameters is extracted again the same way
(body_uses): cuda/cub-RadixSortPairs.cu writes `CUB_WRAPPER(NO_ROCM(at_cuda_detail)::cub::DeviceRadixSort::SortPairs,
...)`, and cub.cuh:38's body calls `func(nullptr, ...)`: the expansion's call is cub's, at the use's line. The
first pass sees such a use as a call of the macro's name (calls), and the second pass records it in
definition_macro_uses once expanded.
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


def _in_files(files: frozenset[str] | None) -> tuple[str, list[str]]:
    """The condition on a calls row (and its parameters) that it is a function's call in one of `files` (None:
    every call of a function): found through ix_calls_caller, as a call's caller is a definition of its file."""
    if files is None:
        return "caller IS NOT NULL", []
    marks = ",".join("?" * len(files))
    return (f"caller IN (SELECT qualified_name FROM definitions WHERE file IN ({marks})) AND file IN ({marks})",
            sorted(files) * 2)


def uses_by_file(conn: sqlite3.Connection, files: frozenset[str] | None = None
                 ) -> dict[str, list[tuple[str, int, str | None]]]:
    """definition_macro_uses by file (of `files`; None: every file): (macro, line, expanded)."""
    out: dict[str, list[tuple[str, int, str | None]]] = {}
    for file, name, line, expanded in conn.execute(
            "SELECT file, name, line, expanded FROM definition_macro_uses ORDER BY id"):
        if files is not None and file not in files:
            continue
        out.setdefault(file, []).append((name, line, expanded))
    return out


def parameter_callers(conn: sqlite3.Connection, files: frozenset[str] | None = None) -> set[str]:
    """The names of the function-like #defines whose body calls a parameter or launches (body_macros); with
    `files`, those of them that a function of one of the files calls (all body_uses asks of those files)."""
    from .cxx.body_macros import calls_parameter
    from .cxx.preprocessor import Define
    from .dispatcher.macro_uses import parse_params

    called, args = ("", []) if files is None else \
        (" AND name IN (SELECT callee_name FROM calls WHERE " + _in_files(files)[0] + ")", _in_files(files)[1])
    return {name for name, params, body in conn.execute(
        "SELECT name, params, body FROM macros WHERE truncated = 0 AND params IS NOT NULL" + called, args)
        if calls_parameter(Define(name, parse_params(params), body))}


def callers_used(conn: sqlite3.Connection, callers: set[str], files: frozenset[str] | None = None) -> bool:
    """Whether a function (of `files`; None: of any file) calls one of `callers` (parameter_callers: a
    candidate for body_uses)."""
    marks = ",".join("?" * len(callers))
    where, args = _in_files(files)
    return bool(callers) and conn.execute(f"SELECT 1 FROM calls WHERE {where} AND callee_name IN ({marks}) "
                                          "LIMIT 1", [*args, *sorted(callers)]).fetchone() is not None


def body_uses(conn: sqlite3.Connection, table, callers: set[str], contents: Mapping[str, bytes],
              files: frozenset[str] | None = None) -> dict[str, list[tuple[str, int, list[str]]]]:
    """Per file, another file's macros that call a parameter or launch which the file uses
    (`CUB_WRAPPER(NO_ROCM(at_cuda_detail)::cub::DeviceRadixSort::SortPairs, ...)` in cuda/cub-RadixSortPairs.cu,
    the #define in cub.cuh, which it includes): (macro, line of a call of it, the names written in its uses'
    arguments, which may be macros: NO_ROCM). The files are those whose functions call such a name (calls);
    the names come from the file's text, not from its rows, which a second pass has already written: so the
    #defines a file is extracted with are the same on a cold build and on an update. Only a #define the file
    reaches through its includes counts; a file's own is expanded on the first pass. files: those looked at
    (None: every file)."""
    from .cxx.scan import balanced_args

    if not callers:
        return {}
    marks = ",".join("?" * len(callers))
    where, args = _in_files(files)
    first_line: dict[tuple[str, str], int] = {}
    for file, name, line in conn.execute(
            f"SELECT file, callee_name, line FROM calls WHERE {where} AND callee = callee_name "
            f"AND callee_name IN ({marks}) ORDER BY file, line", [*args, *sorted(callers)]):
        first_line.setdefault((file, name), line)
    out: dict[str, list[tuple[str, int, list[str]]]] = {}
    for (file, name), line in sorted(first_line.items()):
        defs = table.by_name.get(name, [])
        if any(d.file == file for d in defs) or not any(d.file in table.includes.closure(file) for d in defs):
            continue
        text = contents.get(file)
        if text is None:
            continue
        written: set[str] = set()
        for m in re.finditer(rb"(?<![\w.>:])" + re.escape(name.encode()) + rb"\s*\(", text):
            parsed = balanced_args(text, m.end() - 1)
            if parsed is not None:
                written.update(w for a in parsed[0] for w in _WORD.findall(a))
        out.setdefault(file, []).append((name, line, sorted(written - {name})))
    return out


def expand(conn: sqlite3.Connection, contents: Mapping[str, bytes], stub_header: bytes | None, includes,
           callers: set[str], files: frozenset[str] | None = None) -> list[str]:
    """Extract again the files whose X-macro uses, or uses in bodies of another file's macro that calls a
    parameter (body_uses), the macros table can now expand, replacing their rows; the paths extracted again.
    includes: the include graph of the C++ facts (link.includes.IncludeGraph); callers: parameter_callers;
    files: the files looked at (None: every file; an update gives those it extracted, when the others'
    expansions read what they read before: build._macro_files)."""
    from . import cxx
    from .cxx.expansions import shared_hash
    from .dispatcher.macro_uses import MacroTable
    from .rows import RowBatch, cxx_tables, file_rows

    uses = uses_by_file(conn, files)
    if not uses and not callers:
        return []
    table = MacroTable(conn.execute(
        "SELECT name, params, body, file, line FROM macros WHERE truncated = 0 AND params IS NOT NULL ORDER BY id"),
        includes)
    in_bodies = body_uses(conn, table, callers, contents, files)
    ids = dict(conn.execute("SELECT path, id FROM files"))
    macros = None  # the DispatchStub macros, read from the header (80 ms) when a file is extracted again
    tables = cxx_tables()
    batch = RowBatch(conn.executemany, tables)
    done: list[str] = []
    for file in sorted(set(uses) | set(in_bodies)):
        rows = uses.get(file, [])
        if file not in ids or file not in contents:
            continue
        shared: dict[str, Define] = {}
        for name, line, _ in rows:
            shared.update(needed(table.at(file, line), [name]))
        for name, line, others in in_bodies.get(file, ()):  # the macro last: needed() takes it first (MAX_SHARED)
            shared.update(needed(table.at(file, line), [*others, name]))
        if not shared:
            continue
        tag = shared_hash(shared)
        if rows and all(expanded == tag for _, _, expanded in rows):
            continue  # extracted with these #defines already (a file's first pass records no body use)
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

