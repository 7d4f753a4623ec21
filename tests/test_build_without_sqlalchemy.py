"""An update of an index writes through sqlite3 alone: SQLAlchemy and the models load only to make a fresh
schema (importing them is a few tenths of a second of a one-file rebuild)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

HEAVY = ("sqlalchemy", "tg_index.schema.models")

# Builds argv[1] into argv[2] and prints which of HEAVY the process imported.
BUILD = f"""
import json, sys
from pathlib import Path
from tg_index.indexer.build import build
build(Path(sys.argv[1]), Path(sys.argv[2]), jobs=2)
print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
"""


def _build(checkout: Path, db: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", BUILD, str(checkout), str(db)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_an_update_does_not_import_sqlalchemy(mini: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    assert _build(mini, db) == list(HEAVY)  # a fresh schema is made from the models
    kernel = mini / "aten/src/ATen/native/cuda/AddKernel.cu"
    kernel.write_text(kernel.read_text().replace("add_kernel_cuda<scalar_t><<<grid, block, 0, stream>>>",
                                                 "add_kernel_cuda<scalar_t><<<grid, 256>>>"))
    (mini / "aten/src/ATen/native/cpu/BinaryOpsKernel.cpp").unlink()  # its rows go (the stale deletion)
    functional = mini / "torch/functional.py"
    functional.write_text(functional.read_text() + "\n# touched\n")  # the Python stage writes too

    assert _build(mini, db) == []

    with sqlite3.connect(db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        assert (meta["parsed"], meta["py_parsed"]) == ("1", "1")
        assert conn.execute("SELECT config FROM launches WHERE kind = 'triple_chevron'").fetchall() == [('["grid", "256"]',)]
        assert conn.execute("SELECT count(*) FROM files").fetchone() == (19,)
        tables = [t for (t,) in conn.execute(
            "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS "
            "(SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'file_id') ORDER BY m.name")]
        assert "stubs" in tables and "py_classes" in tables
        orphans = {t: conn.execute(f"SELECT count(*) FROM {t} WHERE file_id NOT IN (SELECT id FROM files)").fetchone()[0]
                   for t in tables}
        assert orphans == dict.fromkeys(tables, 0)
        assert conn.execute("SELECT count(*) FROM stubs WHERE file LIKE '%/cpu/%'").fetchone() == (0,)
