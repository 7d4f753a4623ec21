"""Worker processes of the build that notice when one of them dies.

The extraction and the link stage hand work to forked processes. With multiprocessing.Pool a worker
killed by the system (memory) or by a user left the build waiting for ever: the pool never delivers the
dead worker's answer, and Pool.terminate() itself hangs on the task queue's lock that an idle worker
holds. concurrent.futures.ProcessPoolExecutor watches its workers: every answer still to come fails
with BrokenProcessPool, which becomes errors.WorkerDied here (one line, saying how the worker ended).

The workers ignore Ctrl-C (they are forked while SIGINT is ignored): the main process handles it,
ends them (Workers.close(kill=True)) and removes the temporary file.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .errors import WorkerDied


class Workers:
    """`jobs` processes for the stage `what` (named in the error when one dies), each started with
    initializer(*initargs); forked where fork exists."""

    def __init__(self, jobs: int, what: str, initializer: Callable[..., None], initargs: tuple = ()) -> None:
        method = "fork" if sys.platform == "linux" else "spawn"
        self.what = what
        self._pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method),
                                         initializer=initializer, initargs=initargs)
        self._procs: list = []  # the worker processes, for their exit codes and to end them

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """fn(*args) in a worker. The workers start at the first call (all of them, when forked)."""
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what the workers forked now inherit
        try:
            future = self._pool.submit(fn, *args)
        except BrokenProcessPool as exc:  # a worker died while the work was being handed over
            raise WorkerDied.of(self.what, self._dead_code()) from exc
        finally:
            signal.signal(signal.SIGINT, previous)
        # The executor keeps its processes in a private dict: known here, a dead one's exit code is read and the
        # others are ended at once on Ctrl-C (shutdown would wait for their current task).
        known = {p.pid for p in self._procs}
        self._procs += [p for p in (getattr(self._pool, "_processes", None) or {}).values() if p.pid not in known]
        return future

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """fn(item) for each item, the answers in the items' order (all items are handed over at once; the
        executor pickles them for the workers a few at a time)."""
        return self.results([self.submit(fn, item) for item in items])

    def results(self, futures: Iterable[Future]) -> Iterator[Any]:
        """Each future's answer in turn; WorkerDied when a worker ended before its work was done."""
        for future in futures:
            yield self.result(future)

    def result(self, future: Future) -> Any:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise WorkerDied.of(self.what, self._dead_code()) from exc

    def _dead_code(self) -> int:
        """The exit code of the worker that died. The executor then ends the others with SIGTERM, so a code
        other than that one comes first (a worker ended by a user's SIGTERM has only that one)."""
        codes = [_exit_code(p) for p in self._procs]
        ended = [c for c in codes if c not in (None, 0)]
        return next((c for c in ended if c != -signal.SIGTERM), ended[0] if ended else 0)

    def close(self, kill: bool = False) -> None:
        """Wait for the workers to end (their work is done); with kill, end them now (Ctrl-C, an error)."""
        if not kill:
            self._pool.shutdown(wait=True)
            return
        self._pool.shutdown(wait=False, cancel_futures=True)
        for p in self._procs:
            if p.exitcode is None:
                p.kill()
        for p in self._procs:
            _exit_code(p)


def _exit_code(process: Any, wait: float = 5.0) -> int | None:
    """A worker's exit code once it has ended (None if it still runs after `wait` seconds). The executor's
    own thread reaps its workers too: when it gets there first, join() returns before the code is recorded,
    so this looks again for a moment."""
    process.join(wait)
    deadline = time.monotonic() + 1.0  # (is_alive() is no test here: it reads the code the same way)
    while process.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.001)
    return process.exitcode
