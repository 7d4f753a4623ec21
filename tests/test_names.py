"""Names are matched exactly: no LIKE (case, `_`, `%`), qualified suffixes at a `::` boundary, GLOB only
where a pattern is meant (`ops --name`), and very long or SQL-looking names are plain unknown names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.errors import TgIndexError
from tg_index.queries.api import Index

from .conftest import MINI, run

GEMM_CALLS = """namespace at::native {
void use_blas_gemm(int n) { at::cuda::blas::gemm(n); }
void use_cublas_gemm(int n) { cublas::gemm(n); }
void use_plain_gemm(int n) { gemm(n); }
} // namespace at::native
"""
LONG = "x" * 60_000


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture checkout with calls of gemm under three qualifications."""
    root = tmp_path_factory.mktemp("names") / "mini"
    shutil.copytree(MINI, root)
    (root / "aten/src/ATen/native/Gemm.cpp").write_text(GEMM_CALLS)
    out = root.parent / "ix.db"
    build(root, out, jobs=1)
    return out


def _query(db: Path, *args: str):
    return run("tg-query", "--db", str(db), *args)


def _one_line_error(result) -> str:
    assert result.returncode == 1, result.stdout[:500]
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr[:2000]
    return lines[0]


def test_symbol_matches_case_and_underscores_exactly(db: Path):
    found = json.loads(_query(db, "symbol", "add_kernel", "--json").stdout)
    assert [s["qualified_name"] for s in found] == ["at::native::(anonymous)::add_kernel"]
    assert _one_line_error(_query(db, "symbol", "ADD_KERNEL")) == "error: no definition named 'ADD_KERNEL'"
    assert _one_line_error(_query(db, "symbol", "add_kerne_")) == \
        (
        "error: no definition named 'add_kerne_'; did you mean 'add_kernel', 'add_kernel_cuda', 'add_kernel_cuda_impl'?")
    for pattern in ("%", "_", "add%", "%::add_kernel", "*", "add*"):
        assert _one_line_error(_query(db, "symbol", pattern)).startswith(f"error: no definition named {pattern!r}")
    # a qualified suffix matches at a `::` boundary only
    assert [s.qualified_name for s in Index.open(db).symbol("(anonymous)::add_kernel")] == [
        "at::native::(anonymous)::add_kernel"]
    with pytest.raises(TgIndexError, match=r"^no definition named 'anonymous\)::add_kernel'"):
        Index.open(db).symbol("anonymous)::add_kernel")


def test_ops_for_and_other_lookups_take_no_wildcards(db: Path):
    assert _one_line_error(_query(db, "ops-for", "%")) == "error: no function, stub or kernel named '%'"
    assert _one_line_error(_query(db, "ops-for", "_")) == "error: no function, stub or kernel named '_'"
    assert _one_line_error(_query(db, "ops-for", "%add_kernel_cuda")).startswith(
        "error: no function, stub or kernel named '%add_kernel_cuda'")
    assert _one_line_error(_query(db, "stub", "%")) == "error: no dispatch stub named '%'"
    assert _one_line_error(_query(db, "stub", "ADD_STUB")) == "error: no dispatch stub named 'ADD_STUB'"
    assert _one_line_error(_query(db, "kernel", "%")) == "error: no __global__ kernel or launched functor named '%'"
    assert _one_line_error(_query(db, "callers", "%")) == "error: no calls of '%'"
    assert json.loads(_query(db, "ops-for", "add_kernel_cuda", "--json").stdout)["reached"][0]["op"] == "sub.out"


def test_callers_suffix_at_a_namespace_boundary(db: Path):
    def callers(name: str) -> list[tuple[str, str]]:
        return [(u.caller, u.name) for u in Index.open(db).callers(name)]

    assert callers("blas::gemm") == [("at::native::use_blas_gemm", "at::cuda::blas::gemm")]
    assert callers("cublas::gemm") == [("at::native::use_cublas_gemm", "cublas::gemm")]
    assert callers("gemm") == [("at::native::use_blas_gemm", "at::cuda::blas::gemm"),
                               ("at::native::use_cublas_gemm", "cublas::gemm"),
                               ("at::native::use_plain_gemm", "gemm")]
    assert _one_line_error(_query(db, "callers", "las::gemm")) == "error: no calls of 'las::gemm'; did you mean 'gemm'?"


def test_ops_name_is_a_case_sensitive_glob(db: Path):
    def names(pattern: str) -> list[str]:
        return [o["name"] for o in json.loads(_query(db, "ops", "--name", pattern, "--json").stdout)]

    assert names("add_*") == ["add_.Tensor"]  # `_` is a character, not a wildcard
    assert names("add*") == ["add.Tensor", "add_.Tensor", "add.out"]
    assert names("ADD*") == []
    assert names("*.out") == ["add.out", "sub.out", "custom_op.out"]
    assert names("[as]*.out") == ["add.out", "sub.out"]


@pytest.mark.parametrize("name", ["add'; DROP TABLE ops; --", "%", "_", "add.%", "relu' OR '1'='1"])
def test_sql_metacharacters_in_op_names_are_plain_names(db: Path, name: str):
    for command in ("kernels-for", "op"):
        line = _one_line_error(_query(db, command, name))
        assert line.startswith(f"error: unknown op {name!r}"), line
    with pytest.raises(TgIndexError, match="^unknown op "):
        Index.open(db).kernels_for(name)
    assert Index.open(db).sql("SELECT count(*) FROM ops")[1] == [(10,)]


def test_very_long_names_are_one_line(db: Path):
    shown = f"'{'x' * 60}'... (60000 characters)"
    expected = {
        ("kernels-for", LONG): f"error: unknown op {shown}; try `tg-query ops --name PATTERN`",
        ("op", LONG): f"error: unknown op {shown}; try `tg-query ops --name PATTERN`",
        ("symbol", LONG): f"error: no definition named {shown}",
        ("symbol", "at::" + LONG): f"error: no definition named '{'at::' + 'x' * 56}'... (60004 characters)",
        ("ops-for", LONG): f"error: no function, stub or kernel named {shown}",
        ("callers", "a::" + LONG): f"error: no calls of '{'a::' + 'x' * 57}'... (60003 characters)",
        ("stub", LONG): f"error: no dispatch stub named {shown}",
        ("kernel", LONG): f"error: no __global__ kernel or launched functor named {shown}",
        ("trace", LONG): f"error: unknown Python name {shown}",
        ("ops", "--name", LONG): "error: --name pattern is 60000 characters long; the limit is 50000",
    }
    for args, message in expected.items():
        assert _one_line_error(_query(db, *args)) == message, args[0]
