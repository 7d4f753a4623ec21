"""The steps of the hand-verified traces that kernels-for does not reach yet, each with its reason.

The trace tests assert that exactly these steps are missing: a step reached again fails the test
until it is taken off this list, so the list cannot go stale. The reasons were read in the sources;
UNDIAGNOSED says where no cause was found."""

from __future__ import annotations

AT_USE = "written in a file-local #define (RUN_T, RUN_MB): the walk reaches it at the use that expands it (RUN_T(uint32_t), TensorTopK.cu:897 and :899), where the expansion's calls and dtype set are placed (body_macros.py)"
OTHER_DEVICE = "the stub's CPU registration, written in this CUDA trace: a chain shows the registrations for its key's device only"
HANDED_ON = 'cpu_serial_kernel(iter, op) calls its overload with a range (Loops.h:374), whose lambda iter.serial_for_each runs (:366, a step) calls basic_loop (:367); basic_loop hands op on to execute_op, and device_path marks a function that calls its parameter, not one that passes it on, so basic_loop is not a step'
FUNCTOR_LINE = "the functor is shown at its operator() (the next line), not at the struct's line"
UNDIAGNOSED = 'not reached; the cause was not diagnosed this session'
LOOP_ONLY = ("RowwiseMoments (cpu/moments_utils.h:182, called at group_norm_kernel.cpp:61 from the per-dtype "
             "GroupNormKernelImplInternal) and RowwiseMomentsImpl do their work in loops of Vectorized arithmetic: no "
             "launch helper, stub or library call lies below them, and the walk shows the calls that lead to one "
             "(nodes.device_path 0); only a loop function an AT_DISPATCH lambda calls itself is shown (chain.PER_DTYPE)")
DISPATCH_LINE = ("an entry with a `dispatch:` block has a derivative per key, each at its key's line (`Default:`, two "
                 "lines below the `- name:` line the trace names); the entry's name line is not a location of either")
NO_DEVICE_WORK = ("the call is resolved (a same-namespace calls edge to this definition), but the function does no "
                  "device work: it picks or unwraps what the library call below uses (itensor_from_mkldnn returns the "
                  "ideep tensor a MKL-DNN tensor holds, MKLDNNCommon.cpp:105; getCudnnBatchNormMode the cuDNN mode by "
                  "rank and memory format, cudnn/BatchNorm.cpp:87), and calls that lead to no device work are not steps")
VML_LOOP = "called in the loop lambda iter.for_each runs (IMPLEMENT_ITERATOR_LAMBDA, cpu/UnaryOpsKernel.cpp:725): TensorIteratorBase::for_each is not a launch helper, and vml::vsin itself does no device work, so the walk shows no step for it"

GAPS: dict[str, dict[tuple[str, str], str]] = {
    'Y1:mul.out-CUDA': {
        ('aten/src/ATen/native/cuda/BinaryInternal.h:28', 'MulFunctor'): FUNCTOR_LINE,
    },
    'Y1:sum.IntList_out-CUDA': {
        ('tools/autograd/derivatives.yaml:1687', 'sum.dim_IntList'): DISPATCH_LINE,
    },
    'Y1:topk.values-CUDA': {
        ('aten/src/ATen/native/cuda/TensorTopK.cu:838', 'AT_DISPATCH_ALL_TYPES_AND2'): AT_USE,
        ('aten/src/ATen/native/cuda/TensorTopK.cu:823', 'sbtopk::launch'): AT_USE,
        ('aten/src/ATen/native/cuda/TensorTopK.cu:821', 'mbtopk::launch'): AT_USE,
    },
    'Y1:native_group_norm-CPU': {
        ('aten/src/ATen/native/cpu/group_norm_kernel.cpp:61', 'RowwiseMoments'): LOOP_ONLY,
        ('aten/src/ATen/native/cpu/moments_utils.h:182', 'RowwiseMoments'): LOOP_ONLY,
        ('aten/src/ATen/native/cpu/moments_utils.h:189', 'RowwiseMomentsImpl'): LOOP_ONLY,
        ('aten/src/ATen/native/cpu/moments_utils.h:110', 'RowwiseMomentsImpl'): LOOP_ONLY,
    },
    'Y1:sin.out-CPU': {
        ('aten/src/ATen/cpu/vml.h:89', 'sin'): VML_LOOP,
    },
    'Y1:sum.IntList_out-CUDA-1.13.1': {
        ('tools/autograd/derivatives.yaml:1544', 'sum.dim_IntList'): DISPATCH_LINE,
    },
    'Y2:mkldnn_linear-MkldnnCPU': {
        ('aten/src/ATen/native/mkldnn/Linear.cpp:85', 'itensor_from_mkldnn'): NO_DEVICE_WORK,
        ('aten/src/ATen/native/mkldnn/MKLDNNCommon.cpp:105', 'itensor_from_mkldnn'): NO_DEVICE_WORK,
    },
    'Y2:cudnn_batch_norm-CUDA': {
        ('aten/src/ATen/native/cudnn/BatchNorm.cpp:168', 'getCudnnBatchNormMode'): NO_DEVICE_WORK,
        ('aten/src/ATen/native/cudnn/BatchNorm.cpp:87', 'getCudnnBatchNormMode'): NO_DEVICE_WORK,
    },
    'Y2:bernoulli_.float-CUDA': {
        ('aten/src/ATen/native/cpu/DistributionKernels.cpp:239', 'bernoulli_scalar_kernel'): OTHER_DEVICE,
    },
    'Y2:native_dropout-CPU': {
        ('aten/src/ATen/native/cpu/Loops.h:367', 'basic_loop'): HANDED_ON,
    },
    'Y2:bernoulli_.float-CUDA-1.13.1': {
        ('aten/src/ATen/native/cpu/DistributionKernels.cpp:152', 'bernoulli_scalar_kernel'): OTHER_DEVICE,
    },
}
