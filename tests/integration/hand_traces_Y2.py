"""Hand-verified kernels-for traces (helper Y2): BLAS, cuDNN, oneDNN, attention, fused optimizers, foreach,
random ops, copy and casts, composite ops that redispatch, library-guard placeholders, backward of in-place
and out= forms.

Data only. Every Expect was read in the PyTorch sources with grep and sed -n (never taken from tg-query);
paths are relative to the tree root, lines 1-based, with the line conventions of issue #11's acceptance:
a definition is the line of its name in the declarator (TORCH_IMPL_FUNC / TORCH_META_FUNC: the macro's line;
a definition written by a macro: the line of the macro's use), a __global__ kernel the line of its name, a
launch the line of `<<<`, a call the line of the callee's name, DECLARE/DEFINE/REGISTER_*DISPATCH and
AT_DISPATCH_* the macro's line. An Expect whose `what` is "definition" pins the key's own definition.

Trace and Expect are defined here (Y1 keeps the same two in hand_traces_model.py; the lead unifies).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Expect:
    name: str  # a fragment the collected item's name (or detail) must contain
    at: str  # "path:line"
    what: str  # a short word for the reader: definition, call, stub declared, registered, launch, __global__ ...

    @property
    def file(self) -> str:
        return self.at.rsplit(":", 1)[0]

    @property
    def line(self) -> int:
        return int(self.at.rsplit(":", 1)[1])


@dataclass(frozen=True)
class Trace:
    tree: str  # "2.6.0" or "1.13.1"
    op: str
    key: str
    why: str
    steps: tuple[Expect, ...]


N = "aten/src/ATen/native/"
NC = N + "cuda/"
BLAS = "aten/src/ATen/cuda/CUDABlas.cpp"
CUDNN = N + "cudnn/"
SDPA = N + "transformers/"
FLASH = SDPA + "cuda/flash_attn/"
MEMEFF = SDPA + "cuda/mem_eff_attention/kernels/"
DT_CUDA = NC + "DistributionTemplates.h"
DERIV = "tools/autograd/derivatives.yaml"

E = Expect

# The CUDA elementwise launch path shared by every gpu_kernel user (2.6.0): cuda/Loops.cuh and cuda/CUDALoops.cuh.
GPU_KERNEL_260 = (
    E("gpu_kernel", NC + "Loops.cuh:101", "helper"),
    E("gpu_kernel_impl", NC + "Loops.cuh:120", "call"),
    E("gpu_kernel_impl", NC + "CUDALoops.cuh:321", "helper"),
    E("gpu_kernel_impl_nocast", NC + "CUDALoops.cuh:323", "call"),
    E("gpu_kernel_impl_nocast", NC + "CUDALoops.cuh:289", "helper"),
    E("launch_vectorized_kernel", NC + "CUDALoops.cuh:309", "call"),
    E("launch_vectorized_kernel", NC + "CUDALoops.cuh:145", "helper"),
    E("vectorized_elementwise_kernel", NC + "CUDALoops.cuh:159", "launch"),
    E("vectorized_elementwise_kernel", NC + "CUDALoops.cuh:92", "__global__"),
)

# copy_ down to its stub (2.6.0, aten/src/ATen/native/Copy.cpp, Copy.h, cuda/Copy.cu, cpu/CopyKernel.cpp).
COPY_260 = (
    E("copy_impl", N + "Copy.cpp:363", "call"),
    E("copy_impl", N + "Copy.cpp:140", "helper"),
    E("copy_stub", N + "Copy.cpp:310", "stub called"),
    E("copy_stub", N + "Copy.h:15", "stub declared"),
    E("copy_stub", N + "Copy.cpp:389", "stub defined"),
    E("copy_kernel_cuda", NC + "Copy.cu:413", "registered"),
    E("copy_kernel", N + "cpu/CopyKernel.cpp:328", "registered"),
    E("copy_kernel_cuda", NC + "Copy.cu:306", "registered function"),
    E("cudaMemcpyAsync", NC + "Copy.cu:381", "vendor call"),
    E("copy_device_to_device", NC + "Copy.cu:358", "call"),
    E("copy_device_to_device", NC + "Copy.cu:191", "helper"),
    E("direct_copy_kernel_cuda", NC + "Copy.cu:249", "call"),
    E("direct_copy_kernel_cuda", NC + "Copy.cu:154", "helper"),
    E("AT_DISPATCH_V2", NC + "Copy.cu:175", "dtypes"),
    E("gpu_kernel", NC + "Copy.cu:177", "call"),
) + GPU_KERNEL_260

# The random-number path shared by bernoulli_/normal_/uniform_ on CUDA (2.6.0, cuda/DistributionTemplates.h).
NULLARY_260 = (
    E("distribution_nullary_kernel", DT_CUDA + ":112", "helper"),
    E("distribution_elementwise_grid_stride_kernel", DT_CUDA + ":145", "launch"),
    E("distribution_elementwise_grid_stride_kernel", DT_CUDA + ":66", "__global__"),
)

# multi_tensor_apply_for_fused_optimizer (2.6.0, cuda/MultiTensorApply.cuh).
FUSED_APPLY_260 = (
    E("multi_tensor_apply_for_fused_optimizer", NC + "MultiTensorApply.cuh:301", "helper"),
    E("multi_tensor_apply_kernel", NC + "MultiTensorApply.cuh:344", "launch"),
    E("multi_tensor_apply_kernel", NC + "MultiTensorApply.cuh:100", "__global__"),
    E("FusedAdamMathFunctor", NC + "fused_adam_utils.cuh:110", "functor"),
)


TRACES: tuple[Trace, ...] = (
    # BLAS -------------------------------------------------------------------------------------------------
    # Read: native_functions.yaml:4140, native/cuda/Blas.cpp (mm_out_cuda, addmm_out_cuda_impl),
    # aten/src/ATen/cuda/CUDABlas.cpp (gemm<float> -> gemm_internal<float> -> gemm_internal_cublas<float>),
    # native/LinearAlgebra.cpp (TORCH_META_FUNC(mm)). float path; BFloat16 ends in cublasGemmEx.
    Trace("2.6.0", "mm.out", "CUDA", "structured BLAS: addmm impl to cublasSgemm through the gemm specialisations", (
        E("mm_out_cuda", NC + "Blas.cpp:599", "definition"),
        E("addmm_out_cuda_impl", NC + "Blas.cpp:601", "call"),
        E("addmm_out_cuda_impl", NC + "Blas.cpp:249", "helper"),
        E("AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2", NC + "Blas.cpp:449", "dtypes"),
        E("gemm", NC + "Blas.cpp:461", "call"),
        E("gemm", BLAS + ":1157", "specialisation gemm<float>"),
        E("gemm_internal", BLAS + ":1163", "call"),
        E("gemm_internal", BLAS + ":1025", "specialisation gemm_internal<float>"),
        E("gemm_internal_cublas", BLAS + ":1036", "call"),
        E("gemm_internal_cublas", BLAS + ":820", "specialisation gemm_internal_cublas<float>"),
        E("cublasSgemm", BLAS + ":828", "vendor call"),
        E("cublasGemmEx", BLAS + ":980", "vendor call (BFloat16)"),
        E("mm", N + "LinearAlgebra.cpp:198", "meta"),
    )),
    # Read: native_functions.yaml:7022, native/LinearAlgebra.cpp (addmm_out_cpu, addmm_impl_cpu_),
    # native/CPUBlas.cpp and CPUBlas.h (cpublas::gemm float overload, gemm_stub), native/cpu/BlasKernel.cpp
    # (cpublas_gemm_impl -> gemm_core_ -> gemm_notrans_). float path: sgemm_ when built with BLAS, else the stub.
    Trace("2.6.0", "addmm.out", "CPU", "CPU BLAS: cpublas::gemm to sgemm_ or to gemm_stub's loops", (
        E("addmm_out_cpu", N + "LinearAlgebra.cpp:1611", "definition"),
        E("addmm_impl_cpu_", N + "LinearAlgebra.cpp:1615", "call"),
        E("addmm_impl_cpu_", N + "LinearAlgebra.cpp:1395", "helper"),
        E("_AT_DISPATCH_ADDMM_TYPES", N + "LinearAlgebra.cpp:1531", "dtypes"),
        E("gemm", N + "LinearAlgebra.cpp:1533", "call"),
        E("gemm", N + "CPUBlas.cpp:182", "helper (float overload)"),
        E("sgemm_", N + "CPUBlas.cpp:213", "vendor call"),
        E("gemm_stub", N + "CPUBlas.cpp:225", "stub called"),
        E("gemm_stub", N + "CPUBlas.h:30", "stub declared"),
        E("gemm_stub", N + "CPUBlas.cpp:137", "stub defined"),
        E("cpublas_gemm_impl", N + "cpu/BlasKernel.cpp:532", "registered"),
        E("cpublas_gemm_impl", N + "cpu/BlasKernel.cpp:475", "registered function"),
        E("_AT_DISPATCH_GEMM_TYPES", N + "cpu/BlasKernel.cpp:484", "dtypes"),
        E("gemm_core_", N + "cpu/BlasKernel.cpp:486", "call"),
        E("gemm_core_", N + "cpu/BlasKernel.cpp:440", "helper"),
        E("gemm_notrans_", N + "cpu/BlasKernel.cpp:450", "call"),
        E("gemm_notrans_", N + "cpu/BlasKernel.cpp:104", "cpu loop"),
        E("addmm", N + "LinearAlgebra.cpp:190", "meta"),
    )),
    # Read: native_functions.yaml:1364, native/cuda/Blas.cpp (bmm_out_cuda, baddbmm_out_cuda_impl),
    # aten/src/ATen/cuda/CUDABlas.cpp (bgemm<float> -> bgemm_internal<float> -> bgemm_internal_cublas<float>).
    Trace("2.6.0", "bmm.out", "CUDA", "batched BLAS: bgemm to cublasSgemmStridedBatched", (
        E("bmm_out_cuda", NC + "Blas.cpp:611", "definition"),
        E("baddbmm_out_cuda_impl", NC + "Blas.cpp:616", "call"),
        E("baddbmm_out_cuda_impl", NC + "Blas.cpp:505", "helper"),
        E("AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2", NC + "Blas.cpp:549", "dtypes"),
        E("bgemm", NC + "Blas.cpp:569", "call"),
        E("bgemm", BLAS + ":740", "specialisation bgemm<float>"),
        E("bgemm_internal", BLAS + ":746", "call"),
        E("bgemm_internal", BLAS + ":614", "specialisation bgemm_internal<float>"),
        E("bgemm_internal_cublas", BLAS + ":620", "call"),
        E("bgemm_internal_cublas", BLAS + ":481", "specialisation bgemm_internal_cublas<float>"),
        E("cublasSgemmStridedBatched", BLAS + ":489", "vendor call"),
        E("bmm", N + "LinearAlgebra.cpp:332", "meta"),
    )),
    # cuDNN and oneDNN; both kernels also have a placeholder that only raises -------------------------------
    # Read: native_functions.yaml:1886, native/cudnn/ConvShared.cpp (under `#if AT_CUDNN_ENABLED()`, line 10),
    # ConvPlaceholders.cpp (the placeholder cudnn_convolution at :27 under `#if !AT_CUDNN_ENABLED()`, line 23,
    # must not be the definition), Conv_v8.cpp (raw_cudnn_convolution_forward_out -> run_single_conv ->
    # run_conv_plan -> cudnnBackendExecute) and Conv_v7.cpp (the v7 fallback: split_batch_dim_to_32bit_out
    # calls the function pointer raw_cudnn_convolution_forward_out_32bit -> cudnnConvolutionForward).
    Trace("2.6.0", "cudnn_convolution", "CUDA", "cuDNN; real kernel under AT_CUDNN_ENABLED(), placeholder under "
          "!AT_CUDNN_ENABLED(); v7 path through a function pointer", (
        E("cudnn_convolution", CUDNN + "ConvShared.cpp:240", "definition"),
        E("cudnn_convolution_forward_out", CUDNN + "ConvShared.cpp:262", "call"),
        E("cudnn_convolution_forward_out", CUDNN + "ConvShared.cpp:205", "helper"),
        E("raw_cudnn_convolution_forward_out", CUDNN + "ConvShared.cpp:227", "call"),
        E("raw_cudnn_convolution_forward_out", CUDNN + "Conv_v8.cpp:1172", "helper"),
        E("run_single_conv", CUDNN + "Conv_v8.cpp:1187", "call"),
        E("run_single_conv", CUDNN + "Conv_v8.cpp:974", "helper"),
        E("run_conv_plan", CUDNN + "Conv_v8.cpp:1002", "call"),
        E("run_conv_plan", CUDNN + "Conv_v8.cpp:358", "helper"),
        E("cudnnBackendExecute", CUDNN + "Conv_v8.cpp:400", "vendor call"),
        E("raw_cudnn_convolution_forward_out_v7", CUDNN + "Conv_v8.cpp:1200", "call"),
        E("raw_cudnn_convolution_forward_out_v7", CUDNN + "Conv_v7.cpp:780", "helper"),
        E("split_batch_dim_to_32bit_out", CUDNN + "Conv_v7.cpp:791", "call"),
        E("split_batch_dim_to_32bit_out", CUDNN + "Conv_v7.cpp:606", "helper"),
        E("raw_cudnn_convolution_forward_out_32bit", CUDNN + "Conv_v7.cpp:697", "function pointer"),
        E("cudnnConvolutionForward", CUDNN + "Conv_v7.cpp:759", "vendor call"),
    )),
    # Read: native_functions.yaml:3349, native/mkldnn/Linear.cpp (placeholder mkldnn_linear at :28 under
    # `#if !AT_MKLDNN_ENABLED()`, line 23; the real one at :59 in the `#else // AT_MKLDNN_ENABLED` branch,
    # line 52), native/mkldnn/MKLDNNCommon.cpp (itensor_from_mkldnn).
    Trace("2.6.0", "mkldnn_linear", "MkldnnCPU", "oneDNN through ideep; real kernel in the #else of "
          "!AT_MKLDNN_ENABLED(), placeholder before it", (
        E("mkldnn_linear", N + "mkldnn/Linear.cpp:59", "definition"),
        E("itensor_from_mkldnn", N + "mkldnn/Linear.cpp:85", "call"),
        E("itensor_from_mkldnn", N + "mkldnn/MKLDNNCommon.cpp:105", "helper"),
        E("inner_product_forward", N + "mkldnn/Linear.cpp:93", "vendor call"),
        E("inner_product_forward", N + "mkldnn/Linear.cpp:95", "vendor call"),
    )),
    # Read: native_functions.yaml:1875, native/cudnn/BatchNorm.cpp (placeholder cudnn_batch_norm at :19 under
    # `#if !AT_CUDNN_ENABLED()`, line 12; the real one at :123 in the `#else // AT_CUDNN_ENABLED` branch,
    # line 56; training calls ...ForwardTrainingEx, inference ...ForwardInference).
    Trace("2.6.0", "cudnn_batch_norm", "CUDA", "cuDNN batch norm; real kernel in the #else of "
          "!AT_CUDNN_ENABLED(), placeholder before it", (
        E("cudnn_batch_norm", CUDNN + "BatchNorm.cpp:123", "definition"),
        E("getCudnnBatchNormMode", CUDNN + "BatchNorm.cpp:168", "call"),
        E("getCudnnBatchNormMode", CUDNN + "BatchNorm.cpp:87", "helper"),
        E("cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize", CUDNN + "BatchNorm.cpp:196", "vendor call"),
        E("_get_cudnn_batch_norm_reserve_space_size", CUDNN + "BatchNorm.cpp:210", "call"),
        E("_get_cudnn_batch_norm_reserve_space_size", CUDNN + "BatchNorm.cpp:108", "helper"),
        E("cudnnBatchNormalizationForwardTrainingEx", CUDNN + "BatchNorm.cpp:213", "vendor call"),
        E("cudnnBatchNormalizationForwardInference", CUDNN + "BatchNorm.cpp:244", "vendor call"),
    )),
    # Attention ----------------------------------------------------------------------------------------------
    # Read: native_functions.yaml:14851 and :14908, transformers/cuda/attention.cu, flash_attn/flash_api.cpp
    # (mha_fwd -> run_mha_fwd -> run_mha_fwd_<elem_type, kHeadDim>), flash_attn/kernels/
    # flash_fwd_hdim128_fp16_sm80.cu (the explicit specialisation for half, head dim 128),
    # flash_attn/flash_fwd_launch_template.h (run_mha_fwd_hdim128 -> run_flash_fwd -> `auto kernel =
    # &flash_fwd_kernel<...>; kernel<<<...>>>`; the __global__ is written by DEFINE_FLASH_FORWARD_KERNEL at :35).
    Trace("2.6.0", "_scaled_dot_product_flash_attention", "CUDA", "flash attention: redispatch to "
          "_flash_attention_forward, then templates down to flash_fwd_kernel through a kernel pointer", (
        E("_scaled_dot_product_flash_attention_cuda", SDPA + "cuda/attention.cu:681", "definition"),
        E("_flash_attention_forward", SDPA + "cuda/attention.cu:715", "redispatch"),
        E("_flash_attention_forward", SDPA + "cuda/attention.cu:894", "kernel of the redispatched op"),
        E("mha_fwd", SDPA + "cuda/attention.cu:972", "call"),
        E("mha_fwd", FLASH + "flash_api.cpp:350", "helper"),
        E("run_mha_fwd", FLASH + "flash_api.cpp:527", "call"),
        E("run_mha_fwd", FLASH + "flash_api.cpp:244", "helper"),
        E("run_mha_fwd_", FLASH + "flash_api.cpp:248", "call"),
        E("run_mha_fwd_", FLASH + "kernels/flash_fwd_hdim128_fp16_sm80.cu:11", "specialisation"),
        E("run_mha_fwd_hdim128", FLASH + "kernels/flash_fwd_hdim128_fp16_sm80.cu:12", "call"),
        E("run_mha_fwd_hdim128", FLASH + "flash_fwd_launch_template.h:233", "helper"),
        E("run_flash_fwd", FLASH + "flash_fwd_launch_template.h:249", "call"),
        E("run_flash_fwd", FLASH + "flash_fwd_launch_template.h:58", "helper"),
        E("flash_fwd_kernel", FLASH + "flash_fwd_launch_template.h:93", "launch"),
        E("flash_fwd_kernel", FLASH + "flash_fwd_launch_template.h:35", "__global__"),
    )),
    # Read: native_functions.yaml:14886 and :14921, transformers/cuda/attention.cu (_efficient_attention_forward:
    # the launchKernel lambda is handed to dispatch_cutlassF, which calls it with each kernel function;
    # `kernel_fn<<<...>>>` launches it), mem_eff_attention/kernels/cutlassF.h (dispatch_cutlassF ->
    # dispatch_cutlassF_f16_sm80), cutlassF_f16_aligned.cu (the __global__ for half, 64x64, sm80).
    Trace("2.6.0", "_scaled_dot_product_efficient_attention", "CUDA", "memory-efficient attention: a launch "
          "lambda given to the cutlassF dispatch tables", (
        E("_scaled_dot_product_efficient_attention_cuda", SDPA + "cuda/attention.cu:840", "definition"),
        E("_efficient_attention_forward", SDPA + "cuda/attention.cu:862", "redispatch"),
        E("_efficient_attention_forward", SDPA + "cuda/attention.cu:1005", "kernel of the redispatched op"),
        E("dispatch_cutlassF", SDPA + "cuda/attention.cu:1388", "call"),
        E("dispatch_cutlassF", MEMEFF + "cutlassF.h:284", "helper"),
        E("dispatch_cutlassF_f16_sm80", MEMEFF + "cutlassF.h:299", "call"),
        E("dispatch_cutlassF_f16_sm80", MEMEFF + "cutlassF.h:151", "helper"),
        E("kernel_fn", SDPA + "cuda/attention.cu:1383", "launch"),
        E("fmha_cutlassF_f16_aligned_64x64_rf_sm80", MEMEFF + "cutlassF_f16_aligned.cu:71", "__global__"),
    )),
    # Read: native_functions.yaml:14828 (no dispatch: CompositeImplicitAutograd), transformers/attention.cpp
    # (scaled_dot_product_attention: _fused_sdp_choice_stub, then a switch over the backends, each an at:: op;
    # the math backend _scaled_dot_product_attention_math is composite too), attention.h, cuda/attention.cu.
    Trace("2.6.0", "scaled_dot_product_attention", "CompositeImplicitAutograd", "composite: a choice stub, "
          "then redispatch to flash, efficient or the math composite", (
        E("scaled_dot_product_attention", SDPA + "attention.cpp:696", "definition"),
        E("_fused_sdp_choice_stub", SDPA + "attention.cpp:709", "stub called"),
        E("_fused_sdp_choice_stub", SDPA + "attention.h:13", "stub declared"),
        E("_fused_sdp_choice_stub", SDPA + "attention.cpp:81", "stub defined"),
        E("_fused_sdp_choice_cuda", SDPA + "cuda/attention.cu:1412", "registered"),
        E("_fused_sdp_choice_cuda", SDPA + "cuda/attention.cu:880", "registered function"),
        E("_fused_sdp_choice_cpp", SDPA + "attention.cpp:445", "registered"),
        E("_fused_sdp_choice_cpp", SDPA + "attention.cpp:432", "registered function"),
        E("_scaled_dot_product_flash_attention", SDPA + "attention.cpp:731", "redispatch"),
        E("_scaled_dot_product_efficient_attention", SDPA + "attention.cpp:744", "redispatch"),
        E("_scaled_dot_product_attention_math", SDPA + "attention.cpp:773", "redispatch"),
        E("_scaled_dot_product_attention_math", SDPA + "attention.cpp:792", "kernel of the redispatched op"),
        E("matmul", SDPA + "attention.cpp:859", "redispatch"),
        E("_safe_softmax", SDPA + "attention.cpp:867", "redispatch"),
    )),
    # Fused optimizers ---------------------------------------------------------------------------------------
    # Read: native_functions.yaml:15727, native/cuda/FusedAdamKernel.cu (float-lr overload at :16),
    # fused_adam_impl.cu (float-lr overload at :11), MultiTensorApply.cuh, fused_adam_utils.cuh.
    Trace("2.6.0", "_fused_adam_", "CUDA", "fused optimizer: multi_tensor_apply_for_fused_optimizer with a "
          "functor whose operator() is the device code", (
        E("_fused_adam_kernel_cuda_", NC + "FusedAdamKernel.cu:16", "definition"),
        E("_fused_adam_amsgrad_cuda_impl_", NC + "FusedAdamKernel.cu:37", "call"),
        E("_fused_adam_cuda_impl_", NC + "FusedAdamKernel.cu:57", "call"),
        E("_fused_adam_cuda_impl_", NC + "fused_adam_impl.cu:11", "helper"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", NC + "fused_adam_impl.cu:34", "dtypes"),
        E("multi_tensor_apply_for_fused_optimizer", NC + "fused_adam_impl.cu:40", "call"),
    ) + FUSED_APPLY_260),
    # Read: native_functions.yaml:15747, native/cuda/FusedAdamWKernel.cu, fused_adamw_amsgrad_impl.cu (the
    # amsgrad branch, depth 5), MultiTensorApply.cuh, fused_adam_utils.cuh.
    Trace("2.6.0", "_fused_adamw_", "CUDA", "fused AdamW, amsgrad branch", (
        E("_fused_adamw_kernel_cuda_", NC + "FusedAdamWKernel.cu:16", "definition"),
        E("_fused_adamw_amsgrad_cuda_impl_", NC + "FusedAdamWKernel.cu:37", "call"),
        E("_fused_adamw_amsgrad_cuda_impl_", NC + "fused_adamw_amsgrad_impl.cu:11", "helper"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", NC + "fused_adamw_amsgrad_impl.cu:39", "dtypes"),
        E("multi_tensor_apply_for_fused_optimizer", NC + "fused_adamw_amsgrad_impl.cu:45", "call"),
        E("_fused_adamw_cuda_impl_", NC + "FusedAdamWKernel.cu:57", "call"),
    ) + FUSED_APPLY_260),
    # Read: native_functions.yaml:10421, native/cuda/ForeachBinaryOpList.cu (FOREACH_BINARY_OP_LIST_ALPHA(
    # all_types_complex_bool_half_bfloat16, add, std::plus) at :217 writes foreach_tensor_add_list_kernel_cuda),
    # MultiTensorApply.cuh (the overload without scalars at :218), ForeachFunctors.cuh.
    Trace("2.6.0", "_foreach_add.List", "CUDA", "foreach: a kernel written by a macro, multi_tensor_apply", (
        E("foreach_tensor_add_list_kernel_cuda", NC + "ForeachBinaryOpList.cu:217", "definition"),
        E("all_types_complex_bool_half_bfloat16", NC + "ForeachBinaryOpList.cu:80", "helper"),
        E("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3", NC + "ForeachBinaryOpList.cu:84", "dtypes"),
        E("foreach_tensor_list_op", NC + "ForeachBinaryOpList.cu:91", "call"),
        E("foreach_tensor_list_op", NC + "ForeachBinaryOpList.cu:28", "helper"),
        E("multi_tensor_apply", NC + "ForeachBinaryOpList.cu:44", "call"),
        E("multi_tensor_apply", NC + "MultiTensorApply.cuh:218", "helper"),
        E("multi_tensor_apply_kernel", NC + "MultiTensorApply.cuh:262", "launch"),
        E("multi_tensor_apply_kernel", NC + "MultiTensorApply.cuh:100", "__global__"),
        E("BinaryOpListAlphaFunctor", NC + "ForeachFunctors.cuh:258", "functor"),
    )),
    # Random -------------------------------------------------------------------------------------------------
    # Read: native_functions.yaml:1122, native/Distributions.cpp (bernoulli_(Tensor&, double, ...) at :178;
    # BernoulliStub's operator() calls the stub), native/DistributionTemplates.h (bernoulli_impl_, double
    # overload), native/UnaryOps.h, native/cuda/DistributionBernoulli.cu, native/cuda/DistributionTemplates.h.
    Trace("2.6.0", "bernoulli_.float", "CUDA", "random: a functor template argument calls the stub; "
          "distribution templates down to the grid-stride __global__", (
        E("bernoulli_", N + "Distributions.cpp:178", "definition"),
        E("bernoulli_impl_", N + "Distributions.cpp:179", "call"),
        E("bernoulli_impl_", N + "DistributionTemplates.h:372", "helper"),
        E("BernoulliStub", N + "Distributions.cpp:153", "functor"),
        E("bernoulli_scalar_stub", N + "Distributions.cpp:154", "stub called"),
        E("bernoulli_scalar_stub", N + "UnaryOps.h:96", "stub declared"),
        E("bernoulli_scalar_stub", N + "Distributions.cpp:133", "stub defined"),
        E("bernoulli_scalar_kernel", NC + "DistributionBernoulli.cu:38", "registered"),
        E("bernoulli_scalar_kernel", N + "cpu/DistributionKernels.cpp:239", "registered"),
        E("bernoulli_scalar_kernel", NC + "DistributionBernoulli.cu:31", "registered function"),
        E("bernoulli_kernel", NC + "DistributionBernoulli.cu:34", "call"),
        E("bernoulli_kernel", DT_CUDA + ":643", "helper"),
        E("AT_DISPATCH_ALL_TYPES_AND3", DT_CUDA + ":644", "dtypes"),
        E("uniform_and_transform", DT_CUDA + ":651", "call"),
        E("uniform_and_transform", DT_CUDA + ":396", "helper"),
        E("distribution_nullary_kernel", DT_CUDA + ":403", "call"),
    ) + NULLARY_260),
    # Read: native_functions.yaml:286, native/cuda/Dropout.cu (native_dropout_cuda -> dropout_cuda<bool> ->
    # launcher -> a switch over vec_size launching fused_dropout_kernel_vec, else fused_dropout_kernel).
    Trace("2.6.0", "native_dropout", "CUDA", "dropout: launcher picks the kernel by vector size", (
        E("native_dropout_cuda", NC + "Dropout.cu:363", "definition"),
        E("dropout_cuda", NC + "Dropout.cu:379", "call"),
        E("dropout_cuda", NC + "Dropout.cu:331", "helper"),
        E("launcher", NC + "Dropout.cu:353", "call"),
        E("launcher", NC + "Dropout.cu:215", "helper"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", NC + "Dropout.cu:224", "dtypes"),
        E("fused_dropout_kernel_vec", NC + "Dropout.cu:254", "launch"),
        E("fused_dropout_kernel_vec", NC + "Dropout.cu:48", "__global__"),
        E("fused_dropout_kernel", NC + "Dropout.cu:284", "launch"),
        E("fused_dropout_kernel", NC + "Dropout.cu:133", "__global__"),
        E("native_dropout", DERIV + ":619", "backward"),
    )),
    # Read: native_functions.yaml:286, native/Dropout.cpp (native_dropout_cpu: at::empty_like, then the Tensor
    # method mask.bernoulli_(p1m), which re-enters the dispatcher at bernoulli_.float), native/Distributions.cpp,
    # native/cpu/DistributionKernels.cpp (bernoulli_scalar_kernel twice: under `#if !AT_MKL_ENABLED()`, line 39,
    # through bernoulli_scalar_kernel_default and templates::cpu::bernoulli_kernel; in the #else, line 48, with
    # MKL's viRngBernoulli), native/cpu/DistributionTemplates.h, native/cpu/Loops.h (cpu_serial_kernel).
    Trace("2.6.0", "native_dropout", "CPU", "dropout on CPU reaches bernoulli_scalar_stub only through the "
          "Tensor method bernoulli_; two guarded CPU kernels", (
        E("native_dropout_cpu", N + "Dropout.cpp:105", "definition"),
        E("empty_like", N + "Dropout.cpp:117", "redispatch"),
        E("bernoulli_", N + "Dropout.cpp:118", "redispatch"),
        E("mul", N + "Dropout.cpp:119", "redispatch"),
        E("bernoulli_", N + "Distributions.cpp:178", "kernel of the redispatched op"),
        E("bernoulli_scalar_stub", N + "Distributions.cpp:154", "stub called"),
        E("bernoulli_scalar_kernel", N + "cpu/DistributionKernels.cpp:239", "registered"),
        E("bernoulli_scalar_kernel", N + "cpu/DistributionKernels.cpp:49", "registered function (MKL)"),
        E("AT_DISPATCH_ALL_TYPES_AND3", N + "cpu/DistributionKernels.cpp:60", "dtypes"),
        E("viRngBernoulli", N + "cpu/DistributionKernels.cpp:78", "vendor call"),
        E("bernoulli_scalar_kernel", N + "cpu/DistributionKernels.cpp:45", "registered function (no MKL)"),
        E("bernoulli_scalar_kernel_default", N + "cpu/DistributionKernels.cpp:46", "call"),
        E("bernoulli_scalar_kernel_default", N + "cpu/DistributionKernels.cpp:40", "helper"),
        E("bernoulli_kernel", N + "cpu/DistributionKernels.cpp:42", "call"),
        E("bernoulli_kernel", N + "cpu/DistributionTemplates.h:402", "helper"),
        E("AT_DISPATCH_ALL_TYPES_AND3", N + "cpu/DistributionTemplates.h:403", "dtypes"),
        E("cpu_serial_kernel", N + "cpu/DistributionTemplates.h:408", "call"),
        E("cpu_serial_kernel", N + "cpu/Loops.h:373", "helper"),
        E("cpu_serial_kernel", N + "cpu/Loops.h:358", "helper"),
        E("basic_loop", N + "cpu/Loops.h:367", "call"),
        E("basic_loop", N + "cpu/Loops.h:116", "cpu loop"),
        E("native_dropout", DERIV + ":619", "backward"),
    )),
    # Read: native_functions.yaml:10299, native/Distributions.cpp (normal_, NormalStub), DistributionTemplates.h
    # (normal_impl_), UnaryOps.h, cuda/DistributionNormal.cu, cuda/DistributionTemplates.h.
    Trace("2.6.0", "normal_", "CUDA", "random: normal_impl_ -> NormalStub -> normal_stub -> normal_and_transform", (
        E("normal_", N + "Distributions.cpp:275", "definition"),
        E("normal_impl_", N + "Distributions.cpp:276", "call"),
        E("normal_impl_", N + "DistributionTemplates.h:203", "helper"),
        E("NormalStub", N + "Distributions.cpp:262", "functor"),
        E("normal_stub", N + "Distributions.cpp:263", "stub called"),
        E("normal_stub", N + "UnaryOps.h:102", "stub declared"),
        E("normal_stub", N + "Distributions.cpp:140", "stub defined"),
        E("normal_kernel", NC + "DistributionNormal.cu:13", "registered"),
        E("normal_kernel", NC + "DistributionNormal.cu:8", "registered function"),
        E("normal_kernel", NC + "DistributionNormal.cu:10", "call"),
        E("normal_kernel", DT_CUDA + ":428", "helper"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", DT_CUDA + ":430", "dtypes"),
        E("normal_and_transform", DT_CUDA + ":438", "call"),
        E("normal_and_transform", DT_CUDA + ":411", "helper"),
        E("distribution_nullary_kernel", DT_CUDA + ":418", "call"),
    ) + NULLARY_260),
    # Read: native_functions.yaml:8737, native/Distributions.cpp (uniform_, UniformStub), DistributionTemplates.h
    # (uniform_impl_), UnaryOps.h, cuda/DistributionUniform.cu, cuda/DistributionTemplates.h.
    Trace("2.6.0", "uniform_", "CUDA", "random: uniform_impl_ -> UniformStub -> uniform_stub -> "
          "uniform_and_transform", (
        E("uniform_", N + "Distributions.cpp:250", "definition"),
        E("uniform_impl_", N + "Distributions.cpp:251", "call"),
        E("uniform_impl_", N + "DistributionTemplates.h:286", "helper"),
        E("UniformStub", N + "Distributions.cpp:238", "functor"),
        E("uniform_stub", N + "Distributions.cpp:239", "stub called"),
        E("uniform_stub", N + "UnaryOps.h:101", "stub declared"),
        E("uniform_stub", N + "Distributions.cpp:139", "stub defined"),
        E("uniform_kernel", NC + "DistributionUniform.cu:13", "registered"),
        E("uniform_kernel", NC + "DistributionUniform.cu:8", "registered function"),
        E("uniform_kernel", NC + "DistributionUniform.cu:10", "call"),
        E("uniform_kernel", DT_CUDA + ":452", "helper"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", DT_CUDA + ":453", "dtypes"),
        E("uniform_and_transform", DT_CUDA + ":471", "call"),
        E("uniform_and_transform", DT_CUDA + ":396", "helper"),
        E("distribution_nullary_kernel", DT_CUDA + ":403", "call"),
    ) + NULLARY_260),
    # Copy and casts -----------------------------------------------------------------------------------------
    # Read: native_functions.yaml:1774, native/Copy.cpp, Copy.h, cuda/Copy.cu (copy_kernel_cuda: host<->device
    # by cudaMemcpyAsync, device<->device by copy_device_to_device -> direct_copy_kernel_cuda -> gpu_kernel),
    # cpu/CopyKernel.cpp, cuda/Loops.cuh, cuda/CUDALoops.cuh.
    Trace("2.6.0", "copy_", "CompositeExplicitAutograd", "copy: copy_stub, CUDA to cudaMemcpyAsync or the "
          "elementwise gpu_kernel", (
        E("copy_", N + "Copy.cpp:353", "definition"),
    ) + COPY_260),
    # Read: native_functions.yaml:7733, native/TensorConversions.cpp (_to_copy: at::empty_symint, then the
    # Tensor method r.copy_ at :385, which re-enters the dispatcher at copy_), then copy_ as above.
    Trace("2.6.0", "_to_copy", "CompositeExplicitAutograd", "cast: composite, redispatch to copy_", (
        E("_to_copy", N + "TensorConversions.cpp:230", "definition"),
        E("empty", N + "TensorConversions.cpp:383", "redispatch"),
        E("copy_", N + "TensorConversions.cpp:385", "redispatch"),
        E("copy_", N + "Copy.cpp:353", "kernel of the redispatched op"),
        E("copy_impl", N + "Copy.cpp:363", "call"),
        E("copy_stub", N + "Copy.cpp:310", "stub called"),
        E("copy_kernel_cuda", NC + "Copy.cu:413", "registered"),
    )),
    # Read: native_functions.yaml:7755 (no dispatch: CompositeImplicitAutograd), native/TensorConversions.cpp
    # (to(self, ScalarType, ...) at :505 -> to_impl -> at::_to_copy), then _to_copy and copy_ as above.
    Trace("2.6.0", "to.dtype", "CompositeImplicitAutograd", "cast: to -> to_impl -> at::_to_copy -> copy_", (
        E("to", N + "TensorConversions.cpp:505", "definition"),
        E("to_impl", N + "TensorConversions.cpp:506", "call"),
        E("to_impl", N + "TensorConversions.cpp:417", "helper"),
        E("_to_copy", N + "TensorConversions.cpp:431", "redispatch"),
        E("_to_copy", N + "TensorConversions.cpp:230", "kernel of the redispatched op"),
        E("copy_", N + "TensorConversions.cpp:385", "redispatch"),
        E("copy_", N + "Copy.cpp:353", "kernel of the redispatched op"),
    )),
    # Composite ops that redispatch --------------------------------------------------------------------------
    # Read: native_functions.yaml:3331, native/Linear.cpp (linear: at::addmm for 2-d input with bias, else
    # _flatten_nd_linear or at::matmul), then addmm's CPU kernel as in the addmm.out trace: reaches gemm_stub
    # only through at::addmm.
    Trace("2.6.0", "linear", "CompositeImplicitAutograd", "composite: at::addmm / at::matmul, continuing in "
          "addmm.out's CPU kernel to gemm_stub", (
        E("linear", N + "Linear.cpp:73", "definition"),
        E("addmm", N + "Linear.cpp:96", "redispatch"),
        E("_flatten_nd_linear", N + "Linear.cpp:102", "call"),
        E("_flatten_nd_linear", N + "Linear.cpp:57", "helper"),
        E("addmm", N + "Linear.cpp:65", "redispatch"),
        E("matmul", N + "Linear.cpp:111", "redispatch"),
        E("addmm_out_cpu", N + "LinearAlgebra.cpp:1611", "kernel of the redispatched op"),
        E("addmm_impl_cpu_", N + "LinearAlgebra.cpp:1395", "helper"),
        E("gemm", N + "LinearAlgebra.cpp:1533", "call"),
        E("gemm_stub", N + "CPUBlas.cpp:225", "stub called"),
        E("cpublas_gemm_impl", N + "cpu/BlasKernel.cpp:532", "registered"),
    )),
    # Read: native_functions.yaml:3283 and :3287, native/layer_norm.cpp (layer_norm_symint ->
    # at::native_layer_norm_symint; layer_norm_cpu -> layer_norm_with_mean_rstd_out -> LayerNormKernel),
    # layer_norm.h, native/cpu/layer_norm_kernel.cpp (float path of LayerNormKernelImplInternal).
    Trace("2.6.0", "layer_norm", "CompositeImplicitAutograd", "composite: reaches LayerNormKernel only through "
          "at::native_layer_norm", (
        E("layer_norm_symint", N + "layer_norm.cpp:188", "definition"),
        E("native_layer_norm", N + "layer_norm.cpp:199", "redispatch"),
        E("layer_norm_cpu", N + "layer_norm.cpp:76", "kernel of the redispatched op"),
        E("layer_norm_with_mean_rstd_out", N + "layer_norm.cpp:109", "call"),
        E("layer_norm_with_mean_rstd_out", N + "layer_norm.cpp:35", "helper"),
        E("LayerNormKernel", N + "layer_norm.cpp:46", "stub called"),
        E("LayerNormKernel", N + "layer_norm.h:138", "stub declared"),
        E("LayerNormKernel", N + "layer_norm.cpp:202", "stub defined"),
        E("LayerNormKernelImpl", N + "cpu/layer_norm_kernel.cpp:612", "registered"),
        E("LayerNormKernelImpl", N + "cpu/layer_norm_kernel.cpp:164", "registered function"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", N + "cpu/layer_norm_kernel.cpp:177", "dtypes"),
        E("LayerNormKernelImplInternal", N + "cpu/layer_norm_kernel.cpp:179", "call"),
        E("LayerNormKernelImplInternal", N + "cpu/layer_norm_kernel.cpp:28", "cpu loop"),
    )),
    # Read: native_functions.yaml:5541 (no dispatch) and :5559, native/SoftMax.cpp (softmax(Tensor, int64_t,
    # ...) at :443 -> at::_softmax; softmax_cpu_out -> softmax_lastdim_kernel), native/cpu/SoftmaxKernel.h,
    # native/cpu/SoftMaxKernel.cpp (softmax_lastdim_kernel_impl -> vec_host_softmax_lastdim::apply ->
    # _vec_softmax_lastdim, the overload for scalar_t == opmath_t).
    Trace("2.6.0", "softmax.int", "CompositeImplicitAutograd", "composite: reaches softmax_lastdim_kernel only "
          "through at::_softmax", (
        E("softmax", N + "SoftMax.cpp:443", "definition"),
        E("_softmax", N + "SoftMax.cpp:450", "redispatch"),
        E("softmax_cpu_out", N + "SoftMax.cpp:335", "kernel of the redispatched op"),
        E("softmax_lastdim_kernel", N + "SoftMax.cpp:357", "stub called"),
        E("softmax_lastdim_kernel", N + "cpu/SoftmaxKernel.h:14", "stub declared"),
        E("softmax_lastdim_kernel", N + "SoftMax.cpp:554", "stub defined"),
        E("softmax_lastdim_kernel_impl", N + "cpu/SoftMaxKernel.cpp:1294", "registered"),
        E("softmax_lastdim_kernel_impl", N + "cpu/SoftMaxKernel.cpp:1206", "registered function"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", N + "cpu/SoftMaxKernel.cpp:1209", "dtypes"),
        E("apply", N + "cpu/SoftMaxKernel.cpp:1212", "call"),
        E("vec_host_softmax_lastdim", N + "cpu/SoftMaxKernel.cpp:672", "helper"),
        E("_vec_softmax_lastdim", N + "cpu/SoftMaxKernel.cpp:683", "call"),
        E("_vec_softmax_lastdim", N + "cpu/SoftMaxKernel.cpp:114", "cpu loop"),
    )),
    # Read: native_functions.yaml:5559, native/cuda/SoftMax.cu (softmax_cuda_out -> host_softmax: rows of at most
    # 1024 go to dispatch_softmax_forward in PersistentSoftmax.cuh, whose launches are written by the local
    # LAUNCH_SOFTMAX_WARP_FORWARD macro; longer rows launch cunn_SoftMaxForwardSmem or cunn_SoftMaxForward),
    # native/SoftMax.cpp (TORCH_META_FUNC(_softmax)), tools/autograd/derivatives.yaml (_softmax, the
    # functional op's entry, for this out= form).
    Trace("2.6.0", "_softmax.out", "CUDA", "out= form on CUDA: the kernel picked by row length; the functional "
          "op's backward", (
        E("softmax_cuda_out", NC + "SoftMax.cu:1091", "definition"),
        E("host_softmax", NC + "SoftMax.cu:1096", "call"),
        E("host_softmax", NC + "SoftMax.cu:820", "helper"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", NC + "SoftMax.cu:844", "dtypes"),
        E("dispatch_softmax_forward", NC + "SoftMax.cu:853", "call"),
        E("dispatch_softmax_forward", NC + "PersistentSoftmax.cuh:303", "helper"),
        E("softmax_warp_forward", NC + "PersistentSoftmax.cuh:68", "__global__"),
        E("cunn_SoftMaxForwardSmem", NC + "SoftMax.cu:874", "launch"),
        E("cunn_SoftMaxForwardSmem", NC + "SoftMax.cu:700", "__global__"),
        E("cunn_SoftMaxForward", NC + "SoftMax.cu:877", "launch"),
        E("cunn_SoftMaxForward", NC + "SoftMax.cu:663", "__global__"),
        E("_softmax", N + "SoftMax.cpp:40", "meta"),
        E("_softmax", DERIV + ":2196", "backward"),
    )),
    # Backward of in-place and out= forms --------------------------------------------------------------------
    # Read: native_functions.yaml:4223 (mul_.Tensor: structured_delegate mul.out) and :4234, native/BinaryOps.cpp
    # (TORCH_META_FUNC2(mul, Tensor), TORCH_IMPL_FUNC(mul_out)), BinaryOps.h, cpu/BinaryOpsKernel.cpp,
    # cpu/Loops.h (cpu_kernel_vec -> VectorizedLoop2d -> vectorized_loop / basic_loop),
    # tools/autograd/derivatives.yaml (mul.Tensor, the functional op's entry, applied to the in-place form).
    Trace("2.6.0", "mul_.Tensor", "CPU", "in-place, structured delegate: mul.out's kernel; backward of mul.Tensor", (
        E("mul_out", N + "BinaryOps.cpp:440", "definition"),
        E("mul_stub", N + "BinaryOps.cpp:443", "stub called"),
        E("mul_stub", N + "BinaryOps.h:60", "stub declared"),
        E("mul_stub", N + "BinaryOps.cpp:378", "stub defined"),
        E("mul_kernel", N + "cpu/BinaryOpsKernel.cpp:1373", "registered"),
        E("mul_kernel", N + "cpu/BinaryOpsKernel.cpp:126", "registered function"),
        E("_AT_DISPATCH_MUL_TYPES", N + "cpu/BinaryOpsKernel.cpp:157", "dtypes"),
        E("cpu_kernel_vec", N + "cpu/BinaryOpsKernel.cpp:158", "call"),
        E("cpu_kernel_vec", N + "cpu/Loops.h:342", "helper"),
        E("vectorized_loop", N + "cpu/Loops.h:200", "cpu loop"),
        E("basic_loop", N + "cpu/Loops.h:116", "cpu loop"),
        E("mul", N + "BinaryOps.cpp:166", "meta"),
        E("mul.Tensor", DERIV + ":1212", "backward"),
    )),
    # Read: native_functions.yaml:575, native/BinaryOps.cpp (TORCH_META_FUNC2(add, Tensor)),
    # tools/autograd/derivatives.yaml (add.Tensor: the functional op's entry, used for add.out).
    Trace("2.6.0", "add.out", "CPU", "out= form: the meta function and the functional op's backward", (
        E("add", N + "BinaryOps.cpp:151", "meta"),
        E("add.Tensor", DERIV + ":229", "backward"),
    )),
    # Read: native_functions.yaml:564 (add_.Tensor: structured_delegate add.out), tools/autograd/derivatives.yaml.
    Trace("2.6.0", "add_.Tensor", "CPU", "in-place form: the functional op's backward", (
        E("add", N + "BinaryOps.cpp:151", "meta"),
        E("add.Tensor", DERIV + ":229", "backward"),
    )),
    # 1.13.1 -------------------------------------------------------------------------------------------------
    # Read (1.13.1): native_functions.yaml:3568, native/cuda/Blas.cpp, aten/src/ATen/cuda/CUDABlas.cpp
    # (gemm<float> calls cublasSgemm itself; no gemm_internal layer yet), native/LinearAlgebra.cpp.
    Trace("1.13.1", "mm.out", "CUDA", "structured BLAS to cublasSgemm (older tree: one gemm layer)", (
        E("mm_out_cuda", NC + "Blas.cpp:420", "definition"),
        E("addmm_out_cuda_impl", NC + "Blas.cpp:421", "call"),
        E("addmm_out_cuda_impl", NC + "Blas.cpp:141", "helper"),
        E("AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2", NC + "Blas.cpp:285", "dtypes"),
        E("gemm", NC + "Blas.cpp:297", "call"),
        E("gemm", BLAS + ":346", "specialisation gemm<float>"),
        E("cublasSgemm", BLAS + ":354", "vendor call"),
        E("mm", N + "LinearAlgebra.cpp:70", "meta"),
    )),
    # Read (1.13.1): native_functions.yaml:1619, native/cudnn/ConvShared.cpp (under `#if AT_CUDNN_ENABLED()`,
    # line 6; cudnn_convolution -> cudnn_convolution_forward), ConvPlaceholders.cpp (placeholder at :17 under
    # `#if !AT_CUDNN_ENABLED()`, line 13), Conv_v8.cpp (under `#if HAS_CUDNN_V8()`, line 7), Conv_v7.cpp (the
    # same declarator is raw_cudnn_convolution_forward_out under `#if !HAS_CUDNN_V8()`, :669, and
    # raw_cudnn_convolution_forward_out_v7 in the #else, :671).
    Trace("1.13.1", "cudnn_convolution", "CUDA", "cuDNN; real kernel under AT_CUDNN_ENABLED(), v8 under "
          "HAS_CUDNN_V8(), v7 through a function pointer", (
        E("cudnn_convolution", CUDNN + "ConvShared.cpp:195", "definition"),
        E("cudnn_convolution_forward", CUDNN + "ConvShared.cpp:203", "call"),
        E("cudnn_convolution_forward", CUDNN + "ConvShared.cpp:162", "helper"),
        E("raw_cudnn_convolution_forward_out", CUDNN + "ConvShared.cpp:188", "call"),
        E("raw_cudnn_convolution_forward_out", CUDNN + "Conv_v8.cpp:585", "helper"),
        E("run_single_conv", CUDNN + "Conv_v8.cpp:592", "call"),
        E("run_single_conv", CUDNN + "Conv_v8.cpp:515", "helper"),
        E("run_conv_plan", CUDNN + "Conv_v8.cpp:526", "call"),
        E("run_conv_plan", CUDNN + "Conv_v8.cpp:173", "helper"),
        E("cudnnBackendExecute", CUDNN + "Conv_v8.cpp:184", "vendor call"),
        E("raw_cudnn_convolution_forward_out_v7", CUDNN + "Conv_v8.cpp:596", "call"),
        E("raw_cudnn_convolution_forward_out_v7", CUDNN + "Conv_v7.cpp:671", "helper"),
        E("split_batch_dim_to_32bit_out", CUDNN + "Conv_v7.cpp:676", "call"),
        E("split_batch_dim_to_32bit_out", CUDNN + "Conv_v7.cpp:556", "helper"),
        E("raw_cudnn_convolution_forward_out_32bit", CUDNN + "Conv_v7.cpp:622", "function pointer"),
        E("cudnnConvolutionForward", CUDNN + "Conv_v7.cpp:656", "vendor call"),
    )),
    # Read (1.13.1): native_functions.yaml:966, native/Distributions.cpp, DistributionTemplates.h, UnaryOps.h,
    # cuda/DistributionBernoulli.cu, cpu/DistributionKernels.cpp, cuda/DistributionTemplates.h.
    Trace("1.13.1", "bernoulli_.float", "CUDA", "random on the older tree", (
        E("bernoulli_", N + "Distributions.cpp:171", "definition"),
        E("bernoulli_impl_", N + "Distributions.cpp:172", "call"),
        E("bernoulli_impl_", N + "DistributionTemplates.h:331", "helper"),
        E("BernoulliStub", N + "Distributions.cpp:146", "functor"),
        E("bernoulli_scalar_stub", N + "Distributions.cpp:147", "stub called"),
        E("bernoulli_scalar_stub", N + "UnaryOps.h:88", "stub declared"),
        E("bernoulli_scalar_stub", N + "Distributions.cpp:126", "stub defined"),
        E("bernoulli_scalar_kernel", NC + "DistributionBernoulli.cu:38", "registered"),
        E("bernoulli_scalar_kernel", N + "cpu/DistributionKernels.cpp:152", "registered"),
        E("bernoulli_scalar_kernel", NC + "DistributionBernoulli.cu:31", "registered function"),
        E("bernoulli_kernel", NC + "DistributionBernoulli.cu:34", "call"),
        E("bernoulli_kernel", DT_CUDA + ":644", "helper"),
        E("AT_DISPATCH_ALL_TYPES_AND3", DT_CUDA + ":645", "dtypes"),
        E("uniform_and_transform", DT_CUDA + ":652", "call"),
        E("uniform_and_transform", DT_CUDA + ":401", "helper"),
        E("distribution_nullary_kernel", DT_CUDA + ":408", "call"),
        E("distribution_nullary_kernel", DT_CUDA + ":115", "helper"),
        E("distribution_elementwise_grid_stride_kernel", DT_CUDA + ":150", "launch"),
        E("distribution_elementwise_grid_stride_kernel", DT_CUDA + ":66", "__global__"),
    )),
    # Read (2.6.0): native_functions.yaml:13071, native/cuda/DepthwiseConv3d.cu. The launches are written in
    # file-scope #defines (DWCONV3D_FORWARD_DISPATCH_SPECIALIZATION, :357-372, its `<<<` at :363) used at :452-453;
    # the macro uses carry no `;`, which once ran the function on to the namespace's end and gave it the launch of
    # the backward kernel that the next #define writes (:472).
    Trace("2.6.0", "conv_depthwise3d", "CUDA", "a launch written in a file-scope #define", (
        E("conv_depthwise3d_cuda", NC + "DepthwiseConv3d.cu:390", "definition"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", NC + "DepthwiseConv3d.cu:426", "dtypes"),
        E("conv_depthwise3d_cuda_kernel", NC + "DepthwiseConv3d.cu:363", "launch"),
        E("conv_depthwise3d_cuda_kernel", NC + "DepthwiseConv3d.cu:28", "__global__"),
    )),
    # Read (2.6.0): native_functions.yaml (avg_pool3d.out), native/cuda/AveragePool3d.cu: LAUNCH_UPDATE_OUTPUT_
    # KERNEL_WIDTH (:333, its `<<<` at :335) launches the KERNEL_WIDTH template (:105) for widths 1-7 (:415-421),
    # the default case the other one (:36) at :424.
    Trace("2.6.0", "avg_pool3d.out", "CUDA", "pooling: a launch macro and the kernel written out", (
        E("avg_pool3d_out_cuda", NC + "AveragePool3d.cu:347", "definition"),
        E("AT_DISPATCH_FLOATING_TYPES_AND2", NC + "AveragePool3d.cu:400", "dtypes"),
        E("avg_pool3d_cuda_update_output", NC + "AveragePool3d.cu:335", "launch"),
        E("avg_pool3d_cuda_update_output", NC + "AveragePool3d.cu:105", "__global__"),
        E("avg_pool3d_cuda_update_output", NC + "AveragePool3d.cu:424", "launch"),
        E("avg_pool3d_cuda_update_output", NC + "AveragePool3d.cu:36", "__global__"),
    )),
    # Read (1.13.1): native_functions.yaml:9145, native/cuda/ForeachBinaryOpList.cu (FOREACH_BINARY_OP_LIST_ALPHA(
    # add, std::plus) at :102; the dtype dispatch is inside foreach_tensor_list_op), MultiTensorApply.cuh (the
    # overload without scalars at :147), ForeachFunctors.cuh.
    Trace("1.13.1", "_foreach_add.List", "CUDA", "foreach on the older tree", (
        E("foreach_tensor_add_list_kernel_cuda", NC + "ForeachBinaryOpList.cu:102", "definition"),
        E("foreach_tensor_list_op", NC + "ForeachBinaryOpList.cu:20", "helper"),
        E("AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3", NC + "ForeachBinaryOpList.cu:32", "dtypes"),
        E("multi_tensor_apply", NC + "ForeachBinaryOpList.cu:34", "call"),
        E("multi_tensor_apply", NC + "MultiTensorApply.cuh:147", "helper"),
        E("multi_tensor_apply_kernel", NC + "MultiTensorApply.cuh:177", "launch"),
        E("multi_tensor_apply_kernel", NC + "MultiTensorApply.cuh:78", "__global__"),
        E("BinaryOpListAlphaFunctor", NC + "ForeachFunctors.cuh:219", "functor"),
    )),
    # Read (1.13.1): native_functions.yaml (add.out), native/BinaryOps.cpp, tools/autograd/derivatives.yaml.
    Trace("1.13.1", "add.out", "CPU", "out= form on the older tree: meta and the functional op's backward", (
        E("add", N + "BinaryOps.cpp:18", "meta"),
        E("add.Tensor", DERIV + ":212", "backward"),
    )),
)
