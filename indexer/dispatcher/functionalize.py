"""torchgen's RegisterFunctionalization_N.cpp: the Functionalize kernels.

Rules of torchgen/gen_functionalization_type.py gen_functionalization_registration
(2.6.0: :774; 1.13.1: :636), over gen.py's list (2.6.0 gen.py:2623-2644): every
NativeFunctionsGroup, every view group (gen.py:1399), and every other operator alone.

- a view group registers its view op and its inplace view op, not lift_fresh's group
  (:792); 2.6.0 leaves out CompositeImplicitAutograd ones (:795), 2.13.0 registers them
  again, as the composite kernel itself (2.13.0 :1118);
- a group, or an operator alone, registers its variants that modify arguments (inplace,
  out=, mutable); 2.6.0 leaves out CompositeImplicitAutograd ones (:818), 1.13.1 registers
  those too, as the composite kernel itself (1.13.1 :643); a group holding `lift` or
  `resize_` registers nothing, nor does set_.source_Tensor's group (2.6.0 :807), nor an
  operator alone in MUTABLE_OPS_NOT_USING_FUNCTIONALIZATION (2.6.0 :60, 1.13.1 :49);
- the kernel is functionalization::<cpp name>_<overload> (:185 wrapper_name), or
  at::native::<kernel> for a composite in 1.13.1.
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import CIA, Func, Group, Model, ViewGroup
from .registration import TEMPLATES, GeneratedRegistration, Generator
from .shards import shard_file
from .versions import Rules

KEY = "Functionalize"


def _kernel(f: Func) -> str:
    if f.has_composite_implicit:
        return f"at::native::{f.kernels[CIA]}"
    return f"functionalization::{f.wrapper_stem}"


def _view_group(g: ViewGroup, rules: Rules) -> list[Func]:
    if g.view.name == "lift_fresh":
        return []
    fns = [f for f in (g.view, g.view_inplace) if f is not None]
    return fns if rules.functionalize_composite_views else [f for f in fns if not f.has_composite_implicit]


def _mutating(fns: tuple[Func, ...], rules: Rules) -> list[Func]:
    out = []
    for f in fns:
        if f.name in ("lift", "resize_"):
            return []
        if f.has_composite_implicit and not rules.functionalize_composite_others:
            continue
        if f.modifies_arguments or f.has_composite_implicit:
            out.append(f)
    return out


def _items(model: Model) -> Iterator[Group | ViewGroup | Func]:
    yield from model.groups
    seen: set[int] = set()
    for f in model.funcs:
        vg = model.view_group_of.get(f.name)
        if vg is not None and id(vg) not in seen:
            seen.add(id(vg))
            yield vg
    for f in model.funcs:
        if f.name not in model.group_of and f.name not in model.view_group_of:
            yield f


def _registered(item: Group | ViewGroup | Func, rules: Rules) -> list[Func]:
    if isinstance(item, ViewGroup):
        return _view_group(item, rules)
    if isinstance(item, Group):
        if not rules.functionalize_composite_others and item.inplace is not None \
                and item.inplace.name == "set_.source_Tensor":
            return []
        return _mutating(item.functions(), rules)
    if item.name in rules.functionalize_skip:
        return []
    return _mutating((item,), rules)


def registrations(model: Model, rules: Rules) -> Iterator[GeneratedRegistration]:
    template = TEMPLATES[Generator.FUNCTIONALIZATION]
    for item in _items(model):
        root = (item.functional if isinstance(item, Group) else item.view if isinstance(item, ViewGroup)
                else item).base_name
        for f in _registered(item, rules):
            yield GeneratedRegistration(f.qualified, KEY, _kernel(f), Generator.FUNCTIONALIZATION, template,
                                        shard_file("RegisterFunctionalization", root, 4), f.op.loc)
