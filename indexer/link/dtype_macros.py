"""The #define behind a dtype set that a wrapper macro writes.

A file may write its dtype dispatch through a macro of its own (cuda/Loss.cu's
`AT_DISPATCH_NLL_LOSS_INDEX_TYPES`, whose #define lists Byte and Long) or of a header
(SparseCsrTensorUtils.h's `AT_DISPATCH_SPARSE_VALUE_TYPES`): the set is in the #define, not in the name.
The link gives such a dtypes edge a defined-at edge from the same function, right after it, to the #define
the use sees (MacroTable.where: the file's own above the use, else one its includes reach, else the first
by path), and a header's wrapper's set is read from its body here (extraction, one file at a time, has
read a file-local wrapper's already: type_dispatch.via).

The macros of the header that defines AT_DISPATCH_ALL_TYPES (the dispatch macros themselves:
AT_DISPATCH_FLOATING_TYPES_AND2, AT_DISPATCH_INDEX_TYPES, ...) say their set by their names and get no
edge; neither do AT_DISPATCH_SWITCH and AT_DISPATCH_V2, whose arguments write it. A header's wrapper whose
body dispatches over no dtype (over layouts, AT_DISPATCH_ALL_SPARSE_COMPRESSED_LAYOUTS; over reduction
kinds, AT_DISPATCH_REDUCTION_TYPES) keeps what its name says, and its #define is shown.
"""

from __future__ import annotations

import sqlite3

from .includes import IncludeGraph

ANCHOR = "AT_DISPATCH_ALL_TYPES"  # its header's macros are the dispatch macros themselves
BY_ARGUMENTS = frozenset(("AT_DISPATCH_SWITCH", "AT_DISPATCH_V2"))  # their uses write the set


def shared_rows(conn: sqlite3.Connection, tables: set[str]) -> list[tuple]:
    """The #defines (name, params, body, file, line) of the macros that dtype dispatches written without a
    file-local wrapper name, and of ANCHOR, in id order: what a file's dtypes edges read beyond the file
    (stage.inputs_fingerprint hashes them)."""
    if "type_dispatch" not in tables or "macros" not in tables:
        return []
    return conn.execute(
        "SELECT name, params, body, file, line FROM macros WHERE name IN (SELECT macro FROM type_dispatch WHERE "
        "via IS NULL) OR name = ? ORDER BY id", (ANCHOR,)).fetchall()


class DtypeMacros:
    """The #defines dtypes edges may show, looked up as a use sees them."""

    def __init__(self, conn: sqlite3.Connection, tables: set[str], shared: list[tuple], includes: IncludeGraph):
        from ..cxx.dtypes import dispatched_set  # (both imported by the build's stages already)
        from ..dispatcher.macro_uses import MacroTable

        self.dispatched_set = dispatched_set

        local = conn.execute("SELECT name, params, body, file, line FROM macros WHERE name IN (SELECT macro FROM "
                             "type_dispatch WHERE via IS NOT NULL) ORDER BY id").fetchall() \
            if "type_dispatch" in tables and "macros" in tables else []
        self.table = MacroTable(sorted(set(shared) | set(local), key=lambda r: (r[3], r[4])), includes)

    def defined(self, file: str, line: int, macro: str, via: str | None):
        """(the MacroDef of the wrapper a dtype dispatch at file:line is written with, the set its body says
        where the edge must say it: a header's wrapper's, else None), or None for a dispatch macro itself."""
        if macro in BY_ARGUMENTS:
            return None
        found = self.table.where(file, line, macro)
        if found is None:
            return None
        if via is not None:  # a file-local wrapper: extraction expanded it
            return found, None
        anchor = self.table.where(file, line, ANCHOR)
        if anchor is not None and anchor.file == found.file:
            return None
        return found, self.dispatched_set(found.define.body)
