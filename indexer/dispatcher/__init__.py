"""The registrations PyTorch's code generators write, computed from the yaml facts (no checkout code runs).

`generated_registrations(native, derivatives, version)` returns one GeneratedRegistration per
(op, dispatch key) that the checkout's torchgen and tools/autograd generate: the
native_functions.yaml keys (Register<Key>.cpp, backend_keys), Functionalize and
BackendSelect (torchgen), Autograd and its per-key forms, ADInplaceOrView and Tracer
(tools/autograd). Each module names the generator it reimplements, with file:line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..derivatives import DerivativeFact
    from ..native_yaml import NativeFacts
    from .registration import GeneratedRegistration

__all__ = ["GeneratedRegistration", "Generator", "generated_registrations", "parse_version"]

# Imported when first asked for: tg-query's backward_of needs only derivative_match and model of this package,
# and importing a submodule runs this file first.
_LAZY = {"GeneratedRegistration": "registration", "Generator": "registration", "parse_version": "versions"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def generated_registrations(native: NativeFacts, derivatives: tuple[DerivativeFact, ...],
                            version: tuple[int, int],
                            backends: frozenset[str] = frozenset()) -> tuple[GeneratedRegistration, ...]:
    """Every registration the version's codegen writes for these facts, in the generators' order.

    backends: the optional keys torchgen.gen was asked for (`MPS` for --mps, `XPU` for --xpu);
    by default, as `python -m torchgen.gen` runs, they get no Register<Key>.cpp.
    """
    from . import autograd_kernels, backend_keys, backend_select, derivative_match, functionalize
    from .autograd_tables import TABLES
    from .model import build
    from .versions import rules_for

    rules = rules_for(version)
    model = build(native, rules.not_views)  # one model for both code generators (see model.py)
    out: list[GeneratedRegistration] = []
    out.extend(backend_keys.registrations(model, rules, rules.keys(backends)))
    out.extend(functionalize.registrations(model, rules))
    out.extend(backend_select.registrations(model))
    tables = TABLES[min(rules.version, max(TABLES))]  # 2.13's generators: 2.6's tables (checked by its codegen)
    matched = derivative_match.match(model, derivative_match.load(model, derivatives), rules.foreach_derivatives)
    out.extend(autograd_kernels.variable_type(model, matched, tables, rules.autograd_shards))
    out.extend(autograd_kernels.inplace_or_view(model, matched, tables))
    out.extend(autograd_kernels.trace(model, tables, rules.autograd_shards))
    return tuple(out)
