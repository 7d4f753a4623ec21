"""Hashes of the indexer's own code, which decide what of an index is reused: facts made by other extractor
code are extracted again, a graph made by other link code is linked again.

They read only the source files, so a build that finds nothing changed decides so without importing the
extractor and link packages (their imports, tree-sitter's among them, take about a tenth of a second).
Each is the first 16 hex digits of a sha256 over the files in a fixed order, each file's name and bytes
followed by a NUL.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

INDEXER = Path(__file__).parent


def _digest(named: list[tuple[str, Path]]) -> str:
    h = hashlib.sha256()
    for name, path in named:
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cxx_extractor() -> str:
    """Every .py file of indexer/cxx (at any depth), every .scm pattern of indexer/scm, the second
    extraction pass (shared_macros.py, which decides what is extracted again with other files' #defines), and
    the guard rules and vocabulary extraction reads (link/configurations.py: which #if stretches a device's
    build leaves out; vocab.py), named from the indexer folder (cxx/calls.py, scm/..., indexer/shared_macros.py)."""
    files = sorted((INDEXER / "cxx").rglob("*.py")) + sorted((INDEXER / "scm").rglob("*.scm")) + \
        [INDEXER / "shared_macros.py", INDEXER / "link" / "configurations.py", INDEXER / "vocab.py"]
    return _digest([(p.relative_to(p.parent.parent).as_posix(), p) for p in files])


def _package(folder: Path) -> str:
    """The .py files directly in one package folder, named by their file names."""
    return _digest([(p.name, p) for p in sorted(folder.glob("*.py"))])


def link_stage() -> str:
    """indexer/link's modules."""
    return _package(INDEXER / "link")


def dispatcher_stage() -> str:
    """indexer/dispatcher's modules."""
    return _package(INDEXER / "dispatcher")


def chain_walk() -> str:
    """The query modules whose code decides a chain's steps (queries/chain.py and what it runs, the edge kinds
    of link/kinds.py, the guard rules of link/configurations.py and the devices' builds of vocab.py): chains kept
    in an index (queries/chain_store.py) by other code are walked again."""
    queries = INDEXER.parent / "queries"
    names = ("chain.py", "chain_store.py", "device_branches.py", "results.py")
    return _digest([(f"queries/{n}", queries / n) for n in names] +
                   [(f"link/{n}", INDEXER / "link" / n) for n in ("kinds.py", "configurations.py")] +
                   [("vocab.py", INDEXER / "vocab.py")])
