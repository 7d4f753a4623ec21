"""Hand-written registrations (the `registrations` facts of TORCH_LIBRARY* blocks) as the dispatcher holds them.

A registration fact names the op as written ("add.Tensor", "aten::add.Tensor") and the function
as written; the dispatcher sees the op in the block's namespace, the kernel at the block's key,
or at the key of a `torch::dispatch(DispatchKey::X, fn)`, or (no key at all: a TORCH_LIBRARY
block's m.impl or an m.def with a function) at CompositeImplicitAutograd, where
OperatorEntry.cpp puts catch-all kernels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..vocab import RegistrationKind
from .rows import CATCH_ALL_KEY, FALLBACK_OP, DispatcherRow, RegistrationSource

_DISPATCH = re.compile(r"(?:torch::)?dispatch\s*\(\s*([\w:]+)\s*,\s*(.*)\)", re.S)
# torch::dispatch also takes a DeviceType (c10::kCPU, DeviceType::CUDA): the key of its backend.
_DEVICE_KEYS = {"kCPU": "CPU", "kCUDA": "CUDA", "kMeta": "Meta", "kMPS": "MPS", "kXPU": "XPU"}
_FALLTHROUGH = re.compile(r"\bmakeFallthrough\s*\(\s*\)")
_TORCH_FN = re.compile(r"(?:c10::|torch::)?TORCH_FN\s*\((.*)\)", re.S)


@dataclass(frozen=True)
class WrittenRegistration:
    """A row of `registrations` (kind impl, def or fallback) with the block it is in."""

    kind: str
    macro: str  # the block's macro
    namespace: str
    dispatch_key: str | None
    op: str | None
    function: str | None
    file: str
    line: int
    via: str | None


def qualified_op(namespace: str, op: str) -> str:
    """`add.Tensor` in an aten block -> `aten::add.Tensor`; a name that has a namespace keeps it."""
    return op if "::" in op else f"{namespace}::{op}"


def _kernel_and_key(function: str | None, block_key: str | None) -> tuple[str | None, str | None]:
    """The kernel registered and the key it is registered at (None: a def without a kernel)."""
    if function is None:
        return None, block_key
    m = _DISPATCH.fullmatch(function.strip())
    if m:
        fn = m.group(2).strip()
        inner = _TORCH_FN.fullmatch(fn)
        key = m.group(1).rsplit("::", 1)[-1]
        return (inner.group(1).strip() if inner else fn).lstrip("&"), _DEVICE_KEYS.get(key, key)
    return function, block_key if block_key is not None else CATCH_ALL_KEY


def handwritten_row(w: WrittenRegistration) -> DispatcherRow | None:
    """The dispatcher's registration for a fact; None for one that registers nothing (an m.def's op
    name missing, or an impl without a kernel)."""
    kind = RegistrationKind(w.kind)
    generator = w.via or w.macro
    if kind == RegistrationKind.FALLBACK:
        kernel = w.function
        return DispatcherRow(FALLBACK_OP, w.dispatch_key, kind, RegistrationSource.HANDWRITTEN, generator, kernel,
                             w.file, w.line, fallthrough=bool(kernel and _FALLTHROUGH.search(kernel)))
    if w.op is None:
        return None
    kernel, key = _kernel_and_key(w.function, w.dispatch_key)
    if kind == RegistrationKind.IMPL and kernel is None:
        return None
    if kind == RegistrationKind.DEF and kernel is None:
        key = None
    return DispatcherRow(qualified_op(w.namespace, w.op), key, kind, RegistrationSource.HANDWRITTEN, generator,
                         kernel, w.file, w.line, fallthrough=bool(kernel and _FALLTHROUGH.search(kernel)))
