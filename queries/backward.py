"""The backward an op really gets: the derivatives.yaml entries its autograd kernel uses, labelled.

The build computes them (op_backward, indexer/dispatcher/backward_table.py: tools/autograd's
matching over the checkout's ops); this module reads them with their formulas. What each lent
entry means for the op:

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

from ..indexer.dispatcher.backward_table import BackwardUse
from ..indexer.facts import Location
from .results import Backward, Formula

__all__ = ["USE_NOTES", "BackwardUse", "backward_of"]

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


def backward_of(conn: sqlite3.Connection, op: str) -> tuple[Backward, ...]:
    """The entries `op`'s autograd kernel uses, each with the op it comes from and how it is used."""
    rows = conn.execute(
        "SELECT d.id, d.op, d.signature, d.dispatch_key, d.output_differentiability, d.saved_results, d.file, "
        "d.line, b.use FROM op_backward b JOIN derivatives d ON d.id = b.derivative_id WHERE b.op = ? ORDER BY b.id",
        (op,)).fetchall()
    if not rows:
        return ()
    formulas: dict[int, list[Formula]] = {}
    ids = [r[0] for r in rows]
    for did, names, kind, formula, file, line in conn.execute(
            "SELECT derivative_id, names, kind, formula, file, line FROM derivative_formulas "
            f"WHERE derivative_id IN ({', '.join('?' * len(ids))}) ORDER BY id", ids):
        formulas.setdefault(did, []).append(Formula(tuple(json.loads(names)), kind, formula, Location(file, line)))
    return tuple(Backward(entry_op, sig, key, None if diff is None else tuple(json.loads(diff)),
                          tuple(json.loads(saved)), tuple(formulas.get(did, ())), Location(file, line), entry_op,
                          BackwardUse(use), USE_NOTES.get(BackwardUse(use)))
                 for did, entry_op, sig, key, diff, saved, file, line, use in rows)
