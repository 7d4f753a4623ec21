"""op_backward: the derivatives.yaml entries each op's autograd kernel uses, computed in the build.

The dispatcher stage fills it from the index's ops and derivatives rows (and is kept with it), so
that tg-query reads an op's backward without the YAML layer or the dispatcher model
(queries/backward.py). An op's own entries are rule (1) (torchgen/api/autograd.py:613, 2.6.0);
an op without them gets what derivative_match.py lends it (the functional form's entry for
in-place and out= forms, the mutable form's for a generated variant, the reference op's for a
foreach op, the view op's for a `_copy` variant); an autogen'd out= variant gets none (:609).
Each row says how the op uses the entry (BackwardUse; the text form's notes are queries/backward.py's).
"""

from __future__ import annotations

import json
import sqlite3
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..derivatives import DerivativeFact
    from ..native_yaml import OpFact
    from .model import Model

FOREACH = "_foreach_"
NEWEST = (99, 0)  # a checkout without a readable version.txt gets the newest rules known (as stage.py)
COLUMNS = ("op", "derivative_id", "entry_op", "use")
INSERT = f"INSERT INTO op_backward ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


class BackwardUse(StrEnum):
    """op_backward.use: how an op uses a derivatives.yaml entry (the value is the string in SQL and JSON)."""

    EXACT = "exact"  # the op's own entry
    INPLACE = "in-place"
    OUT = "out="
    GENERATED = "generated"
    FOREACH = "foreach"
    VIEW_COPY = "view_copy"
    SIGNATURE = "same signature"  # another kind of op with the signature (rule (2) for a functional op)


def _op_fact(row: tuple, tags: tuple[str, ...]) -> OpFact:
    """The fields of an ops row the dispatcher model reads (the others at their defaults)."""
    from ..facts import Location
    from ..native_yaml import OpFact

    (name, namespace, func, kind, variants, structured, delegate, inherits, generated_from, file, line) = row
    return OpFact(name=name, namespace=namespace, func=func, kind=kind, variants=tuple(json.loads(variants)),
                  structured=bool(structured), structured_delegate=delegate, structured_inherits=inherits,
                  precomputed=(), ufunc_inner_loop=(), autogen=(), tags=tags, device_check=None, device_guard=True,
                  python_module=None, category_override=None, manual_kernel_registration=False,
                  manual_cpp_binding=False, cpp_no_default_args=(), use_const_ref_for_mutable_tensors=False,
                  generated_from=generated_from, loc=Location(file, line), raw="")


def _model(conn: sqlite3.Connection, version: str) -> tuple[Model, bool]:
    """The dispatcher model of the index's ops (in id order: parents before autogen'd ops), and the foreach rule."""
    from ..errors import TgIndexError
    from ..native_yaml import NativeFacts
    from .model import build
    from .versions import parse_version, rules_for

    try:
        rules = rules_for(parse_version(version))
    except TgIndexError:
        rules = rules_for(NEWEST)
    tags: dict[int, list[str]] = {}
    for op_id, tag in conn.execute("SELECT op_id, tag FROM op_tags ORDER BY op_id, tag"):
        tags.setdefault(op_id, []).append(tag)
    rows = conn.execute("SELECT id, name, namespace, func, kind, variants, structured, structured_delegate, "
                        "structured_inherits, generated_from, file, line FROM ops ORDER BY id").fetchall()
    ops = tuple(_op_fact(r[1:], tuple(tags.get(r[0], ()))) for r in rows)
    return build(NativeFacts(ops, (), ()), rules.not_views), rules.foreach_derivatives


def _entries(conn: sqlite3.Connection) -> dict[int, DerivativeFact]:
    """derivatives.id -> the entry (its formulas: only their names, kinds and texts, which the matching reads)."""
    from ..derivatives import DerivativeFact, Formula
    from ..facts import Location

    formulas: dict[int, list[Formula]] = {}
    for did, names, kind, formula in conn.execute(
            "SELECT derivative_id, names, kind, formula FROM derivative_formulas ORDER BY id"):
        formulas.setdefault(did, []).append(Formula(tuple(json.loads(names)), kind, formula, Location("", 0)))
    return {did: DerivativeFact(op, sig, key, None, (), tuple(formulas.get(did, ())), Location(file, line))
            for did, op, sig, key, file, line in conn.execute(
                "SELECT id, op, signature, dispatch_key, file, line FROM derivatives ORDER BY id")}


def use_of(model: Model, op: str, from_op: str) -> BackwardUse:
    """How `op` uses the entry of `from_op`."""
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


def rows(conn: sqlite3.Connection, version: str) -> list[tuple[str, int, str, str]]:
    """(op, derivatives.id, the entry's op, use) per entry each op's autograd kernel uses, in the order it uses them."""
    from . import derivative_match

    model, foreach_rule = _model(conn, version)
    entries = _entries(conn)
    ids = {id(fact): did for did, fact in entries.items()}
    own: dict[str, list[int]] = {}
    for did, fact in entries.items():
        own.setdefault(fact.op, []).append(did)
    matched = derivative_match.match(model, derivative_match.load(model, tuple(entries.values())), foreach_rule)
    out = []
    for f in model.funcs:
        if f.op.generated_from is not None and f.kind == "out":
            continue  # an autogen'd out= variant gets none, even with an entry of its own (autograd.py:609)
        if f.name in own:  # all its entries, a dispatch key written twice included
            out.extend((f.name, did, f.name, BackwardUse.EXACT.value) for did in own[f.name])
            continue
        for fact in matched.get(f.name, {}).values():
            out.append((f.name, ids[id(fact)], fact.op, use_of(model, f.name, fact.op).value))
    return out


def fill(conn: sqlite3.Connection, version: str) -> int:
    """Replace op_backward; the number of rows written."""
    found = rows(conn, version)
    conn.execute("DELETE FROM op_backward")
    conn.executemany(INSERT, found)
    return len(found)
