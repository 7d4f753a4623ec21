"""The commands as a user runs them: installed console scripts, real SQLite files."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

from tg_index.schema.version import SCHEMA_VERSION

from .conftest import run

README = Path(__file__).parents[1] / "README.md"
QUERY_COMMANDS = ["kernels-for", "trace", "ops-for", "doctor", "op", "ops", "symbol", "stub", "kernel", "callers", "sql", "export", "info", "mcp", "datasette-metadata"]


def test_every_command_has_help_and_is_in_the_readme():
    readme = README.read_text()
    for args in (["tg-index", "--help"], ["tg-query", "--help"]):
        result = run(*args)
        assert result.returncode == 0, result.stderr
        assert "Usage:" in result.stdout
    for command in QUERY_COMMANDS:
        result = run("tg-query", command, "--help")
        assert result.returncode == 0, result.stderr
        assert f"tg-query {command}" in result.stdout
        assert f"tg-query {command}" in readme, f"README does not show `tg-query {command}`"
    assert "tg-index" in readme and "make run" in readme and "make test" in readme


def test_index_then_kernels_for_json(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    built = run("tg-index", str(mini), "--db", str(db))
    assert built.returncode == 0, built.stderr
    assert re.fullmatch(r"indexed 10 ops, 13 kernels, 20 files, built-in DispatchStub macros \(DispatchStub.h missing\) "
                        r"in \d+\.\d s -> .*ix\.db\n", built.stdout)
    result = run("tg-query", "--db", str(db), "kernels-for", "aten::add.out", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["op"] == "add.out"
    # keys in KEY_ORDER (CPU, CUDA, Meta, MPS, ...), then the rest in the yaml's order
    assert [(k["key"], k["kernel"], k["origin"]) for k in data["keys"]] == [
        ("CPU", "ufunc_add_CPU", "ufunc"), ("CUDA", "ufunc_add_CUDA", "ufunc"), ("Meta", "structured_add_Tensor", "meta"),
        ("MPS", "add_out_mps", "yaml"), ("SparseCPU", "add_out_sparse_cpu", "yaml"),
        ("SparseMeta", "add_out_sparse_cpu", "yaml"),
    ]


def test_bare_name_gives_every_overload(mini_db: Path):
    result = run("tg-query", "--db", str(mini_db), "kernels-for", "add", "--json")
    assert [a["op"] for a in json.loads(result.stdout)] == ["add.Tensor", "add.out"]
    text = run("tg-query", "--db", str(mini_db), "kernels-for", "add.Tensor", "--key", "CPU").stdout
    assert "  CPU            at::native::ufunc_add_CPU [via add.out]  (yaml aten/src/ATen/native/native_functions.yaml:4)\n" \
        "      note: generated at build time from ufunc_inner_loop\n" in text
    assert "backward  tools/autograd/derivatives.yaml:2" in text


def test_op_shows_entry_siblings_and_backward(mini_db: Path):
    data = json.loads(run("tg-query", "--db", str(mini_db), "op", "add.Tensor", "--json").stdout)
    assert data["siblings"] == ["add_.Tensor", "add.out"]
    assert data["fields"]["dispatch"] == {"SparseCPU, SparseCUDA": "add_sparse"}
    assert data["location"] == {"file": "aten/src/ATen/native/native_functions.yaml", "line": 2}
    assert [f["names"] for f in data["backward"][0]["formulas"]] == [["self"], ["other"], ["result"]]


def test_ops_filters(mini_db: Path):
    def names(*args: str) -> list[str]:
        return [o["name"] for o in json.loads(run("tg-query", "--db", str(mini_db), "ops", *args, "--json").stdout)]

    assert names("--tag", "core") == ["add.Tensor", "mul.Scalar"]
    assert names("--structured") == ["add.out", "sub.out"]
    assert names("--key", "CPU") == ["add.Tensor", "add_.Tensor", "add.out", "custom_op", "sub.out"]
    assert names("--origin", "autogen") == ["mul.Scalar_out", "custom_op.out"]
    assert names("--name", "mul*", "--kind", "inplace") == ["mul_.Scalar"]


def test_export_dispatch_is_json_lines(mini_db: Path):
    lines = run("tg-query", "--db", str(mini_db), "export", "dispatch").stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 24
    assert rows[0] == {"op": "add.Tensor", "key": "SparseCPU", "kernel": "add_sparse", "origin": "yaml"}


def test_sql_reads_and_refuses_writes(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    run("tg-index", str(mini), "--db", str(db))
    ok = run("tg-query", "--db", str(db), "sql", "SELECT kernel FROM v_dispatch WHERE op = 'relu'", "--json")
    assert json.loads(ok.stdout) == [{"kernel": "relu"}]
    for statement, what in (("DELETE FROM ops", "DELETE on ops"), ("DROP TABLE ops", "DROP TABLE ops"),
                            ("INSERT INTO meta VALUES ('a', 'b')", "INSERT on meta")):
        refused = run("tg-query", "--db", str(db), "sql", statement)
        assert refused.returncode == 1
        assert refused.stderr == f"error: the index is read-only here; {what} is refused (tg-query sql only reads)\n"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM ops").fetchone()[0] == 10


def _error(result) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    return result.stderr.strip()


def test_one_line_errors(mini: Path, mini_db: Path, tmp_path: Path):
    assert _error(run("tg-query", "--db", str(mini_db), "kernels-for", "add.outt")) == \
        "error: unknown op 'add.outt'; did you mean 'add.out'?"
    assert _error(run("tg-query", "--db", str(tmp_path / "none.db"), "op", "relu")) == \
        f"error: no index at {tmp_path / 'none.db'}; run `tg-index` first (or pass --db / set TG_INDEX_DB)"
    assert _error(run("tg-query", "--db", str(mini_db), "export", "dispatc")) == (
        "error: unknown export 'dispatc'; did you mean 'dispatch'? (one of: dispatch, definitions, stubs, launches, "
        "registrations, dispatcher, type-dispatch, calls, library-calls, ops, derivatives, dispatch-table)")
    assert _error(run("tg-query", "--db", str(mini_db), "sql", "SELEC 1")).startswith("error: SQL error: near \"SELEC\"")
    assert _error(run("tg-index", str(tmp_path / "absent"), "--db", str(tmp_path / "x.db"))) == \
        f"error: no checkout at {tmp_path / 'absent'}; clone PyTorch there (see README) or pass its path"
    (mini / "aten/src/ATen/native/native_functions.yaml").write_text("- func: a(Tensor self) -> Tensor\n  dispatch: {CPU: a\n")
    assert _error(run("tg-index", str(mini), "--db", str(tmp_path / "x.db"))).startswith(
        "error: aten/src/ATen/native/native_functions.yaml:3: malformed YAML:")
    assert not (tmp_path / "x.db").exists()


def test_other_schema_version_and_foreign_files(mini_db: Path, tmp_path: Path):
    old = tmp_path / "old.db"
    shutil.copy(mini_db, old)
    with sqlite3.connect(old) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    assert _error(run("tg-query", "--db", str(old), "info")) == (
        f"error: {old} was written with schema version 0, this tg-query reads version {SCHEMA_VERSION}; rebuild it with `tg-index`")
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite at all")
    assert _error(run("tg-query", "--db", str(junk), "info")) == \
        f"error: {junk} is not a tg-index database; rebuild it with `tg-index`"


def test_debug_shows_the_traceback(mini_db: Path):
    result = run("tg-query", "--db", str(mini_db), "--debug", "op", "nope.nope")
    assert result.returncode != 0
    assert "Traceback" in result.stderr and "TgIndexError" in result.stderr


def test_db_from_environment(mini_db: Path):
    result = run("tg-query", "info", "--json", env={"TG_INDEX_DB": str(mini_db)})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["pytorch_version"] == "2.6.0a0"


def test_info_shows_the_build_s_long_records_as_their_size(mini_db: Path):
    # file_stats, link_file_includes and link_scopes run to hundreds of KB on PyTorch: a JSON list or object longer
    # than LONG_META characters is shown as its number of entries and the query that reads it; the rest whole
    with sqlite3.connect(mini_db) as conn:
        raw = dict(conn.execute("SELECT key, value FROM meta"))
    shown = json.loads(run("tg-query", "--db", str(mini_db), "info", "--json").stdout)
    long = {k for k, v in raw.items() if v and len(v) > 256 and v[0] in "[{"}
    assert {"file_stats", "link_scopes"} <= long
    for key, value in raw.items():
        if key in long:
            assert shown[key] == (f"{len(json.loads(value)):,} entries ({len(value):,} bytes): "
                                  f"tg-query sql \"SELECT value FROM meta WHERE key = '{key}'\"")
        else:
            assert shown[key] == value
    text = run("tg-query", "--db", str(mini_db), "info").stdout
    for key in long:
        assert raw[key] not in text and f"{key} " in text


def test_truncated_yaml_is_one_line(mini: Path, tmp_path: Path):
    native = mini / "aten/src/ATen/native/native_functions.yaml"
    text = native.read_text()
    native.write_text(text[: text.index("  ufunc_inner_loop:") + len("  ufunc_inner_loop:\n    Generic: add (AllAnd")])
    assert _error(run("tg-index", str(mini), "--db", str(tmp_path / "x.db"))) == (
        "error: aten/src/ATen/native/native_functions.yaml:20: ufunc_inner_loop Generic: "
        "expected 'name (Dtype, ...)', got 'add (AllAnd'")


def test_query_side_imports_stay_light():
    """tg-query starts fast: the API and the CLI module import neither SQLAlchemy, tree-sitter nor PyYAML."""
    import subprocess
    import sys

    code = ("import sys, tg_index.queries.cli, tg_index.queries.api;"
            "print(sorted(m for m in ('sqlalchemy', 'tree_sitter', 'yaml', 'rich') if m in sys.modules))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"
