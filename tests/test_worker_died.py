"""A chain-stage worker (a process of its own, chain_stage._in_processes) that is killed, or whose answer comes
back cut short, stops the build with one line (errors.WorkerDied: `error: ...` from the CLI) instead of a
traceback of the unpickling; the build then removes its temporary file and the index is the one from before.
(Under py-spy a worker's answer once came back truncated and the build ended in `_pickle.UnpicklingError`.)"""

from __future__ import annotations

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
