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
    """The index of a checkout lives in the cache, named after the checkout folder and a short hash
    of its resolved path: two checkouts named alike (/x/a/pytorch, /x/b/pytorch) get two indexes."""
    import hashlib  # here: tg-query with --db never needs it

    given = Path(os.path.abspath(Path(checkout).expanduser()))
    real = Path(checkout).expanduser().resolve()
    tag = hashlib.sha256(os.fsencode(real)).hexdigest()[:8]
    return default_cache_dir() / "index" / f"{given.name or 'root'}-{tag}.db"


def default_db() -> Path:
    """$TG_INDEX_DB, else the index of the default checkout."""
    if os.environ.get(DB_ENV):
        return Path(os.environ[DB_ENV]).expanduser()
    return index_for(default_checkout())
