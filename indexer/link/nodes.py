"""The graph's nodes: one per op, (op, key) kernel, definition, stub, vendor entry point and
derivatives.yaml entry, numbered in that order (the same facts give the same ids)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..vocab import DefinitionKind
from .kinds import NodeKind
from .stubs import StubNames, stub_names

_DEFINITION_KINDS = {
    DefinitionKind.GLOBAL_KERNEL: NodeKind.GLOBAL_KERNEL,
    DefinitionKind.META_FUNC: NodeKind.STRUCTURED,
    DefinitionKind.IMPL_FUNC: NodeKind.STRUCTURED,
}


@dataclass
class Nodes:
    """The rows of `nodes` and the maps from facts to node ids."""

    rows: list[tuple] = field(default_factory=list)
    op: dict[str, int] = field(default_factory=dict)  # op name -> node
    op_base: dict[str, list[int]] = field(default_factory=dict)  # op base -> its ops' nodes
    kernel: dict[int, int] = field(default_factory=dict)  # dispatch.id -> node
    definition: dict[int, int] = field(default_factory=dict)  # definitions.id -> node
    stub: dict[str, int] = field(default_factory=dict)  # qualified stub name (link/stubs.py) -> node
    stub_names: StubNames | None = None  # which stub a name written at a site or in a function means
    library: dict[tuple[str, str], int] = field(default_factory=dict)  # (family, callee) -> node
    derivative: dict[int, int] = field(default_factory=dict)  # derivatives.id -> node
    base: int = 0  # the ids below base+1 are taken (an incremental link adds nodes after the graph's)

    def add(self, kind: str, name: str, file, line, end_line, ref, detail) -> int:
        node = self.base + len(self.rows) + 1
        self.rows.append([node, kind, name, file, line, end_line, ref, detail, 0])
        return node


def make_nodes(conn: sqlite3.Connection, guards: dict[int, str], name_lines: bool = False,
               definitions: bool = True) -> Nodes:
    """The nodes; a definition's node is at the line its name is written on (name_line) when the index has it.
    definitions=False: all but the definitions' (an incremental link takes those from its graph)."""
    n = Nodes()
    for ref, name, base, file, line in conn.execute("SELECT id, name, base, file, line FROM ops ORDER BY id"):
        n.op[name] = n.add(NodeKind.OP, name, file, line, None, ref, None)
        n.op_base.setdefault(base, []).append(n.op[name])
    for ref, op, key, file, line in conn.execute("SELECT id, op, key, file, line FROM dispatch ORDER BY id"):
        n.kernel[ref] = n.add(NodeKind.KERNEL, f"{op} {key}", file, line, None, ref, key)
    if definitions:
        for row in definition_nodes(conn, guards, name_lines):
            n.definition[row[5]] = n.add(*row)
    n.stub_names, rows = stub_names(conn)
    qualified = [n.stub_names.at_site(stub, scope) for stub, _kind, scope, _file, _line in rows]
    n.stub_names.declare_all(qualified)
    shown = n.stub_names.shown()
    for q, (_stub, _kind, _scope, file, line) in zip(qualified, rows):
        if q not in n.stub:
            n.stub[q] = n.add(NodeKind.STUB, shown[q], file, line, None, None, q)
    for family, callee in conn.execute("SELECT DISTINCT family, callee FROM library_calls ORDER BY family, callee"):
        n.library[(family, callee)] = n.add(NodeKind.LIBRARY, callee, None, None, None, None, family)
    for ref, op, file, line in conn.execute("SELECT id, op, file, line FROM derivatives ORDER BY id"):
        n.derivative[ref] = n.add(NodeKind.DERIVATIVE, op, file, line, None, ref, None)
    return n


def definition_nodes(conn: sqlite3.Connection, guards: dict[int, str], name_lines: bool, where: str = "",
                     params: tuple = ()) -> list[tuple]:
    """(kind, name, file, line, end_line, ref, detail) of the definitions' nodes, in id order (`where`: which)."""
    line_column = "CASE WHEN name_line > 0 THEN name_line ELSE line END" if name_lines else "line"
    return [(_DEFINITION_KINDS.get(kind, NodeKind.FUNCTION), qualified, file, line, end, ref, guards.get(ref))
            for ref, qualified, kind, file, line, end in conn.execute(
                f"SELECT id, qualified_name, kind, file, {line_column}, end_line FROM definitions {where} ORDER BY id",
                params)]


def temp_nodes(conn: sqlite3.Connection, table: str, ids: Iterable[int]) -> None:
    """The temporary table `table` (made when missing) holds these node ids, for a query to join on."""
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} (id INTEGER PRIMARY KEY)")
    conn.execute(f"DELETE FROM temp.{table}")
    conn.executemany(f"INSERT INTO temp.{table} VALUES (?)", [(n,) for n in ids])
