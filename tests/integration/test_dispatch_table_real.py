"""The computed dispatch table and `tg-query dispatch` on the real 2.6.0 and 1.13.1 trees.

Every expected entry below was derived by hand from the op's registrations (table
dispatcher_registrations: native_functions.yaml for the generated ones, the file:line written here
for the hand-written ones and the backend fallbacks) with the rules of the version's
aten/src/ATen/core/dispatch/OperatorEntry.cpp computeDispatchTableEntryWithDebug (2.6.0 line / 1.13.1 line):

  1. a kernel at the key (:298 / :291)                 -> kernel
  2.1/2.2 CompositeExplicitAutogradNonFunctional, then CompositeExplicitAutograd, for the backend keys
     they cover (c10/core/DispatchKeySet.cpp: NonFunctional leaves out Sparse, XLA and Lazy)
                                                       -> default backend kernel (:304, :312 / :297, :305)
  2.3 CompositeImplicitAutogradNestedTensor, then CompositeImplicitAutograd; an Autograd key takes the
      math kernel only when its backend key and CompositeExplicitAutograd have none (:338, :344 / :330, :336)
                                                       -> nested kernel / math kernel
  2.4 the Autograd alias (:356 / :348)                 -> autograd kernel
  2.5 FuncTorchBatchedDecomposition (2.6.0 only, :364) -> batched kernel
  3. the key's backend fallback (:375 / :359)          -> backend fallback;  else no entry (None)

Each value: (kind, from_key, fallthrough, the generated kernel or file:line of a hand-written registration).
Kinds of op covered: structured (add.Tensor, add.out, mm, addmm, sigmoid.out), composite implicit (linear,
matmul, dropout, flatten.using_ints, narrow, conj, size.int), composite explicit (copy_, empty_like, clone,
zeros_like, t, _conj), in-place (add_.Tensor, relu_, mul_.Tensor, fill_.Scalar, copy_), view (transpose.int,
view, t, expand, select.int, narrow), factory (empty.memory_format, ones, full, randn, arange.start,
_to_copy's BackendSelect), fallthrough-heavy (copy_, clone, resolve_conj, conj, size.int: Conjugate,
Negative, ZeroTensor, Named lists), Python-meta (angle: torch/_meta_registrations.py registers its Meta
kernel at import; activate_meta's filter, which skips composite-implicit and view ops, is not modelled,
so only an op it keeps is pinned here).
"""

from __future__ import annotations

import pytest

V2_6_0 = {
    "angle": {  # native_functions.yaml:401: CPU, CUDA and SparseCsr kernels, no Meta, not composite
        # @register_meta(aten.angle.default) at torch/_meta_registrations.py:670; activate_meta() gives it to
        # the Meta key (the op has no CompositeImplicitAutograd kernel and is no view)
        "Meta": ("kernel", "Meta", 0, "torch/_meta_registrations.py:670"),
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU__angle"),
    },
    "add.Tensor": {  # native_functions.yaml:552
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU_add_Tensor"),
        "Meta": ("kernel", "Meta", 0, "wrapper_Meta_add_Tensor"),
        "QuantizedCPU": ("default backend kernel", "CompositeExplicitAutogradNonFunctional", 0, "wrapper_CompositeExplicitAutogradNonFunctional_add_Tensor"),
        "XLA": None,
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "VariableType::add_Tensor"),
        "ADInplaceOrView": ("backend fallback", "ADInplaceOrView", 1, "aten/src/ATen/core/VariableFallbackKernel.cpp:101"),
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:34"),
        "Conjugate": ("backend fallback", "Conjugate", 0, "aten/src/ATen/ConjugateFallback.cpp:18"),
        "ZeroTensor": ("kernel", "ZeroTensor", 0, "wrapper_ZeroTensor_Tensor_add"),
        "Metal": ("kernel", "Metal", 0, "aten/src/ATen/native/metal/ops/MetalBinaryElementwise.mm:298"),
    },
    "add.out": {  # native_functions.yaml:575
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU_add_out_out"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::add_out_out"),
        "Functionalize": ("kernel", "Functionalize", 0, "functionalization::add_out_out"),
        "XLA": None,
        "AutogradCUDA": ("autograd kernel", "Autograd", 0, "VariableType::add_out_out"),
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:35"),
    },
    "add_.Tensor": {  # native_functions.yaml:564
        "CUDA": ("kernel", "CUDA", 0, "wrapper_CUDA_add__Tensor"),
        "QuantizedCPU": ("default backend kernel", "CompositeExplicitAutogradNonFunctional", 0, "wrapper_CompositeExplicitAutogradNonFunctional_add__Tensor"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::add__Tensor"),
        "Functionalize": ("kernel", "Functionalize", 0, "functionalization::add__Tensor"),
        "Lazy": None,
    },
    "mm": {  # native_functions.yaml:4132
        "CUDA": ("kernel", "CUDA", 0, "wrapper_CUDA_mm"),
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:45"),
        "AutocastCPU": ("kernel", "AutocastCPU", 0, "aten/src/ATen/autocast_mode.cpp:336"),
        "FuncTorchBatched": ("kernel", "FuncTorchBatched", 0, "aten/src/ATen/functorch/BatchRulesLinearAlgebra.cpp:754"),
        "Lazy": None,
        "AutogradCUDA": ("autograd kernel", "Autograd", 0, "VariableType::mm"),
        "ADInplaceOrView": ("backend fallback", "ADInplaceOrView", 1, "aten/src/ATen/core/VariableFallbackKernel.cpp:101"),
    },
    "addmm": {  # native_functions.yaml:7034
        "Metal": ("kernel", "Metal", 0, "aten/src/ATen/native/metal/ops/MetalAddmm.mm:136"),
        "AutocastMPS": ("kernel", "AutocastMPS", 0, "aten/src/ATen/autocast_mode.cpp:225"),
        "QuantizedCUDA": ("default backend kernel", "CompositeExplicitAutogradNonFunctional", 0, "wrapper_CompositeExplicitAutogradNonFunctional_addmm"),
    },
    "relu": {  # native_functions.yaml:5028
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU__relu"),
        "Meta": ("backend fallback", "Meta", 0, "aten/src/ATen/core/MetaFallbackKernel.cpp:24"),
        "QuantizedCPU": ("kernel", "QuantizedCPU", 0, "wrapper_QuantizedCPU__relu"),
        "Python": ("backend fallback", "Python", 0, "aten/src/ATen/core/PythonFallbackKernel.cpp:195"),
    },
    "relu_": {  # native_functions.yaml:5042
        # @register_meta(aten.relu_.default) at torch/_meta_registrations.py:3775: activate_meta() registers it
        # at Meta after the C++ wrapper_Meta__relu_, and the newest kernel is the one taken (OperatorEntry.cpp:170
        # emplace_front; :151 does not warn for Meta: "overriding C++ meta functions with python meta functions")
        "Meta": ("kernel", "Meta", 0, "torch/_meta_registrations.py:3775"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::relu_"),
    },
    "sigmoid.out": {  # native_functions.yaml:5307
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::sigmoid_out_out"),
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU_sigmoid_out_out"),
        "Tracer": ("kernel", "Tracer", 0, "TraceType::sigmoid_out_out"),
    },
    "linear": {  # native_functions.yaml:3331
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__linear"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__linear"),
        "AutogradNestedTensor": ("autograd kernel", "Autograd", 0, "VariableType::linear"),
        "NestedTensorCPU": ("kernel", "NestedTensorCPU", 0, "wrapper_NestedTensorCPU__linear"),
        "FuncTorchBatched": ("batched kernel", "FuncTorchBatchedDecomposition", 0, "aten/src/ATen/functorch/BatchRulesDecompositions.cpp:164"),
        "FuncTorchDynamicLayerFrontMode": ("kernel", "FuncTorchDynamicLayerFrontMode", 0, "aten/src/ATen/functorch/PyTorchOperatorHacks.cpp:259"),
        "AutocastCPU": ("kernel", "AutocastCPU", 0, "aten/src/ATen/autocast_mode.cpp:342"),
        "Functionalize": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__linear"),
    },
    "matmul": {  # native_functions.yaml:3775
        "CUDA": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__matmul"),
        "AutogradCUDA": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__matmul"),
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:306"),
        "AutogradOther": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__matmul"),
    },
    "dropout": {  # native_functions.yaml:314
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__dropout"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__dropout"),
        "FuncTorchVmapMode": ("kernel", "FuncTorchVmapMode", 0, "aten/src/ATen/functorch/BatchRulesDecompositions.cpp:26"),
        "Functionalize": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__dropout"),
        "ADInplaceOrView": ("backend fallback", "ADInplaceOrView", 1, "aten/src/ATen/core/VariableFallbackKernel.cpp:101"),
    },
    "flatten.using_ints": {  # native_functions.yaml:2664
        "Metal": ("kernel", "Metal", 0, "aten/src/ATen/native/metal/ops/MetalReshape.mm:107"),
        "CUDA": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd_using_ints_flatten"),
        "Functionalize": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd_using_ints_flatten"),
    },
    "copy_": {  # native_functions.yaml:1774
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__copy_"),
        "XLA": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__copy_"),
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "torch/csrc/autograd/VariableTypeManual.cpp:364"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "torch/csrc/autograd/VariableTypeManual.cpp:538"),
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:25"),
        "ZeroTensor": ("kernel", "ZeroTensor", 1, "aten/src/ATen/ZeroTensorFallback.cpp:94"),
        "Tracer": ("kernel", "Tracer", 0, "torch/csrc/autograd/TraceTypeManual.cpp:136"),
        "Functionalize": ("kernel", "Functionalize", 0, "functionalization::copy_"),
    },
    "empty_like": {  # native_functions.yaml:2492
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__empty_like"),
        "QuantizedCPU": ("kernel", "QuantizedCPU", 0, "wrapper_QuantizedCPU__empty_like"),
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "VariableType::empty_like"),
    },
    "clone": {  # native_functions.yaml:6852
        "Vulkan": ("kernel", "Vulkan", 0, "aten/src/ATen/native/vulkan/ops/Clone.cpp:45"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__clone"),
        "Negative": ("kernel", "Negative", 1, "aten/src/ATen/native/NegateFallback.cpp:27"),
    },
    "zeros_like": {  # native_functions.yaml:6591
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__zeros_like"),
        "AutogradNestedTensor": ("nested kernel", "CompositeImplicitAutogradNestedTensor", 0, "wrapper_CompositeImplicitAutogradNestedTensor__zeros_like"),
        "NestedTensorCPU": ("nested kernel", "CompositeImplicitAutogradNestedTensor", 0, "wrapper_CompositeImplicitAutogradNestedTensor__zeros_like"),
        "ZeroTensor": ("kernel", "ZeroTensor", 1, "aten/src/ATen/ZeroTensorFallback.cpp:91"),
    },
    "full": {  # native_functions.yaml:2821
        "BackendSelect": ("kernel", "BackendSelect", 0, "full"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__full"),
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "torch::autograd::autogradNotImplementedFallback()"),
    },
    "mul_.Tensor": {  # native_functions.yaml:4223
        "FuncTorchBatched": ("kernel", "FuncTorchBatched", 0, "aten/src/ATen/functorch/BatchRulesBinaryOps.cpp:499"),
        "QuantizedCPU": ("default backend kernel", "CompositeExplicitAutogradNonFunctional", 0, "wrapper_CompositeExplicitAutogradNonFunctional_mul__Tensor"),
        "Functionalize": ("kernel", "Functionalize", 0, "functionalization::mul__Tensor"),
    },
    "fill_.Scalar": {  # native_functions.yaml:2697
        "QuantizedCPU": ("kernel", "QuantizedCPU", 0, "wrapper_QuantizedCPU_Scalar_fill_"),
        "SparseCPU": None,
        # @register_meta([aten.fill_.Tensor, aten.fill_.Scalar]) at torch/_meta_registrations.py:3765 takes
        # Meta over wrapper_Meta_Scalar_fill_, as for relu_
        "Meta": ("kernel", "Meta", 0, "torch/_meta_registrations.py:3765"),
    },
    "transpose.int": {  # native_functions.yaml:6109
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::transpose_int"),
        "Functionalize": ("kernel", "Functionalize", 0, "functionalization::transpose_int"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd_int_transpose"),
        "Metal": ("kernel", "Metal", 0, "aten/src/ATen/native/metal/ops/MetalTranspose.mm:96"),
    },
    "view": {  # native_functions.yaml:8074
        "ZeroTensor": ("kernel", "ZeroTensor", 0, "wrapper_ZeroTensor__view"),
        "AutogradNestedTensor": ("kernel", "AutogradNestedTensor", 0, "VariableType::view_AutogradNestedTensor"),
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU__view"),
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "VariableType::view"),
    },
    "t": {  # native_functions.yaml:5979
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__t"),
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:469"),
    },
    "expand": {  # native_functions.yaml:2630
        "Vulkan": ("kernel", "Vulkan", 0, "aten/src/ATen/native/vulkan/ops/Expand.cpp:77"),
        "CUDA": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__expand"),
    },
    "select.int": {  # native_functions.yaml:5182
        "SparseCsrCPU": ("kernel", "SparseCsrCPU", 0, "wrapper_SparseCsrCPU_int_select"),
        "AutogradNestedTensor": ("kernel", "AutogradNestedTensor", 0, "VariableType::select_int_AutogradNestedTensor"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd_int_select"),
    },
    "narrow": {  # native_functions.yaml:4323
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__narrow"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__narrow"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::narrow"),
        "Functionalize": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__narrow"),
    },
    "empty.memory_format": {  # native_functions.yaml:2383
        "BackendSelect": ("kernel", "BackendSelect", 0, "empty_memory_format"),
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU_memory_format_empty"),
        "Meta": ("kernel", "Meta", 0, "wrapper_Meta_memory_format_empty"),
        "XLA": None,
        "QuantizedMeta": ("kernel", "QuantizedMeta", 0, "wrapper_QuantizedMeta_memory_format_empty"),
    },
    "ones": {  # native_functions.yaml:4455
        "BackendSelect": ("kernel", "BackendSelect", 0, "ones"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__ones"),
    },
    "randn": {  # native_functions.yaml:4758
        "FuncTorchVmapMode": ("kernel", "FuncTorchVmapMode", 0, "aten/src/ATen/functorch/BatchRulesRandomness.cpp:432"),
        "VmapMode": ("kernel", "VmapMode", 0, "aten/src/ATen/VmapModeRegistrations.cpp:87"),
        "CUDA": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__randn"),
    },
    "arange.start": {  # native_functions.yaml:784
        "BackendSelect": ("kernel", "BackendSelect", 0, "arange_start"),
        "CUDA": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd_start_arange"),
    },
    "conj": {  # native_functions.yaml:470
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__conj"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__conj"),
        # TORCH_VIEW_FNS(m) at ConjugateFallback.cpp:60 writes m.impl("conj", makeFallthrough())
        # (aten/src/ATen/native/MathBitFallThroughLists.h:49): a fallthrough kernel at the key itself
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:60"),
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:119"),
    },
    "resolve_conj": {  # native_functions.yaml:500
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:30"),
        "Negative": ("kernel", "Negative", 1, "aten/src/ATen/native/NegateFallback.cpp:30"),
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd__resolve_conj"),
    },
    "_conj": {  # native_functions.yaml:465
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd___conj"),
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "VariableType::_conj"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::_conj"),
    },
    "size.int": {  # native_functions.yaml:5437
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:429"),
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper_CompositeImplicitAutograd_int_size"),
    },
    "sum.dim_IntList": {  # native_functions.yaml:5787
        "AutogradNestedTensor": ("kernel", "AutogradNestedTensor", 0, "VariableType::sum_dim_IntList_AutogradNestedTensor"),
        "NestedTensorCPU": ("kernel", "NestedTensorCPU", 0, "wrapper_NestedTensorCPU_dim_IntList_sum"),
        "NestedTensorCUDA": None,
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU_sum_dim_IntList"),
    },
    "_to_copy": {  # native_functions.yaml:7733
        "Functionalize": ("kernel", "Functionalize", 0, "aten/src/ATen/FunctionalizeFallbackKernel.cpp:358"),
        "BackendSelect": ("kernel", "BackendSelect", 0, "_to_copy"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd___to_copy"),
    },
    "native_layer_norm": {  # native_functions.yaml:3287
        "AutocastMPS": ("kernel", "AutocastMPS", 0, "aten/src/ATen/autocast_mode.cpp:261"),
        "CPU": ("kernel", "CPU", 0, "wrapper_CPU__native_layer_norm"),
        "XLA": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_CompositeExplicitAutograd__native_layer_norm"),
        "NestedTensorCPU": ("kernel", "NestedTensorCPU", 0, "wrapper_NestedTensorCPU__native_layer_norm"),
    },
}

V1_13_1 = {
    "add.Tensor": {  # native_functions.yaml:483
        "CPU": ("kernel", "CPU", 0, "wrapper_add_Tensor"),
        "Meta": ("kernel", "Meta", 0, "wrapper_add_Tensor"),
        "QuantizedCPU": ("default backend kernel", "CompositeExplicitAutogradNonFunctional", 0, "wrapper_add_Tensor"),
        "XLA": None,
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "VariableType::add_Tensor"),
        "Named": ("kernel", "Named", 1, "aten/src/ATen/core/NamedRegistrations.cpp:34"),
        "ZeroTensor": ("kernel", "ZeroTensor", 0, "wrapper_Tensor_add"),
    },
    "mm": {  # native_functions.yaml:3561
        "AutocastCUDA": ("kernel", "AutocastCUDA", 0, "aten/src/ATen/autocast_mode.cpp:348"),
        "AutocastCPU": ("kernel", "AutocastCPU", 0, "aten/src/ATen/autocast_mode.cpp:496"),
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:46"),
        "CUDA": ("kernel", "CUDA", 0, "wrapper_mm"),
        "Lazy": None,
        "ADInplaceOrView": ("backend fallback", "ADInplaceOrView", 1, "aten/src/ATen/core/VariableFallbackKernel.cpp:65"),
    },
    "linear": {  # native_functions.yaml:2916
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__linear"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__linear"),
        "FuncTorchBatched": ("kernel", "FuncTorchBatched", 0, "aten/src/ATen/functorch/BatchRulesLinearAlgebra.cpp:612"),
        "Functionalize": ("kernel", "Functionalize", 0, "at::native::linear"),
        "AutocastCUDA": ("kernel", "AutocastCUDA", 0, "aten/src/ATen/autocast_mode.cpp:350"),
        "AutogradNestedTensor": ("autograd kernel", "Autograd", 0, "VariableType::linear"),
    },
    "matmul": {  # native_functions.yaml:3227
        "CUDA": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__matmul"),
        "FuncTorchBatched": ("kernel", "FuncTorchBatched", 0, "aten/src/ATen/functorch/BatchRulesDecompositions.cpp:157"),
        "AutocastCUDA": ("kernel", "AutocastCUDA", 0, "aten/src/ATen/autocast_mode.cpp:346"),
    },
    "copy_": {  # native_functions.yaml:1516
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper__copy_"),
        "AutogradCPU": ("autograd kernel", "Autograd", 0, "torch/csrc/autograd/VariableTypeManual.cpp:347"),
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "torch/csrc/autograd/VariableTypeManual.cpp:460"),
        "ZeroTensor": ("kernel", "ZeroTensor", 1, "aten/src/ATen/ZeroTensorFallback.cpp:94"),
    },
    "zeros_like": {  # native_functions.yaml:5618
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper__zeros_like"),
        "ZeroTensor": ("kernel", "ZeroTensor", 1, "aten/src/ATen/ZeroTensorFallback.cpp:91"),
        "NestedTensorCPU": None,
        "AutogradNestedTensor": ("autograd kernel", "Autograd", 0, "VariableType::zeros_like"),
    },
    "transpose.int": {  # native_functions.yaml:5224
        "ADInplaceOrView": ("kernel", "ADInplaceOrView", 0, "ADInplaceOrView::transpose_int"),
        "Functionalize": ("kernel", "Functionalize", 0, "functionalization::transpose_int"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper_int_transpose"),
    },
    "view": {  # native_functions.yaml:6954
        "ZeroTensor": ("kernel", "ZeroTensor", 0, "wrapper__view"),
        "CPU": ("kernel", "CPU", 0, "wrapper__view"),
        "AutogradNestedTensor": ("kernel", "AutogradNestedTensor", 0, "VariableType::view_AutogradNestedTensor"),
    },
    "empty.memory_format": {  # native_functions.yaml:2085
        "BackendSelect": ("kernel", "BackendSelect", 0, "empty_memory_format"),
        "CPU": ("kernel", "CPU", 0, "wrapper_memory_format_empty"),
        "Meta": ("kernel", "Meta", 0, "wrapper_memory_format_empty"),
        "XLA": None,
    },
    "ones": {  # native_functions.yaml:3797
        "BackendSelect": ("kernel", "BackendSelect", 0, "ones"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper__ones"),
        "Meta": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper__ones"),
    },
    "narrow": {  # native_functions.yaml:3710
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__narrow"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__narrow"),
        "Functionalize": ("kernel", "Functionalize", 0, "at::native::narrow"),
        "ADInplaceOrView": ("backend fallback", "ADInplaceOrView", 1, "aten/src/ATen/core/VariableFallbackKernel.cpp:65"),
    },
    "conj": {  # native_functions.yaml:412
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__conj"),
        # TORCH_VIEW_FNS(m) at ConjugateFallback.cpp:61 (aten/src/ATen/native/MathBitFallThroughLists.h:49)
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:61"),
        "Functionalize": ("kernel", "Functionalize", 0, "at::native::conj"),
    },
    "resolve_conj": {  # native_functions.yaml:438
        "Conjugate": ("kernel", "Conjugate", 1, "aten/src/ATen/ConjugateFallback.cpp:31"),
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__resolve_conj"),
    },
    "dropout": {  # native_functions.yaml:268
        "CPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__dropout"),
        "AutogradCPU": ("math kernel", "CompositeImplicitAutograd", 0, "wrapper__dropout"),
        "FuncTorchDynamicLayerFrontMode": ("kernel", "FuncTorchDynamicLayerFrontMode", 0, "aten/src/ATen/functorch/PyTorchOperatorHacks.cpp:299"),
        "Functionalize": ("kernel", "Functionalize", 0, "at::native::dropout"),
    },
    "_to_copy": {  # native_functions.yaml:6640
        "Functionalize": ("kernel", "Functionalize", 0, "aten/src/ATen/FunctionalizeFallbackKernel.cpp:300"),
        "BackendSelect": ("kernel", "BackendSelect", 0, "_to_copy"),
        "CPU": ("default backend kernel", "CompositeExplicitAutograd", 0, "wrapper___to_copy"),
    },
    "sum.dim_IntList": {  # native_functions.yaml:4943
        "AutocastCUDA": ("kernel", "AutocastCUDA", 0, "aten/src/ATen/autocast_mode.cpp:458"),
        "NestedTensorCPU": ("kernel", "NestedTensorCPU", 0, "wrapper_dim_IntList_sum"),
        "AutogradNestedTensor": ("kernel", "AutogradNestedTensor", 0, "VariableType::sum_dim_IntList_AutogradNestedTensor"),
        "NestedTensorCUDA": None,
    },
    "relu": {  # native_functions.yaml:4316
        "CPU": ("kernel", "CPU", 0, "wrapper__relu"),
        "Meta": None,
        "QuantizedCPU": ("kernel", "QuantizedCPU", 0, "wrapper__relu"),
        "AutogradMeta": ("autograd kernel", "Autograd", 0, "VariableType::relu"),
    },
}


def entries(ix, op: str) -> dict:
    rows = ix.conn.execute("SELECT key, kind, from_key, fallthrough, kernel, source, file, line FROM dispatch_table "
                           "WHERE op = ?", (f"aten::{op}",)).fetchall()
    return {key: (kind, from_key, ft, kernel if source == "generated" else f"{file}:{line}")
            for key, kind, from_key, ft, kernel, source, file, line in rows}


@pytest.mark.parametrize("op", sorted(V2_6_0))
def test_table_2_6_0(ix, op):
    got = entries(ix, op)
    assert {key: got.get(key) for key in V2_6_0[op]} == V2_6_0[op]


@pytest.mark.parametrize("op", sorted(V1_13_1))
def test_table_1_13_1(old, op):
    got = entries(old, op)
    assert {key: got.get(key) for key in V1_13_1[op]} == V1_13_1[op]


def test_keys_of_each_version(ix, old):
    """The checkouts' own DispatchKey.h: 2.6.0 has MTIA and SparseCsr as per-backend keys, 1.13.1 neither."""
    count = "SELECT count(*) FROM dispatch_keys WHERE kind = ?"
    assert [ix.conn.execute(count, (k,)).fetchone()[0] for k in ("functionality", "runtime", "alias")] == [40, 90, 6]
    assert [old.conn.execute(count, (k,)).fetchone()[0] for k in ("functionality", "runtime", "alias")] == [35, 70, 5]
    assert ix.conn.execute("SELECT priority, covered_by FROM dispatch_keys WHERE name = 'SparseCsrCUDA'").fetchone() == (
        10, '["CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"]')
    assert old.conn.execute("SELECT kind FROM dispatch_keys WHERE name = 'SparseCsrCUDA'").fetchone() == ("functionality",)
    assert old.conn.execute("SELECT count(*) FROM dispatch_table WHERE kind = 'batched kernel'").fetchone() == (0,)


def walk(ix, name: str, **flags):
    (w,) = [w for w in ix.dispatch_walk(name, depth=1, **flags) if w.op == f"aten::{name}"]
    return ([(v.key, v.action, v.kind, v.from_key, v.kernel if v.line is None else f"{v.file}:{v.line}")
             for v in w.visits], (w.handler.key, w.handler.qualified_name, str(w.handler.definition)), w)


RUNS = "runs and redispatches below itself"
NO_GRAD = "runs (no input requires grad: records nothing) and redispatches below itself"
GRAD = "runs, records the backward (an input requires grad) and redispatches below itself"
FALLS, HANDLES = "falls through", "handles the call"
AD_FALLBACK = ("ADInplaceOrView", FALLS, "backend fallback", "ADInplaceOrView", "aten/src/ATen/core/VariableFallbackKernel.cpp:101")
BS_FALLBACK = ("BackendSelect", FALLS, "backend fallback", "BackendSelect", "aten/src/ATen/core/BackendSelectFallbackKernel.cpp:4")


def test_walk_cpu_without_grad(ix):
    visits, handler, w = walk(ix, "mm")
    assert w.keyset == ("AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU")
    assert visits == [("AutogradCPU", NO_GRAD, "autograd kernel", "Autograd", "VariableType::mm"), AD_FALLBACK,
                      BS_FALLBACK, ("CPU", HANDLES, "kernel", "CPU", "wrapper_CPU_mm")]
    assert handler == ("CPU", "at::native::structured_mm_out_cpu::impl", "aten/src/ATen/native/LinearAlgebra.cpp:1632")


def test_walk_cuda_with_grad(ix):
    visits, handler, w = walk(ix, "add.Tensor", device="cuda", requires_grad=True)
    assert visits == [("AutogradCUDA", GRAD, "autograd kernel", "Autograd", "VariableType::add_Tensor"), AD_FALLBACK,
                      BS_FALLBACK, ("CUDA", HANDLES, "kernel", "CUDA", "wrapper_CUDA_add_Tensor")]
    assert handler == ("CUDA", None, "None")  # ufunc_add_CUDA, generated: its chain says what it is made from
    assert w.handler.note == "kernel (computed dispatch table); generated at build time from ufunc_inner_loop"
    assert [s.name for s in w.handler.chain[:1]] == ["ufunc_add_CUDA: gpu_kernel over ufunc::add"]


def test_walk_cuda_under_autocast_1_13_1(old):
    """1.13.1's autocast_mode.cpp registers mm for AutocastCUDA (as `Autocast`) with a local KERNEL macro (:348)."""
    visits, handler, _w = walk(old, "mm", device="cuda", autocast=True)
    assert visits[0] == ("AutocastCUDA", RUNS, "kernel", "AutocastCUDA", "aten/src/ATen/autocast_mode.cpp:348")
    assert visits[1:] == [
        ("AutogradCUDA", NO_GRAD, "autograd kernel", "Autograd", "VariableType::mm"),
        ("ADInplaceOrView", FALLS, "backend fallback", "ADInplaceOrView", "aten/src/ATen/core/VariableFallbackKernel.cpp:65"),
        BS_FALLBACK, ("CUDA", HANDLES, "kernel", "CUDA", "wrapper_mm")]
    assert handler == ("CUDA", "at::native::structured_mm_out_cuda::impl", "aten/src/ATen/native/cuda/Blas.cpp:420")


def test_walk_cpu_under_autocast(ix):
    visits, _handler, w = walk(ix, "mm", autocast=True)
    assert w.keyset[0] == "AutocastCPU"
    assert visits[0] == ("AutocastCPU", RUNS, "kernel", "AutocastCPU", "aten/src/ATen/autocast_mode.cpp:336")


def test_walk_inplace_with_grad(ix):
    visits, handler, _w = walk(ix, "add_.Tensor", requires_grad=True)
    assert visits == [("AutogradCPU", GRAD, "autograd kernel", "Autograd", "VariableType::add__Tensor"),
                      ("ADInplaceOrView", RUNS, "kernel", "ADInplaceOrView", "ADInplaceOrView::add__Tensor"),
                      BS_FALLBACK, ("CPU", HANDLES, "kernel", "CPU", "wrapper_CPU_add__Tensor")]


def test_walk_factory_through_backend_select(ix):
    visits, handler, w = walk(ix, "empty.memory_format", device="cuda")
    assert (w.factory, w.keyset) == (True, ("ADInplaceOrView", "BackendSelect"))
    assert visits == [AD_FALLBACK,
                      ("BackendSelect", "runs and redispatches to the backend key alone", "kernel", "BackendSelect",
                       "empty_memory_format"),
                      ("CUDA", HANDLES, "kernel", "CUDA", "wrapper_CUDA_memory_format_empty")]
    assert handler == ("CUDA", "at::native::empty_cuda", "aten/src/ATen/native/cuda/TensorFactories.cu:54")


def test_walk_view_under_functionalize(ix):
    visits, handler, _w = walk(ix, "transpose.int", functionalize=True)
    assert visits == [("AutogradCPU", NO_GRAD, "autograd kernel", "Autograd", "VariableType::transpose_int"),
                      ("ADInplaceOrView", RUNS, "kernel", "ADInplaceOrView", "ADInplaceOrView::transpose_int"),
                      ("Functionalize", RUNS, "kernel", "Functionalize", "functionalization::transpose_int"),
                      BS_FALLBACK,
                      ("CPU", HANDLES, "default backend kernel", "CompositeExplicitAutograd",
                       "wrapper_CompositeExplicitAutograd_int_transpose")]
    assert handler == ("CPU <- CompositeExplicitAutograd", "at::native::transpose", "aten/src/ATen/native/TensorShape.cpp:3156")


def test_kernels_for_key_cpu_through_the_table(ix):
    """A CPU tensor's copy_ runs the CompositeExplicitAutograd kernel, walked for CPU; a key the yaml names is as
    before."""
    (answer,) = ix.kernels_for("copy_", ("CPU",), depth=1)
    (key,) = answer.keys
    assert (key.key, key.qualified_name, str(key.definition), key.note) == (
        "CPU <- CompositeExplicitAutograd", "at::native::copy_", "aten/src/ATen/native/Copy.cpp:353",
        "default backend kernel (computed dispatch table)")
    # It runs for CPU: copy_impl's copy_stub call (Copy.cpp:310) reaches the CPU registration (cpu/CopyKernel.cpp:328)
    # and its copy_kernel (:286), not CUDA's (cuda/Copy.cu:413, copy_kernel_cuda at :306).
    registered = [(s.device, s.name, str(s.loc)) for s in key.chain if s.kind == "registered"]
    assert registered[0] == ("CPU", "copy_kernel", "aten/src/ATen/native/cpu/CopyKernel.cpp:328")
    assert {device for device, _n, _l in registered} == {"CPU"}
    (cuda,) = ix.kernels_for("copy_", ("CUDA",), depth=1)
    assert [(s.device, s.name, str(s.loc)) for s in cuda.keys[0].chain if s.kind == "registered"] == [
        ("CUDA", "copy_kernel_cuda", "aten/src/ATen/native/cuda/Copy.cu:413")]
    (plain,) = ix.kernels_for("mm.out", ("CPU",), depth=0)
    assert [(k.key, k.origin, k.kernel, k.note) for k in plain.keys] == [("CPU", "yaml", "mm_out_cpu", None)]
    (grad,) = ix.kernels_for("mm.out", ("AutogradCPU",), depth=0)
    assert [(k.key, k.origin, k.kernel, k.note) for k in grad.keys] == [
        ("AutogradCPU <- Autograd", "generated", "VariableType::mm_out_out",
         "autograd kernel (computed dispatch table); registered in the generated VariableType_1.cpp")]


def test_mcp_dispatch_tool_matches_the_cli(real_dbs):
    """The MCP server's dispatch tool (through the SDK's client over stdio) says what `tg-query dispatch --json` says."""
    import json

    import anyio

    from ..conftest import run
    from ..test_mcp import _session

    db = real_dbs("2.6.0")
    got = anyio.run(_session, db, [("d", "dispatch", {"op": "mm.out", "device": "cuda", "requires_grad": True, "depth": 1}),
                                   ("bad", "dispatch", {"op": "mm.outt"})])
    assert not got["d"].is_error, got["d"].content[0].text
    cli = run("tg-query", "--db", str(db), "dispatch", "mm.out", "--device", "cuda", "--requires-grad", "--depth", "1",
              "--json")
    assert got["d"].structured_content["walks"] == [json.loads(cli.stdout)]
    assert got["d"].content[0].text == run("tg-query", "--db", str(db), "dispatch", "mm.out", "--device", "cuda",
                                           "--requires-grad", "--depth", "1").stdout
    assert got["bad"].is_error and got["bad"].content[0].text.startswith("error: unknown op 'mm.outt'; did you mean")
