"""Real PyTorch trees, each indexed once per test session."""

from __future__ import annotations

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
