"""--brief: the short forms of kernels-for, trace and ops-for on the fixture index, pinned."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import run

# Keys in KEY_ORDER; SparseCPU and SparseCUDA share add_sparse's definition and chain: one line. The Meta line shows
# the meta function's place, so the head line does not repeat it; a dtype set an earlier line shows says `as KEY`.
ADD_BRIEF = """\
add.Tensor yaml:2 delegate add.out backward derivatives.yaml:2
  CPU: ufunc_add_CPU [generated] via add.out -> add_stub -> add_kernel [generated] | dtypes all+complex+bool+half+bf16+chalf
  CUDA: ufunc_add_CUDA [generated] via add.out | dtypes as CPU
  Meta: structured_add_Tensor BinaryOps.cpp:4 via add.out
  MPS: add_out_mps [no TORCH_IMPL_FUNC for it in the sources] via add.out
  SparseCPU, SparseCUDA: add_sparse BinaryOps.cpp:20
add.out yaml:15 structured backward derivatives.yaml:2 from add.Tensor (out=: no grad_fn)
  CPU: ufunc_add_CPU [generated] -> add_stub -> add_kernel [generated] | dtypes all+complex+bool+half+bf16+chalf
  CUDA: ufunc_add_CUDA [generated] | dtypes as CPU
  Meta: structured_add_Tensor BinaryOps.cpp:4
  MPS: add_out_mps [no TORCH_IMPL_FUNC for it in the sources]
  SparseCPU, SparseMeta: add_out_sparse_cpu [no definition in the sources]
"""

SUB_OUT_KEYS = [
    {"key": "CPU", "kernel": "add_out", "origin": "yaml",
     "definition": {"file": "aten/src/ATen/native/BinaryOps.cpp", "line": 14},
     "stubs": ["add_stub"], "registered": ["add_kernel"], "device_functions": [], "launches": ["cpu_kernel"],
     "library": [], "dtypes": ["ALL_TYPES,Half,BFloat16"], "dtype_union": "all+half+bf16"},
    {"key": "CUDA", "kernel": "add_out", "origin": "yaml",
     "definition": {"file": "aten/src/ATen/native/BinaryOps.cpp", "line": 14},
     "stubs": ["add_stub"], "registered": ["add_kernel_cuda_impl"], "device_functions": [],
     "launches": ["add_kernel_cuda <<<>>>"], "library": [], "dtypes": ["FLOATING_TYPES"], "dtype_union": "float"},
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
        "  CPU: add_out BinaryOps.cpp:14 -> add_stub -> add_kernel -> cpu_kernel | dtypes all+half+bf16",  # AVX512's nullptr is no kernel
        "  CUDA: add_out BinaryOps.cpp:14 -> add_stub -> add_kernel_cuda_impl -> add_kernel_cuda <<<>>> | dtypes float"]
    # the keys that share a chain are listed in the data, each naming the first
    add = json.loads(query(mini_db, "kernels-for", "add.Tensor", "--brief", "--json"))
    assert [(k["key"], k.get("same_as")) for k in add["keys"]][-2:] == [("SparseCPU", None), ("SparseCUDA", "SparseCPU")]
    assert add["backward"] == [{"file": "tools/autograd/derivatives.yaml", "line": 2, "from_op": "add.Tensor",
                                "applies_as": "exact"}]


def test_trace_brief_names_the_path_and_each_overloads_keys(mini_db: Path):
    assert query(mini_db, "trace", "nn.Linear", "--brief") == (
        "nn.Linear = torch.nn.Linear\n"
        "  path: Linear -> forward -> add_tensor\n"
        "  op add.Tensor  via torch.ops.aten.add.Tensor  decomp torch._decomp.decompositions.add\n"
        "    add.Tensor  native_functions.yaml:2  CPU:ufunc_add_CPU, CUDA:ufunc_add_CUDA, Meta:structured_add_Tensor, "
        "MPS:add_out_mps, SparseCPU:add_sparse, SparseCUDA:add_sparse\n")
    data = json.loads(query(mini_db, "trace", "nn.Linear", "--brief", "--json"))
    assert data["path"] == ["torch.nn.modules.linear.Linear", "torch.nn.modules.linear.Linear.forward",
                            "torch.nn.functional.add_tensor"]
    assert data["ops"][0]["overloads"][0]["keys"]["CPU"] == "ufunc_add_CPU"


def test_ops_for_brief_groups_keys_per_op_and_kernel(mini_db: Path):
    assert query(mini_db, "ops-for", "add_kernel_cuda", "--brief") == (
        "sub.out                                  CUDA                       add_out\n")
    assert json.loads(query(mini_db, "ops-for", "add_kernel_cuda", "--brief", "--json")) == [
        {"op": "sub.out", "kernel": "add_out", "keys": ["CUDA"]}]


def test_a_page_without_the_key_a_chain_is_shared_with_shows_the_key_whole(mini_db: Path):
    """MCP pages an answer by keys: SparseCUDA's line stands alone when SparseCPU is on another page."""
    from dataclasses import replace

    from tg_index.queries import brief
    from tg_index.queries.api import Index
    from tg_index.queries.render import kernels_for_text

    [answer] = Index.open(mini_db).kernels_for("add.Tensor")
    page = replace(answer, keys=tuple(k for k in answer.keys if k.key == "SparseCUDA"))
    assert page.keys[0].same_as == "SparseCPU"
    assert brief.brief("kernels_for", [page])[1].splitlines()[1] == "  SparseCUDA: add_sparse BinaryOps.cpp:20"
    assert "  SparseCUDA     at::native::add_sparse  aten/src/ATen/native/BinaryOps.cpp:20\n" in kernels_for_text([page])
