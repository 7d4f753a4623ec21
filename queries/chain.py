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
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass

GENERATED = "generated"


@dataclass(frozen=True)
class Step:
    kind: str  # stub, registered, call, launch, global_kernel, dtypes, library, op, generated
    name: str
    file: str | None
    line: int | None
    device: str | None = None
    detail: str | None = None  # arch, dtype list, library family, launch helper ...
    depth: int = 0


@dataclass(frozen=True)
class Definition:
    qualified_name: str
    kind: str
    file: str
    line: int
    end_line: int
    signature: str = ""


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
    for candidate in (name, name.removesuffix("_symint"), name.removesuffix("_out"), name.removesuffix("_outf"),
                      name.removesuffix("_symint_out").removesuffix("_out_symint")):
        if candidate in op_bases:
            return candidate
    return None


def _is_cuda(path: str) -> bool:
    return path.endswith((".cu", ".cuh")) or "/cuda/" in path


def _key_preference(key: str, path: str) -> int:
    """Higher is a better home for a kernel of this key."""
    score = 0
    cuda_file = _is_cuda(path) or "/cudnn/" in path
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
_STOP = frozenset("""TORCH_CHECK TORCH_INTERNAL_ASSERT TORCH_WARN AT_ERROR empty empty_like zeros zeros_like
ones copy_ resize_ resize_output contiguous view reshape expect_contiguous numel dim size sizes stride strides
device options dtype scalar_type item data_ptr const_data_ptr mutable_data_ptr is_contiguous maybe_wrap_dim
defined to narrow select fill_ zero_ check_dim_size checkAllSameGPU TensorArg isIntegralType
""".split())


class Linker:
    """Follows names through an open index connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._declared: set[str] | None = None
        self._helpers: dict[tuple, Definition | None] = {}
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
            self._declared = {r[0] for r in self.conn.execute("SELECT DISTINCT stub FROM stubs WHERE kind = 'declare'")}
        return stub in self._declared

    def _defs(self, where: str, args: tuple, limit: int = -1) -> list[Definition]:
        return [Definition(*r) for r in self.conn.execute(
            f"SELECT qualified_name, kind, file, line, end_line, signature FROM definitions WHERE {where} LIMIT {limit}",
            args)]

    def definition(self, key: str, kernel: str, cpp_namespace: str, origin: str, structured: bool,
                   func: str = "") -> tuple[Definition | None, str, int]:
        """(chosen definition, reason when none, number of candidates)."""
        if origin in ("ufunc", "autogen") or (origin == "delegate" and re.fullmatch(r"ufunc_\w+_(CPU|CUDA)", kernel)):
            return None, GENERATED, 0
        if origin == "meta":
            found = self._defs("qualified_name = ? AND kind = 'meta_func'", (f"{cpp_namespace}::{kernel}::meta",))
            if not found:
                return None, "no TORCH_META_FUNC for it in the sources", 0
        elif structured:
            found = self._defs("name = ? AND kind = 'impl_func'", (kernel,))
            if not found:
                return None, "no TORCH_IMPL_FUNC for it in the sources", 0
        else:
            found = self._defs("name = ? AND kind IN ('function', 'method') AND "
                               "(qualified_name = ? OR qualified_name = ?)",
                               (kernel, f"{cpp_namespace}::{kernel}", kernel))
            if not found:
                return None, "no definition in the sources", 0
        if len(found) == 1:
            return found[0], "", 1
        ranked = sorted(found, key=lambda d: (_key_preference(key, d.file), _signature_score(d.signature, func),
                                              d.end_line - d.line), reverse=True)
        return ranked[0], "", len(found)

    # -- the chain ----------------------------------------------------------------------------

    def chain(self, start: Definition, key: str, depth: int) -> list[Step]:
        device = device_of(key)
        steps: list[Step] = []
        seen_steps: set[tuple] = set()
        visited: set[tuple[str, str, int]] = {(start.qualified_name, start.file, start.line)}
        queue: list[tuple[Definition, int]] = [(start, 0)]

        def add(step: Step) -> None:
            mark = (step.kind, step.name, step.file, step.line, step.device, step.detail)
            if mark not in seen_steps:
                seen_steps.add(mark)
                steps.append(step)

        while queue:
            fn, level = queue.pop(0)
            for step, callee in self._expand(fn, device, level):
                add(step)
                mark = None if callee is None else (callee.qualified_name, callee.file, callee.line)
                if mark is not None and mark not in visited and level < depth:
                    visited.add(mark)
                    queue.append((callee, level + 1))
        return steps

    def _within(self, table: str, columns: str, fn: Definition) -> list[tuple]:
        """Rows of a per-function table that lie inside this very definition: names of functions in
        unnamed namespaces repeat across files, so the file and line range decide, not the name alone."""
        return self.conn.execute(
            f"SELECT {columns} FROM {table} WHERE caller = ? AND file = ? AND line BETWEEN ? AND ? ORDER BY line",
            (fn.qualified_name, fn.file, fn.line, fn.end_line)).fetchall()

    def _expand(self, fn: Definition, device: str | None, level: int):
        for stub, file, line in dict.fromkeys(self._within("stub_uses", "stub, file, line", fn)):
            if not self.declared(stub):
                continue
            yield Step("stub", stub, file, line, depth=level), None
            for dev, arch, kernel, null, rfile, rline in self.conn.execute(
                    "SELECT device, arch, kernel, is_nullptr, file, line FROM stubs WHERE stub = ? AND kind = 'register' "
                    "ORDER BY device, arch != 'DEFAULT', arch", (stub,)):
                if device is not None and dev != device:
                    continue
                target = "nullptr" if null else kernel
                yield Step("registered", target, rfile, rline, dev, arch, level), (
                    None if null or not kernel else self._near(kernel, rfile))
        for kind, kernel, config, file, line, lam in self._within(
                "launches", "kind, kernel, config, file, line, lambda_line", fn):
            label = kernel or (f"lambda at line {lam}" if lam else "lambda")
            detail = kind if kind != "triple_chevron" else "<<<" + ", ".join(json.loads(config)) + ">>>"
            yield Step("launch", label, file, line, detail=detail, depth=level), None
            if kernel:
                found = self._defs("name = ? AND kind = 'global_kernel'", (kernel.split("::")[-1],))
                for g in sorted(found, key=lambda d: d.file != file)[:1]:
                    yield Step("global_kernel", g.qualified_name, g.file, g.line, depth=level), g
        for macro, dtypes, dname, file, line in self._within("type_dispatch", "macro, dtypes, name, file, line", fn):
            yield Step("dtypes", dname or macro, file, line, detail=f"{macro}({', '.join(json.loads(dtypes))})",
                       depth=level), None
        for family, callee, file, line in self._within("library_calls", "family, callee, file, line", fn):
            yield Step("library", callee, file, line, detail=family, depth=level), None
        folder = fn.file.rsplit("/", 1)[0]
        for callee_name in dict.fromkeys(r[0] for r in self._within("calls", "callee_name", fn)):
            if callee_name in _STOP or callee_name.startswith(("TORCH_", "AT_", "C10_")):
                continue
            target = self._helper(callee_name, folder, fn.file, device)
            if target is not None:
                yield Step("call", target.qualified_name, target.file, target.line, depth=level), target

    def _near(self, name: str, file: str) -> Definition | None:
        """The definition of a registered kernel: in the registering file first."""
        found = self._defs("name = ? AND kind IN ('function', 'method')", (name.split("::")[-1],))
        found.sort(key=lambda d: (d.file != file, d.file))
        return found[0] if found else None

    def _helper(self, name: str, folder: str, file: str, device: str | None) -> Definition | None:
        """A helper worth following: defined in the caller's file or folder, or kernel-like under native/."""
        mark = (name, folder, file, device)
        if mark not in self._helpers:
            self._helpers[mark] = self._find_helper(name, folder, file, device)
        return self._helpers[mark]

    def _find_helper(self, name: str, folder: str, file: str, device: str | None) -> Definition | None:
        found = self._defs("name = ? AND kind IN ('function', 'method', 'device_function')", (name,), limit=7)
        if not found or len(found) > 6:  # a name defined that often is no specific helper
            return None
        kernel_like = re.search(r"kernel|impl|template|launch", name) is not None
        near = [d for d in found if d.file == file or d.file.rsplit("/", 1)[0] == folder
                or (kernel_like and "/native/" in d.file)]
        if not near:
            return None
        cuda = device in ("CUDA", "HIP")
        near.sort(key=lambda d: (d.file != file, (d.file.endswith((".cu", ".cuh")) or "/cuda/" in d.file) != cuda))
        return near[0]

    # -- composite ops and backward -------------------------------------------------------------

    def ops_called(self, fn: Definition, op_bases: set[str]) -> list[Step]:
        out = []
        for callee, callee_name, file, line in self._within("calls", "callee, callee_name, file, line", fn):
            qualified = callee.startswith(("at::", "native::")) or "." in callee or "->" in callee
            op = op_of(callee_name, op_bases)
            if op is not None and qualified:
                out.append(Step("op", op, file, line))
        seen: set[str] = set()
        return [s for s in out if not (s.name in seen or seen.add(s.name))]

    def formula_calls(self, formulas: list[str], op_bases: set[str]) -> list[Step]:
        """What backward formulas call: ops, and helpers defined in the sources (FunctionsManual.cpp ...)."""
        names = dict.fromkeys(n for f in formulas for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", f))
        out = []
        for n in names:
            op = op_of(n, op_bases)
            if op is not None:
                out.append(Step("op", op, None, None))
                continue
            found = self._defs("name = ? AND kind = 'function' AND file LIKE 'torch/csrc/autograd/%'", (n,))
            if found:
                out.append(Step("call", found[0].qualified_name, found[0].file, found[0].line))
        return out


@dataclass(frozen=True)
class Reach:
    op: str
    key: str
    kernel: str
    path: tuple[str, ...]  # from the kernel's definition down to the name asked about


class Reverse:
    """From a function, stub or __global__ kernel up to the (op, key) kernels that reach it."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.kernels: dict[str, list[tuple[str, str]]] = {}
        for op, key, kernel in conn.execute("SELECT op, key, kernel FROM dispatch"):
            self.kernels.setdefault(kernel, []).append((op, key))

    def starts(self, name: str) -> list[tuple[str, str | None, str]]:
        """(function qualified name, its file or None, how it relates to name) to walk up from."""
        stem = name.split("::")[-1]
        out: list[tuple[str, str | None, str]] = []
        for caller, file in self.conn.execute("SELECT DISTINCT caller, file FROM stub_uses WHERE stub = ?", (stem,)):
            out.append((caller, file, f"uses {stem}"))
        for caller, file in self.conn.execute(
                "SELECT DISTINCT caller, file FROM launches WHERE caller IS NOT NULL AND (kernel = ? OR kernel LIKE ?)",
                (stem, f"%::{stem}")):
            out.append((caller, file, f"launches {stem}"))
        for qualified, file, line in self.conn.execute(
                "SELECT DISTINCT qualified_name, file, line FROM definitions WHERE name = ? OR qualified_name = ?",
                (stem, name)):
            out.append((qualified, file, f"defined at {file}:{line}"))
        return list(dict.fromkeys(out))

    def _generated_users(self, stub: str) -> list[tuple[str, str]]:
        """Ops whose generated ufunc CPU kernel calls this stub (<name>_stub for ufunc_inner_loop <name>)."""
        if not stub.endswith("_stub"):
            return []
        kernel = f"ufunc_{stub[:-len('_stub')]}_CPU"
        return self.kernels.get(kernel, [])

    def _specific(self, qualified: str, stem: str) -> bool:
        """Walk up from a function only when its name is specific enough for calls by name to mean it:
        structured impl/meta functions are entered through the dispatcher, and generic names
        (dim, size, set, ...) would pull in half of the code base."""
        if re.search(r"structured_\w+::(impl|meta)$", qualified) or stem in _STOP or len(stem) < 4:
            return False
        count = self.conn.execute("SELECT count(DISTINCT qualified_name) FROM definitions WHERE name = ?",
                                  (stem,)).fetchone()[0]
        return count <= 3

    def _kernel_of(self, qualified: str) -> str:
        m = re.search(r"structured_(\w+)::(impl|meta)$", qualified)
        if m:
            return m.group(1) if m.group(2) == "impl" else f"structured_{m.group(1)}"
        return qualified.split("::")[-1]

    def reach(self, name: str, depth: int = 4, limit: int = 300) -> list[Reach]:
        hits: dict[tuple[str, str], Reach] = {}
        stem = name.split("::")[-1]
        for op, key in self._generated_users(stem):
            hits[(op, key)] = Reach(op, key, f"ufunc_{stem[:-5]}_CPU", (f"generated ufunc kernel -> uses {stem}",))
        # Each frontier entry: (function, its file, the path below it, the device a stub hop pinned or None).
        frontier = [(q, f, (q, how), "CUDA" if f and _is_cuda(f) else None) for q, f, how in self.starts(name)]
        seen = {(q, f, d) for q, f, _p, d in frontier}
        for level in range(depth + 1):
            following: list[tuple[str, str | None, tuple[str, ...], str | None]] = []
            for qualified, file, path, device in frontier:
                for op, key in self.kernels.get(self._kernel_of(qualified), []):
                    if device is None or device_of(key) in (device, None):
                        hits.setdefault((op, key), Reach(op, key, self._kernel_of(qualified), tuple(path)))
                fn = qualified.split("::")[-1]
                if level == depth:
                    continue
                # Registered as a stub's kernel: whoever calls the stub reaches it.
                registered = self.conn.execute(
                    "SELECT DISTINCT stub, device, file FROM stubs WHERE kind = 'register' AND kernel = ?", (fn,)).fetchall()
                if any(rfile == file for _s, _d, rfile in registered):  # registered where it is defined
                    registered = [r for r in registered if r[2] == file]
                for stub, dev, _rfile in registered:
                    if device is not None and dev != device:
                        continue
                    if dev == "CPU":
                        for op, key in self._generated_users(stub):
                            hits.setdefault((op, key), Reach(op, key, f"ufunc_{stub[:-5]}_CPU",
                                                             (f"generated ufunc kernel -> uses {stub}", *path)))
                    for caller, cfile in self.conn.execute(
                            "SELECT DISTINCT caller, file FROM stub_uses WHERE stub = ?", (stub,)):
                        if (caller, cfile, dev) not in seen:
                            seen.add((caller, cfile, dev))
                            following.append((caller, cfile, (caller, f"uses {stub}", *path), dev))
                if not self._specific(qualified, fn):
                    continue
                # Callers by name; a function of an unnamed namespace is only called from its own file.
                sql = "SELECT DISTINCT caller, file FROM calls WHERE callee_name = ? AND caller IS NOT NULL"
                args: tuple = (fn,)
                if "(anonymous)" in qualified and file is not None:
                    sql += " AND file = ?"
                    args = (fn, file)
                for caller, cfile in self.conn.execute(sql + " LIMIT 50", args):
                    if (caller, cfile, device) not in seen:
                        seen.add((caller, cfile, device))
                        following.append((caller, cfile, (caller, *path), device))
            frontier = following[:limit]
        return sorted(hits.values(), key=lambda r: (r.op, r.key))
