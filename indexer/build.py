"""Walk the checkout, extract, write the database: the only place facts become rows.

The database is written to a temporary file beside the target and renamed over
it at the end, so an interrupted build (Ctrl-C, kill) leaves the previous index
untouched and usable.
"""

from __future__ import annotations

import datetime as _dt
import gc
import hashlib
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..schema import views_sql
from ..schema.version import SCHEMA_VERSION, TABLES
from . import derivatives, discover, index_file, native_yaml, parent_watch, python_api
from .errors import TgIndexError

if TYPE_CHECKING:  # SQLAlchemy loads only when something is written: an index that is up to date needs none of it
    from sqlalchemy.engine import Connection

TOOL_VERSION = "0.1.0"

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class BuildSummary:
    db: Path
    ops: int
    kernels: int
    files: int
    seconds: float

    def __str__(self) -> str:
        return (f"indexed {self.ops} ops, {self.kernels} kernels, {self.files} files "
                f"in {self.seconds:.1f} s -> {self.db}")


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _insert(conn: Connection, table: type, rows: list[dict]) -> None:
    """Rows (dicts with the same keys) into a model's table, in one executemany."""
    if rows:
        columns = list(rows[0])
        conn.exec_driver_sql(f"INSERT INTO {table.__tablename__} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                             [tuple(r[c] for c in columns) for r in rows])


def _write_yaml(conn: Connection, facts: native_yaml.NativeFacts, derivs: tuple[derivatives.DerivativeFact, ...]) -> dict[str, int]:
    from ..schema import models as m

    op_ids: dict[str, int] = {}
    op_rows, tag_rows, loop_rows = [], [], []
    for i, op in enumerate(facts.ops, start=1):
        op_ids[op.name] = i
        op_rows.append(dict(
            id=i, name=op.name, namespace=op.namespace, base=op.base, overload=op.overload, func=op.func,
            kind=op.kind, variants=json.dumps(op.variants), structured=int(op.structured),
            structured_delegate=op.structured_delegate, structured_inherits=op.structured_inherits,
            precomputed=json.dumps(op.precomputed),
            ufunc_inner_loop=json.dumps([{"ufunc_key": u.ufunc_key, "name": u.name, "dtypes": u.dtypes}
                                         for u in op.ufunc_inner_loop]),
            autogen=json.dumps(op.autogen), device_check=op.device_check, device_guard=int(op.device_guard),
            python_module=op.python_module, category_override=op.category_override,
            manual_kernel_registration=int(op.manual_kernel_registration),
            manual_cpp_binding=int(op.manual_cpp_binding), cpp_no_default_args=json.dumps(op.cpp_no_default_args),
            use_const_ref_for_mutable_tensors=int(op.use_const_ref_for_mutable_tensors),
            generated_from=op.generated_from, raw=op.raw, file=op.loc.file, line=op.loc.line,
        ))
        tag_rows.extend({"op_id": i, "tag": t} for t in dict.fromkeys(op.tags))
        loop_rows.extend({"op_id": i, "ufunc_key": u.ufunc_key, "name": u.name, "dtypes": json.dumps(u.dtypes)}
                         for u in op.ufunc_inner_loop)
    _insert(conn, m.Op, op_rows)
    _insert(conn, m.OpTag, tag_rows)
    _insert(conn, m.UfuncLoop, loop_rows)
    _insert(conn, m.Tag, [{"name": t.name, "description": t.description, "file": t.loc.file, "line": t.loc.line}
                          for t in facts.tags])
    _insert(conn, m.Dispatch, [dict(
        op_id=op_ids[r.op], op=r.op, key=r.key, kernel=r.kernel, cpp_namespace=r.cpp_namespace, origin=r.origin,
        structured=int(r.structured), via=r.via, file=r.loc.file, line=r.loc.line) for r in facts.dispatch])
    deriv_rows, formula_rows = [], []
    for i, d in enumerate(derivs, start=1):
        deriv_rows.append(dict(
            id=i, op_id=op_ids.get(d.op), op=d.op, signature=d.signature, dispatch_key=d.dispatch_key,
            output_differentiability=None if d.output_differentiability is None else json.dumps(d.output_differentiability),
            saved_results=json.dumps(d.saved_results), file=d.loc.file, line=d.loc.line))
        formula_rows.extend(dict(derivative_id=i, names=json.dumps(f.names), kind=f.kind, formula=f.formula,
                                 file=f.loc.file, line=f.loc.line) for f in d.formulas)
    _insert(conn, m.Derivative, deriv_rows)
    _insert(conn, m.DerivativeFormula, formula_rows)
    return op_ids


# The C++ tables and their columns after (file_id, file), in the order _cxx_rows gives them.
CXX_TABLES: dict[str, tuple[str, ...]] = {
    "definitions": ("name", "qualified_name", "kind", "signature", "line", "end_line", "is_template", "qualifiers", "macro"),
    "stubs": ("stub", "kind", "macro", "device", "arch", "kernel", "is_nullptr", "fn_type", "line"),
    "stub_uses": ("stub", "caller", "how", "line"),
    "calls": ("caller", "callee", "callee_name", "line"),
    "launches": ("kind", "kernel", "template_args", "config", "caller", "line", "lambda_line", "macro"),
    "type_dispatch": ("macro", "dtypes", "name", "caller", "line", "via"),
    "library_calls": ("family", "callee", "caller", "line"),
    "registrations": ("kind", "macro", "namespace", "dispatch_key", "op", "schema", "function", "line", "via"),
}
# The Python tables and their columns after (file_id, file), in the order _py_rows gives them.
PY_TABLES: dict[str, tuple[str, ...]] = {
    "py_defs": ("qualname", "name", "kind", "cls", "line", "end_line"),
    "py_classes": ("qualname", "name", "bases", "bases_written", "is_module", "nn_module", "forward", "line", "end_line"),
    "py_calls": ("caller", "kind", "name", "target", "line"),
    "py_bindings": ("qualname", "kind", "name", "target", "via", "line"),
    "py_reexports": ("module", "name", "source", "kind", "excludes", "line"),
    "py_decomps": ("kind", "op", "namespace", "function", "registrar", "how", "line"),
}
FILES_INSERT = "INSERT INTO files (id, path, language, sha256, size, parse_errors, status) VALUES (?, ?, ?, ?, ?, ?, ?)"
YAML_TABLES = ("derivative_formulas", "derivatives", "ufunc_loops", "dispatch", "op_tags", "ops", "tags")
DISPATCH_STUB_H = "aten/src/ATen/native/DispatchStub.h"

_MACROS: object = None  # the checkout's DispatchStub macro family, set in each worker
_CXX = None  # the cxx module, imported once per worker (an import statement per file cost 1% of extraction)


def _init_worker(header: bytes | None, parent: int | None = None) -> None:
    global _MACROS, _CXX
    from . import cxx

    if parent is not None:  # a pool worker: it ends when the build's process is gone
        parent_watch.exit_with_parent(parent)

    # The facts hold no reference cycles, and a worker lives for one build: the cycle collector's
    # passes over everything a worker keeps (the parsers, the memo of callees) would be wasted time.
    gc.disable()

    _MACROS = cxx.stub_macros(header) if header else cxx.DEFAULT_STUB_MACROS
    _CXX = cxx


def _cxx_rows(item: tuple[str, bytes]) -> tuple[str, dict[str, list[tuple]] | None, int, str]:
    """Worker: one file -> rows per table (without file_id, file), error count, status."""
    rel, data = item
    try:
        f = _CXX.extract(data, rel, _MACROS)
    except Exception as exc:  # extract never raises by contract; a bug there must not stop the build
        return rel, None, 1, f"failed: {type(exc).__name__}: {exc}"[:300]
    rows = {
        "definitions": [(d.name, d.qualified_name, d.kind, d.signature, d.line, d.end_line, int(d.is_template),
                         json.dumps(d.qualifiers), d.macro) for d in f.definitions],
        "stubs": [(s.stub, s.kind, s.macro, s.device, s.arch, s.kernel, int(s.is_nullptr), s.fn_type, s.line)
                  for s in f.stubs],
        "stub_uses": [(u.stub, u.caller, u.how, u.line) for u in f.stub_uses],
        "calls": list(map(tuple, f.calls)),  # CallFact is a named tuple of exactly these columns
        "launches": [(x.kind, x.kernel, x.template_args, json.dumps(x.config), x.caller, x.line, x.lambda_line, x.macro)
                     for x in f.launches],
        "type_dispatch": [(t.macro, json.dumps(t.dtypes), t.name, t.caller, t.line, t.via) for t in f.dtype_dispatches],
        "library_calls": [(x.family, x.callee, x.caller, x.line) for x in f.library_calls],
        "registrations": [(r.kind, r.macro, r.namespace, r.dispatch_key, r.op, r.schema, r.function, r.line, r.via)
                          for r in f.registrations],
    }
    status = "ok" if f.failure is None else f"partial: {f.failure}"[:300]
    return rel, rows, f.parse_errors, status


def _cxx_chunk(items: list[tuple[int, str, bytes]]) -> tuple[list[tuple[int, str, int, str]], bytes]:
    """Worker: a chunk of files (file_id, path, bytes) -> (file_id, path, error count, status) per file,
    and all their rows as the image of an in-memory SQLite database with the C++ tables.

    The main process copies the image's rows with one INSERT ... SELECT per table, in SQLite's own
    code: handing over Python tuples instead cost it more than a second of unpickling and executemany.
    """
    mem = sqlite3.connect(":memory:")
    try:
        for table, columns in CXX_TABLES.items():
            mem.execute(f"CREATE TABLE {table} (file_id, file, {', '.join(columns)})")
        batch = _Rows(mem.executemany, CXX_TABLES)
        statuses = []
        for file_id, rel, data in items:
            rel, rows, errors, status = _cxx_rows((rel, data))
            statuses.append((file_id, rel, errors, status))
            if rows is not None:
                batch.add(file_id, rel, rows)
        batch.flush()
        mem.commit()
        return statuses, mem.serialize()
    finally:
        mem.close()


def _chunks(todo: list[str], contents: dict[str, bytes], first_id: int) -> Iterator[list[tuple[int, str, bytes]]]:
    """The files in order, with ids from first_id, in chunks of about CHUNK_BYTES (at most CHUNK_FILES files)."""
    chunk: list[tuple[int, str, bytes]] = []
    size = 0
    for file_id, rel in enumerate(todo, start=first_id):
        chunk.append((file_id, rel, contents[rel]))
        size += len(contents[rel])
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _py_rows(rel: str, data: bytes) -> tuple[dict[str, list[tuple]] | None, str]:
    """One Python file -> rows per table (without file_id, file) and its status; a SyntaxError is a status."""
    try:
        f = python_api.extract(data, rel)
    except Exception as exc:  # extract never raises by contract; a bug there must not stop the build
        return None, f"failed: {type(exc).__name__}: {exc}"[:300]
    if f.error is not None:
        return None, f"error: {f.error}"[:300]
    return {
        "py_defs": [(d.qualname, d.name, d.kind, d.cls, d.loc.line, d.end_line) for d in f.defs],
        "py_classes": [(c.qualname, c.name, json.dumps(c.bases), json.dumps(c.bases_written), int(c.is_module),
                        int(c.is_module), c.forward, c.loc.line, c.end_line) for c in f.classes],
        "py_calls": [(c.caller, c.kind, c.name, c.target, c.loc.line) for c in f.calls],
        "py_bindings": [(b.qualname, b.kind, b.name, b.target, b.via, b.loc.line) for b in f.bindings],
        "py_reexports": [(r.module, r.name, r.source, r.kind, json.dumps(r.excludes), r.loc.line) for r in f.reexports],
        "py_decomps": [(d.kind, d.op, d.namespace, d.function, d.registrar, d.how, d.loc.line) for d in f.decomps],
    }, "ok"


def _mark_nn_modules(conn: Connection) -> None:
    """py_classes.nn_module: follow bases across files and package re-exports (python_api.module_classes)."""
    classes = [python_api.ClassBases(q, tuple(json.loads(bases)), bool(is_module)) for q, bases, is_module
               in conn.exec_driver_sql("SELECT qualname, bases, is_module FROM py_classes ORDER BY id")]
    reexports = [python_api.Reexport(*row) for row in conn.exec_driver_sql(
        "SELECT module, name, source, kind FROM py_reexports WHERE kind IN ('import', 'star_import') ORDER BY id")]
    modules = python_api.module_classes(classes, reexports)
    conn.exec_driver_sql("UPDATE py_classes SET nn_module = 0")
    conn.exec_driver_sql("CREATE TEMP TABLE IF NOT EXISTS _nn (qualname TEXT PRIMARY KEY)")
    conn.exec_driver_sql("DELETE FROM _nn")
    if modules:
        conn.exec_driver_sql("INSERT INTO _nn (qualname) VALUES (?)", [(q,) for q in modules])
    conn.exec_driver_sql("UPDATE py_classes SET nn_module = 1 WHERE qualname IN (SELECT qualname FROM _nn)")
    conn.exec_driver_sql("DROP TABLE _nn")


class _Rows:
    """Rows waiting to be written, per table, with their file's id and path in front; written in
    batches, one executemany per table and batch (per table and file, the statements' overhead
    was a fifth of the load). execute_many(sql, rows) is a driver's executemany."""

    BATCH = 50_000

    def __init__(self, execute_many: Callable[[str, list[tuple]], object], tables: dict[str, tuple[str, ...]]):
        self.execute_many = execute_many
        self.sql = {t: f"INSERT INTO {t} (file_id, file, {', '.join(cols)}) VALUES ({', '.join('?' * (len(cols) + 2))})"
                    for t, cols in tables.items()}
        self.pending: dict[str, list[tuple]] = {t: [] for t in tables}
        self.count = 0

    def add(self, file_id: int, rel: str, rows: dict[str, list[tuple]]) -> None:
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


# A worker's task: files until about this many bytes (the largest files go first, so late tasks are small).
CHUNK_BYTES = 400_000
CHUNK_FILES = 64
# Fraction of a cold build's C++ bytes still to extract when the deferred indexes are made (see _build).
INDEX_EARLY = 0.06


def _create_indexes(conn: Connection, indexes: list, progress: Progress) -> None:
    if not indexes:
        return
    progress("indexes", 0, len(indexes))
    for done, ix in enumerate(indexes, start=1):
        ix.create(conn)
        progress("indexes", done, len(indexes))


def _remove_orphans(db: Path) -> None:
    """Temporary files of builds that were killed (kill -9 leaves no chance to clean up)."""
    for path in db.parent.glob(f".{db.name}.*.tmp"):
        pid = path.name[len(db.name) + 2:-len(".tmp")]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
        except PermissionError:  # another user's live process
            continue


def _previous(db: Path, root: Path) -> dict[str, str] | None:
    """meta of an index of the same checkout and schema that can be updated in place, else None."""
    if not db.is_file():
        return None
    try:
        with sqlite3.connect(index_file.read_only_uri(db), uri=True) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error:
        return None
    ok = meta.get("schema_version") == str(SCHEMA_VERSION) and meta.get("checkout") == str(root) \
        and meta.get("tool_version") == TOOL_VERSION and set(TABLES) <= tables
    return meta if ok else None


def _extractor_hash() -> str:
    """Hash of the C++ extractor package and its patterns: facts cached in an index are only
    reused when the code that made them is the same."""
    from . import cxx

    return cxx.extractor_hash()


def _py_extractor_hash() -> str:
    """Hash of the Python extractor: cached Python facts are reused only when it is the same."""
    return python_api.extractor_hash()


def _pool(jobs: int, header: bytes | None):
    """Workers that ignore Ctrl-C (they inherit that from the moment they start): the main process
    handles it, stops them and removes the temporary file."""
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return ctx.Pool(jobs, initializer=_init_worker, initargs=(header, os.getpid()))
    finally:
        signal.signal(signal.SIGINT, previous)


def build(checkout: Path, db: Path, progress: Progress = _no_progress, *,
          excludes: tuple[str, ...] = discover.DEFAULT_EXCLUDES, jobs: int | None = None,
          max_file_size: int = discover.DEFAULT_MAX_FILE_SIZE) -> BuildSummary:
    """Index a checkout into db, or update the index there: only changed files are parsed again.

    The result is written to a temporary file beside db and renamed over it at the end.
    The cycle collector is off meanwhile (the build makes hundreds of thousands of
    long-lived rows and no cycles), and back as it was afterwards.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(checkout, db, progress, excludes, jobs, max_file_size)
    finally:
        if collecting:
            gc.enable()


def _build(checkout: Path, db: Path, progress: Progress, excludes: tuple[str, ...], jobs: int | None,
           max_file_size: int) -> BuildSummary:
    start = time.perf_counter()
    root = discover.check_checkout(checkout)
    target = index_file.check(db)  # before anything is read: never write over a file that is not ours
    db = target.path
    if target.state is index_file.State.CORRUPTED:
        print(target.notice, file=sys.stderr)
    progress("yaml", 0, 3)
    texts: dict[str, str] = {}
    for rel in (native_yaml.NATIVE_FUNCTIONS, native_yaml.TAGS, derivatives.DERIVATIVES):
        content = discover.read_yaml(root, rel, max_file_size)
        if content is not None:
            texts[rel] = content
    yaml_files = {rel: _sha(t.encode()) for rel, t in texts.items()}

    # What is not read (symlinks out, FIFOs, unreadable files, ...) is listed in files with its status.
    sources, skipped = discover.walk_sources(root, excludes)
    contents = discover.read_files(root, sources, max_file_size, skipped)
    header = contents.get(DISPATCH_STUB_H)
    py_sources, py_skipped = discover.glob_files(root, python_api.PY_SOURCES)
    skipped |= py_skipped
    py_contents = discover.read_files(root, py_sources, max_file_size, skipped)
    py_key = _py_extractor_hash()
    cxx_key = f"{_extractor_hash()}:{_sha(header) if header else 'default'}:{','.join(sorted(excludes))}"

    previous = _previous(db, root) if target.state is index_file.State.INDEX else None
    tmp = index_file.temporary(db)
    tmp.unlink(missing_ok=True)
    _remove_orphans(db)
    old_files: dict[str, tuple[int, str]] = {}
    if previous is not None:
        with sqlite3.connect(index_file.read_only_uri(db), uri=True) as conn:
            old_files = {p: (i, h) for i, p, h in conn.execute("SELECT id, path, sha256 FROM files")}
    current = {rel: _sha(data) for rel, data in contents.items()} | yaml_files
    current |= {rel: _sha(data) for rel, data in py_contents.items()}
    # A file keeps its rows when its content is the same and so is everything its facts depend on.
    same_cxx = previous is not None and previous.get("cxx_key") == cxx_key
    same_py = previous is not None and previous.get("py_key") == py_key
    kept = {p for p, (_i, h) in old_files.items()
            if h and current.get(p) == h and (p in yaml_files or (same_py if p in py_contents else same_cxx))}
    stale = [i for p, (i, _h) in old_files.items() if p not in kept]
    yaml_changed = previous is None or not set(yaml_files) <= kept
    if previous is not None and not stale and len(kept) == len(current) and not skipped:
        # Nothing changed: the index stays as it is.
        with sqlite3.connect(index_file.read_only_uri(db), uri=True) as conn:
            ops = conn.execute("SELECT count(*) FROM ops").fetchone()[0]
            kernels = conn.execute("SELECT count(DISTINCT cpp_namespace || '::' || kernel) FROM dispatch").fetchone()[0]
        progress("yaml", 3, 3)
        return BuildSummary(db, ops, kernels, len(old_files), time.perf_counter() - start)
    pool = None
    engine = None
    # Largest files first, so that no big file is left to one worker at the end.
    todo = sorted((rel for rel in contents if rel not in kept), key=lambda rel: -len(contents[rel]))
    results: Iterator = iter(())
    try:
        # The C++ files go to the workers first (before SQLAlchemy is imported here, which takes a
        # few tenths of a second); the YAML and Python stages run here meanwhile.
        # The C++ files take ids first_id, first_id + 1, ... in this order; the others follow them.
        first_id = max((i for i, _h in old_files.values()), default=0) + 1
        if todo:
            workers = jobs or os.cpu_count() or 1
            chunks = _chunks(todo, contents, first_id)
            if workers > 1 and len(todo) > 1:
                pool = _pool(workers, header)
                results = pool.imap(_cxx_chunk, chunks)  # in order: the same rows get the same ids every time
            else:
                _init_worker(header)
                results = map(_cxx_chunk, chunks)

        from sqlalchemy import URL, create_engine, event

        from ..schema import Base
        from ..schema import models as m

        engine = create_engine(URL.create("sqlite", database=str(tmp)))  # not parsed: `?` or `#` may be in the name

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # the temp file is thrown away on failure anyway
            dbapi_conn.execute("PRAGMA journal_mode=OFF")
            dbapi_conn.execute("PRAGMA synchronous=OFF")

        # A fresh build loads the C++ tables without their indexes and makes them at the end:
        # one sort per index instead of a b-tree update per row.
        deferred = [ix for name in CXX_TABLES for ix in Base.metadata.tables[name].indexes] if previous is None else []
        if previous is None:
            Base.metadata.create_all(engine)
            with engine.begin() as conn:
                for ix in deferred:
                    ix.drop(conn)
        else:
            shutil.copyfile(db, tmp)
        with engine.connect() as conn:  # committed at the end (and after each chunk of C++ rows)
            if previous is None:
                for statement in views_sql().split(";"):
                    if statement.strip():
                        conn.exec_driver_sql(statement)
            if yaml_changed:
                native = native_yaml.parse(texts[native_yaml.NATIVE_FUNCTIONS], texts.get(native_yaml.TAGS))
                derivs = derivatives.parse(texts[derivatives.DERIVATIVES]) if derivatives.DERIVATIVES in texts else ()
                for table in YAML_TABLES:
                    conn.exec_driver_sql(f"DELETE FROM {table}")
                _write_yaml(conn, native, derivs)
            progress("yaml", 3, 3)

            # Files: unchanged ones keep their rows; the others are dropped and parsed again.
            if stale:
                conn.exec_driver_sql("CREATE TEMP TABLE _stale (id INTEGER PRIMARY KEY)")
                conn.exec_driver_sql("INSERT INTO _stale (id) VALUES (?)", [(i,) for i in stale])
                for table in (*CXX_TABLES, *PY_TABLES):
                    conn.exec_driver_sql(f"DELETE FROM {table} WHERE file_id IN (SELECT id FROM _stale)")
                conn.exec_driver_sql("DELETE FROM files WHERE id IN (SELECT id FROM _stale)")
                conn.exec_driver_sql("DROP TABLE _stale")
            next_id = first_id + len(todo)
            for rel, sha in yaml_files.items():
                if rel not in kept:
                    _insert(conn, m.File, [dict(id=next_id, path=rel, language="yaml", sha256=sha,
                                                size=len(texts[rel].encode()), parse_errors=0, status="ok")])
                    next_id += 1
            for rel, status in sorted(skipped.items()):
                _insert(conn, m.File, [dict(id=next_id, path=rel, language=_language(rel), sha256="", size=0,
                                            parse_errors=0, status=status)])
                next_id += 1
            # Python: few files, extracted here; a file that does not parse is recorded with its status.
            py_todo = [rel for rel in py_contents if rel not in kept]
            progress("Python", 0, len(py_todo))
            py_batch, file_rows = _Rows(conn.exec_driver_sql, PY_TABLES), []
            for done, rel in enumerate(py_todo, start=1):
                py_rows, status = _py_rows(rel, py_contents[rel])
                file_rows.append((next_id, rel, "python", current[rel], len(py_contents[rel]), int(py_rows is None), status))
                if py_rows is not None:
                    py_batch.add(next_id, rel, py_rows)
                next_id += 1
                progress("Python", done, len(py_todo))
            py_batch.flush()
            if file_rows:
                conn.exec_driver_sql(FILES_INSERT, file_rows)
            if py_todo or any(p.endswith(".py") and p not in kept for p in old_files):
                _mark_nn_modules(conn)

            progress("C++/CUDA", 0, len(todo))
            if todo:
                # Each chunk's rows arrive as a database image (see _cxx_chunk), opened as the schema
                # "shard" and copied; a commit after each copy releases the shard for the next image.
                conn.commit()
                conn.exec_driver_sql("ATTACH DATABASE ':memory:' AS shard")
                raw = conn.connection.driver_connection
                copies = [f"INSERT INTO main.{t} (file_id, file, {', '.join(c)}) SELECT file_id, file, {', '.join(c)} FROM shard.{t}"
                          for t, c in CXX_TABLES.items()]
                # The deferred indexes are made while the workers still have the last few percent of the
                # bytes to extract (the smallest files): that work then hides the sorting, which would
                # otherwise run on one core at the end with the other idle.
                left = sum(len(contents[rel]) for rel in todo)
                index_at = left * INDEX_EARLY
                file_rows, done = [], 0
                for statuses, image in results:
                    raw.deserialize(image, name="shard")
                    for copy in copies:
                        conn.exec_driver_sql(copy)
                    for file_id, rel, errors, status in statuses:
                        file_rows.append((file_id, rel, _language(rel), current[rel], len(contents[rel]), errors, status))
                        left -= len(contents[rel])
                    done += len(statuses)
                    progress("C++/CUDA", done, len(todo))
                    if deferred and left <= index_at:
                        _create_indexes(conn, deferred, progress)
                        deferred = []
                    conn.commit()
                conn.exec_driver_sql("DETACH DATABASE shard")
                if file_rows:
                    conn.exec_driver_sql(FILES_INSERT, file_rows)
                if pool is not None:
                    pool.close()
                    pool.join()
                    pool = None

            seconds = time.perf_counter() - start
            files = conn.exec_driver_sql("SELECT count(*) FROM files").scalar() or 0
            meta = {
                "checkout": str(root),
                "pytorch_version": discover.pytorch_version(root),
                "indexed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "tool_version": TOOL_VERSION,
                "schema_version": str(SCHEMA_VERSION),
                "seconds": f"{seconds:.2f}",
                "files": str(files),
                "parsed": str(len(todo)),
                "cxx_key": cxx_key,
                "py_key": py_key,
                "py_parsed": str(len(py_todo)),
                "excludes": json.dumps(list(excludes)),
            }
            conn.exec_driver_sql("DELETE FROM meta")
            conn.exec_driver_sql(index_file.SET_APPLICATION_ID)
            _insert(conn, m.Meta, [{"key": k, "value": v} for k, v in meta.items()])
            _create_indexes(conn, deferred, progress)
            ops = conn.exec_driver_sql("SELECT count(*) FROM ops").scalar() or 0
            kernels = conn.exec_driver_sql("SELECT count(DISTINCT cpp_namespace || '::' || kernel) FROM dispatch").scalar() or 0
            conn.commit()
        if previous is None or todo or py_todo or yaml_changed:
            with engine.connect() as conn:
                conn.exec_driver_sql("ANALYZE")
        engine.dispose()
        os.replace(tmp, db)
    except BaseException:
        if pool is not None:
            pool.terminate()
        if engine is not None:
            engine.dispose()
        tmp.unlink(missing_ok=True)
        raise
    return BuildSummary(db, ops, kernels, files, time.perf_counter() - start)


def _language(rel: str) -> str:
    if rel.endswith(".py"):
        return "python"
    return discover.CXX_LANGUAGES.get(os.path.splitext(rel)[1], "yaml" if rel.endswith(".yaml") else "other")


__all__ = ["BuildSummary", "TgIndexError", "build"]
