"""Real PyTorch trees, each indexed once per test session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import real_tree


@pytest.fixture(scope="session")
def real_dbs(tmp_path_factory: pytest.TempPathFactory):
    """version -> index database of that real tree, built on first use."""
    from tg_index.indexer.build import build

    built: dict[str, Path] = {}

    def get(version: str) -> Path:
        if version not in built:
            db = tmp_path_factory.mktemp(f"real-{version}") / "index.db"
            build(real_tree(version), db)
            built[version] = db
        return built[version]

    return get


@pytest.fixture(scope="session")
def codegen(tmp_path_factory: pytest.TempPathFactory):
    """version -> the registrations the checkout's codegen writes (test_dispatcher_codegen.py), generated
    on first use, once per session for every module that asks."""
    from .test_dispatcher_codegen import codegen_registrations, run_codegen

    cache: dict[str, dict[tuple[str, str], tuple[str, str]]] = {}

    def get(version: str) -> dict[tuple[str, str], tuple[str, str]]:
        if version not in cache:
            out = tmp_path_factory.mktemp(f"codegen-{version}")
            cache[version] = codegen_registrations(run_codegen(real_tree(version), out))
        return cache[version]

    return get


@pytest.fixture(scope="module")
def ix(real_dbs):
    """The 2.6.0 index, opened once per test module."""
    from tg_index.queries.api import Index

    return Index.open(real_dbs("2.6.0"))


@pytest.fixture(scope="module")
def old(real_dbs):
    """The 1.13.1 index, opened once per test module."""
    from tg_index.queries.api import Index

    return Index.open(real_dbs("1.13.1"))


# Every op of an index through kernels-for's JSON path, in a process of its own; prints the op count.
_EVERY_OP = """
import json, sys
from tg_index.queries.api import Index
from tg_index.queries.render import kernels_for_data
ix = Index.open(sys.argv[1])
names = [r[0] for r in ix.conn.execute('SELECT name FROM ops')]
for n in names:
    for a in ix.kernels_for(n):
        json.dumps(kernels_for_data(a))
print(len(names))
"""


def kernels_for_every_op(db: Path) -> int:
    """How many ops went through kernels-for --json's path without an error (a failure fails the test)."""
    done = subprocess.run([sys.executable, "-c", _EVERY_OP, str(db)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout)
