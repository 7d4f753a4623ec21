"""Datasette metadata for an index: descriptions, labels, sort orders, facets and canned queries.

Every description comes from the one source the models are: a table's is its
model's docstring, a column's its `comment=` in schema/models.py, a view's the
SQL comment above it in schema/views.sql. Columns the models leave without a
comment get the schema-wide meaning of their name (COLUMN_NAMES: ids, file,
line, caller) or of their foreign key; UNDOCUMENTED marks the rest, so that a
missing comment shows in Datasette instead of being papered over.

    tg-query datasette-metadata -o metadata.json
    datasette serve INDEX.db -m metadata.json
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

COLUMN_NAMES = {  # what a column name means in every table of the schema
    "id": "row id",
    "file": "path relative to the checkout",
    "line": "1-based line in file",
    "end_line": "last line, 1-based",
    "caller": "qualified name of the enclosing function; NULL at namespace scope",
    "location": "file:line, the path relative to the checkout",
}
UNDOCUMENTED = "(no comment in schema/models.py)"

# Labels for foreign keys, default sort orders on indexed columns, facets on small vocabularies.
LABELS = {"ops": "name", "files": "path", "tags": "name", "derivatives": "op"}
SORT = {"ops": "name", "dispatch": "op", "files": "path", "definitions": "qualified_name", "stubs": "stub",
        "calls": "callee_name", "py_defs": "qualname", "py_classes": "qualname", "tags": "name"}
FACETS = {"dispatch": ["key", "origin"], "ops": ["kind", "structured"], "stubs": ["kind", "device", "arch"],
          "definitions": ["kind"], "launches": ["kind"], "library_calls": ["family"],
          "registrations": ["kind", "dispatch_key"], "py_calls": ["kind"], "py_decomps": ["kind", "how"],
          "files": ["language", "status"], "derivative_formulas": ["kind"]}

QUERIES: dict[str, dict[str, str]] = {
    "kernels_for_op": {
        "title": "Kernels for an op",
        "description": "Per dispatch key of an op (add.out): the C++ kernel and where it is defined "
                       "(structured kernels: their TORCH_IMPL_FUNC). A key without a definition is generated "
                       "at build time or not in the checkout.",
        "sql": "SELECT d.key, d.kernel, d.origin, d.via, def.qualified_name, def.file || ':' || def.line AS definition\n"
               "FROM dispatch d LEFT JOIN definitions def ON def.qualified_name = d.cpp_namespace || '::' || d.kernel\n"
               "  OR (d.structured = 1 AND def.kind = 'impl_func' AND def.name = d.kernel)\n"
               "WHERE d.op = :op ORDER BY d.id, def.file",
    },
    "dispatch_table": {
        "title": "Dispatch table of an op",
        "description": "The op -> key -> kernel rows of an op (add.out), with where each comes from (origin) "
                       "and its native_functions.yaml line.",
        "sql": "SELECT key, kernel, cpp_namespace, origin, via, location FROM v_dispatch WHERE op = :op",
    },
    "stub_registrations": {
        "title": "Registrations of a DispatchStub",
        "description": "The kernel each device (and CPU capability) registers for a stub (add_stub); "
                       "nullptr registrations included.",
        "sql": "SELECT device, arch, kernel, is_nullptr, macro, file || ':' || line AS location\n"
               "FROM stubs WHERE stub = :stub AND kind = 'register' ORDER BY device, arch, file, line",
    },
    "callers_of_function": {
        "title": "Callers of a function",
        "description": "Call sites of a function by its last name component (add_kernel_cuda).",
        "sql": "SELECT caller, callee, file || ':' || line AS location\n"
               "FROM calls WHERE callee_name = :name ORDER BY file, line",
    },
    "callers_walk": {
        "title": "Callers of callers, through stubs",
        "description": "A recursive walk up from a function (add_kernel_cuda) to :depth levels: the functions "
                       "that call it, the functions that call a stub it is registered for, and so on.",
        "sql": "WITH RECURSIVE up(function, short, depth, how) AS (\n"
               "  SELECT :name, :name, 0, 'start'\n"
               "  UNION\n"
               "  SELECT c.caller, d.name, up.depth + 1, 'calls ' || up.short || ' at ' || c.file || ':' || c.line\n"
               "  FROM up JOIN calls c ON c.callee_name = up.short JOIN definitions d ON d.qualified_name = c.caller\n"
               "  WHERE up.depth < CAST(:depth AS INTEGER)\n"
               "  UNION\n"
               "  SELECT u.caller, d.name, up.depth + 1, 'uses ' || s.stub || ' at ' || u.file || ':' || u.line\n"
               "  FROM up JOIN stubs s ON s.kernel = up.short AND s.kind = 'register'\n"
               "  JOIN stub_uses u ON u.stub = s.stub JOIN definitions d ON d.qualified_name = u.caller\n"
               "  WHERE up.depth < CAST(:depth AS INTEGER)\n"
               ")\n"
               "SELECT depth, function, how FROM up WHERE depth > 0 ORDER BY depth, function LIMIT 1000",
    },
}


def _table_docs() -> dict[str, str]:
    """table name -> its model's docstring, whitespace folded."""
    from ..schema.models import Base

    return {m.class_.__tablename__: " ".join(inspect.cleandoc(m.class_.__doc__ or "").split())
            for m in Base.registry.mappers}


def _column_doc(column: Any) -> str:
    if column.comment:
        return column.comment
    if column.name in COLUMN_NAMES:
        return COLUMN_NAMES[column.name]
    for fk in column.foreign_keys:
        return f"the row of {fk.column.table.name} ({fk.target_fullname})"
    return UNDOCUMENTED


def _views() -> dict[str, tuple[str, list[str], list[str]]]:
    """view name -> (the comment above it in views.sql, its columns, the tables it reads), the views made
    on an empty schema."""
    from ..schema import views_sql
    from ..schema.models import Base
    from sqlalchemy import create_engine

    sql = views_sql()
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    conn = engine.raw_connection()
    try:
        conn.executescript(sql)
        found = {}
        for comment, name, body in re.findall(r"((?:--[^\n]*\n)+)CREATE VIEW (\w+) AS(.*?);", sql, re.S):
            doc = " ".join(line.lstrip("- ").strip() for line in comment.strip().splitlines()).strip()
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
            found[name] = (doc, columns, re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", body))
        return found
    finally:
        conn.close()


def _tables() -> dict[str, dict[str, Any]]:
    from ..schema.models import Base

    docs = _table_docs()
    tables: dict[str, dict[str, Any]] = {}
    for table in Base.metadata.sorted_tables:
        cols = {c.name: _column_doc(c) for c in table.columns}
        entry: dict[str, Any] = {"description": docs.get(table.name, ""), "columns": cols}
        if table.name in LABELS:
            entry["label_column"] = LABELS[table.name]
        if table.name in SORT:
            entry["sort"] = SORT[table.name]
        if table.name in FACETS:
            entry["facets"] = FACETS[table.name]
        tables[table.name] = entry
    for name, (doc, cols, sources) in _views().items():
        tables[name] = {"description": doc, "columns": {c: _view_column_doc(c, sources, tables) for c in cols}}
    return tables


def _view_column_doc(column: str, sources: list[str], tables: dict[str, dict[str, Any]]) -> str:
    """A view's column is described as the column of that name in the tables the view reads."""
    if column in COLUMN_NAMES:
        return COLUMN_NAMES[column]
    for table in sources:
        doc = tables.get(table, {}).get("columns", {}).get(column)
        if doc is not None and doc != UNDOCUMENTED:
            return doc
    return UNDOCUMENTED


def metadata(database: str) -> dict[str, Any]:
    """The metadata for an index that Datasette serves as `database` (the file name without .db)."""
    return {
        "title": "tg-index",
        "description": "Where PyTorch ops really run: native_functions.yaml, dispatch keys, kernels, stubs, "
                       "launches, Python entry points, each with file:line relative to the checkout.",
        "databases": {database: {"tables": _tables(), "queries": QUERIES}},
    }


def database_name(db: Path) -> str:
    """The name Datasette gives a database file: its name without the suffix."""
    return db.stem


def metadata_json(db: Path) -> str:
    return json.dumps(metadata(database_name(db)), indent=2) + "\n"


def undocumented() -> list[str]:
    """table.column for every column that neither the models nor COLUMN_NAMES describe."""
    tables = _tables()
    return [f"{t}.{c}" for t, entry in tables.items() for c, doc in entry["columns"].items() if doc == UNDOCUMENTED]


__all__ = ["metadata", "metadata_json", "database_name", "undocumented", "QUERIES", "COLUMN_NAMES"]
