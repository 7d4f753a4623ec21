"""Shared fixtures: the small fixture checkout, built indexes, and the real PyTorch trees."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
MINI = FIXTURES / "mini"
BIN = Path(sys.executable).parent
CACHE = Path(os.environ.get("TILEGYM_SKILL_CACHE_DIR") or Path.home() / ".cache" / "tilegym").expanduser()
REAL_TREES = {
    "2.6.0": ("TG_TEST_PYTORCH_2_6_0", CACHE / "test-sources" / "pytorch-2.6.0"),
    "1.13.1": ("TG_TEST_PYTORCH_1_13_1", CACHE / "test-sources" / "pytorch-1.13.1"),
    "2.13.0": ("TG_TEST_TORCH_2_13_0", CACHE / "test-sources" / "torch-2.13.0-yaml"),
}


def real_tree(version: str) -> Path:
    """A real PyTorch tree fetched by `make sources`; missing is a failure, never a skip."""
    env, default = REAL_TREES[version]
    path = Path(os.environ.get(env) or default)
    if not (path / "aten/src/ATen/native/native_functions.yaml").is_file():
        pytest.fail(f"PyTorch {version} sources missing at {path}; run `make sources` (or set {env})")
    return path


def run(cmd: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run one of the installed console scripts (tg-index, tg-query) as a user would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([str(BIN / cmd), *args], capture_output=True, text=True, env=full_env, timeout=600)


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A writable copy of the fixture checkout."""
    dest = tmp_path / "mini"
    shutil.copytree(MINI, dest)
    return dest


@pytest.fixture(scope="session")
def mini_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tg_index.indexer.build import build

    db = tmp_path_factory.mktemp("mini") / "mini.db"
    build(MINI, db)
    return db


def call_edges(db: Path, file: str = "") -> list[tuple]:
    """(file, line, callee as written, how, detail, target's qualified name, target's line) of an index's
    call edges, of the files whose path ends in `file` (all when empty): what the link tests compare."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.file, e.line, e.target, e.how, e.detail, d.name, d.line FROM edges e "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE e.kind = 'calls' AND e.file LIKE ?", (f"%{file}",)).fetchall()


def calls_by_line(db: Path, file: str, skip: tuple[str, ...] = ()) -> dict[int, set[tuple]]:
    """{line: {(how, target's line)}} of the call edges of the file whose path ends in `file`, the callees
    written in `skip` left out: what most link tests assert on."""
    out: dict[int, set[tuple]] = {}
    for _file, line, target, how, _detail, _name, at in call_edges(db, file):
        if target not in skip:
            out.setdefault(line, set()).add((how, at))
    return out


def built_tree(root: Path, files: dict[str, str]) -> Path:
    """A small checkout of `files` (path under the root -> text) written at root and indexed in one process
    into root/ix.db: the fixture trees the link tests write themselves."""
    from tg_index.indexer.build import build

    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    out = root / "ix.db"
    build(root, out, jobs=1)
    return out

