"""The wheel as a user installs it: built from this checkout, installed into a fresh venv."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_wheel_installs_and_runs(tmp_path: Path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
                   check=True, capture_output=True, text=True)
    [wheel] = dist.glob("tg_index-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # One import package; indexer, schema and queries are other projects' names on PyPI.
    assert {n.split("/")[0] for n in names if not n.startswith("tg_index-")} == {"tg_index"}
    assert "tg_index/indexer/scm/cpp/definitions.scm" in names
    assert "tg_index/schema/views.sql" in names

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    pip = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-2000:]
    for command in ("tg-query", "tg-index"):
        shown = subprocess.run([str(env_dir / "bin" / command), "--help"], capture_output=True, text=True)
        assert shown.returncode == 0, shown.stderr
        assert f"Usage: {command}" in shown.stdout
    loads = subprocess.run([str(env_dir / "bin" / "python"), "-c",
                            "import tree_sitter as ts, tree_sitter_cpp as c, tree_sitter_cuda as u;"
                            "ts.Language(c.language()); ts.Language(u.language());"
                            "import tg_index.indexer.cxx as x; print(len(x.extract(b'void f() {}', 'a.cpp').definitions))"],
                           capture_output=True, text=True)
    assert loads.stdout.strip() == "1", loads.stderr
