"""tg-query datasette-metadata: descriptions from the models, and every canned query run by a real Datasette.

Datasette is the optional extra `datasette` (`make test` installs it); when the venv lacks it the
test installs that extra's requirement first. The server listens on a free loopback port and is
stopped by the test.
"""

from __future__ import annotations

import inspect
import json
import socket
import subprocess
import sys
import time
import tomllib
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tg_index.queries import datasette as ds

from .conftest import BIN, run

ROOT = Path(__file__).parents[1]

# Parameters for each canned query on the fixture index, and the rows they must give.
PARAMS = {
    "kernels_for_op": {"op": "sub.out"},
    "dispatch_table": {"op": "add.out"},
    "stub_registrations": {"stub": "add_stub"},
    "callers_of_function": {"name": "add_kernel_cuda"},
    "callers_walk": {"name": "add_kernel_cuda", "depth": "3"},
}
EXPECTED = {
    "kernels_for_op": [
        {"key": "CPU", "kernel": "add_out", "origin": "yaml", "via": None,
         "qualified_name": "at::native::structured_add_out::impl", "definition": "aten/src/ATen/native/BinaryOps.cpp:14"},
        {"key": "CUDA", "kernel": "add_out", "origin": "yaml", "via": None,
         "qualified_name": "at::native::structured_add_out::impl", "definition": "aten/src/ATen/native/BinaryOps.cpp:14"}],
    "callers_walk": [
        {"depth": 1, "function": "at::native::add_kernel_cuda_impl",
         "how": "calls add_kernel_cuda at aten/src/ATen/native/cuda/AddKernel.cu:12"},
        {"depth": 2, "function": "at::native::structured_add_out::impl",
         "how": "uses add_stub at aten/src/ATen/native/BinaryOps.cpp:17"}],
}


def _ensure_datasette() -> Path:
    """The venv's datasette command; the extra is installed only when it is missing."""
    exe = BIN / "datasette"
    if not exe.exists():
        extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["datasette"]
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *extra], check=True, timeout=600)
    return exe


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture
def served(mini_db: Path, tmp_path: Path):
    """(base URL, database name, metadata) of a Datasette serving the fixture index with its metadata."""
    meta = tmp_path / "metadata.json"
    done = run("tg-query", "--db", str(mini_db), "datasette-metadata", "-o", str(meta))
    assert done.returncode == 0, done.stderr
    port = _free_port()
    # -i: the session's shared fixture index is served immutable, so that nothing can write to it
    log = (tmp_path / "datasette.log").open("w")
    server = subprocess.Popen([str(_ensure_datasette()), "serve", "-i", str(mini_db), "-m", str(meta), "-h",
                               "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(base + "/-/versions.json")
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "datasette.log").read_text()
                assert time.monotonic() < deadline, "datasette did not answer within 60 s"
                time.sleep(0.2)
        yield base, mini_db.stem, json.loads(meta.read_text())
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_every_canned_query_returns_rows_over_http(served):
    base, name, meta = served
    assert set(PARAMS) == set(meta["databases"][name]["queries"]) == set(ds.QUERIES)
    assert _get(base + "/-/metadata.json") == meta
    for query, params in PARAMS.items():
        rows = _get(f"{base}/{name}/{query}.json?_shape=array&{urllib.parse.urlencode(params)}")
        assert rows, f"{query} gave no rows"
        if query in EXPECTED:
            assert rows == EXPECTED[query]
    table = _get(f"{base}/{name}/stubs.json?_shape=array&stub=add_stub&kind=register&_sort=arch")
    assert [(r["device"], r["arch"], r["kernel"]) for r in table] == [
        ("CUDA", None, "add_kernel_cuda_impl"), ("CPU", "AVX2", "add_kernel"), ("CPU", "AVX512", None),
        ("CPU", "DEFAULT", "add_kernel")]


def test_descriptions_come_from_the_models():
    from tg_index.schema.models import Base, Dispatch

    meta = ds.metadata("index")
    tables = meta["databases"]["index"]["tables"]
    assert set(tables) == {t.name for t in Base.metadata.sorted_tables} | {"v_dispatch", "v_ops", "v_backward"}
    assert tables["dispatch"]["description"] == " ".join(inspect.cleandoc(Dispatch.__doc__).split())
    for table in Base.metadata.sorted_tables:
        assert set(tables[table.name]["columns"]) == {c.name for c in table.columns}
        for column in table.columns:
            if column.comment:
                assert tables[table.name]["columns"][column.name] == column.comment
    assert tables["dispatch"]["columns"]["op_id"] == "the row of ops (ops.id)"
    assert tables["v_dispatch"]["columns"]["key"] == Dispatch.__table__.c.key.comment
    assert tables["v_dispatch"]["description"] == (
        "The dispatch table, one row per (op, key): which C++ kernel serves it and why.")
    assert (tables["ops"]["label_column"], tables["ops"]["sort"]) == ("name", "name")
    # Columns schema/models.py leaves without a comment show as such (add one there to describe them).
    assert ds.undocumented() == ["v_ops.tags"]


def test_metadata_is_named_after_the_database_file(mini_db: Path, tmp_path: Path):
    done = run("tg-query", "--db", str(tmp_path / "some-checkout.db"), "datasette-metadata")
    assert done.returncode == 0, done.stderr
    assert list(json.loads(done.stdout)["databases"]) == ["some-checkout"]
    assert json.loads(done.stdout) == ds.metadata("some-checkout")


def test_help_and_readme():
    done = run("tg-query", "datasette-metadata", "--help")
    assert done.returncode == 0 and "tg-query datasette-metadata" in done.stdout
    readme = (ROOT / "README.md").read_text()
    assert "tg-query datasette-metadata" in readme and "datasette serve" in readme
