"""kernels-for's chain, doctor and ops-for on the fixture checkout."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import run

NATIVE = "aten/src/ATen/native"


def _json(db: Path, *args: str):
    result = run("tg-query", "--db", str(db), *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _steps(chain: list[dict]) -> list[tuple]:
    return [(s["kind"], s["name"], s["file"].rsplit("/native/", 1)[-1], s["line"], s.get("device"), s.get("detail"))
            for s in chain]


def test_structured_kernel_through_stub_to_cpu_kernels(mini_db: Path):
    data = _json(mini_db, "kernels-for", "sub.out", "--key", "CPU")
    [cpu] = data["keys"]
    assert cpu["definition"] == {"file": f"{NATIVE}/BinaryOps.cpp", "line": 14,
                                 "name": "at::native::structured_add_out::impl"}
    assert _steps(cpu["chain"]) == [
        ("stub", "add_stub", "BinaryOps.cpp", 17, None, None),
        ("registered", "add_kernel", "cpu/BinaryOpsKernel.cpp", 13, "CPU", "DEFAULT"),
        ("registered", "add_kernel", "cpu/BinaryOpsKernel.cpp", 13, "CPU", "AVX2"),
        ("registered", "nullptr", "cpu/BinaryOpsKernel.cpp", 13, "CPU", "AVX512"),
        ("launch", "lambda at line 8", "cpu/BinaryOpsKernel.cpp", 8, None, "cpu_kernel"),
        ("dtypes", "add_cpu", "cpu/BinaryOpsKernel.cpp", 6, None, "AT_DISPATCH_ALL_TYPES_AND2(ALL_TYPES, kHalf, kBFloat16)"),
    ]


def test_cuda_chain_reaches_the_global_kernel(mini_db: Path):
    [cuda] = _json(mini_db, "kernels-for", "sub.out", "--key", "CUDA")["keys"]
    assert _steps(cuda["chain"]) == [
        ("stub", "add_stub", "BinaryOps.cpp", 17, None, None),
        ("registered", "add_kernel_cuda_impl", "cuda/AddKernel.cu", 16, "CUDA", None),
        ("launch", "add_kernel_cuda", "cuda/AddKernel.cu", 12, None, "<<<grid, block, 0, stream>>>"),
        ("global_kernel", "at::native::add_kernel_cuda", "cuda/AddKernel.cu", 5, None, None),
        ("dtypes", "add_cuda", "cuda/AddKernel.cu", 11, None, "AT_DISPATCH_FLOATING_TYPES(FLOATING_TYPES)"),
    ]


def test_ufunc_kernels_are_generated_with_their_source(mini_db: Path):
    data = _json(mini_db, "kernels-for", "add.Tensor", "--key", "CPU", "--key", "Meta")
    keys = {k["key"]: k for k in data["keys"]}
    cpu, meta = keys["CPU"], keys["Meta"]
    assert (cpu["kernel"], cpu["origin"], cpu["via"], cpu["definition"]) == ("ufunc_add_CPU", "delegate", "add.out", None)
    assert cpu["note"] == "generated at build time from ufunc_inner_loop"
    assert _steps(cpu["chain"]) == [
        ("generated", "structured impl calling add_stub", "native_functions.yaml", 19, "CPU", None),
        ("stub", "add_stub", "BinaryOps.h", 4, None, "registered by generated code"),
        ("registered", "add_kernel [generated]", "native_functions.yaml", 19, "CPU", "every capability"),
        ("dtypes", "Generic: add", "native_functions.yaml", 19, None, "AllAndComplex, BFloat16, Half, ComplexHalf"),
        ("dtypes", "ScalarOnly: add", "native_functions.yaml", 19, None, "Bool"),
    ]
    assert meta["definition"]["name"] == "at::meta::structured_add_Tensor::meta"
    assert data["meta"] == {"kind": "meta_func", "name": "at::meta::structured_add_Tensor::meta",
                            "file": f"{NATIVE}/BinaryOps.cpp", "line": 4, "depth": 0}
    assert [f["formula"] for f in data["backward"][0]["formulas"]][0] == "handle_r_to_c(self.scalar_type(), grad)"


def test_depth_zero_stays_in_the_kernel(mini_db: Path):
    [cpu] = _json(mini_db, "kernels-for", "sub.out", "--key", "CPU", "--depth", "0")["keys"]
    assert [s["kind"] for s in cpu["chain"]] == ["stub", "registered", "registered", "registered"]


def test_pictures(mini_db: Path):
    dot = run("tg-query", "--db", str(mini_db), "kernels-for", "sub.out", "--key", "CUDA", "--format", "dot").stdout
    assert dot.startswith("digraph kernels_for {")
    assert '"add_stub" -> "add_kernel_cuda_impl" [label="registered"];' in dot
    assert '"add_kernel_cuda" -> "at::native::add_kernel_cuda" [label="global_kernel"];' in dot
    mermaid = run("tg-query", "--db", str(mini_db), "kernels-for", "sub.out", "--format", "mermaid").stdout
    assert mermaid.startswith("flowchart LR\n")
    assert '-->|CUDA| n' in mermaid


def test_doctor_groups_unresolved_kernels(mini_db: Path):
    health = _json(mini_db, "doctor")
    keys = {k["key"]: (k["rows"], k["defined"], k["generated"], k["unresolved"]) for k in health["keys"]}
    assert keys["CUDA"] == (4, 1, 3, 0)
    assert keys["Meta"] == (3, 3, 0, 0)
    missing = {(u["op"], u["key"], u["reason"]) for u in health["unresolved"]}
    assert ("custom_op", "CPU", "no definition in the sources") in missing
    assert ("add.out", "MPS", "no TORCH_IMPL_FUNC for it in the sources") in missing


def test_ops_for_walks_up_from_a_kernel(mini_db: Path):
    hits = _json(mini_db, "ops-for", "add_kernel_cuda")
    assert hits == {"name": "add_kernel_cuda", "reached": [{"op": "sub.out", "key": "CUDA", "kernel": "add_out", "path": [
        "at::native::structured_add_out::impl", "uses add_stub", "at::native::add_kernel_cuda_impl",
        "launches add_kernel_cuda"]}]}
    stub = _json(mini_db, "ops-for", "add_stub")["reached"]
    assert {(h["op"], h["key"]) for h in stub} == {
        ("add.Tensor", "CPU"), ("add_.Tensor", "CPU"), ("add.out", "CPU"), ("sub.out", "CPU"), ("sub.out", "CUDA")}
    result = run("tg-query", "--db", str(mini_db), "ops-for", "nothing_here")
    assert result.stderr == "error: no function, stub or kernel named 'nothing_here'\n"
