"""The DispatchStub macro family: which macro site declares, defines or registers which stub.

`stub_macros(DispatchStub.h)` reads the checkout's own header with the small
preprocessor (preprocessor.py) and resolves every *_DISPATCH macro once per
compile context into `StubExpansion`s; the extractor then only looks a
macro site up. `DEFAULT_STUB_MACROS` is the model for a checkout whose
header cannot be read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..vocab import StubKind
from .conditions import Env
from .preprocessor import Branch, Define, Holds, conditional_items, define_line, substitute
from .scan import balanced_args, dec


@dataclass(frozen=True)
class StubExpansion:
    """What one macro site does in one compile context.

    Argument indexes refer to the site's macro arguments."""

    kind: StubKind  # declare | define | register
    stub_arg: int
    device: str | None = None
    arch: str | None = None
    arch_arg: int | None = None  # REGISTER_ARCH_DISPATCH(name, arch, fn): arch comes from the site
    fn_arg: int | None = None  # the kernel argument
    is_nullptr: bool = False
    type_arg: int | None = None  # DECLARE_DISPATCH's function pointer type


@dataclass(frozen=True)
class StubMacros:
    """The DispatchStub family of one checkout, resolved per compile context.

    Model: an x86-64 build (HAVE_AVX2_CPU_DEFINITION and
    HAVE_AVX512_CPU_DEFINITION defined), so `capabilities` is the header's
    CPUCapability enum on x86: (DEFAULT, AVX2, AVX512). Contexts:

    - "cpu": aten/src/ATen/native/cpu/*.cpp and native/quantized/cpu/kernels/*.cpp,
      compiled once per capability with -DCPU_CAPABILITY=X -DCPU_CAPABILITY_X;
      a site yields one registration per capability (REGISTER_DISPATCH in
      2.6.0 registers nullptr for AVX512, as the header says; use
      ALSO_REGISTER_AVX512_DISPATCH to register it).
    - "cuda": .cu/.cuh (__CUDACC__); REGISTER_DISPATCH -> device CUDA.
    - "mps": .mm (__OBJC__ and USE_MPS); REGISTER_DISPATCH -> device MPS.
    - "plain": every other file.

    A site whose macro expands to nothing on x86 (REGISTER_VSX_DISPATCH,
    REGISTER_ZVECTOR_DISPATCH, REGISTER_SVE256_DISPATCH) is resolved as if
    its platform's HAVE_*_CPU_DEFINITION were set, so it still yields its
    registration (arch VSX, ...). A macro not defined in the file's context
    at all falls back to the "cpu" context.

    The header's #if conditions are evaluated per context (conditions.evaluate): the
    context's names are the defined ones, and a condition that cannot be known (the
    compiler's own macros, a function-like macro call) keeps its lines, as if the #if
    were not there.
    """

    capabilities: tuple[str, ...]
    table: tuple[tuple[str, str, tuple[StubExpansion, ...]], ...]  # (context, macro, expansions)

    @property
    def names(self) -> frozenset[str]:
        return stub_lookup(self)[1]

    def expansions(self, context: str, macro: str) -> tuple[StubExpansion, ...]:
        return stub_lookup(self)[0].get((context, macro), ())


_STUB_LOOKUPS: dict[int, tuple[StubMacros, dict, frozenset[str]]] = {}


def stub_lookup(sm: StubMacros) -> tuple[dict[tuple[str, str], tuple[StubExpansion, ...]], frozenset[str]]:
    # by identity: hashing the whole table on every call costs more than the lookup
    got = _STUB_LOOKUPS.get(id(sm))
    if got is None or got[0] is not sm:
        if len(_STUB_LOOKUPS) >= 8:
            _STUB_LOOKUPS.clear()
        got = _STUB_LOOKUPS[id(sm)] = (sm, {(c, m): e for c, m, e in sm.table}, frozenset(m for _, m, _ in sm.table))
    return got[1], got[2]


_DEVICE_NAMES = {"PRIVATEUSE1": "PrivateUse1"}


def _stub_effects(name: str, args: list[str], active: dict[str, Define], cap: str | None, depth: int = 0) -> list[StubExpansion]:
    d = active.get(name)
    if d is None or depth > 8:
        return []
    body = substitute(d, args)
    effects: list[StubExpansion] = []
    src = body.encode()
    spans: list[tuple[int, int]] = []
    for m in re.finditer(rb"\b([A-Z][A-Z0-9_]*_DISPATCH)\s*\(", src):
        inner = dec(m.group(1))
        if inner not in active or any(a <= m.start() < b for a, b in spans):
            continue
        parsed = balanced_args(src, m.end() - 1)
        if parsed is None:
            continue
        effects.extend(_stub_effects(inner, parsed[0], active, cap, depth + 1))
        spans.append((m.start(), parsed[1]))
    rest = bytearray(src)
    for a, b in spans:
        rest[a:b] = b" " * (b - a)
    text = dec(bytes(rest))

    def placeholder(t: str) -> int | None:
        m = re.fullmatch(r"\s*@(\d+)\s*", t)
        return int(m.group(1)) if m else None

    def fn_of(expr: str) -> tuple[int | None, bool]:
        expr = expr.strip()
        if re.fullmatch(r"nullptr|\(?\s*nullptr\s*\)?", expr) or re.search(r"\?\s*nullptr\s*:\s*nullptr", expr):
            return None, True
        k = placeholder(expr)
        if k is None:
            m = re.search(r"@(\d+)", expr)
            k = int(m.group(1)) if m else None
        return k, False

    if "DispatchStub" in text and "extern" in text:
        t = re.search(r"DispatchStub\s*<\s*@(\d+)\s*,", text)
        ext = text[text.index("extern"):]
        s = re.findall(r"@(\d+)", ext)
        if s:
            effects.append(StubExpansion(StubKind.DECLARE, int(s[-1]), type_arg=int(t.group(1)) if t else None))
    else:
        m = re.search(r"DispatchStub\s*<[^;]*>\s*::\s*(@\d+|\w+)\s*=\s*([^;]+);", text)
        if m:
            s = re.search(r"@(\d+)", text)
            arch_tok = m.group(1)
            arch_arg = int(arch_tok[1:]) if arch_tok.startswith("@") else None
            arch = None if arch_arg is not None else (cap if arch_tok == "CPU_CAPABILITY" else arch_tok)
            fn, null = fn_of(m.group(2))
            if s:
                effects.append(StubExpansion(StubKind.REGISTER, int(s.group(1)), "CPU", arch, arch_arg, fn, null))
        m = re.search(r"Register(\w+?)Dispatch\s*<[^;]*?\(\s*@(\d+)\s*,\s*([^;]+)\)\s*;", text)
        if m:
            fn, null = fn_of(m.group(3))
            dev = _DEVICE_NAMES.get(m.group(1), m.group(1))
            effects.append(StubExpansion(StubKind.REGISTER, int(m.group(2)), dev, None, None, fn, null))
        m = re.fullmatch(r"\s*(?:static\s+)?struct\s+\S+\s+@(\d+)\s*;?\s*", text)
        if m:
            effects.append(StubExpansion(StubKind.DEFINE, int(m.group(1))))
    return effects


_CPU_CONTEXTS = ("plain", "cuda", "mps")
_CONTEXT_DEFINES = {"plain": (), "cuda": ("__CUDACC__",), "mps": ("__OBJC__", "USE_MPS")}
_X86 = ("HAVE_AVX2_CPU_DEFINITION", "HAVE_AVX512_CPU_DEFINITION")


def stub_macros(dispatch_stub_h: bytes) -> StubMacros:
    """The DispatchStub macro family as the checkout's DispatchStub.h defines it.

    Every #define whose name ends in _DISPATCH and whose expansion declares,
    defines or registers a stub is a member; see StubMacros for the model.
    """
    items = conditional_items(dec(dispatch_stub_h))
    defines = [(branch, d) for kind, branch, line in items if kind == "define" for d in [define_line(line)] if d is not None]
    base = frozenset(_X86)
    x86 = Holds(Env.of(base))
    capabilities = tuple(dict.fromkeys(n for branch, n in _enum_items(items) if x86(branch) is not False))
    capabilities = capabilities or ("DEFAULT", "AVX2", "AVX512")
    all_have = frozenset(_have_names(items)) | base
    family = sorted({d.name for _, d in defines if d.name.endswith("_DISPATCH") and d.params is not None})
    contexts: dict[str, list[tuple[frozenset[str], str | None]]] = {
        c: [(base | frozenset(_CONTEXT_DEFINES[c]), None)] for c in _CPU_CONTEXTS
    }
    contexts["cpu"] = [(base | {"CPU_CAPABILITY", f"CPU_CAPABILITY_{cap}"}, cap) for cap in capabilities]
    resolved: dict[tuple[str, str], tuple[StubExpansion, ...]] = {}
    for ctx, variants in contexts.items():
        for macro in family:
            effects: list[StubExpansion] = []
            for defined, cap in variants:
                got = _resolve(macro, _active(defines, defined), cap)
                if not got:  # expands to nothing on x86: resolve on its own platform
                    got = _resolve(macro, _active(defines, defined | all_have), cap)
                effects.extend(got)
            resolved[(ctx, macro)] = tuple(dict.fromkeys(effects))
    table: list[tuple[str, str, tuple[StubExpansion, ...]]] = []
    for macro in family:
        for ctx in contexts:
            eff = resolved[(ctx, macro)] or resolved[("cpu", macro)]
            if eff:
                table.append((ctx, macro, eff))
    return StubMacros(capabilities, tuple(table))


def _enum_items(items) -> list[tuple[Branch | None, str]]:
    """The enumerators of `enum class CPUCapability`, with the branch each sits in."""
    out: list[tuple[Branch | None, str]] = []
    in_enum = False
    for kind, branch, line in items:
        if kind != "line":
            continue
        if re.search(r"\benum\s+class\s+CPUCapability\b", line):
            in_enum = True
        if in_enum:
            for name in re.findall(r"\b([A-Z][A-Z0-9_]*)\s*(?:=\s*\d+\s*)?[,}]?", line.split("{", 1)[-1]):
                if name != "NUM_OPTIONS":
                    out.append((branch, name))
            if "}" in line:
                in_enum = False
    return out


_HAVE = re.compile(r"\bHAVE_\w+_CPU_DEFINITION\b")


def _have_names(items) -> set[str]:
    """The HAVE_<ARCH>_CPU_DEFINITION names the header's lines and their conditions mention."""
    have: set[str] = set()
    seen: set[int] = set()
    for _kind, branch, line in items:
        have.update(_HAVE.findall(line))
        while branch is not None and id(branch) not in seen:
            seen.add(id(branch))
            have.update(_HAVE.findall(branch.condition))
            branch = branch.parent
    return have


def _active(defines: list[tuple[Branch | None, Define]], defined: frozenset[str]) -> dict[str, Define]:
    """The header's macros in one compile context (a later #define of a name wins; a
    condition that cannot be known keeps its #define)."""
    holds = Holds(Env.of(defined))
    return {d.name: d for branch, d in defines if holds(branch) is not False}


def _resolve(macro: str, active: dict[str, Define], cap: str | None) -> list[StubExpansion]:
    d = active.get(macro)
    args = [f"@{k}" for k in range(len(d.params or ()))] if d else []
    return _stub_effects(macro, args, active, cap)


# A summary of the DispatchStub.h macro family (2.x shape), written for the
# case where the checkout's header cannot be read.
_DEFAULT_HEADER = b"""
enum class CPUCapability {
  DEFAULT = 0,
#if defined(HAVE_VSX_CPU_DEFINITION)
  VSX = 1,
#elif defined(HAVE_ZVECTOR_CPU_DEFINITION)
  ZVECTOR = 1,
#elif defined(HAVE_SVE_CPU_DEFINITION)
  SVE256 = 1,
#else
  AVX2 = 1,
  AVX512 = 2,
#endif
  NUM_OPTIONS
};
#define DECLARE_DISPATCH(fn, name) struct name##_T : DispatchStub<fn, name##_T> {}; extern struct name##_T name;
#define DEFINE_DISPATCH(name) struct name##_T name
#define REGISTER_ARCH_DISPATCH(name, arch, fn) template <> name##_T::FnPtr DispatchStub<name##_T::FnPtr, struct name##_T>::arch = fn;
#define REGISTER_AVX512_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, AVX512, fn)
#define REGISTER_AVX2_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, AVX2, fn)
#define REGISTER_VSX_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, VSX, fn)
#define REGISTER_ZVECTOR_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, ZVECTOR, fn)
#define REGISTER_SVE256_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, SVE256, fn)
#define REGISTER_ALL_CPU_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, DEFAULT, fn) REGISTER_AVX512_DISPATCH(name, fn) REGISTER_AVX2_DISPATCH(name, fn)
#define REGISTER_NO_CPU_DISPATCH(name) REGISTER_ALL_CPU_DISPATCH(name, nullptr)
#define REGISTER_CUDA_DISPATCH(name, fn) static RegisterCUDADispatch<struct name##_T> name##__register(name, fn);
#define REGISTER_XPU_DISPATCH(name, fn) static RegisterXPUDispatch<struct name##_T> name##__register(name, fn);
#define REGISTER_HIP_DISPATCH(name, fn) static RegisterHIPDispatch<struct name##_T> name##__register(name, fn);
#define REGISTER_MPS_DISPATCH(name, fn) static RegisterMPSDispatch<struct name##_T> name##__register(name, fn);
#define REGISTER_MTIA_DISPATCH(name, fn) static RegisterMTIADispatch<struct name##_T> name##__register(name, fn);
#define REGISTER_PRIVATEUSE1_DISPATCH(name, fn) static RegisterPRIVATEUSE1Dispatch<struct name##_T> name##__register(name, fn);
#if defined(__CUDACC__)
#define REGISTER_DISPATCH(name, fn) REGISTER_CUDA_DISPATCH(name, fn)
#elif defined(__OBJC__) && defined(USE_MPS)
#define REGISTER_DISPATCH(name, fn) REGISTER_MPS_DISPATCH(name, fn)
#elif defined(CPU_CAPABILITY)
#ifdef CPU_CAPABILITY_AVX512
#define REGISTER_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, CPU_CAPABILITY, ((void*)(fn) ? nullptr : nullptr))
#else
#define REGISTER_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, CPU_CAPABILITY, fn)
#endif
#define ALSO_REGISTER_AVX512_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, CPU_CAPABILITY, fn)
#define ALSO_REGISTER_SVE256_DISPATCH(name, fn) REGISTER_ARCH_DISPATCH(name, CPU_CAPABILITY, fn)
#define REGISTER_NO_AVX512_DISPATCH(name) REGISTER_AVX512_DISPATCH(name, nullptr)
#endif
"""

def __getattr__(name: str):
    """DEFAULT_STUB_MACROS, made when first asked for (PEP 562): a build reads the checkout's own header, and a
    process that only imports this module (the build's X-macro stage) does not make it (20 ms)."""
    if name == "DEFAULT_STUB_MACROS":
        value = globals()[name] = stub_macros(_DEFAULT_HEADER)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compile_context(path: str) -> str:
    """The DispatchStub compile context of a file (see StubMacros)."""
    p = path.replace("\\", "/")
    low = p.lower()
    if low.endswith((".cu", ".cuh")):
        return "cuda"
    if low.endswith(".mm"):
        return "mps"
    if re.search(r"(^|/)aten/src/ATen/native/(cpu|quantized/cpu/kernels)/[^/]+\.cpp$", p):
        return "cpu"
    return "plain"


