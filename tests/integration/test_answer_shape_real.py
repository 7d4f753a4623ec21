"""kernels-for's answer shape on real PyTorch trees: key order, shared chains, the brief form's size,
and the backward of in-place and out= forms, against the checkout's own tools/autograd.

Expected lines were read in the sources: 2.6.0 tools/autograd/derivatives.yaml:229 `add.Tensor`, :234
`add.Scalar`, :369 `bernoulli_.Tensor`, :572 `diagonal`; 1.13.1 derivatives.yaml:212 `add.Tensor`, :339
`bernoulli_.Tensor`, :533 `diagonal`; 2.6.0 native_functions.yaml:575 `add.out`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import pytest

from tg_index.queries import brief
from tg_index.queries.render import kernels_for_text

from ..conftest import real_tree

pytestmark = pytest.mark.integration

# The checkout's matching, run from its root: every op -> the ops whose derivatives.yaml entries its autograd
# kernel uses (torchgen/api/autograd.py match_differentiability_info over tools/autograd/load_derivatives.py).
_ORACLE = """
from tools.autograd.load_derivatives import load_derivatives
from torchgen.api.autograd import match_differentiability_info
from torchgen.gen import parse_native_yaml
nf, tags = "aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/tags.yaml"
infos, _ = load_derivatives("tools/autograd/derivatives.yaml", nf, tags)
for r in match_differentiability_info(parse_native_yaml(nf, tags).native_functions, infos):
    names = sorted({str(i.func.func.name) for i in r.info.values()}) if r.info else []
    print(str(r.func.func.name), ",".join(names) or "-")
"""


def _oracle(version: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": ".", "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", _ORACLE], cwd=real_tree(version), capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(line.split() for line in done.stdout.splitlines())


def test_add_out_brief_is_at_most_a_kilobyte_with_every_key(ix):
    [answer] = ix.kernels_for("add.out")
    data, text = brief.brief("kernels_for", [answer])
    assert len(text.encode()) <= 1024
    assert [k["key"] for k in data[0]["keys"]] == [
        "CPU", "CUDA", "Meta", "MPS", "SparseCPU", "SparseMeta", "SparseCUDA", "SparseCsrCPU", "SparseCsrMeta",
        "SparseCsrCUDA", "MkldnnCPU"]
    lines = text.splitlines()
    # The generated CUDA kernel runs gpu_kernel (torchgen/dest/ufunc.py:285), whose layers launch three __global__
    # kernels; the shallowest launch is in gpu_kernel_impl's contiguous branch as a CUDA build compiles it:
    # launch_unrolled_kernel (CUDALoops.cuh:361) launches unrolled_elementwise_kernel (:201, defined at :128). The
    # `#ifdef USE_ROCM` branch before it (:343-355, launch_legacy_kernel<512, 1> -> elementwise_kernel) is a ROCm
    # build's, and not followed for CUDA. A line is one path: add_out_sparse_cpu
    # calls add_out_dense_sparse_cpu (SparseTensorMath.cpp:558), whose slow path runs at::parallel_for itself
    # (SparseTensorMath.cpp:782), the shallowest launch; its workers' paths (axpy_stub, whose CPU kernel is
    # cpublas_axpy_impl: cpu/BlasKernel.cpp:533 registers it for cpublas::axpy_stub, declared at CPUBlas.h:150)
    # stay in the data. The generated CPU kernel calls cpu_kernel (and cpu_kernel_vec), whose loop lambda
    # iter.for_each runs (cpu/Loops.h:313), the shallowest launch on its line; TensorIterator.h's for_each hands the
    # loop to TensorIterator.cpp's (declared in the header, defined at :763), which runs at::parallel_for (:770): +1.
    assert lines[:6] == [
        "add.out yaml:575 structured backward derivatives.yaml:229 from add.Tensor (out=: no grad_fn)",
        "  CPU: ufunc_add_CPU [generated] -> add_stub -> add_kernel [generated] -> ufunc::add -> for_each +1 "
        "| dtypes all+complex+bool+half+bf16+chalf",
        "  CUDA: ufunc_add_CUDA [generated] -> ufunc::add -> unrolled_elementwise_kernel <<<>>> +2 | dtypes as CPU",
        "  Meta: structured_add_Tensor BinaryOps.cpp:151",
        "  MPS: add_out_mps BinaryOps.mm:416",
        "  SparseCPU, SparseMeta: add_out_sparse_cpu SparseTensorMath.cpp:556 -> parallel_for | dtypes as CPU",
    ]
    sparse = next(k for k in data[0]["keys"] if k["key"] == "SparseCPU")
    assert (sparse["stubs"][:1], sparse["registered"][:1], sparse["path"]) == (
        ["axpy_stub"], ["cpublas_axpy_impl"], ["launches"])
    # every key is on some line, each line has at most one location
    assert all(any(k in line.split(":")[0] for line in lines) for k in [k["key"] for k in data[0]["keys"]])


def test_a_cuda_line_names_the_kernel_named_for_the_op_among_those_at_one_depth(ix):
    """topk_out_cuda (cuda/TensorTopK.cpp:47) reaches launch_gather_topk_kernel (TensorTopK.cu:793), whose
    mbtopk::launch (:642) launches fill (:680) before gatherTopK (:742, __global__ at :496), and sbtopk::launch (:181)
    gatherTopK (:200, __global__ at :40); LayerNormKernelImplInternal launches RowwiseMomentsCUDAKernel (:793)
    before LayerNormForwardCUDAKernel (:797, __global__ at :93), at one depth below layer_norm_cuda."""
    text = brief.brief("kernels_for", ix.kernels_for("topk.values", keys=("CUDA",)))[1]
    assert text.splitlines()[1] == "  CUDA: topk_out_cuda TensorTopK.cpp:47 -> gatherTopK <<<>>> +14 | dtypes all+half+bf16"
    answer = next(a for a in ix.kernels_for("native_layer_norm", keys=("CUDA",)) if a.op == "native_layer_norm")
    [key] = brief.kernels_for_brief(answer)["keys"]
    assert key["launches"][:2] == ["LayerNormForwardCUDAKernel <<<>>>", "RowwiseMomentsCUDAKernel <<<>>>"]
    chain = answer.keys[0].chain
    assert ("aten/src/ATen/native/cuda/layer_norm_kernel.cu", 93) in {
        (s.file, s.line) for s in chain if s.name.endswith("::LayerNormForwardCUDAKernel")}


@pytest.mark.parametrize("tree, line", [("2.6.0", 804), ("1.13.1", 692)])
def test_a_stub_function_that_works_through_the_dispatcher_names_its_ops(ix, old, tree, line):
    """TORCH_IMPL_FUNC(isin_Tensor_Tensor_out) (2.6.0 TensorCompare.cpp:804; 1.13.1 :692) fills out (2.6.0 :815)
    and calls isin_default_stub (:816), whose CUDA function isin_default_kernel_gpu (cuda/TensorCompare.cpp:11,
    REGISTER_CUDA_DISPATCH at :21, both trees) writes `out.copy_(invert ? elements.unsqueeze(-1).ne(...).all(-1)
    : elements.unsqueeze(-1).eq(...).any(-1))` (:15-16): no kernel of its own; copy_, ne, all, eq and any do the
    work on CUDA's kernels (unsqueeze and view launch none). The CUDA line names those ops below the function, in
    the order the source writes them, and not fill_, which the kernel runs before the stub."""
    index = ix if tree == "2.6.0" else old
    text = brief.brief("kernels_for", index.kernels_for("isin.Tensor_Tensor_out", keys=("CUDA",)))[1]
    assert text.splitlines()[1] == (f"  CUDA: isin_Tensor_Tensor_out TensorCompare.cpp:{line} -> isin_default_stub "
                                    "-> isin_default_kernel_gpu => copy_, ne.Tensor, all.dim +2")
    [answer] = [a for a in index.kernels_for("isin.Tensor_Tensor_out", keys=("CUDA",))]
    assert brief.kernels_for_brief(answer)["keys"][0]["redispatches"] == [
        "copy_", "ne.Tensor", "all.dim", "eq.Tensor", "any.dim"]


@pytest.mark.parametrize("tree, line", [("2.6.0", 436), ("1.13.1", 303)])
def test_ops_for_the_generated_ufunc_kernel_finds_its_stub_s_callers(ix, old, tree, line):
    """add.out's ufunc_inner_loop (native_functions.yaml) makes torchgen write add_kernel and register it for
    add_stub on CPU and CUDA (torchgen/dest/ufunc.py:325 and :552 in 2.6.0: `REGISTER_DISPATCH({stub_sig.name},
    &{stub_sig.kernel_name})`); kernels-for shows it as `add_kernel [generated]`. TORCH_IMPL_FUNC(sub_out) calls
    add_stub (BinaryOps.cpp:436 in 2.6.0, :303 in 1.13.1), and add.out's generated CPU kernel calls it too."""
    index = ix if tree == "2.6.0" else old
    hits = {(h.op, h.key): h.path for h in index.ops_for("add_kernel")}
    for key in ("CPU", "CUDA"):
        assert hits[("sub.out", key)] == ("at::native::structured_sub_out::impl", "uses add_stub",
                                          "add_kernel [generated]")
    assert hits[("add.out", "CPU")] == ("ufunc_add_CPU [generated] -> uses add_stub", "add_kernel [generated]")
    # `stub add_stub`: declared in BinaryOps.h, defined and registered only by what torchgen writes (compute_ufunc_cpu's
    # DEFINE_DISPATCH, torchgen/dest/ufunc.py:392 in 2.6.0), shown at add.out's ufunc_inner_loop
    info = index.stub("add_stub")
    loop = 579 if tree == "2.6.0" else 508
    assert [(d.location.line, d.macro) for d in info.definitions] == [
        (loop, "DEFINE_DISPATCH [generated by torchgen from add's ufunc_inner_loop]")]
    assert [(r.device, r.kernel, r.location.line) for r in info.registrations] == [
        ("CPU", "add_kernel", loop), ("CUDA", "add_kernel", loop)]
    # the name ops-for takes is the one sub.out's chain shows below the stub call it walks up through
    [sub] = index.kernels_for("sub.out", keys=("CPU",))
    shown = [(s.kind, s.name, s.line) for s in sub.keys[0].chain if s.kind in ("stub", "registered")]
    assert shown[:2] == [("stub", "add_stub", line), ("registered", "add_kernel [generated]", shown[1][2])]


def test_a_chain_leaves_out_what_only_a_mobile_build_compiles(ix):
    """2.6.0 Activation.cpp:474 hardswish (CPU, CUDA: native_functions.yaml:11931) returns xnnpack::hardswish
    (xnnpack/Activation.cpp:104) under `#if defined(C10_MOBILE) && defined(USE_XNNPACK)` (:475), which only Android
    and iOS builds compile (c10/macros/Macros.h:434-442 define C10_MOBILE there), then runs hardswish_stub (:480).
    A CUDA build is none of them, and a CPU key's chain is a desktop or server build's (vocab.BASE_BUILD) too.
    linear's composite kernel (Linear.cpp:73, native_functions.yaml:3331) calls xnnpack::linear only under `#if
    defined(C10_MOBILE)` (:89-93), before addmm (:96). The truncation names the calls that lead to device work:
    xnnpack::use_linear (xnnpack/Linear.cpp:201) is a check whose only calls through the dispatcher looked like one
    (`weight.size(...)`, :31, which is TensorBase::size, not the op size.int), so it is not named."""
    answer = next(a for a in ix.kernels_for("hardswish", keys=("CPU", "CUDA")) if a.op == "hardswish")
    keys = {k.key: k for k in answer.keys}
    for key, device in (("CUDA", "on CUDA"), ("CPU", "on CPU")):
        names = {s.name for s in keys[key].chain}
        assert "hardswish_stub" in names and not any("xnnpack" in name for name in names)
        [cut] = [t for t in keys[key].truncated if f"never run {device}" in t.what]
        assert "Activation.cpp:475 #if defined(C10_MOBILE) && defined(USE_XNNPACK): only an Android or iOS build " \
               "(C10_MOBILE) compiles it: xnnpack::hardswish" in cut.names
    [linear] = [k for k in next(a for a in ix.kernels_for("linear") if a.op == "linear").keys
                if k.key == "CompositeImplicitAutograd"]
    assert not any("xnnpack" in s.name for s in linear.chain)
    assert ("redispatch", "addmm", 96) in {(s.kind, s.name, s.line) for s in linear.chain}
    [cut] = [t for t in linear.truncated if "never run in a desktop or server build" in t.what]
    assert cut.names[0] == ("Linear.cpp:89 #if defined(C10_MOBILE): only an Android or iOS build (C10_MOBILE) compiles "
                            "it: xnnpack::linear")


def test_a_cuda_key_runs_the_cuda_builds_definition_of_a_kernel_defined_per_build(ix):
    """2.6.0 miopen/BatchNorm_miopen.cpp defines miopen_batch_norm twice: :24 under `#if !AT_ROCM_ENABLED()` (:18), a
    TORCH_CHECK(false, ...) placeholder (:27), and :60 in the `#else`, MIOpen's. AT_ROCM_ENABLED() is USE_ROCM
    (cmake/Dependencies.cmake:1449-1456), so a CUDA build (the CUDA key, native_functions.yaml:4087) compiles the
    placeholder. cuda/linalg/BatchLinearAlgebra.cpp:2747-2759 (linalg_lstsq's CUDA gels) calls gels_batched_cublas or
    gels_looped under `#if !AT_ROCM_ENABLED()` and gels_magma (:2759) only in the `#else`."""
    [cuda] = next(a for a in ix.kernels_for("miopen_batch_norm", keys=("CUDA",)) if a.op == "miopen_batch_norm").keys
    assert (cuda.definition.file, cuda.definition.line) == ("aten/src/ATen/native/miopen/BatchNorm_miopen.cpp", 24)
    assert cuda.note == ("2 definitions of this name; chose by the key: BatchNorm_miopen.cpp:24 (#if !AT_ROCM_ENABLED(); "
                         "only raises: TORCH_CHECK); not BatchNorm_miopen.cpp:60 (#if AT_ROCM_ENABLED(); only a ROCm "
                         "build (AT_ROCM_ENABLED()) compiles it)")
    [lstsq] = next(a for a in ix.kernels_for("linalg_lstsq.out", keys=("CUDA",)) if a.op == "linalg_lstsq.out").keys
    called = {(s.name.rsplit("::", 1)[-1], s.site.line) for s in lstsq.chain if s.site is not None
              and s.site.file == "aten/src/ATen/native/cuda/linalg/BatchLinearAlgebra.cpp"}
    assert {("gels_batched_cublas", 2752), ("gels_looped", 2754)} <= called
    assert ("gels_magma", 2759) not in called  # (gels_magma's calls at :2718 and :2727 are another branch's)


def test_shared_chains_are_printed_once_and_kept_in_the_data(ix):
    [answer] = ix.kernels_for("abs.out")
    keys = {k.key: k for k in answer.keys}
    # abs_sparse_csr_out (SparseCsrTensorMath.cpp) is the kernel of the three compressed keys, and its chain
    # meets no branch on a device and no stub registered per device
    assert keys["SparseCsrCUDA"].same_as == "SparseCsrCPU" and keys["SparseCsrMeta"].same_as == "SparseCsrCPU"
    assert keys["SparseCsrMeta"].chain == keys["SparseCsrCPU"].chain and keys["SparseCsrMeta"].chain
    text = kernels_for_text([answer])
    assert "\n  SparseCsrMeta  same kernel and chain as SparseCsrCPU\n" in text
    assert text.count("at::native::abs_sparse_csr_out  ") == 1  # the kernel's line, once


def test_a_meta_key_follows_the_branches_meta_tensors_take(ix):
    [answer] = ix.kernels_for("add.out")
    keys = {k.key: k for k in answer.keys}
    # SparseTensorMath.cpp:582 `if (r.is_meta()) { return r; } else if ...`: a SparseMeta walk stops there;
    # Resize.cpp:67 `if (output.is_cpu() && ...) native_resize_(...)`: not on Meta, so SparseCsrMeta's chain is
    # SparseCsrCPU's without it
    assert keys["SparseMeta"].same_as is None and keys["SparseCsrMeta"].same_as is None
    meta = [str(t) for t in keys["SparseMeta"].truncated if "never run on Meta" in t.what]
    assert len(meta) == 1 and "SparseTensorMath.cpp:582 if (r.is_meta()): src._values, t._values, " \
        "add_out_sparse_contiguous, add_out_sparse_non_contiguous" in meta[0]
    csr = [str(t) for t in keys["SparseCsrMeta"].truncated if "never run on Meta" in t.what]
    assert csr == ["calls in branches that never run on Meta, not followed: Resize.cpp:67 if (output.is_cpu() && "
                   "!isTensorSubclassLike(output)): native_resize_"]
    assert "native_resize_" in {s.name.split("::")[-1] for s in keys["SparseCsrCPU"].chain}
    assert "native_resize_" not in {s.name.split("::")[-1] for s in keys["SparseCsrMeta"].chain}


BACKWARD_2_6 = [
    ("add.Tensor", "add.Tensor", "exact", 229), ("add_.Tensor", "add.Tensor", "in-place", 229),
    ("add.out", "add.Tensor", "out=", 229), ("add_.Scalar", "add.Scalar", "in-place", 234),
    ("bernoulli.Tensor", "bernoulli_.Tensor", "generated", 369), ("diagonal_copy", "diagonal", "view_copy", 572),
    ("_foreach_add_.Scalar", "add.Scalar", "foreach", 234),
]
BACKWARD_1_13 = [
    ("add.Tensor", "add.Tensor", "exact", 212), ("add_.Tensor", "add.Tensor", "in-place", 212),
    ("add.out", "add.Tensor", "out=", 212), ("bernoulli.Tensor", "bernoulli_.Tensor", "generated", 339),
    ("diagonal_copy", "diagonal", "view_copy", 533),
]


@pytest.mark.parametrize(("version", "cases"), [("2.6.0", BACKWARD_2_6), ("1.13.1", BACKWARD_1_13)])
def test_backward_of_variants_read_in_the_sources(request, version: str, cases: list[tuple]):
    index = request.getfixturevalue("ix" if version == "2.6.0" else "old")
    for op, from_op, use, line in cases:
        [b] = index.backward_of(op)
        assert (b.from_op, b.applies_as, str(b.location)) == (from_op, use, f"tools/autograd/derivatives.yaml:{line}"), op
    # an autogen'd out= variant gets no entry (torchgen/api/autograd.py:609); 1.13.1 has no foreach rule
    assert index.backward_of("add.Scalar_out") == ()
    if version == "1.13.1":
        assert index.backward_of("_foreach_add_.Scalar") == ()


@pytest.mark.parametrize("version", ["2.6.0", "1.13.1"])
def test_backward_equals_the_checkouts_matching_for_every_op(request, version: str):
    """The entry's op is the oracle's, except where tools/autograd builds an info of its own from another op's
    entry (a view's `_copy` variant, its out= form, a foreach op): there the entry shown is the lender's."""
    index = request.getfixturevalue("ix" if version == "2.6.0" else "old")
    oracle = _oracle(version)
    own = {r[0] for r in index.conn.execute("SELECT DISTINCT op FROM derivatives")}
    uses: Counter[str] = Counter()
    for op, want in oracle.items():
        found = index.backward_of(op)
        got = ",".join(sorted({b.from_op for b in found})) or "-"
        if want == "-" or want in own:
            assert got == want, op
        else:  # an info tools/autograd derives: it names the op itself, the entry is another op's
            assert got != "-" and {b.applies_as for b in found} <= {"view_copy", "out=", "foreach"}, (op, got)
        uses.update({b.applies_as for b in found})
    assert len(oracle) == index.conn.execute("SELECT count(*) FROM ops").fetchone()[0]
    assert uses == ({"exact": 672, "out=": 377, "in-place": 108, "foreach": 125, "view_copy": 37, "generated": 15}
                    if version == "2.6.0" else
                    {"exact": 639, "out=": 395, "in-place": 108, "view_copy": 30, "generated": 13})
