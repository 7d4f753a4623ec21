"""symbol, stub, kernel, callers and the C++ exports on the fixture checkout's C++/CUDA files."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import run

NATIVE = "aten/src/ATen/native"


def _json(db: Path, *args: str):
    result = run("tg-query", "--db", str(db), *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_symbol_finds_structured_kernels(mini_db: Path):
    [meta] = _json(mini_db, "symbol", "add.Tensor")
    assert (meta["kind"], meta["qualified_name"], meta["macro"]) == (
        "meta_func", "at::meta::structured_add_Tensor::meta", "TORCH_META_FUNC2")
    assert meta["location"] == {"file": f"{NATIVE}/BinaryOps.cpp", "line": 4} and meta["end_line"] == 8
    [impl] = _json(mini_db, "symbol", "add_out", "--kind", "impl_func")
    assert impl["qualified_name"] == "at::native::structured_add_out::impl"
    [fn] = _json(mini_db, "symbol", "at::native::add_sparse")
    assert (fn["kind"], fn["location"]["line"]) == ("function", 20)


def test_stub_registrations_per_device_and_capability(mini_db: Path):
    info = _json(mini_db, "stub", "add_stub")
    assert [d["location"] for d in info["declarations"]] == [{"file": f"{NATIVE}/BinaryOps.h", "line": 4}]
    assert [d["location"]["line"] for d in info["definitions"]] == [12]
    regs = {(r["device"], r["arch"], r["kernel"], r["is_nullptr"]) for r in info["registrations"]}
    # a plain REGISTER_DISPATCH in native/cpu/ registers nullptr for AVX512 (DispatchStub.h of 2.x)
    assert regs == {("CPU", "DEFAULT", "add_kernel", False), ("CPU", "AVX2", "add_kernel", False),
                    ("CPU", "AVX512", None, True), ("CUDA", None, "add_kernel_cuda_impl", False)}
    assert [(c["caller"], c["how"], c["location"]["line"]) for c in info["callers"]] == [
        ("at::native::structured_add_out::impl", "call", 17)]


def test_kernel_definition_launches_and_dtypes(mini_db: Path):
    info = _json(mini_db, "kernel", "add_kernel_cuda")
    assert [(d["qualified_name"], d["location"]["line"]) for d in info["definitions"]] == [
        ("at::native::add_kernel_cuda", 5)]
    assert [(u["caller"], u["how"], u["location"]["line"]) for u in info["launches"]] == [
        ("at::native::add_kernel_cuda_impl", "triple_chevron", 12)]
    assert [(t["macro"], t["dtypes"], t["name"]) for t in info["dtypes"]] == [
        ("AT_DISPATCH_FLOATING_TYPES", ["FLOATING_TYPES"], "add_cuda")]


def test_callers(mini_db: Path):
    assert [(u["caller"], u["location"]["line"]) for u in _json(mini_db, "callers", "add_out_sparse_cpu")] == [
        ("at::native::add_sparse", 21)]


def test_exports_have_the_documented_fields(mini_db: Path):
    def rows(table: str) -> list[dict]:
        result = run("tg-query", "--db", str(mini_db), "export", table)
        assert result.returncode == 0, result.stderr
        return [json.loads(line) for line in result.stdout.splitlines()]

    fields = {
        "definitions": ["name", "qualified_name", "kind", "file", "line", "end_line"],
        "stubs": ["stub", "kind", "macro", "device", "arch", "kernel", "file", "line"],
        "launches": ["kind", "kernel", "function", "file", "line"],
        "registrations": ["kind", "macro", "namespace", "key", "op", "function", "file", "line"],
        "type-dispatch": ["macro", "dtypes", "name", "function", "file", "line"],
    }
    for table, names in fields.items():
        found = rows(table)
        assert found, table
        assert all(list(r) == names for r in found), table
    assert {"kind": "impl", "macro": "TORCH_LIBRARY_IMPL", "namespace": "aten", "key": "CUDA", "op": "add.Tensor",
            "function": "add_kernel_cuda_impl", "file": f"{NATIVE}/cuda/AddKernel.cu", "line": 19} in rows("registrations")
    assert {"kind": "cpu_kernel", "kernel": None, "function": "at::native::(anonymous)::add_kernel",
            "file": f"{NATIVE}/cpu/BinaryOpsKernel.cpp", "line": 8} in rows("launches")


def test_unknown_names_get_one_line_with_close_matches(mini_db: Path):
    result = run("tg-query", "--db", str(mini_db), "stub", "add_stubb")
    assert result.returncode == 1
    assert result.stderr == "error: no dispatch stub named 'add_stubb'; did you mean 'add_stub'?\n"
    result = run("tg-query", "--db", str(mini_db), "kernel", "nope_kernel")
    assert result.stderr == "error: no __global__ kernel or launched functor named 'nope_kernel'\n"
