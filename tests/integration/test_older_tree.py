"""The C++ chain and the Python trace on PyTorch 1.13.1, whose sources differ from 2.6.0 in layout and macros."""

from __future__ import annotations

import json
import subprocess

import pytest

from ..conftest import BIN
from .conftest import kernels_for_every_op


@pytest.fixture(scope="module")
def index(real_dbs):
    from tg_index.queries.api import Index

    return Index.open(real_dbs("1.13.1"))


def test_doctor_on_1_13_1(index):
    health = {k.key: k for k in index.doctor(("CPU", "CUDA", "Meta")).keys}
    for key in ("CPU", "CUDA", "Meta"):
        assert health[key].rows > 600
        assert health[key].unresolved_share <= 0.01, (key, health[key])


def test_call_edges_resolve_on_1_13_1(index):
    """Issue 11's 90% of the call sites under aten/src/ATen/native in one definition or a named class: 91.3%
    on 1.13.1 at the eleventh session's end (88.7% at its start), 92.7% at the twelfth's. 91.5% in the
    thirteenth, a correction: 1,491 `t.data_ptr<scalar_t>()` calls had gone to the non-template `void*
    data_ptr() const` (TensorBase.h:543), since no specialisation was seen; TensorMethods.cpp:20-21's
    X-macro lists now write them, and a dependent argument reaches all of them. 91.7% in the fourteenth
    (83,656 of 91,241), with argument-dependent lookup, aliased qualifiers and qualified constructors.
    91.9% in the fifteenth (84,854 of 92,374), with Objective-C++ read as C++ (cxx/objc.py).
    91.8% in the nineteenth; it falls as false guesses of an op leave the named classes for the class's own
    methods, counted as a template or overload set (`v.size()` on a vector, fc574b8; `(a0 - b0).abs()` on
    Vectorized operands, 0256f68: 91.80%), and rises as more receivers are typed (92.0% at the twentieth's end,
    85,086 of 92,529). The second bound counts the sites that end in one template or overload set or one per
    build configuration too. 2.6.0's share is test_kernels_for_real's."""
    calls = index.doctor().calls
    print("call sites", calls.sites, dict(calls.by_how))
    assert calls.sites > 85_000
    assert calls.share(calls.one_definition + calls.named_class) >= 0.918
    assert calls.share(calls.one_definition + calls.named_class + calls.several + calls.per_build) >= 0.970


def test_kernels_for_json_runs_for_every_op(real_dbs):
    assert kernels_for_every_op(real_dbs("1.13.1")) > 2900


def test_softmax_cpu_chain_on_1_13_1(index):
    """1.13.1: TORCH_IMPL_FUNC(softmax_cpu_out) calls softmax_lastdim_kernel, registered in cpu/SoftMaxKernel.cpp."""
    answer = next(a for a in index.kernels_for("_softmax.out", ("CPU",)) if a.op == "_softmax.out")
    [row] = answer.keys
    assert row.definition.file == "aten/src/ATen/native/SoftMax.cpp"
    assert row.qualified_name == "at::native::structured_softmax_cpu_out::impl"
    assert any(s.kind == "stub" and s.name == "softmax_lastdim_kernel" for s in row.chain)
    assert any(s.kind == "registered" and s.name == "softmax_lastdim_kernel_impl"
               and s.file == "aten/src/ATen/native/cpu/SoftMaxKernel.cpp" for s in row.chain)


@pytest.mark.parametrize("name, op", [("nn.LayerNorm", "layer_norm"), ("F.cross_entropy", "cross_entropy_loss"),
                                      ("torch.add", "add"), ("Tensor.matmul", "matmul"), ("nn.LSTM", "lstm"),
                                      ("torch.ops.aten.mm", "mm")])
def test_trace_on_1_13_1(real_dbs, name, op):
    out = subprocess.run([str(BIN / "tg-query"), "--db", str(real_dbs("1.13.1")), "trace", name, "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert op in [o["op"] for o in json.loads(out.stdout)["ops"]]


def test_the_kernel_among_same_named_definitions_on_1_13_1(index):
    """var.correction (native_functions.yaml:5487, `CPU, CUDA: var`, `int? correction`) is ReduceOps.cpp:1858's
    `var(..., c10::optional<int64_t> correction, bool keepdim)`, not :1811's `var(..., bool unbiased, bool
    keepdim)`; isnan (yaml:2790, `CPU, CUDA, MPS: isnan`) is TensorCompare.cpp:301 for CUDA too, not the global
    template of nvfuser's runtime source torch/csrc/jit/codegen/cuda/runtime/helpers.cu:503. The CUDA chain of
    var.correction then reaches std_var_stub's CUDA kernel (cuda/ReduceMomentKernel.cu)."""
    [var] = [a for a in index.kernels_for("var.correction", ("CUDA",)) if a.op == "var.correction"][0].keys
    assert (var.definition.file, var.definition.line) == ("aten/src/ATen/native/ReduceOps.cpp", 1858)
    assert any(s.kind == "stub" and s.name == "std_var_stub" for s in var.chain)
    assert any(s.kind == "global_kernel" for s in var.chain)
    [isnan] = [a for a in index.kernels_for("isnan", ("CUDA",)) if a.op == "isnan"][0].keys
    assert (isnan.definition.file, isnan.definition.line) == ("aten/src/ATen/native/TensorCompare.cpp", 301)


def test_elementwise_cuda_chain_follows_the_cuda_build_on_1_13_1(index):
    """1.13.1 native/cuda/Loops.cuh:77-81 includes CUDALoops.cuh under `#if !defined(USE_ROCM)` and ROCmLoops.cuh in
    its #else, and nothing else includes either; each defines gpu_kernel_impl (CUDALoops.cuh:193, ROCmLoops.cuh:302),
    called at Loops.cuh:105. add.out's CUDA chain follows the CUDA build's: gpu_kernel_impl at CUDALoops.cuh:193
    launches vectorized_elementwise_kernel (:98) defined at :59; ROCm's is named among what was not followed."""
    [add] = [a for a in index.kernels_for("add.out", ("CUDA",)) if a.op == "add.out"][0].keys
    cuda_loops = "aten/src/ATen/native/cuda/CUDALoops.cuh"
    [impl] = [s for s in add.chain if s.name == "at::native::gpu_kernel_impl"]
    assert (impl.loc.file, impl.loc.line, impl.detail) == (cuda_loops, 193, "#if !defined(USE_ROCM)")
    assert (impl.site.file, impl.site.line) == ("aten/src/ATen/native/cuda/Loops.cuh", 105)
    kernels = [(s.name, s.loc.file, s.loc.line) for s in add.chain if s.kind == "global_kernel"]
    assert kernels[0] == ("at::native::vectorized_elementwise_kernel", cuda_loops, 59)
    assert not any(s.loc is not None and s.loc.file.endswith("ROCmLoops.cuh") for s in add.chain)
    [cut] = [t for t in add.truncated if "ROCm" in t.what]
    assert any("aten/src/ATen/native/cuda/ROCmLoops.cuh:302" in n for n in cut.names)
