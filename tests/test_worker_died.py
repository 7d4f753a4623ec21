"""A chain-stage worker (a process of its own, chain_stage._in_processes) that is killed, or whose answer comes
back cut short, stops the build with one line (errors.WorkerDied: `error: ...` from the CLI) instead of a
traceback of the unpickling; the build then removes its temporary file and the index is the one from before.
(Under py-spy a worker's answer once came back truncated and the build ended in `_pickle.UnpicklingError`.)"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tg_index.indexer import chain_stage
from tg_index.indexer.errors import TgIndexError, WorkerDied


def test_the_message_says_how_the_worker_ended():
    assert str(WorkerDied.of("chain stage", -signal.SIGKILL)) == (
        "a worker process of the chain stage ended before its work was done (killed by SIGKILL, as the system does "
        "when memory runs out); the index is as it was: run tg-index again (-j 1 uses less memory)")
    assert "(killed by SIGTERM)" in str(WorkerDied.of("chain stage", -signal.SIGTERM))
    assert "(its answer cut short: x)" in str(WorkerDied.of("chain stage", 0, "its answer cut short: x"))
    assert isinstance(WorkerDied.of("chain stage", -9), TgIndexError)  # the CLI's one-line error


def test_a_killed_chain_worker_stops_the_build(mini_db: Path, monkeypatch):
    started = subprocess.Popen

    def killed_at_once(*args, **kwargs):
        proc = started(*args, **kwargs)
        proc.kill()
        return proc

    monkeypatch.setattr(chain_stage.subprocess, "Popen", killed_at_once)
    with pytest.raises(WorkerDied, match=r"^a worker process of the chain stage ended .* \(killed by SIGKILL"):
        chain_stage._in_processes(mini_db, [[("op", "add.out")], [("op", "add.Tensor")]])


def test_an_answer_cut_short_stops_the_build(mini_db: Path, monkeypatch):
    started = subprocess.Popen

    class CutShort:
        """A worker whose answer loses its last bytes (its process ends well)."""

        def __init__(self, *args, **kwargs):
            self.proc = started(*args, **kwargs)

        def communicate(self, data):
            out, err = self.proc.communicate(data)
            return out[:-5], err

        def __getattr__(self, name):
            return getattr(self.proc, name)

    monkeypatch.setattr(chain_stage.subprocess, "Popen", CutShort)
    with pytest.raises(WorkerDied, match=r"ended before its work was done \(its answer cut short: "):
        chain_stage._in_processes(mini_db, [[("op", "add.out")], [("op", "add.Tensor")]])


# The extraction's and the link stage's workers (processes.Workers). Under multiprocessing.Pool a killed worker left
# the build waiting for ever (the pool never gave its answer, and terminate() hung on the task queue's lock), so
# each test here runs under an alarm that turns a hang into a failure.

HANG = 60  # seconds


@pytest.fixture
def no_hang():
    def hung(_signum, _frame):
        raise AssertionError(f"still waiting after {HANG} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _killed_in_a_worker(main: int):
    """A stand-in for a worker's work: SIGKILL to itself when it runs in a worker (not in the process `main`)."""
    def work(*args):
        if os.getpid() != main:
            os.kill(os.getpid(), signal.SIGKILL)
        return args
    return work


def test_a_killed_extraction_worker_stops_the_build(mini: Path, tmp_path: Path, monkeypatch, no_hang):
    from tg_index.indexer import workers
    from tg_index.indexer.build import build

    db = tmp_path / "index.db"
    build(mini, db, jobs=1)
    before = db.read_bytes()
    (mini / "aten/src/ATen/native/new_kernel.cpp").write_text("void f() {}\n")  # something to update
    monkeypatch.setattr(workers, "_extract_file", _killed_in_a_worker(os.getpid()))
    with pytest.raises(WorkerDied, match=r"^a worker process of the C\+\+ extraction ended .* \(killed by SIGKILL"):
        build(mini, db, jobs=2)
    assert db.read_bytes() == before  # the index is the one from before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.db", "mini"]  # no temporary file left


def test_a_killed_link_worker_stops_the_build(monkeypatch, no_hang):
    from tg_index.indexer.link import parallel

    monkeypatch.setattr(parallel, "MIN_PART", 1)
    with pytest.raises(WorkerDied, match=r"^a worker process of the link stage ended .* \(killed by SIGKILL"):
        parallel.map_parts(_killed_in_a_worker(os.getpid()), list(range(6)), 3)


def test_closing_with_kill_ends_busy_workers_at_once(no_hang):
    import time

    from tg_index.indexer.processes import Workers

    pool = Workers(2, "test", int)
    for _ in range(2):
        pool.submit(time.sleep, 120)
    time.sleep(0.5)  # both are sleeping
    pool.close(kill=True)  # what the build does on Ctrl-C: without the kill it would wait for the sleeps
    assert [p.exitcode for p in pool._procs] == [-signal.SIGKILL, -signal.SIGKILL]


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def test_work_handed_over_after_a_worker_died_stops_with_the_same_line(no_hang):
    """A worker that dies breaks the pool: work handed over after that fails at once in submit, not in its result,
    with the same one line."""
    from tg_index.indexer.processes import Workers

    pool = Workers(1, "test", _die)
    try:
        first = pool.submit(abs, 1)  # forks the worker, which dies as it starts
        with pytest.raises(WorkerDied, match=r"^a worker process of the test ended .* \(killed by SIGKILL"):
            pool.result(first)
        # (the executor marks the pool broken before it fails the futures: submit sees that now)
        with pytest.raises(WorkerDied, match=r"^a worker process of the test ended .* \(killed by SIGKILL"):
            pool.submit(abs, 2)
    finally:
        pool.close(kill=True)
