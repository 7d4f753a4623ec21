"""The closed vocabularies of the index. Each value is the plain string stored in SQL and JSON."""

from __future__ import annotations

from enum import StrEnum

# The devices a device branch (device_branches.not_on) names: a key's tensors on one of them; a branch ruled
# out for a device's dense tensors only (by a layout test such as `is_quantized()`) is named DENSE + device.
BRANCH_DEVICES = ("CPU", "CUDA", "HIP", "MPS", "XPU", "Meta", "Vulkan", "Metal", "MTIA", "XLA", "Lazy", "HPU")
DENSE = "Dense"
# device_branches.branch of a stretch of lines under an #if that holds calls (indexer/cxx/extract.py): the build
# decides its guard with the checkout's constant #defines (guards.py)
PREPROCESSOR = "#if"
NEVER_COMPILED = "never compiled"  # device_branches.not_on of such a stretch whose guard no build makes true (guards.py)
# The build a device's kernels are compiled in, as #if conditions that all hold there, each with what code under
# an #if that requires the opposite is, in words: a CUDA key's kernels are those of a CUDA build (USE_ROCM not
# defined; a ROCm build compiles the same files hipified, and registers them for CUDA too), a HIP key's those of a
# ROCm build; and neither is an Android or iOS build, the only ones that define C10_MOBILE (c10/macros/Macros.h
# defines it for __ANDROID__ and for iOS targets; PyTorch builds no GPU backend there). The config header's
# function-like macros follow the same build (2.6.0 aten/src/ATen/cuda/CUDAConfig.h.in:9-11 writes CMake's values):
# AT_ROCM_ENABLED() is 1 exactly when USE_ROCM is set (cmake/Dependencies.cmake:1449-1456; that build's compiler flags
# define USE_ROCM and TORCH_HIP_VERSION together, 2.6.0 cmake/Dependencies.cmake:1037-1040), and AT_CUDNN_ENABLED()
# is USE_CUDNN (aten/src/ATen/CMakeLists.txt:35, cmake/Dependencies.cmake:40), an option on by default where
# USE_CUDA is (CMakeLists.txt:250), which a ROCm build turns off. link/configurations.py builds_without and
# build_reason read them; a stretch under an #if a device's build does not compile names the device in not_on
# (guards.py); a kernel defined under several guards is the definition the key's build compiles
# (link/kernels.py).
# A CPU key's chain is a desktop or server build's too (an Android or iOS build is PyTorch Mobile's, whose
# xnnpack paths a CPU chain names in a truncation), and so is the chain of a key of no device of its own
# (a composite kernel's, Meta's, MPS's): BASE_BUILD's.
_NOT_MOBILE = ("!defined(C10_MOBILE)", "only an Android or iOS build (C10_MOBILE) compiles")
BASE_BUILD = "CPU"
DEVICE_BUILDS = {"CPU": (_NOT_MOBILE,),
                 "CUDA": (("!defined(USE_ROCM)", "only a ROCm build (USE_ROCM) compiles"),
                          ("!defined(TORCH_HIP_VERSION)", "only a ROCm build (TORCH_HIP_VERSION) compiles"),
                          ("!AT_ROCM_ENABLED()", "only a ROCm build (AT_ROCM_ENABLED()) compiles"),
                          ("AT_CUDNN_ENABLED()", "only a build without cuDNN (USE_CUDNN=0) compiles"), _NOT_MOBILE),
                 "HIP": (("defined(USE_ROCM)", "a ROCm build (USE_ROCM) does not compile"),
                         ("defined(TORCH_HIP_VERSION)", "a ROCm build (TORCH_HIP_VERSION) does not compile"),
                         ("AT_ROCM_ENABLED()", "a ROCm build (AT_ROCM_ENABLED()) does not compile"),
                         ("!AT_CUDNN_ENABLED()", "a ROCm build (no cuDNN) does not compile"), _NOT_MOBILE)}


def key_build(key: str) -> str:
    """The device of DEVICE_BUILDS whose build compiles a dispatch key's kernels (CUDA for SparseCUDA and
    AutocastCUDA, CPU for QuantizedCPU); BASE_BUILD for a key of no such device (a composite key, Meta, MPS)."""
    return next((device for device in DEVICE_BUILDS if device in key), BASE_BUILD)


# ops.kind: what native_yaml.Op.kind calls a schema, after torchgen's SchemaKind.
OP_KINDS = ("functional", "inplace", "out", "mutable", "scratch")


class Origin(StrEnum):
    """Where a dispatch row comes from (dispatch.origin)."""

    YAML = "yaml"
    COMPOSITE_IMPLICIT = "composite_implicit"
    AUTOGEN = "autogen"
    UFUNC = "ufunc"
    DELEGATE = "delegate"
    META = "meta"


class DefinitionKind(StrEnum):
    """definitions.kind"""

    FUNCTION = "function"
    METHOD = "method"
    GLOBAL_KERNEL = "global_kernel"
    DEVICE_FUNCTION = "device_function"
    META_FUNC = "meta_func"
    IMPL_FUNC = "impl_func"


class StubKind(StrEnum):
    """stubs.kind"""

    DECLARE = "declare"
    DEFINE = "define"
    REGISTER = "register"


class RegistrationKind(StrEnum):
    """registrations.kind"""

    BLOCK = "block"
    IMPL = "impl"
    DEF = "def"
    FALLBACK = "fallback"


class StubUseHow(StrEnum):
    """stub_uses.how"""

    CALL = "call"
    ARGUMENT = "argument"


class PyCallKind(StrEnum):
    """py_calls.kind: the kind of call target, and what the call's name holds for each."""

    TORCH_C_NN = "torch_c_nn"  # torch._C._nn.X -> "X"
    VF = "vf"  # torch._VF.X -> "X"
    TORCH = "torch"  # torch.X -> "X" (one level only; torch.cuda.x is python)
    TENSOR_METHOD = "tensor_method"  # x.X(...) on a value, or torch.Tensor.X -> "X"
    TENSOR_BASE = "tensor_base"  # torch._C.TensorBase.X / _TensorBase.X, super().X in Tensor -> "X"
    TORCH_OPS = "torch_ops"  # torch.ops.ns.op[.overload] -> "ns::op[.overload]"
    TORCH_C = "torch_c"  # torch._C.<rest> -> "<rest>", e.g. "_VariableFunctions.add"
    FUNCTIONAL = "functional"  # torch.nn.functional.X -> "X"
    PYTHON = "python"  # anything else -> last component; target is the dotted callee


class StepKind(StrEnum):
    """The kind of a step in a kernels-for chain."""

    STUB = "stub"
    REGISTERED = "registered"
    CALL = "call"
    LAUNCH = "launch"
    GLOBAL_KERNEL = "global_kernel"
    DTYPES = "dtypes"
    LIBRARY = "library"
    OP = "op"
    GENERATED = "generated"
    UFUNC = "ufunc"
    DECLARED = "declared"  # a stub's DECLARE_DISPATCH
    DEFINED = "defined"  # a stub's DEFINE_DISPATCH
    DEFINITION = "definition"  # the definition of a registered kernel or of a redispatched op's kernel
    FUNCTOR = "functor"  # the operator() or lambda a launch helper or loop runs
    REDISPATCH = "redispatch"  # an op called through the dispatcher from the chain (at::, Tensor methods)
