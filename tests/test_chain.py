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
    # The stub where it is called (BinaryOps.cpp:17), declared (BinaryOps.h:4) and defined (BinaryOps.cpp:12),
    # each capability's registration (cpu/BinaryOpsKernel.cpp:13) and the registered function (line 5).
    assert _steps(cpu["chain"]) == [
        ("stub", "add_stub", "BinaryOps.cpp", 17, None, None),
        ("declared", "add_stub", "BinaryOps.h", 4, None, None),
        ("defined", "add_stub", "BinaryOps.cpp", 12, None, None),
        ("registered", "add_kernel", "cpu/BinaryOpsKernel.cpp", 13, "CPU", "DEFAULT"),
        ("definition", "at::native::(anonymous)::add_kernel", "cpu/BinaryOpsKernel.cpp", 5, "CPU", None),
        ("registered", "add_kernel", "cpu/BinaryOpsKernel.cpp", 13, "CPU", "AVX2"),
        ("registered", "nullptr", "cpu/BinaryOpsKernel.cpp", 13, "CPU", "AVX512"),
        ("launch", "lambda at line 8", "cpu/BinaryOpsKernel.cpp", 8, None, "cpu_kernel"),
        ("dtypes", "add_cpu", "cpu/BinaryOpsKernel.cpp", 6, None, "AT_DISPATCH_ALL_TYPES_AND2(ALL_TYPES, kHalf, kBFloat16)"),
    ]


def test_cuda_chain_reaches_the_global_kernel(mini_db: Path):
    [cuda] = _json(mini_db, "kernels-for", "sub.out", "--key", "CUDA")["keys"]
    assert _steps(cuda["chain"]) == [
        ("stub", "add_stub", "BinaryOps.cpp", 17, None, None),
        ("declared", "add_stub", "BinaryOps.h", 4, None, None),
        ("defined", "add_stub", "BinaryOps.cpp", 12, None, None),
        ("registered", "add_kernel_cuda_impl", "cuda/AddKernel.cu", 16, "CUDA", None),
        ("definition", "at::native::add_kernel_cuda_impl", "cuda/AddKernel.cu", 10, "CUDA", None),
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
        ("generated", "ufunc_add_CPU: structured impl calling add_stub", "native_functions.yaml", 19, "CPU", None),
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
    assert [s["kind"] for s in cpu["chain"]] == ["stub", "declared", "defined", "registered", "definition",
                                                 "registered", "registered"]


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
        "at::native::add_kernel_cuda"]}]}
    stub = _json(mini_db, "ops-for", "add_stub")["reached"]
    assert {(h["op"], h["key"]) for h in stub} == {
        ("add.Tensor", "CPU"), ("add_.Tensor", "CPU"), ("add.out", "CPU"), ("sub.out", "CPU"), ("sub.out", "CUDA")}
    result = run("tg-query", "--db", str(mini_db), "ops-for", "nothing_here")
    assert result.stderr == "error: no function, stub or kernel named 'nothing_here'\n"


def test_ops_for_takes_a_meta_kernel_by_the_struct_name_kernels_for_shows(mini_db: Path):
    """kernels-for shows add.out's Meta kernel as `structured_add_Tensor` (TORCH_META_FUNC2(add, Tensor),
    BinaryOps.cpp:4), the struct whose meta() the macro defines: ops-for takes that name, bare or qualified."""
    meta = _json(mini_db, "kernels-for", "add.out", "--key", "Meta")["keys"][0]
    assert meta["kernel"] == "structured_add_Tensor"
    for name in ("structured_add_Tensor", "at::meta::structured_add_Tensor", "meta::structured_add_Tensor"):
        reached = {(h["op"], h["key"]) for h in _json(mini_db, "ops-for", name)["reached"]}
        assert {("add.out", "Meta"), ("add.Tensor", "Meta")} <= reached, name
        assert {key for _op, key in reached} == {"Meta"}, name
    result = run("tg-query", "--db", str(mini_db), "ops-for", "structured_add")
    assert result.stderr.startswith("error: no function, stub or kernel named 'structured_add'")


# -- the answer's shape: key order, shared chains, depth and how, backward of in-place and out= forms ------------


def test_keys_come_in_key_order_and_a_shared_chain_is_printed_once(mini_db: Path):
    data = _json(mini_db, "kernels-for", "add.Tensor")
    # native_functions.yaml:2 writes SparseCPU, SparseCUDA; the delegate rows (CPU, CUDA, MPS) and Meta come after
    assert [(k["key"], k.get("same_as")) for k in data["keys"]] == [
        ("CPU", None), ("CUDA", None), ("Meta", None), ("MPS", None), ("SparseCPU", None), ("SparseCUDA", "SparseCPU")]
    sparse_cpu, sparse_cuda = data["keys"][4:]
    assert sparse_cuda["chain"] == sparse_cpu["chain"] and sparse_cuda["definition"] == sparse_cpu["definition"]
    text = run("tg-query", "--db", str(mini_db), "kernels-for", "add.Tensor").stdout.splitlines()
    assert text[text.index("  SparseCPU      at::native::add_sparse  aten/src/ATen/native/BinaryOps.cpp:20") + 1] == \
        "  SparseCUDA     same kernel and chain as SparseCPU"
    # the same definition with chains that differ by device (the stub's registrations) is no shared chain
    assert [k.get("same_as") for k in _json(mini_db, "kernels-for", "sub.out")["keys"]] == [None, None]


def test_every_json_step_has_its_depth_and_how_when_known(mini_db: Path):
    from tg_index.indexer.facts import Location
    from tg_index.queries.render import _step_data
    from tg_index.queries.results import Step, to_data

    [cuda] = _json(mini_db, "kernels-for", "sub.out", "--key", "CUDA")["keys"]
    # the stub's use and registration are in the kernel's body; the launch is one helper call below
    assert [(s["kind"], s["depth"], s.get("how")) for s in cuda["chain"]] == [
        ("stub", 0, "exact"), ("declared", 0, None), ("defined", 0, None), ("registered", 0, "registered"),
        ("definition", 0, "registered"), ("launch", 1, "same-namespace"), ("global_kernel", 1, "same-namespace"),
        ("dtypes", 1, None)]
    step = Step("call", "at::native::helper", Location("aten/src/ATen/native/A.cpp", 3), depth=1, how="include")
    assert _step_data(step) == {"kind": "call", "name": "at::native::helper", "file": "aten/src/ATen/native/A.cpp",
                                "line": 3, "depth": 1, "how": "include"}
    assert to_data(step)["how"] == "include"
    assert "how" not in to_data(Step("call", "f", None))


def _backward(db: Path, op: str) -> list[tuple]:
    return [(b["op"], b["dispatch_key"], b["from_op"], b["applies_as"], b["location"]["line"])
            for b in _json(db, "kernels-for", op)["backward"]]


def test_inplace_and_out_forms_get_the_functional_entry_labelled(mini_db: Path):
    # tests/fixtures/mini/tools/autograd/derivatives.yaml:2 add.Tensor, :11 mul.Scalar (Default :13,
    # AutogradNestedTensor :15); add_.Tensor, add.out and mul_.Scalar have no entry of their own
    assert _backward(mini_db, "add.Tensor") == [("add.Tensor", None, "add.Tensor", "exact", 2)]
    assert _backward(mini_db, "add_.Tensor") == [("add.Tensor", None, "add.Tensor", "in-place", 2)]
    assert _backward(mini_db, "add.out") == [("add.Tensor", None, "add.Tensor", "out=", 2)]
    assert _backward(mini_db, "mul_.Scalar") == [("mul.Scalar", "Default", "mul.Scalar", "in-place", 13),
                                                 ("mul.Scalar", "AutogradNestedTensor", "mul.Scalar", "in-place", 15)]
    # an autogen'd out= variant gets none (torchgen/api/autograd.py:609); no sub entry at all for sub.out
    assert _backward(mini_db, "mul.Scalar_out") == []
    assert _backward(mini_db, "sub.out") == []
    inplace = run("tg-query", "--db", str(mini_db), "kernels-for", "add_.Tensor").stdout
    assert ("  backward  tools/autograd/derivatives.yaml:2  from add.Tensor (the functional form; tools/autograd "
            "applies it to the in-place form)\n    self: handle_r_to_c(self.scalar_type(), grad)  "
            "tools/autograd/derivatives.yaml:3\n") in inplace
    out = run("tg-query", "--db", str(mini_db), "kernels-for", "add.out").stdout
    # out=: the entry is named, its formulas are not shown (they never run) and no calls are listed
    assert out.endswith("  backward  tools/autograd/derivatives.yaml:2  from add.Tensor (the functional form's entry, "
                        "matched by signature; gen_variable_type records no grad_fn for out= functions: it raises "
                        "when an input or out= requires grad, and refuses forward AD)\n")
