"""tg-query's quick path (queries/quick.py): which command lines it answers, and that its bytes, errors and
exit codes are the Typer app's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tg_index.queries.quick import plain_dispatch, plain_kernels_for

from .conftest import BIN, run
from .test_dispatch_table import keyed_db  # noqa: F401 (the fixture: the mini checkout with dispatch keys)

TYPER_MAIN = "import sys; from tg_index.queries.cli import query_main; sys.argv[0] = 'tg-query'; query_main()"


def test_a_plain_kernels_for_line_is_read_whole():
    assert plain_kernels_for(["--db", "x.db", "kernels-for", "add.out", "--key", "CPU", "--json", "--key", "CUDA",
                              "--depth", "3", "--brief"]) == {
        "db": Path("x.db"), "name": "add.out", "keys": ("CPU", "CUDA"), "depth": 3, "out": "json", "brief": True}
    assert plain_kernels_for(["kernels-for", "--format", "mermaid", "add"]) == {
        "db": None, "name": "add", "keys": (), "depth": 8, "out": "mermaid", "brief": False}
    assert plain_kernels_for(["kernels-for", "add", "--format", "dot", "--json"])["out"] == "json"  # --json wins


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["kernels-for"], ["kernels-for", "--help"], ["kernels-for", "add", "--debug"],
    ["--debug", "kernels-for", "add"], ["kernels-for", "add", "sub"], ["kernels-for", "add", "--depth", "21"],
    ["kernels-for", "add", "--depth", "-1"], ["kernels-for", "add", "--depth", "2.5"], ["kernels-for", "add", "--depth"],
    ["kernels-for", "add", "--depth=3"], ["kernels-for", "add", "--format", "yaml"], ["kernels-for", "add", "--key"],
    ["kernels-for", "add", "--db", "x.db"], ["--db", "kernels-for", "add"], ["--db=x.db", "kernels-for", "add"],
    ["trace", "torch.add"], ["kernels-for", "--", "add"], ["kernels-for", ""],
])
def test_every_other_line_goes_to_typer(argv):
    assert plain_kernels_for(argv) is None


def _both(*args: str) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    quick = run("tg-query", *args)
    typer = subprocess.run([str(BIN / "python"), "-c", TYPER_MAIN, *args], capture_output=True, text=True,
                           timeout=600)
    return quick, typer


@pytest.mark.parametrize("args", [
    ("kernels-for", "add.out", "--json"), ("kernels-for", "add", "--brief"), ("kernels-for", "add.out"),
    ("kernels-for", "add", "--key", "CPU", "--depth", "2", "--format", "jsonl"),
    ("kernels-for", "add.out", "--format", "dot"), ("kernels-for", "add.out", "--brief", "--json"),
    ("kernels-for", "add.outt"), ("kernels-for", "add.out", "--depth", "21"),
])
def test_quick_answers_are_typer_answers(mini_db: Path, args: tuple[str, ...]):
    quick, typer = _both("--db", str(mini_db), *args)
    assert (quick.returncode, quick.stdout, quick.stderr) == (typer.returncode, typer.stdout, typer.stderr)


def test_quick_path_errors(tmp_path: Path):
    quick, typer = _both("--db", str(tmp_path / "none.db"), "kernels-for", "add")
    assert quick.returncode == typer.returncode == 1
    assert quick.stdout == typer.stdout == ""
    assert quick.stderr == typer.stderr == (f"error: no index at {tmp_path / 'none.db'}; run `tg-index` first "
                                            "(or pass --db / set TG_INDEX_DB)\n")


def test_quick_path_loads_no_typer(mini_db: Path):
    probe = ("import sys; sys.argv = ['tg-query', '--db', sys.argv[1], 'kernels-for', 'add.out', '--json']; "
             "from tg_index.queries.quick import query_main; query_main(); "
             "print(sorted(m for m in ('typer', 'click', 'tree_sitter', 'sqlalchemy', 'rich', 'mcp') "
             "if m in sys.modules), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, str(mini_db)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == "[]"


def test_a_plain_dispatch_line_is_read_whole():
    assert plain_dispatch(["--db", "x.db", "dispatch", "add.Tensor", "--device", "cuda", "--requires-grad",
                           "--vmap", "--depth", "3", "--json"]) == {
        "db": Path("x.db"), "name": "add.Tensor", "device": "cuda", "depth": 3, "out": "json", "requires_grad": True,
        "autocast": False, "inference_mode": False, "functionalize": False, "vmap": True}
    assert plain_dispatch(["dispatch", "--format", "jsonl", "add", "--autocast", "--inference-mode",
                           "--functionalize", "--device", "meta", "--device", "cpu"]) == {
        "db": None, "name": "add", "device": "cpu", "depth": 8, "out": "jsonl", "requires_grad": False,
        "autocast": True, "inference_mode": True, "functionalize": True, "vmap": False}


@pytest.mark.parametrize("argv", [
    ["dispatch"], ["dispatch", "--help"], ["dispatch", "add", "--device"], ["dispatch", "add", "--device=cuda"],
    ["dispatch", "add", "--format", "dot"], ["dispatch", "add", "--key", "CPU"], ["dispatch", "add", "--brief"],
    ["dispatch", "add", "--depth", "21"], ["dispatch", "add", "sub"], ["dispatch", "add", "--debug"],
    ["--db", "x.db", "dispatch", "add", "--db", "y.db"], ["kernels-for", "add", "--device", "cuda"],
])
def test_every_other_dispatch_line_goes_to_typer(argv):
    assert plain_dispatch(argv) is None


@pytest.mark.parametrize("args", [
    ("dispatch", "add.Tensor", "--depth", "0"), ("dispatch", "add.Tensor", "--device", "cuda", "--json"),
    ("dispatch", "add.Tensor", "--requires-grad", "--format", "jsonl", "--depth", "1"),
    ("dispatch", "add", "--vmap", "--autocast", "--inference-mode", "--functionalize", "--depth", "2"),
    ("dispatch", "add.Tensor", "--device", "tpu"), ("dispatch", "add.Tensr"),
])
def test_quick_dispatch_answers_are_typer_answers(keyed_db: Path, args: tuple[str, ...]):  # noqa: F811
    quick, typer = _both("--db", str(keyed_db), *args)
    assert (quick.returncode, quick.stdout, quick.stderr) == (typer.returncode, typer.stdout, typer.stderr)
    assert quick.stdout or quick.stderr.startswith("error: ")


def test_quick_dispatch_on_an_index_without_dispatch_keys(mini_db: Path):
    quick, typer = _both("--db", str(mini_db), "dispatch", "add.Tensor")
    assert (quick.returncode, quick.stdout, quick.stderr) == (typer.returncode, typer.stdout, typer.stderr)
    assert quick.returncode == 1
    assert quick.stderr.startswith("error: the index has no dispatch keys (c10/core/DispatchKey.h was not read); ")
