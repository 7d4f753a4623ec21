"""Compare every table's rows of two tg-index databases (a refactor must keep facts identical).

    python tests/compare_index.py BEFORE.db AFTER.db [--ignore TABLE]...

Prints one line per table that differs, with counts of rows only in one side and a few
examples, and exits 1 when anything differs. The meta table holds build times and
hashes, so it is compared only on the keys that describe the checkout.
"""

from __future__ import annotations

import sqlite3
import sys

STABLE_META = ("checkout", "pytorch_version", "schema_version", "files")


def _rows(conn: sqlite3.Connection, table: str) -> tuple[list[str], set[tuple]]:
    cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    if table == "meta":
        marks = ",".join("?" * len(STABLE_META))
        return cols, set(conn.execute(f"SELECT * FROM meta WHERE key IN ({marks})", STABLE_META))
    return cols, set(conn.execute(f"SELECT * FROM {table}"))


def compare(before: str, after: str, ignore: set[str]) -> int:
    a, b = sqlite3.connect(before), sqlite3.connect(after)
    tables_a = {r[0] for r in a.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    tables_b = {r[0] for r in b.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    differ = 0
    for t in sorted(tables_a ^ tables_b):
        print(f"{t}: only in {'before' if t in tables_a else 'after'}")
        differ += 1
    for t in sorted((tables_a & tables_b) - ignore):
        cols_a, rows_a = _rows(a, t)
        cols_b, rows_b = _rows(b, t)
        if cols_a != cols_b:
            print(f"{t}: columns differ: {cols_a} != {cols_b}")
            differ += 1
            continue
        gone, new = rows_a - rows_b, rows_b - rows_a
        if gone or new:
            differ += 1
            print(f"{t}: {len(rows_a)} -> {len(rows_b)} rows, {len(gone)} only before, {len(new)} only after")
            for r in sorted(gone, key=repr)[:3]:
                print(f"  - {r}")
            for r in sorted(new, key=repr)[:3]:
                print(f"  + {r}")
        else:
            print(f"{t}: {len(rows_a)} rows identical")
    return 1 if differ else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    ignore = {args[i + 1] for i, x in enumerate(args) if x == "--ignore"}
    paths = [x for i, x in enumerate(args) if x != "--ignore" and (i == 0 or args[i - 1] != "--ignore")]
    if len(paths) != 2:
        sys.exit(__doc__)
    sys.exit(compare(paths[0], paths[1], ignore))
