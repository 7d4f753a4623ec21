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


def device_of(key: str) -> str | None:
    """The device whose stub registrations serve a dispatch key."""
    for device in ("CUDA", "HIP", "MPS", "XPU", "MTIA", "PrivateUse1"):
        if device in key:
            return device
    if key.endswith("CPU") or key == "CPU":
        return "CPU"
    return None


def _key_preference(key: str, path: str) -> int:
    """Higher is a better home for a kernel of this key."""
    score = 0
    cuda_file = path.endswith((".cu", ".cuh")) or "/cuda/" in path or "/cudnn/" in path
    rules = [("CUDA", cuda_file), ("MPS", "/mps/" in path), ("Sparse", "/sparse/" in path),
             ("Quantized", "/quantized/" in path), ("NestedTensor", "/nested/" in path),
             ("Mkldnn", "/mkldnn/" in path), ("XPU", "/xpu/" in path)]
    for word, hit in rules:
        if word in key:
            score += 4 if hit else -4
        elif hit and word in ("CUDA", "MPS"):
            score -= 2  # a CPU or composite kernel does not live in cuda/ or mps/
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

    def _defs(self, where: str, args: tuple) -> list[Definition]:
        return [Definition(*r) for r in self.conn.execute(
            f"SELECT qualified_name, kind, file, line, end_line FROM definitions WHERE {where}", args)]

    def definition(self, key: str, kernel: str, cpp_namespace: str, origin: str, structured: bool
                   ) -> tuple[Definition | None, str, int]:
        """(chosen definition, reason when none, number of candidates)."""
        if origin == "ufunc" or (origin == "delegate" and re.fullmatch(r"ufunc_\w+_(CPU|CUDA)", kernel)):
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
        ranked = sorted(found, key=lambda d: (_key_preference(key, d.file), d.end_line - d.line), reverse=True)
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
            yield Step("stub", stub, file, line, depth=level), None
            for dev, arch, kernel, null, rfile, rline in self.conn.execute(
                    "SELECT device, arch, kernel, is_nullptr, file, line FROM stubs WHERE stub = ? AND kind = 'register' "
                    "ORDER BY device, arch", (stub,)):
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
        found = self._defs("name = ? AND kind IN ('function', 'method')", (name,))
        found.sort(key=lambda d: (d.file != file, d.file))
        return found[0] if found else None

    def _helper(self, name: str, folder: str, file: str, device: str | None) -> Definition | None:
        """A helper worth following: defined in the caller's file or folder, or kernel-like under native/."""
        found = self._defs("name = ? AND kind IN ('function', 'method', 'device_function')", (name,))
        if not found or len(found) > 6:
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
            if callee_name in op_bases and qualified:
                out.append(Step("op", callee_name, file, line))
        seen: set[str] = set()
        return [s for s in out if not (s.name in seen or seen.add(s.name))]

    def formula_calls(self, formulas: list[str], op_bases: set[str]) -> list[Step]:
        """What backward formulas call: ops, and helpers defined in the sources (FunctionsManual.cpp ...)."""
        names = dict.fromkeys(n for f in formulas for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", f))
        out = []
        for n in names:
            if n in op_bases:
                out.append(Step("op", n, None, None))
                continue
            found = self._defs("name = ? AND kind = 'function' AND file LIKE 'torch/csrc/autograd/%'", (n,))
            if found:
                out.append(Step("call", found[0].qualified_name, found[0].file, found[0].line))
        return out
