"""Resolving a list of work in parts over forked processes, the parts' answers kept in order.

The link stage builds its symbol table, include graph and resolver once, then forks: each process
inherits them and resolves a contiguous part of the calls (the main process takes the last part), so
nothing but the answers is pickled. The answers come back in the list's order, so a build gives the
same edges in the same order with any number of processes. Only where fork exists (Linux); elsewhere,
or with one job, everything runs in this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import Any

from .. import parent_watch
from ..processes import Workers

MIN_PART = 20_000  # fewer items than this per process are not worth a fork
_WORK: tuple[Callable[[list], Iterable[Any]], list] | None = None  # set before the fork, read by the workers


def parts(count: int, jobs: int, min_part: int | None = None) -> list[tuple[int, int]]:
    """`jobs` contiguous (start, end) ranges covering range(count), as even as can be, each of min_part items
    (MIN_PART when not given) at least, but for a single range."""
    jobs = max(1, min(jobs, count // (min_part or MIN_PART) or 1))
    size, extra = divmod(count, jobs)
    bounds, start = [], 0
    for i in range(jobs):
        end = start + size + (1 if i < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def _init(parent: int) -> None:
    parent_watch.exit_with_parent(parent)


def _run(bounds: tuple[int, int]) -> list[Any]:
    assert _WORK is not None
    work, items = _WORK
    return list(work(items[bounds[0]:bounds[1]]))


def map_parts(work: Callable[[list], Iterable[Any]], items: list, jobs: int) -> list[list[Any]]:
    """[list(work(part)) for each part of items], the parts resolved at once in `jobs` processes."""
    global _WORK
    bounds = parts(len(items), jobs if sys.platform == "linux" else 1)
    _WORK = (work, items)
    try:
        if len(bounds) == 1:
            return [_run(bounds[0])]
        pool = Workers(len(bounds) - 1, "link stage", _init, (os.getpid(),))
        try:
            pending = [pool.submit(_run, part) for part in bounds[:-1]]
            last = _run(bounds[-1])
            answers = [*pool.results(pending), last]
        except BaseException:
            pool.close(kill=True)
            raise
        pool.close()
        return answers
    finally:
        _WORK = None
