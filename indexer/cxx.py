"""C++/CUDA/Objective-C++ bytes -> facts (definitions, stubs, launches, ...).

`extract(source, path, macros)` is pure: no I/O, no printing, never raises.
It parses once with tree-sitter (tree-sitter-cpp, or tree-sitter-cuda for
.cu/.cuh and for headers that use CUDA syntax), runs one combined query built
from the .scm files next to this module (scm/cpp/*.scm, plus scm/cuda/*.scm
for CUDA), and turns the captures into frozen facts.

Cost: every pattern in a query costs a walk over every node, so the combined
query holds only what most files need. The skip ranges (comments, literals;
scm/lazy/skip.scm) are queried only when a textual scan has a candidate to
check, and ERROR/MISSING nodes are found by walking the nodes that report
has_error. Work that depends only on a written callee is memoised.

Conventions (documented here once, relied on by the linker):

- Lines are 1-based ints; the file is `CxxFacts.path` (relative to the
  checkout), so `Location(facts.path, fact.line)` is the location of a fact.
- Qualified names join the enclosing namespaces and classes with `::`; an
  unnamed namespace is written `(anonymous)`, as clang prints it:
  `at::native::(anonymous)::foo`. An out-of-class definition keeps its
  written qualifier: `void Foo::bar()` in `at` is `at::Foo::bar`.
- Structured kernels: TORCH_META_FUNC(add) and TORCH_META_FUNC2(add, Tensor)
  are definitions of kind `meta_func` named `add` and `add.Tensor` (the
  overload name joined with a dot, as in native_functions.yaml);
  TORCH_IMPL_FUNC(add_out) is kind `impl_func` named `add_out`. Their
  qualified name is the C++ the macro expands to:
  `at::meta::structured_add_Tensor::meta`, `at::native::structured_add_out::impl`.
  `macro` names the macro used.
- DispatchStub registrations: see `stub_macros`. A registration of nullptr
  has `kernel=None, is_nullptr=True`.
- Calls at namespace scope (static initialisers, TORCH_LIBRARY blocks) have
  `caller=None`; stub uses are recorded only inside function bodies.
"""

from __future__ import annotations

import bisect
import functools
import operator
import re
from dataclasses import dataclass, replace
from typing import NamedTuple
from pathlib import Path

__all__ = [
    "CallFact",
    "CxxFacts",
    "DEFAULT_STUB_MACROS",
    "DefinitionFact",
    "DtypeDispatchFact",
    "LaunchFact",
    "LibraryCallFact",
    "RegistrationFact",
    "StubExpansion",
    "StubFact",
    "StubMacros",
    "StubUseFact",
    "extract",
    "language_for",
    "stub_macros",
]

# --------------------------------------------------------------------------
# Facts


@dataclass(frozen=True)
class DefinitionFact:
    """A function body: free function, method, CUDA kernel or structured kernel."""

    name: str  # "foo"; structured: "add_out", "add.Tensor"
    qualified_name: str  # "at::native::(anonymous)::foo"
    kind: str  # function | method | global_kernel | device_function | meta_func | impl_func
    signature: str  # the declarator, whitespace-normalised
    line: int
    end_line: int
    is_template: bool
    qualifiers: tuple[str, ...]  # ("__global__",), ("static", "__device__", "__forceinline__")
    macro: str | None = None  # TORCH_META_FUNC2, TORCH_IMPL_FUNC, ... for structured kernels


@dataclass(frozen=True)
class StubFact:
    """One effect of a DispatchStub macro site (a site may register several arches)."""

    kind: str  # declare | define | register
    macro: str  # "REGISTER_DISPATCH"
    stub: str  # "add_stub"
    line: int
    device: str | None = None  # CPU, CUDA, HIP, MPS, XPU, MTIA, PrivateUse1 (register only)
    arch: str | None = None  # DEFAULT, AVX2, AVX512, VSX, ZVECTOR, SVE256 (CPU only)
    kernel: str | None = None  # "add_kernel" (leading & dropped); None for nullptr
    is_nullptr: bool = False
    fn_type: str | None = None  # DECLARE_DISPATCH's function pointer type


@dataclass(frozen=True)
class StubUseFact:
    """A stub called (`add_stub(device_type(), ...)`) or passed to a helper."""

    stub: str
    caller: str
    line: int
    how: str  # call | argument


class CallFact(NamedTuple):
    """A call edge by name (a named tuple: a file has thousands, and a tuple is made fastest)."""

    caller: str | None
    callee: str  # as written, whitespace removed: "at::cuda::blas::gemm<scalar_t>", "iter.dtype"
    callee_name: str  # last component, no template arguments: "gemm", "dtype"
    line: int


@dataclass(frozen=True)
class LaunchFact:
    """A `<<<...>>>` launch or a launch helper (gpu_kernel, cpu_kernel_vec, parallel_for ...)."""

    kind: str  # "triple_chevron" or the helper's name ("gpu_kernel", "parallel_for", ...)
    kernel: str | None  # kernel or functor name; None when the helper runs a lambda
    template_args: str | None  # "<float>" / "<scalar_t, 4>"
    config: tuple[str, ...]  # (grid, block[, shmem[, stream]]) for triple_chevron
    caller: str | None
    line: int  # triple_chevron: the line of `<<<`; helper: the line the call starts
    lambda_line: int | None = None  # start line of the lambda the helper runs
    macro: str | None = None  # the #define whose body holds the launch


@dataclass(frozen=True)
class DtypeDispatchFact:
    """An AT_DISPATCH_* / AT_DISPATCH_V2 use (directly or through a file-local wrapper)."""

    macro: str  # as written: "AT_DISPATCH_FLOATING_TYPES_AND2" or the wrapper's name
    dtypes: tuple[str, ...]  # ("FLOATING_TYPES", "kHalf", "kBFloat16"); V2: ("AT_ALL_TYPES", "kHalf")
    name: str | None  # the name string: "add_cpu"
    caller: str | None
    line: int
    via: str | None = None  # the AT_DISPATCH_* macro a file-local wrapper expands to


@dataclass(frozen=True)
class LibraryCallFact:
    """A call into a vendor library family."""

    family: str  # cublas cublaslt cudnn cufft cusparse cusolver magma onednn mkl flash_attention mem_efficient_attention
    callee: str
    caller: str | None
    line: int


@dataclass(frozen=True)
class RegistrationFact:
    """A TORCH_LIBRARY* block or one m.impl / m.def / m.fallback in it."""

    kind: str  # block | impl | def | fallback
    macro: str  # TORCH_LIBRARY | TORCH_LIBRARY_IMPL | TORCH_LIBRARY_FRAGMENT
    namespace: str  # "aten"; "_" for a catch-all TORCH_LIBRARY_IMPL(_, Key, m)
    dispatch_key: str | None  # "CPU"; None for TORCH_LIBRARY / _FRAGMENT
    op: str | None  # "aten::add.Tensor" / "add.Tensor" as written, schema stripped
    schema: str | None  # the full schema string of an m.def("foo(Tensor x) -> Tensor")
    function: str | None  # "add_out_cpu" from TORCH_FN(add_out_cpu) / &add_out_cpu / add_out_cpu
    line: int
    via: str | None = None  # the file-local (or functorch helper) macro used


@dataclass(frozen=True)
class CxxFacts:
    path: str
    language: str  # cpp | cuda
    definitions: tuple[DefinitionFact, ...] = ()
    stubs: tuple[StubFact, ...] = ()
    stub_uses: tuple[StubUseFact, ...] = ()
    calls: tuple[CallFact, ...] = ()
    launches: tuple[LaunchFact, ...] = ()
    dtype_dispatches: tuple[DtypeDispatchFact, ...] = ()
    library_calls: tuple[LibraryCallFact, ...] = ()
    registrations: tuple[RegistrationFact, ...] = ()
    parse_errors: int = 0  # ERROR + MISSING nodes (+1 if extraction itself failed)
    failure: str | None = None  # "ExceptionType: message" when extraction stopped early (a bug to report)


# --------------------------------------------------------------------------
# Small text helpers (bytes in, str out)


def _norm(text: str) -> str:
    return " ".join(text.split())


_WS = re.compile(r"\s+")


def _nospace(text: str) -> str:
    return _WS.sub("", text) if (" " in text or "\n" in text or "\t" in text or "\r" in text) else text


def _dec(b: bytes) -> str:
    return b.decode("utf-8", "replace")


_OPEN = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
_CLOSE = {v: k for k, v in _OPEN.items()}


def _skip_literal(src: bytes, i: int) -> int:
    """If src[i] starts a comment, string or char literal, return the index after it, else i."""
    c = src[i]
    n = len(src)
    if c == 0x2F and i + 1 < n:  # '/'
        if src[i + 1] == 0x2F:
            j = src.find(b"\n", i)
            return n if j < 0 else j
        if src[i + 1] == 0x2A:
            j = src.find(b"*/", i + 2)
            return n if j < 0 else j + 2
        return i
    if c == 0x22 or c == 0x27:  # " '
        if c == 0x27 and i > 0 and chr(src[i - 1]).isalnum():
            return i  # digit separator 1'000
        if c == 0x22 and i > 0 and src[i - 1] == 0x52:  # R"delim( ... )delim"
            k = src.find(b"(", i)
            if k > 0:
                delim = b")" + src[i + 1 : k] + b'"'
                j = src.find(delim, k)
                if j >= 0:
                    return j + len(delim)
        j = i + 1
        while j < n:
            d = src[j]
            if d == 0x5C:
                j += 2
                continue
            if d == c or d == 0x0A:
                return j + 1
            j += 1
        return n
    return i


_PUNCT = re.compile(rb"[()\[\]{},\"'/]")


def _balanced_args(src: bytes, open_paren: int) -> tuple[list[str], int] | None:
    """Split the parenthesised argument list starting at src[open_paren] == '('.

    Returns (arguments as text, index after the closing paren) or None when
    the list is not closed. Commas nested in (), [] and {} do not split.
    """
    if open_paren >= len(src) or src[open_paren] != 0x28:
        return None
    depth = 0
    args: list[str] = []
    start = open_paren + 1
    i = open_paren
    search = _PUNCT.search
    while True:
        m = search(src, i)
        if m is None:
            return None
        i = m.start()
        c = src[i]
        if c in (0x22, 0x27, 0x2F):
            j = _skip_literal(src, i)
            i = j if j != i else i + 1
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                last = src[start:i].strip()
                if last or args:
                    args.append(_dec(last))
                return args, i + 1
        elif depth == 1:  # a comma
            args.append(_dec(src[start:i].strip()))
            start = i + 1
        i += 1


def _skip_space(src: bytes, i: int) -> int:
    n = len(src)
    while i < n:
        if src[i] in b" \t\r\n\\":
            i += 1
            continue
        j = _skip_literal(src, i) if src[i] == 0x2F else i
        if j != i:
            i = j
            continue
        return i
    return i


def _body_end(src: bytes, i: int) -> int | None:
    """From i, find the next '{' (before any ';') and return the index after its match."""
    n = len(src)
    while i < n:
        j = _skip_literal(src, i)
        if j != i:
            i = j
            continue
        c = src[i]
        if c == 0x3B:  # ;
            return None
        if c == 0x7B:
            break
        i += 1
    else:
        return None
    depth = 0
    while i < n:
        j = _skip_literal(src, i)
        if j != i:
            i = j
            continue
        c = src[i]
        if c == 0x7B:
            depth += 1
        elif c == 0x7D:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


_STRING_RE = re.compile(r'(?:u8|u|U|L)?"((?:\\.|[^"\\])*)"')


def _string_value(text: str) -> str | None:
    """The value of a string argument: adjacent literals joined, through
    TORCH_SELECTIVE_NAME / TORCH_SELECTIVE_SCHEMA; None if it is not a string."""
    t = text.strip()
    m = re.fullmatch(r"(?:c10::|torch::)?(?:TORCH_SELECTIVE_NAME|TORCH_SELECTIVE_SCHEMA|TORCH_SELECTIVE_NAME_IN_SCHEMA)\s*\((.*)\)", t, re.S)
    if m:
        t = m.group(1).strip()
    if not t.startswith(('"', 'u8"', 'u"', 'U"', 'L"')):
        return None
    parts = _STRING_RE.findall(t)
    rest = _STRING_RE.sub("", t).strip()
    if rest:
        return None
    return "".join(parts)


def _strip_ref(text: str) -> str:
    t = _norm(text)
    while t.startswith("(") and t.endswith(")") and _balanced_args(t.encode(), 0) and _balanced_args(t.encode(), 0)[1] == len(t.encode()):
        t = t[1:-1].strip()
    if t.startswith("&"):
        t = t[1:].strip()
    return t


# --------------------------------------------------------------------------
# C preprocessor, just enough for DispatchStub.h and file-local macros


def _strip_comments(text: str) -> str:
    out = []
    src = text.encode("utf-8", "replace")
    i = 0
    n = len(src)
    last = 0
    while i < n:
        c = src[i]
        if c in (0x2F, 0x22, 0x27):
            j = _skip_literal(src, i)
            if j != i:
                if c == 0x2F:
                    out.append(src[last:i])
                    out.append(b"\n" * src[i:j].count(b"\n") or b" ")
                    last = j
                i = j
                continue
        i += 1
    out.append(src[last:])
    return _dec(b"".join(out))


@dataclass(frozen=True)
class _Define:
    name: str
    params: tuple[str, ...] | None  # None: object-like
    body: str


def _substitute(d: _Define, args: list[str]) -> str:
    """Replace a function-like macro's parameters (with # and ##) by args."""
    params = d.params or ()
    mapping: dict[str, str] = {}
    fixed = list(params)
    variadic = None
    if fixed and fixed[-1].endswith("..."):
        v = fixed.pop()
        variadic = v[:-3] or "__VA_ARGS__"
    for k, p in enumerate(fixed):
        mapping[p] = args[k] if k < len(args) else ""
    if variadic:
        mapping[variadic] = ", ".join(args[len(fixed):])

    def rep(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok.startswith('"'):
            return tok
        if tok.startswith("#"):
            name = tok[1:].strip()
            if name in mapping:
                return '"' + _norm(mapping[name]).replace("\\", "\\\\").replace('"', '\\"') + '"'
            return tok
        return mapping.get(tok, tok)

    out = _parameter_pattern(tuple(mapping)).sub(rep, d.body)
    return _PASTE.sub("", out) if "##" in out else out


_PASTE = re.compile(r"\s*##\s*")


@functools.lru_cache(maxsize=1024)
def _parameter_pattern(params: tuple[str, ...]) -> re.Pattern[str]:
    """String literals (left alone), `#param` and the parameters as whole words: the
    tokens of a macro body that substitution may change (other words are passed over)."""
    words = "|".join(re.escape(p) for p in sorted(params, key=len, reverse=True))
    return re.compile(r'"(?:\\.|[^"\\\n])*"|(?<!#)#(?!#)\s*\w+' + (rf"|\b(?:{words})\b" if words else ""))


@functools.lru_cache(maxsize=256)
def _macro_call_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\s*\(")


def _expand_text(text: str, defines: dict[str, _Define], depth: int = 0) -> str:
    """Expand calls of the given function-like macros in text (recursively, bounded)."""
    if depth > 6 or not defines:
        return text
    pattern = _macro_call_pattern(tuple(defines))
    src = text.encode()
    out: list[bytes] = []
    last = 0
    changed = False
    ascii_only = text.isascii()  # then str and byte offsets agree
    for m in pattern.finditer(text):
        start = m.start() if ascii_only else len(text[: m.start()].encode())
        if start < last:
            continue
        paren = m.end() - 1 if ascii_only else len(text[: m.end() - 1].encode())
        parsed = _balanced_args(src, paren)
        if parsed is None:
            continue
        args, end = parsed
        out.append(src[last:start])
        out.append(_substitute(defines[m.group(1)], args).encode())
        last = end
        changed = True
    if not changed:
        return text
    out.append(src[last:])
    return _expand_text(_dec(b"".join(out)), defines, depth + 1)


_FN_DEFINE = re.compile(rb"#[ \t]*define[ \t]+(\w+)\(([^()]*)\)")


def _define_spans(src: bytes) -> list[tuple[int, int, int]]:
    """Function-like #defines read from the text: (offset of the name, offset
    after the parameters, end of the logical line)."""
    out: list[tuple[int, int, int]] = []
    n = len(src)
    for m in _FN_DEFINE.finditer(src):
        line = src.rfind(b"\n", 0, m.start()) + 1
        if src[line : m.start()].strip():
            continue  # not at the start of a line
        end = m.end()
        while True:
            j = src.find(b"\n", end)
            if j < 0:
                end = n
                break
            k = j - 1
            if k >= 0 and src[k] == 0x0D:
                k -= 1
            if k >= m.end() and src[k] == 0x5C:  # backslash: the line continues
                end = j + 1
                continue
            end = j
            break
        out.append((m.start(1), m.end(), end))
    return out


def _text_define(src: bytes, span: tuple[int, int, int]) -> _Define:
    """The #define at span (see _define_spans), comments stripped from its body."""
    start, after, end = span
    head = _dec(src[start:after])
    name, _, params = head.partition("(")
    names = tuple(p.strip() for p in params[:-1].replace("\\", " ").split(",") if p.strip())
    body = re.sub(r"\\\r?\n", " ", _strip_comments(_dec(src[after:end]))).strip()
    return _Define(name, names, body)


def _logical_lines(text: str) -> list[str]:
    return re.sub(r"\\\r?\n", " ", _strip_comments(text)).splitlines()


_DIRECTIVE = re.compile(r"^\s*#\s*(\w+)\s*(.*)$")
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)$")


def _py_condition(expr: str) -> str:
    e = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)", lambda m: f'_d("{m.group(1) or m.group(2)}")', expr)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e)
    return re.sub(r'(?<!["\w])([A-Za-z_]\w*)(?!["\w])', lambda m: m.group(1) if m.group(1) in ("_d", "and", "or", "not") else "0", e)


def _holds(conds: tuple[tuple[tuple[str, ...], str], ...], defined: frozenset[str]) -> bool:
    env = {"_d": lambda n: n in defined, "__builtins__": {}}
    try:
        for prior, cur in conds:
            if any(eval(p, env) for p in prior):  # noqa: S307 - expression built from tokens above
                return False
            if not eval(cur, env):  # noqa: S307
                return False
    except Exception:
        return False
    return True


def _conditional_items(text: str) -> list[tuple[str, tuple, str]]:
    """Lines of a header with the #if conditions they sit under.

    Returns (kind, conds, line) with kind "define" or "line"."""
    stack: list[list] = []  # [prior list, current]
    items: list[tuple[str, tuple, str]] = []
    for line in _logical_lines(text):
        m = _DIRECTIVE.match(line)
        if m:
            d, rest = m.group(1), m.group(2).strip()
            if d == "if":
                stack.append([[], _py_condition(rest)])
            elif d == "ifdef":
                stack.append([[], f'_d("{rest.split()[0] if rest else ""}")'])
            elif d == "ifndef":
                stack.append([[], f'not _d("{rest.split()[0] if rest else ""}")'])
            elif d == "elif" and stack:
                stack[-1][0].append(stack[-1][1])
                stack[-1][1] = _py_condition(rest)
            elif d == "else" and stack:
                stack[-1][0].append(stack[-1][1])
                stack[-1][1] = "1"
            elif d == "endif" and stack:
                stack.pop()
            elif d == "define":
                items.append(("define", tuple((tuple(p), c) for p, c in stack), line))
            continue
        items.append(("line", tuple((tuple(p), c) for p, c in stack), line))
    return items


# --------------------------------------------------------------------------
# The DispatchStub macro family


@dataclass(frozen=True)
class StubExpansion:
    """What one macro site does in one compile context.

    Argument indexes refer to the site's macro arguments."""

    kind: str  # declare | define | register
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
    """

    capabilities: tuple[str, ...]
    table: tuple[tuple[str, str, tuple[StubExpansion, ...]], ...]  # (context, macro, expansions)

    @property
    def names(self) -> frozenset[str]:
        return _stub_lookup(self)[1]

    def expansions(self, context: str, macro: str) -> tuple[StubExpansion, ...]:
        return _stub_lookup(self)[0].get((context, macro), ())


_STUB_LOOKUPS: dict[int, tuple[StubMacros, dict, frozenset[str]]] = {}


def _stub_lookup(sm: StubMacros) -> tuple[dict[tuple[str, str], tuple[StubExpansion, ...]], frozenset[str]]:
    # by identity: hashing the whole table on every call costs more than the lookup
    got = _STUB_LOOKUPS.get(id(sm))
    if got is None or got[0] is not sm:
        if len(_STUB_LOOKUPS) >= 8:
            _STUB_LOOKUPS.clear()
        got = _STUB_LOOKUPS[id(sm)] = (sm, {(c, m): e for c, m, e in sm.table}, frozenset(m for _, m, _ in sm.table))
    return got[1], got[2]


_DEVICE_NAMES = {"PRIVATEUSE1": "PrivateUse1"}


def _stub_effects(name: str, args: list[str], active: dict[str, _Define], cap: str | None, depth: int = 0) -> list[StubExpansion]:
    d = active.get(name)
    if d is None or depth > 8:
        return []
    body = _substitute(d, args)
    effects: list[StubExpansion] = []
    src = body.encode()
    spans: list[tuple[int, int]] = []
    for m in re.finditer(rb"\b([A-Z][A-Z0-9_]*_DISPATCH)\s*\(", src):
        inner = _dec(m.group(1))
        if inner not in active or any(a <= m.start() < b for a, b in spans):
            continue
        parsed = _balanced_args(src, m.end() - 1)
        if parsed is None:
            continue
        effects.extend(_stub_effects(inner, parsed[0], active, cap, depth + 1))
        spans.append((m.start(), parsed[1]))
    rest = bytearray(src)
    for a, b in spans:
        rest[a:b] = b" " * (b - a)
    text = _dec(bytes(rest))

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
            effects.append(StubExpansion("declare", int(s[-1]), type_arg=int(t.group(1)) if t else None))
    else:
        m = re.search(r"DispatchStub\s*<[^;]*>\s*::\s*(@\d+|\w+)\s*=\s*([^;]+);", text)
        if m:
            s = re.search(r"@(\d+)", text)
            arch_tok = m.group(1)
            arch_arg = int(arch_tok[1:]) if arch_tok.startswith("@") else None
            arch = None if arch_arg is not None else (cap if arch_tok == "CPU_CAPABILITY" else arch_tok)
            fn, null = fn_of(m.group(2))
            if s:
                effects.append(StubExpansion("register", int(s.group(1)), "CPU", arch, arch_arg, fn, null))
        m = re.search(r"Register(\w+?)Dispatch\s*<[^;]*?\(\s*@(\d+)\s*,\s*([^;]+)\)\s*;", text)
        if m:
            fn, null = fn_of(m.group(3))
            dev = _DEVICE_NAMES.get(m.group(1), m.group(1))
            effects.append(StubExpansion("register", int(m.group(2)), dev, None, None, fn, null))
        m = re.fullmatch(r"\s*(?:static\s+)?struct\s+\S+\s+@(\d+)\s*;?\s*", text)
        if m:
            effects.append(StubExpansion("define", int(m.group(1))))
    return effects


_CPU_CONTEXTS = ("plain", "cuda", "mps")
_CONTEXT_DEFINES = {"plain": (), "cuda": ("__CUDACC__",), "mps": ("__OBJC__", "USE_MPS")}
_X86 = ("HAVE_AVX2_CPU_DEFINITION", "HAVE_AVX512_CPU_DEFINITION")


def stub_macros(dispatch_stub_h: bytes) -> StubMacros:
    """The DispatchStub macro family as the checkout's DispatchStub.h defines it.

    Every #define whose name ends in _DISPATCH and whose expansion declares,
    defines or registers a stub is a member; see StubMacros for the model.
    """
    text = _dec(dispatch_stub_h)
    items = _conditional_items(text)
    defines: list[tuple[tuple, _Define]] = []
    have: set[str] = set()
    enum_items: list[tuple[tuple, str]] = []
    in_enum = False
    for kind, conds, line in items:
        have.update(re.findall(r"\bHAVE_\w+_CPU_DEFINITION\b", line))
        for p, c in conds:
            have.update(re.findall(r'"(HAVE_\w+_CPU_DEFINITION)"', c))
        if kind == "define":
            m = _DEFINE.match(line)
            if m:
                params = tuple(p.strip() for p in m.group(2)[1:-1].split(",") if p.strip()) if m.group(2) else None
                defines.append((conds, _Define(m.group(1), params, m.group(3).strip())))
            continue
        if re.search(r"\benum\s+class\s+CPUCapability\b", line):
            in_enum = True
        if in_enum:
            for name in re.findall(r"\b([A-Z][A-Z0-9_]*)\s*(?:=\s*\d+\s*)?[,}]?", line.split("{", 1)[-1]):
                if name not in ("NUM_OPTIONS",):
                    enum_items.append((conds, name))
            if "}" in line:
                in_enum = False
    base = frozenset(_X86)
    capabilities = tuple(dict.fromkeys(n for c, n in enum_items if _holds(c, base))) or ("DEFAULT", "AVX2", "AVX512")
    all_have = frozenset(have) | base

    def active_for(defined: frozenset[str]) -> dict[str, _Define]:
        act: dict[str, _Define] = {}
        for conds, d in defines:
            if _holds(conds, defined):
                act[d.name] = d
        return act

    family = sorted({d.name for _, d in defines if d.name.endswith("_DISPATCH") and d.params is not None})
    contexts: dict[str, list[tuple[frozenset[str], str | None]]] = {
        c: [(base | frozenset(_CONTEXT_DEFINES[c]), None)] for c in _CPU_CONTEXTS
    }
    contexts["cpu"] = [(base | {"CPU_CAPABILITY", f"CPU_CAPABILITY_{cap}"}, cap) for cap in capabilities]
    table: list[tuple[str, str, tuple[StubExpansion, ...]]] = []
    resolved: dict[tuple[str, str], tuple[StubExpansion, ...]] = {}
    for ctx, variants in contexts.items():
        for macro in family:
            effects: list[StubExpansion] = []
            for defined, cap in variants:
                act = active_for(defined)
                d = act.get(macro)
                args = [f"@{k}" for k in range(len(d.params or ()))] if d else []
                got = _stub_effects(macro, args, act, cap)
                if not got:  # expands to nothing on x86: resolve on its own platform
                    act2 = active_for(defined | all_have)
                    d2 = act2.get(macro)
                    if d2:
                        got = _stub_effects(macro, [f"@{k}" for k in range(len(d2.params or ()))], act2, cap)
                effects.extend(got)
            resolved[(ctx, macro)] = tuple(dict.fromkeys(effects))
    for macro in family:
        for ctx in contexts:
            eff = resolved[(ctx, macro)] or resolved[("cpu", macro)]
            if eff:
                table.append((ctx, macro, eff))
    return StubMacros(capabilities, tuple(table))


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

DEFAULT_STUB_MACROS: StubMacros = stub_macros(_DEFAULT_HEADER)


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


# --------------------------------------------------------------------------
# tree-sitter: languages and the combined queries (cached per process)

_SCM = Path(__file__).with_name("scm")
_CUDA_MARKERS = re.compile(rb"__global__|__device__|<<<")


def language_for(path: str, source: bytes = b"") -> str:
    """"cuda" for .cu/.cuh and for headers that use CUDA syntax, else "cpp"."""
    low = path.lower()
    if low.endswith((".cu", ".cuh")):
        return "cuda"
    if low.endswith((".h", ".hpp", ".hxx", ".inl")) and _CUDA_MARKERS.search(source):
        return "cuda"
    return "cpp"


@functools.lru_cache(maxsize=None)
def _language(name: str):
    import tree_sitter as ts

    if name == "cuda":
        import tree_sitter_cuda

        return ts.Language(tree_sitter_cuda.language())
    import tree_sitter_cpp

    return ts.Language(tree_sitter_cpp.language())


def query_source(name: str) -> str:
    dirs = ["cpp"] + (["cuda"] if name == "cuda" else [])
    return "\n".join(p.read_text() for d in dirs for p in sorted((_SCM / d).glob("*.scm")))


@functools.lru_cache(maxsize=None)
def _tools(name: str):
    import tree_sitter as ts

    lang = _language(name)
    return ts.Parser(lang), ts.Query(lang, query_source(name))


@functools.lru_cache(maxsize=None)
def _skip_query(name: str):
    import tree_sitter as ts

    return ts.Query(_language(name), (_SCM / "lazy" / "skip.scm").read_text())


def _skip_nodes(root, language: str) -> list:
    import tree_sitter as ts

    if root is None:
        return []
    return sorted(ts.QueryCursor(_skip_query(language)).captures(root).get("skip", []), key=_position)


_position = operator.attrgetter("start_byte", "end_byte")  # a node's place in the file, for sorting


def _damage(root) -> tuple[list, list]:
    """The ERROR and MISSING nodes of a tree, in document order.

    Walks only the nodes that hold parse damage (has_error), which is far
    cheaper than an (ERROR)/(MISSING) query over every node; an ERROR nested
    in an ERROR may not say has_error itself, so ERROR nodes are entered too."""
    errors: list = []
    missing: list = []
    if not root.has_error:
        return errors, missing
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_missing:
            missing.append(n)
        elif n.is_error:
            errors.append(n)
        stack.extend(c for c in reversed(n.children) if c.has_error or c.is_error)
    return errors, missing


def parse(source: bytes, language: str):
    """Bare parse (for benchmarks): the tree."""
    return _tools(language)[0].parse(source)


# --------------------------------------------------------------------------
# Extraction

_STRUCTURED = {
    "TORCH_META_FUNC": ("meta_func", "meta"),
    "TORCH_META_FUNC2": ("meta_func", "meta"),
    "TORCH_PRECOMPUTE_META_FUNC": ("meta_func", "meta"),
    "TORCH_PRECOMPUTE_META_FUNC2": ("meta_func", "meta"),
    "TORCH_IMPL_FUNC": ("impl_func", "impl"),
}
_LIBRARY_MACROS = ("TORCH_LIBRARY", "TORCH_LIBRARY_IMPL", "TORCH_LIBRARY_FRAGMENT")

_CUDA_QUALIFIERS = re.compile(
    r"\b(__global__|__device__|__host__|__forceinline__|__noinline__|__launch_bounds__|"
    r"C10_HOST_DEVICE|C10_DEVICE|C10_HOST|C10_ALWAYS_INLINE|static|inline|constexpr|virtual|explicit|extern)\b"
)

_HELPER = re.compile(
    r"(gpu_kernel\w*|opmath_\w*gpu_kernel\w*|jitted_gpu_kernel\w*|gpu_reduce_kernel|launch_\w*kernel\w*|"
    r"cpu_kernel\w*|cpu_serial_kernel\w*|parallel_for|parallel_reduce|binary_kernel_reduce\w*|"
    r"vectorized_elementwise_kernel|unrolled_elementwise_kernel|elementwise_kernel)"
)

_DEVICE_ARG = re.compile(
    r"(?:(?:at::|c10::)?(?:DeviceType::\w+|k(?:CPU|CUDA|MPS|XPU|HIP|MTIA|PrivateUse1|Meta)))|"
    r".*\bdevice_type\(\)|.*\.device\(\)\.type\(\)|.*\bdevice\.type\(\)|device_type|.*_device_type\(\)"
)

# Every text _DEVICE_ARG matches holds "device"/"DeviceType" or k + a device
# name, whatever lies between their letters (the match is on the text without whitespace).
_DEVICE_HINT = re.compile(rb"e\W*v\W*i\W*c\W*e|k\W*[CMXHP]")
_MEMBER_FIELDS = ("impl", "def", "fallback")

_LIBRARY_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (f, re.compile(p))
    for f, p in (
        ("cublaslt", r"(^|::)cublasLt\w*$"),
        ("cublas", r"(^|::)cublas\w*$|(^|::)cuda::blas::\w+$"),
        ("cudnn", r"(^|::)cudnn\w*$|(^|::)cudnn_frontend::"),
        ("cufft", r"(^|::)cufft\w*$"),
        ("cusparse", r"(^|::)cusparse\w*$"),
        ("cusolver", r"(^|::)cusolver\w*$"),
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

# functorch's registration helpers (aten/src/ATen/functorch/BatchRulesHelper.h),
# summarised: each becomes one m.impl. A file's own #define of the same name wins.
_BUILTIN_REGISTRATION_MACROS = {
    d.name: d
    for d in (
        _Define("VMAP_SUPPORT", ("op", "batch_rule"), "m.impl(#op, batch_rule);"),
        _Define("VMAP_SUPPORT2", ("op", "overload", "batch_rule"), 'm.impl(#op "." #overload, batch_rule);'),
        _Define("OP_DECOMPOSE", ("op",), "m.impl(#op, native::op);"),
        _Define("OP_DECOMPOSE2", ("op", "overload"), 'm.impl(#op "." #overload, native::op);'),
        _Define("UNARY_POINTWISE", ("op",), "m.impl(#op, BASIC_UNARY_BATCH_RULE(ATEN_FN(op)));"),
        _Define("VARIADIC_BDIMS", ("op",), "m.impl(#op, VARIADIC_BDIMS_BATCH_RULE(ATEN_FN(op)));"),
        _Define("VARIADIC_BDIMS2", ("op", "overload"), 'm.impl(#op "." #overload, VARIADIC_BDIMS_BATCH_RULE(ATEN_FN2(op, overload)));'),
        _Define("VARIADIC_BDIMS_BOXED", ("op",), "m.impl(#op, boxed_tensor_inputs_batch_rule);"),
    )
}
# autocast's KERNEL_<DEVICE>(op[, overload], policy) (aten/src/ATen/autocast_mode.h in 2.x).
_BUILTIN_REGISTRATION_MACROS.update(
    {
        f"KERNEL_{dev}": _Define(f"KERNEL_{dev}", ("...",), f"__TG_AUTOCAST__({key}, __VA_ARGS__)")
        for dev, key in (("CUDA", "CUDA"), ("CPU", "CPU"), ("XPU", "XPU"), ("MPS", "MPS"), ("PRIVATEUSEONE", "PrivateUse1"))
    }
)

_SCOPES = {"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"}


_CALLEE_FACTS: dict[tuple[str, str], tuple[str, bool, str | None]] = {}
# Per language: the bytes of a written callee -> its _callee_info in a file that declares no
# stubs and no AT_DISPATCH wrappers of its own.
_WRITTEN_CALLEES: dict[str, dict[bytes, tuple]] = {}


def _callee_info(callee: str, language: str, wrappers=frozenset(), stubs=frozenset()) -> tuple:
    """(callee, last, AT_DISPATCH use, stub, launch helper, library family, special): what the
    calls loop of _extract needs; special is true when a call needs more than its edge.
    wrappers and stubs are names the file itself makes AT_DISPATCH wrappers and stubs."""
    last, helper, family = _callee_facts(callee, language)
    dispatchy = last.startswith("AT_DISPATCH") or last in wrappers
    stubby = last.endswith("_stub") or last in stubs
    special = dispatchy or stubby or helper or family is not None or last in _MEMBER_FIELDS
    return callee, last, dispatchy, stubby, helper, family, special


def _callee_facts(callee: str, language: str) -> tuple[str, bool, str | None]:
    """What a written callee alone says: last component, launch helper,
    library family. Memoised across files (callees repeat)."""
    key = (callee, language)
    got = _CALLEE_FACTS.get(key)
    if got is None:
        last = _last_component(callee)
        plain = _without_template_args(callee) if "<" in callee else callee
        family = None
        if _LIBRARY_HINT.search(plain):
            for fam, rx in _LIBRARY_FAMILIES:
                if rx.search(plain) or (fam == "cublas" and language == "cuda" and plain.startswith("blas::")):
                    family = fam
                    break
        got = (last, _HELPER.fullmatch(last) is not None, family)
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


def _last_component(callee: str) -> str:
    plain = _without_template_args(callee) if "<" in callee else callee
    if ":" not in plain and "." not in plain and ">" not in plain:
        return plain
    parts = _COMPONENT_SEP.split(plain)
    return parts[-1] if parts else plain


def _split_scope(qualified: str) -> list[str]:
    if "<" not in qualified:
        return qualified.split("::")
    out, depth, cur = [], 0, ""
    i = 0
    while i < len(qualified):
        c = qualified[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        if depth == 0 and qualified.startswith("::", i):
            out.append(cur)
            cur = ""
            i += 2
            continue
        cur += c
        i += 1
    out.append(cur)
    return out


_BRACE_TOKENS = re.compile(
    rb"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*|"
    rb"\bnamespace\b\s*([A-Za-z_][\w:]*)?\s*\{|[{}]",
    re.S | re.M,
)


def _text_namespaces(src: bytes) -> list[tuple[int, int, str]]:
    """(start, end, name) of every namespace block by brace matching, outermost first."""
    out: list[tuple[int, int, str]] = []
    stack: list[int | None] = []  # index into out for a namespace brace, None for another brace
    for m in _BRACE_TOKENS.finditer(src):
        c = src[m.start()]
        if c == 0x7B:  # {
            stack.append(None)
        elif c == 0x7D:  # }
            if stack:
                k = stack.pop()
                if k is not None:
                    s, _, name = out[k]
                    out[k] = (s, m.end(), name)
        elif c == 0x6E:  # namespace
            stack.append(len(out))
            out.append((m.start(), len(src), _dec(m.group(1) or b"")))
    return out


class _File:
    """Per-call state of one extraction (kept out of module globals)."""

    def __init__(self, source: bytes, path: str, macros: StubMacros, language: str):
        self.src = source  # what tree-sitter parsed (attribute macros blanked)
        self.orig = source  # the file as written; same offsets
        self.path = path
        self.macros = macros
        self.language = language
        self.context = compile_context(path)
        self._newlines: list[int] | None = None
        self.root = None  # the tree's root node, for the skip query run on demand
        self._skip: list[tuple[int, int]] | None = None
        self.define_names: set[int] = set()  # offsets of #define names
        self.defines: list[tuple[int, int]] = []  # (name, end of body) of every function-like #define
        self.damaged = False  # the tree has ERROR or MISSING nodes at namespace level
        self._namespaces: list[tuple[int, int, str]] | None = None
        self.scopes: dict = {}  # _scope_prefix's walks, by the node they start at
        # enclosing-function lookup
        self.ranges: list[tuple[int, int, str]] = []
        self._starts: list[int] = []
        self._parents: list[int] = []

    def line_of(self, offset: int) -> int:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer(rb"\n", self.src)]
        return bisect.bisect_left(self._newlines, offset) + 1

    def text(self, node) -> str:
        return _dec(self.orig[node.start_byte : node.end_byte])

    # ---- enclosing function
    def set_ranges(self, ranges: list[tuple[int, int, str]]) -> None:
        ranges.sort(key=lambda r: (r[0], -r[1]))
        self.ranges = ranges
        self._starts = [r[0] for r in ranges]
        parents: list[int] = []
        stack: list[int] = []
        for k, (s, e, _) in enumerate(ranges):
            while stack and ranges[stack[-1]][1] <= s:
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(k)
        self._parents = parents

    def caller_at(self, offset: int) -> str | None:
        k = bisect.bisect_right(self._starts, offset) - 1
        while k >= 0:
            s, e, name = self.ranges[k]
            if s <= offset < e:
                return name
            k = self._parents[k]
        return None

    def namespaces_at(self, offset: int) -> list[str]:
        """The namespaces around offset by the file's braces (comments, strings and preprocessor lines skipped)."""
        if self._namespaces is None:
            self._namespaces = _text_namespaces(self.src)
        out: list[str] = []
        for start, end, name in self._namespaces:  # outermost first
            if start > offset:
                break
            if offset < end:
                out.extend(_split_scope(name) if name else ["(anonymous)"])
        return out

    def in_define(self, offset: int) -> bool:
        k = bisect.bisect_right(self.defines, (offset, 1 << 62)) - 1
        return k >= 0 and self.defines[k][0] <= offset < self.defines[k][1]

    def in_skip(self, offset: int) -> bool:
        """Whether offset is in a comment, a string or char literal or a preprocessor argument."""
        if self._skip is None:
            self._skip = sorted((n.start_byte, n.end_byte) for n in _skip_nodes(self.root, self.language))
        k = bisect.bisect_right(self._skip, (offset, 1 << 62)) - 1
        return k >= 0 and self._skip[k][0] <= offset < self._skip[k][1]


def _scope_damage(src: bytes, errors, missing) -> bool:
    """Whether parse damage that holds a brace reaches namespace level (then
    namespace ends may have moved); damage inside a function body shows as a
    function nested in a block, which _scope_prefix checks itself."""
    for nodes in (errors, missing):
        for n in nodes:
            if n.is_missing:
                if n.type not in ("{", "}"):
                    continue
            elif src.find(b"{", n.start_byte, n.end_byte) < 0 and src.find(b"}", n.start_byte, n.end_byte) < 0:
                continue
            p = n
            while p is not None and p.type not in ("compound_statement", "field_declaration_list"):
                if p.type == "declaration_list":
                    return True
                p = p.parent
            if p is None:  # reached the root (which may be an ERROR itself)
                return True
    return False


def _scope_prefix(node, f: _File | None = None) -> tuple[list[str], bool, bool]:
    """Enclosing namespaces/classes (outermost first), is_template, in_class.

    With f: when parse damage has left the node outside every namespace
    tree-sitter saw (Objective-C++ message sends, unbalanced macros), the
    namespaces that the file's braces put around it are used instead."""
    p = node.parent
    is_template = p is not None and p.type == "template_declaration"
    while p is not None and p.type == "template_declaration":
        p = p.parent
    # definitions in one namespace or class share the walk above them: once per file
    memo = f.scopes if f is not None else None
    key = p.id if p is not None else None
    got = memo.get(key) if memo is not None else None
    if got is None:
        got = _scope_walk(p)
        if memo is not None:
            memo[key] = got
    parts, namespaces, in_class, local, nested = got
    if f is not None and not local and (f.damaged or nested):
        # the braces of the text decide the namespaces where they differ from the damaged tree's
        text_ns = f.namespaces_at(node.start_byte)
        if text_ns and "::".join(text_ns) != "::".join(namespaces):
            return text_ns + parts[len(namespaces):], is_template, in_class
    return list(parts), is_template, in_class


def _scope_walk(p) -> tuple[list[str], list[str], bool, bool, bool]:
    """From p up: (scopes outermost first, namespaces outermost first, in_class, local, nested)."""
    parts: list[str] = []
    namespaces: list[str] = []
    in_class = local = nested = False
    while p is not None:
        t = p.type
        if t == "namespace_definition":
            nm = p.child_by_field_name("name")
            parts.append(_nospace(_dec(nm.text)) if nm is not None else "(anonymous)")
            namespaces.append(parts[-1])
        elif t in ("class_specifier", "struct_specifier", "union_specifier"):
            nm = p.child_by_field_name("name")
            parts.append(_nospace(_dec(nm.text)) if nm is not None else "(anonymous)")
            in_class = True
        elif t == "function_definition":
            local = in_class  # local class: keep the class path only
            break
        elif t == "compound_statement" and not in_class:
            nested = True  # a function inside a block is parse damage: C++ has no nested functions
        p = p.parent
    parts.reverse()
    namespaces.reverse()
    return parts, namespaces, in_class, local, nested


def _function_declarator(decl):
    d = decl
    while d is not None and d.type != "function_declarator":
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            for c in d.named_children:
                if c.type == "function_declarator" or c.child_by_field_name("declarator") is not None:
                    nxt = c
                    break
        d = nxt
    return d


def extract(source: bytes, path: str, macros: StubMacros = DEFAULT_STUB_MACROS) -> CxxFacts:
    """Facts of one C++/CUDA/Objective-C++ file. Pure; never raises."""
    language = "cpp"
    try:
        language = language_for(path, source)
        return _extract(source, path, macros, language)
    except Exception as exc:  # noqa: BLE001 - a bad file must not stop the index
        return CxxFacts(path=str(path), language=language, parse_errors=1, failure=f"{type(exc).__name__}: {exc}"[:500])


# Attribute-like macros that tree-sitter cannot place in a declaration
# (`template <...> C10_LAUNCH_BOUNDS_1(128) __global__ void k(...)`,
# `C10_HOST_DEVICE C10_ALWAYS_INLINE T add(...) __ubsan_ignore_undefined__ {`,
# `struct TORCH_API Foo {`): blanked before parsing, newlines kept, so every
# offset and line stays the same. Not on preprocessor lines (`#define TORCH_API ...`).
# The qualifiers of a definition are still read from the original text.
_ATTRIBUTE_MACROS = (  # (bytes that must occur, pattern): literal prefixes keep the scans fast
    (
        b"C10_",
        re.compile(
            rb"C10_(?:HOST_DEVICE|HOST|DEVICE|HIP_HOST_DEVICE|ALWAYS_INLINE(?:_ATTRIBUTE|_UNLESS_MOBILE)?|NOINLINE|"
            rb"UNUSED|USED|NODISCARD|DEPRECATED|RESTRICT|HIDDEN|EXPORT|IMPORT|API|API_ENUM|CUDA_API|HIP_API|XPU_API|"
            rb"TYPENAME_CONSTEXPR|HOST_CONSTEXPR_EXCEPT_WIN_CUDA|(LAUNCH_BOUNDS_[0-9]|DEPRECATED_MESSAGE))\b"
        ),
    ),
    (b"_API", re.compile(rb"TORCH_(?:[A-Z0-9]+_)*API\b")),
    (b"_API", re.compile(rb"CAFFE2_API\b")),
    (b"__ubsan", re.compile(rb"__ubsan_ignore_[a-z_]+__\b")),
)


# A brace initializer of 16 KB or more holding only numbers (SobolEngineOpsUtils.cpp's 2 MB of
# direction numbers, crc_alt.h's tables) holds no facts, and as numbers it costs tree-sitter
# more than a tenth of all parsing; as one comment, of the same length, it costs next to nothing.
_NUMBER_TABLE = re.compile(rb"\{([\s0-9,xXa-fA-FuUlL.+\-{}]{16384,})\}")
_BLANK = bytes(0x0A if c == 0x0A else 0x20 for c in range(256))  # bytes.translate: every byte but \n -> space


def _comment_out_tables(source: bytes) -> bytes:
    """Number tables (see _NUMBER_TABLE) turned into a comment inside their braces; offsets and lines kept."""
    if len(source) < 16384:
        return source

    def comment(m: re.Match[bytes]) -> bytes:
        blank = m.group(1).translate(_BLANK)
        i, j = blank.find(b"  "), blank.rfind(b"  ")
        if i < 0 or j <= i + 2:
            return m.group(0)
        return b"{" + blank[:i] + b"/*" + blank[i + 2 : j] + b"*/" + blank[j + 2 :] + b"}"

    return _NUMBER_TABLE.sub(comment, source)


def _blank_attributes(source: bytes) -> bytes:
    out: bytearray | None = None
    for hint, rx in _ATTRIBUTE_MACROS:
        if hint not in source:
            continue
        for m in rx.finditer(source):
            a, b = m.start(), m.end()
            if a > 0 and (source[a - 1] == 0x5F or chr(source[a - 1]).isalnum()):
                continue
            line = source.rfind(b"\n", 0, a) + 1
            if source[line:a].lstrip().startswith(b"#"):
                continue  # a preprocessor line
            if m.lastindex:  # takes arguments: C10_LAUNCH_BOUNDS_1(128)
                j = _skip_space(source, b)
                parsed = _balanced_args(source, j) if j < len(source) and source[j] == 0x28 else None
                if parsed is not None:
                    b = parsed[1]
            if out is None:
                out = bytearray(source)
            out[a:b] = source[a:b].translate(_BLANK)
    return source if out is None else bytes(out)


# `[&] GPU_LAMBDA (scalar_t a) {...}`: the qualifier macro hides the lambda from tree-sitter.
_LAMBDA_QUALIFIERS = re.compile(rb"\]([ \t]*(?:GPU_LAMBDA|C10_HOST_DEVICE|C10_DEVICE|__host__|__device__)(?:\s+(?:__host__|__device__))*\b)")


def _blank_lambda_qualifier(m: re.Match[bytes]) -> bytes:
    return b"]" + m.group(1).translate(_BLANK)


# Macro sites: whole words TORCH_META_FUNC(2), TORCH_PRECOMPUTE_META_FUNC(2),
# TORCH_IMPL_FUNC, TORCH_LIBRARY(_IMPL|_FRAGMENT), and [A-Z][A-Z0-9_]*_DISPATCH.
# Found from their literal tails (a scan that starts with a literal is fast)
# and extended to the whole word.
_SITE_TAILS = (
    re.compile(rb"TORCH_(?:PRECOMPUTE_META_FUNC2?|META_FUNC2?|IMPL_FUNC|LIBRARY(?:_IMPL|_FRAGMENT)?)(?!\w)"),
    re.compile(rb"_DISPATCH(?!\w)"),
)
_SITE_WORDS = frozenset(
    w + s for w in (b"TORCH_META_FUNC", b"TORCH_PRECOMPUTE_META_FUNC") for s in (b"", b"2")
) | {b"TORCH_IMPL_FUNC", b"TORCH_LIBRARY", b"TORCH_LIBRARY_IMPL", b"TORCH_LIBRARY_FRAGMENT"}
_UPPER_WORD = re.compile(rb"[A-Z][A-Z0-9_]*")
_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_STUB_TAIL = re.compile(rb"_stub\b")


def _macro_site_spans(source: bytes) -> list[tuple[int, int]]:
    out = []
    for tail in _SITE_TAILS:  # a word ends in at most one of them
        for m in tail.finditer(source):
            a, b = m.start(), m.end()
            while a > 0 and source[a - 1] in _WORD_BYTES:
                a -= 1
            word = source[a:b]
            if word in _SITE_WORDS or (word.endswith(b"_DISPATCH") and _UPPER_WORD.fullmatch(word)):
                out.append((a, b))
    out.sort()
    return out


def _stub_name_spans(source: bytes) -> list[tuple[int, int]]:
    out = []
    for m in _STUB_TAIL.finditer(source):
        a, b = m.start(), m.end()
        while a > 0 and (chr(source[a - 1]).isalnum() or source[a - 1] == 0x5F):
            a -= 1
        if a != m.start():
            out.append((a, b))
    return out


_IDENTIFIERS = frozenset({"identifier", "type_identifier", "field_identifier", "namespace_identifier"})


def _identifier_nodes(root, spans: list[tuple[int, int]]) -> list:
    """Identifier nodes that span exactly the given byte ranges (comments,
    strings and #define bodies are not identifiers, so they drop out)."""
    out = []
    descendant = root.named_descendant_for_byte_range
    for a, b in spans:
        n = descendant(a, b)
        if n is not None and n.start_byte == a and n.end_byte == b and n.type in _IDENTIFIERS:
            out.append(n)
    return out


# builtin type names, as tree-sitter's grammar has them (primitive_type)
_BUILTIN_TYPE = (
    rb"(?:unsigned|signed|short|long|int|char|float|double|bool|void|size_t|ssize_t|ptrdiff_t|intptr_t|uintptr_t|"
    rb"u?int(?:8|16|32|64)_t|char(?:8|16|32)_t|wchar_t|nullptr_t|max_align_t)"
)
_TYPE_ARGUMENT_HINT = re.compile(rb",\s*(?:" + _BUILTIN_TYPE + rb"\b\s*)+[,)]|\(\s*(?:" + _BUILTIN_TYPE + rb"\b\s*)+,")
_TYPE_ARGUMENT = re.compile(rb"\s*(?:" + _BUILTIN_TYPE + rb"\b\s*)+")


def _blank_type_arguments(source: bytes, spans: list[tuple[int, int, int]]) -> bytes:
    """`SMALL_INDEX(scalar_t, index_t, unsigned int, 1, 1, -2);` in a body: a
    builtin type as an argument of one of the file's own macros breaks the
    whole function for tree-sitter. Such an argument becomes `_` and blanks
    (offsets kept)."""
    if not _TYPE_ARGUMENT_HINT.search(source):
        return source
    names = {source[a : source.index(b"(", a)] for a, _, _ in spans}
    ends = [e for _, _, e in spans]
    out = None
    for m in re.finditer(rb"\b(?:" + b"|".join(re.escape(n) for n in names) + rb")\s*\(", source):
        open_paren = m.end() - 1
        if source[m.start() - 1 : m.start()] in (b".", b">", b":"):
            continue
        k = bisect.bisect_right(ends, m.start())
        if k < len(spans) and spans[k][0] <= m.start():
            continue  # in a #define: tree-sitter does not parse it
        parsed = _balanced_args(source, open_paren)
        if parsed is None:
            continue
        pos = open_paren + 1
        for arg in (a.encode() for a in parsed[0]):
            start = source.find(arg, pos) if arg else -1
            if start < 0:
                break
            pos = start + len(arg)
            if _TYPE_ARGUMENT.fullmatch(arg):
                if out is None:
                    out = bytearray(source)
                out[start:pos] = b"_" + b" " * (len(arg) - 1)
    return source if out is None else bytes(out)


def _extract(source: bytes, path: str, macros: StubMacros, language: str, expand: bool = True) -> CxxFacts:
    import tree_sitter as ts

    original = source
    source = _blank_attributes(_comment_out_tables(source))
    spans = _define_spans(source) if b"define" in source else []
    if spans:
        source = _blank_type_arguments(source, spans)
    if b"]" in source and (b"LAMBDA" in source or b"__device__" in source or b"C10_" in source):
        source = _LAMBDA_QUALIFIERS.sub(_blank_lambda_qualifier, source)
    parser, query = _tools(language)
    tree = parser.parse(source)
    # tree-sitter does not return captures in document order; sorted, the facts do not depend on it
    # (a macro #defined twice: the later one wins, as in the preprocessor).
    caps = {k: sorted(v, key=_position) for k, v in ts.QueryCursor(query).captures(tree.root_node).items()}
    f = _File(source, path, macros, language)
    f.orig = original
    get = lambda k: caps.get(k, ())  # noqa: E731

    errors, missing = _damage(tree.root_node)
    parse_errors = len(errors) + len(missing)
    f.damaged = _scope_damage(source, errors, missing)
    f.root = tree.root_node

    # ---- the file's own function-like macros
    local: dict[str, _Define] = {}
    for n in get("define.name"):
        p = n.parent
        params = p.child_by_field_name("parameters")
        body = p.child_by_field_name("value")
        names = tuple(_nospace(_dec(c.text)) for c in params.named_children) if params is not None else ()
        if params is not None and b"..." in params.text and not any(x.endswith("...") for x in names):
            names = names + ("...",)
        text = re.sub(r"\\\r?\n", " ", _dec(body.text)) if body is not None else ""
        local[_dec(n.text)] = _Define(_dec(n.text), names, text)
        f.define_names.add(n.start_byte)
    # ... and the ones tree-sitter could not shape (a comment inside the body breaks its preproc_arg)
    for span in spans:
        f.defines.append((span[0], span[2]))
        if span[0] not in f.define_names:
            d = _text_define(source, span)
            if d.name not in local:
                local[d.name] = d
                f.define_names.add(span[0])

    # ---- definitions
    definitions: list[DefinitionFact] = []
    ranges: list[tuple[int, int, str]] = []
    library_blocks: list = []
    for node in get("definition"):
        decl = node.child_by_field_name("declarator")
        fd = _function_declarator(decl) if decl is not None else None
        if fd is None:
            continue
        inner = fd.child_by_field_name("declarator")
        if inner is None:
            continue
        if inner.type == "function_declarator":
            head = inner.child_by_field_name("declarator")
            if head is not None and _dec(head.text) in _STRUCTURED:
                continue  # handled from the macro site
        written = _nospace(f.text(inner))
        if written in _LIBRARY_MACROS or written in _STRUCTURED:
            continue
        scope, is_template, in_class = _scope_prefix(node, f)
        pieces = _split_scope(written)
        qualified = "::".join(scope + pieces)
        name = pieces[-1].split("<", 1)[0] if not pieces[-1].startswith("operator") else pieces[-1]
        start = node.start_byte
        if source is not original:  # blanked attribute macros before the definition are qualifiers of it
            k = start
            while k > 0 and source[k - 1] in b" \t\r\n":
                k -= 1
            if k < start and original[k:start].strip():
                start = k + len(original[k:start]) - len(original[k:start].lstrip())
        head = _dec(original[start : decl.start_byte])
        quals = tuple(dict.fromkeys(m.group(1) for m in _CUDA_QUALIFIERS.finditer(head)))
        if "__global__" in quals:
            kind = "global_kernel"
        elif any(q in quals for q in ("__device__", "C10_DEVICE", "C10_HOST_DEVICE")):
            kind = "device_function"
        elif in_class or (len(pieces) > 1 and (pieces[-2][:1].isupper() or pieces[-2].endswith(">"))):
            kind = "method"
        else:
            kind = "function"
        line = node.start_point[0] + 1  # the first token after the blanked attribute macros
        definitions.append(
            DefinitionFact(
                name=name,
                qualified_name=qualified,
                kind=kind,
                signature=_norm(f.text(decl)),
                line=line,
                end_line=node.end_point[0] + 1,
                is_template=is_template,
                qualifiers=quals,
            )
        )
        ranges.append((node.start_byte, node.end_byte, qualified))

    # ---- macro sites: structured kernels, dispatch stubs, library blocks
    stubs: list[StubFact] = []
    lookup, stub_names = _stub_lookup(macros)
    root = tree.root_node
    for n in _identifier_nodes(root, _macro_site_spans(source)):
        p = n.parent
        if p is not None and p.type.startswith("preproc_") and p.type not in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"):
            continue
        name = _dec(n.text)
        open_paren = _skip_space(source, n.end_byte)
        parsed = _balanced_args(source, open_paren)
        if parsed is None:
            continue
        args, after = parsed
        line = n.start_point[0] + 1
        if name in _STRUCTURED:
            _structured(f, n, name, args, after, line, definitions, ranges)
        elif name in _LIBRARY_MACROS:
            library_blocks.append((n, name, args, after, line))
        elif name in stub_names:
            for e in lookup.get((f.context, name), ()):
                if e.stub_arg >= len(args):
                    continue
                kernel = None
                if e.fn_arg is not None and e.fn_arg < len(args):
                    kernel = _strip_ref(args[e.fn_arg])
                null = e.is_nullptr or kernel in ("nullptr", "NULL")
                stubs.append(
                    StubFact(
                        kind=e.kind,
                        macro=name,
                        stub=_nospace(args[e.stub_arg]),
                        line=line,
                        device=e.device,
                        arch=args[e.arch_arg].strip() if e.arch_arg is not None and e.arch_arg < len(args) else e.arch,
                        kernel=None if null else kernel,
                        is_nullptr=null,
                        fn_type=_norm(args[e.type_arg]) if e.type_arg is not None and e.type_arg < len(args) else None,
                    )
                )

    f.set_ranges(ranges)

    # ---- calls
    calls: list[CallFact] = []
    stub_uses: list[StubUseFact] = []
    launches: list[LaunchFact] = []
    dtypes: list[DtypeDispatchFact] = []
    libcalls: list[LibraryCallFact] = []
    member_calls: list[tuple[int, object, str, str]] = []  # (offset, node, object, field) for m.impl ...
    dispatch_wrappers = {k: d for k, d in local.items() if "AT_DISPATCH" in d.body}
    declared_stubs = {s.stub for s in stubs}
    orig = original
    # Names that make a callee special in this file only: its AT_DISPATCH wrappers and the stubs it declares.
    own_names = dispatch_wrappers.keys() | declared_stubs

    def info_of(callee: str) -> tuple:
        return _callee_info(callee, language, dispatch_wrappers, declared_stubs)

    written = _WRITTEN_CALLEES.get(language)
    if written is None or len(written) > 200_000:
        written = _WRITTEN_CALLEES[language] = {}

    caller_at = f.caller_at

    # Most calls need only their edge; the few whose callee says more (an
    # AT_DISPATCH macro, a stub, a launch helper, a library, m.impl ...) are
    # looked at again through their call node.
    for fn in get("call.fn"):
        fs, fe = fn.start_byte, fn.end_byte
        if fe - fs > 200:  # a long chain (`py::class_<...>(...).def(...)...`)
            fld = fn.child_by_field_name("field") if fn.type == "field_expression" else None
            callee = f"(...).{_dec(fld.text)}" if fld is not None else _nospace(_dec(orig[fs:fe]))[:200]
            info = info_of(callee)
        else:
            raw = orig[fs:fe]
            info = written.get(raw)
            if info is None:
                info = written[raw] = _callee_info(_nospace(_dec(raw)), language)
            if own_names and info[1] in own_names:
                info = info_of(info[0])
        callee, last, dispatchy, stubby, helper, family, special = info
        line = fn.start_point[0] + 1
        caller = caller_at(fs)
        calls.append(CallFact(caller, callee, last, line))
        if not special:
            continue
        node = fn.parent
        fn_type = fn.type
        if last in _MEMBER_FIELDS and fn_type == "field_expression":  # the field is the last component
            fld = fn.child_by_field_name("field")
            obj = fn.child_by_field_name("argument")
            if fld is not None and obj is not None and obj.type == "identifier" and _dec(fld.text) in _MEMBER_FIELDS:
                member_calls.append((fs, node, _nospace(f.text(obj)), _dec(fld.text)))
        if dispatchy:
            d = _dtype_dispatch(f, node, callee, last, caller, line, dispatch_wrappers, local)
            if d is not None:
                dtypes.append(d)
            continue
        if stubby and caller is not None and (fn_type == "identifier" or fn_type == "qualified_identifier"):
            stub_uses.append(StubUseFact(last, caller, line, "call"))
        if helper:
            args_node = node.child_by_field_name("arguments")
            if args_node is not None:
                launches.append(_helper_launch(f, fn, last, args_node, caller, line))
        if family is not None:
            libcalls.append(LibraryCallFact(family, callee, caller, line))

    # Stub calls by a name that does not say so: a device as the first argument.
    for first in get("call.device_arg"):
        node = first.parent.parent
        fn = node.child_by_field_name("function")
        callee, last, dispatchy, stubby, _helper, _family, _special = info_of(_nospace(f.text(fn)))
        if dispatchy or stubby or not last[:1].islower() or first.type == "comment":
            continue
        caller = caller_at(node.start_byte)
        if caller is not None and _DEVICE_ARG.fullmatch(_nospace(f.text(first))):
            stub_uses.append(StubUseFact(last, caller, node.start_point[0] + 1, "call"))

    for n in _identifier_nodes(root, _stub_name_spans(source)):
        p = n.parent
        if p is not None and p.type == "qualified_identifier":
            n, p = p, p.parent
        if p is None or p.type != "argument_list":
            continue
        caller = f.caller_at(n.start_byte)
        if caller is not None:
            stub_uses.append(StubUseFact(_last_component(_nospace(_dec(n.text))), caller, n.start_point[0] + 1, "argument"))

    # ---- <<< >>> launches: parsed ones, then the text of #define bodies and ERROR nodes
    seen_chevrons: set[int] = set()
    for node in get("launch"):
        kfn = node.child_by_field_name("function")
        cfg = next((c for c in node.children if c.type == "kernel_call_syntax"), None)
        if kfn is None or cfg is None:
            continue
        kernel, targs = _kernel_name(f, kfn)
        config = tuple(_norm(f.text(c)) for c in cfg.named_children if c.type != "comment")
        seen_chevrons.add(cfg.start_byte)
        launches.append(LaunchFact("triple_chevron", kernel, targs, config, f.caller_at(node.start_byte), cfg.start_point[0] + 1))
    texts = [(n.parent, "define") for n in get("define.name")] + [(n, "error") for n in errors]
    for holder, what in texts:
        body_node = holder.child_by_field_name("value") if what == "define" else holder
        if body_node is None or b"<<<" not in source[body_node.start_byte : body_node.end_byte]:
            continue
        macro = _dec(holder.child_by_field_name("name").text) if what == "define" else None
        for launch, off in _text_launches(f, body_node.start_byte, body_node.end_byte, macro):
            if off not in seen_chevrons:
                seen_chevrons.add(off)
                launches.append(launch)

    # ---- __global__ definitions tree-sitter did not shape (preprocessor lines inside them)
    for tok in get("kernel.keyword"):
        if any(d.kind == "global_kernel" and d.line <= tok.start_point[0] + 1 <= d.end_line for d in definitions):
            continue
        d = _text_kernel(f, tok)
        if d is not None:
            # tree-sitter may have read the tail `name(...) {...}` as a plain function
            definitions = [
                x for x in definitions
                if not (x.kind != "global_kernel" and x.name == d.name and d.line <= x.line <= d.end_line)
            ]
            definitions.append(d)

    registrations = _registrations(f, library_blocks, member_calls, local, get)

    # ---- definitions written through the file's own macros (CREATE_UNARY_TORCH_IMPL_FUNC(acos_out, acos_stub))
    if expand and local and b"{" in source:
        got = _macro_definitions(f, root, local)
        if got is not None:
            definitions.extend(got.definitions)
            stub_uses.extend(got.stub_uses)
            calls.extend(got.calls)
            launches.extend(got.launches)
            dtypes.extend(got.dtype_dispatches)
            libcalls.extend(got.library_calls)

    return CxxFacts(
        path=path,
        language=language,
        definitions=tuple(sorted(definitions, key=lambda d: (d.line, d.qualified_name))),
        stubs=tuple(sorted(stubs, key=lambda x: x.line)),
        stub_uses=tuple(sorted(dict.fromkeys(stub_uses), key=lambda x: x.line)),
        calls=tuple(calls),
        launches=tuple(sorted(launches, key=lambda x: (x.line, x.kind))),
        dtype_dispatches=tuple(sorted(dtypes, key=lambda x: x.line)),
        library_calls=tuple(sorted(libcalls, key=lambda x: x.line)),
        registrations=tuple(sorted(registrations, key=lambda x: x.line)),
        parse_errors=parse_errors,
    )


_WORD = re.compile(r"\w+")


def _macro_definitions(f: _File, root, local: dict[str, _Define]) -> CxxFacts | None:
    """Facts of the functions that uses of the file's own macros define.

    A use at namespace (or class) scope of a function-like #define whose
    expansion holds a body (`CREATE_UNARY_FLOAT_META_FUNC(acos)` ->
    `TORCH_META_FUNC(acos) (const Tensor& self) {...}`) is expanded with the
    file's macros and the expansions are extracted as one snippet. Every fact
    then takes the use's place: scope of the use prepended to qualified names
    and callers, line = the use's line (end_line = where the use ends),
    `macro` = the macro used. Only facts inside an expanded function are kept.
    """
    definers = {k for k, d in local.items() if "{" in d.body and d.params is not None}
    if not definers:
        return None
    words = {k: set(_WORD.findall(d.body)) for k, d in local.items() if k not in definers and d.params is not None}
    while True:  # macros that expand to a definer define too
        more = {k for k, w in words.items() if k not in definers and not w.isdisjoint(definers)}
        if not more:
            break
        definers |= more
    src = f.orig
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(k.encode()) for k in definers) + rb")\s*\(")
    pieces: list[str] = []
    uses: list[tuple[int, int, int, list[str], str]] = []  # (first snippet line, line, end_line, scope, macro)
    snippet_line = 1
    for m in pattern.finditer(src):
        a = m.start()
        if a in f.define_names or f.caller_at(a) is not None or f.in_skip(a):
            continue
        if f.in_define(a):
            continue  # inside another #define's body
        if a > 0 and src[a - 1] in b".>:":
            continue
        name = _dec(m.group(1))
        n = root.named_descendant_for_byte_range(a, a + len(m.group(1)))
        if n is None or n.type not in _IDENTIFIERS or n.start_byte != a:
            continue
        p = n.parent
        while p is not None and (
            p.type not in ("compound_statement", "initializer_list", "argument_list", "preproc_function_def", "preproc_def")
            or f.in_define(p.start_byte)
        ):  # a brace of a #define tree-sitter could not shape opens a block of its own: not a body
            p = p.parent
        if p is not None:  # inside a body tree-sitter did not shape as a definition
            continue
        parsed = _balanced_args(src, m.end() - 1)
        if parsed is None:
            continue
        args, end = parsed
        text = _expand_text(f"{name}({', '.join(args)})", local)
        if "{" not in text:
            continue
        scope, _, _ = _scope_prefix(n, f)
        uses.append((snippet_line, f.line_of(a), f.line_of(end - 1), scope, name))
        pieces.append(text)
        snippet_line += text.count("\n") + 1
    if not uses:
        return None
    sub = _extract("\n".join(pieces).encode(), f.path, f.macros, f.language, expand=False)
    starts = [u[0] for u in uses]

    def use_of(line: int):
        return uses[max(0, bisect.bisect_right(starts, line) - 1)]

    def qualify(scope: list[str], name: str) -> str:
        return "::".join(scope + [name])

    definitions = []
    for d in sub.definitions:
        _, line, end_line, scope, macro = use_of(d.line)
        definitions.append(replace(d, qualified_name=qualify(scope, d.qualified_name), line=line, end_line=end_line, macro=macro))

    def moved(facts, launch: bool = False):
        out = []
        for x in facts:
            if x.caller is None:
                continue
            _, line, _, scope, macro = use_of(x.line)
            more = {"macro": macro, "lambda_line": x.lambda_line and line} if launch else {}
            changes = dict(caller=qualify(scope, x.caller), line=line, **more)
            out.append(x._replace(**changes) if isinstance(x, tuple) else replace(x, **changes))
        return out

    return CxxFacts(
        f.path,
        f.language,
        definitions=tuple(definitions),
        stub_uses=tuple(moved(sub.stub_uses)),
        calls=tuple(moved(sub.calls)),
        launches=tuple(moved(sub.launches, launch=True)),
        dtype_dispatches=tuple(moved(sub.dtype_dispatches)),
        library_calls=tuple(moved(sub.library_calls)),
    )


def _structured(f: _File, n, macro: str, args: list[str], after: int, line: int, definitions: list, ranges: list) -> None:
    kind, method = _STRUCTURED[macro]
    if not args:
        return
    base = _nospace(args[0])
    name = base if len(args) < 2 or not macro.endswith("2") else f"{base}.{_nospace(args[1])}"
    cls = "structured_" + (base if "." not in name else f"{base}_{_nospace(args[1])}")
    # the function_definition this macro heads, if tree-sitter found one
    p = n.parent
    defn = None
    for _ in range(4):
        if p is None:
            break
        if p.type == "function_definition":
            defn = p
            break
        p = p.parent
    params = _skip_space(f.src, after)
    parsed = _balanced_args(f.src, params)
    sig_end = parsed[1] if parsed else after
    if defn is not None:
        start, end, end_line = defn.start_byte, defn.end_byte, defn.end_point[0] + 1
        scope, _, _ = _scope_prefix(defn, f)
    else:
        body_end = _body_end(f.src, sig_end)
        if body_end is None:
            return
        start, end, end_line = n.start_byte, body_end, f.line_of(body_end - 1)
        scope, _, _ = _scope_prefix(n, f)
    qualified = "::".join(scope + [cls, method])
    definitions.append(
        DefinitionFact(
            name=name,
            qualified_name=qualified,
            kind=kind,
            signature=_norm(_dec(f.src[n.start_byte : sig_end])),
            line=line,
            end_line=end_line,
            is_template=False,
            qualifiers=(),
            macro=macro,
        )
    )
    ranges.append((start, end, qualified))


_TEXT_LAUNCH = re.compile(rb"([A-Za-z_][\w:]*)\s*(<(?:[^<>;{}]|<(?:[^<>;{}]|<[^<>;{}]*>)*>)*>)?\s*<<<")


def _text_launches(f: _File, start: int, end: int, macro: str | None) -> list[tuple[LaunchFact, int]]:
    """Launches found in raw text (a #define body or an ERROR region)."""
    out = []
    for m in _TEXT_LAUNCH.finditer(f.src, start, end):
        chevron = m.end() - 3
        if macro is None and f.in_skip(m.start()):
            continue
        close = f.src.find(b">>>", chevron, end)
        if close < 0:
            continue
        cfg = _balanced_args(b"(" + f.src[chevron + 3 : close] + b")", 0)
        out.append(
            (
                LaunchFact(
                    "triple_chevron",
                    _dec(m.group(1)),
                    _nospace(_dec(m.group(2))) if m.group(2) else None,
                    tuple(_norm(a) for a in cfg[0]) if cfg else (),
                    None if macro else f.caller_at(m.start()),
                    f.line_of(chevron),
                    macro=macro,
                ),
                chevron,
            )
        )
    return out


def _text_kernel(f: _File, tok) -> DefinitionFact | None:
    """A __global__ definition read from the text after the keyword."""
    src = f.src
    i = tok.end_byte
    n = len(src)
    name_m = None
    while i < n:
        i = _skip_space(src, i)
        if i < n and src[i] == 0x23:  # a preprocessor line inside the declaration
            j = src.find(b"\n", i)
            i = n if j < 0 else j
            continue
        m = re.compile(rb"[A-Za-z_][\w:]*|[*&<>,]+").match(src, i)
        if m is None:
            break
        word = m.group(0)
        nxt = _skip_space(src, m.end())
        if nxt < n and src[nxt] == 0x28 and word not in (b"__launch_bounds__",):
            name_m = (word, m.start(), nxt)
            break
        if nxt < n and src[nxt] == 0x28:
            parsed = _balanced_args(src, nxt)
            i = parsed[1] if parsed else n
            continue
        i = m.end()
    if name_m is None:
        return None
    word, name_start, paren = name_m
    parsed = _balanced_args(src, paren)
    if parsed is None:
        return None
    end = _body_end(src, parsed[1])
    if end is None:
        return None
    scope, _, _ = _scope_prefix(tok, f)
    written = _nospace(_dec(word))
    head = src[max(0, tok.start_byte - 400) : tok.start_byte]
    return DefinitionFact(
        name=_split_scope(written)[-1],
        qualified_name="::".join(scope + _split_scope(written)),
        kind="global_kernel",
        signature=_norm(_dec(src[name_start : parsed[1]])),
        line=tok.start_point[0] + 1,
        end_line=f.line_of(end - 1),
        is_template=bool(re.search(rb"template\s*<[^;{}]*>\s*$", head)),
        qualifiers=("__global__",),
    )


def _kernel_name(f: _File, kfn) -> tuple[str, str | None]:
    if kfn.type == "template_function":
        nm = kfn.child_by_field_name("name")
        ta = kfn.child_by_field_name("arguments")
        return _nospace(f.text(nm)) if nm is not None else _nospace(f.text(kfn)), _norm(f.text(ta)) if ta is not None else None
    if kfn.type == "qualified_identifier":
        t = _nospace(f.text(kfn))
        m = re.fullmatch(r"(.*?)(<.*>)", t)
        if m:
            return m.group(1), m.group(2)
        return t, None
    return _nospace(f.text(kfn)), None


def _helper_launch(f: _File, fn, helper: str, args_node, caller: str | None, line: int) -> LaunchFact:
    targs = None
    if fn.type == "template_function":
        ta = fn.child_by_field_name("arguments")
        targs = _norm(f.text(ta)) if ta is not None else None
    elif fn.type == "qualified_identifier":
        ta = fn.child_by_field_name("name")
        if ta is not None and ta.type == "template_function":
            a = ta.child_by_field_name("arguments")
            targs = _norm(f.text(a)) if a is not None else None
    args = [c for c in args_node.named_children if c.type != "comment"]
    lam = next((a for a in args if a.type == "lambda_expression"), None)
    if lam is not None:
        return LaunchFact(helper, None, targs, (), caller, line, lambda_line=lam.start_point[0] + 1)
    kernel = None
    for a in args:
        if a.type in ("call_expression", "compound_literal_expression"):
            c = a.child_by_field_name("function") or a.child_by_field_name("type")
            name = _last_component(_nospace(f.text(c))) if c is not None else ""
            if name[:1].isupper() or "functor" in name.lower() or "Functor" in name:
                kernel = _nospace(f.text(c))
                break
    if kernel is None:
        idents = [a for a in args[1:] if a.type in ("identifier", "qualified_identifier", "template_function")]
        if idents:
            kernel = _nospace(f.text(idents[-1]))
    return LaunchFact(helper, kernel, targs, (), caller, line)


def _dtype_set(macro: str, args: list[str]) -> tuple[tuple[str, ...], str | None]:
    def name_of(t: str | None) -> str | None:
        if t is None:
            return None
        v = _string_value(t)
        return v if v is not None else _norm(t)

    if macro == "AT_DISPATCH_V2":
        types = tuple(re.sub(r"^AT_EXPAND\s*\((.*)\)$", r"\1", _norm(a)) for a in args[3:])
        return types, name_of(args[1] if len(args) > 1 else None)
    if macro == "AT_DISPATCH_SWITCH":
        rest = " ".join(args[2:])
        types = re.findall(r"AT_DISPATCH_CASE_(\w+)", rest) + re.findall(r"AT_DISPATCH_CASE\s*\(\s*([\w:]+)", rest)
        return tuple(types), name_of(args[1] if len(args) > 1 else None)
    rest = macro[len("AT_DISPATCH_"):]
    m = re.fullmatch(r"(.+?)_AND(\d+)", rest)
    if m:
        setname, extra = m.group(1), int(m.group(2))
    elif rest.endswith("_AND"):
        setname, extra = rest[:-4], 1
    else:
        setname, extra = rest, 0
    types = (setname,) + tuple(_nospace(a) for a in args[:extra])
    return types, name_of(args[extra + 1] if len(args) > extra + 1 else None)


def _dtype_dispatch(f: _File, node, callee: str, last: str, caller, line, wrappers: dict[str, _Define], local) -> DtypeDispatchFact | None:
    if last.startswith("AT_DISPATCH_CASE") or last in ("AT_DISPATCH_CASE",):
        return None
    args_node = node.child_by_field_name("arguments")
    if args_node is None:
        return None
    parsed = _balanced_args(f.orig, args_node.start_byte)
    if parsed is None:
        return None
    args = parsed[0]
    if last in wrappers:
        expanded = _expand_text(f"{last}({', '.join(args)})", local)
        m = re.search(r"\b(AT_DISPATCH_\w+)\s*\(", expanded)
        if not m:
            return DtypeDispatchFact(last, (), None, caller, line)
        inner = _balanced_args(expanded.encode(), m.end() - 1)
        types, name = _dtype_set(m.group(1), inner[0] if inner else [])
        return DtypeDispatchFact(last, types, name, caller, line, via=m.group(1))
    types, name = _dtype_set(last, args)
    return DtypeDispatchFact(last, types, name, caller, line)


_MEMBER_RE = re.compile(r"\b(\w+)\s*\.\s*(impl|def|fallback)\s*\(")


def _registration(kind: str, block: tuple, args: list[str], line: int, via: str | None = None) -> RegistrationFact:
    macro, ns, key = block
    op = schema = function = None
    if kind == "fallback":
        function = _strip_fn(args[0]) if args else None
    else:
        if args:
            v = _string_value(args[0])
            if v is None:
                op = _norm(args[0])
            elif "(" in v:
                schema = v
                op = v.split("(", 1)[0].strip()
            else:
                op = v
        rest = [a for a in args[1:] if not a.lstrip().startswith("{") and "Tag::" not in a]
        if rest:  # commas inside template arguments split an argument: join them back
            function = _strip_fn(", ".join(rest))
    return RegistrationFact(kind, macro, ns, key, op, schema, function, line, via)


def _strip_fn(text: str) -> str:
    t = _norm(text)
    m = re.fullmatch(r"(?:c10::|torch::)?TORCH_FN\s*\((.*)\)", t, re.S)
    if m:
        t = m.group(1)
    return _strip_ref(t)


def _registrations(f: _File, blocks: list, member_calls: list, local: dict[str, _Define], get) -> list[RegistrationFact]:
    out: list[RegistrationFact] = []
    if not blocks:
        return out
    reg_macros = dict(_BUILTIN_REGISTRATION_MACROS)
    reg_macros.update(local)
    usable = {
        k: d
        for k, d in reg_macros.items()
        if _MEMBER_RE.search(d.body) or "__TG_AUTOCAST__" in d.body or any(o in d.body for o in reg_macros if o != k)
    }
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(k.encode()) for k in usable) + rb")\s*\(") if usable else None
    for n, macro, args, after, line in blocks:
        if not args:
            continue
        ns = _nospace(args[0])
        key = _nospace(args[1]) if macro == "TORCH_LIBRARY_IMPL" and len(args) > 2 else None
        var = _nospace(args[-1])
        block = (macro, ns, key)
        out.append(RegistrationFact("block", macro, ns, key, None, None, None, line))
        # body range: tree-sitter's function_definition, else braces in the text
        p = n.parent
        rng = None
        for _ in range(3):
            if p is None:
                break
            if p.type == "function_definition":
                body = p.child_by_field_name("body")
                if body is not None:
                    rng = (body.start_byte, body.end_byte)
                break
            p = p.parent
        if rng is None:
            end = _body_end(f.src, after)
            if end is None:
                continue
            rng = (after, end)
        for off, node, obj, field in member_calls:
            if rng[0] <= off < rng[1] and obj == var:
                a = node.child_by_field_name("arguments")
                parsed = _balanced_args(f.orig, a.start_byte) if a is not None else None
                out.append(_registration(field, block, parsed[0] if parsed else [], node.start_point[0] + 1))
        if pattern is None:
            continue
        for m in pattern.finditer(f.orig, rng[0], rng[1]):
            if m.start() in f.define_names or (m.start() > 0 and f.orig[m.start() - 1 : m.start()] in (b".", b">")) or f.in_skip(m.start()):
                continue
            parsed = _balanced_args(f.orig, m.end() - 1)
            if parsed is None:
                continue
            name = _dec(m.group(1))
            expanded = _expand_text(f"{name}({', '.join(parsed[0])})", reg_macros)
            ln = f.line_of(m.start())
            src = expanded.encode()
            for mm in _MEMBER_RE.finditer(expanded):
                inner = _balanced_args(src, len(expanded[: mm.end() - 1].encode()))
                out.append(_registration(mm.group(2), block, inner[0] if inner else [], ln, via=name))
            for mm in re.finditer(r"__TG_AUTOCAST__\s*\(", expanded):
                inner = _balanced_args(src, len(expanded[: mm.end() - 1].encode()))
                a = [_nospace(x) for x in inner[0]] if inner else []
                if len(a) in (3, 4):
                    op = f"aten::{a[1]}" + (f".{a[2]}" if len(a) == 4 else "")
                    fn = f"WrapFunction<CastPolicy::{a[-1]}, DeviceType::{a[0]}, ATEN_FN({op[6:]})>::type::call"
                    out.append(RegistrationFact("impl", macro, ns, key, op, None, fn, ln, via=name))
    return out

