"""The build's workers: C/C++/CUDA files in, each chunk's rows out as an in-memory SQLite image.

A worker imports the C++ extractor once, reads the checkout's DispatchStub.h macros once,
ends when the build's process is gone (parent_watch), and ignores Ctrl-C: the main process
handles it, stops the pool and removes the temporary file.
"""

from __future__ import annotations

import gc
import os
import sqlite3
from collections.abc import Iterator

from . import parent_watch, processes
from .rows import RowBatch, cxx_tables, file_rows

PARTIAL = "partial: "  # files.status of a file whose extraction stopped early

# A worker's task: files until about this many bytes (the largest files go first, so late tasks are small).
CHUNK_BYTES = 400_000
CHUNK_FILES = 64


_MACROS: object = None  # the checkout's DispatchStub macro family, set in each worker
_CXX = None  # the cxx module, imported once per worker (an import statement per file cost 1% of extraction)


def init(header: bytes | None, parent: int | None = None) -> None:
    global _MACROS, _CXX
    from . import cxx

    if parent is not None:  # a pool worker: it ends when the build's process is gone
        parent_watch.exit_with_parent(parent)

    # The facts hold no reference cycles, and a worker lives for one build: the cycle collector's
    # passes over everything a worker keeps (the parsers, the memo of callees) would be wasted time.
    gc.disable()

    _MACROS = cxx.stub_macros(header) if header else cxx.DEFAULT_STUB_MACROS
    _CXX = cxx


def _extract_file(item: tuple[str, bytes]) -> tuple[str, dict[str, list] | None, int, str]:
    """Worker: one file -> rows per table (without file_id, file), error count, status."""
    rel, data = item
    try:
        f = _CXX.extract(data, rel, _MACROS)
    except Exception as exc:  # extract never raises by contract; a bug there must not stop the build
        return rel, None, 1, f"failed: {type(exc).__name__}: {exc}"[:300]
    status = "ok" if f.failure is None else f"{PARTIAL}{f.failure}"[:300]
    return rel, file_rows(cxx_tables(), f), f.parse_errors, status


def extract_chunk(items: list[tuple[int, str, bytes]]) -> tuple[list[tuple[int, str, int, str]], bytes]:
    """Worker: a chunk of files (file_id, path, bytes) -> (file_id, path, error count, status) per file,
    and all their rows as the image of an in-memory SQLite database with the C++ tables.

    The main process copies the image's rows with one INSERT ... SELECT per table, in SQLite's own
    code: handing over Python tuples instead cost it more than a second of unpickling and executemany.
    """
    mem = sqlite3.connect(":memory:")
    try:
        for t in cxx_tables():
            mem.execute(f"CREATE TABLE {t.name} ({', '.join(t.all_columns)})")
        batch = RowBatch(mem.executemany, cxx_tables())
        statuses = []
        for file_id, rel, data in items:
            rel, rows, errors, status = _extract_file((rel, data))
            statuses.append((file_id, rel, errors, status))
            if rows is not None:
                batch.add(file_id, rel, rows)
        batch.flush()
        mem.commit()
        return statuses, mem.serialize()
    finally:
        mem.close()


def chunks(todo: tuple[str, ...], contents: dict[str, bytes], first_id: int) -> Iterator[list[tuple[int, str, bytes]]]:
    """The files in order, with ids from first_id, in chunks of about CHUNK_BYTES (at most CHUNK_FILES files)."""
    chunk: list[tuple[int, str, bytes]] = []
    size = 0
    for file_id, rel in enumerate(todo, start=first_id):
        chunk.append((file_id, rel, contents[rel]))
        size += len(contents[rel])
        if size >= CHUNK_BYTES or len(chunk) >= CHUNK_FILES:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def pool(jobs: int, header: bytes | None) -> processes.Workers:
    """Workers that ignore Ctrl-C (the main process handles it, ends them and removes the temporary file),
    and whose death ends the build with errors.WorkerDied."""
    return processes.Workers(jobs, "C++ extraction", init, (header, os.getpid()))
