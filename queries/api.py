"""The read side: a small typed API over the index. Results are the frozen dataclasses of queries/results.py.

It reads SQLite through the standard library, on the guarded read-only
connection of queries/guard.py, so that a query process starts fast; the
tables are those of tg_index.schema.models. A damaged index or a missing
table is one TgIndexError naming the fix, never a raw sqlite3 error.

    from tg_index.queries.api import Index
    ix = Index.open()                 # the default checkout's index
    for answer in ix.kernels_for("add.out"):
        print(answer.op, [(k.key, k.kernel, k.origin) for k in answer.keys])
"""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, TypeVar

from ..indexer import codegen, naming
from ..indexer.errors import TgIndexError
from ..indexer.link.kinds import VIEW_COPY, EdgeKind, How, NodeKind
from ..indexer.facts import Location
from ..indexer.paths import DB_ENV, default_db
from ..indexer.vocab import OP_KINDS, DefinitionKind, Origin, StepKind, StubKind, StubUseHow
from ..schema.version import SCHEMA_VERSION
from . import guard
from .backward import BackwardUse, backward_of
from .chain import COMPOSITE, GENERATED, RUNS_ON, Linker, loop_names, ufunc_helpers
from .match import at_boundary, prefix_glob, shown, suffix_args, suffix_clause, user_glob
from .results import (META_STEP, Backward, Formula, Health, HopKind, KeyHealth, KernelInfo, KernelsFor, KeyKernel,
                      OpInfo, OpsFor, OpSummary, PartialFile, Reach, Step, StubInfo, StubSite, Symbol, Trace, TraceOp,
                      Truncation, TypeSet, Unresolved, Use, key_rank, to_data)

if TYPE_CHECKING:  # imported by the methods that use them: a kernels-for process needs neither
    from . import dispatch as dispatch_walk

_F = TypeVar("_F", bound=Callable[..., Any])

# The steps that are ops a kernel's own body calls (a redispatch, or an op named by a formula).
_OPS_CALLED = (StepKind.OP, StepKind.REDISPATCH)



def shared_chains(rows: list[KeyKernel]) -> tuple[KeyKernel, ...]:
    """Each key whose kernel, definition and chain equal an earlier key's gets `same_as` that key (its data stays
    whole; text and brief show the chain once)."""
    first: dict[tuple, list[KeyKernel]] = {}  # rows by what is cheap to hash; chains compared only within a group
    out = []
    for row in rows:
        group = first.setdefault((row.cpp_namespace, row.kernel, row.qualified_name, row.definition, row.note,
                                  len(row.chain), row.truncated), [])
        earlier = next((r for r in group if r.chain == row.chain), None)
        if earlier is not None:
            row = replace(row, same_as=earlier.key)
        else:
            group.append(row)
        out.append(row)
    return tuple(out)


def _unknown_value(what: str, value: str, known: Iterable[str], otherwise: str) -> str:
    """`unknown <what> 'value'; did you mean ...?`: the known names equal to it but for case, else those close to
    it (difflib); `otherwise` when none is."""
    import difflib

    names = sorted(set(known))
    close = [n for n in names if n.lower() == value.lower()] or difflib.get_close_matches(value, names, n=3, cutoff=0.6)
    return f"unknown {what} {shown(value)}; " + (f"did you mean {', '.join(repr(c) for c in close)}?" if close
                                                else otherwise)


def _reads(method: _F) -> _F:
    """A read of the index: a damaged file or a missing table becomes one line naming the fix."""
    @functools.wraps(method)
    def wrapper(self: Index, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise self.damaged(exc) from None
    return wrapper  # type: ignore[return-value]


class Index:
    """An open index database (read-only, through the guarded connection of queries/guard.py)."""

    def __init__(self, conn: sqlite3.Connection, path: Path, sql_guard: guard.Guard | None = None):
        self.conn = conn
        self.path = path
        self.guard = sql_guard if sql_guard is not None else guard.Guard(conn, path)
        self._linker: Linker | None = None
        self._backward: dict[str, tuple[Backward, ...]] = {}  # op -> backward_of (the database does not change)
        self._wrapped: dict[str, frozenset[str]] = {}  # op -> the keys with a generated wrapper (_generated_wrapper)
        self._ufunc_ops: dict[str, tuple[list[tuple], Location | None, str]] = {}  # op -> _ufunc_loops's answer
        self._key_names: dict[str, str] | None = None  # every dispatch key's name -> the key it names (_checked_keys)

    def linker(self) -> Linker:
        """One Linker per open index: what it looks up is cached, the database does not change."""
        if self._linker is None:
            self._linker = Linker(self.conn)
        return self._linker

    @classmethod
    def open(cls, path: Path | str | None = None) -> Index:
        db = Path(path).expanduser() if path is not None else default_db()
        if not db.is_file():
            raise TgIndexError(f"no index at {db}; run `tg-index` first (or pass --db / set {DB_ENV})")
        try:
            conn, sql_guard = guard.connect(db)
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError as exc:
            if "malformed" in str(exc):
                raise TgIndexError(f"the index at {db} is damaged ({exc}); rebuild it with `tg-index`") from None
            raise TgIndexError(f"{db} is not a tg-index database; rebuild it with `tg-index`") from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = row[0] if row else "none"
            raise TgIndexError(f"{db} was written with schema version {found}, this tg-query reads version "
                               f"{SCHEMA_VERSION}; rebuild it with `tg-index`")
        return cls(conn, db, sql_guard)

    def damaged(self, exc: sqlite3.DatabaseError) -> TgIndexError:
        """What a failed read of the index means, as one line naming the fix."""
        message = str(exc)
        if message.startswith(("no such table", "no such column")):
            return TgIndexError(f"the index at {self.path} lacks what tg-query reads ({message}); "
                                "rebuild it with `tg-index`")
        return TgIndexError(f"the index at {self.path} is damaged ({message}); rebuild it with `tg-index`")

    # -- lookups ---------------------------------------------------------------------------------

    @_reads
    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta ORDER BY key"))

    @_reads
    def resolve(self, name: str) -> list[str]:
        """`aten::add.out` / `add.out` -> [that op]; a bare `add` -> every overload of add."""
        name = name.strip().removeprefix("aten::")
        if "." in name:
            row = self.conn.execute("SELECT name FROM ops WHERE name = ?", (name,)).fetchone()
            found = [row[0]] if row else []
        else:
            found = [r[0] for r in self.conn.execute("SELECT name FROM ops WHERE base = ? ORDER BY id", (name,))]
        if not found:
            raise TgIndexError(self._unknown(name))
        return found

    def _checked_keys(self, keys: tuple[str, ...]) -> tuple[str, ...]:
        """The dispatch keys asked for, each as the key it names (a synonym of c10/core/DispatchKey.h is its key:
        CPUTensorId is CPU); a name that is no key of the checkout is an error naming the keys it is close to
        (`cuda`: CUDA). Checked against the keys the index read from DispatchKey.h and those its tables name;
        an index without DispatchKey.h's keys (a checkout without c10) takes the names as given."""
        if not keys:
            return keys
        if self._key_names is None:
            self._key_names = {name: same_as or name for name, same_as in self.conn.execute(
                "SELECT name, same_as FROM dispatch_keys")}
            if self._key_names:
                for (name,) in self.conn.execute("SELECT key FROM dispatch UNION SELECT key FROM dispatch_table"):
                    self._key_names.setdefault(name, name)
        if not self._key_names:
            return keys
        for key in keys:
            if key not in self._key_names:
                raise TgIndexError(_unknown_value("dispatch key", key, self._key_names,
                                                  'see `tg-query sql "SELECT name, kind FROM dispatch_keys"`'))
        return tuple(dict.fromkeys(self._key_names[key] for key in keys))

    def _unknown(self, name: str) -> str:
        if not name.strip():
            return f"unknown op {shown(name)}: an op name is needed (add.out); try `tg-query ops --name PATTERN`"
        names = [r[0] for r in self.conn.execute("SELECT name FROM ops")]
        import difflib

        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        if not close:
            close = sorted(n for n in names if n.startswith(name.split(".")[0]))[:3]
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "; try `tg-query ops --name PATTERN`"
        return f"unknown op {shown(name)}{hint}"

    def _op_row(self, name: str) -> sqlite3.Row:
        self.conn.row_factory = sqlite3.Row
        try:
            return self.conn.execute("SELECT * FROM ops WHERE name = ?", (name,)).fetchone()
        finally:
            self.conn.row_factory = None

    def _tags(self, op_id: int) -> tuple[str, ...]:
        return tuple(r[0] for r in self.conn.execute("SELECT tag FROM op_tags WHERE op_id = ? ORDER BY tag", (op_id,)))

    @_reads
    def backward(self, name: str) -> tuple[Backward, ...]:
        out = []
        rows = self.conn.execute(
            "SELECT id, op, signature, dispatch_key, output_differentiability, saved_results, file, line "
            "FROM derivatives WHERE op = ? ORDER BY id", (name,)).fetchall()
        for did, op, sig, key, diff, saved, file, line in rows:
            formulas = tuple(Formula(tuple(json.loads(n)), k, f, Location(fl, ln)) for n, k, f, fl, ln in
                             self.conn.execute("SELECT names, kind, formula, file, line FROM derivative_formulas "
                                               "WHERE derivative_id = ? ORDER BY id", (did,)))
            out.append(Backward(op, sig, key, None if diff is None else tuple(json.loads(diff)),
                                tuple(json.loads(saved)), formulas, Location(file, line)))
        return tuple(out)

    @_reads
    def op(self, name: str) -> list[OpInfo]:
        """The entries a name resolves to, with overload siblings and derivatives."""
        out = []
        for op_name in self.resolve(name):
            r = self._op_row(op_name)
            siblings = tuple(s[0] for s in self.conn.execute(
                "SELECT name FROM ops WHERE base IN (?, ?) AND name != ? ORDER BY id",
                (r["base"].rstrip("_"), r["base"].rstrip("_") + "_", op_name)))
            out.append(OpInfo(
                name=r["name"], func=r["func"], kind=r["kind"], variants=tuple(json.loads(r["variants"])),
                tags=self._tags(r["id"]), structured=bool(r["structured"]),
                structured_delegate=r["structured_delegate"], structured_inherits=r["structured_inherits"],
                python_module=r["python_module"], generated_from=r["generated_from"],
                autogen=tuple(json.loads(r["autogen"])), ufunc_inner_loop=tuple(json.loads(r["ufunc_inner_loop"])),
                fields=json.loads(r["raw"]), location=Location(r["file"], r["line"]), siblings=siblings,
                backward=self.backward(op_name)))
        return out

    @_reads
    def dispatch(self, op_name: str) -> tuple[KeyKernel, ...]:
        return tuple(KeyKernel(k, kern, o, ns, via, Location(f, ln)) for k, kern, o, ns, via, f, ln in
                     self.conn.execute("SELECT key, kernel, origin, cpp_namespace, via, file, line FROM dispatch "
                                       "WHERE op = ? ORDER BY id", (op_name,)))

    @_reads
    def kernels_for(self, name: str, keys: tuple[str, ...] = (), depth: int = 8) -> list[KernelsFor]:
        """For each op the name resolves to: every (op, key) with the kernel's definition and the chain
        below it (stubs, registered kernels, launches, dtypes, library calls), the meta function, the backward."""
        keys = self._checked_keys(keys)
        return [self._kernels_for_op(op_name, keys, depth) for op_name in self.resolve(name)]

    def _kernels_for_op(self, op_name: str, keys: tuple[str, ...], depth: int,
                        runs_on: str | None = None) -> KernelsFor:
        """`runs_on`: the runtime key a composite kernel is asked for by (`CPU <- CompositeExplicitAutograd`): its
        chain is walked for that key's device, as the dispatcher runs it there (its stubs and redispatches reach
        that device's kernels; the redispatches of every helper it calls are followed, chain._body)."""
        linker = self.linker()
        func, file, line, structured, delegate = self.conn.execute(
            "SELECT func, file, line, structured, structured_delegate FROM ops WHERE name = ?", (op_name,)).fetchone()
        rows = []
        meta = None
        linker.op_definitions(op_name, func, depth)  # every key's definition at once
        for k, kern, origin, ns, via, f, ln, is_structured in self.conn.execute(
                "SELECT key, kernel, origin, cpp_namespace, via, file, line, structured FROM dispatch "
                "WHERE op = ? ORDER BY id", (op_name,)).fetchall():
            if origin == Origin.META:
                found, _reason, _n = linker.definition(k, kern, ns, origin, True)
                if found is not None:
                    meta = Step(META_STEP, found.qualified_name, found.loc)
            if keys and k not in keys:
                continue
            rows.append(self._key_chain(linker, func, k, kern, origin, ns, via, Location(f, ln),
                                        bool(is_structured), depth, op_name,
                                        f"{runs_on}{RUNS_ON}{k}" if runs_on is not None and k in COMPOSITE else k))
        if keys:  # a runtime key the yaml does not name: the computed dispatch table's entry (queries/dispatch.py)
            from . import dispatch as dispatch_walk

            rows.extend(dispatch_walk.computed_keys(self, op_name, keys, {r.key for r in rows}, depth))
        rows.sort(key=lambda r: key_rank(r.key))  # stable: keys outside KEY_ORDER keep the yaml's order
        backward = self.backward_of(op_name)
        formulas = [fm.formula for b in backward if b.applies_as != BackwardUse.OUT for fm in b.formulas]
        return KernelsFor(op_name, func, Location(file, line), bool(structured), delegate, shared_chains(rows),
                          backward, meta, tuple(linker.formula_calls(formulas)))

    @_reads
    def dispatch_walk(self, name: str, device: str = "cpu", *, requires_grad: bool = False, autocast: bool = False,
                      inference_mode: bool = False, functionalize: bool = False, vmap: bool = False,
                      depth: int = 8) -> list[dispatch_walk.DispatchWalk]:
        """The keys a call of each op the name resolves to visits, and the handling kernel's chain."""
        from . import dispatch as dispatch_walk

        flags = dispatch_walk.Flags(device, requires_grad, autocast, inference_mode, functionalize, vmap)
        return dispatch_walk.walks(self, name, flags, depth)

    @_reads
    def backward_of(self, op_name: str) -> tuple[Backward, ...]:
        """The derivatives.yaml entries the op's autograd kernel uses: its own, or the one tools/autograd lends it
        (in-place and out= forms take the functional form's; see queries/backward.py), each labelled."""
        if op_name not in self._backward:
            if self.conn.execute("SELECT 1 FROM ops WHERE name = ?", (op_name,)).fetchone() is None:
                raise TgIndexError(self._unknown(op_name))
            self._backward[op_name] = backward_of(self.conn, op_name)
        return self._backward[op_name]

    def _key_chain(self, linker: Linker, func: str, key: str, kernel: str, origin: str,
                   ns: str, via: str | None, where: Location, structured: bool, depth: int,
                   op_name: str, walk_key: str) -> KeyKernel:
        """The (op, key) row's kernel and its chain, walked for `walk_key` (the key, or
        `CPU <- CompositeExplicitAutograd`: the runtime key that runs a composite kernel and that kernel's key)."""
        found, reason, candidates = linker.definition(key, kernel, ns, origin, structured, func)
        if found is None:
            cuts: tuple[Truncation, ...] = ()
            if reason == GENERATED and origin in (Origin.AUTOGEN, Origin.YAML):  # autogen; view_copy (yaml)
                steps, cuts = linker.generated_chain(op_name, key, depth, walk_key)
                chain = tuple(steps)
            elif reason == GENERATED:
                chain, cuts = self._generated_chain(op_name if via is None else via, key, depth)
            else:
                chain = ()
            note = reason
            if reason == GENERATED:
                note = ("generated by torchgen for autogen" if origin == Origin.AUTOGEN else
                        VIEW_COPY if origin == Origin.YAML else "generated at build time from ufunc_inner_loop")
            return KeyKernel(key, kernel, origin, ns, via, where, None, None, note, chain, cuts,
                             wrapper=self._generated_wrapper(op_name, key))
        below, cuts = linker.chain(found, walk_key, depth, kernel=True)
        called = linker.ops_called(found)
        steps = called + [s if s.parent is None else replace(s, parent=s.parent + len(called)) for s in below] \
            if called else below  # the steps below keep their parents' indexes when nothing comes before them
        note = linker.candidates_note(found, candidates, key) if candidates > 1 else None
        return KeyKernel(key, kernel, origin, ns, via, where, found.loc, found.qualified_name, note, tuple(steps), cuts,
                         wrapper=self._generated_wrapper(op_name, key))

    def _generated_wrapper(self, op_name: str, key: str) -> Step | None:
        """The wrapper torchgen registers for (op, key) when --codegen's Register<Key>.cpp is indexed: its
        definition, with the m.impl line as the site (None without --codegen's files). The op's keys that have
        such an m.impl are asked for once, in one statement for all of them (an index without --codegen's files
        has none, and the join below is not run)."""
        keys = self._wrapped.get(op_name)
        if keys is None:
            keys = self._wrapped[op_name] = frozenset(r[0] for r in self.conn.execute(
                "SELECT DISTINCT dispatch_key FROM registrations WHERE op = ? AND kind = 'impl' AND file LIKE ?",
                (op_name, f"{codegen.PREFIX}/%")))
        if key not in keys:
            return None
        row = self.conn.execute(
            "SELECT d.qualified_name, d.file, d.line, r.line FROM registrations r JOIN definitions d "
            "ON d.file = r.file AND d.name = r.function WHERE r.kind = 'impl' AND r.dispatch_key = ? AND r.op = ? "
            "AND r.file LIKE ? ORDER BY d.line LIMIT 1", (key, op_name, f"{codegen.PREFIX}/%")).fetchone()
        if row is None:
            return None
        name, file, line, impl_line = row
        return Step(StepKind.REGISTERED, name, Location(file, line), detail="generated wrapper",
                    how=How.GENERATED, site=Location(file, impl_line))

    def _ufunc_loops(self, op_name: str) -> tuple[list[tuple], Location | None, str]:
        """An op's ufunc_inner_loop entries (ufunc key, name, dtypes), its ufunc dispatch row's place and the op's
        name its generated stub and kernel are named by (chain.ufunc_stub_loops), read once (its CPU and CUDA
        kernels both ask)."""
        got = self._ufunc_ops.get(op_name)
        if got is None:
            rows = self.conn.execute(
                "SELECT l.ufunc_key, l.name, l.dtypes, k.file, k.line, o.base FROM ufunc_loops l JOIN ops o "
                "ON o.id = l.op_id LEFT JOIN dispatch k ON k.id = (SELECT id FROM dispatch WHERE op = o.name AND "
                "origin = ? LIMIT 1) WHERE o.name = ? ORDER BY l.id", (Origin.UFUNC, op_name)).fetchall()
            where = Location(rows[0][3], rows[0][4]) if rows and rows[0][3] is not None else None
            got = self._ufunc_ops[op_name] = ([r[:3] for r in rows], where, rows[0][5] if rows else "")
        return got

    def _generated_chain(self, op_name: str, key: str,
                         depth: int = 8) -> tuple[tuple[Step, ...], tuple[Truncation, ...]]:
        """ufunc kernels: CPU goes through <name>_stub to a generated kernel, CUDA is a generated gpu kernel;
        both run the ufunc:: functions of native/ufunc/ over the dtypes of ufunc_inner_loop. With what the walks
        below the helpers left out."""
        loops, where, base = self._ufunc_loops(op_name)
        if not loops or where is None:
            return (), ()
        stub, names = naming.ufunc_stub(base), loop_names(loops)
        steps = []
        truncated: list[Truncation] = []
        kernel = naming.ufunc_kernel(op_name.split(".")[0], key) if key in naming.UFUNC_KEYS else key
        keys = {k for k, _n, _d in loops}
        if key == "CPU":
            steps.append(Step(StepKind.GENERATED, f"{kernel}: structured impl calling {stub}", where, "CPU"))
            for f, ln in self.conn.execute("SELECT file, line FROM stubs WHERE stub = ? AND kind = ?",
                                           (stub, StubKind.DECLARE)):
                steps.append(Step(StepKind.STUB, stub, Location(f, ln), detail="registered by generated code"))
            steps.append(Step(StepKind.REGISTERED, f"{naming.ufunc_stub_kernel(base)} [generated]", where, "CPU",
                              "every capability"))
        else:
            steps.append(Step(StepKind.GENERATED, f"{kernel}: gpu_kernel over "
                              f"{', '.join(f'ufunc::{n}' for n in names)}", where, key))
        for helper in ufunc_helpers(keys, key != "CPU"):  # the helpers the generated kernel calls
            # the generated kernel (the last step so far) calls the helper
            below, cuts = self.linker().helper_chain(helper, key, depth, "called by the generated kernel",
                                                     len(steps) - 1, len(steps))
            steps.extend(below)
            truncated.extend(c for c in cuts if c not in truncated)
        for ufunc_key, loop_name, dtypes in loops:
            steps.append(Step(StepKind.DTYPES, f"{ufunc_key}: {loop_name}", where, detail=", ".join(json.loads(dtypes))))
        for q, at in (f for name in names for f in self.linker().ufunc_functions(name)):
            steps.append(Step(StepKind.UFUNC, q, at))
        return tuple(steps), tuple(truncated)

    @_reads
    def ops(self, *, key: str | None = None, tag: str | None = None, structured: bool | None = None,
            kind: str | None = None, origin: str | None = None, name: str | None = None,
            python_module: str | None = None) -> list[OpSummary]:
        """A filtered list of ops. name is a glob (`*_backward*`, SQLite's GLOB: case-sensitive). A value that
        no op of any checkout could match (a key that is none of the checkout's, a kind, origin, tag or Python
        module the index does not know) is an error, not an empty list."""
        if key:
            (key,) = self._checked_keys((key,))
        if kind:
            self._check_value("kind", kind, (*OP_KINDS, *(r[0] for r in self.conn.execute(
                "SELECT DISTINCT kind FROM ops"))), f"one of: {', '.join(OP_KINDS)}")
        if origin:
            self._check_value("origin", origin, [str(o) for o in Origin], f"one of: {', '.join(str(o) for o in Origin)}")
        if tag:
            self._check_value("tag", tag, [r[0] for r in self.conn.execute("SELECT name FROM tags UNION SELECT tag FROM "
                                                                            "op_tags")],
                              "see `tg-query sql \"SELECT name, description FROM tags\"`")
        if python_module:
            modules = [r[0] for r in self.conn.execute("SELECT DISTINCT python_module FROM ops WHERE python_module != ''")]
            self._check_value("Python module", python_module, modules, f"one of: {', '.join(sorted(modules))}")
        filters = [
            (key, "o.id IN (SELECT op_id FROM dispatch WHERE key = ?)"),
            (origin, "o.id IN (SELECT op_id FROM dispatch WHERE origin = ?)"),
            (tag, "o.id IN (SELECT op_id FROM op_tags WHERE tag = ?)"),
            (None if structured is None else int(structured), "o.structured = ?"),
            (kind, "o.kind = ?"),
            (None if name is None else user_glob(name, "--name"), "o.name GLOB ?"),
            (python_module, "o.python_module = ?"),
        ]
        where = [clause for value, clause in filters if value is not None and value != ""]
        args = [value for value, _clause in filters if value is not None and value != ""]
        sql = "SELECT o.id, o.name, o.kind, o.structured, o.file, o.line FROM ops o"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.conn.execute(sql + " ORDER BY o.id", args).fetchall()
        return [OpSummary(n, k, bool(s), self._tags(i), Location(f, ln)) for i, n, k, s, f, ln in rows]

    @staticmethod
    def _check_value(what: str, value: str | None, known: Iterable[str], otherwise: str) -> None:
        """An error when value (a filter asked for) is none of the known ones (nothing known: nothing checked)."""
        names = set(known)
        if value and names and value not in names:
            raise TgIndexError(_unknown_value(what, value, names, otherwise))

    @_reads
    def doctor(self, keys: tuple[str, ...] = ()) -> Health:
        """Every (op, key) whose kernel has no definition in the checkout, with the reason; counts per key;
        the files whose extraction failed. The whole file is checked first (PRAGMA quick_check)."""
        check = self.conn.execute("PRAGMA quick_check(1)").fetchone()[0]
        if check != "ok":
            found = " ".join(check.replace("*** in database main ***", "").split())
            raise TgIndexError(f"the index at {self.path} is damaged (quick_check: {found}); rebuild it with `tg-index`")
        keys = self._checked_keys(keys)
        linker = self.linker()
        counts: dict[str, list[int]] = {}
        missing = []
        for op, key, kernel, origin, ns, structured, file, line in self.conn.execute(
                "SELECT op, key, kernel, origin, cpp_namespace, structured, file, line FROM dispatch ORDER BY id"
                ).fetchall():
            if keys and key not in keys:
                continue
            found, reason, _n = linker.definition(key, kernel, ns, origin, bool(structured))
            c = counts.setdefault(key, [0, 0, 0, 0])
            c[0] += 1
            if found is not None:
                c[1] += 1
            elif reason == GENERATED:
                c[2] += 1
            else:
                c[3] += 1
                missing.append(Unresolved(op, key, kernel, origin, reason, Location(file, line)))
        health = tuple(KeyHealth(k, *v) for k, v in sorted(counts.items(), key=lambda kv: -kv[1][0]))
        partial = tuple(PartialFile(f, st) for f, st in self.conn.execute(
            "SELECT path, status FROM files WHERE substr(status, 1, 7) = 'partial' ORDER BY path"))
        from .graph_health import call_shares

        return Health(health, tuple(missing), partial, call_shares(self.conn))

    @_reads
    def ops_for(self, name: str, depth: int = 12) -> OpsFor:
        """The (op, key) kernels whose chain reaches a function, stub or __global__ kernel (iterate for the hits)."""
        from .reverse import Reverse

        reverse = Reverse(self.conn)
        if not reverse.starts(name) and not reverse.generated(name) and reverse.generated_registered(name) is None:
            raise TgIndexError(f"no function, stub or kernel named {shown(name)}" + self._close(
                name, "SELECT DISTINCT name FROM definitions WHERE name GLOB ?"))
        return reverse.reach(name, depth)

    @_reads
    def trace(self, name: str, keys: tuple[str, ...] = (), depth: int = 8, chain: bool = False,
              hops: int = 8) -> Trace:
        """A Python name (torch.nn.LayerNorm, F.cross_entropy, torch.add, Tensor.matmul, _VF.lstm,
        torch.ops.aten.mm) -> its Python hops, the aten ops they reach, and each op's kernels-for answer
        (the chain below each kernel only with chain=True; depth and keys as for kernels_for)."""
        from .trace import PyLinker  # the Python layer's vocabulary: imported by the questions that need it

        keys = self._checked_keys(keys)
        linker = PyLinker(self.conn, hops)
        found = linker.trace(name)
        ops = []
        for ref in found.ops:
            base, _overload = naming.split_op(ref.ops[0])
            answers = tuple(a for a in self.kernels_for(base, keys, depth if chain else 0) if a.op in ref.ops)
            reached_by = tuple(dict.fromkeys(h.target for h in found.hops if h.kind == HopKind.OP
                                             and h.name == ref.spec and h.target))
            # decompositions of the op, and of the ops its CompositeImplicitAutograd kernel calls
            below = dict.fromkeys(s.name for a in answers for k in a.keys if k.key.startswith("CompositeImplicit")
                                  for s in k.chain if s.kind in _OPS_CALLED and s.depth == 0)
            decomps = linker.decomps(ref.spec) + tuple(d for b in below for d in linker.decomps(b))
            ops.append(TraceOp(ref.spec, reached_by, answers, decomps, ref.plumbing))
        return Trace(name, found.resolved, found.hops, tuple(ops), chain, found.truncated)

    # -- C++/CUDA ------------------------------------------------------------------------------

    def _close(self, name: str, sql: str) -> str:
        """'; did you mean ...?' from the names that share the first three characters (sql takes a GLOB)."""
        stem = name.split("::")[-1]
        candidates = [r[0] for r in self.conn.execute(sql, (prefix_glob(stem[:3]),))]
        import difflib

        close = difflib.get_close_matches(stem, candidates, n=3, cutoff=0.6)
        return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""

    def _symbols(self, where: str, args: tuple[Any, ...]) -> list[Symbol]:
        return [Symbol(n, q, k, sig, tuple(json.loads(qual)), mac, Location(f, ln), end)
                for n, q, k, sig, qual, mac, f, ln, end in self.conn.execute(
                    "SELECT name, qualified_name, kind, signature, qualifiers, macro, file, line, end_line "
                    f"FROM definitions WHERE {where} ORDER BY file, line", args)]

    @_reads
    def symbol(self, name: str, kind: str | None = None) -> list[Symbol]:
        """Definitions named exactly `name`, or whose qualified name is it or ends with `::name`; of one kind
        (DefinitionKind; another is an error)."""
        kinds = [str(k) for k in DefinitionKind]
        self._check_value("definition kind", kind, kinds, f"one of: {', '.join(kinds)}")
        where = "(name = ? OR " + suffix_clause("qualified_name") + ")"
        args: tuple[Any, ...] = (name, *suffix_args(name))
        if kind:
            where += " AND kind = ?"
            args += (kind,)
        found = self._symbols(where, args)
        if not found and kind:
            others = sorted({s.kind for s in self.symbol(name)})  # (an error itself when there is none)
            raise TgIndexError(f"no {kind} definition named {shown(name)}; its definitions are of kind "
                               f"{', '.join(others)}")
        if not found:
            raise TgIndexError(f"no definition named {shown(name)}" + (self._generated_note(name) or self._close(
                name, "SELECT DISTINCT name FROM definitions WHERE name GLOB ?")))
        return found

    def _generated_note(self, name: str) -> str | None:
        """Why a kernel PyTorch's build generates has no definition in the checkout: `; torchgen generates it ...`
        (a ufunc_inner_loop op's kernels, ufunc_add_CPU, and the kernel registered for its stub, add_kernel), or
        None for another name."""
        from .reverse import Reverse

        reverse = Reverse(self.conn)
        rows = reverse.generated(name)
        if rows:
            uses = ", ".join(dict.fromkeys(f"{op} ({key})" for op, key, _kernel in rows[:3]))
            return (f"; torchgen generates it from native_functions.yaml's ufunc_inner_loop, as the kernel of {uses}"
                    f"{' ...' if len(rows) > 3 else ''}: see `tg-query kernels-for {rows[0][0]}`")
        stub = reverse.generated_registered(name)
        if stub is not None:
            return (f"; torchgen generates it from native_functions.yaml's ufunc_inner_loop and registers it for "
                    f"{stub} on CPU and CUDA: see `tg-query stub {stub}`, `tg-query ops-for {name}`")
        return None

    @_reads
    def stub(self, name: str) -> StubInfo:
        """A DispatchStub: declaration, definition, every registration per device and CPU capability, callers.
        The name is the one its graph node shows or its qualified name's last components (indexer/link/stubs.py);
        a name two stubs share (`copy_stub`: at::native's and at::native::cpublas's) must say which."""
        found = self.conn.execute(
            "SELECT id, name, detail FROM nodes WHERE kind = ? AND (name = ? OR detail = ? OR substr(detail, -?) = ?) "
            "ORDER BY id", (NodeKind.STUB, name, name, len(name) + 2, "::" + name)).fetchall()
        if not found:
            raise TgIndexError(f"no dispatch stub named {shown(name)}" + self._close(
                name, "SELECT DISTINCT stub FROM stubs WHERE stub GLOB ?"))
        if len(found) > 1:
            raise TgIndexError(f"{shown(name)} names {len(found)} dispatch stubs: "
                               f"{', '.join(f'{n} ({q})' for _i, n, q in found)}; ask for one of them")
        node, shown_name, qualified = found[0]
        last = (qualified or shown_name).rsplit("::", 1)[-1]
        places = {(f, ln) for f, ln in self.conn.execute(
            "SELECT file, line FROM edges WHERE src = ? AND kind IN (?, ?, ?)",
            (node, EdgeKind.DECLARED_AT, EdgeKind.DEFINED_AT, EdgeKind.REGISTERS))}
        uses = {(f, ln) for f, ln in self.conn.execute(
            "SELECT file, line FROM edges WHERE dst = ? AND kind = ?", (node, EdgeKind.USES_STUB))}
        sites = [StubSite(k, mac, dev, arch, kern, bool(null), Location(f, ln))
                 for k, mac, dev, arch, kern, null, f, ln in self.conn.execute(
                     "SELECT kind, macro, device, arch, kernel, is_nullptr, file, line FROM stubs "
                     "WHERE stub = ? OR substr(stub, -?) = ? ORDER BY file, line, device, arch",
                     (last, len(last) + 2, "::" + last)) if (f, ln) in places]
        callers = tuple(Use(c, shown_name, how, Location(f, ln)) for c, how, f, ln in self.conn.execute(
            "SELECT caller, how, file, line FROM stub_uses WHERE stub = ? ORDER BY file, line", (last,))
            if (f, ln) in uses)
        sites += self._generated_stub_sites(last, sites)
        return StubInfo(shown_name, tuple(s for s in sites if s.kind == StubKind.DECLARE),
                        tuple(s for s in sites if s.kind == StubKind.DEFINE),
                        tuple(s for s in sites if s.kind == StubKind.REGISTER), callers)

    def _generated_stub_sites(self, stub: str, sites: list[StubSite]) -> list[StubSite]:
        """A ufunc_inner_loop op's stub (add_stub) is defined and registered by the code torchgen writes for the op
        (torchgen/dest/ufunc.py: compute_ufunc_cpu's DEFINE_DISPATCH, and REGISTER_DISPATCH(add_stub, &add_kernel)
        in the CPU and the CUDA kernel files), not in the checkout: those sites, at the op's entry in
        native_functions.yaml as kernels-for shows them, where the sources have none of their own."""
        loops = self.linker().ufunc_loops().get(stub)
        if not loops:
            return []
        at, base = loops[0][3], naming.stub_base(stub)
        macro = f"{{}} [generated by torchgen from {base}'s ufunc_inner_loop]"
        made = []
        if not any(s.kind == StubKind.DEFINE for s in sites):
            made.append(StubSite(StubKind.DEFINE, macro.format("DEFINE_DISPATCH"), None, None, None, False, at))
        for device in ("CPU", "CUDA"):
            if not any(s.kind == StubKind.REGISTER and s.device == device for s in sites):
                made.append(StubSite(StubKind.REGISTER, macro.format("REGISTER_DISPATCH"), device,
                                     "every capability" if device == "CPU" else None, naming.ufunc_stub_kernel(base),
                                     False, at))
        return made

    @_reads
    def kernel(self, name: str) -> KernelInfo:
        """A __global__ kernel (or a functor run by a launch helper): definition, launch sites, dtypes."""
        defs = self._symbols("kind = ? AND (name = ? OR qualified_name = ?)", (DefinitionKind.GLOBAL_KERNEL, name, name))
        launches = [Use(c, k or name, kind, Location(f, ln)) for kind, k, c, f, ln in self.conn.execute(
            "SELECT kind, kernel, caller, file, line FROM launches WHERE kernel = ? ORDER BY file, line", (name,))]
        if not defs and not launches:
            raise TgIndexError(f"no __global__ kernel or launched functor named {shown(name)}" + self._close(
                name, f"SELECT DISTINCT name FROM definitions WHERE kind = '{DefinitionKind.GLOBAL_KERNEL}' "
                      "AND name GLOB ?"))
        launchers = sorted({u.caller for u in launches if u.caller})
        dtypes: list[TypeSet] = []
        for caller in launchers:
            dtypes.extend(TypeSet(mac, tuple(json.loads(dt)), nm, fn, Location(f, ln)) for mac, dt, nm, fn, f, ln in
                          self.conn.execute("SELECT macro, dtypes, name, caller, file, line FROM type_dispatch "
                                            "WHERE caller = ? ORDER BY file, line", (caller,)))
        return KernelInfo(name, tuple(defs), tuple(launches), tuple(dtypes))

    @_reads
    def callers(self, name: str) -> list[Use]:
        """Call sites of a function by name: the last component, narrowed by a qualified suffix
        (`blas::gemm` matches `at::cuda::blas::gemm`, not `cublas::gemm`)."""
        stem = name.split("::")[-1]
        rows = self.conn.execute("SELECT caller, callee, file, line FROM calls WHERE callee_name = ? "
                                 "ORDER BY file, line", (stem,)).fetchall()
        if "::" in name:
            rows = [r for r in rows if at_boundary(r[1].split("<")[0], name)]
        if not rows:
            raise TgIndexError(f"no calls of {shown(name)}" + self._close(
                name, "SELECT DISTINCT callee_name FROM calls WHERE callee_name GLOB ?"))
        return [Use(c, callee, StubUseHow.CALL, Location(f, ln)) for c, callee, f, ln in rows]

    def sql(self, query: str, params: tuple[Any, ...] = (),
            timeout: float = guard.DEFAULT_TIMEOUT) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Ad-hoc SQL through the guard: read-only, no ATTACH, no state-changing PRAGMA, at most `timeout`
        seconds (Ctrl-C stops it): (column names, rows). Anything else is a one-line TgIndexError."""
        return self.guard.run(query, params, timeout)

    def export(self, table: str) -> Iterator[dict[str, Any]]:
        """JSON-ready rows of an export table (see EXPORTS)."""
        if table not in EXPORTS:
            import difflib

            close = difflib.get_close_matches(table, EXPORTS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TgIndexError(f"unknown export {shown(table)}{hint} (one of: {', '.join(EXPORTS)})")
        return self._export_rows(EXPORTS[table])

    def _export_rows(self, sql: str) -> Iterator[dict[str, Any]]:
        try:
            cur = self.conn.execute(sql)
            columns = [d[0] for d in cur.description]
            for row in cur:
                data = dict(zip(columns, row))
                if "dtypes" in data:
                    data["dtypes"] = json.loads(data["dtypes"])
                yield data
        except sqlite3.DatabaseError as exc:
            raise self.damaged(exc) from None


EXPORTS: dict[str, str] = {
    "dispatch": "SELECT op, key, kernel, origin FROM dispatch ORDER BY id",
    "definitions": "SELECT name, qualified_name, kind, file, line, end_line FROM definitions ORDER BY id",
    "stubs": "SELECT stub, kind, macro, device, arch, kernel, file, line FROM stubs ORDER BY id",
    "launches": "SELECT kind, kernel, caller AS function, file, line FROM launches ORDER BY id",
    "registrations": "SELECT kind, macro, namespace, dispatch_key AS key, op, function, file, line "
                     "FROM registrations ORDER BY id",
    "dispatcher": "SELECT op, key, kind, source, generator, kernel, file, line, fallthrough "
                  "FROM dispatcher_registrations ORDER BY id",
    "type-dispatch": "SELECT macro, dtypes, name, caller AS function, file, line FROM type_dispatch ORDER BY id",
    "calls": "SELECT caller, callee, callee_name, file, line FROM calls ORDER BY id",
    "library-calls": "SELECT family, callee, caller AS function, file, line FROM library_calls ORDER BY id",
    "ops": "SELECT name, func, kind, structured, structured_delegate, file, line FROM ops ORDER BY id",
    "derivatives": "SELECT d.op, d.dispatch_key, f.names, f.kind, f.formula, f.file, f.line "
                   "FROM derivatives d JOIN derivative_formulas f ON f.derivative_id = d.id ORDER BY f.id",
    "dispatch-table": "SELECT op, key, kind, fallthrough, from_key, kernel, file, line FROM dispatch_table ORDER BY id",
}

__all__ = ["Index", "KernelsFor", "KeyKernel", "OpInfo", "OpSummary", "Backward", "Formula", "Location",
           "Symbol", "StubSite", "StubInfo", "Use", "TypeSet", "KernelInfo", "Step", "Reach", "OpsFor", "Health",
           "KeyHealth", "PartialFile", "Unresolved", "Trace", "TraceOp", "default_db", "to_data"]
