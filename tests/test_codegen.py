"""`tg-index --codegen` on a copy of the mini checkout whose generators are small stand-ins.

The stand-ins take the arguments the real ones take (torchgen/gen.py: -s, -d,
--aoti-install-dir; tools/autograd/gen_autograd.py: the yaml files, the output folder, the
autograd folder) and write a few files of the real names, so what the build reads, keeps
and leaves out is checked without running PyTorch's generators (the integration tests do).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer import codegen
from tg_index.indexer.build import build
from tg_index.indexer.facts import Location
from tg_index.queries.api import Index
from tg_index.queries.render import kernels_for_text

from .conftest import run

FIXTURE = Path(__file__).parent / "fixtures" / "mini"

TORCHGEN = '''
import argparse, os, pathlib, time
p = argparse.ArgumentParser()
p.add_argument("-s"); p.add_argument("-d"); p.add_argument("--aoti-install-dir")
a = p.parse_args()
if os.environ.get("FAKE_GEN") == "fail":
    raise SystemExit("torchgen: something is wrong with the yaml")
if os.environ.get("FAKE_GEN") == "slow":
    time.sleep(30)
out = pathlib.Path(a.d); out.mkdir(parents=True, exist_ok=True)
runs = out / "runs"; runs.write_text(str(int(runs.read_text()) + 1 if runs.exists() else 1))
body = "namespace at {\\nnamespace {\\nTensor & wrapper_CPU_add_out_out(const Tensor & self, Tensor & out) {\\n  return out;\\n}\\n}\\n" \\
       "TORCH_LIBRARY_IMPL(aten, CPU, m) {\\n  m.impl(\\"add.out\\", TORCH_FN(wrapper_CPU_add_out_out));\\n}\\n}\\n"
(out / "UfuncCPU_add.cpp").write_text("namespace at {\\nnamespace native {\\nTORCH_IMPL_FUNC(ufunc_add_CPU)(const Tensor & self, const Tensor & out) {\\n}\\n}}\\n")
(out / "RegisterCPU.cpp").write_text(body)
(out / "RegisterCPUEverything.cpp").write_text(body)
(out / "Functions.h").write_text("// not indexed\\n")
(out / "UfuncCUDA_add.cu").write_text("__global__ void ufunc_add_kernel() {}\\n")
pathlib.Path(a.aoti_install_dir).mkdir(parents=True, exist_ok=True)
'''
# aoti_install_dir in the text above makes the build pass --aoti-install-dir, as 2.x's torchgen takes it.

GEN_AUTOGRAD = '''
import pathlib, sys
out = pathlib.Path(sys.argv[3]); out.mkdir(parents=True, exist_ok=True)
(out / "VariableType_0.cpp").write_text("namespace torch { namespace autograd { namespace VariableType {\\n"
    "at::Tensor add_Tensor(const at::Tensor & self) { return self; }\\n}}}\\n")
(out / "python_functions_0.cpp").write_text("// not indexed\\n")
'''


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "pytorch"
    shutil.copytree(FIXTURE, root)
    (root / "torchgen").mkdir()
    (root / "torchgen/__init__.py").write_text("")
    (root / "torchgen/gen.py").write_text(TORCHGEN)
    (root / "tools/__init__.py").write_text("")
    (root / "tools/autograd/__init__.py").write_text("")
    (root / "tools/autograd/gen_autograd.py").write_text(GEN_AUTOGRAD)
    (root / "aten/src/ATen/templates").mkdir(parents=True, exist_ok=True)
    (root / "aten/src/ATen/templates/RegisterDispatchKey.cpp").write_text("// ${dispatch_definitions}\n")
    return root


def _snapshot(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in root.rglob("*")}


def _paths(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [p for (p,) in conn.execute("SELECT path FROM files WHERE path LIKE '.tg-codegen/%' ORDER BY path")]


def _meta(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT key, value FROM meta"))


def test_generated_files_are_indexed_and_the_checkout_is_untouched(checkout: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    before = _snapshot(checkout)
    summary = build(checkout, db, codegen_timeout=60)
    assert _snapshot(checkout) == before
    assert _paths(db) == [".tg-codegen/aten/RegisterCPU.cpp", ".tg-codegen/aten/UfuncCPU_add.cpp",
                          ".tg-codegen/aten/UfuncCUDA_add.cu", ".tg-codegen/autograd/VariableType_0.cpp"]
    meta = _meta(db)
    assert meta["codegen"].startswith("ran in ") and meta["codegen_dir"] == str(tmp_path / "index.db.codegen")
    assert "; codegen ran in " in str(summary)
    with sqlite3.connect(db) as conn:
        defs = conn.execute("SELECT qualified_name, line FROM definitions WHERE file = '.tg-codegen/aten/RegisterCPU.cpp'").fetchall()
        regs = conn.execute("SELECT dispatch_key, op, function, line FROM registrations WHERE kind = 'impl' "
                            "AND file = '.tg-codegen/aten/RegisterCPU.cpp'").fetchall()
        language = conn.execute("SELECT language FROM files WHERE path = '.tg-codegen/aten/UfuncCUDA_add.cu'").fetchone()
    assert defs == [("at::(anonymous)::wrapper_CPU_add_out_out", 3)]
    assert regs == [("CPU", "add.out", "wrapper_CPU_add_out_out", 8)]
    assert language == ("cuda",)


def test_unchanged_inputs_reuse_the_last_output(checkout: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    build(checkout, db, codegen_timeout=60)
    again = build(checkout, db, codegen_timeout=60)
    assert str(again).endswith("; codegen reused (inputs unchanged)")
    assert (tmp_path / "index.db.codegen/aten/runs").read_text() == "1"
    (checkout / "torchgen/gen.py").write_text(TORCHGEN + "\n# changed\n")
    third = build(checkout, db, codegen_timeout=60)
    assert "; codegen ran in " in str(third)
    assert (tmp_path / "index.db.codegen/aten/runs").read_text() == "2"


def test_a_build_without_codegen_drops_the_generated_files(checkout: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    build(checkout, db, codegen_timeout=60)
    summary = build(checkout, db)
    assert _paths(db) == [] and "codegen" not in _meta(db) and "; codegen" not in str(summary)


@pytest.mark.parametrize("mode, status", [
    ("fail", "failed: torchgen.gen exited with 1: torchgen: something is wrong with the yaml"),
    ("slow", "failed: torchgen.gen ran out of time"),
])
def test_a_failing_generator_falls_back_to_the_rules_model(checkout: Path, tmp_path: Path, monkeypatch,
                                                           mode: str, status: str) -> None:
    monkeypatch.setenv("FAKE_GEN", mode)
    db = tmp_path / "index.db"
    summary = build(checkout, db, codegen_timeout=3)
    assert _meta(db)["codegen"] == status and _paths(db) == []
    assert str(summary).endswith(f"; codegen {status}")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM ops").fetchone()[0] > 0  # the index is still built


def test_a_checkout_without_generators_says_so(tmp_path: Path) -> None:
    root = tmp_path / "pytorch"
    shutil.copytree(FIXTURE, root)
    db = tmp_path / "index.db"
    build(root, db, codegen_timeout=60)
    assert _meta(db)["codegen"] == "failed: the checkout has no torchgen/gen.py"
    assert not codegen.folder_for(db).exists()


def test_cli_codegen_option(checkout: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    done = run("tg-index", str(checkout), "--db", str(db), "--codegen", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "; codegen ran in " in done.stdout and done.stderr == ""
    helped = run("tg-index", "--help")
    assert "--codegen" in helped.stdout and "--codegen-timeout" in helped.stdout


def test_kernels_for_steps_through_the_generated_files(checkout: Path, tmp_path: Path) -> None:
    """add.out's CPU kernel is a ufunc kernel: without --codegen it is modelled, with it the generated
    TORCH_IMPL_FUNC is its definition and the Register<Key>.cpp wrapper is named with its m.impl line."""
    db = tmp_path / "index.db"
    build(checkout, db)
    cpu = next(k for k in Index.open(db).kernels_for("add.out")[0].keys if k.key == "CPU")
    assert (cpu.definition, cpu.wrapper, cpu.note) == (None, None, "generated at build time from ufunc_inner_loop")
    build(checkout, db, codegen_timeout=60)
    answer = Index.open(db).kernels_for("add.out")[0]
    text = kernels_for_text([answer])
    cpu = next(k for k in answer.keys if k.key == "CPU")
    assert (cpu.qualified_name, cpu.definition) == ("at::native::structured_ufunc_add_CPU::impl", Location(".tg-codegen/aten/UfuncCPU_add.cpp", 3))
    assert (cpu.wrapper.name, cpu.wrapper.loc, cpu.wrapper.site) == (
        "at::(anonymous)::wrapper_CPU_add_out_out", Location(".tg-codegen/aten/RegisterCPU.cpp", 3),
        Location(".tg-codegen/aten/RegisterCPU.cpp", 8))
    assert ("      registered by the generated wrapper at::(anonymous)::wrapper_CPU_add_out_out  "
            ".tg-codegen/aten/RegisterCPU.cpp:3  (m.impl at .tg-codegen/aten/RegisterCPU.cpp:8)") in text.splitlines()
    assert next(k for k in answer.keys if k.key == "CUDA").wrapper is None  # no RegisterCUDA.cpp was generated


def test_dispatcher_registrations_point_into_the_generated_files(checkout: Path, tmp_path: Path) -> None:
    """The generated rows are at their m.impl in --codegen's files; those files give no hand-written row."""
    db = tmp_path / "index.db"
    build(checkout, db)
    query = "SELECT source, file, line FROM dispatcher_registrations WHERE op = 'aten::add.out' AND key = 'CPU'"
    with sqlite3.connect(db) as conn:
        assert conn.execute(query).fetchall() == [("generated", "RegisterCPU.cpp", None)]
    build(checkout, db, codegen_timeout=60)
    with sqlite3.connect(db) as conn:
        assert conn.execute(query).fetchall() == [("generated", ".tg-codegen/aten/RegisterCPU.cpp", 8)]
        assert conn.execute("SELECT count(*) FROM dispatcher_registrations WHERE source != 'generated' "
                            "AND file LIKE '.tg-codegen/%'").fetchone() == (0,)
