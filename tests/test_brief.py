"""--brief: the short forms of kernels-for, trace and ops-for on the fixture index, pinned."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import run

ADD_BRIEF = """\
add.Tensor  native_functions.yaml:2  delegate add.out  meta BinaryOps.cpp:4  backward tools/autograd/derivatives.yaml:2
  SparseCPU  add_sparse  BinaryOps.cpp:20
  SparseCUDA = SparseCPU
  Meta  structured_add_Tensor  BinaryOps.cpp:4  via add.out
  MPS  add_out_mps  [no TORCH_IMPL_FUNC for it in the sources]  via add.out
  CPU  ufunc_add_CPU  [generated]  via add.out  stub add_stub  -> add_kernel [generated]  dtypes AllAndComplex,BFloat16,Half,ComplexHalf +1
  CUDA  ufunc_add_CUDA  [generated]  via add.out  dtypes AllAndComplex,BFloat16,Half,ComplexHalf +1
add.out  native_functions.yaml:15  structured  meta BinaryOps.cpp:4
  SparseCPU  add_out_sparse_cpu  [no definition in the sources]
  SparseMeta  add_out_sparse_cpu  [no definition in the sources]
  MPS  add_out_mps  [no TORCH_IMPL_FUNC for it in the sources]
  CPU  ufunc_add_CPU  [generated]  stub add_stub  -> add_kernel [generated]  dtypes AllAndComplex,BFloat16,Half,ComplexHalf +1
  CUDA  ufunc_add_CUDA  [generated]  dtypes AllAndComplex,BFloat16,Half,ComplexHalf +1
  Meta  structured_add_Tensor  BinaryOps.cpp:4
(short paths are under aten/src/ATen/native/)
"""

SUB_OUT_KEYS = [
    {"key": "CPU", "kernel": "add_out", "origin": "yaml",
     "definition": {"file": "aten/src/ATen/native/BinaryOps.cpp", "line": 14},
     "stubs": ["add_stub"], "registered": ["add_kernel", "nullptr"], "launches": ["cpu_kernel"], "library": [],
     "dtypes": ["ALL_TYPES,Half,BFloat16"]},
    {"key": "CUDA", "kernel": "add_out", "origin": "yaml",
     "definition": {"file": "aten/src/ATen/native/BinaryOps.cpp", "line": 14},
     "stubs": ["add_stub"], "registered": ["add_kernel_cuda_impl"], "launches": ["add_kernel_cuda"], "library": [],
     "dtypes": ["FLOATING_TYPES"]},
]


def query(db: Path, *args: str) -> str:
    done = run("tg-query", "--db", str(db), *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_kernels_for_brief_is_one_line_per_key(mini_db: Path):
    assert query(mini_db, "kernels-for", "add", "--brief") == ADD_BRIEF
    data = json.loads(query(mini_db, "kernels-for", "sub.out", "--brief", "--json"))
    assert data["keys"] == SUB_OUT_KEYS
    assert (data["op"], data["meta"], data["backward"]) == ("sub.out", None, [])
    # CPU and CUDA share a definition but not what the stub runs on each device: each gets its line
    assert query(mini_db, "kernels-for", "sub.out", "--brief").splitlines()[1:3] == [
        "  CPU  add_out  BinaryOps.cpp:14  stub add_stub  -> add_kernel, nullptr  launch cpu_kernel  "
        "dtypes ALL_TYPES,Half,BFloat16",
        "  CUDA  add_out  BinaryOps.cpp:14  stub add_stub  -> add_kernel_cuda_impl  launch add_kernel_cuda  "
        "dtypes FLOATING_TYPES"]


def test_trace_brief_names_the_path_and_each_overloads_keys(mini_db: Path):
    assert query(mini_db, "trace", "nn.Linear", "--brief") == (
        "nn.Linear = torch.nn.Linear\n"
        "  path: Linear -> forward -> add_tensor\n"
        "  op add.Tensor  via torch.ops.aten.add.Tensor  decomp torch._decomp.decompositions.add\n"
        "    add.Tensor  native_functions.yaml:2  SparseCPU:add_sparse, SparseCUDA:add_sparse, "
        "Meta:structured_add_Tensor, MPS:add_out_mps, CPU:ufunc_add_CPU, CUDA:ufunc_add_CUDA\n")
    data = json.loads(query(mini_db, "trace", "nn.Linear", "--brief", "--json"))
    assert data["path"] == ["torch.nn.modules.linear.Linear", "torch.nn.modules.linear.Linear.forward",
                            "torch.nn.functional.add_tensor"]
    assert data["ops"][0]["overloads"][0]["keys"]["CPU"] == "ufunc_add_CPU"


def test_ops_for_brief_groups_keys_per_op_and_kernel(mini_db: Path):
    assert query(mini_db, "ops-for", "add_kernel_cuda", "--brief") == (
        "sub.out                                  CUDA                       add_out\n")
    assert json.loads(query(mini_db, "ops-for", "add_kernel_cuda", "--brief", "--json")) == [
        {"op": "sub.out", "kernel": "add_out", "keys": ["CUDA"]}]
