"""tools/autograd's three generated kernels per operator: VariableType, ADInplaceOrView, TraceType.

gen_autograd.py:66 hands each generator every operator of native_functions.yaml (autogen'd
ones included, no dispatch key ignored). Rules (2.6.0 line numbers; 1.13.1 and the 2.13.0
wheel's the same, with 10 shards in 2.13):

- Tracer (gen_trace_type.py:522): every operator whose C++ name is not in MANUAL_TRACER,
  kernel TraceType::<cpp name>_<overload> (:448 type_wrapper_name);
- use_derived (gen_inplace_or_view_type.py:620, torchgen/api/autograd.py:267): not in
  MANUAL_AUTOGRAD, and abstract (a structured_delegate or a dispatch table beyond the
  composite-implicit keys, model.py:886) or with a derivatives.yaml entry that has
  derivatives;
- ADInplaceOrView (gen_inplace_or_view_type.py:605): a use_derived operator that returns
  a view of an input (RETURNS_VIEWS_OF_INPUT by base name) or is inplace/out= with a return;
- Autograd (gen_variable_type.py:919, :940): a use_derived operator gets, per dispatch key
  of its matched entries, VariableType::<name>[_<Key>] at Autograd (`Default`) or at that
  key (AutogradNestedTensor, AutogradCUDA, ...); without entries, the not-implemented
  kernel when it has a tensor-like return and none of the checks at :949 exempts it,
  else VariableType::<name> at Autograd.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..derivatives import DerivativeFact
from . import derivative_match
from .autograd_tables import AutogradTables
from .model import Func, Model
from .registration import NOT_IMPLEMENTED_KERNEL, TEMPLATES, GeneratedRegistration, Generator
from .shards import shard_file


def _reg(f: Func, key: str, kernel: str, generator: Generator, file: str,
         info: DerivativeFact | None = None, not_implemented: bool = False) -> GeneratedRegistration:
    return GeneratedRegistration(f.qualified, key, kernel, generator, TEMPLATES[generator], file, f.op.loc,
                                 info.loc if info is not None else None, not_implemented)


def trace(model: Model, tables: AutogradTables, shards: int) -> Iterator[GeneratedRegistration]:
    for f in model.funcs:
        if f.cpp_name not in tables.manual_autograd:
            yield _reg(f, "Tracer", f"TraceType::{f.wrapper_stem}", Generator.TRACE_TYPE,
                       shard_file("TraceType", f.base_name, shards))


def use_derived(f: Func, infos: derivative_match.Infos | None, tables: AutogradTables) -> bool:
    if f.cpp_name in tables.manual_autograd:
        return False
    return f.is_abstract or any(derivative_match.has_derivatives(i) for i in (infos or {}).values())


def inplace_or_view(model: Model, matched: dict[str, derivative_match.Infos],
                    tables: AutogradTables) -> Iterator[GeneratedRegistration]:
    for f in model.funcs:
        if not use_derived(f, matched.get(f.name), tables):
            continue
        views = f.base_name in tables.returns_views_of_input
        if views or (f.kind in ("inplace", "out") and f.returns_count > 0):
            yield _reg(f, "ADInplaceOrView", f"ADInplaceOrView::{f.wrapper_stem}", Generator.INPLACE_OR_VIEW,
                       shard_file("ADInplaceOrViewType", f.base_name, 2))


def _not_implemented(f: Func, tables: AutogradTables) -> bool:
    return (f.schema.base not in tables.reset_grad_accumulator
            and f.base_name not in tables.dont_require_derivative
            and f.tensor_like_returns > 0
            and f.cpp_name not in tables.dont_enforce_same_impl
            and f.wrapper_stem not in tables.dont_enforce_storage_count
            and f.wrapper_stem not in tables.dont_enforce_impl_count)


def variable_type(model: Model, matched: dict[str, derivative_match.Infos],
                  tables: AutogradTables, shards: int) -> Iterator[GeneratedRegistration]:
    for f in model.funcs:
        file = shard_file("VariableType", f.cpp_name, shards)
        infos = matched.get(f.name)
        if not use_derived(f, infos, tables):
            continue
        if infos is None:
            if _not_implemented(f, tables):
                yield _reg(f, "Autograd", NOT_IMPLEMENTED_KERNEL, Generator.VARIABLE_TYPE, file, not_implemented=True)
            else:
                yield _reg(f, "Autograd", f"VariableType::{f.wrapper_stem}", Generator.VARIABLE_TYPE, file)
            continue
        for key, info in infos.items():
            kernel = f"VariableType::{f.wrapper_stem}" + ("" if key == "Default" else f"_{key}")
            yield _reg(f, "Autograd" if key == "Default" else key, kernel, Generator.VARIABLE_TYPE, file, info)
