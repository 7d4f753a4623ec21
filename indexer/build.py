"""Walk the checkout, extract, write the database: the only place facts become rows.

The database is written to a temporary file beside the target and renamed over
it at the end, so an interrupted build (Ctrl-C, kill) leaves the previous index
untouched and usable.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, event, insert, text
from sqlalchemy.engine import Connection

from ..schema import SCHEMA_VERSION, Base, views_sql
from ..schema import models as m
from . import derivatives, discover, native_yaml
from .errors import TgIndexError

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


def _insert(conn: Connection, table: type[m.Base], rows: list[dict]) -> None:
    if rows:
        conn.execute(insert(table.__table__), rows)


def _write_yaml(conn: Connection, facts: native_yaml.NativeFacts, derivs: tuple[derivatives.DerivativeFact, ...]) -> dict[str, int]:
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


def build(checkout: Path, db: Path, progress: Progress = _no_progress) -> BuildSummary:
    """Index a checkout into db (created or replaced atomically)."""
    start = time.perf_counter()
    root = discover.check_checkout(checkout)
    progress("yaml", 0, 3)
    sources: dict[str, str] = {}
    for rel in (native_yaml.NATIVE_FUNCTIONS, native_yaml.TAGS, derivatives.DERIVATIVES):
        content = discover.read_text(root, rel)
        if content is not None:
            sources[rel] = content
    native = native_yaml.parse(sources[native_yaml.NATIVE_FUNCTIONS], sources.get(native_yaml.TAGS))
    derivs = derivatives.parse(sources[derivatives.DERIVATIVES]) if derivatives.DERIVATIVES in sources else ()
    progress("yaml", 3, 3)

    db.parent.mkdir(parents=True, exist_ok=True)
    tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    engine = create_engine(f"sqlite:///{tmp}")

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn, _record):  # bulk load: the temp file is thrown away on failure anyway
        dbapi_conn.execute("PRAGMA journal_mode=OFF")
        dbapi_conn.execute("PRAGMA synchronous=OFF")

    try:
        Base.metadata.create_all(engine)
        with engine.begin() as conn:
            for statement in views_sql().split(";"):
                if statement.strip():
                    conn.exec_driver_sql(statement)
            _write_yaml(conn, native, derivs)
            files = [dict(path=rel, language="yaml", sha256=_sha(content.encode()), size=len(content.encode()),
                          parse_errors=0, status="ok") for rel, content in sources.items()]
            _insert(conn, m.File, files)
            seconds = time.perf_counter() - start
            meta = {
                "checkout": str(root),
                "pytorch_version": discover.pytorch_version(root),
                "indexed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "tool_version": TOOL_VERSION,
                "schema_version": str(SCHEMA_VERSION),
                "seconds": f"{seconds:.2f}",
                "files": str(len(files)),
            }
            _insert(conn, m.Meta, [{"key": k, "value": v} for k, v in meta.items()])
        with engine.connect() as conn:
            conn.execute(text("ANALYZE"))
        engine.dispose()
        os.replace(tmp, db)
    except BaseException:
        engine.dispose()
        tmp.unlink(missing_ok=True)
        raise
    kernels = len({(r.cpp_namespace, r.kernel) for r in native.dispatch})
    return BuildSummary(db, len(native.ops), kernels, len(files), time.perf_counter() - start)


__all__ = ["BuildSummary", "TgIndexError", "build"]
