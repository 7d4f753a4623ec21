"""Where things live by default. Kept free of heavy imports: tg-query reads it at start-up."""

from __future__ import annotations

import os
from pathlib import Path

DB_ENV = "TG_INDEX_DB"


def default_cache_dir() -> Path:
    return Path(os.environ.get("TILEGYM_SKILL_CACHE_DIR") or Path.home() / ".cache" / "tilegym").expanduser()


def default_checkout() -> Path:
    return default_cache_dir() / "pytorch-source"


def index_for(checkout: Path) -> Path:
    """The index of a checkout lives in the cache, named after the checkout folder."""
    return default_cache_dir() / "index" / f"{Path(os.path.abspath(checkout)).name}.db"


def default_db() -> Path:
    """$TG_INDEX_DB, else the index of the default checkout."""
    if os.environ.get(DB_ENV):
        return Path(os.environ[DB_ENV]).expanduser()
    return index_for(default_checkout())
