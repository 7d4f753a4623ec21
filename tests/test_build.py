from __future__ import annotations

import dataclasses
import re
import shutil
import sqlite3
import tomllib
from pathlib import Path

import pytest

from tg_index.indexer.build import build
from tg_index.indexer.errors import TgIndexError
from tg_index.indexer.rows import cxx_tables, py_tables
from tg_index.queries.api import SCHEMA_VERSION as API_SCHEMA_VERSION  # the query side reads the same constant
from tg_index.schema import SCHEMA_VERSION

from .conftest import run


def _pyproject_version() -> str:
    with open(Path(__file__).parent.parent / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["version"]


def _count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_summary_and_meta(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    summary = build(mini, db)
    assert (summary.ops, summary.files) == (10, 20)  # 7 YAML and C++/CUDA files, 13 Python files
    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
    assert meta["checkout"] == str(mini.resolve())
    assert meta["pytorch_version"] == "2.6.0a0"
    assert meta["schema_version"] == str(SCHEMA_VERSION)
    assert meta["tool_version"] == _pyproject_version()  # written in pyproject.toml only
    assert (meta["stub_macros"], meta["partial_files"]) == ("built-in (DispatchStub.h missing)", "0")
    assert meta["indexed_at"].endswith("+00:00")


def test_api_and_schema_agree_on_the_version():
    assert API_SCHEMA_VERSION == SCHEMA_VERSION


def test_interrupted_build_leaves_previous_index(mini: Path, tmp_path: Path):
    (tmp_path / "out").mkdir()
    db = tmp_path / "out" / "ix.db"
    build(mini, db)
    before = db.read_bytes()
    (mini / "aten/src/ATen/native/native_functions.yaml").write_text("- func: only(Tensor self) -> Tensor\n")

    def interrupt(stage: str, done: int, total: int) -> None:
        if done == total:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build(mini, db, interrupt)
    assert db.read_bytes() == before
    assert [p.name for p in db.parent.iterdir()] == ["ix.db"]  # no temporary file left behind
    assert _count(db, "ops") == 10


def test_failed_build_leaves_previous_index(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    build(mini, db)
    (mini / "aten/src/ATen/native/native_functions.yaml").write_text("- func: [unclosed\n")
    with pytest.raises(TgIndexError, match=r"native_functions.yaml:\d+: malformed YAML"):
        build(mini, db)
    assert _count(db, "ops") == 10


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p / "nowhere", "no checkout at {p}/nowhere; clone PyTorch there (see README) or pass its path"),
        (lambda p: (p / "file").write_text("x") and p / "file", "{p}/file is not a directory; pass the root of a PyTorch checkout"),
        (lambda p: p, "{p} is not a PyTorch checkout: aten/src/ATen/native/native_functions.yaml is missing"),
    ],
)
def test_not_a_checkout(tmp_path: Path, make, message):
    with pytest.raises(TgIndexError) as err:
        build(make(tmp_path), tmp_path / "ix.db")
    assert str(err.value) == message.format(p=tmp_path)


def test_symlink_out_of_checkout_is_refused(mini: Path, tmp_path: Path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("- name: relu(Tensor self) -> Tensor\n  self: grad\n")
    target = mini / "tools/autograd/derivatives.yaml"
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(TgIndexError, match="tools/autograd/derivatives.yaml is a symlink that leads out of the checkout"):
        build(mini, tmp_path / "ix.db")


def _meta(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT key, value FROM meta"))


def test_update_parses_only_changed_files(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    assert _meta(db)["parsed"] == "4"
    before = db.read_bytes()
    again = build(mini, db, jobs=1)
    assert db.read_bytes() == before  # nothing changed: the index is not rewritten
    assert (again.ops, again.files) == (10, 20)
    kernel = mini / "aten/src/ATen/native/cuda/AddKernel.cu"
    kernel.write_text(kernel.read_text().replace("add_kernel_cuda<scalar_t><<<grid, block, 0, stream>>>",
                                                 "add_kernel_cuda<scalar_t><<<grid, 256>>>"))
    (mini / "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp").unlink()
    build(mini, db, jobs=1)
    assert _meta(db)["parsed"] == "1"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT config FROM launches WHERE kind = 'triple_chevron'").fetchall() == [('["grid", "256"]',)]
        assert conn.execute("SELECT count(*) FROM stubs WHERE file LIKE '%/cpu/%'").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM files").fetchone() == (19,)


def test_parallel_and_serial_builds_agree(mini: Path, tmp_path: Path):
    serial, parallel = tmp_path / "serial.db", tmp_path / "parallel.db"
    build(mini, serial, jobs=1)
    build(mini, parallel, jobs=2)
    query = "SELECT file, name, qualified_name, kind, line FROM definitions ORDER BY file, line, name"
    with sqlite3.connect(serial) as a, sqlite3.connect(parallel) as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
        assert len(a.execute(query).fetchall()) == 6


def test_rebuilds_give_the_same_rows_and_ids_however_the_files_are_chunked(mini: Path, tmp_path: Path, monkeypatch):
    """File ids are given before extraction and chunks are taken in order: a cold build's rows,
    ids included, do not depend on the number of workers, the chunk size or which worker ends first."""
    from tg_index.indexer import workers as workers_module

    serial = tmp_path / "serial.db"
    build(mini, serial, jobs=1)
    monkeypatch.setattr(workers_module, "CHUNK_FILES", 1)  # one file per task: four tasks for two workers
    dbs = [tmp_path / "a.db", tmp_path / "b.db"]
    for db in dbs:
        build(mini, db, jobs=2)
    fact_tables = [t.name for t in (*cxx_tables(), *py_tables())]
    tables = [*fact_tables, "files"]
    with sqlite3.connect(serial) as s, sqlite3.connect(dbs[0]) as a, sqlite3.connect(dbs[1]) as b:
        for table in tables:
            rows = s.execute(f"SELECT * FROM {table} ORDER BY id").fetchall()
            assert rows == a.execute(f"SELECT * FROM {table} ORDER BY id").fetchall(), table
            assert rows == b.execute(f"SELECT * FROM {table} ORDER BY id").fetchall(), table
        assert len(s.execute("SELECT * FROM calls").fetchall()) > 10
        # every fact row points at the files row of its own file
        for table in fact_tables:
            assert a.execute(f"SELECT count(*) FROM {table} t JOIN files f ON f.id = t.file_id "
                             f"WHERE f.path != t.file").fetchone() == (0,), table


def test_symlinked_source_leading_out_is_skipped_and_reported(mini: Path, tmp_path: Path):
    outside = tmp_path / "evil.cpp"
    outside.write_text("void evil() {}\n")
    (mini / "aten/src/ATen/native/evil.cpp").symlink_to(outside)
    db = tmp_path / "ix.db"
    build(mini, db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM files WHERE path = 'aten/src/ATen/native/evil.cpp'").fetchone() == (
            "skipped: symlink leads out of the checkout",)
        assert conn.execute("SELECT count(*) FROM definitions WHERE name = 'evil'").fetchone() == (0,)


def test_a_checkout_with_a_skipped_file_is_left_as_it_is_when_nothing_changed(mini: Path, tmp_path: Path):
    outside = tmp_path / "evil.cpp"
    outside.write_text("void evil() {}\n")
    link = mini / "aten/src/ATen/native/evil.cpp"
    link.symlink_to(outside)
    db = tmp_path / "ix.db"
    build(mini, db)
    before = (db.stat().st_ino, db.stat().st_mtime_ns)
    build(mini, db)  # the symlink is skipped for the same reason: nothing to write
    assert (db.stat().st_ino, db.stat().st_mtime_ns) == before
    link.unlink()
    link.write_text("void evil() {}\n")  # now a real file of the checkout: extracted
    build(mini, db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM files WHERE path = 'aten/src/ATen/native/evil.cpp'").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM definitions WHERE name = 'evil'").fetchone() == (1,)


def test_tool_version_is_the_installed_distribution(monkeypatch):
    import importlib.metadata

    from tg_index.indexer.build import tool_version

    assert tool_version() == importlib.metadata.version("tg-index") == _pyproject_version()

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    with pytest.raises(TgIndexError) as err:
        tool_version()
    assert str(err.value) == "tg-index is not installed (no package metadata); install it: pip install -e ."


STUB_H = "aten/src/ATen/native/DispatchStub.h"


def test_stub_macros_say_where_they_came_from(mini: Path, tmp_path: Path):
    """Without DispatchStub.h the built-in macros serve, and the summary and meta say so."""
    db = tmp_path / "ix.db"
    summary = build(mini, db, jobs=1)
    assert str(summary) == (f"indexed 10 ops, 13 kernels, 20 files, built-in DispatchStub macros "
                            f"(DispatchStub.h missing) in {summary.seconds:.1f} s -> {db}")
    assert _meta(db)["stub_macros"] == "built-in (DispatchStub.h missing)"
    again = build(mini, db, jobs=1)  # up to date: the summary still says it
    assert str(again).startswith("indexed 10 ops, 13 kernels, 20 files, built-in DispatchStub macros (DispatchStub.h missing) in ")
    shutil.copyfile(Path(__file__).parent / "fixtures/cxx/DispatchStub.h", mini / STUB_H)
    summary = build(mini, db, jobs=1)
    assert str(summary) == f"indexed 10 ops, 13 kernels, 21 files in {summary.seconds:.1f} s -> {db}"
    assert _meta(db)["stub_macros"] == STUB_H
    assert _meta(db)["parsed"] == "5"  # other macros: every C++ file is extracted again


def test_partial_files_are_counted(mini: Path, tmp_path: Path, monkeypatch):
    """A file whose extraction stopped early is counted in the summary and in meta partial_files."""
    from tg_index.indexer import cxx

    extract = cxx.extract

    def failing(source: bytes, path: str, macros=cxx.DEFAULT_STUB_MACROS):
        facts = extract(source, path, macros)
        if path.endswith("AddKernel.cu"):
            return dataclasses.replace(facts, failure="RuntimeError: boom", parse_errors=facts.parse_errors + 1)
        return facts

    monkeypatch.setattr(cxx, "extract", failing)
    db = tmp_path / "ix.db"
    summary = build(mini, db, jobs=1)
    assert str(summary) == (f"indexed 10 ops, 13 kernels, 20 files, 1 file partial (see tg-query doctor), "
                            f"built-in DispatchStub macros (DispatchStub.h missing) in {summary.seconds:.1f} s -> {db}")
    assert _meta(db)["partial_files"] == "1"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT path, status FROM files WHERE status != 'ok' ORDER BY path").fetchall() == [
            ("aten/src/ATen/native/cuda/AddKernel.cu", "partial: RuntimeError: boom"),
            ("torch/nn/modules/broken.py", "error: torch/nn/modules/broken.py:1: invalid syntax")]  # not partial: no facts
    monkeypatch.setattr(cxx, "extract", extract)
    assert build(mini, db, jobs=1).partial_files == 1  # kept: the file did not change
    (mini / "aten/src/ATen/native/cuda/AddKernel.cu").write_text("void f() {}\n")
    summary = build(mini, db, jobs=1)
    assert (summary.partial_files, _meta(db)["partial_files"]) == (0, "0")
    assert ", partial" not in str(summary) and "file partial" not in str(summary)


def test_cli_summary_has_no_notes_when_all_is_well(mini: Path, tmp_path: Path):
    shutil.copyfile(Path(__file__).parent / "fixtures/cxx/DispatchStub.h", mini / STUB_H)
    result = run("tg-index", str(mini), "--db", str(tmp_path / "ix.db"), "--quiet")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"indexed 10 ops, 13 kernels, 21 files in \d+\.\d s -> .*ix\.db\n", result.stdout)


def test_the_dispatch_table_is_made_again_when_the_registrations_change_and_kept_when_not(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    build(mini, db, jobs=1)
    kernel = mini / "aten/src/ATen/native/cuda/AddKernel.cu"
    kernel.write_text(kernel.read_text().replace("<<<grid, block, 0, stream>>>", "<<<grid, 256>>>"))
    build(mini, db, jobs=1)  # no registration changed: both stages kept
    assert _meta(db)["kept_stages"] == "dispatcher,dispatch_table"
    kernel.write_text(kernel.read_text().replace('m.impl("add.Tensor", TORCH_FN(add_kernel_cuda_impl));',
                                                 'm.impl("add.Tensor", TORCH_FN(add_kernel_cuda_other));'))
    build(mini, db, jobs=1)  # the CUDA registration names another kernel: both made again
    assert _meta(db)["kept_stages"] == ""
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT kernel FROM dispatcher_registrations WHERE op = 'aten::add.Tensor' AND key = 'CUDA' "
                            "AND source = 'handwritten'").fetchall() == [("add_kernel_cuda_other",)]
    build(mini, db, jobs=1)  # nothing changed
    kernel.write_text(kernel.read_text() + "\n// a comment\n")
    build(mini, db, jobs=1)
    assert _meta(db)["kept_stages"] == "dispatcher,dispatch_table"
