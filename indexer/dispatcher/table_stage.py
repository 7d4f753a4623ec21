"""The build stage that writes tables dispatch_keys, dispatch_keysets and dispatch_table.

It runs after the stage that fills dispatcher_registrations: the keys come from the checkout's
c10/core/DispatchKey.h and DispatchKeySet.h/.cpp (keymodel.py), the table from the
registrations (table.py). A checkout whose key headers are laid out otherwise gets empty tables
and one warning for the build's summary line, never a failed build; one without
c10/core/DispatchKey.h (a partial tree) gets empty tables and no warning.
"""

from __future__ import annotations

import json
import sqlite3

from .keymodel import DispatchKeys, read
from .keys import DISPATCH_KEY_H, DispatchKeysError
from .table import Registration, compute

TABLES = ("dispatch_keys", "dispatch_keysets", "dispatch_table")
# py_impl kernels go to the Python dispatcher (OpOverload.py_kernels, torch/_ops.py), not to the C++
# dispatcher's table that OperatorEntry.cpp computes: they stay in dispatcher_registrations only.
_REGISTRATIONS = ("SELECT op, key, kernel, source, file, line, fallthrough, kind FROM dispatcher_registrations "
                  "WHERE NOT (source = 'python' AND generator = 'py_impl') ORDER BY id")


def write(conn: sqlite3.Connection, sources: dict[str, bytes]) -> str | None:
    """Fill the three tables from the key sources and the registrations in conn; the warning, if any."""
    for table in TABLES:
        conn.execute(f"DELETE FROM {table}")
    if DISPATCH_KEY_H not in sources:
        return None
    try:
        keys = read(sources)
    except DispatchKeysError as exc:
        return f"dispatch keys not read ({exc}); no computed dispatch table"
    conn.executemany("INSERT INTO dispatch_keys (name, kind, priority, functionality, backend, same_as, covered_by, "
                     "file, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", _key_rows(keys))
    conn.executemany("INSERT INTO dispatch_keysets (name, functionality, backends) VALUES (?, ?, ?)", _set_rows(keys))
    has_registrations = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dispatcher_registrations'").fetchone()
    if not has_registrations:
        return "no dispatcher_registrations table; no computed dispatch table"
    regs = (Registration(op, key, kernel, source, file, line, bool(ft), kind)
            for op, key, kernel, source, file, line, ft, kind in conn.execute(_REGISTRATIONS).fetchall())
    entries, _unknown = compute(keys, regs)
    conn.executemany(
        "INSERT INTO dispatch_table (op, key, kind, fallthrough, from_key, kernel, source, file, line, others) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(e.op, e.key, e.kind, int(bool(e.reg and e.reg.fallthrough)), e.from_key,
          e.reg.kernel if e.reg else "ambiguousAutogradOtherKernel", e.reg.source if e.reg else None,
          e.reg.file if e.reg else None, e.reg.line if e.reg else None, e.others) for e in entries])
    return None


def _key_rows(keys: DispatchKeys) -> list[tuple]:
    rows = []
    for k in keys.enum.keys.values():
        priority = k.priority
        if k.kind == "synonym":
            priority = keys.enum.keys[k.same_as].priority if k.same_as in keys.enum.keys else priority
        covered = list(keys.covered_by(k.name)) if k.kind in ("functionality", "runtime") else []
        rows.append((k.name, k.kind, priority, k.functionality, k.backend, k.same_as, json.dumps(covered),
                     DISPATCH_KEY_H, k.line))
    return rows


def _set_rows(keys: DispatchKeys) -> list[tuple]:
    named = dict(keys.sets)
    for b in keys.enum.backends:
        named[f"getAutogradRelatedKeySetFromBackend({b})"] = keys.autograd_related[b]
        named[f"getAutocastRelatedKeySetFromBackend({b})"] = keys.autocast_related[b]
    return [(name, json.dumps(sorted(ks.funcs)), json.dumps(sorted(ks.backends))) for name, ks in named.items()]
