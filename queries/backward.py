"""The backward an op really gets: the derivatives.yaml entries its autograd kernel uses, labelled.

tools/autograd lends an entry to ops that have none of their own; the matching is
indexer/dispatcher/derivative_match.py (torchgen/api/autograd.py:586
match_differentiability_info, 2.6.0; :305 in 1.13.1), run here on the op's family only:
the ops whose schema signature can equal the op's (the same base name, in-place, dunder
and `_functional` forms), the view op of a `_copy` variant, and the reference ops of a
foreach op. What each lent entry means for the op:

- in-place (`add_.Tensor`): the functional form's entry (add.Tensor), applied to the
  in-place form (torchgen/api/autograd.py:617, rule (2): the same signature without
  defaults; 1.13.1: :336);
- out= (`add.out`): matched the same way, but gen_variable_type records no grad_fn for
  an out= function: it raises when an input or the out= tensor requires grad
  (tools/autograd/gen_variable_type.py:1294 setup_derivative and :617
  SETUP_NONE_REQUIRES_GRAD, 2.6.0; :1083 and :578 in 1.13.1), and forward AD is refused
  (:2157; :1718 in 1.13.1). An autogen'd out= variant is not matched at all (autograd.py:609);
- generated (an autogen'd functional variant): the mutable form's entry (autograd.py:626,
  rule (3); 1.13.1: :343);
- foreach (2.6.0 and newer): the reference op's entry, per tensor (autograd.py:643 rule (4),
  gen_foreach_derivativeinfo :370);
- view_copy: the view op's entry serves its `_copy` variant (load_derivatives.py:67).
"""

from __future__ import annotations

import json
import sqlite3
from enum import StrEnum
from typing import TYPE_CHECKING

from ..indexer.errors import TgIndexError
from ..indexer.facts import Location
from .results import Backward, Formula

if TYPE_CHECKING:  # the dispatcher model imports the YAML layer: backward_of imports it when it runs
    from ..indexer.derivatives import DerivativeFact
    from ..indexer.dispatcher.model import Model
    from ..indexer.dispatcher.versions import Rules
    from ..indexer.native_yaml import OpFact

# native_yaml.AUGMENTED_ASSIGNMENT_NAMES (not imported: tg-query starts without the YAML layer)
_AUGMENTED = frozenset("add sub mul div mod pow lshift rshift and xor or".split())

FOREACH = "_foreach_"
NEWEST = (99, 0)  # a checkout without a readable version.txt gets the newest rules known


class BackwardUse(StrEnum):
    """How an op uses a derivatives.yaml entry (Backward.applies_as; the value is the string in JSON)."""

    EXACT = "exact"  # the op's own entry
    INPLACE = "in-place"
    OUT = "out="
    GENERATED = "generated"
    FOREACH = "foreach"
    VIEW_COPY = "view_copy"
    SIGNATURE = "same signature"  # another kind of op with the signature (rule (2) for a functional op)


def core_name(base: str) -> str:
    """BaseOperatorName.base (torchgen/model.py:2529): `add_`, `__iadd__`, `x_functional` -> `add`, `add`, `x`."""
    if base.startswith("__") and base.endswith("__") and len(base) > 4:
        inner = base[2:-2]
        return inner[1:] if inner.startswith("i") and inner[1:] in _AUGMENTED else inner
    base = base[:-1] if base.endswith("_") else base
    return base.removesuffix("_functional")


def family_bases(base: str) -> tuple[str, ...]:
    """The ops.base values whose entries the matching may lend to an op of this base."""
    cores = {core_name(base)}
    for core in list(cores):
        if core.endswith("_copy"):
            cores.add(core.replace("_copy", ""))  # view_signature() (model.py:1684)
        if core.endswith("_scatter"):
            cores.add(core.replace("scatter", "inverse"))
        if core.startswith(FOREACH):
            cores.add(core[len(FOREACH):])  # is_reference_for_foreach (torchgen/api/autograd.py:344)
    forms = (lambda c: (c, c + "_", f"__{c}__", f"__i{c}__", c + "_functional"))
    return tuple(sorted({b for c in cores for b in forms(c)}))


def rules_of(version: str) -> Rules:
    from ..indexer.dispatcher.versions import parse_version, rules_for

    try:
        return rules_for(parse_version(version))
    except TgIndexError:
        return rules_for(NEWEST)


def _op_fact(row: tuple, tags: tuple[str, ...]) -> OpFact:
    from ..indexer.native_yaml import OpFact

    (name, namespace, func, kind, variants, structured, delegate, inherits, generated_from, file, line) = row
    return OpFact(name=name, namespace=namespace, func=func, kind=kind, variants=tuple(json.loads(variants)),
                  structured=bool(structured), structured_delegate=delegate, structured_inherits=inherits,
                  precomputed=(), ufunc_inner_loop=(), autogen=(), tags=tags, device_check=None, device_guard=True,
                  python_module=None, category_override=None, manual_kernel_registration=False,
                  manual_cpp_binding=False, cpp_no_default_args=(), use_const_ref_for_mutable_tensors=False,
                  generated_from=generated_from, loc=Location(file, line), raw="")


def _family(conn: sqlite3.Connection, base: str, rules: Rules) -> Model:
    """The dispatcher model of the op's family (in native_functions.yaml order, parents before autogen'd ops)."""
    bases = family_bases(base)
    marks = ", ".join("?" * len(bases))
    rows = conn.execute(
        "SELECT id, name, namespace, func, kind, variants, structured, structured_delegate, structured_inherits, "
        f"generated_from, file, line FROM ops WHERE base IN ({marks}) OR name IN (SELECT generated_from FROM ops "
        f"WHERE base IN ({marks})) ORDER BY id", bases + bases).fetchall()
    tags: dict[int, list[str]] = {}
    ids = [r[0] for r in rows]
    for op_id, tag in conn.execute(f"SELECT op_id, tag FROM op_tags WHERE op_id IN ({', '.join('?' * len(ids))}) "
                                   "ORDER BY op_id, tag", ids):
        tags.setdefault(op_id, []).append(tag)
    from ..indexer.dispatcher.model import build
    from ..indexer.native_yaml import NativeFacts

    ops = tuple(_op_fact(r[1:], tuple(tags.get(r[0], ()))) for r in rows)
    return build(NativeFacts(ops, (), ()), rules.not_views)


def _entries(conn: sqlite3.Connection, ops: list[str]) -> tuple[Backward, ...]:
    """The derivatives.yaml entries of these ops, in the file's order, with their formulas (each its op's own)."""
    marks = ", ".join("?" * len(ops))
    rows = conn.execute("SELECT id, op, signature, dispatch_key, output_differentiability, saved_results, file, line "
                        f"FROM derivatives WHERE op IN ({marks}) ORDER BY id", ops).fetchall()
    formulas: dict[int, list[Formula]] = {}
    ids = [r[0] for r in rows]
    for did, names, kind, formula, file, line in conn.execute(
            "SELECT derivative_id, names, kind, formula, file, line FROM derivative_formulas "
            f"WHERE derivative_id IN ({', '.join('?' * len(ids))}) ORDER BY id", ids):
        formulas.setdefault(did, []).append(Formula(tuple(json.loads(names)), kind, formula, Location(file, line)))
    return tuple(Backward(op, sig, key, None if diff is None else tuple(json.loads(diff)), tuple(json.loads(saved)),
                          tuple(formulas.get(did, ())), Location(file, line), op, BackwardUse.EXACT)
                 for did, op, sig, key, diff, saved, file, line in rows)


def _fact(b: Backward) -> DerivativeFact:
    from ..indexer.derivatives import DerivativeFact
    from ..indexer.derivatives import Formula as FormulaFact

    formulas = tuple(FormulaFact(f.names, f.kind, f.formula, f.location) for f in b.formulas)
    return DerivativeFact(b.op, b.signature, b.dispatch_key, b.output_differentiability, b.saved_results, formulas,
                          b.location)


def _use(model: Model, op: str, from_op: str) -> str:
    """How `op` uses the entry of `from_op` (a BackwardUse)."""
    if from_op == op:
        return BackwardUse.EXACT
    f, lender = model.by_name[op], model.by_name.get(from_op)
    if f.base_name.startswith(FOREACH):
        return BackwardUse.FOREACH
    group = model.view_group_of.get(op)
    if group is not None and group.view_copy is f and group.view.name == from_op:
        return BackwardUse.VIEW_COPY
    if f.kind == "inplace":
        return BackwardUse.INPLACE
    if f.kind == "out":
        return BackwardUse.OUT
    if f.op.generated_from is not None and lender is not None and lender.kind != "functional":
        return BackwardUse.GENERATED
    return BackwardUse.SIGNATURE


# What tools/autograd does with an entry it lends, by use (the text form's label; see the module's docstring).
USE_NOTES = {
    BackwardUse.INPLACE: "the functional form; tools/autograd applies it to the in-place form",
    BackwardUse.OUT: "the functional form's entry, matched by signature; gen_variable_type records no grad_fn for "
                     "out= functions: it raises when an input or out= requires grad, and refuses forward AD",
    BackwardUse.GENERATED: "the mutable form; tools/autograd applies it to this generated functional variant",
    BackwardUse.FOREACH: "the reference op; tools/autograd applies it to each tensor of the foreach op",
    BackwardUse.VIEW_COPY: "the view op; tools/autograd gives its entry to the _copy variant",
    BackwardUse.SIGNATURE: "an op of the same signature; tools/autograd applies its entry to this op",
}


def backward_of(conn: sqlite3.Connection, op: str, base: str, version: str) -> tuple[Backward, ...]:
    """The entries `op`'s autograd kernel uses, each with the op it comes from and how it is used.
    An op's own entries are rule (1) (autograd.py:613), read without the dispatcher model; only an op
    without them (or an autogen'd out= variant, which gets none: :609) runs the matching."""
    kind, generated_from = conn.execute("SELECT kind, generated_from FROM ops WHERE name = ?", (op,)).fetchone()
    if generated_from is not None and kind == "out":
        return ()
    own = _entries(conn, [op])
    return own if own else _lent(conn, op, base, version)


def _lent(conn: sqlite3.Connection, op: str, base: str, version: str) -> tuple[Backward, ...]:
    from ..indexer.dispatcher import derivative_match

    rules = rules_of(version)
    model = _family(conn, base, rules)
    if op not in model.by_name:
        return ()
    entries = _entries(conn, [f.name for f in model.funcs])
    infos = derivative_match.load(model, tuple(_fact(b) for b in entries))
    matched = derivative_match.match(model, infos, rules.foreach_derivatives).get(op, {})
    out = []
    for fact in matched.values():
        use = _use(model, op, fact.op)
        formulas = tuple(Formula(f.names, f.kind, f.formula, f.loc) for f in fact.formulas)
        out.append(Backward(fact.op, fact.signature, fact.dispatch_key, fact.output_differentiability,
                            fact.saved_results, formulas, fact.loc, fact.op, use, USE_NOTES.get(use)))
    return tuple(out)
