"""pyproject.toml installs every module: each folder of Python files under indexer/, queries/ and schema/
is a package it lists (a folder left out is missing from a wheel, though an editable install hides it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_folder_of_modules_is_an_installed_package():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {p.parent.relative_to(ROOT).as_posix() for top in ("indexer", "queries", "schema")
               for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts}
    wanted = {"tg_index." + f.replace("/", ".") for f in folders}
    assert wanted == set(setup["packages"])
