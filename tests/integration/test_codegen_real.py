"""`tg-index --codegen` on real 2.6.0: the checkout's own generators, their files indexed, the chain through them.

What the generated files hold is checked against the rules model of the generated registrations
(indexer/dispatcher), which was itself checked against this codegen (test_dispatcher_codegen.py);
the wrapper's file:line is read in the generated file by a plain text search.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tg_index.indexer import codegen
from tg_index.indexer.build import build
from tg_index.indexer.facts import Location
from tg_index.queries.api import Index

from ..conftest import real_tree
from .test_dispatcher_codegen import model_registrations

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    tree = real_tree("2.6.0")
    start = time.time() - 1  # file times have a resolution of a second or better
    db = tmp_path_factory.mktemp("codegen-2.6.0") / "index.db"
    summary = build(tree, db, codegen_timeout=codegen.DEFAULT_TIMEOUT)
    return tree, db, summary, start


def test_the_generators_ran_outside_the_checkout(built) -> None:
    tree, db, summary, start = built
    assert str(summary).split("; ")[-1].startswith("codegen ran in "), str(summary)
    newer = [str(p.relative_to(tree)) for p in tree.rglob("*") if p.lstat().st_mtime > start]  # lstat: a broken link
    assert newer == []
    assert (codegen.folder_for(db) / "aten" / "RegisterCPU.cpp").is_file()


def test_the_generated_registrations_are_the_models(built) -> None:
    """Every m.impl of the indexed Register*/VariableType*/ADInplaceOrViewType*/TraceType* shards is one the
    rules model gives for that (op, key), with the same kernel, and none the model gives is missing."""
    tree, db, _, _ = built
    ix = Index.open(db)
    found = {(f"aten::{op}" if "::" not in op else op, key): fn for op, key, fn in ix.conn.execute(
        "SELECT op, dispatch_key, function FROM registrations WHERE kind = 'impl' AND file LIKE '.tg-codegen/%'")}
    model = {(r.op, r.key): r.kernel for r in model_registrations(tree)}
    assert sorted(set(model) ^ set(found))[:10] == []
    differ = sorted(k for k in model if model[k].rsplit("::", 1)[-1] != (found[k] or "").rsplit("::", 1)[-1])
    assert differ[:10] == [] and len(found) == sum(1 for _ in model)


def _line_of(path: Path, pattern: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if re.search(pattern, line):
            return number
    raise AssertionError(f"{pattern} not in {path}")


def test_kernels_for_add_out_steps_through_the_generated_files(built) -> None:
    _, db, _, _ = built
    folder = codegen.folder_for(db) / "aten"
    answer = Index.open(db).kernels_for("add.out")[0]
    keys = {k.key: k for k in answer.keys}
    cpu, cuda = keys["CPU"], keys["CUDA"]
    impl = _line_of(folder / "UfuncCPU_add.cpp", r"^TORCH_IMPL_FUNC\(ufunc_add_CPU\)")
    assert (cpu.qualified_name, cpu.definition) == ("at::native::structured_ufunc_add_CPU::impl",
                                                   Location(".tg-codegen/aten/UfuncCPU_add.cpp", impl))
    wrapper = _line_of(folder / "RegisterCPU.cpp", r"^at::Tensor & wrapper_CPU_add_out_out\(")
    m_impl = _line_of(folder / "RegisterCPU.cpp", r'm\.impl\("add\.out", TORCH_FN\(wrapper_CPU_add_out_out\)\)')
    assert (cpu.wrapper.name, cpu.wrapper.loc, cpu.wrapper.site) == (
        "at::(anonymous)::wrapper_CPU_add_out_out", Location(".tg-codegen/aten/RegisterCPU.cpp", wrapper),
        Location(".tg-codegen/aten/RegisterCPU.cpp", m_impl))
    # the stub that the generated kernel calls is registered in the generated UfuncCPUKernel_add.cpp
    registered = [s for s in cpu.chain if s.kind == "registered"]
    kernel_line = _line_of(folder / "UfuncCPUKernel_add.cpp", r"^REGISTER_DISPATCH\(add_stub")
    assert [(s.device, s.detail, s.loc) for s in registered][0] == (
        "CPU", "DEFAULT", Location(".tg-codegen/aten/UfuncCPUKernel_add.cpp", kernel_line))
    # and the loops it runs are the checkout's own helpers
    assert any(s.name == "at::native::CPU_CAPABILITY::cpu_kernel_vec" and s.file == "aten/src/ATen/native/cpu/Loops.h"
               for s in cpu.chain)
    cuda_impl = _line_of(folder / "UfuncCUDA_add.cu", r"^TORCH_IMPL_FUNC\(ufunc_add_CUDA\)")
    assert cuda.definition == Location(".tg-codegen/aten/UfuncCUDA_add.cu", cuda_impl)
    assert any(s.name == "at::native::gpu_kernel" for s in cuda.chain)
