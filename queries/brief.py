"""The brief forms: one line per key (kernels-for), per overload (trace), per op and kernel (ops-for).

An agent asks the short question first: what each dispatch key runs, where it
is defined, which stubs, registered kernels, __global__ kernels or library
calls lie below it and for which dtypes, without the chain's every step.
Each brief answer is data (for --json and MCP) and text made from that data.
A kernels-for line reads `KEYS: kernel file:line -> stub -> registered -> device function -> launched
__global__ <<<>>> or library call | dtypes SET`: keys sharing a chain share the line, locations are file
names only (the data keeps the whole path), and a list cut at LIST_CAP says `+N` (N more).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..indexer.vocab import StepKind
from .api import KernelsFor, Reach, Trace
from .results import block_parents
from .chain import COMPOSITE, PER_DTYPE, RUNS_ON, device_of

LIST_CAP = 1  # stubs and registered kernels shown per key line; "+N" says how many more there are
BRIEF_DTYPE_DEPTH = 1  # the dtype sets of the kernel and of the function one level below it (a registered kernel),
# besides those of the functions on the brief's path (_path_first)
END_CAP = 1  # device functions, launches and library calls shown per key line (the end of the chain)
OPS_CAP = 3  # ops a kernel redispatches to, shown after `=>` (those whose kernels do device work)
NATIVE = "aten/src/ATen/native/"  # the folder most locations are in: trace's text form states it once
_SCALAR_TYPE = re.compile(r"\b(?:at::|c10::)?(?:ScalarType::|k(?=[A-Z]))")
# AT_DISPATCH groups and ufunc_inner_loop names, as people say them; a type not named here is lowercased.
_SHORT = {"ALL_TYPES": "all", "ALL_TYPES_AND_COMPLEX": "all+complex", "AllAndComplex": "all+complex", "All": "all",
          "FLOATING_TYPES": "float", "FLOATING_AND_COMPLEX_TYPES": "float+complex", "COMPLEX_TYPES": "complex",
          "INTEGRAL_TYPES": "int", "QINT_TYPES": "qint", "REDUCED_FLOATING_TYPES": "half+bf16",
          "FLOATING_TYPES_AND_HALF": "float+half", "FLOAT8_TYPES": "fp8", "BAREBONES_UNSIGNED_TYPES": "uint",
          "Half": "half", "BFloat16": "bf16", "ComplexHalf": "chalf", "Float": "float32", "Double": "float64"}
_WORD_ORDER = ("all", "float", "int", "complex", "bool", "half", "bf16", "chalf")  # then the others, as met
_COVERED = {"all": ("float", "int", "float32", "float64"), "float": ("float32", "float64")}
# AT_DISPATCH over layouts or index types (by its set, or its macro's name): no data dtype set
_NOT_DTYPES = re.compile(r"LAYOUTS|INDEX_TYPES")


def _loc(file: str | None, line: int | None) -> dict[str, Any] | None:
    return None if file is None else {"file": file, "line": line}


def _names(steps: list[Any], kind: StepKind, name=lambda s: s.name) -> list[str]:
    return list(dict.fromkeys(name(s) for s in steps if s.kind == kind))


def _dtype_types(step: Any) -> list[str]:
    """AT_DISPATCH_X_AND2(ALL_TYPES, at::ScalarType::Half, kBFloat16) -> ['ALL_TYPES', 'Half', 'BFloat16']."""
    detail = step.detail or ""
    inner = detail[detail.find("(") + 1:detail.rfind(")")] if "(" in detail else detail
    return [_SCALAR_TYPE.sub("", t.strip()).removeprefix("AT_") for t in inner.split(",") if t.strip()]


def _dtype_set(step: Any) -> str:
    """One AT_DISPATCH set as data: 'ALL_TYPES,Half,BFloat16'."""
    return ",".join(_dtype_types(step))


def dtype_union(steps: list[Any]) -> str:
    """The data dtypes the chain dispatches over, shortened and joined: 'all+complex+bool+bf16+half'."""
    words: dict[str, None] = {}
    for step in steps:
        types = _dtype_types(step) if step.kind == StepKind.DTYPES else []
        macro = (step.detail or "").partition("(")[0]  # AT_DISPATCH_NLL_LOSS_INDEX_TYPES(Byte, Long): index types
        if types and not _NOT_DTYPES.search(types[0]) and not _NOT_DTYPES.search(macro):
            for t in types:
                words.update(dict.fromkeys(_SHORT.get(t, t.lower()).split("+")))
    for wide, narrow in _COVERED.items():
        if wide in words:
            for n in narrow:
                words.pop(n, None)
    known = [w for w in _WORD_ORDER if w in words]
    return "+".join(known + [w for w in words if w not in _WORD_ORDER])


def _last_component(name: str) -> str:
    """The name's last `::` component outside template arguments and parentheses:
    `fbgemm::Quantize<typename T::underlying, false>` -> `Quantize<typename T::underlying, false>`."""
    depth, cut = 0, 0
    for i, ch in enumerate(name):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif depth == 0 and name.startswith("::", i):
            cut = i + 2
    return name[cut:]


def _library(step: Any) -> str:
    """`family:entry point`, the entry point without its template arguments (`fbgemm:Quantize`)."""
    if not step.detail:
        return step.name
    last = _last_component(step.name)
    return f"{step.detail}:{last.split('<', 1)[0] or last}"


def _launches(steps: list[Any]) -> list[str]:
    """The __global__ kernels launched (`name <<<>>>`); else the launch helpers used (gpu_kernel, parallel_for ...)."""
    kernels = _names(steps, StepKind.GLOBAL_KERNEL, lambda s: s.name.split("::")[-1] + " <<<>>>")
    if kernels:
        return kernels
    return _names(steps, StepKind.LAUNCH, lambda s: s.detail if s.detail and "<<<" not in s.detail else s.name)


_ENDS = (StepKind.GLOBAL_KERNEL, StepKind.LIBRARY, StepKind.LAUNCH)  # a chain's end, in the order the brief prefers
# Library calls that are not the computing the op is about: a conversion of a buffer between floating-point formats
# (fbgemm::FloatToFloat16_simd, Copy.cpp's copy_ of float to half, which a `.to(kFloat)` on the way reaches: data
# moved), and a query made before the work (cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize,
# cublasLtMatmulAlgoGetHeuristic, cusolverDnXgeqrf_bufferSize, magma_get_dgeqrf_nb; a C API's size query,
# cusparseLtSpMMACompressedSize2 before the cusparseLtSpMMACompress2 of _cslt_compress). Each is the end of the brief's
# path only where the chain has no other end: mean's CPU path is its sum_out's reduction, mm's CUDA path the matmul.
_SECONDARY = re.compile(r"(?:^|::)(?:(?:Float|Half|Float16|Bfloat16|BFloat16)To(?:Float|Half|Float16|Bfloat16|BFloat16)"
                        r"(?:_\w+)?|\w*Get[A-Z]\w*|magma_get_\w+|\w*_?[bB]ufferSize\w*|\w*WorkspaceSize\w*|"
                        r"[a-z]+[A-Z]\w*Size\d*)(?:<.*>)?$")
_RANK = {kind: i for i, kind in enumerate((*_ENDS, StepKind.REGISTERED, StepKind.STUB, StepKind.UFUNC))}
_WORK = frozenset((*_ENDS, StepKind.STUB))  # device work below a redispatched op
_SLOTS = {StepKind.STUB: "stubs", StepKind.REGISTERED: "registered", StepKind.UFUNC: "device_functions",
          StepKind.GLOBAL_KERNEL: "launches", StepKind.LAUNCH: "launches", StepKind.LIBRARY: "library"}


# The GPU libraries whose host calls run the library's own kernels (cublasGemmEx, cusolverDnSpotrfBatched,
# magma_dgetrf_gpu, cudnnConvolutionForward, cufftXtExec): where a kernel hands its work to one, the __global__
# kernels beside the call prepare or finish it (2.6.0 cuda/linalg/BatchLinearAlgebra.cpp's lu_solve_kernel applies
# pivots with an elementwise kernel one level above cuSOLVER's getrs; SpectralOps.cpp:331 _fft_r2c_cufft fills the
# conjugate half after cufftXtExec; ConvolutionMM2d.cu's col2im around cublasDgemm). Such a call ends a line before
# any __global__, at any depth, as a BLAS or LAPACK routine does on the CPU. Thrust, CUB, cuRAND and CUTLASS calls
# are mostly made inside device code (thrust::pair, curand_uniform2_double) and stay behind the __global__ kernels.
_HOST_LIBRARIES = frozenset(("cublas", "cublaslt", "cusolver", "cusparse", "cufft", "cudnn", "magma", "miopen",
                             "rocblas", "nccl"))


# The CPU libraries whose routines are the work a kernel hands over (the Fortran BLAS and LAPACK routines, MKL's
# cblas_*, Dfti* and VSL calls): lu_factor's CPU kernel runs ?getrf_ from a lambda that at::parallel_for, a launch
# helper nearer the kernel, runs. Such a call ends a line before any launch helper, at any depth.
_CPU_LIBRARIES = frozenset(("blas", "lapack", "mkl"))


# The libraries that run on one kind of device only: a CPU key's line does not end in a GPU library's call, nor a GPU
# key's in a CPU one's. A composite kernel is the same code for every device, and a branch that picks a backend by
# other tests than the device's (2.6.0 Convolution.cpp:1534, _convolution's `case ConvBackend::Xnnpack2d:`) had the
# CUDA line of _convolution name XNNPACK's xnn_run_operator.
_GPU_LIBRARIES = _HOST_LIBRARIES | {"curand", "flash_attention", "mem_efficient_attention"}
_CPU_ONLY_LIBRARIES = _CPU_LIBRARIES | {"onednn", "xnnpack", "qnnpack", "nnpack", "fbgemm", "sleef", "pocketfft", "ducc"}


def _elsewhere(step: Any, device: str | None) -> bool:
    """Whether a step is a call of a library that does not run on the key's device."""
    if step.kind != StepKind.LIBRARY or device is None:
        return False
    return step.detail in (_GPU_LIBRARIES if device == "CPU" else _CPU_ONLY_LIBRARIES)


# A launch of one block of one thread (`<<<1, 1, 0, stream>>>`) does bookkeeping beside the work: it unpacks seeds
# (attention.cu:810 unpack_cudnn, where cuDNN's mha_graph->execute is the work), checks a size or writes a count
# (IndexKernel.cu:392 masked_scatter_size_check, UniqueCub.cu:271). Its __global__ ends the brief's path only
# where the chain has no other end (amp_update_scale_cuda_kernel is all _amp_update_scale_ does).
_ONE_THREAD = re.compile(r"<<<\s*1\s*,\s*1\s*[,>]")


def _one_thread(chain: tuple[Any, ...] | list[Any], up: list[int | None], i: int) -> bool:
    """Whether chain[i] is a __global__ kernel its launch (the head of its block) runs as one thread."""
    j = up[i]
    return chain[i].kind == StepKind.GLOBAL_KERNEL and j is not None and chain[j].kind == StepKind.LAUNCH and \
        _ONE_THREAD.search(chain[j].detail or "") is not None


# A GPU library's object running what was built on the host (the link stage's runs_what_was_built: a CUTLASS
# operator's `gemm_op.run(stream)`, cuda/MixedDtypesLinear.cu:147; cudnn_frontend's `mha_graph->execute(...)`): a host
# call of the library, though CUTLASS's other calls are its device code (a cutlass::TensorRef made before it).
_RUNS_BUILT = re.compile(r"(?:\.|->)(?:run|execute)$")


def _host_library(step: Any, families: frozenset[str] = _HOST_LIBRARIES) -> bool:
    return step.kind == StepKind.LIBRARY and not _secondary(step) and (
        step.detail in families or (families is _HOST_LIBRARIES and _RUNS_BUILT.search(step.name) is not None))


def _secondary(step: Any) -> bool:
    return step.kind == StepKind.LIBRARY and _SECONDARY.search(step.name) is not None


def _path_first(chain: tuple[Any, ...] | list[Any], composite: bool = False, kernel: str = "",
                device: str | None = None) -> tuple[list[Any], list[str], set[int], list[str], set[int]]:
    """The chain's steps (one path's first, then the op's own others, then its redispatches', each shallowest
    first), the brief lists (_SLOTS) whose first name is then on that path, each below the one before, the
    ids of the op's own steps (those not below a redispatched op), and, for a composite kernel, the ops its own
    steps redispatch to whose kernels do device work (a stub, launch, __global__ or library call below them), in
    the chain's order (the kernel's own redispatches as its source writes them, then its helpers'); for a backend
    kernel whose path ends at a stub or registered function of its own, those below that end; and the ids of the
    dtype steps written in the functions on that path (sort's CUDA AT_DISPATCH in launch_stable_sort_kernel, two
    levels below the kernel, is the set of the sort it launches).

    The path ends at the shallowest GPU library host call (_HOST_LIBRARIES) of the op's own work, the steps not
    below a redispatched op; else at the shallowest __global__ kernel (of several at one depth, one named for the
    kernel's work: _names_the_work; one launched as one thread only where there is nothing else: _ONE_THREAD); else
    a BLAS, LAPACK or MKL call, else library call or launch helper (one below a stub named for the work first:
    _stub_named_end), else registered kernel (not a nullptr registration), stub or ufunc device function; never a call
    of a library that does not run on the key's `device` (_elsewhere). Where its own steps have none of these, or only
    queries and bookkeeping (_SECONDARY, _ONE_THREAD) while the redispatched ops' have work, the work is the
    redispatched ops': a backend kernel's path goes on into them (mean_out's CPU line is its sum_out's reduction); a
    composite kernel's does not (its redispatches run CPU's or CUDA's kernels: the brief names those ops; its path
    ends at its own stub or registered function, if any), unless none of them does device work either. The path is
    that end and the steps above it (`parent`, or the head of its block: results.block_parents). None of them: no
    path, and []."""
    everything = range(len(chain))
    up = block_parents(chain)  # a block one node's expansion yields: a stub, then each device's registration and
    # that function's definition; a launch, then its __global__
    redispatched: list[bool] = []  # below a redispatched op (a step's parent and block head come before it)
    for i, s in enumerate(chain):
        redispatched.append(s.kind == StepKind.REDISPATCH or (up[i] is not None and redispatched[up[i]]))

    def above(i: int | None) -> list[int]:
        got = []
        while i is not None:
            got.append(i)
            i = up[i]
        return got

    def working(below: int | None = None) -> list[str]:
        """The ops redispatched to whose kernels do device work (the outermost redispatch above a step of
        _WORK), in the chain's order; below: only those under that step."""
        tops: set[int] = set()
        for i in everything:
            if chain[i].kind in _WORK and redispatched[i]:
                top, j = None, i
                while j is not None:
                    if chain[j].kind == StepKind.REDISPATCH:
                        top = j
                    j = up[j]
                if top is not None and (below is None or below in above(top)):
                    tops.add(top)
        return list(dict.fromkeys(chain[i].name for i in sorted(tops)))

    own = [i for i in everything if not redispatched[i]]
    ops = working() if composite else []  # a composite's own redispatches with device work below them
    pool = own if ops or any(chain[i].kind in _SLOTS for i in own) else everything
    path: set[int] = set()

    def weak(i: int) -> bool:
        return _secondary(chain[i]) or _one_thread(chain, up, i)

    registers: set[int] = set()  # the stubs with a kernel registered (not nullptr) for the walk's device
    for i, s in enumerate(chain):
        if s.kind == StepKind.REGISTERED and s.name != "nullptr" and up[i] is not None:
            registers.add(up[i])

    def nothing(i: int) -> bool:  # a stub that has no kernel for the walk's device, or a registration of nullptr
        return (chain[i].kind == StepKind.REGISTERED and chain[i].name == "nullptr") or (
            chain[i].kind == StepKind.STUB and i not in registers)

    def candidates(pool: list[int] | range) -> list[int]:
        pool = [i for i in pool if not _elsewhere(chain[i], device)]
        return [i for i in pool if _host_library(chain[i])] or [
            i for i in pool if chain[i].kind == StepKind.GLOBAL_KERNEL and not _one_thread(chain, up, i)] or [
            i for i in pool if _host_library(chain[i], _CPU_LIBRARIES)] or [
            i for i in pool if chain[i].kind in _ENDS and not weak(i)] or [
            i for i in pool if chain[i].kind in _ENDS] or [i for i in pool if chain[i].kind in _SLOTS and not nothing(i)]

    ends = candidates(pool)
    if pool is own and ends and all(chain[i].kind in _ENDS and weak(i) for i in ends) and \
            any(chain[i].kind in _ENDS and not weak(i) for i in everything):
        # the op's own steps end only in queries and bookkeeping, its redispatched ops in work (2.6.0 gru_cudnn asks
        # cuDNN for the weights' sizes, cudnn/RNN.cpp:565, and its at::_cudnn_rnn, :2544, runs the RNN): a composite
        # kernel's line ends at its stub or registered function and names those ops; a backend kernel's goes on
        if ops:
            ends = [i for i in own if chain[i].kind in (StepKind.REGISTERED, StepKind.STUB, StepKind.UFUNC) and
                    not nothing(i)]
        else:
            pool = everything
            ends = candidates(pool)
    if ends:  # the shallowest; at one depth a library call before a launch helper, a stub step last
        words = _name_words(kernel)
        end = min(ends, key=lambda i: (chain[i].depth, _RANK.get(chain[i].kind, len(_RANK)),
                                       not _names_the_work(chain[i], words),
                                       not any(chain[j].kind == StepKind.STUB for j in above(i))))
        end = _stub_named_end(chain, up, above, pool, ends, end, words)
        path = set(above(end))
        if not ops and chain[end].kind not in _ENDS and not redispatched[end]:
            # a backend kernel whose own path ends at a stub's registered function (or the stub) that does its
            # work through the dispatcher (isin's CUDA isin_default_kernel_gpu: eq, any): those ops, as for a
            # composite kernel
            ops = working(end)
    mine = set(own)
    order = sorted(everything, key=lambda i: (i not in path, i not in mine, chain[i].depth))
    slots = list(dict.fromkeys(_SLOTS[chain[i].kind] for i in order if i in path and chain[i].kind in _SLOTS))
    on_path = {id(chain[i]) for i in everything if chain[i].kind == StepKind.DTYPES and up[i] in path}
    return [chain[i] for i in order], slots, {id(chain[i]) for i in own}, ops, on_path


def _stub_named_end(chain: tuple[Any, ...] | list[Any], up: list[int | None], above: Callable[[int | None], list[int]],
                    pool: list[int], ends: list[int], end: int, words: frozenset[str]) -> int:
    """The end a line takes when the one chosen is a launch helper below no stub named for the kernel's work and a stub
    of the kernel's own steps is (its name holds a word of the kernel's name, _name_words): the shallowest end below
    that stub, else its registered function. 2.6.0 TensorShape.cpp:594, cat_out_cpu: the parallel_for of copy_stub's
    kernel is as shallow as anything below cat_serial_stub; Normalization.cpp:810, batch_norm_cpu: a cpu_kernel of its
    own beside batch_norm_cpu_stub's kernel; TensorAdvancedIndexing.cpp:1841, scatter_src_out: fill_stub's kernel
    beside scatter_reduce_stub's and scatter_stub's, whose work is a functor's loop."""
    if not words or chain[end].kind != StepKind.LAUNCH:
        return end
    stubs = [j for j in above(end) if chain[j].kind == StepKind.STUB]
    if stubs and _names_work(chain[stubs[0]], words):
        return end
    named = [i for i in pool if chain[i].kind == StepKind.STUB and _names_work(chain[i], words)]
    if not named:
        return end
    below = [i for i in ends if any(j in named for j in above(i))]
    if below:
        return min(below, key=lambda i: (chain[i].depth, _RANK.get(chain[i].kind, len(_RANK))))
    registered = [i for i in pool if chain[i].kind == StepKind.REGISTERED and up[i] in named and
                  chain[i].name != "nullptr"]
    return registered[0] if registered else named[0]


def _names_work(step: Any, words: frozenset[str]) -> bool:
    """Whether a step's name (its last component) holds one of the words of a kernel's name."""
    name = step.name.split("::")[-1].lower()
    return any(w in name for w in words)


_NOT_WORK_WORDS = frozenset(("out", "cpu", "cuda", "mps", "xpu", "kernel", "impl", "native", "structured", "symint",
                             "template", "functional", "mkldnn", "sparse", "nested", "quantized"))


def _name_words(kernel: str) -> frozenset[str]:
    """The words of a kernel's name that say what it computes (topk_out_cuda: topk), lower case."""
    last = kernel.split("::")[-1]
    return frozenset(w for w in re.split(r"[^a-z0-9]+", last.lower()) if len(w) >= 3 and w not in _NOT_WORK_WORDS)


def _names_the_work(step: Any, words: frozenset[str]) -> bool:
    """A __global__ kernel whose name holds one of those words (gatherTopK for topk_out_cuda)."""
    return step.kind == StepKind.GLOBAL_KERNEL and _names_work(step, words)


def key_brief(k: Any) -> dict[str, Any]:
    """One dispatch key of a kernels-for answer, brief: kernel, definition and what lies below it. Each list
    starts with its step on one path from the kernel to its end (`path`: those lists), then the others
    shallowest first."""
    composite = k.key.rsplit(RUNS_ON, 1)[-1] in COMPOSITE  # `CPU <- CompositeImplicitAutograd`: the key asked for
    steps, path, own, ops, path_dtypes = _path_first(k.chain, composite, k.kernel, device_of(k.key.split(RUNS_ON)[0]))
    if ops:  # the work is the redispatched ops', named in `redispatches`: the lists keep its own steps
        steps = [s for s in steps if id(s) in own]
    item: dict[str, Any] = {"key": k.key, "kernel": k.kernel, "origin": k.origin,
                            "definition": None if k.definition is None else _loc(k.definition.file, k.definition.line)}
    if k.via:
        item["via"] = k.via
    if k.note and k.definition is None:
        item["note"] = k.note
    item["stubs"] = _names(steps, StepKind.STUB)
    # the kernels registered (a nullptr registration is none), by the name's last component as __global__s are
    item["registered"] = [n for n in _names(steps, StepKind.REGISTERED, lambda s: _last_component(s.name))
                          if n != "nullptr"]
    # what the kernel's loops run: a generated kernel's ufunc:: functions, or the loop an AT_DISPATCH lambda of the
    # op's own work calls with its scalar_t (chain.PER_DTYPE: multi_margin_loss_cpu_kernel; not that of an op it
    # redispatches to, which that op's own answer names)
    item["device_functions"] = _names([s for s in steps if id(s) in own], StepKind.UFUNC,
                                      lambda s: "ufunc::" + s.name.split("::")[-1]) + _names(
        [s for s in steps if s.kind == StepKind.CALL and s.detail == PER_DTYPE and id(s) in own], StepKind.CALL,
        lambda s: _last_component(s.name))
    item["launches"] = _launches(steps)
    item["library"] = _names(steps, StepKind.LIBRARY, _library)
    item["dtypes"] = _names(steps, StepKind.DTYPES, _dtype_set)
    item["dtype_union"] = dtype_union([s for s in steps if s.depth <= BRIEF_DTYPE_DEPTH or id(s) in path_dtypes])
    if path:
        item["path"] = path
    if ops:
        item["redispatches"] = ops
    return item


def _backward_brief(b: Any) -> dict[str, Any]:
    data = _loc(b.location.file, b.location.line) or {}
    return {**data, "from_op": b.from_op, "applies_as": b.applies_as}


def kernels_for_brief(answer: KernelsFor) -> dict[str, Any]:
    """One op, brief: its entry, its meta function, one item per key (a key sharing an earlier key's chain
    only names it: `same_as`), and where its backward is and from which op."""
    keys: list[dict[str, Any]] = []
    present = {k.key for k in answer.keys}  # a page (MCP) may hold a key without the one it shares a chain with
    for k in answer.keys:
        keys.append(key_brief(k) if k.same_as not in present else
                    {"key": k.key, "kernel": k.kernel, "origin": k.origin,
                     "definition": None if k.definition is None else _loc(k.definition.file, k.definition.line),
                     "same_as": k.same_as})
    return {"op": answer.op, "location": _loc(answer.location.file, answer.location.line),
            "structured": answer.structured, "structured_delegate": answer.structured_delegate,
            "meta": None if answer.meta is None else _loc(answer.meta.file, answer.meta.line),
            "keys": keys, "backward": [_backward_brief(b) for b in answer.backward]}


def _where(loc: dict[str, Any] | None) -> str:
    """A location in trace's brief text: relative to NATIVE."""
    if loc is None:
        return ""
    file = loc["file"][len(NATIVE):] if loc["file"].startswith(NATIVE) else loc["file"]
    return f"{file}:{loc['line']}"


def _short(loc: dict[str, Any] | None) -> str:
    """A location in kernels-for's brief text: the file's name and the line (native_functions.yaml: `yaml`)."""
    if loc is None:
        return ""
    name = loc["file"].rsplit("/", 1)[-1]
    return f"{'yaml' if name == 'native_functions.yaml' else name}:{loc['line']}"


def _capped(names: list[str], cap: int = LIST_CAP) -> list[str]:
    """The first `cap` names, the last of them saying `+N` (N more) when the list was cut."""
    return names[:cap - 1] + [f"{names[cap - 1]} +{len(names) - cap}"] if len(names) > cap else names


def key_brief_text(item: dict[str, Any], keys: list[str], dtypes_of: dict[str, str]) -> str:
    """`  CPU, CUDA: kernel file:line -> stub -> registered -> device function -> launch | dtypes SET`; a set that
    an earlier line shows reads `dtypes as KEY` (dtypes_of: set -> the first key that showed it)."""
    note = item.get("note") or ""
    where = _short(item["definition"]) or ("[generated]" if "generated" in note else f"[{note}]")
    head = f"  {', '.join(keys)}: {item['kernel']} {where}" + (f" via {item['via']}" if "via" in item else "")
    path, ops = item.get("path"), item.get("redispatches")
    if path:  # the first name of each list on the path, in the order met going down; a generated kernel's
        # device function (ufunc::add) is what its loops run, on the path or not
        below = [n for lst in ("stubs", "registered", "device_functions", "launches", "library")
                 if lst in path or lst == "device_functions"
                 for n in _capped(item[lst], LIST_CAP if lst in ("stubs", "registered") else END_CAP)]
    elif ops:  # no device work of its own: the ops it redispatches to do it, on CPU's or CUDA's kernels
        below = _capped(item["device_functions"], END_CAP)
    else:  # the chain's end: the __global__ launched, else the vendor call
        end = _capped(item["launches"], END_CAP) if item["launches"] else _capped(item["library"], END_CAP)
        below = _capped(item["stubs"]) + _capped(item["registered"]) + _capped(item["device_functions"], END_CAP) + end
    line = head + "".join(f" -> {n}" for n in below)
    if ops:
        line += " => " + ", ".join(_capped(ops, OPS_CAP))
    union = item["dtype_union"]
    if not union:
        return line
    if union in dtypes_of:
        return line + f" | dtypes as {dtypes_of[union]}"
    dtypes_of[union] = keys[0]
    return line + f" | dtypes {union}"


def _backward_text(b: dict[str, Any]) -> str:
    lent = "" if b["applies_as"] == "exact" else f" from {b['from_op']} ({b['applies_as']}" + (
        ": no grad_fn)" if b["applies_as"] == "out=" else ")")
    return _short(b) + lent


def kernels_for_brief_text(items: list[dict[str, Any]]) -> str:
    out = []
    for a in items:
        flags = " structured" if a["structured"] else ""
        if a["structured_delegate"]:
            flags += f" delegate {a['structured_delegate']}"
        shown = {(k["definition"] or {}).get("line") and _short(k["definition"]) for k in a["keys"]}
        meta = f" meta {_short(a['meta'])}" if a["meta"] and _short(a["meta"]) not in shown else ""
        backward = f" backward {', '.join(_backward_text(b) for b in a['backward'])}" if a["backward"] else ""
        out.append(f"{a['op']} {_short(a['location'])}{flags}{meta}{backward}")
        groups: dict[str, list[str]] = {}
        for k in a["keys"]:
            groups.setdefault(k.get("same_as", k["key"]), []).append(k["key"])
        dtypes_of: dict[str, str] = {}
        lines: dict[str, list[str]] = {}  # keys whose lines read the same are joined on one
        for k in a["keys"]:
            if "same_as" not in k:
                keys = groups[k["key"]]
                body = key_brief_text(k, keys, dtypes_of)[len(f"  {', '.join(keys)}: "):]
                lines.setdefault(body, []).extend(keys)
        out.extend(f"  {', '.join(keys)}: {body}" for body, keys in lines.items())
        if not a["keys"]:
            out.append("  (no kernels for the keys asked)")
    return "\n".join(out) + "\n"


# -- trace ------------------------------------------------------------------------------------------


def trace_brief(trace: Trace) -> dict[str, Any]:
    """The Python path as names, and per op reached one item per overload: key -> kernel."""
    path = [h.name for h in trace.hops if h.kind not in ("op", "unresolved")]
    ops = []
    for o in trace.ops:
        overloads = [{"op": a.op, "location": _loc(a.location.file, a.location.line),
                      "keys": {k.key: k.kernel for k in a.keys}} for a in o.overloads]
        ops.append({"op": o.op, "reached_by": list(o.reached_by), "overloads": overloads,
                    "decompositions": list(dict.fromkeys(d.function for d in o.decompositions))})
    unresolved = [h.name for h in trace.hops if h.kind == "unresolved"]
    return {"name": trace.name, "resolved": trace.resolved, "path": path, "ops": ops, "unresolved": unresolved}


def trace_brief_text(data: dict[str, Any]) -> str:
    head = data["name"] if data["name"] == data["resolved"] else f"{data['name']} = {data['resolved']}"
    out = [head]
    if data["path"]:
        out.append("  path: " + " -> ".join(p.split(".")[-1] for p in data["path"]))
    for o in data["ops"]:
        via = f"  via {', '.join(o['reached_by'])}" if o["reached_by"] else ""
        decomps = _capped(o["decompositions"])
        out.append(f"  op {o['op']}{via}" + (f"  decomp {', '.join(decomps)}" if decomps else ""))
        for ov in o["overloads"]:
            keys = ", ".join(f"{key}:{kernel}" for key, kernel in ov["keys"].items())
            out.append(f"    {ov['op']}  {_where(ov['location'])}  {keys}")
    if data["unresolved"]:
        out.append("  unresolved: " + ", ".join(data["unresolved"]))
    return "\n".join(out) + "\n"


# -- ops-for ----------------------------------------------------------------------------------------


def ops_for_brief(hits: list[Reach]) -> list[dict[str, Any]]:
    """One item per (op, kernel) with the keys it serves, in the order found."""
    groups: dict[tuple[str, str], list[str]] = {}
    for h in hits:
        keys = groups.setdefault((h.op, h.kernel), [])
        if h.key not in keys:
            keys.append(h.key)
    return [{"op": op, "kernel": kernel, "keys": keys} for (op, kernel), keys in groups.items()]


def ops_for_brief_text(items: list[dict[str, Any]]) -> str:
    if not items:
        return "no op reaches it within the depth asked\n"
    return "".join(f"{i['op']:<40} {','.join(i['keys']):<26} {i['kernel']}\n" for i in items)


def brief(question: str, result: Any) -> tuple[Any, str]:
    """(data, text) of the brief form of an API answer: kernels_for (a list), trace, ops_for."""
    if question == "kernels_for":
        data = [kernels_for_brief(a) for a in result]
        return data, kernels_for_brief_text(data)
    if question == "trace":
        data = trace_brief(result)
        return data, trace_brief_text(data)
    data = ops_for_brief(result)
    return data, ops_for_brief_text(data)
