"""Hand-written registrations made through macros of other files: each registration_macro_uses
row expanded (expand.py) with the cross-file `macros` table, and the m.impl / m.def / m.fallback
calls of the expansion read as the per-file extractor reads written ones.

Which #define a name means at a use (file, line), as the preprocessor would see it there:
the file's own last definition above the line; else one in a file the use's file includes
(directly or through others, IncludeGraph); else, when the include chain does not reach one
(a computed include, a header outside the indexed folders), the first definition by path.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .. import codegen
from ..cxx.preprocessor import Define
from ..cxx.registrations import registration
from ..cxx.scan import ByteOffsets, balanced_args
from ..link.includes import IncludeGraph
from ..vocab import RegistrationKind
from .expand import Expander
from .handwritten import WrittenRegistration, handwritten_row
from .rows import DispatcherRow


@dataclass(frozen=True)
class MacroDef:
    file: str
    line: int
    define: Define


def parse_params(params: str | None) -> tuple[str, ...] | None:
    """`(a, b)` -> ("a", "b"); `()` -> (); `(...)` -> ("...",); None stays None (object-like)."""
    if params is None:
        return None
    inner = params.strip()[1:-1].strip()
    return tuple(p.strip() for p in inner.split(",")) if inner else ()


class MacroTable:
    """Every #define of the index by name, resolved per use site."""

    def __init__(self, rows: Iterable[tuple[str, str | None, str, str, int]], includes: IncludeGraph):
        self.by_name: dict[str, list[MacroDef]] = {}
        for name, params, body, file, line in rows:
            self.by_name.setdefault(name, []).append(MacroDef(file, line, Define(name, parse_params(params), body)))
        for defs in self.by_name.values():
            defs.sort(key=lambda d: (d.file, d.line))
        self.includes = includes

    def at(self, file: str, line: int) -> Callable[[str], Define | None]:
        """The lookup a use at file:line sees."""

        def lookup(name: str) -> Define | None:
            found = self.where(file, line, name)
            return found.define if found is not None else None

        return lookup

    def where(self, file: str, line: int, name: str) -> MacroDef | None:
        """The #define of `name` a use at file:line sees, with its place (the include closure is IncludeGraph's,
        made once per file)."""
        defs = self.by_name.get(name)
        if not defs:
            return None
        own = [d for d in defs if d.file == file and d.line < line]
        if own:
            return own[-1]
        included = [d for d in defs if d.file in self.includes.closure(file)]
        if included:
            return included[0]
        others = [d for d in defs if d.file != file]
        return others[0] if others else None


def load(conn: sqlite3.Connection) -> MacroTable:
    includes = IncludeGraph(
        (r[0] for r in conn.execute("SELECT path FROM files WHERE language IN ('cpp', 'cuda', 'objcpp')")),
        conn.execute("SELECT file, target, system FROM includes ORDER BY id"))
    return MacroTable(conn.execute("SELECT name, params, body, file, line FROM macros ORDER BY id"), includes)


def _calls(var: str) -> re.Pattern[str]:
    return re.compile(r"\b" + re.escape(var) + r"\s*\.\s*(impl|def|fallback)\s*\(")


def expand_use(table: MacroTable, use: tuple) -> list[DispatcherRow]:
    """The registrations one macro use makes (none when it expands to no registration call)."""
    file, macro, namespace, key, var, name, arguments, line = use
    args = json.loads(arguments)
    if table.by_name.get(name) is None:
        return []
    expanded = Expander(table.at(file, line), keep=var).expand_text(f"{name}({', '.join(args)})")
    rows: list[DispatcherRow] = []
    src = expanded.encode()
    offsets = ByteOffsets(expanded)
    for m in _calls(var).finditer(expanded):
        inner = balanced_args(src, offsets.of(m.end() - 1))
        fact = registration(RegistrationKind(m.group(1)), (macro, namespace, key), inner[0] if inner else [], line,
                            via=name)
        row = handwritten_row(WrittenRegistration(fact.kind, fact.macro, fact.namespace, fact.dispatch_key, fact.op,
                                                  fact.function, file, line, fact.via))
        if row is not None:
            rows.append(row)
    return rows


def macro_rows(conn: sqlite3.Connection) -> list[DispatcherRow]:
    uses = conn.execute("SELECT file, macro, namespace, dispatch_key, variable, name, arguments, line "
                        "FROM registration_macro_uses WHERE file NOT LIKE ? ORDER BY id",
                        (f"{codegen.PREFIX}/%",)).fetchall()  # --codegen's files are the generated rows
    if not uses:
        return []
    table = load(conn)
    return [row for use in uses for row in expand_use(table, use)]
