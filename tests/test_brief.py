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
     "library": [], "dtypes": ["ALL_TYPES,Half,BFloat16"], "dtype_union": "all+half+bf16",
     "path": ["stubs", "registered", "launches"]},
    {"key": "CUDA", "kernel": "add_out", "origin": "yaml",
     "definition": {"file": "aten/src/ATen/native/BinaryOps.cpp", "line": 14},
     "stubs": ["add_stub"], "registered": ["add_kernel_cuda_impl"], "device_functions": [],
     "launches": ["add_kernel_cuda <<<>>>"], "library": [], "dtypes": ["FLOATING_TYPES"], "dtype_union": "float",
     "path": ["stubs", "registered", "launches"]},
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


def _step(kind: str, name: str, depth: int, parent: int | None, detail: str | None = None):
    from tg_index.indexer.facts import Location
    from tg_index.queries.results import Step
    return Step(kind, name, Location("aten/src/ATen/native/X.cpp", 1), detail=detail, depth=depth, parent=parent)


def test_a_key_line_follows_one_path_of_the_ops_own_work():
    """topk's CUDA kernel: its own body reaches sort_stub (through a helper) and launches gatherTopK; the
    copy_ it redispatches to reaches copy_stub and a shallower elementwise_kernel. The line is one path of its
    own work: the shallowest __global__ not below the redispatch, with the stub above it (none here)."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("redispatch", "copy_", 0, None),  # 0
        _step("definition", "at::native::copy_", 0, None),  # 1: the redispatched op's kernel (below 0)
        _step("stub", "copy_stub", 1, 1),  # 2
        _step("registered", "copy_kernel_cuda", 1, 1, "CUDA"),  # 3
        _step("definition", "copy_kernel_cuda", 1, 1),  # 4
        _step("call", "topk_out_with_sort", 0, None),  # 5
        _step("call", "launch_gather_topk_kernel", 0, None),  # 6
        _step("launch", "gatherTopK", 1, 6, "<<<"),  # 7
        _step("global_kernel", "gatherTopK", 1, 6),  # 8: below the launch 7
        _step("stub", "sort_stub", 1, 5),  # 9
        _step("registered", "sort_cuda_kernel", 1, 5, "CUDA"),  # 10
        _step("definition", "sort_cuda_kernel", 1, 5),  # 11
        _step("launch", "elementwise_kernel", 2, 4, "<<<"),  # 12
        _step("global_kernel", "elementwise_kernel", 2, 4),  # 13
        _step("launch", "fill_reverse_indices_kernel", 2, 11, "<<<"),  # 14
        _step("global_kernel", "fill_reverse_indices_kernel", 2, 11),  # 15
    ]
    key = SimpleNamespace(key="CUDA", kernel="topk_out_cuda", origin="yaml", via=None, note=None, definition=None,
                          chain=chain)
    item = brief.key_brief(key)
    assert item["path"] == ["launches"]
    assert item["launches"] == ["gatherTopK <<<>>>", "fill_reverse_indices_kernel <<<>>>", "elementwise_kernel <<<>>>"]
    assert item["stubs"] == ["sort_stub", "copy_stub"]  # every stub still listed: the own work's first
    assert brief.key_brief_text(item, ["CUDA"], {}) == "  CUDA: topk_out_cuda [] -> gatherTopK <<<>>> +2"
    # without the launch, the end is fill_reverse_indices_kernel below sort_stub: the stub and its kernel show
    from dataclasses import replace
    rest = [replace(s, parent=None if s.parent is None else s.parent - 2 * (s.parent > 8)) for s in chain[9:]]
    item = brief.key_brief(SimpleNamespace(**{**vars(key), "chain": chain[:7] + rest}))
    assert item["path"] == ["stubs", "registered", "launches"]
    assert brief.key_brief_text(item, ["CUDA"], {}) == (
        "  CUDA: topk_out_cuda [] -> sort_stub +1 -> sort_cuda_kernel +1 -> fill_reverse_indices_kernel <<<>>> +1")


def test_the_dtypes_are_those_of_the_functions_on_the_line_s_path():
    """2.6.0 sort's CUDA line: its AT_DISPATCH is in launch_stable_sort_kernel (cuda/SortStable.cu:236), two levels
    below the kernel, which launches the line's __global__; a helper beside the path dispatches over other dtypes.
    The line's set is the kernel's and its registered function's, and those written on the path."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("stub", "sort_stub", 0, None),  # 0
        _step("registered", "sort_cuda_kernel", 0, None, "CUDA"),  # 1
        _step("definition", "sort_cuda_kernel", 0, None),  # 2
        _step("call", "launch_stable_sort_kernel", 1, 2),  # 3
        _step("call", "fill_slices", 1, 2),  # 4
        _step("dtypes", "launch_stable_sort_kernel", 2, 3,
              "AT_DISPATCH_ALL_TYPES_AND3(ALL_TYPES, kBool, kHalf, kBFloat16)"),  # 5
        _step("launch", "sort_postprocess_kernel", 2, 3, "<<<"),  # 6
        _step("global_kernel", "sort_postprocess_kernel", 2, 3),  # 7
        _step("dtypes", "fill_slices", 2, 4, "AT_DISPATCH_COMPLEX_TYPES(COMPLEX_TYPES)"),  # 8: beside the path
    ]
    key = SimpleNamespace(key="CUDA", kernel="sort_stable_out", origin="yaml", via=None, note=None, definition=None,
                          chain=chain)
    item = brief.key_brief(key)
    assert item["dtype_union"] == "all+bool+half+bf16"
    assert brief.key_brief_text(item, ["CUDA"], {}) == (
        "  CUDA: sort_stable_out [] -> sort_stub -> sort_cuda_kernel -> sort_postprocess_kernel <<<>>> "
        "| dtypes all+bool+half+bf16")


def test_a_float_format_conversion_ends_the_line_only_where_nothing_else_does():
    """mean's CPU kernel (2.6.0 ReduceOps.cpp:1348) works through redispatches only: `.to(sum_out_dtype)` reaches
    copy_, whose CPU body converts a float buffer to half with fbgemm::FloatToFloat16_simd (Copy.cpp:164), a
    shallower end than the reduction its at::sum_out reaches (sum_stub -> sum_kernel_impl -> binary_kernel_reduce_vec).
    The conversion is data moved: the line follows the reduction, and names the conversion only when the chain has no
    other end."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("redispatch", "to.dtype", 0, None),  # 0
        _step("definition", "at::native::to", 0, None),  # 1
        _step("library", "fbgemm::FloatToFloat16_simd", 1, 1, "fbgemm"),  # 2
        _step("redispatch", "sum.IntList_out", 0, None),  # 3
        _step("definition", "at::native::structured_sum_out::impl", 0, None),  # 4
        _step("stub", "sum_stub", 1, 4),  # 5
        _step("registered", "sum_kernel_impl", 1, 4, "CPU"),  # 6
        _step("definition", "sum_kernel_impl", 1, 4),  # 7
        _step("launch", "lambda at line 624", 2, 7, "binary_kernel_reduce_vec"),  # 8
    ]
    key = SimpleNamespace(key="CPU", kernel="mean_out", origin="yaml", via=None, note=None, definition=None,
                          chain=chain)
    item = brief.key_brief(key)
    assert item["path"] == ["stubs", "registered", "launches"]
    assert brief.key_brief_text(item, ["CPU"], {}) == \
        "  CPU: mean_out [] -> sum_stub -> sum_kernel_impl -> binary_kernel_reduce_vec"
    alone = brief.key_brief(SimpleNamespace(**{**vars(key), "chain": chain[:3]}))
    assert alone["path"] == ["library"]
    assert brief.key_brief_text(alone, ["CPU"], {}) == "  CPU: mean_out [] -> fbgemm:FloatToFloat16_simd"


def test_of_kernels_launched_at_one_depth_the_line_names_the_one_named_for_the_op():
    """2.6.0 cuda/TensorTopK.cu: mbtopk::launch (:642) launches fill (:680, __global__ at :238), then
    radixFindKthValues (:708) and the others, then gatherTopK (:742, __global__ at :496), all at one depth below
    topk_out_cuda. The line names the kernel whose name holds a word of the op's kernel (topk), not the first one
    launched, which clears a buffer; with no such name, the first (as before)."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("call", "at::native::mbtopk::launch", 0, None),  # 0
        _step("launch", "fill", 1, 0, "<<<"),  # 1
        _step("global_kernel", "at::native::mbtopk::fill", 1, 0),  # 2: below the launch 1
        _step("launch", "radixFindKthValues", 1, 0, "<<<"),  # 3
        _step("global_kernel", "at::native::mbtopk::radixFindKthValues", 1, 0),  # 4
        _step("launch", "gatherTopK", 1, 0, "<<<"),  # 5
        _step("global_kernel", "at::native::mbtopk::gatherTopK", 1, 0),  # 6
    ]
    key = SimpleNamespace(key="CUDA", kernel="topk_out_cuda", origin="yaml", via=None, note=None, definition=None,
                          chain=chain)
    item = brief.key_brief(key)
    assert item["launches"][0] == "gatherTopK <<<>>>" and item["path"] == ["launches"]
    assert brief.key_brief_text(item, ["CUDA"], {}) == "  CUDA: topk_out_cuda [] -> gatherTopK <<<>>> +2"
    other = brief.key_brief(SimpleNamespace(**{**vars(key), "kernel": "median_out_cuda"}))
    assert other["launches"][0] == "fill <<<>>>"
    # the words that name no computation (out, cuda, impl, kernel ...) match nothing
    plain = brief.key_brief(SimpleNamespace(**{**vars(key), "kernel": "fill_out_cuda_impl"}))
    assert plain["launches"][0] == "fill <<<>>>"
    assert brief.key_brief(SimpleNamespace(**{**vars(key), "kernel": "out_cuda_kernel_impl"}))["launches"][0] == \
        "fill <<<>>>"


def test_a_library_query_before_the_work_is_not_the_line_s_end():
    """2.6.0 cudnn/BatchNorm.cpp: cudnn_batch_norm asks cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize
    (:196) before cudnnBatchNormalizationForwardTrainingEx (:213) computes, both at one depth: the line names the
    computing call."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [_step("library", "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize", 0, None, "cudnn"),
             _step("library", "cudnnBatchNormalizationForwardTrainingEx", 0, None, "cudnn")]
    key = SimpleNamespace(key="CUDA", kernel="cudnn_batch_norm", origin="yaml", via=None, note=None, definition=None,
                          chain=chain)
    assert brief.key_brief_text(brief.key_brief(key), ["CUDA"], {}) == \
        "  CUDA: cudnn_batch_norm [] -> cudnn:cudnnBatchNormalizationForwardTrainingEx +1"


def test_a_composite_kernel_s_line_names_the_ops_it_redispatches_to():
    """linear's CompositeImplicitAutograd kernel (2.6.0 Linear.cpp:73) does its work through at::addmm (:96),
    at::matmul (:111) and add (:116), whose CPU and CUDA kernels run it; t (:96) does no device work. The line names
    the ops whose kernels do device work, in the order the chain meets them, not one device's end of one of them
    (conv2d's line named a backward kernel of conv_depthwise3d, three redispatches down). An own library call
    stays on the line before them."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("library", "at::native::xnnpack::internal::linear::run", 1, None, "xnnpack"),  # 0
        _step("redispatch", "addmm", 0, None),  # 1
        _step("definition", "at::native::structured_addmm_out_cuda::impl", 0, None, "addmm CUDA"),  # 2
        _step("library", "at::cuda::blas::gemm", 1, 2, "cublas"),  # 3
        _step("redispatch", "t", 0, None),  # 4
        _step("definition", "at::native::t", 0, None, "t CompositeExplicitAutograd"),  # 5
        _step("redispatch", "matmul", 0, None),  # 6
        _step("definition", "at::native::matmul", 0, None, "matmul CompositeImplicitAutograd"),  # 7
        _step("redispatch", "mm", 1, 7),  # 8
        _step("definition", "at::native::structured_mm_out_cpu::impl", 1, 7, "mm CPU"),  # 9
        _step("stub", "mm_stub", 2, 9),  # 10
        _step("redispatch", "add.Tensor", 0, None),  # 11
        _step("definition", "ufunc_add_CUDA", 0, None, "add.Tensor CUDA"),  # 12
        _step("global_kernel", "at::native::elementwise_kernel", 2, 12),  # 13
    ]
    key = SimpleNamespace(key="CompositeImplicitAutograd", kernel="linear", origin="yaml", via=None, note=None,
                          definition=None, chain=chain)
    item = brief.key_brief(key)
    assert item["redispatches"] == ["addmm", "matmul", "add.Tensor"]
    assert brief.key_brief_text(item, ["CompositeImplicitAutograd"], {}) == (
        "  CompositeImplicitAutograd: linear [] -> xnnpack:run => addmm, matmul, add.Tensor")
    bare_chain = [_step("call", "at::native::check_linear", 1, None), *chain[1:]]  # no own device work
    bare = brief.key_brief(SimpleNamespace(**{**vars(key), "chain": bare_chain}))
    assert brief.key_brief_text(bare, ["CompositeImplicitAutograd"], {}) == (
        "  CompositeImplicitAutograd: linear [] => addmm, matmul, add.Tensor")
    # a backend kernel's line goes on into its redispatches' work (as mean_out's, above): the shallowest end
    backend = brief.key_brief(SimpleNamespace(**{**vars(key), "key": "CUDA", "chain": bare_chain}))
    assert brief.key_brief_text(backend, ["CUDA"], {}) == "  CUDA: linear [] -> cublas:gemm"


def test_a_backend_kernel_whose_stub_function_works_through_the_dispatcher_names_those_ops():
    """isin.Tensor_Tensor_out's CUDA kernel (2.6.0 TensorCompare.cpp:804) calls isin_default_stub (:816), whose CUDA
    function isin_default_kernel_gpu (cuda/TensorCompare.cpp:11, registered at :21) does its work through
    unsqueeze, eq (:16), view and any: eq's and any's kernels launch the __global__ kernels, unsqueeze and view
    launch none. The line ends at the registered function and names the ops below it whose kernels do device
    work, not fill_ (:815), which the kernel calls before the stub; its lists keep only the kernel's own steps."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("redispatch", "fill_.Scalar", 0, None),  # 0
        _step("definition", "at::native::fill_", 0, None, "fill_ CUDA"),  # 1
        _step("stub", "fill_stub", 1, 1),  # 2
        _step("stub", "isin_default_stub", 0, None),  # 3
        _step("registered", "isin_default_kernel_gpu", 0, None),  # 4
        _step("definition", "at::native::isin_default_kernel_gpu", 0, None, "CUDA"),  # 5
        _step("redispatch", "unsqueeze", 1, 5),  # 6
        _step("definition", "at::native::unsqueeze", 1, 5, "unsqueeze CompositeExplicitAutograd"),  # 7
        _step("redispatch", "eq.Tensor", 1, 5),  # 8
        _step("definition", "at::native::structured_eq_Tensor_out::impl", 1, 5, "eq.Tensor CUDA"),  # 9
        _step("stub", "eq_stub", 2, 9),  # 10
        _step("registered", "eq_kernel_cuda", 2, 9),  # 11
        _step("global_kernel", "at::native::vectorized_elementwise_kernel", 4, 11),  # 12
        _step("redispatch", "view", 1, 5),  # 13
        _step("redispatch", "any.dim", 1, 5),  # 14
        _step("definition", "at::native::structured_any_out::impl", 1, 5, "any.dim CUDA"),  # 15
        _step("global_kernel", "at::native::reduce_kernel", 3, 15),  # 16
    ]
    key = SimpleNamespace(key="CUDA", kernel="isin_Tensor_Tensor_out", origin="yaml", via=None, note=None,
                          definition=None, chain=chain)
    item = brief.key_brief(key)
    assert item["redispatches"] == ["eq.Tensor", "any.dim"]
    assert item["stubs"] == ["isin_default_stub"] and item["path"] == ["stubs", "registered"]
    assert brief.key_brief_text(item, ["CUDA"], {}) == (
        "  CUDA: isin_Tensor_Tensor_out [] -> isin_default_stub -> isin_default_kernel_gpu => eq.Tensor, any.dim")
    # its own __global__ kernel ends the line as before, and no op is named
    own_work = [*chain, _step("global_kernel", "at::native::isin_kernel", 1, 5)]
    item = brief.key_brief(SimpleNamespace(**{**vars(key), "chain": own_work}))
    assert "redispatches" not in item
    assert brief.key_brief_text(item, ["CUDA"], {}) == (  # (its lists name the redispatches' stubs, functions and
        # kernels too, after the path's: +N)
        "  CUDA: isin_Tensor_Tensor_out [] -> isin_default_stub +2 -> isin_default_kernel_gpu +1 -> isin_kernel <<<>>> +2")


def test_a_gpu_library_s_host_call_is_device_work_beside_the_kernels():
    """mm's CUDA kernel (2.6.0 cuda/Blas.cpp:599) calls at::cuda::blas::gemm, which calls cublasLtMatmul
    (CUDABlas.cpp) or, when TunableOp is on, tunes through cuda/tunable, whose tuning launches flush_icache_kernel.
    The GEMM's host call is the work: a GPU library's (cuBLAS, cuSOLVER, cuFFT, cuDNN, MAGMA ...) ends the line
    before any __global__ kernel, at any depth (2.6.0 cuda/linalg/BatchLinearAlgebra.cpp's lu_solve_kernel applies
    the pivots with an elementwise kernel one level above cuSOLVER's getrs, which is the solve). A cuRAND or Thrust
    call made in device code (curand_uniform2_double in a __device__ lambda) stays behind the kernel that runs it."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    gemm = [
        _step("call", "at::cuda::blas::gemm", 0, None),  # 0
        _step("library", "cublasLtMatmul", 2, 0, "cublaslt"),  # 1
        _step("call", "at::cuda::tunable::TunableOp::operator()", 1, 0),  # 2
        _step("launch", "flush_icache_kernel", 3, 2),  # 3
        _step("global_kernel", "at::cuda::tunable::flush_icache_kernel", 3, 3),  # 4
        _step("library", "cublasLtMatmulAlgoGetHeuristic", 1, 0, "cublaslt"),  # 5: a query, no end
    ]
    key = SimpleNamespace(key="CUDA", kernel="mm_out_cuda", origin="yaml", via=None, note=None, definition=None,
                          chain=gemm)
    assert brief.key_brief_text(brief.key_brief(key), ["CUDA"], {}) == "  CUDA: mm_out_cuda [] -> cublaslt:cublasLtMatmul +1"
    rng = [
        _step("call", "at::native::templates::cuda::uniform_and_transform", 0, None),  # 0
        _step("library", "curand_uniform2_double", 1, 0, "curand"),  # 1
        _step("launch", "distribution_nullary_kernel", 1, 0),  # 2
        _step("global_kernel", "at::native::distribution_elementwise_grid_stride_kernel", 2, 2),  # 3
    ]
    key = SimpleNamespace(**{**vars(key), "kernel": "normal_", "chain": rng})
    assert brief.key_brief_text(brief.key_brief(key), ["CUDA"], {}) == \
        "  CUDA: normal_ [] -> distribution_elementwise_grid_stride_kernel <<<>>>"
    solve = [
        _step("stub", "lu_solve_stub", 0, None),  # 0
        _step("registered", "lu_solve_kernel", 0, None, "CUDA"),  # 1
        _step("definition", "at::native::lu_solve_kernel", 0, None),  # 2
        _step("launch", "_elementwise_kernel", 1, 2, "<<<grid, num_threads, 0, stream>>>"),  # 3: the pivots
        _step("global_kernel", "at::native::_elementwise_kernel", 1, 2),  # 4
        _step("call", "at::native::lu_solve_looped_cusolver", 1, 2),  # 5
        _step("library", "cusolverDnDgetrs", 2, 5, "cusolver"),  # 6
    ]
    key = SimpleNamespace(**{**vars(key), "kernel": "linalg_lu_solve_out", "chain": solve})
    assert brief.key_brief_text(brief.key_brief(key), ["CUDA"], {}) == \
        "  CUDA: linalg_lu_solve_out [] -> lu_solve_stub -> lu_solve_kernel -> cusolver:cusolverDnDgetrs"


def test_a_blas_or_lapack_call_ends_a_cpu_line_before_a_launch_helper():
    """lu_factor's CPU kernel (2.6.0 cpu/BatchLinearAlgebraKernel.cpp apply_lu_factor) runs LAPACK's ?getrf_
    (BatchLinearAlgebra.cpp:lapackLu) from the lambda that at::parallel_for runs: the launch helper is nearer the
    kernel, the LAPACK routine is the work. A oneDNN call is no such routine: the shallowest end stays."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("stub", "lu_factor_stub", 0, None),  # 0
        _step("registered", "lu_factor_kernel", 0, None, "CPU"),  # 1
        _step("definition", "lu_factor_kernel", 0, None),  # 2
        _step("launch", "lambda at line 960", 1, 2, "parallel_for"),  # 3
        _step("call", "at::native::lapackLu", 2, 3),  # 4
        _step("library", "zgetrf_", 3, 4, "lapack"),  # 5
    ]
    key = SimpleNamespace(key="CPU", kernel="linalg_lu_factor_ex_out", origin="yaml", via=None, note=None,
                          definition=None, chain=chain)
    assert brief.key_brief_text(brief.key_brief(key), ["CPU"], {}) == \
        "  CPU: linalg_lu_factor_ex_out [] -> lu_factor_stub -> lu_factor_kernel -> parallel_for -> lapack:zgetrf_"
    onednn = [*chain[:5], _step("library", "ideep::inner_product_forward::compute", 3, 4, "onednn")]
    key = SimpleNamespace(**{**vars(key), "chain": onednn})
    assert brief.key_brief_text(brief.key_brief(key), ["CPU"], {}) == \
        "  CPU: linalg_lu_factor_ex_out [] -> lu_factor_stub -> lu_factor_kernel -> parallel_for"


def test_a_dispatch_over_index_types_is_no_data_dtype_set_by_its_set_or_its_macro_s_name():
    # 2.6.0 cuda/Loss.cu:308 AT_DISPATCH_NLL_LOSS_INDEX_TYPES, a file-local wrapper whose set is Byte and Long (the
    # target's index dtypes), beside :302's AT_DISPATCH_FLOATING_TYPES_AND2 of the data
    from types import SimpleNamespace

    from tg_index.queries import brief

    def dtypes(detail: str):
        return SimpleNamespace(kind="dtypes", name="kernel", detail=detail)

    steps = [dtypes("AT_DISPATCH_FLOATING_TYPES_AND2(FLOATING_TYPES, at::ScalarType::Half, at::ScalarType::BFloat16)"),
             dtypes("AT_DISPATCH_NLL_LOSS_INDEX_TYPES(at::ScalarType::Byte, at::ScalarType::Long)"),
             dtypes("AT_DISPATCH_INDEX_TYPES(INDEX_TYPES)"),
             dtypes("AT_DISPATCH_MY_LAYOUTS(MY_LAYOUTS)")]
    assert brief.dtype_union(steps) == "float+half+bf16"
    assert brief.dtype_union(steps[1:2]) == ""


def test_a_kernel_launched_as_one_thread_ends_the_line_only_where_nothing_else_does():
    """2.6.0 transformers/cuda/attention.cu:748, _scaled_dot_product_cudnn_attention_cuda: it launches
    unpack_cudnn<<<1, 1, 0, stream>>> (:810, __global__ at :737) to unpack the seeds, and its work is cuDNN's
    mha_graph->execute (cudnn/MHA.cpp:713) in run_cudnn_SDP_fprop (:817), one level deeper. A launch of one thread
    is bookkeeping: the line names the cuDNN call, and names such a kernel only when the chain has no other end."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("call", "at::native::run_cudnn_SDP_fprop", 0, None),  # 0
        _step("library", "mha_graph->execute", 1, 0, "cudnn"),  # 1
        _step("launch", "unpack_cudnn", 0, None, "<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>"),  # 2
        _step("global_kernel", "at::native::unpack_cudnn", 0, None),  # 3: below the launch 2
    ]
    key = SimpleNamespace(key="CUDA", kernel="_scaled_dot_product_cudnn_attention_cuda", origin="yaml", via=None,
                          note=None, definition=None, chain=chain)
    item = brief.key_brief(key)
    assert item["path"] == ["library"]
    assert brief.key_brief_text(item, ["CUDA"], {}) == \
        "  CUDA: _scaled_dot_product_cudnn_attention_cuda [] -> cudnn:mha_graph->execute"
    alone = brief.key_brief(SimpleNamespace(**{**vars(key), "chain": chain[2:]}))
    assert alone["path"] == ["launches"]
    assert brief.key_brief_text(alone, ["CUDA"], {}) == \
        "  CUDA: _scaled_dot_product_cudnn_attention_cuda [] -> unpack_cudnn <<<>>>"


def test_of_ends_at_one_depth_the_line_follows_the_one_below_the_kernel_s_stub():
    """2.6.0 GridSampler.cpp:919, grid_sampler_2d_cpu: a quantized branch calls _grid_sampler_2d_cpu_quantized
    (:446), whose lambda at::parallel_for runs (:493); the kernel's work is grid_sampler_2d_cpu_kernel (:953),
    registered as grid_sampler_2d_cpu_kernel_impl (cpu/GridSamplerKernel.cpp:1315, :1141), whose own parallel_for
    lambda (:1190) is at the same depth. The line follows the stub's path, not the branch met first."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("call", "at::native::_grid_sampler_2d_cpu_quantized", 0, None),  # 0
        _step("stub", "grid_sampler_2d_cpu_kernel", 0, None),  # 1
        _step("registered", "grid_sampler_2d_cpu_kernel_impl", 0, None, "DEFAULT"),  # 2
        _step("definition", "at::native::grid_sampler_2d_cpu_kernel_impl", 0, None),  # 3
        _step("launch", "lambda at line 493", 1, 0, "parallel_for"),  # 4
        _step("launch", "lambda at line 1190", 1, 3, "parallel_for"),  # 5
    ]
    key = SimpleNamespace(key="CPU", kernel="grid_sampler_2d_cpu", origin="yaml", via=None, note=None,
                          definition=None, chain=chain)
    item = brief.key_brief(key)
    assert item["path"] == ["stubs", "registered", "launches"]
    assert brief.key_brief_text(item, ["CPU"], {}) == \
        "  CPU: grid_sampler_2d_cpu [] -> grid_sampler_2d_cpu_kernel -> grid_sampler_2d_cpu_kernel_impl -> parallel_for"


def test_a_launch_helper_gives_way_to_a_stub_named_for_the_work():
    """2.6.0 TensorShape.cpp:594, cat_out_cpu: copy_stub's kernel runs a launch helper (cpu/CopyKernel.cpp) as shallow
    as anything below cat_serial_stub (:620), whose kernel's loop (cpu/CatKernel.cpp cat_serial_kernel_impl) runs no
    launch helper. A line that would end at a launch helper below no stub named for the kernel's work goes down the
    stub that is (a word of cat_out_cpu: cat), to the end below it or else its registered function."""
    from types import SimpleNamespace

    from tg_index.queries import brief
    chain = [
        _step("stub", "copy_stub", 0, None),  # 0
        _step("registered", "copy_kernel", 0, None, "DEFAULT"),  # 1
        _step("definition", "at::native::copy_kernel", 0, None),  # 2
        _step("stub", "cat_serial_stub", 0, None),  # 3
        _step("registered", "cat_serial_kernel", 0, None, "DEFAULT"),  # 4
        _step("definition", "at::native::cat_serial_kernel", 0, None),  # 5
        _step("launch", "lambda at line 12", 1, 2, "cpu_kernel_vec"),  # 6: copy_kernel's
    ]
    key = SimpleNamespace(key="CPU", kernel="cat_out_cpu", origin="yaml", via=None, note=None, definition=None,
                          chain=chain)
    item = brief.key_brief(key)
    assert item["path"] == ["stubs", "registered"]
    assert brief.key_brief_text(item, ["CPU"], {}) == "  CPU: cat_out_cpu [] -> cat_serial_stub +1 -> cat_serial_kernel +1"
    # below the named stub, its own launch helper is the end
    more = chain + [_step("launch", "lambda at line 40", 1, 5, "parallel_for")]  # 7: cat_serial_kernel's
    item = brief.key_brief(SimpleNamespace(**{**vars(key), "chain": more}))
    assert brief.key_brief_text(item, ["CPU"], {}) == \
        "  CPU: cat_out_cpu [] -> cat_serial_stub +1 -> cat_serial_kernel +1 -> parallel_for +1"
    # a kernel whose name says nothing of either stub keeps the shallowest end
    other = brief.key_brief(SimpleNamespace(**{**vars(key), "kernel": "stack_out_cpu"}))
    assert brief.key_brief_text(other, ["CPU"], {}) == \
        "  CPU: stack_out_cpu [] -> copy_stub +1 -> copy_kernel +1 -> cpu_kernel_vec"
