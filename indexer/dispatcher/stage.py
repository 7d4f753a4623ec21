"""The dispatcher stage: fill dispatcher_registrations from the facts of the C++ and yaml stages.

Runs after them on every build that writes (any changed fact can change a registration):
the generated registrations from the rules model (the yaml texts and the checkout's version),
the hand-written ones from the `registrations` facts and from the macro uses in registration
blocks expanded with the macros of other files (macro_uses.py), the Python ones from the
files `import torch` runs and the py_decomps facts (python_regs.py). The table is replaced as a whole.
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from pathlib import Path

from .. import code_hash, codegen, derivatives, native_yaml
from ..errors import TgIndexError
from . import generated_registrations, parse_version
from .handwritten import WrittenRegistration, handwritten_row
from .macro_uses import macro_rows
from .python_regs import python_rows
from .rows import INSERT, DispatcherRow, generated_row

NEWEST = (99, 0)


def stage_hash() -> str:
    """Hash of this package's code (16 hex digits): an index whose registrations other code made is made again."""
    return code_hash.dispatcher_stage()


def generated_rows(texts: dict[str, str], version: str) -> list[DispatcherRow]:
    """The codegen's registrations (none without native_functions.yaml; the newest rules for an unknown version)."""
    native_text = texts.get(native_yaml.NATIVE_FUNCTIONS)
    if native_text is None:
        return []
    native = native_yaml.parse(native_text, texts.get(native_yaml.TAGS))
    derivs = derivatives.parse(texts[derivatives.DERIVATIVES]) if derivatives.DERIVATIVES in texts else ()
    try:
        v = parse_version(version)
    except TgIndexError:  # "unknown" (no readable version.txt): the newest rules known, as backward.py does
        v = NEWEST
    return [generated_row(r) for r in generated_registrations(native, derivs, v)]


_NOT_GENERATED = f"file NOT LIKE '{codegen.PREFIX}/%'"  # the files --codegen gave are the generated rows' own


def handwritten_rows(conn: sqlite3.Connection) -> list[DispatcherRow]:
    rows = []
    for fact in conn.execute("SELECT kind, macro, namespace, dispatch_key, op, function, file, line, via "
                             f"FROM registrations WHERE kind != 'block' AND {_NOT_GENERATED} ORDER BY id"):
        row = handwritten_row(WrittenRegistration(*fact))
        if row is not None:
            rows.append(row)
    return rows


def with_generated_lines(conn: sqlite3.Connection, rows: list[DispatcherRow]) -> list[DispatcherRow]:
    """With --codegen's files indexed, a generated row is at its m.impl in the generated file (the rules
    model names the same files: the integration tests hold the two equal per op and key)."""
    written: dict[tuple[str, str], tuple[str, int]] = {}
    for op, key, file, line in conn.execute(
            "SELECT op, dispatch_key, file, line FROM registrations WHERE kind = 'impl' AND file LIKE ?",
            (f"{codegen.PREFIX}/%",)):
        written.setdefault((op if "::" in op else f"aten::{op}", key), (file, line))
    if not written:
        return rows
    out = []
    for r in rows:
        at = written.get((r.op, r.key))
        out.append(dataclasses.replace(r, file=at[0], line=at[1]) if at is not None else r)
    return out


def activate_meta_filter(conn: sqlite3.Connection, others: list[DispatcherRow],
                         python: list[DispatcherRow]) -> list[DispatcherRow]:
    """register_meta's rows without those activate_meta() skips (torch/_meta_registrations.py): an op with a
    CompositeImplicitAutograd kernel, and a view op (its schema returns an alias without `!`)."""
    composite = {r.op for r in others if r.key == "CompositeImplicitAutograd"}
    views = {f"aten::{name}" for name, func in conn.execute("SELECT name, func FROM ops")
             if _returns_alias(func)}
    return [r for r in python if r.generator != "register_meta" or (r.op not in composite and r.op not in views)]


def _returns_alias(func: str) -> bool:
    """`transpose.int(Tensor(a) self, ...) -> Tensor(a)`: the returns carry an alias annotation that writes nothing."""
    returns = func.rsplit("->", 1)[-1] if "->" in func else ""
    return bool(re.search(r"\(\w+\)", returns))


def fill(conn: sqlite3.Connection, root: Path, texts: dict[str, str], version: str) -> int:
    """Replace dispatcher_registrations; the number of rows written."""
    generated = with_generated_lines(conn, generated_rows(texts, version))
    others = generated + handwritten_rows(conn) + macro_rows(conn)
    rows = others + activate_meta_filter(conn, others, python_rows(conn, root))
    conn.execute("DELETE FROM dispatcher_registrations")
    conn.executemany(INSERT, [r.row() for r in rows])
    return len(rows)
