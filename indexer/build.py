"""The build: a checkout's facts become the rows of the index, in stages.

    read the checkout -> plan (plan.py: what is kept, stale, new) -> C++/CUDA files to the workers
    -> YAML -> files -> Python -> C++/CUDA rows copied in as the workers finish -> meta, indexes

Facts become rows through rows.py, the one description of each table's columns. The database
is written to a temporary file beside the target and renamed over it at the end, so an
interrupted build (Ctrl-C, kill) leaves the previous index untouched and usable. The stages
write through the standard library's sqlite3; SQLAlchemy (with schema/models.py) only makes a
fresh schema, so an update of an index, which starts from a copy of it, never imports it.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import gc
import hashlib
import importlib.metadata
import json
import os
import shutil
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..schema import views_sql
from ..schema.version import SCHEMA_VERSION, TABLES
from . import code_hash, codegen, derivatives, discover, index_file, native_yaml, python_api, workers
from .errors import TgIndexError
from .plan import Found, Plan, plan
from .rows import FILES_COLUMNS, OP_TAGS_COLUMNS, RowBatch, file_rows, py_tables, yaml_tables
from .workers import PARTIAL

Progress = Callable[[str, int, int], None]  # (stage, done, total)

DISPATCH_STUB_H = "aten/src/ATen/native/DispatchStub.h"
BUILTIN_STUB_MACROS = "built-in (DispatchStub.h missing)"  # meta stub_macros when the checkout has none
FILES_INSERT = f"INSERT INTO files ({', '.join(FILES_COLUMNS)}) VALUES ({', '.join('?' * len(FILES_COLUMNS))})"


@dataclass(frozen=True)
class BuildSummary:
    db: Path
    ops: int
    kernels: int
    files: int
    seconds: float
    partial_files: int = 0  # files whose extraction stopped early (tg-query doctor lists them)
    stub_macros: str = DISPATCH_STUB_H  # where the DispatchStub macros came from
    warnings: tuple[str, ...] = ()  # e.g. the dispatch keys not read (indexer/dispatcher/table_stage.py)
    codegen: str | None = None  # what --codegen did (codegen.Generated.status); None when not asked

    def __str__(self) -> str:
        notes = ""
        if self.partial_files:
            notes += f", {self.partial_files} file{'s' if self.partial_files != 1 else ''} partial (see tg-query doctor)"
        if self.stub_macros == BUILTIN_STUB_MACROS:
            notes += ", built-in DispatchStub macros (DispatchStub.h missing)"
        notes += "".join(f", {w}" for w in self.warnings)
        codegen = f"; codegen {self.codegen}" if self.codegen is not None else ""
        return (f"indexed {self.ops} ops, {self.kernels} kernels, {self.files} files{notes} "
                f"in {self.seconds:.1f} s -> {self.db}{codegen}")


def tool_version() -> str:
    """The version of the installed distribution: pyproject.toml is the one place it is written."""
    try:
        return importlib.metadata.version("tg-index")
    except importlib.metadata.PackageNotFoundError:
        raise TgIndexError("tg-index is not installed (no package metadata); install it: pip install -e .") from None


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _insert(conn: sqlite3.Connection, sql: str, rows: list) -> None:
    """Rows (tuples in the statement's column order) in one executemany."""
    if rows:
        conn.executemany(sql, rows)


def _write_yaml(conn: sqlite3.Connection, facts: native_yaml.NativeFacts, derivs: tuple[derivatives.DerivativeFact, ...]) -> dict[str, int]:
    tables = yaml_tables()
    ops, loops, tags = tables["ops"], tables["ufunc_loops"], tables["tags"]
    op_ids: dict[str, int] = {}
    op_rows, tag_rows, loop_rows = [], [], []
    for i, op in enumerate(facts.ops, start=1):
        op_ids[op.name] = i
        op_rows.append((i, *ops.row(op)))
        tag_rows.extend((i, t) for t in dict.fromkeys(op.tags))
        loop_rows.extend((i, *loops.row(u)) for u in op.ufunc_inner_loop)
    _insert(conn, ops.insert_sql(), op_rows)
    _insert(conn, f"INSERT INTO op_tags ({', '.join(OP_TAGS_COLUMNS)}) VALUES (?, ?)", tag_rows)
    _insert(conn, loops.insert_sql(), loop_rows)
    _insert(conn, tags.insert_sql(), tags.rows(facts.tags))
    dispatch = tables["dispatch"]
    _insert(conn, dispatch.insert_sql(), [(op_ids[r.op], *dispatch.row(r)) for r in facts.dispatch])
    deriv, formula = tables["derivatives"], tables["derivative_formulas"]
    deriv_rows, formula_rows = [], []
    for i, d in enumerate(derivs, start=1):
        deriv_rows.append((i, op_ids.get(d.op), *deriv.row(d)))
        formula_rows.extend((i, *formula.row(f)) for f in d.formulas)
    _insert(conn, deriv.insert_sql(), deriv_rows)
    _insert(conn, formula.insert_sql(), formula_rows)
    return op_ids


def _py_rows(rel: str, data: bytes) -> tuple[dict[str, list] | None, str]:
    """One Python file -> rows per table (without file_id, file) and its status; a SyntaxError is a status."""
    try:
        f = python_api.extract(data, rel)
    except Exception as exc:  # extract never raises by contract; a bug there must not stop the build
        return None, f"failed: {type(exc).__name__}: {exc}"[:300]
    if f.error is not None:
        return None, f"error: {f.error}"[:300]
    return file_rows(py_tables(), f), "ok"


def _mark_nn_modules(conn: sqlite3.Connection) -> None:
    """py_classes.nn_module: follow bases across files and package re-exports (python_api.module_classes)."""
    classes = [python_api.ClassBases(q, tuple(json.loads(bases)), bool(is_module)) for q, bases, is_module
               in conn.execute("SELECT qualname, bases, is_module FROM py_classes ORDER BY id")]
    reexports = [python_api.Reexport(*row) for row in conn.execute(
        "SELECT module, name, source, kind FROM py_reexports WHERE kind IN ('import', 'star_import') ORDER BY id")]
    modules = python_api.module_classes(classes, reexports)
    conn.execute("UPDATE py_classes SET nn_module = 0")
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS _nn (qualname TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM _nn")
    if modules:
        conn.executemany("INSERT INTO _nn (qualname) VALUES (?)", [(q,) for q in modules])
    conn.execute("UPDATE py_classes SET nn_module = 1 WHERE qualname IN (SELECT qualname FROM _nn)")
    conn.execute("DROP TABLE _nn")


# Fraction of a cold build's C++ bytes still to extract when the deferred indexes are made (see _cxx_stage).
INDEX_EARLY = 0.06


# ---- Stage 1: what the checkout holds


@dataclass
class _Checkout:
    root: Path
    texts: dict[str, str]  # the YAML files that are there
    contents: discover.Contents  # C/C++/CUDA files
    py_contents: discover.Contents  # Python files
    skipped: list[tuple[str, str]]  # (path, status) of files listed but not read
    header: bytes | None  # DispatchStub.h
    hashes: dict[str, tuple[str, int]] = field(default_factory=dict)  # C/C++/CUDA file -> (sha256, size), walk order
    py_hashes: dict[str, tuple[str, int]] = field(default_factory=dict)  # the same of the Python files
    stats: dict[str, discover.Stat] = field(default_factory=dict)  # meta file_stats of the index written
    unread: int = 0  # files taken as the ones the index updated read (their Stat is the one recorded)

    @property
    def stub_macros(self) -> str:
        return DISPATCH_STUB_H if self.header is not None else BUILTIN_STUB_MACROS


# A file's Stat is recorded (meta file_stats) only when it last changed this long before the build began: a
# write after the build read it then always gives another change time, even on a coarse file system clock.
SETTLED_NS = 2_000_000_000


def _read_checkout(root: Path, excludes: tuple[str, ...], max_file_size: int,
                   recorded: dict[str, tuple[discover.Stat, str]] | None = None, began_ns: int = 0) -> _Checkout:
    """What the checkout holds. recorded: path -> (Stat, sha256) of the files the index updated read, from its
    meta file_stats; a file whose Stat is the same now is not read (its hash is the one recorded) unless a
    stage asks for its bytes. began_ns: when the build began (time.time_ns), for SETTLED_NS."""
    recorded = recorded or {}
    texts: dict[str, str] = {}
    for rel in (native_yaml.NATIVE_FUNCTIONS, native_yaml.TAGS, derivatives.DERIVATIVES):
        content = discover.read_yaml(root, rel, max_file_size)
        if content is not None:
            texts[rel] = content
    # What is not read (symlinks out, FIFOs, unreadable files, ...) is listed in files with its status.
    sources, skipped = discover.walk_sources(root, excludes)
    py_sources, py_skipped = discover.glob_files(root, python_api.PY_SOURCES)
    skipped |= py_skipped
    stats: dict[str, discover.Stat] = {}
    settled = began_ns - SETTLED_NS
    unread = 0

    def read(rels: list[str]) -> tuple[discover.Contents, dict[str, tuple[str, int]]]:
        nonlocal unread
        hashes: dict[str, tuple[str, int]] = {}
        todo: list[str] = []
        for rel in rels:
            known = recorded.get(rel)
            if known is not None and rel != DISPATCH_STUB_H and discover.stat_now(root, rel) == known[0]:
                hashes[rel] = (known[1], known[0][0])
                stats[rel] = known[0]
            else:
                hashes[rel] = ("", 0)  # its place in the walk's order
                todo.append(rel)
        data: dict[str, bytes] = {}
        for rel, content, stat in discover.read_each(root, todo, max_file_size, skipped):
            data[rel] = content
            hashes[rel] = (_sha(content), len(content))
            if stat is not None and stat[2] < settled:
                stats[rel] = stat
        for rel in todo:
            if rel not in data:  # skipped
                del hashes[rel]
        unread += len(rels) - len(todo)
        return discover.Contents(root, max_file_size, data, (r for r in rels if r not in data and r in hashes)), hashes

    contents, hashes = read(sources)
    py_contents, py_hashes = read(py_sources)
    return _Checkout(root, texts, contents, py_contents, sorted(skipped.items()), contents.get(DISPATCH_STUB_H),
                     hashes, py_hashes, stats, unread)


@dataclass(frozen=True)
class _Prior:
    """What a build reads of the index it may update, once: its meta and its files rows."""

    meta: dict[str, str]
    files: list[tuple[int, str, str, str]]  # (id, path, sha256, status)


def _prior(db: Path, root: Path) -> _Prior | None:
    """The meta and files rows of an index of this checkout (and schema, and tool version) at db; None when
    there is none, or it cannot be read (a corrupted index: its check says so)."""
    previous = _previous(db, root)
    if previous is None:
        return None
    try:
        with sqlite3.connect(index_file.read_only_uri(db), uri=True) as conn:
            return _Prior(previous, conn.execute("SELECT id, path, sha256, status FROM files").fetchall())
    except sqlite3.Error:
        return None


def _recorded(prior: _Prior | None) -> dict[str, tuple[discover.Stat, str]]:
    """path -> (Stat, sha256) of the files the index read, from its meta file_stats and files rows; empty when
    there is none or it cannot be read."""
    if prior is None or "file_stats" not in prior.meta:
        return {}
    try:
        stats = json.loads(prior.meta["file_stats"])
        shas = {path: sha for _id, path, sha, _status in prior.files}
        return {rel: (tuple(stat), shas[rel]) for rel, stat in stats.items() if shas.get(rel) and len(stat) == 5}
    except (ValueError, TypeError, AttributeError):
        return {}


def _codegen(ck: _Checkout, db: Path, timeout: float | None, progress: Progress) -> codegen.Generated | None:
    """Run the checkout's generators when asked, and add their files to what the build reads."""
    if timeout is None:
        return None
    progress("codegen", 0, 1)
    generated = codegen.run(ck.root, codegen.folder_for(db), timeout)
    ck.contents.update(generated.files)
    ck.hashes.update((rel, (_sha(data), len(data))) for rel, data in generated.files.items())
    progress("codegen", 1, 1)
    return generated


def _found(ck: _Checkout) -> Found:
    return Found(
        yaml={rel: _sha(t.encode()) for rel, t in ck.texts.items()},
        cxx={rel: sha for rel, (sha, _size) in ck.hashes.items()},
        python={rel: sha for rel, (sha, _size) in ck.py_hashes.items()},
        sizes={rel: size for rel, (_sha, size) in ck.hashes.items()},
        skipped=dict(ck.skipped),
    )


# ---- The build


def build(checkout: Path, db: Path, progress: Progress = _no_progress, *,
          excludes: tuple[str, ...] = discover.DEFAULT_EXCLUDES, jobs: int | None = None,
          max_file_size: int = discover.DEFAULT_MAX_FILE_SIZE, codegen_timeout: float | None = None) -> BuildSummary:
    """Index a checkout into db, or update the index there: only changed files are parsed again.

    codegen_timeout: when given, the checkout's own code generators run first (codegen.py, at most
    that many seconds) and their C++ output is indexed with the checkout's files.

    The result is written to a temporary file beside db and renamed over it at the end.
    The cycle collector is off meanwhile (the build makes hundreds of thousands of
    long-lived rows and no cycles), and back as it was afterwards.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(checkout, db, progress, excludes, jobs, max_file_size, codegen_timeout)
    finally:
        if collecting:
            gc.enable()


def _build(checkout: Path, db: Path, progress: Progress, excludes: tuple[str, ...], jobs: int | None,
           max_file_size: int, codegen_timeout: float | None) -> BuildSummary:
    start = time.perf_counter()
    root = discover.check_checkout(checkout)
    # Before anything is read: never write over a file that is not ours. The existing index's quick_check
    # runs while the checkout is read, and, for an index of ours, while the build updates a copy of it
    # (index_file.begin_check): its answer is asked for before the copy is renamed over the index.
    pending = index_file.begin_check(db)
    began_ns = time.time_ns()
    try:
        progress("yaml", 0, 3)
        prior = _prior(pending.path, root)
        ck = _read_checkout(root, excludes, max_file_size, _recorded(prior), began_ns)
        if not pending.deferred:
            target = pending()
            if target.state is not index_file.State.INDEX:
                prior = None
                if ck.unread:  # what it recorded is not to be trusted
                    ck = _read_checkout(root, excludes, max_file_size, None, began_ns)
            return _build_on(target, ck, prior, start, progress, excludes, jobs, codegen_timeout, pending)
        try:
            return _build_on(index_file.IndexFile(pending.path, index_file.State.INDEX), ck, prior, start, progress,
                             excludes, jobs, codegen_timeout, pending)
        except Exception:
            if pending().state is not index_file.State.CORRUPTED:
                raise
        # The index is corrupted (what the update read of it may have failed, or not): built from scratch, from
        # the checkout read again, since the update let go of most of what it had read.
        ck = _read_checkout(root, excludes, max_file_size, None, began_ns)
        return _build_on(pending(), ck, None, start, progress, excludes, jobs, codegen_timeout, pending)
    finally:
        pending.close()


class _Corrupted(Exception):
    """The quick_check of the index updated found it corrupted: what was made from it is dropped."""


def _confirm(pending: index_file.PendingCheck) -> None:
    """Before an update's result replaces the index, or an index is found up to date: the index it read is
    sound (the quick_check's answer), else _Corrupted."""
    if pending().state is index_file.State.CORRUPTED:
        raise _Corrupted()


def _build_on(target: index_file.IndexFile, ck: _Checkout, prior: _Prior | None, start: float, progress: Progress,
              excludes: tuple[str, ...], jobs: int | None, codegen_timeout: float | None,
              pending: index_file.PendingCheck) -> BuildSummary:
    """The build, once the checkout is read: over target as it is known (an index of ours is assumed sound
    until _confirm says otherwise; a corrupted one is built from scratch). prior: what was read of it."""
    db = target.path
    if target.state is index_file.State.CORRUPTED:
        print(target.notice, file=sys.stderr)
    generated = _codegen(ck, db, codegen_timeout, progress)
    header = ck.header
    py_key = _py_extractor_hash()
    cxx_key = f"{_extractor_hash()}:{_sha(header) if header else 'default'}:{','.join(sorted(excludes))}"

    previous = prior.meta if prior is not None and target.state is index_file.State.INDEX else None
    _remove_orphans(db)
    old_files: dict[str, tuple[int, str]] = {}
    old_skips: dict[str, str] = {}
    if previous is not None:
        for i, p, h, status in prior.files:
            old_files[p] = (i, h)
            if not h:
                old_skips[p] = status
    found = _found(ck)
    planned = plan(previous, old_files, found, cxx_key=cxx_key, py_key=py_key, old_skips=old_skips)
    link_key = _link_hash()
    if planned.up_to_date and previous is not None and previous.get("link_key") != link_key:
        planned = dataclasses.replace(planned, up_to_date=False)  # the facts stand; only the graph is made again
    chains_key = code_hash.chain_walk()
    if planned.up_to_date and previous is not None and previous.get("chains_key") != chains_key:
        planned = dataclasses.replace(planned, up_to_date=False)  # the graph stands; the chains are walked again
    if planned.up_to_date:
        progress("yaml", 3, 3)
        if target.state is index_file.State.INDEX:
            _confirm(pending)
        return dataclasses.replace(_unchanged_summary(db, start), codegen=generated and generated.status)
    meta = {"cxx_key": cxx_key, "py_key": py_key, "link_key": link_key, "chains_key": chains_key,
            "excludes": json.dumps(list(excludes)), "kept_stages": ""}
    if generated is not None:
        meta |= {"codegen": generated.status, "codegen_dir": str(generated.folder)}
    return _write(_Run(ck, found, planned, progress, meta, start, previous=previous, db=db,
                       confirm=pending if target.state is index_file.State.INDEX else None), db, jobs)


@dataclass
class _Run:
    """One build that writes: what it read, its plan, and where the writing stands."""

    ck: _Checkout
    found: Found
    plan: Plan
    progress: Progress
    meta: dict[str, str]  # the meta keys known before writing (the extractor keys, the excludes)
    start: float
    next_id: int = 0  # the id the next file row takes
    deferred: list[str] = field(default_factory=list)  # CREATE INDEX statements a fresh build runs once the rows are in
    previous: dict[str, str] | None = None  # meta of the index updated (None: a fresh one)
    db: Path | None = None  # the index updated, still as it was until the build's rename
    includes: object = None  # the include graph of the C++ facts (link.includes.IncludeGraph), once made
    reextracted: list[str] = field(default_factory=list)  # kept files extracted again with other files' macros
    confirm: index_file.PendingCheck | None = None  # the check of the index updated, asked before the rename
    link_changes: object = None  # what an incremental link changed (link.stage.GraphChanges; None: linked whole)


def _write(run: _Run, db: Path, jobs: int | None) -> BuildSummary:
    """Write the index to a temporary file and rename it over db; on any failure, remove it."""
    tmp = index_file.temporary(db)
    tmp.unlink(missing_ok=True)
    pool = conn = None
    try:
        # The C++ files go to the workers first (before SQLAlchemy is imported here to make a fresh
        # schema, which takes a few tenths of a second); the YAML and Python stages run here meanwhile.
        pool, results = _start_workers(run, jobs)
        conn = _open_database(run, db, tmp)  # committed at the end (and after each chunk of C++ rows)
        _yaml_stage(conn, run)
        _files_stage(conn, run)
        _python_stage(conn, run)
        _cxx_stage(conn, run, results)
        if pool is not None:
            pool.close()
            pool = None
        _shared_macro_stage(conn, run)
        _guard_stage(conn)
        _release_sources(run)
        _dispatcher_stage(conn, run)
        _link_stage(conn, run, jobs or os.cpu_count() or 1)
        _dispatch_table_stage(conn, run)
        summary = _finish(conn, run, db)
        _chain_stage(conn, run, tmp, jobs or os.cpu_count() or 1)
        if run.plan.analyze:
            conn.execute("ANALYZE")  # outside a transaction (_finish committed): sqlite3 opens none for it
        conn.close()
        conn = None
        if run.confirm is not None:
            _confirm(run.confirm)
        index_file.install(tmp, db)
    except BaseException:
        if pool is not None:
            pool.close(kill=True)
        if conn is not None:
            conn.close()  # what was not committed is dropped with the file
        tmp.unlink(missing_ok=True)
        raise
    return dataclasses.replace(summary, seconds=time.perf_counter() - run.start)


def _release_sources(run: _Run) -> None:
    """The sources are extracted: only the dispatch-key headers are read again (the link's forked process
    then shares less memory, which counts in both processes' resident size)."""
    from .dispatcher import keymodel

    run.ck.contents = {p: run.ck.contents[p] for p in keymodel.SOURCES if p in run.ck.contents}
    run.ck.py_contents = {}


def _start_workers(run: _Run, jobs: int | None) -> tuple[object, Iterator]:
    """The C++ files, largest first (no big file is left to one worker at the end), in chunks to a
    pool (of one worker for one file: it loads the parsers, whose query takes 0.08 s to compile, and
    extracts the file while this process copies the index); or to this process when there is one job.
    Results come in order."""
    todo = run.plan.cxx_todo
    if not todo:
        return None, iter(())
    chunks = workers.chunks(todo, run.ck.contents, run.plan.first_id)
    processes = jobs or os.cpu_count() or 1
    if processes > 1:
        pool = workers.pool(min(processes, len(todo)), run.ck.header)
        return pool, pool.map(workers.extract_chunk, chunks)  # in order: the same rows get the same ids every time
    workers.init(run.ck.header)
    return None, map(workers.extract_chunk, chunks)


def _open_database(run: _Run, db: Path, tmp: Path) -> sqlite3.Connection:
    """A connection (the standard library's sqlite3, with its implicit transactions) to the temporary
    file: a copy of the previous index, or a fresh schema made by SQLAlchemy (_create_schema), which an
    update therefore never imports."""
    if run.plan.fresh:
        run.deferred = _create_schema(tmp)
    else:
        _copy_meanwhile(db, tmp, _import_stages)
    conn = sqlite3.connect(tmp)  # a path, not a URI: `?` or `#` may be in the name
    _unjournaled(conn)
    return conn


def _copy_meanwhile(source: Path, target: Path, work: Callable[[], object]) -> None:
    """Copy source to target in a thread while work() runs in this one (the kernel copies, without the GIL);
    the copy is over when this returns, whether work() raised or not, and its failure is raised here."""
    failed: list[BaseException] = []

    def copy() -> None:
        try:
            shutil.copyfile(source, target)
        except BaseException as exc:  # handed to the caller
            failed.append(exc)

    thread = threading.Thread(target=copy, name="tg-index copy", daemon=True)
    thread.start()
    try:
        work()
    finally:
        thread.join()
    if failed:
        raise failed[0]


def _import_stages() -> None:
    """The modules of the stages after extraction, imported while an update copies the index (100 ms of the
    update's time, which the copy took as long as)."""
    from . import chain_stage, guards, link, shared_macros  # noqa: F401
    from .cxx import body_macros, expansions  # noqa: F401  (shared_macros.parameter_callers and expand)
    from .dispatcher import backward_table, keymodel, macro_uses, python_regs, stage, table_stage  # noqa: F401
    from .link import incremental  # noqa: F401


def _unjournaled(conn: sqlite3.Connection) -> None:
    """No journal and no syncing: the temporary file is thrown away on failure anyway."""
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")


def _create_schema(path: Path) -> list[str]:
    """The tables of schema/models.py and the views in a new file; the indexes of the source files' fact
    tables are left out and their CREATE INDEX statements returned, run once the rows are in (one sort
    per index instead of a b-tree update per row)."""
    from sqlalchemy import URL, create_engine, event
    from sqlalchemy.schema import CreateIndex

    from ..schema import Base

    engine = create_engine(URL.create("sqlite", database=str(path)))  # not parsed: `?` or `#` may be in the name
    event.listen(engine, "connect", lambda dbapi_conn, _record: _unjournaled(dbapi_conn))
    try:
        Base.metadata.create_all(engine)
        deferred = [ix for t in Base.metadata.sorted_tables if "file_id" in t.c for ix in t.indexes]
        with engine.begin() as conn:
            for ix in deferred:
                ix.drop(conn)
            for statement in views_sql().split(";"):
                if statement.strip():
                    conn.exec_driver_sql(statement)
        return [str(CreateIndex(ix).compile(dialect=engine.dialect)) for ix in deferred]
    finally:
        engine.dispose()


def _yaml_stage(conn: sqlite3.Connection, run: _Run) -> None:
    if run.plan.yaml_changed:
        texts = run.ck.texts
        native = native_yaml.parse(texts[native_yaml.NATIVE_FUNCTIONS], texts.get(native_yaml.TAGS))
        derivs = derivatives.parse(texts[derivatives.DERIVATIVES]) if derivatives.DERIVATIVES in texts else ()
        for table in run.plan.clear_tables:
            conn.execute(f"DELETE FROM {table}")
        _write_yaml(conn, native, derivs)
    run.progress("yaml", 3, 3)


# The tables with a file_id column, read from the index itself (an update needs no models).
_FILE_TABLES = ("SELECT m.name FROM main.sqlite_master m WHERE m.type = 'table' AND EXISTS "
                "(SELECT 1 FROM pragma_table_info(m.name, 'main') p WHERE p.name = 'file_id') ORDER BY m.name")


# A call's caller is NULL (at namespace scope) or the qualified name of a definition of its file
# (cxx/definitions.py makes the ranges the caller is read from): a stale file's calls are found through
# ix_calls_caller, before its definitions go, instead of by a scan of the table.
_STALE_CALLS = ("DELETE FROM calls WHERE file_id IN (SELECT id FROM _stale) AND (caller IS NULL OR caller IN "
                "(SELECT qualified_name FROM definitions WHERE file_id IN (SELECT id FROM _stale)))")


def _files_stage(conn: sqlite3.Connection, run: _Run) -> None:
    """Stale files' rows go; the YAML files and the skipped files get their rows. The C++ files
    take ids from first_id on (given before extraction), the others follow them."""
    if run.plan.stale:
        conn.execute("CREATE TEMP TABLE _stale (id INTEGER PRIMARY KEY)")
        conn.executemany("INSERT INTO _stale (id) VALUES (?)", [(i,) for i in run.plan.stale])
        tables = [t for (t,) in conn.execute(_FILE_TABLES).fetchall()]
        if "calls" in tables and "definitions" in tables:  # its 400,000 rows found through ix_calls_caller
            tables.remove("calls")
            conn.execute(_STALE_CALLS)
        for table in tables:
            conn.execute(f"DELETE FROM {table} WHERE file_id IN (SELECT id FROM _stale)")
        conn.execute("DELETE FROM files WHERE id IN (SELECT id FROM _stale)")
        conn.execute("DROP TABLE _stale")
    run.next_id = run.plan.first_id + len(run.plan.cxx_todo)
    rows = []
    for rel, sha in run.found.yaml.items():
        if rel not in run.plan.kept:
            rows.append((run.next_id, rel, "yaml", sha, len(run.ck.texts[rel].encode()), 0, "ok"))
            run.next_id += 1
    for rel, status in run.ck.skipped:
        if rel in run.plan.kept:
            continue
        rows.append((run.next_id, rel, _language(rel), "", 0, 0, status))
        run.next_id += 1
    _insert(conn, FILES_INSERT, rows)


def _python_stage(conn: sqlite3.Connection, run: _Run) -> None:
    """Python: few files, extracted here; a file that does not parse is recorded with its status."""
    todo = run.plan.py_todo
    run.progress("Python", 0, len(todo))
    batch, listed = RowBatch(conn.executemany, py_tables() if todo else ()), []
    for done, rel in enumerate(todo, start=1):
        data = run.ck.py_contents[rel]
        rows, status = _py_rows(rel, data)
        listed.append((run.next_id, rel, "python", run.found.python[rel], len(data), int(rows is None), status))
        if rows is not None:
            batch.add(run.next_id, rel, rows)
        run.next_id += 1
        run.progress("Python", done, len(todo))
    batch.flush()
    _insert(conn, FILES_INSERT, listed)
    if run.plan.python_changed:
        _mark_nn_modules(conn)


def _cxx_stage(conn: sqlite3.Connection, run: _Run, results: Iterator) -> None:
    """Each chunk's rows arrive as a database image (see _cxx_chunk), opened as the schema "shard"
    and copied table by table; a commit after each copy releases the shard for the next image."""
    todo, contents = run.plan.cxx_todo, run.ck.contents
    run.progress("C++/CUDA", 0, len(todo))
    if not todo:
        return
    conn.commit()
    conn.execute("ATTACH DATABASE ':memory:' AS shard")
    # The deferred indexes are made while the workers still have the last few percent of the
    # bytes to extract (the smallest files): that work then hides the sorting, which would
    # otherwise run on one core at the end with the other idle.
    left = sum(len(contents[rel]) for rel in todo)
    index_at = left * INDEX_EARLY
    copies: list[str] = []
    listed, done = [], 0
    for statuses, image in results:
        conn.deserialize(image, name="shard")
        copies = copies or _shard_copies(conn)
        for copy in copies:
            conn.execute(copy)
        for file_id, rel, errors, status in statuses:
            listed.append((file_id, rel, _language(rel), run.found.cxx[rel], len(contents[rel]), errors, status))
            left -= len(contents[rel])
        done += len(statuses)
        run.progress("C++/CUDA", done, len(todo))
        if run.deferred and left <= index_at:
            _create_indexes(conn, run.deferred, run.progress)
            run.deferred = []
        conn.commit()
    conn.execute("DETACH DATABASE shard")
    _insert(conn, FILES_INSERT, listed)


def _shared_macro_stage(conn: sqlite3.Connection, run: _Run) -> None:
    """The files whose definitions another file's X-macro list writes, or whose functions use another file's
    macro that calls a parameter, extracted again with its #define (shared_macros.py); a kept file so extracted
    counts as changed for the link."""
    from . import shared_macros
    from .link.stage import include_graph

    conn.commit()
    files = _macro_files(conn, run)
    callers = shared_macros.parameter_callers(conn, files)
    if not shared_macros.uses_by_file(conn, files) and not shared_macros.callers_used(conn, callers, files):
        return
    run.progress("X-macro lists", 0, 1)
    run.includes = include_graph(conn, {"includes"})
    done = shared_macros.expand(conn, run.ck.contents, run.ck.header, run.includes, callers, files)
    todo = set(run.plan.cxx_todo)
    run.reextracted = [rel for rel in done if rel not in todo]
    conn.commit()
    run.progress("X-macro lists", 1, 1)


MACRO_FILES_AT_MOST = 64  # C++ files extracted (or gone) in an update beyond which the X-macro stage looks at all


def _macro_files(conn: sqlite3.Connection, run: _Run) -> frozenset[str] | None:
    """The files whose X-macro and body macro uses the stage looks at (shared_macros.expand): in an update, the
    C++ files extracted now, when every other file's expansion reads what it read before, which was expanded
    then: the C++ files are the same paths (an #include finds the same file) and each file extracted now, or
    whose rows went, has the same #defines, in the same order, and #includes as before (a macro's lookup reads
    the #defines of the using file, of the files it includes and then of any file). None (every file): a fresh
    build, more than MACRO_FILES_AT_MOST files, or any of that differs."""
    if run.previous is None or run.db is None or len(run.plan.stale) + len(run.plan.cxx_todo) > MACRO_FILES_AT_MOST:
        return None
    cxx = "SELECT path FROM files WHERE language IN ('cpp', 'cuda', 'objcpp')"
    with sqlite3.connect(index_file.read_only_uri(run.db), uri=True) as old:
        marks = ",".join("?" * len(run.plan.stale))
        files = {r[0] for r in old.execute(f"SELECT path FROM files WHERE id IN ({marks})", run.plan.stale)}
        files.update(run.plan.cxx_todo)
        if {r[0] for r in old.execute(cxx)} != {r[0] for r in conn.execute(cxx)}:
            return None
        marks = ",".join("?" * len(files))
        ids = f"file_id IN (SELECT id FROM files WHERE path IN ({marks}))"  # (by the integer: a third of the time)
        for query in (f"SELECT file, name, params, body, truncated FROM macros WHERE {ids} ORDER BY file, line",
                      f"SELECT file, target, system FROM includes WHERE {ids} ORDER BY file, target, system"):
            if old.execute(query, sorted(files)).fetchall() != conn.execute(query, sorted(files)).fetchall():
                return None
    return frozenset(files)


def _guard_stage(conn: sqlite3.Connection) -> None:
    """The stretches under an #if that no build compiles, decided with every file's #defines (guards.py)."""
    from . import guards

    guards.mark(conn)
    conn.commit()


def _link_stage(conn: sqlite3.Connection, run: _Run, jobs: int) -> None:
    """The graph (indexer/link/), in `jobs` processes: updated where few files changed and the
    checkout-wide inputs of the last link are the same (link/incremental.py), else resolved whole."""
    from . import link

    run.progress("link", 0, 1)
    conn.commit()
    summary = None
    previous = run.previous if not run.plan.fresh else None
    if previous is not None and previous.get("link_key") == run.meta["link_key"] and previous.get("link_inputs"):
        from .link import incremental

        scopes = previous.get("link_scopes")
        summary = incremental.relink(conn, jobs, run.db, previous["link_inputs"],
                                     json.loads(previous.get("link_file_includes") or "{}"), run.includes,
                                     also_changed=set(run.reextracted),
                                     previous_scopes=json.loads(scopes) if scopes else None)
    if summary is None:
        summary = link.link(conn, jobs, run.includes)
    run.meta["link_inputs"] = summary.inputs
    run.meta["link_file_includes"] = json.dumps(summary.file_includes, sort_keys=True)
    run.meta["link_scopes"] = json.dumps(summary.scopes, separators=(",", ":"))
    run.meta["linked"] = "incremental" if summary.incremental else "whole"
    run.link_changes = summary.changes
    conn.commit()
    run.progress("link", 1, 1)


def _chain_stage(conn: sqlite3.Connection, run: _Run, tmp: Path, jobs: int) -> None:
    """The chains kernels-for shows, walked over the finished index (chain_stage.py): again where an
    incremental link's changes reach them, when the index updated holds chains of this code; else all.
    The meta keys of what it walked are written here (_finish has written the others, chains_key too: the rows
    are this code's once the stage is done, and a failed build leaves no index)."""
    from . import chain_stage

    run.progress("chains", 0, 1)
    previous = run.previous if not run.plan.fresh else None
    walked = None
    if previous is not None and previous.get("chains_key") == run.meta["chains_key"] and \
            run.link_changes is not None and run.db is not None:
        walked = chain_stage.update(conn, tmp, run.db, run.link_changes, jobs)
    how = "incremental"
    if walked is None:
        walked, how = chain_stage.fill(conn, tmp, jobs), "whole"
    conn.execute("DELETE FROM meta WHERE key IN ('chains_walked', 'chains')")
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [("chains_walked", str(walked)), ("chains", how)])
    conn.commit()
    run.progress("chains", 1, 1)


def _unchanged(run: _Run, key: str, inputs: str) -> bool:
    """Whether a stage's inputs hash the same as when the index updated was made (its rows are then kept)."""
    run.meta[key] = inputs
    same = not run.plan.fresh and run.previous is not None and run.previous.get(key) == inputs
    if same:
        run.meta["kept_stages"] = ",".join(filter(None, (run.meta.get("kept_stages"), key.removesuffix("_inputs"))))
    return same


def _inputs_hash(conn: sqlite3.Connection, tables: tuple[str, ...], *texts: bytes) -> str:
    """A hash of the texts and of the rows of the tables (all columns but the ids): in id order, or as a
    set for a table named with a leading `=` (a stage that reads it in no particular order)."""
    h = hashlib.sha256()
    for text in texts:
        h.update(_sha(text).encode())
    for name in tables:
        table = name.removeprefix("=")
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in ("id", "file_id")]
        h.update(f"\0{name}:{','.join(columns)}\0".encode())
        rows = (repr(tuple(row)) for row in conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"))
        for row in sorted(rows) if name != table else rows:
            h.update(row.encode())
    return h.hexdigest()[:32]


def _dispatch_table_stage(conn: sqlite3.Connection, run: _Run) -> None:
    """The dispatch keys and the computed dispatch table (indexer/dispatcher/table_stage.py); kept when the
    registrations (meta registrations_hash, see _dispatcher_stage) and the key sources are those of the
    index updated."""
    from .dispatcher import keymodel, table_stage

    run.progress("dispatch table", 0, 1)
    sources = {p: run.ck.contents[p] for p in keymodel.SOURCES if p in run.ck.contents}
    inputs = _inputs_hash(conn, (), run.meta["link_key"].encode(), run.meta["registrations_hash"].encode(),
                          *(p.encode() + b"\0" + data for p, data in sorted(sources.items())))
    if _unchanged(run, "dispatch_table_inputs", inputs):
        run.meta["dispatch_table_warning"] = run.previous.get("dispatch_table_warning", "")
    else:
        warning = table_stage.write(conn, sources)
        run.meta["dispatch_table_warning"] = warning or ""
    conn.commit()
    run.progress("dispatch table", 1, 1)


# The tables the dispatcher stage reads (macros: MacroTable sorts them; the includes: as the include graph).
_DISPATCHER_TABLES = ("ops", "registrations", "registration_macro_uses", "=macros", "py_decomps")


def _dispatcher_stage(conn: sqlite3.Connection, run: _Run) -> None:
    """dispatcher_registrations (indexer/dispatcher/stage.py), from the C++ and yaml facts; kept when
    what it reads is what it read for the index updated (its tables, the yaml texts, the version, the
    Python files it reads, the include graph of the C++ files)."""
    from .dispatcher import backward_table, python_regs, stage
    from .link.stage import include_graph

    run.progress("dispatcher", 0, 1)
    conn.commit()
    version = discover.pytorch_version(run.ck.root)
    if run.includes is None:
        run.includes = include_graph(conn, {"includes"})
    texts = [run.meta["link_key"].encode(), version.encode(), repr(sorted(run.includes.direct.items())).encode()]
    texts += [rel.encode() + b"\0" + text.encode() for rel, text in sorted(run.ck.texts.items())]
    for rel in python_regs.IMPORT_SOURCES:
        try:
            texts.append(rel.encode() + b"\0" + discover.read_regular(discover.classify(run.ck.root, rel),
                                                                       discover.DEFAULT_MAX_FILE_SIZE))
        except discover.Skipped:
            texts.append(rel.encode())
    kept = _unchanged(run, "dispatcher_inputs", _inputs_hash(conn, _DISPATCHER_TABLES, *texts))
    if not kept:
        stage.fill(conn, run.ck.root, run.ck.texts, version)
        backward_table.fill(conn, version)
    # The hash of the registrations' rows (the dispatch table stage's input): made where they were written;
    # where the stage was kept, its rows are the index's, and so is their hash.
    previous = run.previous.get("registrations_hash") if kept and run.previous is not None else None
    run.meta["registrations_hash"] = previous or _inputs_hash(conn, ("dispatcher_registrations",))
    conn.commit()
    run.progress("dispatcher", 1, 1)


def _shard_copies(conn: sqlite3.Connection) -> list[str]:
    """One INSERT ... SELECT per table of a chunk's image, with the columns the image has: the
    workers made it from rows.cxx_tables(), which this process need not import."""
    copies = []
    for (table,) in conn.execute("SELECT name FROM shard.sqlite_master WHERE type = 'table' ORDER BY rowid"):
        cols = ", ".join(r[1] for r in conn.execute(f"PRAGMA shard.table_info({table})"))
        copies.append(f"INSERT INTO main.{table} ({cols}) SELECT {cols} FROM shard.{table}")
    return copies


def _finish(conn: sqlite3.Connection, run: _Run, db: Path) -> BuildSummary:
    """The meta table, the indexes still deferred, the counts of the summary."""
    files = conn.execute("SELECT count(*) FROM files").fetchone()[0] or 0
    partial = _partial_files(conn.execute)
    meta = {
        "checkout": str(run.ck.root),
        "pytorch_version": discover.pytorch_version(run.ck.root),
        "indexed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "tool_version": tool_version(),
        "schema_version": str(SCHEMA_VERSION),
        "seconds": f"{time.perf_counter() - run.start:.2f}",
        "files": str(files),
        "parsed": str(len(run.plan.cxx_todo)),
        "py_parsed": str(len(run.plan.py_todo)),
        "stub_macros": run.ck.stub_macros,
        "file_stats": json.dumps(run.ck.stats, separators=(",", ":")),
        "partial_files": str(partial),
        **run.meta,
    }
    conn.execute("DELETE FROM meta")
    conn.execute(index_file.SET_APPLICATION_ID)
    _insert(conn, "INSERT INTO meta (key, value) VALUES (?, ?)", list(meta.items()))
    _create_indexes(conn, run.deferred, run.progress)
    run.deferred = []
    ops, kernels = _counts(conn.execute)
    conn.commit()
    warning = run.meta.get("dispatch_table_warning")
    return BuildSummary(db, ops, kernels, files, 0.0, partial, run.ck.stub_macros, (warning,) if warning else (),
                        run.meta.get("codegen"))


def _counts(execute: Callable) -> tuple[int, int]:
    """(ops, distinct kernels) of an index."""
    ops = execute("SELECT count(*) FROM ops").fetchone()[0]
    kernels = execute("SELECT count(DISTINCT cpp_namespace || '::' || kernel) FROM dispatch").fetchone()[0]
    return ops or 0, kernels or 0


def _partial_files(execute: Callable) -> int:
    return execute(f"SELECT count(*) FROM files WHERE substr(status, 1, {len(PARTIAL)}) = ?", (PARTIAL,)).fetchone()[0]


def _unchanged_summary(db: Path, start: float) -> BuildSummary:
    """The summary of an index that is up to date, from what it holds."""
    with sqlite3.connect(index_file.read_only_uri(db), uri=True) as conn:
        ops, kernels = _counts(conn.execute)
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        partial = _partial_files(conn.execute)
        row = conn.execute("SELECT value FROM meta WHERE key = 'stub_macros'").fetchone()
        warning = conn.execute("SELECT value FROM meta WHERE key = 'dispatch_table_warning'").fetchone()
    return BuildSummary(db, ops, kernels, files, time.perf_counter() - start, partial,
                        row[0] if row else DISPATCH_STUB_H, (warning[0],) if warning and warning[0] else ())


def _create_indexes(conn: sqlite3.Connection, indexes: list[str], progress: Progress) -> None:
    """The deferred indexes, from their CREATE INDEX statements (_create_schema)."""
    if not indexes:
        return
    progress("indexes", 0, len(indexes))
    for done, statement in enumerate(indexes, start=1):
        conn.execute(statement)
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
        and meta.get("tool_version") == tool_version() and set(TABLES) <= tables
    return meta if ok else None


def _extractor_hash() -> str:
    """Hash of the C++ extractor package and its patterns: facts cached in an index are only
    reused when the code that made them is the same (cxx.extractor_hash, read without importing cxx)."""
    return code_hash.cxx_extractor()


def _link_hash() -> str:
    """Hash of the link stage's code: a graph made by other code is made again (from the same facts)."""
    return code_hash.link_stage() + code_hash.dispatcher_stage()  # the dispatcher stage runs with the link stage


def _py_extractor_hash() -> str:
    """Hash of the Python extractor: cached Python facts are reused only when it is the same."""
    return python_api.extractor_hash()





def _language(rel: str) -> str:
    if rel.endswith(".py"):
        return "python"
    return discover.CXX_LANGUAGES.get(os.path.splitext(rel)[1], "yaml" if rel.endswith(".yaml") else "other")


__all__ = ["BuildSummary", "TgIndexError", "build", "tool_version"]
