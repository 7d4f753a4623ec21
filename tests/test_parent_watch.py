"""A pool worker whose parent is gone ends without a word, also in the moment between the kernel
closing the parent's pipes and its death signal arriving (parent_watch.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

# A child that plays a worker: it sets up the watch on its own (living) parent, then hands back a
# result through a pipe whose reader is gone, as a worker does after its build process was killed.
WORKER = """
import os
from tg_index.indexer import parent_watch
read, write = os.pipe()
os.close(read)
parent_watch.exit_with_parent(os.getppid())
os.write(write, b"rows")
print("still running")
"""


@pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="no SIGPIPE on this platform")
def test_a_write_to_the_gone_parent_ends_the_worker_silently():
    result = subprocess.run([sys.executable, "-c", WORKER], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (-signal.SIGPIPE, "", "")
