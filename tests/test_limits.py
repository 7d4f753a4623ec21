"""Results cut by a limit say so, in text and JSON; doctor lists failed extractions; info shows the stub macros.

The fixture checkout gets, at run time, one C++ file that crosses every limit of the walks once:
a stub called from more functions than ops-for follows callers per node (CALLERS_PER_NODE), a name defined in 4
namespaces and called unqualified from none of them (an ambiguous call: ops-for does not walk up
it), and a helper defined in 7 namespaces that add_kernel calls unqualified (kernels-for follows
the candidates of an ambiguous call up to 4, and names the call when some lead to device work).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.queries.api import Index
from tg_index.queries.render import doctor_text, kernels_for_data, kernels_for_text, reach_text
from tg_index.queries.reverse import CALLERS_PER_NODE

from .conftest import MINI, run

NATIVE = "aten/src/ATen/native"


def _limits_cpp() -> str:
    lines = ["#include <ATen/native/BinaryOps.h>", "namespace at::native {",
             "using leaf_fn = void (*)(TensorIteratorBase&);", "DECLARE_DISPATCH(leaf_fn, big_stub);",
             "DEFINE_DISPATCH(big_stub);", "void leaf_kernel_impl(TensorIteratorBase& iter) {}",
             "REGISTER_DISPATCH(big_stub, &leaf_kernel_impl);"]
    lines += [f"void stub_user_{i:04}(TensorIteratorBase& iter) {{ big_stub(kCPU, iter); }}"
              for i in range(CALLERS_PER_NODE + 101)]
    lines += [f"namespace q{i} {{ void quad_helper(int x) {{}} }}" for i in range(4)]
    lines += ["void quad_user(TensorIteratorBase& iter) { quad_helper(1); big_stub(kCPU, iter); }"]
    lines += [f"namespace c{i} {{ void common_helper(TensorIteratorBase& iter) {{ big_stub(kCPU, iter); }} }}"
              for i in range(7)]
    return "\n".join(lines + ["} // namespace at::native", ""])


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("limits") / "mini"
    shutil.copytree(MINI, root)
    (root / NATIVE / "Limits.cpp").write_text(_limits_cpp())
    kernel = root / NATIVE / "cpu/BinaryOpsKernel.cpp"
    kernel.write_text(kernel.read_text().replace("  AT_DISPATCH_ALL_TYPES_AND2", "  common_helper(iter);\n  AT_DISPATCH_ALL_TYPES_AND2"))
    out = root.parent / "ix.db"
    build(root, out, jobs=1)
    return out


def _json(db: Path, *args: str):
    result = run("tg-query", "--db", str(db), *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_ops_for_says_when_callers_were_cut(db: Path):
    found = _json(db, "ops-for", "leaf_kernel_impl")
    assert found == {"name": "leaf_kernel_impl", "reached": [], "truncated": True,
                     "limits": [{"what": f"callers not followed beyond {CALLERS_PER_NODE} per node",
                                 "limit": CALLERS_PER_NODE, "names": ["big_stub"]}]}
    text = run("tg-query", "--db", str(db), "ops-for", "leaf_kernel_impl").stdout
    assert text == ("no op reaches it within the depth asked\n"
                    f"truncated: callers not followed beyond {CALLERS_PER_NODE} per node (limit {CALLERS_PER_NODE}): "
                    "big_stub\n")


def test_ops_for_does_not_walk_up_an_ambiguous_call(db: Path):
    common = _json(db, "ops-for", "quad_helper")
    assert common["limits"] == [{"what": "callers not followed: their call is ambiguous (it may mean another "
                                         "definition)", "limit": 0, "names": ["at::native::quad_user"]}]
    lines = run("tg-query", "--db", str(db), "ops-for", "quad_helper", "--format", "jsonl").stdout.splitlines()
    assert json.loads(lines[-1]) == {"truncated": True, "limits": common["limits"]}


def test_ops_for_depth_and_a_whole_answer(db: Path):
    shallow = Index.open(db).ops_for("add_kernel_cuda", depth=0)
    assert [(h.op, h.key) for h in shallow] == [] and len(shallow) == 0
    # the definition of the __global__ add_kernel_cuda, the one node it starts from
    assert [(t.what, t.limit) for t in shallow.truncated] == [
        ("walk stopped at --depth with 1 nodes whose callers were not looked at", 0)]
    assert reach_text(shallow).splitlines()[-1] == \
        "truncated: walk stopped at --depth with 1 nodes whose callers were not looked at (limit 0)"
    whole = _json(db, "ops-for", "add_kernel_cuda")
    assert "truncated" not in whole and [h["op"] for h in whole["reached"]] == ["sub.out"]


def test_kernels_for_says_which_ambiguous_calls_and_depth_cut_the_chain(db: Path):
    [answer] = Index.open(db).kernels_for("sub.out", ("CPU",))
    [cpu] = kernels_for_data(answer)["keys"]
    cut = ("ambiguous calls with more than 4 candidates, some leading to device work, not followed")
    assert (cpu["truncated"], cpu["limits"]) == (True, [
        {"what": cut, "limit": 4, "names": ["common_helper (7 (7 lead to device work))"]}])
    assert f"      truncated: {cut} (limit 4): common_helper (7 (7 lead to device work))\n" in kernels_for_text([answer])
    [cpu0] = _json(db, "kernels-for", "sub.out", "--key", "CPU", "--depth", "0")["keys"]
    assert cpu0["limits"] == [{"what": "calls below --depth not followed", "limit": 0,
                               "names": ["at::native::(anonymous)::add_kernel"]}]
    [cuda] = _json(db, "kernels-for", "sub.out", "--key", "CUDA")["keys"]
    assert "truncated" not in cuda and "limits" not in cuda  # a whole chain carries no truncation fields


def test_trace_says_when_hops_cut_it(mini_db: Path):
    data = _json(mini_db, "trace", "nn.ScaledReLU", "--hops", "2")
    assert (data["ops"], data["truncated"], data["limits"]) == ([], True, [
        {"what": "Python calls below --hops not followed", "limit": 2,
         "names": ["torch.nn.modules.activation._ScaledBase._scaled_forward"]}])
    text = run("tg-query", "--db", str(mini_db), "trace", "nn.ScaledReLU", "--hops", "2").stdout
    assert ("  truncated: Python calls below --hops not followed (limit 2): "
            "torch.nn.modules.activation._ScaledBase._scaled_forward\naten ops reached: none\n") in text
    assert "truncated" not in _json(mini_db, "trace", "nn.ScaledReLU")


def test_doctor_lists_files_whose_extraction_failed(mini_db: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    assert _json(db, "doctor")["partial_count"] == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE files SET status = 'partial: RecursionError in calls' WHERE path = ?",
                     (f"{NATIVE}/BinaryOps.cpp",))
    health = Index.open(db).doctor()
    assert [(p.file, p.status) for p in health.partial_files] == [
        (f"{NATIVE}/BinaryOps.cpp", "partial: RecursionError in calls")]
    assert doctor_text(health).endswith("\nfiles whose extraction failed (their facts may be incomplete): 1\n"
                                        f"  {NATIVE}/BinaryOps.cpp  partial: RecursionError in calls\n")
    data = _json(db, "doctor")
    assert (data["partial_count"], data["partial_files"]) == (
        1, [{"file": f"{NATIVE}/BinaryOps.cpp", "status": "partial: RecursionError in calls"}])


def test_info_shows_where_the_stub_macros_came_from(mini_db: Path, tmp_path: Path):
    db = tmp_path / "ix.db"
    shutil.copy(mini_db, db)
    # the mini checkout has no DispatchStub.h: the build says it used its built-in macros
    assert _json(db, "info")["stub_macros"] == "built-in (DispatchStub.h missing)"
    text = run("tg-query", "--db", str(db), "info").stdout
    assert [line.split(None, 1) for line in text.splitlines() if line.startswith("stub_macros")] == [
        ["stub_macros", "built-in (DispatchStub.h missing)"]]
