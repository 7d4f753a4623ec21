"""What a build will do, decided before it touches a database: a pure function of what the
checkout holds now and what the previous index recorded.

A file keeps its rows when its content hash is the same and so is everything its facts depend
on: the C++ extractor, the DispatchStub macros and the excludes (`cxx_key`), or the Python
extractor (`py_key`). Every other file of the previous index is stale: its rows are deleted, and
the file is extracted again if it is still there. YAML tables are all rebuilt when any of the
three YAML files changed. When nothing changed the index stays as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .rows import YAML_TABLE_NAMES


@dataclass(frozen=True)
class Found:
    """What the checkout holds now: path -> sha256 per kind of file, and the C++ files' sizes."""

    yaml: Mapping[str, str]
    cxx: Mapping[str, str]
    python: Mapping[str, str]
    sizes: Mapping[str, int] = field(default_factory=dict)  # bytes of each C++ file
    skipped: Mapping[str, str] = field(default_factory=dict)  # path -> status of files listed but not read

    def __len__(self) -> int:
        return len(self.yaml) + len(self.cxx) + len(self.python) + len(self.skipped)


# The share of the source files extracted again from which an update refreshes the statistics (see Plan.analyze).
ANALYZE_SHARE = 0.05


@dataclass(frozen=True)
class Plan:
    fresh: bool  # no previous index to update: every table is made
    up_to_date: bool  # nothing changed: the index is left as it is
    kept: frozenset[str]  # files whose rows stay
    stale: tuple[int, ...]  # ids of the previous index's files whose rows go
    yaml_changed: bool
    clear_tables: tuple[str, ...]  # tables emptied before they are written again
    cxx_todo: tuple[str, ...]  # C/C++/CUDA files to extract, largest first
    py_todo: tuple[str, ...]  # Python files to extract, in the order found
    first_id: int  # the first new file id: the C++ files take first_id, first_id + 1, ... in order
    python_changed: bool  # a Python file was added, changed or removed: cross-file Python facts are redone

    @property
    def analyze(self) -> bool:
        """Whether the written index's statistics need refreshing: a fresh index, new yaml, or source files
        extracted again that are at least ANALYZE_SHARE of all (a few files' rows leave the statistics of
        the index updated as true as they were; ANALYZE takes a quarter second on PyTorch's tree)."""
        extracted = len(self.cxx_todo) + len(self.py_todo)
        return self.fresh or self.yaml_changed or (extracted > 0
                                                   and extracted >= ANALYZE_SHARE * (len(self.kept) + extracted))


def plan(previous: Mapping[str, str] | None, old_files: Mapping[str, tuple[int, str]], found: Found,
         *, cxx_key: str, py_key: str, old_skips: Mapping[str, str] | None = None) -> Plan:
    """previous: the meta of an index that can be updated (None: build from scratch);
    old_files: its files, path -> (id, sha256); old_skips: the status of its skipped files
    (recorded without a hash), path -> status."""
    old_skips = old_skips or {}
    fresh = previous is None
    same_cxx = not fresh and previous.get("cxx_key") == cxx_key
    same_py = not fresh and previous.get("py_key") == py_key

    def keeps(rel: str, sha: str) -> bool:
        if not sha:  # a skipped file: its row stays while the walk skips it for the same reason
            return rel in found.skipped and old_skips.get(rel) == found.skipped[rel]
        if rel in found.yaml:
            return found.yaml[rel] == sha
        if rel in found.python:
            return same_py and found.python[rel] == sha
        return same_cxx and found.cxx.get(rel) == sha

    kept = frozenset(rel for rel, (_id, sha) in old_files.items() if keeps(rel, sha))
    stale = tuple(i for rel, (i, _sha) in old_files.items() if rel not in kept)
    yaml_changed = fresh or not set(found.yaml) <= kept
    up_to_date = not fresh and not stale and len(kept) == len(found)
    cxx_todo = tuple(sorted((rel for rel in found.cxx if rel not in kept), key=lambda rel: -found.sizes[rel]))
    py_todo = tuple(rel for rel in found.python if rel not in kept)
    return Plan(
        fresh=fresh,
        up_to_date=up_to_date,
        kept=kept,
        stale=stale,
        yaml_changed=yaml_changed,
        clear_tables=YAML_TABLE_NAMES if yaml_changed and not fresh else (),
        cxx_todo=cxx_todo,
        py_todo=py_todo,
        first_id=max((i for i, _sha in old_files.values()), default=0) + 1,
        python_changed=bool(py_todo) or any(rel.endswith(".py") and rel not in kept for rel in old_files),
    )
