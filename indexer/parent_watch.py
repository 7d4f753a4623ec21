"""A worker process ends, quietly, the moment the process that started it is gone.

Without this, the workers of a build whose main process was killed would finish their chunk
and die on a BrokenPipeError traceback when they hand back its rows. On Linux the kernel
sends the worker SIGKILL when its parent dies (PR_SET_PDEATHSIG); elsewhere a thread looks
at the parent's pid every POLL seconds and ends the worker with os._exit.

The kernel closes a dying process's files before it sends the death signal, so in between a
worker that hands back its rows writes to a pipe with no reader. Python ignores SIGPIPE and
raises BrokenPipeError, and multiprocessing starts printing "Process ForkPoolWorker-1:" and its
traceback before the signal lands. A worker therefore takes SIGPIPE's default: that write ends it
at once, with nothing printed. Its only pipes lead to the parent (results) and to the terminal
or the caller's pipe (stderr), and neither loses its reader while the parent lives.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
POLL = 0.2


def exit_with_parent(parent: int) -> None:
    """Call in a worker: end it when the process `parent` (its parent at fork) is gone."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if not (sys.platform.startswith("linux") and _death_signal()):
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watch").start()
    if os.getppid() != parent:  # the parent died before the watch was set up
        os._exit(0)


def _death_signal() -> bool:
    """Ask the kernel for SIGKILL when the parent dies; False where prctl is not at hand."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL)
    os._exit(0)
