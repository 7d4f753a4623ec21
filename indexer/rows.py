"""Facts -> rows: each table's columns, derived once from the fields of the fact class it stores.

A table stores one fact class. Its columns are the key columns its writer puts in front
(`file_id, file` for the facts of one source file; ids for the YAML tables), then one column
per field of the fact, in the fact's field order. Three rules turn a field into a value:

- a tuple (names, dtypes, qualifiers ...) is stored as its JSON array, None staying NULL; a tuple
  of dataclasses becomes a JSON array of objects;
- a bool is stored as 0/1;
- a `loc` (facts.Location) gives the columns `file` and `line`, or only `line` when `file` is a
  key column (a source file's facts all have its path).

A field that another table holds (an op's tags, an entry's formulas) is skipped, and a column
that is not a field (py_classes.nn_module, ops.base) names the attribute it is read from.
schema/models.py declares the same columns with their comments; tests/test_schema.py checks
that the two agree.

The C++ tables import the C++ extractor (and tree-sitter) on first use: the build asks for them
only once its workers have started, and an index that is up to date never does.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter

from . import derivatives, native_yaml
from .facts import Location

FILE_KEYS = ("file_id", "file")  # the key columns of a source file's facts
OP_TAGS_COLUMNS = ("op_id", "tag")  # op_tags links two tables and stores no fact class


@dataclass(frozen=True)
class Table:
    """A table of facts: its key columns, its fact columns, and how a fact becomes its values."""

    name: str
    keys: tuple[str, ...]  # given by the writer, in front of each row
    columns: tuple[str, ...]  # from the fact, in the order row() gives them
    row: Callable[[object], Sequence]  # one fact -> the values of columns
    source: str = ""  # the attribute of CxxFacts / PyFacts that holds these facts

    @property
    def all_columns(self) -> tuple[str, ...]:
        return self.keys + self.columns

    def rows(self, facts: Sequence) -> list[Sequence]:
        return list(map(self.row, facts))

    def insert_sql(self, schema: str = "") -> str:
        cols = ", ".join(self.all_columns)
        return f"INSERT INTO {schema}{self.name} ({cols}) VALUES ({', '.join('?' * len(self.all_columns))})"


def table(name: str, fact: type, *, keys: tuple[str, ...] = FILE_KEYS, skip: tuple[str, ...] = (),
          also: tuple[tuple[str, str], ...] = (), container: type | None = None) -> Table:
    """The Table that stores fact; `also` lists (column, attribute) pairs read from non-field attributes,
    and `container` is the per-file facts class whose field holds a tuple of these facts."""
    hints = typing.get_type_hints(fact)
    fields = [f.name for f in dataclasses.fields(fact)] if dataclasses.is_dataclass(fact) else list(fact._fields)
    columns: list[str] = []
    paths: list[str] = []
    fixes: list[tuple[int, Callable]] = []
    for field in fields:
        if field in skip:
            continue
        if hints[field] is Location:
            for part in ("file", "line"):
                if part not in keys:
                    columns.append(part)
                    paths.append(f"{field}.{part}")
            continue
        _add(columns, paths, fixes, field, field, hints[field])
    for column, attribute in also:
        _add(columns, paths, fixes, column, attribute, hints.get(attribute) or _property_type(fact, attribute))
    source = _source(container, fact) if container is not None else ""
    return Table(name, keys, tuple(columns), _row_function(paths, fixes), source)


def _property_type(fact: type, attribute: str) -> object:
    prop = getattr(fact, attribute)
    return typing.get_type_hints(prop.fget).get("return") if isinstance(prop, property) else None


def _add(columns: list[str], paths: list[str], fixes: list, column: str, attribute: str, hint: object) -> None:
    convert = _converter(hint)
    if convert is not None:
        fixes.append((len(columns), convert))
    columns.append(column)
    paths.append(attribute)


def _converter(hint: object) -> Callable | None:
    """How a value of this type is stored: None when it is stored as it is. A type that SQLite
    cannot store and no rule covers is refused here, when the table is described."""
    if hint is bool:
        return int
    if hint in (str, int, float) or (isinstance(hint, type) and issubclass(hint, str)):
        return None  # a StrEnum of vocab.py is a str: stored as its value
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in args:
        inner = [a for a in args if a is not type(None)]
        convert = _converter(inner[0]) if len(inner) == 1 else _refuse(hint)
        return None if convert is None else functools.partial(_or_none, convert)
    if typing.get_origin(hint) is tuple:
        if args and dataclasses.is_dataclass(args[0]):
            return _json_records
        return json.dumps
    return _refuse(hint)


def _refuse(hint: object) -> typing.NoReturn:
    raise TypeError(f"no rule stores a field of type {hint} in a column")


def _or_none(convert: Callable, value: object) -> object:
    return None if value is None else convert(value)


def _json_records(values: tuple) -> str:
    return json.dumps([dataclasses.asdict(v) for v in values])


def _row_function(paths: list[str], fixes: list[tuple[int, Callable]]) -> Callable[[object], Sequence]:
    """fact -> its values; attrgetter reads them all in one C call, then the few conversions run."""
    get = attrgetter(*paths)
    if len(paths) == 1:
        return lambda fact: (get(fact),)
    if not fixes:
        return get

    def row(fact: object) -> list:
        values = list(get(fact))
        for i, convert in fixes:
            values[i] = convert(values[i])
        return values

    return row


def _source(container: type, fact: type) -> str:
    """The field of container that holds a tuple of fact."""
    hints = typing.get_type_hints(container)
    for field in dataclasses.fields(container):
        if typing.get_args(hints[field.name])[:1] == (fact,):
            return field.name
    raise LookupError(f"{container.__name__} has no field of {fact.__name__} facts")


@functools.cache
def cxx_tables() -> tuple[Table, ...]:
    """The tables of a C/C++/CUDA file's facts (cxx.CxxFacts)."""
    from . import cxx

    of = functools.partial(table, container=cxx.CxxFacts)
    return (
        of("definitions", cxx.DefinitionFact),
        of("stubs", cxx.StubFact),
        of("stub_uses", cxx.StubUseFact),
        of("calls", cxx.CallFact),
        of("launches", cxx.LaunchFact),
        of("type_dispatch", cxx.DtypeDispatchFact),
        of("library_calls", cxx.LibraryCallFact),
        of("registrations", cxx.RegistrationFact),
        of("registration_macro_uses", cxx.RegistrationMacroUseFact),
        of("definition_macro_uses", cxx.DefinitionMacroUseFact),
        of("includes", cxx.IncludeFact),
        of("macros", cxx.MacroFact),
        of("usings", cxx.UsingFact),
        of("classes", cxx.ClassFact),
        of("constants", cxx.ConstantFact),
        of("kernel_aliases", cxx.KernelAliasFact),
        of("inline_namespaces", cxx.InlineNamespaceFact),
        of("device_branches", cxx.DeviceBranchFact),
        of("py_method_defs", cxx.method_tables.MethodDefFact),
        of("py_method_installs", cxx.method_tables.MethodInstallFact),
    )


@functools.cache
def py_tables() -> tuple[Table, ...]:
    """The tables of a Python file's facts (python_api.PyFacts). nn_module starts as is_module;
    the build then follows bases across files."""
    from . import python_api

    of = functools.partial(table, container=python_api.PyFacts)
    return (
        of("py_defs", python_api.DefFact),
        of("py_classes", python_api.ClassFact, also=(("nn_module", "is_module"),)),
        of("py_calls", python_api.CallFact),
        of("py_bindings", python_api.BindingFact),
        of("py_reexports", python_api.ReexportFact),
        of("py_decomps", python_api.DecompFact),
        of("py_branches", python_api.BranchFact),
        of("py_flags", python_api.FlagFact),
        of("py_attributes", python_api.AttributeFact),
    )


@functools.cache
def yaml_tables() -> dict[str, Table]:
    """The tables of native_functions.yaml, tags.yaml and derivatives.yaml, by name."""
    tables = (
        table("tags", native_yaml.TagFact, keys=()),
        table("ops", native_yaml.OpFact, keys=("id",), skip=("tags",),
              also=(("base", "base"), ("overload", "overload"))),
        table("dispatch", native_yaml.DispatchFact, keys=("op_id",)),
        table("ufunc_loops", native_yaml.UfuncLoop, keys=("op_id",)),
        table("derivatives", derivatives.DerivativeFact, keys=("id", "op_id"), skip=("formulas",)),
        table("derivative_formulas", derivatives.Formula, keys=("derivative_id",)),
    )
    return {t.name: t for t in tables}


def file_rows(tables: tuple[Table, ...], facts: object) -> dict[str, list[Sequence]]:
    """One file's facts (CxxFacts or PyFacts) -> rows per table, without the key columns."""
    return {t.name: t.rows(getattr(facts, t.source)) for t in tables}


# Every table the YAML stage fills, in an order that deletes children before their parents.
YAML_TABLE_NAMES = ("derivative_formulas", "derivatives", "ufunc_loops", "dispatch", "op_tags", "ops", "tags")
FILES_COLUMNS = ("id", "path", "language", "sha256", "size", "parse_errors", "status")  # one row per file read or skipped


class RowBatch:
    """Rows waiting to be written, per table, with their file's id and path in front; written in
    batches, one executemany per table and batch (per table and file, the statements' overhead
    was a fifth of the load). execute_many(sql, rows) is a driver's executemany."""

    BATCH = 50_000

    def __init__(self, execute_many: Callable[[str, list[tuple]], object], tables: tuple[Table, ...]):
        self.execute_many = execute_many
        self.sql = {t.name: t.insert_sql() for t in tables}
        self.pending: dict[str, list[tuple]] = {t.name: [] for t in tables}
        self.count = 0

    def add(self, file_id: int, rel: str, rows: dict[str, list]) -> None:
        for table, pending in self.pending.items():
            got = rows[table]
            if got:
                pending.extend([(file_id, rel, *r) for r in got])
                self.count += len(got)
        if self.count >= self.BATCH:
            self.flush()

    def flush(self) -> None:
        for table, pending in self.pending.items():
            if pending:
                self.execute_many(self.sql[table], pending)
                pending.clear()
        self.count = 0
