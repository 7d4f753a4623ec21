"""torchgen's RegisterBackendSelect.cpp: the BackendSelect kernels of factory functions.

Rules of torchgen/gen.py needs_backend_select (2.6.0: gen.py:954; 1.13.1: gen.py:871), the
same in both versions: an operator whose arguments hold TensorOptions (the kwarg-only
run `dtype, layout, device, pin_memory`), unless its name ends in `_like` or starts
with `new_` (those take the dispatch key from their tensor argument). The kernel is
native.name(func): `<name>[_out]_<overload>` (torchgen/api/native.py:51).
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import Func, Model
from .registration import TEMPLATES, GeneratedRegistration, Generator

KEY = "BackendSelect"


def needs_backend_select(f: Func) -> bool:
    base = f.schema.base
    if base.endswith("_like") or base.startswith("new_"):
        return False
    return f.has_tensor_options


def registrations(model: Model) -> Iterator[GeneratedRegistration]:
    template = TEMPLATES[Generator.BACKEND_SELECT]
    for f in model.funcs:
        if needs_backend_select(f):
            yield GeneratedRegistration(f.qualified, KEY, f.wrapper_stem, Generator.BACKEND_SELECT, template,
                                        "RegisterBackendSelect.cpp", f.op.loc)
