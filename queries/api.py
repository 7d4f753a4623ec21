"""The read side: a small typed API over the index. Results are frozen dataclasses.

It reads SQLite through the standard library (a read-only connection), so that
a query process starts fast; the tables are those of tg_index.schema.models.

    from tg_index.queries.api import Index
    ix = Index.open()                 # the default checkout's index
    for answer in ix.kernels_for("add.out"):
        print(answer.op, [(k.key, k.kernel, k.origin) for k in answer.keys])
"""

from __future__ import annotations

import difflib
import json
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

from ..indexer.errors import TgIndexError
from ..indexer.paths import DB_ENV, default_db
from ..schema.version import SCHEMA_VERSION
from .chain import GENERATED, Linker, Reach, Reverse, Step, device_of


@dataclass(frozen=True)
class Loc:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class KeyKernel:
    key: str
    kernel: str
    origin: str
    cpp_namespace: str
    via: str | None
    location: Loc  # where native_functions.yaml says so
    definition: Loc | None = None  # where the kernel is defined (None: generated, or not found)
    qualified_name: str | None = None
    note: str | None = None  # why there is no definition, or how many candidates there were
    chain: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Formula:
    names: tuple[str, ...]
    kind: str
    formula: str
    location: Loc


@dataclass(frozen=True)
class Backward:
    op: str
    signature: str
    dispatch_key: str | None
    output_differentiability: tuple[Any, ...] | None
    saved_results: tuple[str, ...]
    formulas: tuple[Formula, ...]
    location: Loc


@dataclass(frozen=True)
class OpInfo:
    name: str
    func: str
    kind: str
    variants: tuple[str, ...]
    tags: tuple[str, ...]
    structured: bool
    structured_delegate: str | None
    structured_inherits: str | None
    python_module: str | None
    generated_from: str | None
    autogen: tuple[str, ...]
    ufunc_inner_loop: tuple[dict[str, Any], ...]
    fields: dict[str, Any]  # every field of the entry as written
    location: Loc
    siblings: tuple[str, ...] = ()
    backward: tuple[Backward, ...] = ()


@dataclass(frozen=True)
class KernelsFor:
    op: str
    func: str
    location: Loc
    structured: bool
    structured_delegate: str | None
    keys: tuple[KeyKernel, ...]
    backward: tuple[Backward, ...] = field(default=())
    meta: Step | None = None  # the TORCH_META_FUNC* of a structured op
    backward_calls: tuple[Step, ...] = ()  # ops and autograd helpers the backward formulas call


@dataclass(frozen=True)
class OpSummary:
    name: str
    kind: str
    structured: bool
    tags: tuple[str, ...]
    location: Loc


@dataclass(frozen=True)
class Symbol:
    name: str
    qualified_name: str
    kind: str
    signature: str
    qualifiers: tuple[str, ...]
    macro: str | None
    location: Loc
    end_line: int


@dataclass(frozen=True)
class StubSite:
    kind: str  # declare, define, register
    macro: str
    device: str | None
    arch: str | None
    kernel: str | None
    is_nullptr: bool
    location: Loc


@dataclass(frozen=True)
class Use:
    caller: str | None
    name: str  # what was called or launched, as written
    how: str  # call, argument, triple_chevron, gpu_kernel ...
    location: Loc


@dataclass(frozen=True)
class StubInfo:
    stub: str
    declarations: tuple[StubSite, ...]
    definitions: tuple[StubSite, ...]
    registrations: tuple[StubSite, ...]
    callers: tuple[Use, ...]


@dataclass(frozen=True)
class TypeSet:
    macro: str
    dtypes: tuple[str, ...]
    name: str | None
    function: str | None
    location: Loc


@dataclass(frozen=True)
class KernelInfo:
    name: str
    definitions: tuple[Symbol, ...]
    launches: tuple[Use, ...]
    dtypes: tuple[TypeSet, ...]  # AT_DISPATCH sets in the functions that launch it


@dataclass(frozen=True)
class KeyHealth:
    key: str
    rows: int
    defined: int
    generated: int  # kernels PyTorch generates at build time (ufunc, autogen)
    unresolved: int

    @property
    def unresolved_share(self) -> float:
        return self.unresolved / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class Unresolved:
    op: str
    key: str
    kernel: str
    origin: str
    reason: str
    location: Loc


@dataclass(frozen=True)
class Health:
    keys: tuple[KeyHealth, ...]
    unresolved: tuple[Unresolved, ...]


@dataclass(frozen=True)
class TraceOp:
    op: str  # the op reached: a base (layer_norm, every overload bound under it) or an exact overload (add.Tensor)
    reached_by: tuple[str, ...]  # the callees that reach it, as resolved in the source: torch.layer_norm
    overloads: tuple[KernelsFor, ...]  # the kernels-for answer of each overload
    decompositions: tuple[Any, ...] = ()  # trace.Decomp: decompositions, refs, py_impl kernels


@dataclass(frozen=True)
class Trace:
    name: str  # as asked: nn.LayerNorm
    resolved: str  # what it stands for: torch.nn.LayerNorm
    hops: tuple[Any, ...]  # trace.Hop: the Python path, each with file:line
    ops: tuple[TraceOp, ...]
    chain: bool = False  # the answers carry the whole chain (else the dispatch table is what is shown)


def to_data(value: Any) -> Any:
    """Dataclasses -> JSON-ready data; a location becomes {"file", "line"}."""
    if isinstance(value, list | tuple):
        return [to_data(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {k: to_data(getattr(value, k)) for k in value.__dataclass_fields__}
    return value


class Index:
    """An open index database (read-only)."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn = conn
        self.path = path
        self._linker: Linker | None = None

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
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            conn.execute("PRAGMA query_only=ON")
            row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.DatabaseError:
            raise TgIndexError(f"{db} is not a tg-index database; rebuild it with `tg-index`") from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            found = row[0] if row else "none"
            raise TgIndexError(f"{db} was written with schema version {found}, this tg-query reads version "
                               f"{SCHEMA_VERSION}; rebuild it with `tg-index`")
        return cls(conn, db)

    # -- lookups ---------------------------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta ORDER BY key"))

    def resolve(self, name: str) -> list[str]:
        """`aten::add.out` / `add.out` -> [that op]; a bare `add` -> every overload of add."""
        name = name.strip()
        if name.startswith("aten::"):
            name = name[len("aten::"):]
        if "." in name:
            row = self.conn.execute("SELECT name FROM ops WHERE name = ?", (name,)).fetchone()
            found = [row[0]] if row else []
        else:
            found = [r[0] for r in self.conn.execute("SELECT name FROM ops WHERE base = ? ORDER BY id", (name,))]
        if not found:
            raise TgIndexError(self._unknown(name))
        return found

    def _unknown(self, name: str) -> str:
        names = [r[0] for r in self.conn.execute("SELECT name FROM ops")]
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        if not close:
            close = sorted(n for n in names if n.startswith(name.split(".")[0]))[:3]
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else "; try `tg-query ops --name PATTERN`"
        return f"unknown op {name!r}{hint}"

    def _op_row(self, name: str) -> sqlite3.Row:
        self.conn.row_factory = sqlite3.Row
        try:
            return self.conn.execute("SELECT * FROM ops WHERE name = ?", (name,)).fetchone()
        finally:
            self.conn.row_factory = None

    def _tags(self, op_id: int) -> tuple[str, ...]:
        return tuple(r[0] for r in self.conn.execute("SELECT tag FROM op_tags WHERE op_id = ? ORDER BY tag", (op_id,)))

    def backward(self, name: str) -> tuple[Backward, ...]:
        out = []
        rows = self.conn.execute(
            "SELECT id, op, signature, dispatch_key, output_differentiability, saved_results, file, line "
            "FROM derivatives WHERE op = ? ORDER BY id", (name,)).fetchall()
        for did, op, sig, key, diff, saved, file, line in rows:
            formulas = tuple(Formula(tuple(json.loads(n)), k, f, Loc(fl, ln)) for n, k, f, fl, ln in self.conn.execute(
                "SELECT names, kind, formula, file, line FROM derivative_formulas WHERE derivative_id = ? ORDER BY id",
                (did,)))
            out.append(Backward(op, sig, key, None if diff is None else tuple(json.loads(diff)),
                                tuple(json.loads(saved)), formulas, Loc(file, line)))
        return tuple(out)

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
                fields=json.loads(r["raw"]), location=Loc(r["file"], r["line"]), siblings=siblings,
                backward=self.backward(op_name)))
        return out

    def dispatch(self, op_name: str) -> tuple[KeyKernel, ...]:
        return tuple(KeyKernel(k, kern, o, ns, via, Loc(f, ln)) for k, kern, o, ns, via, f, ln in self.conn.execute(
            "SELECT key, kernel, origin, cpp_namespace, via, file, line FROM dispatch WHERE op = ? ORDER BY id",
            (op_name,)))

    def kernels_for(self, name: str, keys: tuple[str, ...] = (), depth: int = 3) -> list[KernelsFor]:
        """For each op the name resolves to: every (op, key) with the kernel's definition and the chain
        below it (stubs, registered kernels, launches, dtypes, library calls), the meta function, the backward."""
        linker = self.linker()
        op_bases = linker.op_bases()
        out = []
        for op_name in self.resolve(name):
            func, file, line, structured, delegate = self.conn.execute(
                "SELECT func, file, line, structured, structured_delegate FROM ops WHERE name = ?", (op_name,)).fetchone()
            rows = []
            meta = None
            seen: dict[tuple, str] = {}
            for k, kern, origin, ns, via, f, ln, is_structured in self.conn.execute(
                    "SELECT key, kernel, origin, cpp_namespace, via, file, line, structured FROM dispatch "
                    "WHERE op = ? ORDER BY id", (op_name,)):
                if origin == "meta":
                    found, _reason, _n = linker.definition(k, kern, ns, origin, True)
                    if found is not None:
                        meta = Step("meta_func", found.qualified_name, found.file, found.line)
                if keys and k not in keys:
                    continue
                row = self._key_chain(linker, op_bases, func, k, kern, origin, ns, via, Loc(f, ln),
                                      bool(is_structured), depth, op_name)
                # Keys served by the same definition on the same device share one chain: shown once.
                same = (row.qualified_name, row.definition, device_of(k))
                if row.definition is not None and same in seen:
                    row = replace(row, chain=(), note=f"same chain as {seen[same]}")
                elif row.definition is not None:
                    seen[same] = k
                rows.append(row)
            backward = self.backward(op_name)
            formulas = [fm.formula for b in backward for fm in b.formulas]
            out.append(KernelsFor(op_name, func, Loc(file, line), bool(structured), delegate, tuple(rows),
                                  backward, meta, tuple(linker.formula_calls(formulas, op_bases))))
        return out

    def _key_chain(self, linker: Linker, op_bases: set[str], func: str, key: str, kernel: str, origin: str,
                   ns: str, via: str | None, where: Loc, structured: bool, depth: int, op_name: str) -> KeyKernel:
        found, reason, candidates = linker.definition(key, kernel, ns, origin, structured, func)
        if found is None:
            chain = self._generated_chain(op_name if via is None else via, key, where) if reason == GENERATED else ()
            note = reason
            if reason == GENERATED:
                note = ("generated by torchgen for autogen" if origin == "autogen"
                        else "generated at build time from ufunc_inner_loop")
            return KeyKernel(key, kernel, origin, ns, via, where, None, None, note, chain)
        steps = linker.ops_called(found, op_bases) + linker.chain(found, key, depth)
        note = f"{candidates} definitions of this name; chose by the key" if candidates > 1 else None
        return KeyKernel(key, kernel, origin, ns, via, where, Loc(found.file, found.line), found.qualified_name,
                         note, tuple(steps))

    def _generated_chain(self, op_name: str, key: str, where: Loc) -> tuple[Step, ...]:
        """ufunc kernels: CPU goes through <name>_stub to a generated kernel, CUDA is a generated gpu kernel;
        both run the ufunc:: functions of native/ufunc/ over the dtypes of ufunc_inner_loop."""
        loops = self.conn.execute("SELECT l.ufunc_key, l.name, l.dtypes FROM ufunc_loops l JOIN ops o ON o.id = l.op_id "
                                  "WHERE o.name = ? ORDER BY l.id", (op_name,)).fetchall()
        if not loops:
            return ()
        base = loops[0][1]
        where = Loc(*self.conn.execute("SELECT file, line FROM dispatch WHERE op = ? AND origin = 'ufunc'",
                                       (op_name,)).fetchone())
        steps = []
        if key == "CPU":
            steps.append(Step("generated", f"structured impl calling {base}_stub", where.file, where.line, "CPU"))
            for f, ln in self.conn.execute("SELECT file, line FROM stubs WHERE stub = ? AND kind = 'declare'",
                                           (f"{base}_stub",)):
                steps.append(Step("stub", f"{base}_stub", f, ln, detail="registered by generated code"))
            steps.append(Step("registered", f"{base}_kernel [generated]", where.file, where.line, "CPU", "every capability"))
        else:
            steps.append(Step("generated", f"gpu_kernel over ufunc::{base}", where.file, where.line, key))
        for ufunc_key, loop_name, dtypes in loops:
            steps.append(Step("dtypes", f"{ufunc_key}: {loop_name}", where.file, where.line,
                              detail=", ".join(json.loads(dtypes))))
        for q, f, ln in self.conn.execute(
                "SELECT qualified_name, file, line FROM definitions WHERE file LIKE 'aten/src/ATen/native/ufunc/%' "
                "AND name = ? ORDER BY file, line", (base,)):
            steps.append(Step("ufunc", q, f, ln))
        return tuple(steps)

    def ops(self, *, key: str | None = None, tag: str | None = None, structured: bool | None = None,
            kind: str | None = None, origin: str | None = None, name: str | None = None,
            python_module: str | None = None) -> list[OpSummary]:
        """A filtered list of ops. name is a glob (`*_backward*`)."""
        filters = [
            (key, "o.id IN (SELECT op_id FROM dispatch WHERE key = ?)"),
            (origin, "o.id IN (SELECT op_id FROM dispatch WHERE origin = ?)"),
            (tag, "o.id IN (SELECT op_id FROM op_tags WHERE tag = ?)"),
            (None if structured is None else int(structured), "o.structured = ?"),
            (kind, "o.kind = ?"),
            (name, "o.name GLOB ?"),
            (python_module, "o.python_module = ?"),
        ]
        where = [clause for value, clause in filters if value is not None and value != ""]
        args = [value for value, _clause in filters if value is not None and value != ""]
        sql = "SELECT o.id, o.name, o.kind, o.structured, o.file, o.line FROM ops o"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.conn.execute(sql + " ORDER BY o.id", args).fetchall()
        return [OpSummary(n, k, bool(s), self._tags(i), Loc(f, ln)) for i, n, k, s, f, ln in rows]

    def doctor(self, keys: tuple[str, ...] = ()) -> Health:
        """Every (op, key) whose kernel has no definition in the checkout, with the reason; counts per key."""
        linker = self.linker()
        counts: dict[str, list[int]] = {}
        missing = []
        for op, key, kernel, origin, ns, structured, file, line in self.conn.execute(
                "SELECT op, key, kernel, origin, cpp_namespace, structured, file, line FROM dispatch ORDER BY id"):
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
                missing.append(Unresolved(op, key, kernel, origin, reason, Loc(file, line)))
        health = tuple(KeyHealth(k, *v) for k, v in sorted(counts.items(), key=lambda kv: -kv[1][0]))
        return Health(health, tuple(missing))

    def ops_for(self, name: str, depth: int = 4) -> list[Reach]:
        """The (op, key) kernels whose chain reaches a function, stub or __global__ kernel."""
        reverse = Reverse(self.conn)
        if not reverse.starts(name):
            raise TgIndexError(f"no function, stub or kernel named {name!r}" + self._close(
                name, "SELECT DISTINCT name FROM definitions WHERE name LIKE ?"))
        return reverse.reach(name, depth)

    def trace(self, name: str, keys: tuple[str, ...] = (), depth: int = 3, chain: bool = False,
              hops: int = 8) -> Trace:
        """A Python name (torch.nn.LayerNorm, F.cross_entropy, torch.add, Tensor.matmul, _VF.lstm,
        torch.ops.aten.mm) -> its Python hops, the aten ops they reach, and each op's kernels-for answer
        (the chain below each kernel only with chain=True; depth and keys as for kernels_for)."""
        from .trace import PyLinker

        linker = PyLinker(self.conn, hops)
        found = linker.trace(name)
        ops = []
        for ref in found.ops:
            base = ref.ops[0].partition(".")[0]
            answers = tuple(a for a in self.kernels_for(base, keys, depth if chain else 0) if a.op in ref.ops)
            reached_by = tuple(dict.fromkeys(h.target for h in found.hops if h.kind == "op" and h.name == ref.spec
                                             and h.target))
            # decompositions of the op, and of the ops its CompositeImplicitAutograd kernel calls
            below = dict.fromkeys(s.name for a in answers for k in a.keys if k.key.startswith("CompositeImplicit")
                                  for s in k.chain if s.kind == "op")
            decomps = linker.decomps(ref.spec) + tuple(d for b in below for d in linker.decomps(b))
            ops.append(TraceOp(ref.spec, reached_by, answers, decomps))
        return Trace(name, found.resolved, found.hops, tuple(ops), chain)

    # -- C++/CUDA ------------------------------------------------------------------------------

    def _close(self, name: str, sql: str) -> str:
        stem = name.split("::")[-1]
        candidates = [r[0] for r in self.conn.execute(sql, (stem[:3] + "%",))]
        close = difflib.get_close_matches(stem, candidates, n=3, cutoff=0.6)
        return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""

    def symbol(self, name: str, kind: str | None = None) -> list[Symbol]:
        """Definitions named `name` (or whose qualified name is or ends with `::name`)."""
        sql = ("SELECT name, qualified_name, kind, signature, qualifiers, macro, file, line, end_line FROM definitions "
               "WHERE (name = ? OR qualified_name = ? OR qualified_name LIKE ?)")
        args: list[Any] = [name, name, f"%::{name}"]
        if kind:
            sql += " AND kind = ?"
            args.append(kind)
        found = [Symbol(n, q, k, sig, tuple(json.loads(qual)), mac, Loc(f, ln), end)
                 for n, q, k, sig, qual, mac, f, ln, end in self.conn.execute(sql + " ORDER BY file, line", args)]
        if not found:
            what = f"no {kind} definition" if kind else "no definition"
            raise TgIndexError(f"{what} named {name!r}" + self._close(
                name, "SELECT DISTINCT name FROM definitions WHERE name LIKE ?"))
        return found

    def stub(self, name: str) -> StubInfo:
        """A DispatchStub: declaration, definition, every registration per device and CPU capability, callers."""
        sites = [StubSite(k, mac, dev, arch, kern, bool(null), Loc(f, ln)) for k, mac, dev, arch, kern, null, f, ln in
                 self.conn.execute("SELECT kind, macro, device, arch, kernel, is_nullptr, file, line FROM stubs "
                                   "WHERE stub = ? ORDER BY file, line, device, arch", (name,))]
        if not sites:
            raise TgIndexError(f"no dispatch stub named {name!r}" + self._close(
                name, "SELECT DISTINCT stub FROM stubs WHERE stub LIKE ?"))
        callers = tuple(Use(c, name, how, Loc(f, ln)) for c, how, f, ln in self.conn.execute(
            "SELECT caller, how, file, line FROM stub_uses WHERE stub = ? ORDER BY file, line", (name,)))
        return StubInfo(name, tuple(s for s in sites if s.kind == "declare"),
                        tuple(s for s in sites if s.kind == "define"),
                        tuple(s for s in sites if s.kind == "register"), callers)

    def kernel(self, name: str) -> KernelInfo:
        """A __global__ kernel (or a functor run by a launch helper): definition, launch sites, dtypes."""
        defs = [Symbol(n, q, k, sig, tuple(json.loads(qual)), mac, Loc(f, ln), end)
                for n, q, k, sig, qual, mac, f, ln, end in self.conn.execute(
                    "SELECT name, qualified_name, kind, signature, qualifiers, macro, file, line, end_line "
                    "FROM definitions WHERE kind = 'global_kernel' AND (name = ? OR qualified_name = ?) "
                    "ORDER BY file, line", (name, name))]
        launches = [Use(c, k or name, kind, Loc(f, ln)) for kind, k, c, f, ln in self.conn.execute(
            "SELECT kind, kernel, caller, file, line FROM launches WHERE kernel = ? ORDER BY file, line", (name,))]
        if not defs and not launches:
            raise TgIndexError(f"no __global__ kernel or launched functor named {name!r}" + self._close(
                name, "SELECT DISTINCT name FROM definitions WHERE kind = 'global_kernel' AND name LIKE ?"))
        launchers = sorted({u.caller for u in launches if u.caller})
        dtypes: list[TypeSet] = []
        for caller in launchers:
            dtypes.extend(TypeSet(mac, tuple(json.loads(dt)), nm, fn, Loc(f, ln)) for mac, dt, nm, fn, f, ln in
                          self.conn.execute("SELECT macro, dtypes, name, caller, file, line FROM type_dispatch "
                                            "WHERE caller = ? ORDER BY file, line", (caller,)))
        return KernelInfo(name, tuple(defs), tuple(launches), tuple(dtypes))

    def callers(self, name: str) -> list[Use]:
        """Call sites of a function by name (last component, or the whole name as written)."""
        stem = name.split("::")[-1]
        rows = self.conn.execute("SELECT caller, callee, file, line FROM calls WHERE callee_name = ? "
                                 "ORDER BY file, line", (stem,)).fetchall()
        if "::" in name:
            rows = [r for r in rows if r[1].split("<")[0].endswith(name)]
        if not rows:
            raise TgIndexError(f"no calls of {name!r}" + self._close(
                name, "SELECT DISTINCT callee_name FROM calls WHERE callee_name LIKE ?"))
        return [Use(c, callee, "call", Loc(f, ln)) for c, callee, f, ln in rows]

    def sql(self, query: str, params: tuple[Any, ...] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run ad-hoc SQL on the read-only connection: (column names, rows)."""
        try:
            cur = self.conn.execute(query, params)
            rows = cur.fetchall()
        except sqlite3.Error as exc:
            message = str(exc)
            if "readonly" in message or "read-only" in message or "query_only" in message:
                raise TgIndexError(f"the index is read-only here; {message}") from None
            raise TgIndexError(f"SQL error: {message}") from None
        columns = [d[0] for d in cur.description] if cur.description else []
        return columns, rows

    def export(self, table: str) -> Iterator[dict[str, Any]]:
        """JSON-ready rows of an export table (see EXPORTS)."""
        if table not in EXPORTS:
            close = difflib.get_close_matches(table, EXPORTS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TgIndexError(f"unknown export {table!r}{hint} (one of: {', '.join(EXPORTS)})")
        cur = self.conn.execute(EXPORTS[table])
        columns = [d[0] for d in cur.description]
        for row in cur:
            data = dict(zip(columns, row))
            if "dtypes" in data:
                data["dtypes"] = json.loads(data["dtypes"])
            yield data


EXPORTS: dict[str, str] = {
    "dispatch": "SELECT op, key, kernel, origin FROM dispatch ORDER BY id",
    "definitions": "SELECT name, qualified_name, kind, file, line, end_line FROM definitions ORDER BY id",
    "stubs": "SELECT stub, kind, macro, device, arch, kernel, file, line FROM stubs ORDER BY id",
    "launches": "SELECT kind, kernel, caller AS function, file, line FROM launches ORDER BY id",
    "registrations": "SELECT kind, macro, namespace, dispatch_key AS key, op, function, file, line "
                     "FROM registrations ORDER BY id",
    "type-dispatch": "SELECT macro, dtypes, name, caller AS function, file, line FROM type_dispatch ORDER BY id",
    "calls": "SELECT caller, callee, callee_name, file, line FROM calls ORDER BY id",
    "library-calls": "SELECT family, callee, caller AS function, file, line FROM library_calls ORDER BY id",
    "ops": "SELECT name, func, kind, structured, structured_delegate, file, line FROM ops ORDER BY id",
    "derivatives": "SELECT d.op, d.dispatch_key, f.names, f.kind, f.formula, f.file, f.line "
                   "FROM derivatives d JOIN derivative_formulas f ON f.derivative_id = d.id ORDER BY f.id",
}

__all__ = ["Index", "KernelsFor", "KeyKernel", "OpInfo", "OpSummary", "Backward", "Formula", "Loc",
           "Symbol", "StubSite", "StubInfo", "Use", "TypeSet", "KernelInfo", "Step", "Reach", "Health",
           "KeyHealth", "Unresolved", "Trace", "TraceOp",
           "default_db", "to_data"]
