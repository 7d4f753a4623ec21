"""What a callee is when it is no definition of the checkout: a macro, the standard library or a
language built-in, a vendor library, a type, an op through the dispatcher, a Tensor method.

These are named classes of targets (edges with `dst` NULL and this `how`), told from the name as
written and from facts of the whole checkout: the macro table, the op names, the classes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from .. import naming
from .kinds import How
from .overloads import ARITHMETIC

# C++ and CUDA built-ins: casts and operators that look like calls, and the CUDA intrinsics.
LANGUAGE = frozenset("""static_cast reinterpret_cast const_cast dynamic_cast bit_cast sizeof alignof alignas decltype
typeid noexcept static_assert offsetof defined assert va_start va_end va_arg atomicAdd atomicSub atomicMax atomicMin
atomicCAS atomicExch atomicAnd atomicOr atomicXor atomicInc atomicDec make_float2 make_float4 make_int2 make_int4
make_double2 make_half2 make_uint2 make_uint4 make_cuFloatComplex make_cuDoubleComplex""".split())

# Names the C and C++ standard libraries (and CUDA's device math) provide, called unqualified.
STANDARD_NAMES = frozenset("""min max abs fabs fabsf exp expf exp2 expm1 log logf log2 log10 log1p sqrt sqrtf rsqrt
rsqrtf cbrt pow powf floor floorf ceil ceilf round roundf trunc rint nearbyint fmod remainder fmin fmax fminf fmaxf
lrint lrintf llrint llrintf lround lroundf llround llroundf rintf nearbyintf truncf
sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh erf erfc erfinv erfcx lgamma tgamma isnan isinf
isfinite signbit copysign nextafter frexp ldexp modf hypot fma memcpy memset memmove memcmp strlen strcmp strncmp
strcpy snprintf sprintf printf fprintf puts malloc free calloc realloc abort exit getenv move forward swap
make_tuple make_pair make_shared make_unique get tie begin end size data distance advance next prev accumulate
sort stable_sort fill copy iota to_string stoi stol stoll stod find count all_of any_of none_of
transform reverse numeric_limits""".split())

# The built-in types and the standard integer typedefs: `float(x)`, `int64_t(n)`, `unsigned(i)` is a functional
# cast, never a call (C++ has no function of these names; a conversion operator is named `operator float`).
BUILTIN_TYPES = frozenset("""bool char char8_t char16_t char32_t wchar_t short int long signed unsigned float double
int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t intmax_t uintmax_t size_t ssize_t
ptrdiff_t""".split())

# The namespaces of the libraries PyTorch builds with (third_party, vendors' SDKs): a name in one of them that the
# checkout does not define is the library's. So is a name of a CUDA library's C API (cublasSgemm, cudnnRNNForward: the
# library's name, then a capital); not a name that only starts with it (2.6.0 cudnn/RNN.cpp:728 `cudnn_method(...)`
# calls a local function pointer).
VENDOR_NAMESPACES = ("thrust", "cub", "dnnl", "ideep", "mkldnn", "cutlass", "cute", "cudnn_frontend", "mkl", "fbgemm",
                     "pytorch_qnnpack", "qnnpack", "xnnpack", "sleef", "Sleef", "nnpack", "cpuinfo", "pocketfft", "ducc0",
                     "tensorpipe", "gloo", "nccl", "ncclx")
_VENDOR = re.compile(
    r"(^|::)((?:cublas|cudnn|cusparse|cufft|cusolver)[A-Z]\w*|curand\w*|nvrtc\w*|nvtx\w*|nccl\w*|magma\w*|"
    r"mkl_\w+|cblas_\w+|Dfti\w+|vsl[A-Z]\w*|vml[A-Z]\w*|v[sdi]Rng\w+|cuda[A-Z]\w*|cu[A-Z]\w*|hip[A-Z]\w*|rocblas\w*|miopen\w*|hipblas\w*|"
    r"MPS(?:Graph|NDArray|Shape|DataType|Kernel|Image|Matrix|Vector|Command|CNN|RNN|Temporary|State|Tensor)\w*|"
    r"MTL[A-Z]\w*|dispatch_[a-z]\w*|vk[A-Z]\w*|vma[A-Z]\w*|cutlass[A-Z]\w*)$|^(" + "|".join(VENDOR_NAMESPACES) +
    r"|at::cuda::blas)::|^(xnn|pytorch_qnnp|qnnp|nnp|Sleef|ducc|cpuinfo)_\w+$")
_VENDOR_SCOPE = re.compile(r"^(?:::)?(" + "|".join(VENDOR_NAMESPACES) + r")::")


def vendor_namespace(type_name: str) -> str | None:
    """The library namespace a qualified type name is in (`cutlass::gemm::GemmCoord`: cutlass), else None."""
    m = _VENDOR_SCOPE.match(type_name)
    return m.group(1) if m else None
# The Fortran BLAS and LAPACK routines PyTorch calls on CPU through its own `extern "C"` declarations (2.6.0
# native/BatchLinearAlgebra.cpp: `sgeqrf_`, `zpotrf_`, `dgesdd_`; native/CPUBlas.cpp: `sgemm_`, `daxpy_`): a type letter
# (s, d, c, z; sb for bfloat16), for LAPACK the matrix kind and the operation, for BLAS the operation, and the
# trailing underscore of Fortran's linkage; no definition in the checkout. LAPACK's C interface is LAPACKE_*.
_LAPACK = re.compile(r"^[sdcz](?:ge|sy|he|po|tr|or|un|gb|gt|pt|st|hs|bd|la)(?:trf|trs|tri|con|qrf|lqf|gqr|mqr|ev|evd|"
                     r"evx|evr|gv|svd|sdd|ls|lsd|lss|lsy|swp|qp3)_$")
_BLAS = re.compile(r"^(?:[sdcz]|sb)(?:gemm|gemv|axpy|copy|dot[cu]?|scal|swap|nrm2|asum|trsm|trmm|trmv|trsv|syrk|herk|"
                   r"ger[cu]?|symm|hemm|symv|hemv)_$")
_STANDARD = re.compile(r"^(::)?(std|cuda::std|__gnu_cxx|__cxxabiv1|detail_std)::")
# Compiler intrinsics: x86 (_mm_*, _mm256_*, _mm512_*, _cvtsh_ss, _bit_scan...) and Arm NEON / SVE (vld1q_f32, svadd_f32_x).
_INTRINSIC = re.compile(r"_mm\d*_\w+|_(cvt|bit|tzcnt|lzcnt|pdep|pext|popcnt|rdtsc|xgetbv)\w*|"
                        r"v[a-z0-9]+q?(_n|_lane|_laneq|_high|_low)?_(f|s|u|p|bf)(8|16|32|64)(_[a-z0-9]+)?|"
                        r"sv[a-z0-9]+_(f|s|u|bf|b)(8|16|32|64)\w*")
_MACRO_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_TYPE_NAME = re.compile(r"\w+_t|[A-Z]|dim3|u?int(8|16|32|64)_t|float\d?|double\d?|half\d?|int\d?|uint\d?|char\d?|"
                        r"short\d?|long\d?|longlong\d?|ulonglong\d?|bool|signed|unsigned|void")


_PARTS: dict[str, tuple[str, str, str | None]] = {}


_FAMILY = re.compile(r"(?:^|::)(cublasLt|cublas|cudnn|cusparse|cufft|curand|cusolver|nvrtc|nccl|magma|mkl|cblas|"
                     r"vsl|vml|v[sdi]Rng|Dfti|pytorch_qnnp(?=_)|qnnp(?=_)|xnn(?=_)|nnp(?=_)|pocketfft|ducc0|"
                     r"thrust|cub|dnnl|ideep|mkldnn|cutlass|cute|fbgemm|xnnpack|qnnpack|sleef|hip|rocblas|miopen|"
                     r"cuda|cu|MPS|mps)", re.I)


# Families whose calls do the work (a vendor call that ends a chain; pocketfft::c2c is PyTorch's CPU FFT where MKL is
# not built, mkl/SpectralOps.cpp; lapack and blas the Fortran routines above); the CUDA runtime's and generic
# ones (cudaGetDevice, thrust::device) stay calls to a vendor library, not chain ends, but for its launches and
# memory copies and sets (_LAUNCH_API, _MEMORY_API).
COMPUTE_FAMILIES = frozenset(("cublaslt", "cublas", "cudnn", "cusparse", "cufft", "curand", "cusolver", "nccl", "magma",
                              "mkl", "cub", "thrust", "onednn", "cutlass", "cute", "fbgemm", "xnnpack", "qnnpack",
                              "sleef", "rocblas", "miopen", "mps", "nnpack", "pocketfft", "ducc", "lapack", "blas"))


# Vendor calls that configure or ask the library (threads, version, memory; the CUDA libraries' handles, streams,
# descriptors, plans and attributes made, set, initialised or destroyed, the verb after any words of the name:
# cusparseCreateMatDescr, cudnnSetTensorNdDescriptor, cublasSetStream, cublasLtMatmulDescSetAttribute, cusparseLtInit,
# cusparseLtMatmulPlanInit; their Get* queries, such as a workspace size, stay calls of the library) or that only name
# what an algorithm runs on (thrust's execution policies, iterators and pointer wrappers: thrust::cuda::par,
# thrust::make_counting_iterator; fbgemm's CPU capability checks, fbgemm::is_radix_sort_accelerated_with_openmp, and any
# library's check_, is_ or has_ functions in its namespace (ideep::has_bf16_type_support),
# aotriton::v2::flash::check_gpu (transformers/cuda/attention.cu:1131, the ROCm build's test of the GPU); MAGMA's
# version, initialisation and queues (magma_version, magma_init, magma_queue_create_from_cuda); oneDNN's attributes,
# scales, dims, engines, streams and the descriptors it expects, ideep::attr_t::fuse_relu, and a primitive's cache of
# computations, ideep::convolution_forward::t_store().clear() (mkldnn/IDeepRegistration.cpp:28, which
# at::set_num_threads calls); the C APIs of QNNPACK, XNNPACK and NNPACK making, setting up, reshaping and deleting an
# operator, pytorch_qnnp_create_add_nc_q8, whose pytorch_qnnp_run_operator, xnn_run_operator or nnp_convolution_output
# then computes) rather than compute: an edge to the vendor (How.VENDOR), not a calls-library edge that ends a chain as
# the work done.
_SERVICE = re.compile(r"(^|::)(mkl_(set|get|free|enable|disable|verbose|mem|peak|finalize|thread)\w*|"
                      r"vsl(New|Delete|Copy|SkipAhead|LeapFrog|Get|Save|Load)\w*|"
                      r"Dfti(Create|Free|Commit|Set|Get|Error|Copy)\w*|"
                      r"(cublas|cusparse|cudnn|cusolver|cufft|curand|miopen|rocblas)(?:[A-Z][a-z]*)*?"
                      r"(Create|Destroy|Set[A-Z]|Init$)\w*|"
                      r"thrust::(\w+::)?(par|par_nosync|seq|device|host)|"
                      r"thrust::(\w*_iterator|make_\w*_iterator|device_ptr|device_pointer_cast|raw_pointer_cast)(<.*>)?|"
                      r"fbgemm::(fbgemmSupportedCPU|is_\w+)|"
                      r"(\w+::)+(check|is|has)_\w+|"
                      r"magma_(version|init\w*|finalize|queue_\w+)|"
                      r"(pytorch_qnnp|qnnp|xnn|nnp)_(create|setup|reshape|define|delete|initialize|deinitialize|log)\w*|"
                      r"ideep::(attr_t(::\w+)?|scale_t|zero_point_t|dims|engine(::\w+)?|stream(::\w+)?|tensor::desc|"
                      r"utils::\w+|\w+::expected_\w+_desc|\w+::t_store(\(\)\.\w+)?))$")


# cuDNN's C++ frontend only builds what cuDNN runs: its descriptor, graph, plan and variant-pack builders, their
# setters, the graph's tensor and node definitions, validation and plan building (2.6.0 cudnn/Conv_v8.cpp,
# cudnn/MHA.cpp) configure it; the work is cudnnBackendExecute, or the graph's execute.
_FRONTEND = re.compile(r"^cudnn_frontend::")
# The member of a library's object that runs what was built: `mha_graph->execute(handle, variant_pack, workspace)`
# on a cudnn_frontend graph (cudnn/MHA.cpp:851), whose receiver's type is in a namespace outside the checkout; a
# CUTLASS device-level operator's `run(stream)` (cuda/MixedDtypesLinear.cu:147 `gemm_op.run(...)` on a
# cutlass::gemm::device::GemmUniversalBase, after its can_implement and initialize).
RUN_METHOD = "execute"
_RUN_BY_LIBRARY = {"cutlass": "run"}  # by the library of the receiver's class


def runs_what_was_built(library: str | None, name: str) -> bool:
    """Whether a member call of this name on an object of a library's class runs the library's work."""
    return bool(library) and (name == RUN_METHOD or name == _RUN_BY_LIBRARY.get(library))


_RUNS = re.compile(r"(?:^|::|\.|->)" + RUN_METHOD + r"$")


def is_service_call(callee: str) -> bool:
    if _FRONTEND.search(callee) is not None:
        return _RUNS.search(callee) is None
    return _SERVICE.search(callee) is not None


# The CUDA driver's, the CUDA runtime's and HIP's calls that launch a kernel by its handle, where no `<<<...>>>` is
# written: a kernel the checkout compiles at run time (the jiterator's NVRTC kernels, launched by
# jit_utils.cpp's launch_jitted_pwise_function through `nvrtc.cuLaunchKernel`). Such a call is the device work done.
_LAUNCH_API = re.compile(r"(?:^|::|\.|->)(?:(cu)Launch(?:Cooperative)?Kernel(?:Ex)?|(cuda)Launch(?:Cooperative)?Kernel"
                         r"(?:ExC)?|(hip)(?:Module|Ext)?Launch(?:Cooperative)?Kernel(?:GGL|Ex)?)(?:<.*>)?$")
_LAUNCH_FAMILY = {"cu": "cuda driver", "cuda": "cuda runtime", "hip": "hip"}
# ... and their calls that copy or set device memory (the copy engines', or the runtime's memset kernel): a copy_
# between devices, or of one dtype and layout on one, is `cudaMemcpyAsync` (2.6.0 native/cuda/Copy.cu:381,
# copy_kernel_cuda), `.item()` a `cudaMemcpyAsync` in c10/cuda/CUDAFunctions.h's memcpy_and_sync. Also the work done.
_MEMORY_API = re.compile(r"(?:^|::|\.|->)(?:(cu)Mem(?:cpy|set)\w*|(cuda)Mem(?:cpy|set)\w*|(hip)Mem(?:cpy|set)\w*)"
                         r"(?:<.*>)?$")


def compute_family(callee: str) -> str | None:
    """The library family of a vendor call that does the work (a compute library's, or a kernel launched or memory
    copied or set through a driver or runtime API: "cuda driver" for `nvrtc.cuLaunchKernel`, "cuda runtime" for
    `cudaMemcpyAsync`), else None (a service or runtime call)."""
    launch = _LAUNCH_API.search(callee) or _MEMORY_API.search(callee)
    if launch is not None:
        return _LAUNCH_FAMILY[next(g for g in launch.groups() if g)]
    family = vendor_family(callee)
    return family if family in COMPUTE_FAMILIES else None


def _fortran(name: str) -> str | None:
    """"lapack" or "blas" for a Fortran routine's name (dgeqrf_, sgemm_) or LAPACK's C interface (LAPACKE_dormqr_work,
    which BatchLinearAlgebra.cpp's own dormqr_ calls where the build uses it), else None."""
    if name.startswith("LAPACKE_"):
        return "lapack"
    if not name.endswith("_"):
        return None
    return "lapack" if _LAPACK.match(name) else "blas" if _BLAS.match(name) else None


def vendor_family(callee: str) -> str:
    """The library family of a vendor call written without a library_calls fact (cub::, thrust::, cudaMemcpy)."""
    fortran = _fortran(callee)
    if fortran is not None:
        return fortran
    m = _FAMILY.search(callee)
    if m is None:
        return "vendor"
    name = m.group(1).lower()
    return {"cu": "cuda runtime", "cuda": "cuda runtime", "mkldnn": "onednn", "dnnl": "onednn", "ideep": "onednn",
            "cblas": "mkl", "vsl": "mkl", "vml": "mkl", "dfti": "mkl", "pytorch_qnnp": "qnnpack", "qnnp": "qnnpack",
            "xnn": "xnnpack", "nnp": "nnpack", "ducc0": "ducc"}.get(name, "mkl" if name[:1] == "v" and name.endswith("rng")
                                                                    else name)


def written_parts(callee: str) -> tuple[str, str, str | None]:
    """written_parts, memoised (callees repeat across files)."""
    got = _PARTS.get(callee)
    if got is None:
        if len(_PARTS) > 500_000:
            _PARTS.clear()
        got = _PARTS[callee] = _written_parts(callee)
    return got


def _written_parts(callee: str) -> tuple[str, str, str | None]:
    """(qualifier, last component with its template arguments, receiver) of a callee as written:
    `at::cuda::blas::gemm<scalar_t>` -> ("at::cuda::blas", "gemm<scalar_t>", None);
    `iter.dtype` -> ("", "dtype", "iter"); `self->foo` -> ("", "foo", "self");
    `this->x_.f` -> ("", "f", "this->x_")."""
    receiver = None
    cuts = []  # the last `->` and the last `.` that end a balanced receiver: the later one is the member's
    for sep in ("->", "."):
        head, found, tail = callee.rpartition(sep)
        if found and "<" not in head[-1:] and _balanced(head):
            cuts.append((len(head), head, tail))
    if cuts:
        _, receiver, callee = max(cuts)
    depth = 0
    cut = -1
    i = 0
    while i < len(callee):
        c = callee[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0 and callee.startswith("::", i):
            cut = i
            i += 1
        i += 1
    if cut < 0:
        return "", callee, receiver
    return callee[:cut], callee[cut + 2:], receiver


def _balanced(text: str) -> bool:
    text = text.replace("->", ".")  # a member access, not a template's closing bracket
    return text.count("(") == text.count(")") and text.count("<") == text.count(">") and text.count("[") == text.count("]")


def template_args(last: str) -> str | None:
    return last[last.index("<") + 1:-1] if "<" in last and last.endswith(">") else None


# Namespaces whose functions are ops through the dispatcher (generated Functions.h and friends; at::symint's
# templates are written there for every op with a SymInt argument, torchgen/gen.py ComputeFunction, beside the few
# TensorBase.h defines by hand, which a lookup finds first).
_OP_QUALIFIERS = frozenset(("at", "::at", "torch", "at::cpu", "at::cuda", "at::meta", "at::mps", "at::redispatch",
                            "at::symint",
                            "at::compositeexplicitautograd", "at::compositeimplicitautograd",
                            "at::compositeexplicitautogradnonfunctional"))


def op_called(qualifier: str, name: str, ops: "OpForms") -> str | None:
    """The op base a call names through the dispatcher: at::add, at::_ops::add_Tensor::call,
    at::cpu::add_out; an unqualified name counts (the caller is inside namespace at)."""
    if qualifier.startswith(("at::_ops::", "::at::_ops::")):
        op = ops.struct_op(qualifier)
        return op.split(".", 1)[0] if op is not None else None
    if qualifier and qualifier not in _OP_QUALIFIERS:
        return None
    return ops(name)


def schema_arity(func: str) -> tuple[int, int]:
    """(fewest, most) C++ arguments of an op's schema: every argument, defaults optional."""
    inner = func[func.find("(") + 1:func.rfind(") ->")]
    args = [a for a in inner.split(", ") if a and a != "*"]
    return len([a for a in args if "=" not in a]), len(args)


# What the C++ type of a schema argument takes, by the class of the argument passed (argument_class): a Tensor
# ("t"), a list of Tensors ("tl": ArrayRef, vector, IListRef of Tensor), a built-in arithmetic value ("n"), a
# c10::SymInt ("symint"), a list of integers ("l": IntArrayRef, SymIntArrayRef, a vector, SmallVector, array or
# braced list of them), a Scalar ("s"), a Dimname ("d"), a TensorOptions ("o"), a `char*` ("c"), a std::string
# ("str"), a string_view ("sv"), a Storage, a caffe2::TypeMeta, or one of the enums and classes a factory's options
# are made of (ScalarType, Layout, MemoryFormat, Device, DeviceType).
# - Tensor and Tensor? take a Tensor; Tensor[] and Tensor?[] (ArrayRef, ITensorListRef, c10::List) a Tensor list
#   and a Tensor (an ArrayRef's one-element constructor).
# - Dimname and Dimname[] take a Dimname only.
# - Scalar takes a number, a SymInt (its constructor) or a Scalar.
# - int, SymInt, float, bool and float or bool lists take a number or a SymInt, and a `char*` (a pointer converts
#   to bool); int[] and SymInt[] (IntArrayRef, OptionalIntArrayRef) take a number, a SymInt or an integer list.
#   Scalar has no conversion to any of them.
# - ScalarType, Layout and MemoryFormat take themselves; Device a Device, a DeviceType or a std::string (its
#   constructors; a `char*` would need two conversions). A ScalarType also takes a caffe2::TypeMeta as if exactly:
#   TensorBody.h writes `to(caffe2::TypeMeta, ...)` and `to(Device, caffe2::TypeMeta, ...)` beside the generated
#   methods, which call the ScalarType forms (2.6.0 aten/src/ATen/templates/TensorBody.h:540-545).
# - str (a string_view) takes a `char*`, a std::string or a string_view; Storage a Storage.
# - A factory's TensorOptions (P, OpForms._forms) takes any of the options' parts, a TypeMeta, and a `char*` or a
#   std::string (its template constructor makes a Device of them).
# - Generator, Stream, Layout lists ... (O) take none of them.
# An optional parameter (`T?`, not `Tensor?[]`) also takes a std::optional of what its type takes ("?" and the
# class: "?t", "?ScalarType", "?l" for an OptionalIntArrayRef) and a nullopt ("?"); no other parameter does.
_OPTION_PARTS = frozenset(("ScalarType", "Layout", "MemoryFormat", "Device", "DeviceType"))
_TAKES = {"T": frozenset("t"), "TL": frozenset(("t", "tl")), "D": frozenset("d"), "S": frozenset(("n", "s", "symint")),
          "N": frozenset(("n", "symint", "c")), "NL": frozenset(("n", "symint", "l")), "O": frozenset(),
          "STR": frozenset(("c", "str", "sv")), "Storage": frozenset(("Storage",)),
          "ScalarType": frozenset(("ScalarType", "TypeMeta")), "Layout": frozenset(("Layout",)),
          "MemoryFormat": frozenset(("MemoryFormat",)), "Device": frozenset(("Device", "DeviceType", "str")),
          "P": frozenset(("o", "TypeMeta", "c", "str")) | _OPTION_PARTS}
_NUMBER_TYPES = re.compile(r"(?:int|SymInt|float|bool)(?:\[\d*\])?\??")
_INTEGER_LISTS = re.compile(r"(?:int|SymInt)\[\d*\]\??")


def _schema_kind(t: str) -> str:
    """The key (_TAKES) of a schema argument's type without its alias annotation: `Tensor` -> T, `Tensor?[]` -> TL,
    `int[2]?` -> NL, `float` -> N, `Scalar?` -> S, `Layout?` -> Layout, `str` -> STR."""
    if t.startswith("Tensor"):
        return "TL" if t.endswith("]") else "T"
    if t.startswith("Dimname"):
        return "D"
    if t in ("Scalar", "Scalar?", "Scalar[]"):
        return "S"
    if t in ("str", "str?"):
        return "STR"
    if t.rstrip("?") in _TAKES:
        return t.rstrip("?")
    if _INTEGER_LISTS.fullmatch(t):
        return "NL"
    return "N" if _NUMBER_TYPES.fullmatch(t) else "O"


class SchemaParameter(NamedTuple):
    kind: str  # _schema_kind's key
    name: str
    out: bool  # an out= argument (keyword-only and written to): the first ones of `at::foo_out`
    exact: frozenset[str]  # the argument classes it takes by a standard conversion (no constructor of a class)
    symint: bool  # a SymInt: int64_t in the C++ API, a c10::SymInt in its `_symint` functions
    optional: bool  # `T?`: a std::optional (or OptionalArrayRef) in C++, which also takes an optional and nullopt

    def takes(self, argument: str) -> bool:
        """Whether the parameter's C++ type can take an argument of the class (argument_class)."""
        if argument.startswith("?"):
            return self.optional and (argument == "?" or argument[1:] in _TAKES[self.kind])
        return argument in _TAKES[self.kind]


_EXACT = {"Tensor": "t", "Dimname": "d", "Scalar": "s", "int": "n", "SymInt": "n", "float": "n", "bool": "n",
          "ScalarType": "ScalarType TypeMeta", "Layout": "Layout", "MemoryFormat": "MemoryFormat", "Device": "Device",
          "Storage": "Storage"}


def _exact(t: str) -> frozenset[str]:
    """The argument classes a schema type's C++ parameter takes without a user-defined conversion: a Tensor for
    `Tensor` (not `Tensor?`, an optional, or `Tensor[]`, an ArrayRef), a Dimname for `Dimname`, a Scalar for
    `Scalar`, a number for `int`, `SymInt` (int64_t in the C++ API; a `_symint` function's c10::SymInt is a class),
    `float` and `bool`, the enum or class itself for ScalarType (and a TypeMeta: TensorBody.h's `to` overloads),
    Layout, MemoryFormat, Device and Storage; an integer list for `int[]` (an IntArrayRef); none for another list
    or an optional."""
    got = _EXACT.get(t)
    if got:
        return frozenset(got.split())
    return frozenset(("l",)) if _INTEGER_LISTS.fullmatch(t) and not t.endswith("?") else frozenset()


def schema_parameters(func: str) -> tuple[SchemaParameter, ...]:
    """The arguments of an op's schema in its order, each as its C++ type's class (_TAKES), name and out-ness."""
    inner = func[func.find("(") + 1:func.rfind(") ->")]
    got, keyword = [], False
    for a in inner.split(", "):
        if a == "*":
            keyword = True
        elif a:
            written, _, name = a.split("=", 1)[0].rpartition(" ")
            t = re.sub(r"\([^()]*\)", "", written)  # `Tensor(a!)` -> Tensor
            got.append(SchemaParameter(_schema_kind(t), name, keyword and "!" in written, _exact(t), t == "SymInt",
                                       t.endswith("?")))
    return tuple(got)


_OPTIONAL = re.compile(r"(?:std::)?optional<(.+)>")
_SEQUENCE = re.compile(r"(?:std::)?(vector|array|initializer_list|SmallVector|ArrayRef|OptionalArrayRef|IListRef|List)"
                       r"<([^<>,]+(?:<[^<>]*>)?)(?:,[^<>]+)?>")
_INTEGERS = frozenset(("int", "long", "long long", "int64_t", "int32_t", "unsigned", "unsigned long", "size_t",
                       "SymInt"))
_STRINGS = {"char*": "c", "std::string": "str", "string": "str", "std::string_view": "sv", "string_view": "sv",
            "basic_string_view<char>": "sv"}
_CLASSES = {"Tensor": "t", "Dimname": "d", "Scalar": "s", "TensorOptions": "o", "SymInt": "symint",
            "Storage": "Storage", "caffe2::TypeMeta": "TypeMeta", "TypeMeta": "TypeMeta", "nullopt_t": "?",
            "std::nullopt_t": "?"}


def argument_class(plain: str | None, through: Callable[[str], str] | None = None) -> str | None:
    """The class (_TAKES) of an argument's plain type (overloads.plain_type); "?" and the class for an optional of
    one; None when it says nothing (unknown, a TensorBase, a template parameter, another class of the checkout).
    through: a plain type read through the type aliases (`IntArrayRef` -> `ArrayRef<int64_t>`), tried on the type,
    and on an optional's or a list's element, when they name no class as written."""
    return _argument_class(plain, through, 3) if plain is not None else None


def _argument_class(plain: str, through: Callable[[str], str] | None, depth: int) -> str | None:
    got = _CLASSES.get(plain) or _STRINGS.get(plain)
    if got:
        return got
    if plain in _OPTION_PARTS:
        return plain
    if plain in ARITHMETIC:
        return "n"
    optional = _OPTIONAL.fullmatch(plain)
    if optional:
        inner = _argument_class(optional.group(1), through, depth)
        return "?" + inner if inner and not inner.startswith("?") else None
    sequence = _SEQUENCE.fullmatch(plain)
    if sequence:
        of, element = sequence.groups()
        if element not in _INTEGERS and through is not None and depth:
            element = through(element)
        if element in _INTEGERS:
            return "?l" if of == "OptionalArrayRef" else "l"
        if of != "OptionalArrayRef" and _argument_class(element, through, depth) in ("t", "?t"):
            return "tl"
        return None
    if through is not None and depth:
        unaliased = through(plain)
        if unaliased != plain:
            return _argument_class(unaliased, through, depth - 1)
    return None


def _better(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether conversions ranked a are better than b ([over.match.best]): none worse, one better."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


class SchemaParameters:
    """op name -> its schema's arguments (schema_parameters), each parsed when first asked for: a link of a few
    files asks for a few of the ops."""

    def __init__(self, funcs: dict[str, str]):
        self.funcs = funcs  # op name -> its schema (ops.func)
        self._parsed: dict[str, tuple[SchemaParameter, ...]] = {}

    def get(self, op: str) -> tuple[SchemaParameter, ...] | None:
        got = self._parsed.get(op)
        if got is None:
            func = self.funcs.get(op)
            if func is None:
                return None
            got = self._parsed[op] = schema_parameters(func)
        return got


class OpForms:
    """The op base a C++ function name stands for (add, add_out, add_outf, add_symint -> add)."""

    def __init__(self, bases: set[str], method_bases: set[str], unambiguous: dict[str, str],
                 overloads: dict[str, list[tuple[str, str, int, int]]],
                 parameters: dict[str, tuple[SchemaParameter, ...]] | SchemaParameters):
        self.bases = bases | {b.rstrip("_") for b in bases}
        self.unambiguous = unambiguous  # add_Tensor -> add.Tensor (the at::_ops:: struct names)
        self.by_base = overloads  # base -> [(op name, kind, fewest args, most args)] in yaml order
        self.methods = method_bases
        # the ops at::Tensor has a method of (a method variant, not manual_cpp_binding): `t.size(0)` is no size.int,
        # a function-only op, but TensorBase::size (TensorBody.h's `using TensorBase::size;`); set by stage._op_forms
        self.method_ops: frozenset[str] = frozenset()
        self.parameters = parameters  # op name -> its schema's arguments (schema_parameters)
        self._memo: dict[str, str | None] = {}
        self._kept: dict[tuple, tuple[str, ...]] = {}  # by_argument_types's answers
        self.source: str | None = None  # a digest of the ops rows it is made of (stage._op_forms; the link's fingerprint)

    def __call__(self, name: str) -> str | None:
        got = self._memo.get(name, "")
        if got == "":
            got = self._memo[name] = next((c for c in naming.cpp_function_forms(name) if c in self.bases), None)
        return got

    def overloads(self, written: str, base: str, argc: int, method: bool, fitting: bool = False) -> list[str]:
        """The ops of a base a C++ call can mean: out= overloads for at::foo_out / foo_outf, the
        others for at::foo; those whose argument count fits (a method's self is not counted). When none fits:
        all of them, or none with `fitting`."""
        out_form = written != base and written.endswith(("_out", "_outf"))
        ops = self.by_base.get(base) or self.by_base.get(base + "_") or []
        same = [o for o in ops if (o[1] == "out") == out_form] or ops
        if argc < 0:
            return [o[0] for o in same]
        n = argc + 1 if method else argc
        fits = [o[0] for o in same if o[2] <= n <= o[3]]
        return fits or ([] if fitting else [o[0] for o in same])

    def struct_op(self, qualifier: str) -> str | None:
        """The op an `at::_ops::<struct>` qualifier names (each op has its struct: add_Tensor is add.Tensor)."""
        return self.unambiguous.get(qualifier.split("::_ops::", 1)[1].split("::")[0])

    def by_argument_types(self, written: str, ops: tuple[str, ...], method: bool,
                          classes: tuple[str | None, ...]) -> tuple[str, ...]:
        """The ops whose C++ parameters can take the arguments' classes (argument_class), in the order torchgen's
        C++ API writes them (_forms). Of those, the one C++ overload resolution prefers when the known arguments
        decide it: a form of it binds each of them by a conversion no worse than any form of another op and one
        better (a standard conversion beats a constructor: `squeeze_(int64_t)` is squeeze_.dim, not squeeze_.dims
        and its IntArrayRef). An argument whose class no form of any of the ops takes at its place says nothing (its
        type was read wrong, or the call is another function's); all of them when none or every one is ruled out."""
        key = (written, ops, method, classes)
        got = self._kept.get(key)
        if got is None:
            out_first, symint = written.endswith("_out"), written.endswith(("_symint", "_symint_out", "_symint_outf"))
            forms = {o: self._forms(o, method, out_first) for o in ops}
            known = [ps for f in forms.values() if f is not None for ps in f]
            classes = tuple(c if c is None or any(i < len(ps) and ps[i].takes(c) for ps in known) else None
                            for i, c in enumerate(classes))
            ranks: dict[str, list[tuple[int, ...]] | None] = {}
            for o in ops:
                if forms[o] is None:
                    ranks[o] = None
                    continue
                viable = [ps for ps in forms[o] if len(classes) <= len(ps) and
                          all(c is None or p.takes(c) for p, c in zip(ps, classes))]
                if viable:
                    ranks[o] = [tuple(0 if (c in p.exact and not (symint and p.symint)) or
                                      (c == "symint" and symint and p.symint) else 1
                                      for p, c in zip(ps, classes) if c is not None) for ps in viable]
            if len(ranks) > 1 and None not in ranks.values():
                best = [o for o in ranks if any(all(_better(r, other) for x in ranks if x != o for other in ranks[x])
                                                for r in ranks[o])]
                ranks = dict.fromkeys(best) if len(best) == 1 else ranks
            got = self._kept[key] = tuple(ranks) or ops
        return got

    def _forms(self, op: str, method: bool, out_first: bool) -> tuple[tuple[SchemaParameter, ...], ...] | None:
        """The C++ parameter lists torchgen writes for an op: a method's without `self`, `at::foo_out`'s with the
        out= arguments first (`at::foo_outf` and the others in the schema's order); a factory's twice, with dtype,
        layout, device and pin_memory apart and as one TensorOptions in dtype's place (`at::empty(size, options)`,
        `t.to(options, non_blocking, copy)`), which takes a TensorOptions only. None when the op is not known."""
        params = self.parameters.get(op)
        if params is None:
            return None
        if method:
            params = tuple(p for p in params if p.name != "self")
        if out_first:
            params = tuple(p for p in params if p.out) + tuple(p for p in params if not p.out)
        names = [p.name for p in params]
        at = names.index("dtype") if "dtype" in names else -1
        if at < 0 or names[at:at + 4] != ["dtype", "layout", "device", "pin_memory"]:
            return (params,)
        return params, params[:at] + (SchemaParameter("P", "options", False, frozenset("o"), False, False),) + params[at + 4:]

    def method(self, name: str) -> str | None:
        """The op base of a Tensor method name (`self.add_(...)`)."""
        base = self(name)
        return base if base is not None and (base in self.methods or name in self.methods) else None


def named_class(qualifier: str, last: str, receiver: str | None, macros: set[str],
                types: set[str]) -> How | None:
    """The class of a callee that no definition resolves, or None when the name says nothing."""
    written = f"{qualifier}::{last}" if qualifier else last
    name = last.split("<", 1)[0]
    if _STANDARD.match(written):
        return How.STANDARD
    if _VENDOR.search(written) or (not qualifier and receiver is None and _fortran(name) is not None):
        return How.VENDOR
    if receiver is None and not qualifier:
        if name in LANGUAGE or name.startswith("__") or _INTRINSIC.fullmatch(name):
            return How.STANDARD
        if name in macros or _MACRO_NAME.fullmatch(name):
            return How.MACRO
        if _TYPE_NAME.fullmatch(name) or name in types:
            return How.TYPE
        if name in STANDARD_NAMES:
            return How.STANDARD
    return None
