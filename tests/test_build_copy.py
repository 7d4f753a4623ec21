"""An update copies the index in a thread while this one imports the later stages (build._copy_meanwhile):
the copy is whole when it returns, a failed copy is raised, and so is the work's failure, after the copy."""

from __future__ import annotations

from pathlib import Path

import pytest
from tg_index.indexer import build


def test_the_copy_is_whole_when_the_work_is_done(tmp_path: Path):
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    source.write_bytes(bytes(range(256)) * 40_000)
    ran = []
    build._copy_meanwhile(source, target, lambda: ran.append(1))
    assert ran == [1] and target.read_bytes() == source.read_bytes()


def test_a_failed_copy_is_raised_after_the_work(tmp_path: Path):
    ran = []
    with pytest.raises(FileNotFoundError):
        build._copy_meanwhile(tmp_path / "missing.db", tmp_path / "b.db", lambda: ran.append(1))
    assert ran == [1]


def test_the_works_failure_is_raised_once_the_copy_is_over(tmp_path: Path):
    source, target = tmp_path / "a.db", tmp_path / "b.db"
    source.write_bytes(b"x" * 5_000_000)

    def fail() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        build._copy_meanwhile(source, target, fail)
    assert target.stat().st_size == source.stat().st_size  # not written to after the caller goes on
