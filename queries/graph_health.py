"""doctor's account of name resolution: how the call sites written under a folder (aten/src/ATen/native
by default) ended in the graph, each share, and the names left ambiguous or unresolved with their reason.

A call site is one written call (a file, a line, a callee as written, in one function); a template call
reaching several specialisations, or an ambiguous one with an edge per candidate, is still one site.
The outcomes: one definition, a named class, one template or overload set (or a pure virtual member's overrides),
one definition per build configuration (a definition under each of guards no build holds together,
configurations.py), unresolved.
An operator expression on an operand of a class (`a * b` on Tensors calls at::operator*) is an implicit call:
its sites are counted apart, not in the shares of the calls written.
"""

from __future__ import annotations

import sqlite3

from ..indexer.link.kinds import OPERATOR_CALLS, EdgeKind, How, NodeKind
from .results import CallShares

NATIVE = "aten/src/ATen/native/"

# The four outcomes doctor reports, by the edges' `how`.
ONE_DEFINITION = (How.EXACT, How.SAME_FILE, How.INCLUDE, How.SAME_NAMESPACE, How.USING, How.RECEIVER,
                  How.OVERLOAD, How.UNIQUE, How.REGISTERED, How.TEMPLATE_ARGUMENT, How.ARGUMENT_TYPES, How.LAMBDA,
                  How.ARGUMENT_DEPENDENT)
NAMED_CLASS = (How.OP, How.TENSOR_METHOD, How.VENDOR, How.STANDARD, How.MACRO, How.TYPE, How.GENERATED)
# one template or overload set, the types picking among them; or a member declared without a body, whose overrides
# in the derived classes the object picks among
SEVERAL = (How.SPECIALISATIONS, How.OVERLOAD_SET, How.OVERRIDES)
UNRESOLVED = (How.AMBIGUOUS, How.NOT_IN_CHECKOUT, How.VIRTUAL)
PER_BUILD = (How.PER_BUILD,)  # one definition per build configuration: counted apart (the lead decides where it counts)
_CALL_KINDS = (EdgeKind.CALLS, EdgeKind.REDISPATCHES_TO_OP, EdgeKind.CALLS_LIBRARY, EdgeKind.USES_STUB)


def call_shares(conn: sqlite3.Connection, folder: str = NATIVE, show: int = 20) -> CallShares:
    """The shares of the calls written under the folder; the operator expressions on class operands (their edges'
    target is the operator function's name, `operator*`: cxx/calls.py) are counted apart, by how."""
    operators = ", ".join(f"'{name}'" for name in sorted(OPERATOR_CALLS))
    # not the redispatches of the (op, key) nodes of kernels torchgen writes (autogen, view_copy): native_functions.yaml
    # says them, no C++ call does
    every = ("SELECT DISTINCT src, file, line, target, how FROM edges WHERE kind IN (?, ?, ?, ?) "
             f"AND substr(file, 1, ?) = ? AND src NOT IN (SELECT id FROM nodes WHERE kind = '{NodeKind.KERNEL}')")
    sites = f"{every} AND target NOT IN ({operators})"
    args = (*_CALL_KINDS, len(folder), folder)
    by_operator = conn.execute(f"SELECT how, count(*) FROM ({every} AND target IN ({operators})) GROUP BY how "
                               "ORDER BY 2 DESC, 1", args).fetchall()
    by_how = conn.execute(f"SELECT how, count(*) FROM ({sites}) GROUP BY how ORDER BY 2 DESC, 1", args).fetchall()
    counts = dict(by_how)
    top = conn.execute(
        f"SELECT how, target, count(*) FROM ({sites}) WHERE how IN ({', '.join('?' * len(UNRESOLVED))}) "
        f"GROUP BY how, target ORDER BY 3 DESC, 1, 2 LIMIT ?", (*args, *UNRESOLVED, show)).fetchall()
    total = sum(counts.values())

    def part(hows) -> int:
        return sum(counts.get(h, 0) for h in hows)

    return CallShares(folder, total, tuple(by_how), part(ONE_DEFINITION), part(NAMED_CLASS), part(SEVERAL),
                      part(UNRESOLVED), tuple(top), part(PER_BUILD), tuple(by_operator))
