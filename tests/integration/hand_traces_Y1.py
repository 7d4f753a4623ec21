"""Hand-verified kernels-for traces (helper Y1): for each op and dispatch key, the chain a kernel engineer
writes down after reading the sources, every step with its file:line. Read with grep -n and sed -n in the
2.6.0 and 1.13.1 trees, never taken from tg-query. Line conventions: a function at the line of its name in
the declarator (TORCH_IMPL_FUNC / TORCH_META_FUNC: the macro's line), a __global__ kernel at its name, a
launch at the `<<<`, a call where the callee's name is written, DECLARE/DEFINE/REGISTER_* and AT_DISPATCH_*
at the macro's line. A step marked "generated" names code PyTorch writes at build time, at the yaml line
it comes from."""

from __future__ import annotations

from .hand_traces_model import Expect, Trace

N = "aten/src/ATen/native/"
CU = N + "cuda/"
CPU = N + "cpu/"
YAML = N + "native_functions.yaml"
DERIV = "tools/autograd/derivatives.yaml"

# gpu_kernel (cuda/Loops.cuh) -> gpu_kernel_impl -> gpu_kernel_impl_nocast -> launch_vectorized_kernel ->
# <<<>>> vectorized_elementwise_kernel (cuda/CUDALoops.cuh), read in 2.6.0's two headers.
GPU_KERNEL = (
    Expect("gpu_kernel", CU + "Loops.cuh:101", "helper"),
    Expect("gpu_kernel_impl", CU + "Loops.cuh:120", "call"),
    Expect("gpu_kernel_impl", CU + "CUDALoops.cuh:321", "helper"),
    Expect("gpu_kernel_impl_nocast", CU + "CUDALoops.cuh:323", "call"),
    Expect("gpu_kernel_impl_nocast", CU + "CUDALoops.cuh:289", "helper"),
    Expect("launch_vectorized_kernel", CU + "CUDALoops.cuh:309", "call"),
    Expect("launch_vectorized_kernel", CU + "CUDALoops.cuh:145", "helper"),
    Expect("vectorized_elementwise_kernel", CU + "CUDALoops.cuh:159", "launch"),
    Expect("vectorized_elementwise_kernel", CU + "CUDALoops.cuh:92", "__global__"),
)

# cpu_kernel_vec (cpu/Loops.h) -> make_vectorized_loop2d -> VectorizedLoop2d::operator() -> vectorized_loop,
# and basic_loop for the strided case, read in 2.6.0's cpu/Loops.h.
CPU_KERNEL_VEC = (
    Expect("cpu_kernel_vec", CPU + "Loops.h:342", "helper"),
    Expect("make_vectorized_loop2d", CPU + "Loops.h:353", "call"),
    Expect("VectorizedLoop2d::operator()", CPU + "Loops.h:269", "functor"),
    Expect("vectorized_loop", CPU + "Loops.h:276", "call"),
    Expect("vectorized_loop", CPU + "Loops.h:200", "cpu loop"),
    Expect("basic_loop", CPU + "Loops.h:116", "cpu loop"),
)

# gpu_reduce_kernel (cuda/Reduce.cuh) -> launch_reduce_kernel -> <<<>>> reduce_kernel, whose body runs ReduceOp::run.
GPU_REDUCE = (
    Expect("gpu_reduce_kernel", CU + "Reduce.cuh:1173", "helper"),
    Expect("launch_reduce_kernel", CU + "Reduce.cuh:1273", "call"),
    Expect("launch_reduce_kernel", CU + "Reduce.cuh:881", "helper"),
    Expect("reduce_kernel", CU + "Reduce.cuh:890", "launch"),
    Expect("reduce_kernel", CU + "Reduce.cuh:898", "launch"),
    Expect("reduce_kernel", CU + "Reduce.cuh:221", "__global__"),
)

# The same helper layers in 1.13.1, where gpu_kernel_impl has no _nocast split.
GPU_KERNEL_1_13 = (
    Expect("gpu_kernel", CU + "Loops.cuh:86", "helper"),
    Expect("gpu_kernel_impl", CU + "Loops.cuh:105", "call"),
    Expect("gpu_kernel_impl", CU + "CUDALoops.cuh:193", "helper"),
    Expect("launch_vectorized_kernel", CU + "CUDALoops.cuh:214", "call"),
    Expect("launch_vectorized_kernel", CU + "CUDALoops.cuh:89", "helper"),
    Expect("vectorized_elementwise_kernel", CU + "CUDALoops.cuh:98", "launch"),
    Expect("vectorized_elementwise_kernel", CU + "CUDALoops.cuh:59", "__global__"),
)
CPU_KERNEL_VEC_1_13 = (
    Expect("cpu_kernel_vec", CPU + "Loops.h:339", "helper"),
    Expect("make_vectorized_loop2d", CPU + "Loops.h:350", "call"),
    Expect("VectorizedLoop2d::operator()", CPU + "Loops.h:266", "functor"),
    Expect("vectorized_loop", CPU + "Loops.h:273", "call"),
    Expect("vectorized_loop", CPU + "Loops.h:197", "cpu loop"),
    Expect("basic_loop", CPU + "Loops.h:113", "cpu loop"),
)
GPU_REDUCE_1_13 = (
    Expect("gpu_reduce_kernel", CU + "Reduce.cuh:1132", "helper"),
    Expect("launch_reduce_kernel", CU + "Reduce.cuh:1217", "call"),
    Expect("launch_reduce_kernel", CU + "Reduce.cuh:881", "helper"),
    Expect("reduce_kernel", CU + "Reduce.cuh:890", "launch"),
    Expect("reduce_kernel", CU + "Reduce.cuh:898", "launch"),
    Expect("reduce_kernel", CU + "Reduce.cuh:224", "__global__"),
)

TRACES = [
    # exp.out: native_functions.yaml:2579 `CPU, CUDA: exp_out`; UnaryOps.cpp CREATE_UNARY_TORCH_IMPL_FUNC and
    # CREATE_UNARY_FLOAT_META_FUNC lines, UnaryOps.h DECLARE_DISPATCH, cuda/UnaryOpsKernel.cu, then GPU_KERNEL.
    Trace(tree="2.6.0", op="exp.out", key="CUDA", why="elementwise unary via TensorIterator and a stub",
          steps=(Expect("exp_out", N + "UnaryOps.cpp:334", "kernel"),
                 Expect("exp", N + "UnaryOps.cpp:195", "meta"),
                 Expect("exp_stub", N + "UnaryOps.h:46", "stub declared"),
                 Expect("exp_stub", N + "UnaryOps.cpp:999", "stub defined"),
                 Expect("exp_stub", N + "UnaryOps.cpp:334", "stub called"),
                 Expect("exp_kernel_cuda", CU + "UnaryOpsKernel.cu:279", "registered"),
                 Expect("exp_kernel_cuda", CU + "UnaryOpsKernel.cu:38", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "UnaryOpsKernel.cu:63", "dtypes"),
                 Expect("gpu_kernel", CU + "UnaryOpsKernel.cu:64", "call"),
                 *GPU_KERNEL,
                 Expect("exp", DERIV + ":652", "backward"))),
    # sigmoid.out CPU: UnaryOps.cpp:347 and :206, UnaryOps.h:67, cpu/UnaryOpsKernel.cpp sigmoid_kernel (:36) and
    # its ALSO_REGISTER_AVX512_DISPATCH (:849), then cpu/Loops.h.
    Trace(tree="2.6.0", op="sigmoid.out", key="CPU", why="elementwise unary on CPU down to the vectorized loop",
          steps=(Expect("sigmoid_out", N + "UnaryOps.cpp:347", "kernel"),
                 Expect("sigmoid", N + "UnaryOps.cpp:206", "meta"),
                 Expect("sigmoid_stub", N + "UnaryOps.h:67", "stub declared"),
                 Expect("sigmoid_stub", N + "UnaryOps.cpp:1023", "stub defined"),
                 Expect("sigmoid_kernel", CPU + "UnaryOpsKernel.cpp:849", "registered"),
                 Expect("sigmoid_kernel", CPU + "UnaryOpsKernel.cpp:36", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES", CPU + "UnaryOpsKernel.cpp:54", "dtypes"),
                 Expect("cpu_kernel_vec", CPU + "UnaryOpsKernel.cpp:55", "call"),
                 *CPU_KERNEL_VEC,
                 Expect("sigmoid", DERIV + ":1512", "backward"))),
    # add.out CPU: native_functions.yaml:579 ufunc_inner_loop (torchgen/dest/ufunc.py writes ufunc_add_CPU,
    # DEFINE_DISPATCH(add_stub) and add_kernel's REGISTER_DISPATCH, whose body is cpu_kernel_vec over
    # ufunc::add); BinaryOps.h:56, BinaryOps.cpp:151, ufunc/add.h.
    Trace(tree="2.6.0", op="add.out", key="CPU", why="a ufunc op: generated kernel, stub, ufunc::add, cpu loop",
          steps=(Expect("ufunc_add_CPU", YAML + ":579", "generated"),
                 Expect("add", N + "BinaryOps.cpp:151", "meta"),
                 Expect("add_stub", N + "BinaryOps.h:56", "stub declared"),
                 Expect("add_kernel", YAML + ":579", "generated"),
                 Expect("ufunc::add", N + "ufunc/add.h:15", "scalar op"),
                 Expect("ufunc::add", N + "ufunc/add.h:22", "vector op"),
                 *CPU_KERNEL_VEC,
                 Expect("add.Tensor", DERIV + ":229", "backward"))),
    # add.out CUDA: the same yaml lines; torchgen/dest/ufunc.py writes a CUDAFunctor_add over ufunc::add and
    # calls gpu_kernel on it; then GPU_KERNEL.
    Trace(tree="2.6.0", op="add.out", key="CUDA", why="a ufunc op on CUDA: generated functor to the __global__",
          steps=(Expect("ufunc_add_CUDA", YAML + ":579", "generated"),
                 Expect("add", N + "BinaryOps.cpp:151", "meta"),
                 Expect("ufunc::add", N + "ufunc/add.h:15", "device op"),
                 *GPU_KERNEL,
                 Expect("add.Tensor", DERIV + ":229", "backward"))),
    # mul.out CUDA: native_functions.yaml:4239; BinaryOps.cpp TORCH_META_FUNC2(mul, Tensor) :166,
    # TORCH_IMPL_FUNC(mul_out) :440 calling mul_stub :443, DEFINE_DISPATCH :378; BinaryOps.h:60;
    # cuda/BinaryMulKernel.cu mul_kernel_cuda -> opmath_symmetric_gpu_kernel_with_scalars (cuda/Loops.cuh:199)
    # -> gpu_kernel(BinaryFunctor) :231, then GPU_KERNEL; MulFunctor in cuda/BinaryInternal.h:29.
    Trace(tree="2.6.0", op="mul.out", key="CUDA", why="elementwise binary through the with_scalars helper",
          steps=(Expect("mul_out", N + "BinaryOps.cpp:440", "kernel"),
                 Expect("mul", N + "BinaryOps.cpp:166", "meta"),
                 Expect("mul_stub", N + "BinaryOps.h:60", "stub declared"),
                 Expect("mul_stub", N + "BinaryOps.cpp:378", "stub defined"),
                 Expect("mul_stub", N + "BinaryOps.cpp:443", "stub called"),
                 Expect("mul_kernel_cuda", CU + "BinaryMulKernel.cu:46", "registered"),
                 Expect("mul_kernel_cuda", CU + "BinaryMulKernel.cu:22", "registered function"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3", CU + "BinaryMulKernel.cu:37", "dtypes"),
                 Expect("opmath_symmetric_gpu_kernel_with_scalars", CU + "BinaryMulKernel.cu:40", "call"),
                 Expect("opmath_symmetric_gpu_kernel_with_scalars", CU + "Loops.cuh:199", "helper"),
                 Expect("gpu_kernel", CU + "Loops.cuh:231", "call"),
                 Expect("MulFunctor", CU + "BinaryInternal.h:28", "functor"),
                 *GPU_KERNEL,
                 Expect("mul.Tensor", DERIV + ":1212", "backward"))),
    # sum.IntList_out CUDA: native_functions.yaml:5806; ReduceOps.cpp TORCH_META_FUNC2(sum, dim_IntList) :276,
    # TORCH_IMPL_FUNC(sum_out) :1197 calling sum_stub :1218; ReduceOps.h:20; cuda/ReduceSumProdKernel.cu
    # sum_kernel_cuda -> reduce_dispatch / sum_functor -> gpu_reduce_kernel, then GPU_REDUCE.
    Trace(tree="2.6.0", op="sum.IntList_out", key="CUDA", why="a reduction through gpu_reduce_kernel",
          steps=(Expect("sum_out", N + "ReduceOps.cpp:1197", "kernel"),
                 Expect("sum", N + "ReduceOps.cpp:276", "meta"),
                 Expect("sum_stub", N + "ReduceOps.h:20", "stub declared"),
                 Expect("sum_stub", N + "ReduceOps.cpp:429", "stub defined"),
                 Expect("sum_stub", N + "ReduceOps.cpp:1218", "stub called"),
                 Expect("sum_kernel_cuda", CU + "ReduceSumProdKernel.cu:211", "registered"),
                 Expect("sum_kernel_cuda", CU + "ReduceSumProdKernel.cu:173", "registered function"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2", CU + "ReduceSumProdKernel.cu:175", "dtypes"),
                 Expect("reduce_dispatch", CU + "ReduceSumProdKernel.cu:181", "call"),
                 Expect("reduce_dispatch", CU + "ReduceSumProdKernel.cu:158", "helper"),
                 Expect("sum_functor::operator()", CU + "ReduceSumProdKernel.cu:15", "functor"),
                 Expect("gpu_reduce_kernel", CU + "ReduceSumProdKernel.cu:16", "call"),
                 *GPU_REDUCE,
                 Expect("sum.dim_IntList", DERIV + ":1687", "backward"))),
    # max.dim_max CPU: native_functions.yaml:3851; TensorCompare.cpp TORCH_PRECOMPUTE_META_FUNC2(max, dim) :248,
    # TORCH_IMPL_FUNC(max_out) :645 hands max_stub to minmax_out_impl (:627), which calls the stub it is given;
    # cpu/TensorCompareKernel.cpp max_kernel_impl -> compare_base_kernel -> compare_base_kernel_core (the loop).
    Trace(tree="2.6.0", op="max.dim_max", key="CPU", why="a reduction with indices; the stub is passed as an argument",
          steps=(Expect("max_out", N + "TensorCompare.cpp:645", "kernel"),
                 Expect("max", N + "TensorCompare.cpp:248", "meta"),
                 Expect("minmax_out_impl", N + "TensorCompare.cpp:651", "call"),
                 Expect("minmax_out_impl", N + "TensorCompare.cpp:627", "helper"),
                 Expect("max_stub", N + "TensorCompare.h:22", "stub declared"),
                 Expect("max_stub", N + "TensorCompare.cpp:272", "stub defined"),
                 Expect("max_stub", N + "TensorCompare.cpp:651", "stub passed"),
                 Expect("max_kernel_impl", CPU + "TensorCompareKernel.cpp:403", "registered"),
                 Expect("max_kernel_impl", CPU + "TensorCompareKernel.cpp:134", "registered function"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND3", CPU + "TensorCompareKernel.cpp:142", "dtypes"),
                 Expect("compare_base_kernel", CPU + "TensorCompareKernel.cpp:143", "call"),
                 Expect("compare_base_kernel", CPU + "TensorCompareKernel.cpp:74", "cpu loop"),
                 Expect("compare_base_kernel_core", CPU + "TensorCompareKernel.cpp:97", "call"),
                 Expect("compare_base_kernel_core", CPU + "TensorCompareKernel.cpp:32", "helper"),
                 Expect("max.dim", DERIV + ":1115", "backward"))),
    # cumsum.out CUDA: native_functions.yaml:2028; ReduceOps.cpp TORCH_META_FUNC(cumsum) :266, TORCH_IMPL_FUNC
    # (cumsum_out) :491 -> impl_func_cum_ops (:475) with cumsum_stub; cuda/ScanKernels.cpp registration and
    # cumsum_cuda_kernel; cuda/CumsumKernel.cu; cuda/ScanUtils.cuh scan_dim: cub for 1-d, else the two kernels.
    Trace(tree="2.6.0", op="cumsum.out", key="CUDA", why="a scan: cub or the innermost/outer scan kernels",
          steps=(Expect("cumsum_out", N + "ReduceOps.cpp:491", "kernel"),
                 Expect("cumsum", N + "ReduceOps.cpp:266", "meta"),
                 Expect("impl_func_cum_ops", N + "ReduceOps.cpp:496", "call"),
                 Expect("impl_func_cum_ops", N + "ReduceOps.cpp:475", "helper"),
                 Expect("cumsum_stub", N + "ReduceOps.h:44", "stub declared"),
                 Expect("cumsum_stub", N + "ReduceOps.cpp:441", "stub defined"),
                 Expect("cumsum_stub", N + "ReduceOps.cpp:496", "stub passed"),
                 Expect("cumsum_cuda_kernel", CU + "ScanKernels.cpp:107", "registered"),
                 Expect("cumsum_cuda_kernel", CU + "ScanKernels.cpp:91", "registered function"),
                 Expect("launch_cumsum_cuda_kernel", CU + "ScanKernels.cpp:93", "call"),
                 Expect("launch_cumsum_cuda_kernel", CU + "CumsumKernel.cu:10", "helper"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2", CU + "CumsumKernel.cu:11", "dtypes"),
                 Expect("scan_dim", CU + "CumsumKernel.cu:16", "call"),
                 Expect("scan_dim", CU + "ScanUtils.cuh:443", "helper"),
                 Expect("inclusive_scan", CU + "ScanUtils.cuh:462", "vendor call"),
                 Expect("scan_innermost_dim", CU + "ScanUtils.cuh:465", "call"),
                 Expect("scan_innermost_dim", CU + "ScanUtils.cuh:416", "helper"),
                 Expect("tensor_kernel_scan_innermost_dim", CU + "ScanUtils.cuh:435", "launch"),
                 Expect("tensor_kernel_scan_innermost_dim", CU + "ScanUtils.cuh:371", "__global__"),
                 Expect("scan_outer_dim", CU + "ScanUtils.cuh:467", "call"),
                 Expect("scan_outer_dim", CU + "ScanUtils.cuh:390", "helper"),
                 Expect("tensor_kernel_scan_outer_dim", CU + "ScanUtils.cuh:409", "launch"),
                 Expect("tensor_kernel_scan_outer_dim", CU + "ScanUtils.cuh:271", "__global__"),
                 Expect("cumsum", DERIV + ":529", "backward"))),
    # topk.values CUDA: native_functions.yaml:10136; Sorting.cpp TORCH_META_FUNC(topk) :54; cuda/TensorTopK.cpp
    # TORCH_IMPL_FUNC(topk_out_cuda); cuda/TensorTopK.cu launch_gather_topk_kernel, whose file-local macros
    # RUN_T (AT_DISPATCH) -> RUN_DIM -> RUN_MB pick sbtopk::launch or mbtopk::launch; each launches its kernels.
    Trace(tree="2.6.0", op="topk.values", key="CUDA", why="topk: kernels launched through file-local macros",
          steps=(Expect("topk_out_cuda", CU + "TensorTopK.cpp:47", "kernel"),
                 Expect("topk", N + "Sorting.cpp:54", "meta"),
                 Expect("launch_gather_topk_kernel", CU + "TensorTopK.cpp:67", "call"),
                 Expect("launch_gather_topk_kernel", CU + "TensorTopK.cu:793", "helper"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND2", CU + "TensorTopK.cu:838", "dtypes"),
                 Expect("sbtopk::launch", CU + "TensorTopK.cu:823", "call"),
                 Expect("sbtopk::launch", CU + "TensorTopK.cu:181", "helper"),
                 Expect("gatherTopK", CU + "TensorTopK.cu:200", "launch"),
                 Expect("gatherTopK", CU + "TensorTopK.cu:40", "__global__"),
                 Expect("mbtopk::launch", CU + "TensorTopK.cu:821", "call"),
                 Expect("mbtopk::launch", CU + "TensorTopK.cu:642", "helper"),
                 Expect("radixFindKthValues", CU + "TensorTopK.cu:708", "launch"),
                 Expect("radixFindKthValues", CU + "TensorTopK.cu:249", "__global__"),
                 Expect("computeBlockwiseWithinKCounts", CU + "TensorTopK.cu:724", "launch"),
                 Expect("computeBlockwiseWithinKCounts", CU + "TensorTopK.cu:400", "__global__"),
                 Expect("gatherTopK", CU + "TensorTopK.cu:742", "launch"),
                 Expect("gatherTopK", CU + "TensorTopK.cu:496", "__global__"),
                 Expect("sortKeyValueInplace", CU + "TensorTopK.cpp:76", "call"),
                 Expect("topk", DERIV + ":1754", "backward"))),
    # sort.values_stable CUDA: native_functions.yaml:10086; Sorting.cpp TORCH_META_FUNC2(sort, stable) :73,
    # TORCH_IMPL_FUNC(sort_stable_out) :940 calling sort_stub :953; Sorting.h:23; cuda/Sort.cpp sort_cuda_kernel:
    # small slices to sortKeyValueInplace (cuda/Sort.cu), else launch_stable_sort_kernel (cuda/SortStable.cu)
    # and its three segmented paths to cub and the fill kernels.
    Trace(tree="2.6.0", op="sort.values_stable", key="CUDA", why="sort: in-place bitonic/radix or cub segmented sort",
          steps=(Expect("sort_stable_out", N + "Sorting.cpp:940", "kernel"),
                 Expect("sort", N + "Sorting.cpp:73", "meta"),
                 Expect("sort_stub", N + "Sorting.h:23", "stub declared"),
                 Expect("sort_stub", N + "Sorting.cpp:92", "stub defined"),
                 Expect("sort_stub", N + "Sorting.cpp:953", "stub called"),
                 Expect("sort_cuda_kernel", CU + "Sort.cpp:122", "registered"),
                 Expect("sort_cuda_kernel", CU + "Sort.cpp:41", "registered function"),
                 Expect("sortKeyValueInplace", CU + "Sort.cpp:79", "call"),
                 Expect("sortKeyValueInplace", CU + "Sort.cu:361", "helper"),
                 Expect("sortCommon", CU + "Sort.cu:372", "call"),
                 Expect("sortCommon", CU + "Sort.cu:279", "helper"),
                 Expect("launch_stable_sort_kernel", CU + "Sort.cpp:109", "call"),
                 Expect("launch_stable_sort_kernel", CU + "SortStable.cu:218", "helper"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND3", CU + "SortStable.cu:236", "dtypes"),
                 Expect("segmented_sort_large_segments", CU + "SortStable.cu:248", "call"),
                 Expect("segmented_sort_large_segments", CU + "SortStable.cu:103", "helper"),
                 Expect("radix_sort_pairs", CU + "SortStable.cu:123", "vendor call"),
                 Expect("segmented_sort_pairs", CU + "SortStable.cu:266", "call"),
                 Expect("segmented_sort_pairs", CU + "SortStable.cu:183", "helper"),
                 Expect("fill_reverse_indices_kernel", CU + "SortStable.cu:201", "launch"),
                 Expect("fill_reverse_indices_kernel", CU + "SortStable.cu:93", "__global__"),
                 Expect("segmented_sort_pairs", CU + "SortStable.cu:204", "vendor call"),
                 Expect("sort.stable", DERIV + ":1587", "backward"))),
    # index_select.out CUDA: native_functions.yaml:9215; cuda/Indexing.cu index_select_out_cuda -> AT_DISPATCH_V2 ->
    # index_select_out_cuda_impl, whose file-local SMALL_INDEX / LARGE_INDEX macros launch the two kernels.
    Trace(tree="2.6.0", op="index_select.out", key="CUDA", why="indexing: kernels launched from file-local macros",
          steps=(Expect("index_select_out_cuda", CU + "Indexing.cu:1598", "kernel"),
                 Expect("AT_DISPATCH_V2", CU + "Indexing.cu:1623", "dtypes"),
                 Expect("index_select_out_cuda_impl", CU + "Indexing.cu:1627", "call"),
                 Expect("index_select_out_cuda_impl", CU + "Indexing.cu:1456", "helper"),
                 Expect("AT_DISPATCH_INDEX_TYPES", CU + "Indexing.cu:1540", "dtypes"),
                 Expect("indexSelectSmallIndex", CU + "Indexing.cu:1502", "launch"),
                 Expect("indexSelectSmallIndex", CU + "Indexing.cu:1354", "__global__"),
                 Expect("indexSelectLargeIndex", CU + "Indexing.cu:1512", "launch"),
                 Expect("indexSelectLargeIndex", CU + "Indexing.cu:1397", "__global__"),
                 Expect("index_select", DERIV + ":901", "backward"))),
    # index_add.out CUDA: native_functions.yaml:8115; TensorAdvancedIndexing.cpp TORCH_PRECOMPUTE_META_FUNC
    # (index_add) :378; cuda/Indexing.cu TORCH_IMPL_FUNC(index_add_cuda_out) -> index_add_cuda_impl, whose
    # SMALL_INDEX / LARGE_INDEX macros launch indexFuncSmallIndex / indexFuncLargeIndex.
    Trace(tree="2.6.0", op="index_add.out", key="CUDA", why="indexing with accumulation",
          steps=(Expect("index_add_cuda_out", CU + "Indexing.cu:1310", "kernel"),
                 Expect("index_add", N + "TensorAdvancedIndexing.cpp:378", "meta"),
                 Expect("index_add_cuda_impl", CU + "Indexing.cu:1312", "call"),
                 Expect("index_add_cuda_impl", CU + "Indexing.cu:984", "helper"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4", CU + "Indexing.cu:1057", "dtypes"),
                 Expect("indexFuncSmallIndex", CU + "Indexing.cu:1029", "launch"),
                 Expect("indexFuncSmallIndex", CU + "Indexing.cu:856", "__global__"),
                 Expect("indexFuncLargeIndex", CU + "Indexing.cu:1039", "launch"),
                 Expect("indexFuncLargeIndex", CU + "Indexing.cu:905", "__global__"),
                 Expect("index_add", DERIV + ":853", "backward"))),
    # gather.out CUDA: native_functions.yaml:9298; TensorAdvancedIndexing.cpp TORCH_META_FUNC(gather) :158,
    # TORCH_IMPL_FUNC(gather_out) :1639 calling gather_stub; TensorAdvancedIndexing.h:31;
    # cuda/ScatterGatherKernel.cu gather_cuda_kernel -> the TensorAssign overload of
    # cuda_scatter_gather_base_kernel::operator() (chosen by the argument's type) -> the internal kernel ->
    # _launch_scatter_gather_kernel -> <<<>>> _scatter_gather_elementwise_kernel; TensorAssign is the device op.
    Trace(tree="2.6.0", op="gather.out", key="CUDA", why="gather: functor overload by type, elementwise launch",
          steps=(Expect("gather_out", N + "TensorAdvancedIndexing.cpp:1639", "kernel"),
                 Expect("gather", N + "TensorAdvancedIndexing.cpp:158", "meta"),
                 Expect("gather_stub", N + "TensorAdvancedIndexing.h:31", "stub declared"),
                 Expect("gather_stub", N + "TensorAdvancedIndexing.cpp:488", "stub defined"),
                 Expect("gather_stub", N + "TensorAdvancedIndexing.cpp:1646", "stub called"),
                 Expect("gather_cuda_kernel", CU + "ScatterGatherKernel.cu:565", "registered"),
                 Expect("gather_cuda_kernel", CU + "ScatterGatherKernel.cu:471", "registered function"),
                 Expect("cuda_scatter_gather_base_kernel", CU + "ScatterGatherKernel.cu:472", "call"),
                 Expect("cuda_scatter_gather_base_kernel::operator()", CU + "ScatterGatherKernel.cu:219", "functor"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3", CU + "ScatterGatherKernel.cu:263", "dtypes"),
                 Expect("_cuda_scatter_gather_internal_kernel", CU + "ScatterGatherKernel.cu:270", "call"),
                 Expect("_cuda_scatter_gather_internal_kernel::operator()", CU + "ScatterGatherKernel.cu:119",
                        "functor"),
                 Expect("_launch_scatter_gather_kernel", CU + "ScatterGatherKernel.cu:155", "call"),
                 Expect("_launch_scatter_gather_kernel", CU + "ScatterGatherKernel.cu:102", "helper"),
                 Expect("_scatter_gather_elementwise_kernel", CU + "ScatterGatherKernel.cu:111", "launch"),
                 Expect("_scatter_gather_elementwise_kernel", CU + "ScatterGatherKernel.cu:88", "__global__"),
                 Expect("TensorAssign::operator()", CU + "ScatterGatherKernel.cu:72", "device op"),
                 Expect("gather", DERIV + ":730", "backward"))),
    # native_layer_norm CUDA: native_functions.yaml:3290; cuda/layer_norm_kernel.cu layer_norm_cuda calls
    # LayerNormKernelImpl directly (the stub's CUDA registration at :1462 names the same function) ->
    # LayerNormKernelImplInternal: the vectorized kernel, or RowwiseMoments + LayerNormForward.
    Trace(tree="2.6.0", op="native_layer_norm", key="CUDA", why="normalisation: direct call, three kernels",
          steps=(Expect("layer_norm_cuda", CU + "layer_norm_kernel.cu:1334", "kernel"),
                 Expect("LayerNormKernelImpl", CU + "layer_norm_kernel.cu:1368", "call"),
                 Expect("LayerNormKernelImpl", CU + "layer_norm_kernel.cu:803", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "layer_norm_kernel.cu:813", "dtypes"),
                 Expect("LayerNormKernelImplInternal", CU + "layer_norm_kernel.cu:820", "call"),
                 Expect("LayerNormKernelImplInternal", CU + "layer_norm_kernel.cu:757", "helper"),
                 Expect("launch_vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:790", "call"),
                 Expect("launch_vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:733", "helper"),
                 Expect("vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:751", "launch"),
                 Expect("vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:300", "__global__"),
                 Expect("RowwiseMomentsCUDAKernel", CU + "layer_norm_kernel.cu:794", "launch"),
                 Expect("RowwiseMomentsCUDAKernel", CU + "layer_norm_kernel.cu:54", "__global__"),
                 Expect("LayerNormForwardCUDAKernel", CU + "layer_norm_kernel.cu:797", "launch"),
                 Expect("LayerNormForwardCUDAKernel", CU + "layer_norm_kernel.cu:93", "__global__"),
                 Expect("native_layer_norm", DERIV + ":1255", "backward"))),
    # native_batch_norm CUDA: native_functions.yaml:4341; cuda/Normalization.cu batch_norm_cuda ->
    # batch_norm_cuda_out -> batch_norm_mean_var (statistics) and batch_norm_elementwise (transform), each
    # switching on batch_norm_choose_impl; the contiguous templates and kernels are in cuda/Normalization.cuh.
    Trace(tree="2.6.0", op="native_batch_norm", key="CUDA", why="normalisation: statistics then transform",
          steps=(Expect("batch_norm_cuda", CU + "Normalization.cu:461", "kernel"),
                 Expect("batch_norm_cuda_out", CU + "Normalization.cu:469", "call"),
                 Expect("batch_norm_cuda_out", CU + "Normalization.cu:435", "helper"),
                 Expect("batch_norm_mean_var", CU + "Normalization.cu:441", "call"),
                 Expect("batch_norm_mean_var", CU + "Normalization.cu:306", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "Normalization.cu:311", "dtypes"),
                 Expect("batch_norm_stats_cuda_template", CU + "Normalization.cu:313", "call"),
                 Expect("batch_norm_stats_cuda_template", CU + "Normalization.cuh:661", "helper"),
                 Expect("batch_norm_collect_statistics_kernel", CU + "Normalization.cuh:688", "launch"),
                 Expect("batch_norm_collect_statistics_kernel", CU + "Normalization.cuh:269", "__global__"),
                 Expect("batch_norm_elementwise", CU + "Normalization.cu:457", "call"),
                 Expect("batch_norm_elementwise", CU + "Normalization.cu:97", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "Normalization.cu:105", "dtypes"),
                 Expect("batch_norm_elemt_cuda_template", CU + "Normalization.cu:110", "call"),
                 Expect("batch_norm_elemt_cuda_template", CU + "Normalization.cuh:694", "helper"),
                 Expect("batch_norm_transform_input_kernel", CU + "Normalization.cuh:730", "launch"),
                 Expect("batch_norm_transform_input_kernel", CU + "Normalization.cuh:212", "__global__"),
                 Expect("native_batch_norm", DERIV + ":1234", "backward"))),
    # native_group_norm CPU: native_functions.yaml:2985; group_norm.cpp native_group_norm calls the GroupNormKernel
    # stub (group_norm.h:38, group_norm.cpp:209); cpu/group_norm_kernel.cpp GroupNormKernelImpl -> the
    # contiguous and channels-last internals; RowwiseMoments in cpu/moments_utils.h is the inner loop.
    Trace(tree="2.6.0", op="native_group_norm", key="CPU", why="normalisation on CPU down to the moments loop",
          steps=(Expect("native_group_norm", N + "group_norm.cpp:61", "kernel"),
                 Expect("GroupNormKernel", N + "group_norm.h:38", "stub declared"),
                 Expect("GroupNormKernel", N + "group_norm.cpp:209", "stub defined"),
                 Expect("GroupNormKernel", N + "group_norm.cpp:99", "stub called"),
                 Expect("GroupNormKernelImpl", CPU + "group_norm_kernel.cpp:1587", "registered"),
                 Expect("GroupNormKernelImpl", CPU + "group_norm_kernel.cpp:484", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CPU + "group_norm_kernel.cpp:499", "dtypes"),
                 Expect("GroupNormKernelImplInternal", CPU + "group_norm_kernel.cpp:502", "call"),
                 Expect("GroupNormKernelImplInternal", CPU + "group_norm_kernel.cpp:29", "cpu loop"),
                 Expect("RowwiseMoments", CPU + "group_norm_kernel.cpp:61", "call"),
                 Expect("RowwiseMoments", CPU + "moments_utils.h:182", "helper"),
                 Expect("RowwiseMomentsImpl", CPU + "moments_utils.h:189", "call"),
                 Expect("RowwiseMomentsImpl", CPU + "moments_utils.h:110", "cpu loop"),
                 Expect("GroupNormKernelImplChannelsLastInternal", CPU + "group_norm_kernel.cpp:516", "call"),
                 Expect("GroupNormKernelImplChannelsLastInternal", CPU + "group_norm_kernel.cpp:284", "cpu loop"),
                 Expect("native_group_norm", DERIV + ":1265", "backward"))),
    # max_pool2d_with_indices.out CUDA: native_functions.yaml:12359; DilatedMaxPool2d.cpp TORCH_META_FUNC :18;
    # cuda/DilatedMaxPool2d.cu TORCH_IMPL_FUNC(max_pool2d_with_indices_out_cuda): one AT_DISPATCH, a switch on the
    # memory format launching the NHWC or the NCHW kernel.
    Trace(tree="2.6.0", op="max_pool2d_with_indices.out", key="CUDA", why="pooling: kernel chosen by memory format",
          steps=(Expect("max_pool2d_with_indices_out_cuda", CU + "DilatedMaxPool2d.cu:294", "kernel"),
                 Expect("max_pool2d_with_indices", N + "DilatedMaxPool2d.cpp:18", "meta"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "DilatedMaxPool2d.cu:346", "dtypes"),
                 Expect("max_pool_forward_nhwc", CU + "DilatedMaxPool2d.cu:388", "launch"),
                 Expect("max_pool_forward_nhwc", CU + "DilatedMaxPool2d.cu:84", "__global__"),
                 Expect("max_pool_forward_nchw", CU + "DilatedMaxPool2d.cu:403", "launch"),
                 Expect("max_pool_forward_nchw", CU + "DilatedMaxPool2d.cu:45", "__global__"),
                 Expect("max_pool2d_with_indices", DERIV + ":2359", "backward"))),
    # avg_pool2d.out CPU: native_functions.yaml:12241; AveragePool2d.cpp TORCH_PRECOMPUTE_META_FUNC :17 and
    # TORCH_IMPL_FUNC :152 calling avg_pool2d_kernel (Pool.h:26); cpu/AvgPoolKernel.cpp avg_pool2d_kernel_impl
    # switches on the memory format; cpu_avg_pool2d_channels_last has two enable_if overloads.
    Trace(tree="2.6.0", op="avg_pool2d.out", key="CPU", why="pooling on CPU: stub, then the loops per layout",
          steps=(Expect("avg_pool2d_out_cpu", N + "AveragePool2d.cpp:152", "kernel"),
                 Expect("avg_pool2d", N + "AveragePool2d.cpp:17", "meta"),
                 Expect("avg_pool2d_kernel", N + "Pool.h:26", "stub declared"),
                 Expect("avg_pool2d_kernel", N + "AveragePool2d.cpp:213", "stub defined"),
                 Expect("avg_pool2d_kernel", N + "AveragePool2d.cpp:164", "stub called"),
                 Expect("avg_pool2d_kernel_impl", CPU + "AvgPoolKernel.cpp:1133", "registered"),
                 Expect("avg_pool2d_kernel_impl", CPU + "AvgPoolKernel.cpp:496", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND3", CPU + "AvgPoolKernel.cpp:506", "dtypes"),
                 Expect("cpu_avg_pool2d", CPU + "AvgPoolKernel.cpp:507", "call"),
                 Expect("cpu_avg_pool2d", CPU + "AvgPoolKernel.cpp:17", "cpu loop"),
                 Expect("cpu_avg_pool2d_channels_last", CPU + "AvgPoolKernel.cpp:513", "call"),
                 Expect("cpu_avg_pool2d_channels_last", CPU + "AvgPoolKernel.cpp:104", "cpu loop"),
                 Expect("cpu_avg_pool2d_channels_last", CPU + "AvgPoolKernel.cpp:218", "cpu loop"),
                 Expect("avg_pool2d", DERIV + ":2325", "backward"))),
    # upsample_bilinear2d.out CUDA: native_functions.yaml:12687; UpSampleBilinear2d.cpp TORCH_META_FUNC :26;
    # cuda/UpSampleBilinear2d.cu TORCH_IMPL_FUNC :847 -> upsample_bilinear2d_out_cuda_template (static) -> NHWC
    # or NCHW kernel.
    Trace(tree="2.6.0", op="upsample_bilinear2d.out", key="CUDA", why="upsampling: a static template, two kernels",
          steps=(Expect("upsample_bilinear2d_out_cuda", CU + "UpSampleBilinear2d.cu:847", "kernel"),
                 Expect("upsample_bilinear2d", N + "UpSampleBilinear2d.cpp:26", "meta"),
                 Expect("upsample_bilinear2d_out_cuda_template", CU + "UpSampleBilinear2d.cu:854", "call"),
                 Expect("upsample_bilinear2d_out_cuda_template", CU + "UpSampleBilinear2d.cu:262", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "UpSampleBilinear2d.cu:286", "dtypes"),
                 Expect("upsample_bilinear2d_nhwc_out_frame", CU + "UpSampleBilinear2d.cu:321", "launch"),
                 Expect("upsample_bilinear2d_nhwc_out_frame", CU + "UpSampleBilinear2d.cu:84", "__global__"),
                 Expect("upsample_bilinear2d_out_frame", CU + "UpSampleBilinear2d.cu:349", "launch"),
                 Expect("upsample_bilinear2d_out_frame", CU + "UpSampleBilinear2d.cu:35", "__global__"),
                 Expect("upsample_bilinear2d", DERIV + ":2251", "backward"))),
    # nll_loss_forward.output CUDA: native_functions.yaml:11656; LossNLL.cpp TORCH_META_FUNC(nll_loss_forward) :37;
    # cuda/Loss.cu TORCH_IMPL_FUNC :592 -> nll_loss_forward_out_cuda_template: three kernels by reduction and
    # rank, index dtypes through the file-local AT_DISPATCH_NLL_LOSS_INDEX_TYPES (#define at :159).
    Trace(tree="2.6.0", op="nll_loss_forward.output", key="CUDA", why="a loss: three kernels, a file-local dtype macro",
          steps=(Expect("nll_loss_forward_out_cuda", CU + "Loss.cu:592", "kernel"),
                 Expect("nll_loss_forward", N + "LossNLL.cpp:37", "meta"),
                 Expect("nll_loss_forward_out_cuda_template", CU + "Loss.cu:601", "call"),
                 Expect("nll_loss_forward_out_cuda_template", CU + "Loss.cu:276", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "Loss.cu:302", "dtypes"),
                 Expect("AT_DISPATCH_NLL_LOSS_INDEX_TYPES", CU + "Loss.cu:308", "dtypes"),
                 Expect("AT_DISPATCH_NLL_LOSS_INDEX_TYPES", CU + "Loss.cu:159", "dtype macro defined"),
                 Expect("nll_loss_forward_no_reduce_cuda_kernel", CU + "Loss.cu:313", "launch"),
                 Expect("nll_loss_forward_no_reduce_cuda_kernel", CU + "Loss.cu:172", "__global__"),
                 Expect("nll_loss_forward_reduce_cuda_kernel_1d", CU + "Loss.cu:360", "launch"),
                 Expect("nll_loss_forward_reduce_cuda_kernel_1d", CU + "Loss.cu:194", "__global__"),
                 Expect("nll_loss_forward_reduce_cuda_kernel_2d", CU + "Loss.cu:386", "launch"),
                 Expect("nll_loss_forward_reduce_cuda_kernel_2d", CU + "Loss.cu:230", "__global__"),
                 Expect("nll_loss_forward", DERIV + ":2067", "backward"))),
    # mse_loss.out CUDA: native_functions.yaml:11561; Loss.cpp TORCH_META_FUNC(mse_loss) :90, TORCH_IMPL_FUNC
    # (mse_loss_out) :128: mse_stub on a temporary, then at::mean_out / at::sum_out redispatch to mean.out and
    # sum.IntList_out, whose CUDA kernels are mean_out / sum_out in ReduceOps.cpp; cuda/BinaryMiscOpsKernels.cu.
    Trace(tree="2.6.0", op="mse_loss.out", key="CUDA", why="a loss: elementwise stub, then reductions by redispatch",
          steps=(Expect("mse_loss_out", N + "Loss.cpp:128", "kernel"),
                 Expect("mse_loss", N + "Loss.cpp:90", "meta"),
                 Expect("mse_stub", N + "BinaryOps.h:91", "stub declared"),
                 Expect("mse_stub", N + "Loss.cpp:109", "stub defined"),
                 Expect("mse_stub", N + "Loss.cpp:133", "stub called"),
                 Expect("mse_kernel_cuda", CU + "BinaryMiscOpsKernels.cu:74", "registered"),
                 Expect("mse_kernel_cuda", CU + "BinaryMiscOpsKernels.cu:35", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "BinaryMiscOpsKernels.cu:36", "dtypes"),
                 Expect("gpu_kernel", CU + "BinaryMiscOpsKernels.cu:37", "call"),
                 *GPU_KERNEL,
                 Expect("mean", N + "Loss.cpp:135", "redispatch"),
                 Expect("mean_out", N + "ReduceOps.cpp:1348", "redispatched kernel"),
                 Expect("sum", N + "Loss.cpp:137", "redispatch"),
                 Expect("sum_out", N + "ReduceOps.cpp:1197", "redispatched kernel"),
                 Expect("mse_loss", DERIV + ":2054", "backward"))),
    # binary_cross_entropy CUDA: native_functions.yaml:1151; cuda/Loss.cu binary_cross_entropy_cuda calls
    # at::native::binary_cross_entropy_out_cuda (a direct C++ call, not a redispatch), which runs gpu_kernel.
    Trace(tree="2.6.0", op="binary_cross_entropy", key="CUDA", why="a loss: functional kernel calling its out form",
          steps=(Expect("binary_cross_entropy_cuda", CU + "Loss.cu:65", "kernel"),
                 Expect("binary_cross_entropy_out_cuda", CU + "Loss.cu:71", "call"),
                 Expect("binary_cross_entropy_out_cuda", CU + "Loss.cu:75", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "Loss.cu:87", "dtypes"),
                 Expect("gpu_kernel", CU + "Loss.cu:88", "call"),
                 *GPU_KERNEL,
                 Expect("binary_cross_entropy", DERIV + ":1993", "backward"))),
    # var.correction_out CPU: native_functions.yaml:6462 names var_out, which ReduceOps.cpp overloads four times;
    # the (self, dim, correction, keepdim, result) one at :2084 -> std_var_out (static, :1836): the all-reduce
    # std_var_all_cpu or std_var_stub; cpu/ReduceOpsKernel.cpp std_var_kernel_impl -> binary_kernel_reduce
    # (cpu/Reduce.h) over WelfordOps (SharedReduceOps.h:97), deduced from ReduceOpsKernel.cpp:140's argument: its
    # reduce (:102) at Reduce.h:217 and combine (:117) at Reduce.h:243 are the loop's functions.
    Trace(tree="2.6.0", op="var.correction_out", key="CPU", why="a reduction named by an overloaded kernel",
          steps=(Expect("var_out", N + "ReduceOps.cpp:2084", "kernel"),
                 Expect("std_var_out", N + "ReduceOps.cpp:2087", "call"),
                 Expect("std_var_out", N + "ReduceOps.cpp:1836", "helper"),
                 Expect("std_var_all_cpu", N + "ReduceOps.cpp:1901", "call"),
                 Expect("std_var_all_cpu", N + "ReduceOps.cpp:1777", "cpu loop"),
                 Expect("std_var_stub", N + "ReduceOps.h:33", "stub declared"),
                 Expect("std_var_stub", N + "ReduceOps.cpp:431", "stub defined"),
                 Expect("std_var_stub", N + "ReduceOps.cpp:1903", "stub called"),
                 Expect("std_var_kernel_impl", CPU + "ReduceOpsKernel.cpp:430", "registered"),
                 Expect("std_var_kernel_impl", CPU + "ReduceOpsKernel.cpp:138", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CPU + "ReduceOpsKernel.cpp:139", "dtypes"),
                 Expect("binary_kernel_reduce", CPU + "ReduceOpsKernel.cpp:140", "call"),
                 Expect("binary_kernel_reduce", CPU + "Reduce.h:185", "cpu loop"),
                 Expect("WelfordOps::reduce", N + "SharedReduceOps.h:102", "loop function"),
                 Expect("WelfordOps::combine", N + "SharedReduceOps.h:117", "loop function"),
                 Expect("var.correction", DERIV + ":1896", "backward"))),
    # _cdist_forward CUDA: native_functions.yaml:4482; Distance.cpp _cdist_forward -> cdist_impl (static) ->
    # cdist_stub (Distance.h:17, Distance.cpp:45); cuda/DistanceKernel.cu cdist_kernel_impl picks the kernel into
    # a function pointer (impl_fptr = cdist_kernel_cuda_impl<scalar_t, dists<scalar_t>::...>) by p, then
    # launches `impl_fptr<<<...>>>`.
    Trace(tree="2.6.0", op="_cdist_forward", key="CUDA", why="kernel launched through a pointer set by if/else",
          steps=(Expect("_cdist_forward", N + "Distance.cpp:178", "kernel"),
                 Expect("cdist_impl", N + "Distance.cpp:185", "call"),
                 Expect("cdist_impl", N + "Distance.cpp:81", "helper"),
                 Expect("cdist_stub", N + "Distance.h:17", "stub declared"),
                 Expect("cdist_stub", N + "Distance.cpp:45", "stub defined"),
                 Expect("cdist_stub", N + "Distance.cpp:145", "stub called"),
                 Expect("cdist_kernel_impl", CU + "DistanceKernel.cu:362", "registered"),
                 Expect("cdist_kernel_impl", CU + "DistanceKernel.cu:213", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_TYPES", CU + "DistanceKernel.cu:223", "dtypes"),
                 Expect("cdist_kernel_cuda_impl", CU + "DistanceKernel.cu:234", "launch through a function pointer"),
                 Expect("cdist_kernel_cuda_impl", CU + "DistanceKernel.cu:188", "__global__"),
                 Expect("_cdist_forward", DERIV + ":1333", "backward"))),
    # scatter.src_out CPU: native_functions.yaml:8204; TensorAdvancedIndexing.cpp TORCH_META_FUNC2(scatter, src)
    # :215, TORCH_IMPL_FUNC(scatter_src_out) :1841 hands scatter_stub to the scatter_impl template (:1791), which
    # calls it as fill_stub; cpu/ScatterGatherKernel.cpp scatter_cpu_kernel -> the (Tensor src, func_t) overload
    # of cpu_scatter_gather_base_kernel::operator() (the Scalar and ReduceMean ones do not fit) -> the dim loop.
    Trace(tree="2.6.0", op="scatter.src_out", key="CPU", why="scatter on CPU: stub passed to a template, overloads",
          steps=(Expect("scatter_src_out", N + "TensorAdvancedIndexing.cpp:1841", "kernel"),
                 Expect("scatter", N + "TensorAdvancedIndexing.cpp:215", "meta"),
                 Expect("scatter_impl", N + "TensorAdvancedIndexing.cpp:1847", "call"),
                 Expect("scatter_impl", N + "TensorAdvancedIndexing.cpp:1791", "helper"),
                 Expect("scatter_stub", N + "TensorAdvancedIndexing.h:32", "stub declared"),
                 Expect("scatter_stub", N + "TensorAdvancedIndexing.cpp:489", "stub defined"),
                 Expect("scatter_stub", N + "TensorAdvancedIndexing.cpp:1849", "stub passed"),
                 Expect("scatter_cpu_kernel", CPU + "ScatterGatherKernel.cpp:958", "registered"),
                 Expect("scatter_cpu_kernel", CPU + "ScatterGatherKernel.cpp:881", "registered function"),
                 Expect("cpu_scatter_gather_base_kernel", CPU + "ScatterGatherKernel.cpp:882", "call"),
                 Expect("cpu_scatter_gather_base_kernel::operator()", CPU + "ScatterGatherKernel.cpp:265", "functor"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3", CPU + "ScatterGatherKernel.cpp:295", "dtypes"),
                 Expect("_cpu_scatter_gather_dim_loop::operator()", CPU + "ScatterGatherKernel.cpp:314", "call"),
                 Expect("_cpu_scatter_gather_dim_loop::operator()", CPU + "ScatterGatherKernel.cpp:103", "cpu loop"),
                 Expect("TensorAssign::operator()", CPU + "ScatterGatherKernel.cpp:93", "cpu op"),
                 Expect("scatter.src", DERIV + ":1483", "backward"))),
    # -- 1.13.1: the same chains in the older tree, every line read again there --
    # sigmoid.out CPU: native_functions.yaml:4569; UnaryOps.cpp :201 and :60; UnaryOps.h:59;
    # cpu/UnaryOpsKernel.cpp (a plain REGISTER_DISPATCH here); cpu/Loops.h.
    Trace(tree="1.13.1", op="sigmoid.out", key="CPU", why="elementwise unary on CPU in the older tree",
          steps=(Expect("sigmoid_out", N + "UnaryOps.cpp:201", "kernel"),
                 Expect("sigmoid", N + "UnaryOps.cpp:60", "meta"),
                 Expect("sigmoid_stub", N + "UnaryOps.h:59", "stub declared"),
                 Expect("sigmoid_stub", N + "UnaryOps.cpp:878", "stub defined"),
                 Expect("sigmoid_kernel", CPU + "UnaryOpsKernel.cpp:713", "registered"),
                 Expect("sigmoid_kernel", CPU + "UnaryOpsKernel.cpp:38", "registered function"),
                 Expect("AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES", CPU + "UnaryOpsKernel.cpp:54", "dtypes"),
                 Expect("cpu_kernel_vec", CPU + "UnaryOpsKernel.cpp:55", "call"),
                 *CPU_KERNEL_VEC_1_13,
                 Expect("sigmoid", DERIV + ":1400", "backward"))),
    # add.out CUDA: native_functions.yaml:508 ufunc_inner_loop; BinaryOps.cpp:18; ufunc/add.h; cuda/Loops.cuh and
    # cuda/CUDALoops.cuh of 1.13.1.
    Trace(tree="1.13.1", op="add.out", key="CUDA", why="a ufunc op on CUDA in the older tree",
          steps=(Expect("ufunc_add_CUDA", YAML + ":508", "generated"),
                 Expect("add", N + "BinaryOps.cpp:18", "meta"),
                 Expect("ufunc::add", N + "ufunc/add.h:15", "device op"),
                 *GPU_KERNEL_1_13,
                 Expect("add.Tensor", DERIV + ":212", "backward"))),
    # sum.IntList_out CUDA: ReduceOps.cpp :1080, :187, :344, :1090; ReduceOps.h:19; cuda/ReduceSumProdKernel.cu;
    # cuda/Reduce.cuh of 1.13.1.
    Trace(tree="1.13.1", op="sum.IntList_out", key="CUDA", why="a reduction in the older tree",
          steps=(Expect("sum_out", N + "ReduceOps.cpp:1080", "kernel"),
                 Expect("sum", N + "ReduceOps.cpp:187", "meta"),
                 Expect("sum_stub", N + "ReduceOps.h:19", "stub declared"),
                 Expect("sum_stub", N + "ReduceOps.cpp:344", "stub defined"),
                 Expect("sum_stub", N + "ReduceOps.cpp:1090", "stub called"),
                 Expect("sum_kernel_cuda", CU + "ReduceSumProdKernel.cu:183", "registered"),
                 Expect("sum_kernel_cuda", CU + "ReduceSumProdKernel.cu:152", "registered function"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2", CU + "ReduceSumProdKernel.cu:154", "dtypes"),
                 Expect("reduce_dispatch", CU + "ReduceSumProdKernel.cu:160", "call"),
                 Expect("reduce_dispatch", CU + "ReduceSumProdKernel.cu:137", "helper"),
                 Expect("sum_functor::operator()", CU + "ReduceSumProdKernel.cu:15", "functor"),
                 Expect("gpu_reduce_kernel", CU + "ReduceSumProdKernel.cu:16", "call"),
                 *GPU_REDUCE_1_13,
                 Expect("sum.dim_IntList", DERIV + ":1544", "backward"))),
    # native_layer_norm CUDA: native_functions.yaml:2887; cuda/layer_norm_kernel.cu of 1.13.1 (the vectorized
    # kernel is `__global__ __inline__` here).
    Trace(tree="1.13.1", op="native_layer_norm", key="CUDA", why="normalisation in the older tree",
          steps=(Expect("layer_norm_cuda", CU + "layer_norm_kernel.cu:822", "kernel"),
                 Expect("LayerNormKernelImpl", CU + "layer_norm_kernel.cu:856", "call"),
                 Expect("LayerNormKernelImpl", CU + "layer_norm_kernel.cu:703", "helper"),
                 Expect("AT_DISPATCH_FLOATING_TYPES_AND2", CU + "layer_norm_kernel.cu:713", "dtypes"),
                 Expect("LayerNormKernelImplInternal", CU + "layer_norm_kernel.cu:720", "call"),
                 Expect("LayerNormKernelImplInternal", CU + "layer_norm_kernel.cu:662", "helper"),
                 Expect("launch_vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:690", "call"),
                 Expect("launch_vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:638", "helper"),
                 Expect("vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:656", "launch"),
                 Expect("vectorized_layer_norm_kernel", CU + "layer_norm_kernel.cu:285", "__global__"),
                 Expect("RowwiseMomentsCUDAKernel", CU + "layer_norm_kernel.cu:694", "launch"),
                 Expect("RowwiseMomentsCUDAKernel", CU + "layer_norm_kernel.cu:46", "__global__"),
                 Expect("LayerNormForwardCUDAKernel", CU + "layer_norm_kernel.cu:697", "launch"),
                 Expect("LayerNormForwardCUDAKernel", CU + "layer_norm_kernel.cu:85", "__global__"),
                 Expect("native_layer_norm", DERIV + ":1156", "backward"))),
    # kthvalue.values CUDA: native_functions.yaml:3273; cuda/Sorting.cpp kthvalue_out_cuda (:159) ->
    # kthvalue_out_impl_cuda (:32) -> launch_kthvalue_kernel (Sorting.cu:244), which hands run_launcher
    # (SortingCommon.cuh:114) a KthValueLauncher(k) (Sorting.cu:254); run_launcher's `l.template launch<...>`
    # (SortingCommon.cuh:151) is KthValueLauncher::launch (Sorting.cu:176), which launches gatherKthValue (:193, :24).
    Trace(tree="2.6.0", op="kthvalue.values", key="CUDA", why="a launcher object deduced by a template, whose "
          "member launches the kernel",
          steps=(Expect("kthvalue_out_cuda", CU + "Sorting.cpp:159", "kernel"),
                 Expect("kthvalue_out_impl_cuda", CU + "Sorting.cpp:173", "call"),
                 Expect("kthvalue_out_impl_cuda", CU + "Sorting.cpp:32", "helper"),
                 Expect("launch_kthvalue_kernel", CU + "Sorting.cpp:65", "call"),
                 Expect("launch_kthvalue_kernel", CU + "Sorting.cu:244", "helper"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND2", CU + "Sorting.cu:247", "dtypes"),
                 Expect("run_launcher", CU + "Sorting.cu:254", "call"),
                 Expect("run_launcher", CU + "SortingCommon.cuh:114", "helper"),
                 Expect("KthValueLauncher::launch", CU + "SortingCommon.cuh:151", "call"),
                 Expect("KthValueLauncher::launch", CU + "Sorting.cu:176", "helper"),
                 Expect("gatherKthValue", CU + "Sorting.cu:193", "launch"),
                 Expect("gatherKthValue", CU + "Sorting.cu:24", "__global__"),
                 Expect("kthvalue", DERIV + ":918", "backward"))),
    # argmax.out CPU: native_functions.yaml:825; ReduceOps.cpp TORCH_IMPL_FUNC(argmax_out) (:1761) passes argmax_stub
    # (ReduceOps.h:28, ReduceOps.cpp:439) to argmax_argmin_impl; cpu/ReduceOpsKernel.cpp registers argmax_kernel_impl
    # (:440, :380), which calls binary_kernel_reduce (cpu/Reduce.h:185) with ArgMaxOps<scalar_t>{} (:399): its
    # reduce, combine and project are MinMaxReductionOps's and ArgReductionOps's (SharedReduceOps.h:492 derives from
    # them), called at Reduce.h:217, :243, :246. No derivatives.yaml entry: argmax is not differentiable.
    Trace(tree="2.6.0", op="argmax.out", key="CPU", why="a reduction whose loop functions come from the ops "
          "object its kernel hands the reduce helper",
          steps=(Expect("argmax_out", N + "ReduceOps.cpp:1761", "kernel"),
                 Expect("argmax", N + "ReduceOps.cpp:231", "meta"),
                 Expect("argmax_stub", N + "ReduceOps.h:28", "stub declared"),
                 Expect("argmax_stub", N + "ReduceOps.cpp:439", "stub defined"),
                 Expect("argmax_stub", N + "ReduceOps.cpp:1766", "stub called"),
                 Expect("argmax_kernel_impl", CPU + "ReduceOpsKernel.cpp:440", "registered"),
                 Expect("argmax_kernel_impl", CPU + "ReduceOpsKernel.cpp:380", "registered function"),
                 Expect("AT_DISPATCH_ALL_TYPES_AND2", CPU + "ReduceOpsKernel.cpp:381", "dtypes"),
                 Expect("binary_kernel_reduce", CPU + "ReduceOpsKernel.cpp:397", "call"),
                 Expect("binary_kernel_reduce", CPU + "Reduce.h:185", "cpu loop"),
                 Expect("MinMaxReductionOps::reduce", CPU + "Reduce.h:217", "call"),
                 Expect("MinMaxReductionOps::reduce", N + "SharedReduceOps.h:458", "loop function"),
                 Expect("MinMaxReductionOps::combine", N + "SharedReduceOps.h:462", "loop function"),
                 Expect("ArgReductionOps::project", N + "SharedReduceOps.h:484", "loop function"))),
    # sin.out CPU: native_functions.yaml:5354; UnaryOps.cpp CREATE_UNARY_TORCH_IMPL_FUNC(sin_out, sin_stub) (:349),
    # its meta (:207), UnaryOps.h:72, UnaryOps.cpp:1028; cpu/UnaryOpsKernel.cpp:839
    # STATIC_IMPLEMENT_COMPLEX_KERNEL_WITHOUT_AVX512(sin) both defines sin_kernel and registers it (the macro at :805,
    # REGISTER_DISPATCH at :807), with its AT_DISPATCH set; the loop it runs calls vml::vsin (cpu/vml.h:89).
    Trace(tree="2.6.0", op="sin.out", key="CPU", why="a kernel a file-local macro defines and registers",
          steps=(Expect("sin_out", N + "UnaryOps.cpp:349", "kernel"),
                 Expect("sin", N + "UnaryOps.cpp:207", "meta"),
                 Expect("sin_stub", N + "UnaryOps.h:72", "stub declared"),
                 Expect("sin_stub", N + "UnaryOps.cpp:1028", "stub defined"),
                 Expect("sin_stub", N + "UnaryOps.cpp:349", "stub called"),
                 Expect("sin", CPU + "UnaryOpsKernel.cpp:839", "registered: CPU_CAPABILITY::sin_kernel"),
                 Expect("sin", CPU + "UnaryOpsKernel.cpp:839", "dtypes: sin_vml_cpu"),
                 Expect("sin", "aten/src/ATen/cpu/vml.h:89", "cpu loop: vml::vsin, IMPLEMENT_VML(sin)"),
                 Expect("sin", DERIV + ":1531", "backward"))),
    # isnan CPU: native_functions.yaml:3189; the kernel (TensorCompare.cpp:361) is `return self != self;` (:362), an
    # operator expression on Tensors: at::operator!= of TensorOperators.h:47 (AT_FORALL_BINARY_OPS(DEFINE_OPERATOR),
    # whose `_(!=, x.ne(y), y.ne(x))` is :43) calls x.ne(y), the op ne.Tensor; its structured kernel
    # (BinaryOps.cpp:1466 CREATE_COMPARISON_SCALAR_TENSOR_IMPL_FUNC(ne)) calls ne_stub (BinaryOps.h:79, :398),
    # registered at cpu/BinaryOpsKernel.cpp:1390 to ne_kernel (:619), whose bool branch dispatches ne_cpu (:622) into
    # cpu_kernel (:623).
    Trace(tree="2.6.0", op="isnan", key="CPU", why="a composite body of one operator expression on Tensors",
          steps=(Expect("isnan", N + "TensorCompare.cpp:361", "kernel"),
                 Expect("!=", N + "TensorCompare.cpp:362", "operator!= called: self != self"),
                 Expect("ne", N + "BinaryOps.cpp:1466", "ne.Tensor's CPU kernel"),
                 Expect("ne_stub", N + "BinaryOps.h:79", "stub declared"),
                 Expect("ne_stub", N + "BinaryOps.cpp:398", "stub defined"),
                 Expect("ne_kernel", CPU + "BinaryOpsKernel.cpp:1390", "registered"),
                 Expect("ne_kernel", CPU + "BinaryOpsKernel.cpp:619", "registered function"),
                 Expect("ne_cpu", CPU + "BinaryOpsKernel.cpp:622", "dtypes"),
                 Expect("cpu_kernel", CPU + "BinaryOpsKernel.cpp:623", "cpu loop"))),
]
