"""The one source of each table's columns: the models, the fact classes (rows.py), version.TABLES
and the README's table of columns all agree."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tg_index.indexer import chain_stage, cxx, derivatives, link, native_yaml, python_api, rows
from tg_index.indexer.dispatcher import table_stage
from tg_index.indexer.facts import Location
from tg_index.schema import Base
from tg_index.schema.version import TABLES

README = Path(__file__).parent.parent / "README.md"

# Each table of a source file's facts and the fact class it stores.
FILE_FACTS = {
    "definitions": cxx.DefinitionFact,
    "stubs": cxx.StubFact,
    "stub_uses": cxx.StubUseFact,
    "calls": cxx.CallFact,
    "launches": cxx.LaunchFact,
    "type_dispatch": cxx.DtypeDispatchFact,
    "library_calls": cxx.LibraryCallFact,
    "registrations": cxx.RegistrationFact,
    "includes": cxx.IncludeFact,
    "macros": cxx.MacroFact,
    "usings": cxx.UsingFact,
    "classes": cxx.ClassFact,
    "kernel_aliases": cxx.KernelAliasFact,
    "inline_namespaces": cxx.InlineNamespaceFact,
    "device_branches": cxx.DeviceBranchFact,
    "py_defs": python_api.DefFact,
    "py_classes": python_api.ClassFact,
    "py_calls": python_api.CallFact,
    "py_bindings": python_api.BindingFact,
    "py_reexports": python_api.ReexportFact,
    "py_decomps": python_api.DecompFact,
}


def _fields(fact: type) -> list[str]:
    return [f.name for f in dataclasses.fields(fact)] if dataclasses.is_dataclass(fact) else list(fact._fields)


def _model_columns(table: str) -> set[str]:
    return {c.name for c in Base.metadata.tables[table].columns}


@pytest.mark.parametrize("table, fact", FILE_FACTS.items(), ids=FILE_FACTS)
def test_model_columns_are_the_fact_fields(table: str, fact: type):
    """file_id, file and the row id, then one column per field (a loc gives the line); py_classes
    also has nn_module, which the build works out across files."""
    columns = {"line" if f == "loc" else f for f in _fields(fact)}
    extra = {"nn_module"} if table == "py_classes" else set()
    assert _model_columns(table) == columns | extra | {"id", "file_id", "file"}


@pytest.mark.parametrize("table, fact, keys, skipped", [
    ("tags", native_yaml.TagFact, set(), set()),
    ("ops", native_yaml.OpFact, {"id", "base", "overload"}, {"tags"}),
    ("dispatch", native_yaml.DispatchFact, {"id", "op_id"}, set()),
    ("ufunc_loops", native_yaml.UfuncLoop, {"id", "op_id"}, set()),
    ("derivatives", derivatives.DerivativeFact, {"id", "op_id"}, {"formulas"}),
    ("derivative_formulas", derivatives.Formula, {"id", "derivative_id"}, set()),
], ids=lambda v: v if isinstance(v, str) else "")
def test_yaml_model_columns_are_the_fact_fields(table: str, fact: type, keys: set[str], skipped: set[str]):
    """A YAML fact's loc gives file and line; tags and formulas have tables of their own."""
    columns = set()
    for f in _fields(fact):
        columns |= {"file", "line"} if f == "loc" else set() if f in skipped else {f}
    assert _model_columns(table) == columns | keys


def _written_tables() -> list[rows.Table]:
    return [*rows.cxx_tables(), *rows.py_tables(), *rows.yaml_tables().values()]


@pytest.mark.parametrize("table", _written_tables(), ids=lambda t: t.name)
def test_rows_write_every_model_column_but_the_row_id(table: rows.Table):
    assert len(set(table.all_columns)) == len(table.all_columns)
    assert _model_columns(table.name) - set(table.all_columns) <= {"id"}
    assert set(table.all_columns) <= _model_columns(table.name)


def test_every_table_has_a_writer_and_version_lists_them():
    written = {t.name for t in _written_tables()} | {"op_tags", "files", "meta", "dispatcher_registrations", "op_backward"} \
        | set(link.GRAPH_TABLES) | set(table_stage.TABLES) | set(chain_stage.TABLES)
    assert written == set(Base.metadata.tables)
    assert TABLES == tuple(sorted(Base.metadata.tables))  # the constant the query side reads without SQLAlchemy
    assert set(rows.OP_TAGS_COLUMNS) == _model_columns("op_tags")
    assert rows.FILES_COLUMNS == tuple(c.name for c in Base.metadata.tables["files"].columns)
    file_tables = {t.name for t in Base.metadata.sorted_tables if "file_id" in t.c}
    assert file_tables == {t.name for t in (*rows.cxx_tables(), *rows.py_tables())}


@pytest.mark.parametrize("table", link.GRAPH_TABLES)
def test_the_link_stage_writes_every_graph_column(table: str):
    assert set(link.GRAPH_TABLES[table]) == _model_columns(table)


@dataclasses.dataclass(frozen=True)
class _Step:
    kind: str
    size: int


@dataclasses.dataclass(frozen=True)
class _Sample:
    name: str
    flags: tuple[str, ...]
    maybe: tuple[bool | str, ...] | None
    steps: tuple[_Step, ...]
    on: bool
    note: str | None
    loc: Location


def test_converter_rules():
    """Tuples as JSON arrays (None stays NULL), dataclasses in a tuple as objects, bools as 0/1, a loc
    as its line when file is a key column, and as file and line otherwise."""
    fact = _Sample("x", ("a", "b"), None, (_Step("k", 2),), True, None, Location("f.cpp", 7))
    of_file = rows.table("t", _Sample)
    assert of_file.columns == ("name", "flags", "maybe", "steps", "on", "note", "line")
    assert of_file.row(fact) == ["x", '["a", "b"]', None, '[{"kind": "k", "size": 2}]', 1, None, 7]
    alone = rows.table("t", _Sample, keys=("id",), skip=("steps",), also=(("upper", "name"),))
    assert alone.columns == ("name", "flags", "maybe", "on", "note", "file", "line", "upper")
    assert alone.row(dataclasses.replace(fact, maybe=(True, "c"), on=False)) == [
        "x", '["a", "b"]', '[true, "c"]', 0, None, "f.cpp", 7, "x"]
    assert alone.insert_sql() == ("INSERT INTO t (id, name, flags, maybe, on, note, file, line, upper) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")


@dataclasses.dataclass(frozen=True)
class _Odd:
    table: dict[str, int]


def test_a_field_no_rule_stores_is_refused_when_the_table_is_described():
    with pytest.raises(TypeError) as err:
        rows.table("t", _Odd)
    assert str(err.value) == "no rule stores a field of type dict[str, int] in a column"


def test_fact_tables_know_where_their_facts_are():
    assert {t.name: t.source for t in rows.cxx_tables()}["type_dispatch"] == "dtype_dispatches"
    assert {t.name: t.source for t in rows.py_tables()}["py_classes"] == "classes"


def _top_level(cell: str) -> list[str]:
    """`a, b (x, y), c` -> [a, b, c]: commas inside parentheses or backticks belong to a note."""
    names, depth, quoted, current = [], 0, False, ""
    for ch in cell:
        quoted ^= ch == "`"
        depth += (ch == "(") - (ch == ")") if not quoted else 0
        if ch == "," and depth == 0 and not quoted:
            names.append(current)
            current = ""
        else:
            current += ch
    names.append(current)
    return [re.sub(r"\s*\(.*", "", n).strip() for n in names]


def _readme_tables() -> dict[str, str]:
    text = README.read_text().split("## For people writing SQL", 1)[1]
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 3 and cells[0] not in ("table", "---"):
            found[cells[0]] = cells[2]
    return found


def test_readme_lists_every_column_of_every_table():
    """The row id of a fact table goes unsaid; every other column is listed."""
    tables = _readme_tables()
    assert set(tables) == set(Base.metadata.tables)
    for name, cell in tables.items():
        assert set(_top_level(cell)) | {"id"} == _model_columns(name) | {"id"}, name


def test_readme_lists_every_meta_key(mini_db: Path):
    import sqlite3

    keys = re.search(r"key \(([^)]*)\)", _readme_tables()["meta"]).group(1)
    with sqlite3.connect(mini_db) as conn:
        written = {k for (k,) in conn.execute("SELECT key FROM meta")}
    assert {k.strip() for k in keys.split(",")} == written
