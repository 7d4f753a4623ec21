"""What a written callee says by itself: its last component, whether it is a launch helper,
a vendor library family, an AT_DISPATCH macro or a stub. Memoised across files (callees repeat).
"""

from __future__ import annotations

import re

from ..naming import STUB_SUFFIX

MEMBER_FIELDS = ("impl", "def", "fallback")  # m.impl / m.def / m.fallback in a TORCH_LIBRARY block

_HELPER = re.compile(
    r"(gpu_kernel\w*|opmath_\w*gpu_kernel\w*|jitted_gpu_kernel\w*|gpu_reduce_kernel|launch_\w*kernel\w*|"
    r"cpu_kernel\w*|cpu_serial_kernel\w*|parallel_for|parallel_reduce|binary_kernel_reduce\w*|"
    r"vectorized_elementwise_kernel|unrolled_elementwise_kernel|elementwise_kernel)"
)

# TensorIterator's own loop runners, called on an iterator: `iter.for_each(loop, grain_size)` runs the loop (a
# lambda or a functor, its first argument) over the iterator's chunks; std::for_each is not one (no receiver).
_MEMBER_HELPERS = frozenset(("for_each", "serial_for_each"))

# A first argument that names a device: a stub called by a name that does not say so.
# calls.scm's #match? predicate is the cheap filter in front of it.
DEVICE_ARG = re.compile(
    r"(?:(?:at::|c10::)?(?:DeviceType::\w+|k(?:CPU|CUDA|MPS|XPU|HIP|MTIA|PrivateUse1|Meta)))|"
    r".*\bdevice_type\(\)|.*\.device\(\)\.type\(\)|.*\bdevice\.type\(\)|device_type|.*_device_type\(\)"
)

# The vendor families by the callee's name. A CUDA library's C API is its name, then a capital (cudnnRNNForward); a
# name that only starts with it is the checkout's or a local's (cudnn_conv_suggest_memory_format, a `cudnn_method`
# function pointer).
_LIBRARY_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (f, re.compile(p))
    for f, p in (
        ("cublaslt", r"(^|::)cublasLt[A-Z]\w*$"),
        ("cublas", r"(^|::)cublas[A-Z]\w*$|(^|::)cuda::blas::\w+$"),
        ("cudnn", r"(^|::)cudnn[A-Z]\w*$|(^|::)cudnn_frontend::"),
        ("cufft", r"(^|::)cufft[A-Z]\w*$"),
        ("cusparse", r"(^|::)cusparse[A-Z]\w*$"),
        ("cusolver", r"(^|::)cusolver[A-Z]\w*$"),
        ("magma", r"(^|::)magma\w*$"),
        ("onednn", r"(^|::)(ideep|dnnl|mkldnn|onednn)(::|_)|^(mkldnn|onednn)\w*$"),
        ("mkl", r"(^|::)(mkl_\w+|Dfti\w+|MKL_\w+|cblas_\w+)$|(^|::)mkl::"),
        ("flash_attention", r"(^|::)(pytorch_)?flash::|(^|::)(mha_(varlen_)?(fwd|bwd)\w*|run_mha_\w+|flash_attention\w*)$"),
        ("mem_efficient_attention", r"(^|::)(mem_eff\w*|_?efficient_attention\w*|attention_kernel\w*)$|(^|::)AttentionKernel(::|$)"),
    )
)

_LIBRARY_HINT = re.compile(
    r"cublas|cudnn|cufft|cusparse|cusolver|magma|ideep|dnnl|mkl|onednn|Dfti|MKL_|cblas_|flash|mha_|"
    r"efficient_attention|mem_eff|attention_kernel|AttentionKernel|blas::"
)

_CALLEE_FACTS: dict[tuple[str, str], tuple[str, bool, str | None]] = {}
# Per language: the bytes of a written callee -> its _callee_info in a file that declares no
# stubs and no AT_DISPATCH wrappers of its own.
WRITTEN_CALLEES: dict[str, dict[bytes, tuple]] = {}


def callee_info(callee: str, language: str, wrappers=frozenset(), stubs=frozenset()) -> tuple:
    """(callee, last, AT_DISPATCH use, stub, launch helper, library family, special): what the
    calls phase needs; special is true when a call needs more than its edge.
    wrappers and stubs are names the file itself makes AT_DISPATCH wrappers and stubs."""
    last, helper, family = _callee_facts(callee, language)
    dispatchy = last.startswith("AT_DISPATCH") or last in wrappers
    stubby = last.endswith(STUB_SUFFIX) or last in stubs
    special = dispatchy or stubby or helper or family is not None or last in MEMBER_FIELDS
    return callee, last, dispatchy, stubby, helper, family, special


def _callee_facts(callee: str, language: str) -> tuple[str, bool, str | None]:
    """What a written callee alone says: last component, launch helper,
    library family. Memoised across files (callees repeat)."""
    key = (callee, language)
    got = _CALLEE_FACTS.get(key)
    if got is None:
        last = last_component(callee)
        plain = _without_template_args(callee) if "<" in callee else callee
        family = None
        if _LIBRARY_HINT.search(plain):
            for fam, rx in _LIBRARY_FAMILIES:
                if rx.search(plain) or (fam == "cublas" and language == "cuda" and plain.startswith("blas::")):
                    family = fam
                    break
        helper = _HELPER.fullmatch(last) is not None or (
            last in _MEMBER_HELPERS and _without_template_args(callee).endswith((f".{last}", f"->{last}")))
        got = (last, helper, family)
        if len(_CALLEE_FACTS) > 200_000:
            _CALLEE_FACTS.clear()
        _CALLEE_FACTS[key] = got
    return got


_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")
_COMPONENT_SEP = re.compile(r"::|\.|->")


def _without_template_args(callee: str) -> str:
    plain = callee
    while True:
        new = _TEMPLATE_ARGS.sub("", plain)
        if new == plain:
            return plain
        plain = new


def last_component(callee: str) -> str:
    plain = _without_template_args(callee) if "<" in callee else callee
    if ":" not in plain and "." not in plain and ">" not in plain:
        return plain
    parts = _COMPONENT_SEP.split(plain)
    return parts[-1] if parts else plain
