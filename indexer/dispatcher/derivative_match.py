"""Which derivatives.yaml entries each operator's autograd kernel uses (tools/autograd's matching).

Rules (2.6.0 line numbers; 1.13.1 has the same without the foreach rule):

- load_derivatives.py:101: an entry belongs to the operator its `name:` schema names, one
  info per dispatch block (`Default` when the entry has none); a view op's entries also
  serve its `_copy` variant unless that has its own (load_derivatives.py:67
  add_view_copy_derivatives); an info has derivatives when a backward formula is not
  `non_differentiable` (torchgen/api/autograd.py:169 has_derivatives);
- torchgen/api/autograd.py:586 match_differentiability_info, in order: an autogen'd
  out= variant gets none; the operator's own entry; else the entry of a functional
  operator with the same signature without defaults (not for foreach ops); else, for a
  generated variant, the entry of a non-functional one with that signature; else (2.6.0)
  a foreach op gets the entry of its reference op (:344 is_reference_for_foreach: the
  name after `_foreach_`, not inplace unless _foreach_zero_, as many arguments, each of
  the reference's argument types equal to the foreach one or its element type).
"""

from __future__ import annotations

from ..derivatives import DerivativeFact
from .model import Func, Model, without_options

Infos = dict[str, DerivativeFact]  # dispatch key ("Default", "AutogradNestedTensor", ...) -> entry

_FOREACH_INPLACE_REF = frozenset({"_foreach_zero_"})
_SKIP_ARGUMENT_LEN_CHECK = frozenset({f"_foreach_{op}{inplace}.{overload}" for op in ("add", "sub")
                                      for inplace in ("", "_") for overload in ("Scalar", "ScalarList")})


def has_derivatives(info: DerivativeFact) -> bool:
    return any(f.kind == "input" and f.formula.strip().lower() != "non_differentiable" for f in info.formulas)


def load(model: Model, derivatives: tuple[DerivativeFact, ...]) -> dict[str, Infos]:
    """Op name -> its entries per dispatch key, in derivatives.yaml order, view copies last."""
    infos: dict[str, Infos] = {}
    for fact in derivatives:
        infos.setdefault(fact.op, {})[fact.dispatch_key or "Default"] = fact
    copies: dict[str, Infos] = {}
    for op, per_key in infos.items():
        group = model.view_group_of.get(op)
        if group is not None and group.view.name == op and group.view_copy is not None:
            if group.view_copy.name not in infos:
                copies[group.view_copy.name] = per_key
    infos.update(copies)
    return infos


def _elem(type_: str) -> str | None:
    if type_.endswith("?"):
        return type_[:-1]
    if type_.endswith("]"):
        return type_[: type_.rindex("[")]
    return None


def _is_reference(f: Func, ref: Func) -> bool:
    """Against the reference's signature(): base name, arguments without TensorOptions."""
    if f.base_name.split("_foreach_")[-1] != ref.base_name:
        return False
    args = f.schema.positional + f.schema.kwarg_only
    ref_args = ref.schema.positional + without_options(ref.schema.kwarg_only)
    if f.name not in _SKIP_ARGUMENT_LEN_CHECK and len(args) != len(ref_args):
        return False
    return all(r.type in (a.type, _elem(a.type)) for a, r in zip(args, ref_args))


def _by_signature(pairs: list[tuple[Func, Infos]]) -> dict[tuple, tuple[Func, Infos]]:
    """As the dict comprehension builds it: the first entry's place, the last entry's value."""
    out: dict[tuple, tuple[Func, Infos]] = {}
    for f, per_key in pairs:
        out[f.signature(strip_default=True)] = (f, per_key)
    return out


def _foreach(f: Func, functional: list[tuple[Func, Infos]],
             non_functional: list[tuple[Func, Infos]]) -> Infos | None:
    for ref, per_key in functional:
        if _is_reference(f, ref) and "Default" in per_key:
            return {"Default": per_key["Default"]}
    if f.kind == "inplace" and f.name in _FOREACH_INPLACE_REF:
        for ref, per_key in non_functional:
            if _is_reference(f, ref) and "Default" in per_key:
                return {"Default": per_key["Default"]}
    return None


def match(model: Model, infos: dict[str, Infos], foreach_rule: bool) -> dict[str, Infos]:
    """Op name -> the entries its autograd kernel uses (ops without any are left out)."""
    functional: list[tuple[Func, Infos]] = []
    non_functional: list[tuple[Func, Infos]] = []
    for op, per_key in infos.items():
        f = model.by_name.get(op)
        if f is not None:
            (functional if f.kind == "functional" else non_functional).append((f, per_key))
    by_sig, by_sig_nf = _by_signature(functional), _by_signature(non_functional)
    refs, refs_nf = list(by_sig.values()), list(by_sig_nf.values())
    out: dict[str, Infos] = {}
    for f in model.funcs:
        generated = f.op.generated_from is not None
        foreach = f.base_name.startswith("_foreach_")
        found: Infos | None = None
        if generated and f.kind == "out":
            continue
        if f.name in infos:
            found = infos[f.name]
        else:
            sig = f.signature(strip_default=True)
            if sig in by_sig and not (foreach and foreach_rule):
                found = by_sig[sig][1]
            elif generated and sig in by_sig_nf:
                found = by_sig_nf[sig][1]
            elif foreach and foreach_rule:
                found = _foreach(f, refs, refs_nf)
        if found:
            out[f.name] = found
    return out
