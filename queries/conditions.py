"""The conditions on a trace's hops: which branch picks a call, and where the names it tests get their values.

The extractor stores, per call of a def, the if/elif/else and conditional
expressions around it (py_branches) and, per def, the parameter defaults and
assignments of the names its tests read (py_flags). A trace's call and op
hops carry the conditions of their call (``calls _fused_adamw  [if fused and
not torch.jit.is_scripting()]``). The first hop to a Python def whose
conditions test a parameter (with a default) of the calling def also carries
that name's flags: the parameter's default, its assignments in the def
(``_, foreach = _default_to_fused_or_foreach(...)``), and the default of the
parameter of that name of the traced class's ``__init__`` (an optimizer's
``foreach=None``, which its param groups carry to the functional form).
"""

from __future__ import annotations

import ast
import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..indexer.facts import Location
from .results import Hop, HopKind

if TYPE_CHECKING:  # the CLI imports this module through render; python_api is loaded by a trace only
    from ..indexer.python_api import Condition


@dataclass(frozen=True)
class Flag:
    """Where a tested name gets a value: a parameter's default or an assignment, in `function`."""

    name: str  # foreach
    kind: str  # parameter or assign (FlagKind)
    text: str  # foreach=None; _, foreach = _default_to_fused_or_foreach(...)
    function: str  # the def it is written in
    location: Location
    conditions: tuple[Condition, ...] = ()  # the branches an assignment is under


@dataclass(frozen=True)
class BranchHop(Hop):
    """A hop whose call is picked by branches; flags: the values of the names they test, shown once per trace."""

    conditions: tuple[Condition, ...] = ()
    flags: tuple[Flag, ...] = ()


def _conditions(text: str) -> tuple[Condition, ...]:
    from ..indexer.python_api import BranchKind, Condition

    return tuple(Condition(BranchKind(c["kind"]), c["test"], tuple(c["negated"]), c["line"]) for c in json.loads(text))


def names_tested(conditions: tuple[Condition, ...]) -> list[str]:
    """The bare names the tests of conditions read, in order (a test that does not parse reads none)."""
    names: dict[str, None] = {}
    for c in conditions:
        for test in (c.test, *c.negated):
            try:
                tree = ast.parse(test, mode="eval")
            except SyntaxError:
                continue
            names.update((n.id, None) for n in ast.walk(tree) if isinstance(n, ast.Name))
    return list(names)


class Branches:
    """The conditions and flags of the defs a trace walks, read once per def from py_branches and py_flags."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._calls: dict[str, dict[tuple[str, int, str], tuple[Condition, ...]]] = {}
        self._flags: dict[str, list[Flag]] = {}
        self.shown: set[tuple[str, str]] = set()  # (def, name) whose flags a hop carries already
        self.init: str | None = None  # the traced class's __init__, whose parameter defaults a flag also shows

    def reset(self, init: str | None = None) -> None:
        self.shown, self.init = set(), init

    def of_call(self, caller: str, where: Location, target: str) -> tuple[Condition, ...]:
        if caller not in self._calls:
            rows = self.conn.execute("SELECT file, line, target, conditions FROM py_branches WHERE caller = ? "
                                     "ORDER BY id", (caller,)).fetchall()
            self._calls[caller] = {(f, ln, t): _conditions(c) for f, ln, t, c in rows}
        return self._calls[caller].get((where.file, where.line, target), ())

    def flags_of(self, function: str) -> list[Flag]:
        if function not in self._flags:
            rows = self.conn.execute("SELECT name, kind, text, file, line, conditions FROM py_flags WHERE function = ? "
                                     "ORDER BY id", (function,)).fetchall()
            self._flags[function] = [Flag(n, k, t, function, Location(f, ln), _conditions(c))
                                     for n, k, t, f, ln, c in rows]
        return self._flags[function]

    def hop(self, hop: Hop, caller: str, target: str) -> Hop:
        """hop with the conditions of its call; a hop to a Python def also with the flags not shown yet."""
        if hop.call is None:
            return hop
        conditions = self.of_call(caller, hop.call, target)
        if not conditions:
            return hop
        flags = self._flags_for(caller, conditions) if hop.kind in (HopKind.CALL, HopKind.BINDING) else []
        return BranchHop(**{k: getattr(hop, k) for k in hop.__dataclass_fields__}, conditions=conditions,
                         flags=tuple(flags))

    def _flags_for(self, caller: str, conditions: tuple[Condition, ...]) -> list[Flag]:
        """The flags of the tested names that are parameters of caller with a default, each name once per trace:
        the default, the assignments in caller, and the default of the traced class's __init__ parameter."""
        from ..indexer.python_api import FlagKind

        flags: list[Flag] = []
        for name in names_tested(conditions):
            own = [f for f in self.flags_of(caller) if f.name == name]
            if (caller, name) in self.shown or not any(f.kind == FlagKind.PARAMETER for f in own):
                continue
            self.shown.add((caller, name))
            flags.extend(own)
            if self.init and self.init != caller:
                flags.extend(f for f in self.flags_of(self.init) if f.name == name and f.kind == FlagKind.PARAMETER)
        return flags


def _condition_data(c: Condition) -> dict[str, Any]:
    return {"kind": c.kind, "test": c.test, "negated": list(c.negated), "line": c.line, "text": str(c)}


def hop_data(hop: Hop) -> dict[str, Any]:
    """The JSON fields a hop's conditions add: "conditions" (outermost first) and "flags"; {} for other hops."""
    if not isinstance(hop, BranchHop):
        return {}
    data: dict[str, Any] = {"conditions": [_condition_data(c) for c in hop.conditions]}
    if hop.flags:
        data["flags"] = [{"name": f.name, "kind": f.kind, "text": f.text, "function": f.function,
                          "file": f.location.file, "line": f.location.line,
                          "conditions": [_condition_data(c) for c in f.conditions]} for f in hop.flags]
    return data


def hop_text(hop: Hop, pad: str) -> str:
    """What a hop's conditions add to its text line: `  [if fused; ...]`, then a line per flag below it."""
    if not isinstance(hop, BranchHop):
        return ""
    from ..indexer.python_api import FlagKind

    out = "  [" + "; ".join(map(str, hop.conditions)) + "]"
    for f in hop.flags:
        what = f"parameter {f.text}" if f.kind == FlagKind.PARAMETER else f.text
        of = f" of {f.function}" if f.kind == FlagKind.PARAMETER else ""
        under = "  [" + "; ".join(map(str, f.conditions)) + "]" if f.conditions else ""
        out += f"\n{pad}    flag {f.name}: {what}{of}  {f.location}{under}"
    return out
