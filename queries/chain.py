"""Linking by name, at query time: (op, key) -> kernel definition -> stubs -> registered kernels -> launches.

The index stores facts per file; this module follows names across them:

- the definition of a dispatch row's kernel: TORCH_IMPL_FUNC for structured
  kernels, the meta struct's TORCH_META_FUNC* for the Meta row, otherwise a
  function named `<cpp_namespace>::<kernel>`, chosen by what the key implies
  when several exist (CUDA: .cu or cuda/; MPS: mps/; Sparse*: sparse/ ...);
- from a definition: the stubs it calls or passes on, the kernels registered
  for them on the key's device, the launches and launch helpers, AT_DISPATCH
  dtype sets and library calls met on the way, following calls to helpers in
  the same folder (or named like kernels) to a bounded depth, each function once.
  What a limit keeps it from following (the depth; helper names with more
  than HELPER_DEFINITIONS definitions) comes back as Truncation records.

The reverse walk (ops-for) is queries/reverse.py.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field

from ..indexer import naming
from ..indexer.facts import Location
from ..indexer.vocab import DefinitionKind, Origin, StepKind, StubKind
from .results import Definition, Step, Truncation

GENERATED = "generated"
HELPER_DEFINITIONS = 6  # a callee name defined more often than this is no specific helper: not followed
_FUNCTIONS = (DefinitionKind.FUNCTION, DefinitionKind.METHOD)
_AUTOGRAD = "torch/csrc/autograd/"  # where the helpers of backward formulas live


def meta_function(cpp_namespace: str, struct: str) -> str:
    """The meta function of a Meta dispatch row, whose kernel is the meta struct's name:
    `at::meta::structured_add_Tensor::meta` (naming.meta_qualified builds it from the op's base and overload)."""
    return f"{cpp_namespace}::{struct}::meta"


def device_of(key: str) -> str | None:
    """The device whose stub registrations serve a dispatch key."""
    for device in ("CUDA", "HIP", "MPS", "XPU", "MTIA", "PrivateUse1"):
        if device in key:
            return device
    if key.endswith("CPU") or key == "CPU":
        return "CPU"
    return None


# How schema types are spelled in C++ kernel signatures.
_CPP_TYPES = {
    "Tensor": ("Tensor",), "Tensor?": ("Tensor",), "Tensor[]": ("TensorList", "ITensorListRef", "Tensor"),
    "Tensor?[]": ("List", "Tensor"), "Scalar": ("Scalar",), "Scalar?": ("Scalar",), "int": ("int64_t", "int"),
    "SymInt": ("SymInt", "int64_t"), "float": ("double",), "bool": ("bool",), "int[]": ("IntArrayRef",),
    "SymInt[]": ("SymIntArrayRef", "IntArrayRef"), "ScalarType": ("ScalarType",), "str": ("string_view", "string"),
    "Generator?": ("Generator",), "Layout": ("Layout",), "Device": ("Device",), "MemoryFormat": ("MemoryFormat",),
    "Dimname": ("Dimname",), "Dimname[]": ("DimnameList",), "Scalar[]": ("ArrayRef<Scalar>", "ArrayRef<at::Scalar>"),
}


def _signature_score(signature: str, func: str) -> int:
    """How well a C++ definition's parameters match the op's schema (C++ overloads share a name)."""
    if not signature or "(" not in func:
        return 0
    params = [p for p in _split(signature[signature.find("(") + 1:signature.rfind(")")]) if p]
    args = [a for a in func[func.find("(") + 1:func.rfind(") ->")].split(", ") if a and a != "*"]
    types = [re.sub(r"\([^)]*\)", "", a.split(" ")[0]) for a in args]
    score = -2 * abs(len(params) - len(types))
    for param, schema_type in zip(params, types):
        words = _CPP_TYPES.get(schema_type) or _CPP_TYPES.get(re.sub(r"\[\d+\]", "[]", schema_type), ())
        if any(w in param for w in words):
            score += 1
    return score


def _split(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def op_of(name: str, op_bases: set[str]) -> str | None:
    """The op base a C++ call names: at::add, at::native_layer_norm_symint, at::add_out, at::add_outf."""
    return next((candidate for candidate in naming.cpp_function_forms(name) if candidate in op_bases), None)


def is_cuda(path: str) -> bool:
    return path.endswith((".cu", ".cuh")) or "/cuda/" in path


def _key_preference(key: str, path: str) -> int:
    """Higher is a better home for a kernel of this key."""
    score = 0
    cuda_file = is_cuda(path) or "/cudnn/" in path
    rules = [("CUDA", cuda_file), ("MPS", "/mps/" in path), ("Sparse", "/sparse/" in path),
             ("Quantized", "/quantized/" in path), ("NestedTensor", "/nested/" in path),
             ("Mkldnn", "/mkldnn/" in path), ("XPU", "/xpu/" in path)]
    for word, hit in rules:
        if word in key:
            score += 4 if hit else -4
        elif hit and word in ("CUDA", "MPS"):
            score -= 2  # a CPU or composite kernel does not live in cuda/ or mps/
    if path.startswith("aten/src/ATen/native/"):
        score += 3  # the registered kernels live there; same-named functions elsewhere (jit, static runtime) are not them
    return score


# Calls that are never worth following: checks, tensor plumbing, factory helpers.
STOP_CALLS = frozenset("""TORCH_CHECK TORCH_INTERNAL_ASSERT TORCH_WARN AT_ERROR empty empty_like zeros zeros_like
ones copy_ resize_ resize_output contiguous view reshape expect_contiguous numel dim size sizes stride strides
device options dtype scalar_type item data_ptr const_data_ptr mutable_data_ptr is_contiguous maybe_wrap_dim
defined to narrow select fill_ zero_ check_dim_size checkAllSameGPU TensorArg isIntegralType
""".split())


@dataclass
class _Walk:
    """One chain being built: its steps (each once), the functions visited, and what limits left out."""

    steps: list[Step] = field(default_factory=list)
    marks: set[tuple] = field(default_factory=set)
    visited: set[tuple[str, str, int]] = field(default_factory=set)
    too_deep: dict[str, None] = field(default_factory=dict)
    too_common: dict[str, None] = field(default_factory=dict)

    def add(self, step: Step) -> None:
        mark = (step.kind, step.name, step.loc, step.device, step.detail)
        if mark not in self.marks:
            self.marks.add(mark)
            self.steps.append(step)

    def truncations(self, depth: int) -> tuple[Truncation, ...]:
        cuts = []
        if self.too_deep:
            cuts.append(Truncation("calls below --depth not followed", depth, tuple(self.too_deep)))
        if self.too_common:
            cuts.append(Truncation(f"helpers not followed: names with more than {HELPER_DEFINITIONS} definitions",
                                   HELPER_DEFINITIONS, tuple(self.too_common)))
        return tuple(cuts)


def _mark(d: Definition) -> tuple[str, str, int]:
    return d.qualified_name, d.loc.file, d.loc.line


class Linker:
    """Follows names through an open index connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._declared: set[str] | None = None
        self._helpers: dict[tuple, tuple[Definition | None, bool]] = {}
        self._op_bases: set[str] | None = None

    def op_bases(self) -> set[str]:
        """Base names of every op, also without a trailing underscore (add_ -> add)."""
        if self._op_bases is None:
            bases = {r[0] for r in self.conn.execute("SELECT DISTINCT base FROM ops")}
            self._op_bases = bases | {b.rstrip("_") for b in bases}
        return self._op_bases

    def declared(self, stub: str) -> bool:
        """A stub use counts only for a stub that some file declares (a `stub` parameter is no stub)."""
        if self._declared is None:
            self._declared = {r[0] for r in self.conn.execute("SELECT DISTINCT stub FROM stubs WHERE kind = ?",
                                                              (StubKind.DECLARE,))}
        return stub in self._declared

    def _defs(self, where: str, args: tuple, limit: int = -1) -> list[Definition]:
        return [Definition(q, kind, Location(file, line), end, sig) for q, kind, file, line, end, sig in self.conn.execute(
            f"SELECT qualified_name, kind, file, line, end_line, signature FROM definitions WHERE {where} LIMIT {limit}",
            args)]

    def definition(self, key: str, kernel: str, cpp_namespace: str, origin: str, structured: bool,
                   func: str = "") -> tuple[Definition | None, str, int]:
        """(chosen definition, reason when none, number of candidates)."""
        if origin in (Origin.UFUNC, Origin.AUTOGEN) or (origin == Origin.DELEGATE and naming.ufunc_base(kernel)):
            return None, GENERATED, 0
        if origin == Origin.META:
            found = self._defs("qualified_name = ? AND kind = ?", (meta_function(cpp_namespace, kernel),
                                                                   DefinitionKind.META_FUNC))
            if not found:
                return None, "no TORCH_META_FUNC for it in the sources", 0
        elif structured:
            found = self._defs("name = ? AND kind = ?", (kernel, DefinitionKind.IMPL_FUNC))
            if not found:
                return None, "no TORCH_IMPL_FUNC for it in the sources", 0
        else:
            found = self._defs("name = ? AND kind IN (?, ?) AND (qualified_name = ? OR qualified_name = ?)",
                               (kernel, *_FUNCTIONS, f"{cpp_namespace}::{kernel}", kernel))
            if not found:
                return None, "no definition in the sources", 0
        if len(found) == 1:
            return found[0], "", 1
        ranked = sorted(found, key=lambda d: (_key_preference(key, d.loc.file), _signature_score(d.signature, func),
                                              d.end_line - d.loc.line), reverse=True)
        return ranked[0], "", len(found)

    # -- the chain ----------------------------------------------------------------------------

    def chain(self, start: Definition, key: str, depth: int) -> tuple[list[Step], tuple[Truncation, ...]]:
        """The steps below a kernel's definition, breadth first to `depth` helper calls, and what was cut."""
        device = device_of(key)
        walk = _Walk(visited={_mark(start)})
        queue: list[tuple[Definition, int]] = [(start, 0)]
        while queue:
            fn, level = queue.pop(0)
            for step, callee in self._expand(fn, device, level, walk):
                walk.add(step)
                if callee is None or _mark(callee) in walk.visited:
                    continue
                if level < depth:
                    walk.visited.add(_mark(callee))
                    queue.append((callee, level + 1))
                else:
                    walk.too_deep[callee.qualified_name] = None
        return walk.steps, walk.truncations(depth)

    def _within(self, table: str, columns: str, fn: Definition) -> list[tuple]:
        """Rows of a per-function table that lie inside this very definition: names of functions in
        unnamed namespaces repeat across files, so the file and line range decide, not the name alone."""
        return self.conn.execute(
            f"SELECT {columns} FROM {table} WHERE caller = ? AND file = ? AND line BETWEEN ? AND ? ORDER BY line",
            (fn.qualified_name, fn.loc.file, fn.loc.line, fn.end_line)).fetchall()

    def _expand(self, fn: Definition, device: str | None, level: int, walk: _Walk):
        yield from self._stub_steps(fn, device, level)
        yield from self._launch_steps(fn, level)
        for macro, dtypes, dname, file, line in self._within("type_dispatch", "macro, dtypes, name, file, line", fn):
            yield Step(StepKind.DTYPES, dname or macro, Location(file, line),
                       detail=f"{macro}({', '.join(json.loads(dtypes))})", depth=level), None
        for family, callee, file, line in self._within("library_calls", "family, callee, file, line", fn):
            yield Step(StepKind.LIBRARY, callee, Location(file, line), detail=family, depth=level), None
        folder = fn.loc.file.rsplit("/", 1)[0]
        for callee_name in dict.fromkeys(r[0] for r in self._within("calls", "callee_name", fn)):
            if callee_name in STOP_CALLS or callee_name.startswith(("TORCH_", "AT_", "C10_")):
                continue
            target, too_common = self._helper(callee_name, folder, fn.loc.file, device)
            if too_common:
                walk.too_common[callee_name] = None
            if target is not None:
                yield Step(StepKind.CALL, target.qualified_name, target.loc, depth=level), target

    def _stub_steps(self, fn: Definition, device: str | None, level: int):
        for stub, file, line in dict.fromkeys(self._within("stub_uses", "stub, file, line", fn)):
            if not self.declared(stub):
                continue
            yield Step(StepKind.STUB, stub, Location(file, line), depth=level), None
            for dev, arch, kernel, null, rfile, rline in self.conn.execute(
                    "SELECT device, arch, kernel, is_nullptr, file, line FROM stubs WHERE stub = ? AND kind = ? "
                    "ORDER BY device, arch != 'DEFAULT', arch", (stub, StubKind.REGISTER)):
                if device is not None and dev != device:
                    continue
                target = "nullptr" if null else kernel
                yield Step(StepKind.REGISTERED, target, Location(rfile, rline), dev, arch, level), (
                    None if null or not kernel else self._near(kernel, rfile))

    def _launch_steps(self, fn: Definition, level: int):
        for kind, kernel, config, file, line, lam in self._within(
                "launches", "kind, kernel, config, file, line, lambda_line", fn):
            label = kernel or (f"lambda at line {lam}" if lam else "lambda")
            detail = kind if kind != "triple_chevron" else "<<<" + ", ".join(json.loads(config)) + ">>>"
            yield Step(StepKind.LAUNCH, label, Location(file, line), detail=detail, depth=level), None
            if kernel:
                found = self._defs("name = ? AND kind = ?", (kernel.split("::")[-1], DefinitionKind.GLOBAL_KERNEL))
                for g in sorted(found, key=lambda d: d.loc.file != file)[:1]:
                    yield Step(StepKind.GLOBAL_KERNEL, g.qualified_name, g.loc, depth=level), g

    def _near(self, name: str, file: str) -> Definition | None:
        """The definition of a registered kernel: in the registering file first."""
        found = self._defs("name = ? AND kind IN (?, ?)", (name.split("::")[-1], *_FUNCTIONS))
        found.sort(key=lambda d: (d.loc.file != file, d.loc.file))
        return found[0] if found else None

    def _helper(self, name: str, folder: str, file: str, device: str | None) -> tuple[Definition | None, bool]:
        """A helper worth following (defined in the caller's file or folder, or kernel-like under native/),
        and whether the name was left alone because it has too many definitions."""
        mark = (name, folder, file, device)
        if mark not in self._helpers:
            self._helpers[mark] = self._find_helper(name, folder, file, device)
        return self._helpers[mark]

    def _find_helper(self, name: str, folder: str, file: str, device: str | None) -> tuple[Definition | None, bool]:
        found = self._defs("name = ? AND kind IN (?, ?, ?)", (name, *_FUNCTIONS, DefinitionKind.DEVICE_FUNCTION),
                           limit=HELPER_DEFINITIONS + 1)
        if len(found) > HELPER_DEFINITIONS:
            return None, True
        kernel_like = re.search(r"kernel|impl|template|launch", name) is not None
        near = [d for d in found if d.loc.file == file or d.loc.file.rsplit("/", 1)[0] == folder
                or (kernel_like and "/native/" in d.loc.file)]
        if not near:
            return None, False
        cuda = device in ("CUDA", "HIP")
        near.sort(key=lambda d: (d.loc.file != file, is_cuda(d.loc.file) != cuda))
        return near[0], False

    # -- composite ops and backward -------------------------------------------------------------

    def ops_called(self, fn: Definition, op_bases: set[str]) -> list[Step]:
        out = []
        for callee, callee_name, file, line in self._within("calls", "callee, callee_name, file, line", fn):
            qualified = callee.startswith(("at::", "native::")) or "." in callee or "->" in callee
            op = op_of(callee_name, op_bases)
            if op is not None and qualified:
                out.append(Step(StepKind.OP, op, Location(file, line)))
        seen: set[str] = set()
        return [s for s in out if not (s.name in seen or seen.add(s.name))]

    def formula_calls(self, formulas: list[str], op_bases: set[str]) -> list[Step]:
        """What backward formulas call: ops, and helpers defined in the sources (FunctionsManual.cpp ...)."""
        names = dict.fromkeys(n for f in formulas for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", f))
        out = []
        for n in names:
            op = op_of(n, op_bases)
            if op is not None:
                out.append(Step(StepKind.OP, op, None))
                continue
            found = self._defs("name = ? AND kind = ? AND substr(file, 1, ?) = ?",
                               (n, DefinitionKind.FUNCTION, len(_AUTOGRAD), _AUTOGRAD))
            if found:
                out.append(Step(StepKind.CALL, found[0].qualified_name, found[0].loc))
        return out
