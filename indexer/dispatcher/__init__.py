"""The registrations PyTorch's code generators write, computed from the yaml facts (no checkout code runs).

`generated_registrations(native, derivatives, version)` returns one GeneratedRegistration per
(op, dispatch key) that the checkout's torchgen and tools/autograd generate: the
native_functions.yaml keys (Register<Key>.cpp, backend_keys), Functionalize and
BackendSelect (torchgen), Autograd and its per-key forms, ADInplaceOrView and Tracer
(tools/autograd). Each module names the generator it reimplements, with file:line.
"""

from __future__ import annotations

from ..derivatives import DerivativeFact
from ..native_yaml import NativeFacts
from . import autograd_kernels, backend_keys, backend_select, derivative_match, functionalize
from .autograd_tables import TABLES
from .model import build
from .registration import GeneratedRegistration, Generator
from .versions import parse_version, rules_for

__all__ = ["GeneratedRegistration", "Generator", "generated_registrations", "parse_version"]


def generated_registrations(native: NativeFacts, derivatives: tuple[DerivativeFact, ...],
                            version: tuple[int, int]) -> tuple[GeneratedRegistration, ...]:
    rules = rules_for(version)
    # torchgen.gen drops MPS/XPU dispatch entries (gen.py:2895) and tools/autograd keeps them
    # (gen_autograd.py:66); only is_abstract, which torchgen's registrations never ask, sees
    # the difference, so one model with every key serves both.
    model = build(native, rules.not_views)
    out: list[GeneratedRegistration] = []
    out.extend(backend_keys.registrations(model, rules))
    out.extend(functionalize.registrations(model, rules))
    out.extend(backend_select.registrations(model))
    full = model
    tables = TABLES[rules.version]
    matched = derivative_match.match(full, derivative_match.load(full, derivatives), rules.foreach_derivatives)
    out.extend(autograd_kernels.variable_type(full, matched, tables))
    out.extend(autograd_kernels.inplace_or_view(full, matched, tables))
    out.extend(autograd_kernels.trace(full, tables))
    return tuple(out)
