"""ops-for at query time: from a function, DispatchStub or __global__ kernel up to the (op, key) kernels reaching it.

The walk goes up by three kinds of edge: a stub's registered kernel to the
functions that call the stub (keeping the device the registration serves),
a function to its callers by name (only names specific enough to mean one
function), and a stub to the ops whose generated ufunc CPU kernel calls it.
Every limit of the walk that cuts something (callers per function, the
functions walked per level, --depth, names too common to walk by) comes back
as a Truncation.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from ..indexer import naming
from ..indexer.vocab import StubKind
from .chain import STOP_CALLS, is_cuda, device_of
from .match import suffix_args, suffix_clause
from .results import OpsFor, Reach, Truncation

CALLERS_PER_FUNCTION = 50  # callers by name followed from one function
FRONTIER = 300  # functions walked per level
NAME_DEFINITIONS = 3  # a name defined more often than this is not walked up by calls (it would mean any of them)

# (function, its file, the path below it, the device a stub hop pinned or None)
_Entry = tuple[str, str | None, tuple[str, ...], str | None]


@dataclass
class _Cuts:
    callers: dict[str, None] = field(default_factory=dict)  # functions with more callers than followed
    frontier: dict[str, None] = field(default_factory=dict)  # functions names from a level
    common: dict[str, None] = field(default_factory=dict)  # names not walked up by calls
    deep: int = 0  # functions at the last level, not walked further

    def truncations(self, depth: int) -> tuple[Truncation, ...]:
        cuts = []
        if self.callers:
            cuts.append(Truncation(f"callers by name not followed beyond {CALLERS_PER_FUNCTION} per function",
                                   CALLERS_PER_FUNCTION, tuple(self.callers)))
        if self.frontier:
            cuts.append(Truncation(f"functions not walked beyond {FRONTIER} per level", FRONTIER, tuple(self.frontier)))
        if self.common:
            cuts.append(Truncation(f"callers by name not walked: names with more than {NAME_DEFINITIONS} "
                                   "definitions", NAME_DEFINITIONS, tuple(self.common)))
        if self.deep:
            cuts.append(Truncation(f"walk stopped at --depth with {self.deep} functions whose callers were not "
                                   "looked at", depth))
        return tuple(cuts)


def _ufunc_kernel(stub: str) -> str | None:
    base = naming.stub_base(stub)
    return naming.ufunc_kernel(base, "CPU") if base else None


class Reverse:
    """From a function, stub or __global__ kernel up to the (op, key) kernels that reach it."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.kernels: dict[str, list[tuple[str, str]]] = {}
        for op, key, kernel in conn.execute("SELECT op, key, kernel FROM dispatch"):
            self.kernels.setdefault(kernel, []).append((op, key))

    def starts(self, name: str) -> list[tuple[str, str | None, str]]:
        """(function qualified name, its file or None, how it relates to name) to walk up from."""
        stem = name.split("::")[-1]
        out: list[tuple[str, str | None, str]] = []
        for caller, file in self.conn.execute("SELECT DISTINCT caller, file FROM stub_uses WHERE stub = ?", (stem,)):
            out.append((caller, file, f"uses {stem}"))
        for caller, file in self.conn.execute(
                "SELECT DISTINCT caller, file FROM launches WHERE caller IS NOT NULL AND "
                + suffix_clause("kernel"), suffix_args(stem)):
            out.append((caller, file, f"launches {stem}"))
        for qualified, file, line in self.conn.execute(
                "SELECT DISTINCT qualified_name, file, line FROM definitions WHERE name = ? OR qualified_name = ?",
                (stem, name)):
            out.append((qualified, file, f"defined at {file}:{line}"))
        return list(dict.fromkeys(out))

    def _generated_users(self, stub: str) -> list[tuple[str, str]]:
        """Ops whose generated ufunc CPU kernel calls this stub (<name>_stub for ufunc_inner_loop <name>)."""
        kernel = _ufunc_kernel(stub)
        return self.kernels.get(kernel, []) if kernel else []

    def _specific(self, qualified: str, stem: str, cuts: _Cuts) -> bool:
        """Walk up from a function only when its name is specific enough for calls by name to mean it:
        structured impl/meta functions are entered through the dispatcher, and generic names
        (dim, size, set, ...) would pull in half of the code base."""
        if naming.structured_member(qualified) or stem in STOP_CALLS or len(stem) < 4:
            return False
        count = self.conn.execute("SELECT count(DISTINCT qualified_name) FROM definitions WHERE name = ?",
                                  (stem,)).fetchone()[0]
        if count > NAME_DEFINITIONS:
            cuts.common[stem] = None
            return False
        return True

    def reach(self, name: str, depth: int = 4) -> OpsFor:
        hits: dict[tuple[str, str], Reach] = {}
        stem = name.split("::")[-1]
        for op, key in self._generated_users(stem):
            hits[(op, key)] = Reach(op, key, _ufunc_kernel(stem) or "", (f"generated ufunc kernel -> uses {stem}",))
        frontier: list[_Entry] = [(q, f, (q, how), "CUDA" if f and is_cuda(f) else None)
                                  for q, f, how in self.starts(name)]
        seen = {(q, f, d) for q, f, _p, d in frontier}
        cuts = _Cuts()
        for level in range(depth + 1):
            following: list[_Entry] = []
            for entry in frontier:
                self._hit(entry, hits)
                if level == depth:
                    continue
                following.extend(self._up_by_stub(entry, hits, seen))
                following.extend(self._up_by_calls(entry, seen, cuts))
            if level == depth:
                cuts.deep = len(frontier)
            for qualified, _f, _p, _d in following[FRONTIER:]:
                cuts.frontier[qualified] = None
            frontier = following[:FRONTIER]
        return OpsFor(name, tuple(sorted(hits.values(), key=lambda r: (r.op, r.key))), cuts.truncations(depth))

    def _hit(self, entry: _Entry, hits: dict[tuple[str, str], Reach]) -> None:
        qualified, _file, path, device = entry
        kernel = naming.kernel_of_definition(qualified)
        for op, key in self.kernels.get(kernel, []):
            if device is None or device_of(key) in (device, None):
                hits.setdefault((op, key), Reach(op, key, kernel, tuple(path)))

    def _up_by_stub(self, entry: _Entry, hits: dict[tuple[str, str], Reach], seen: set) -> list[_Entry]:
        """Registered as a stub's kernel: whoever calls the stub reaches it (on the registration's device)."""
        qualified, file, path, device = entry
        registered = self.conn.execute("SELECT DISTINCT stub, device, file FROM stubs WHERE kind = ? AND kernel = ?",
                                       (StubKind.REGISTER, qualified.split("::")[-1])).fetchall()
        if any(rfile == file for _s, _d, rfile in registered):  # registered where it is defined
            registered = [r for r in registered if r[2] == file]
        out: list[_Entry] = []
        for stub, dev, _rfile in registered:
            if device is not None and dev != device:
                continue
            if dev == "CPU":
                for op, key in self._generated_users(stub):
                    hits.setdefault((op, key), Reach(op, key, _ufunc_kernel(stub) or "",
                                                     (f"generated ufunc kernel -> uses {stub}", *path)))
            for caller, cfile in self.conn.execute("SELECT DISTINCT caller, file FROM stub_uses WHERE stub = ?",
                                                   (stub,)):
                if (caller, cfile, dev) not in seen:
                    seen.add((caller, cfile, dev))
                    out.append((caller, cfile, (caller, f"uses {stub}", *path), dev))
        return out

    def _up_by_calls(self, entry: _Entry, seen: set, cuts: _Cuts) -> list[_Entry]:
        """Callers by name; a function of an unnamed namespace is only called from its own file."""
        qualified, file, path, device = entry
        fn = qualified.split("::")[-1]
        if not self._specific(qualified, fn, cuts):
            return []
        sql = "SELECT DISTINCT caller, file FROM calls WHERE callee_name = ? AND caller IS NOT NULL"
        args: tuple = (fn,)
        if "(anonymous)" in qualified and file is not None:
            sql += " AND file = ?"
            args = (fn, file)
        rows = self.conn.execute(sql + f" LIMIT {CALLERS_PER_FUNCTION + 1}", args).fetchall()
        if len(rows) > CALLERS_PER_FUNCTION:
            cuts.callers[qualified] = None
        out: list[_Entry] = []
        for caller, cfile in rows[:CALLERS_PER_FUNCTION]:
            if (caller, cfile, device) not in seen:
                seen.add((caller, cfile, device))
                out.append((caller, cfile, (caller, *path), device))
        return out
