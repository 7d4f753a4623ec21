"""The dispatcher stage: fill dispatcher_registrations from the facts of the C++ and yaml stages.

Runs after them on every build that writes (any changed fact can change a registration):
the generated registrations from the rules model (the yaml texts and the checkout's version),
the hand-written ones from the `registrations` facts. The table is replaced as a whole.
"""

from __future__ import annotations

import sqlite3

from .. import derivatives, native_yaml
from ..errors import TgIndexError
from . import generated_registrations, parse_version
from .handwritten import WrittenRegistration, handwritten_row
from .rows import INSERT, DispatcherRow, generated_row

NEWEST = (99, 0)


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


def handwritten_rows(conn: sqlite3.Connection) -> list[DispatcherRow]:
    rows = []
    for fact in conn.execute("SELECT kind, macro, namespace, dispatch_key, op, function, file, line, via "
                             "FROM registrations WHERE kind != 'block' ORDER BY id"):
        row = handwritten_row(WrittenRegistration(*fact))
        if row is not None:
            rows.append(row)
    return rows


def fill(conn: sqlite3.Connection, texts: dict[str, str], version: str) -> int:
    """Replace dispatcher_registrations; the number of rows written."""
    rows = generated_rows(texts, version) + handwritten_rows(conn)
    conn.execute("DELETE FROM dispatcher_registrations")
    conn.executemany(INSERT, [r.row() for r in rows])
    return len(rows)
