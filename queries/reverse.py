"""ops-for: from a function, DispatchStub, __global__ kernel or vendor call up the graph's edges to
the (op, key) kernels that reach it.

The walk goes up the same edges kernels-for walks down: a __global__ to whoever launches it, a
functor to whoever runs it, a function to its resolved callers, a registered kernel to its stub
(keeping the device the registration serves) and the stub to the functions that use it, a
kernel's definition to the (op, key) rows it implements, and an op to the kernels that redispatch
to it. Ops whose generated ufunc CPU kernel calls a stub are found by the naming rule, as that
kernel is not in the checkout. Every limit that cuts the walk comes back as a Truncation.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from ..indexer import naming
from ..indexer.link.kinds import SEVERAL, EdgeKind, How, NodeKind
from .chain import binding_site, device_of, is_cuda, loop_names, ufunc_definitions, ufunc_stub_loops
from .device_branches import Branches
from .results import OpsFor, Reach, Truncation

CALLERS_PER_NODE = 2000  # edges followed up from one node
_COMPOSITE = "Composite"  # the keys whose kernels run for any backend's tensors (CompositeImplicitAutograd ...)

_UP = (EdgeKind.CALLS, EdgeKind.LAUNCHES, EdgeKind.RUNS_FUNCTOR, EdgeKind.USES_STUB, EdgeKind.REGISTERS,
       EdgeKind.CALLS_LIBRARY, EdgeKind.IMPLEMENTS, EdgeKind.REDISPATCHES_TO_OP)
_UP_SQL = ("SELECT e.kind, e.src, e.how, e.detail, n.kind, n.name, n.ref, n.detail, e.file, e.line, "
           "d.template_params IS NOT NULL FROM edges e JOIN nodes n ON n.id = e.src LEFT JOIN definitions d "
           f"ON d.id = n.ref AND n.kind IN ('{NodeKind.FUNCTION}', '{NodeKind.STRUCTURED}') "
           f"WHERE e.dst = ? AND e.kind IN ({', '.join('?' * len(_UP))}) ORDER BY e.id LIMIT {CALLERS_PER_NODE + 1}")

# (node, the path from it down to the name asked about, the device a registration pinned or None, for a
# template reached through a call bound to one template argument the call site that writes that argument, and the
# backend key whose kernel the path went through (None: none yet, or only composite kernels))
_Entry = tuple[int, tuple[str, ...], str | None, tuple[str, int] | None, str | None]


@dataclass
class _Cuts:
    callers: dict[str, None] = field(default_factory=dict)
    ambiguous: dict[str, None] = field(default_factory=dict)  # callers whose call may mean another definition
    uncompiled: dict[str, None] = field(default_factory=dict)  # callers whose call no build compiles
    deep: int = 0

    def truncations(self, depth: int) -> tuple[Truncation, ...]:
        cuts = []
        if self.callers:
            cuts.append(Truncation(f"callers not followed beyond {CALLERS_PER_NODE} per node", CALLERS_PER_NODE,
                                   tuple(self.callers)))
        if self.ambiguous:
            cuts.append(Truncation("callers not followed: their call is ambiguous (it may mean another definition)",
                                   0, tuple(self.ambiguous)))
        if self.uncompiled:
            cuts.append(Truncation("callers not followed: their call is under an #if that the checkout's own #defines "
                                   "make false in every build", 0, tuple(self.uncompiled)))
        if self.deep:
            cuts.append(Truncation(f"walk stopped at --depth with {self.deep} nodes whose callers were not "
                                   "looked at", depth))
        return tuple(cuts)


def _without_template_arguments(name: str) -> str:
    """`fbgemm::Quantize<typename T::underlying, false>` -> `fbgemm::Quantize`."""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def _names_entry_point(node: str, asked: str) -> bool:
    """Whether a vendor entry point's node (its name as the call writes it: `ideep::eltwise_backward::compute`,
    `fbgemm::Quantize<int8_t,false>`) is the name asked for: the whole name, or its last components, without
    the template arguments unless the name asked writes some (kernels-for's brief shows `onednn:compute` and
    `fbgemm:Quantize`)."""
    if "<" in asked:
        node, asked = node.replace(" ", ""), asked.replace(" ", "")
    else:
        node = _without_template_arguments(node)
    return node == asked or node.endswith("::" + asked)


class Reverse:
    """From a name up to the (op, key) kernels that reach it."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.branches = Branches(conn)
        self._starts: dict[str, list[tuple[int, str, str | None]]] = {}  # starts' answers (ops-for asks twice)
        self._ufunc_stubs: dict[str, list[tuple]] | None = None  # chain.ufunc_stub_loops, read once

    def starts(self, name: str) -> list[tuple[int, str, str | None]]:
        """(node, its name, its file) of every definition, stub or vendor entry point the name means (found once
        per name: Index.ops_for asks whether there are any before reach() starts from them): _find_starts."""
        got = self._starts.get(name)
        if got is None:
            got = self._starts[name] = self._find_starts(name)
        return list(got)

    def _ufunc_stub_loops(self) -> dict[str, list[tuple]]:
        if self._ufunc_stubs is None:
            self._ufunc_stubs = ufunc_stub_loops(self.conn)
        return self._ufunc_stubs

    def _find_starts(self, name: str) -> list[tuple[int, str, str | None]]:
        """(node, its name, its file) of every definition, stub or vendor entry point the name means: a
        qualified name, exactly or as its last components (`UniformStub::operator()`), or a bare name; a
        stub by the name its node shows or its qualified name's last components (`copy_stub`: both); a structured
        kernel's or meta function's struct by its name, as kernels-for shows a Meta kernel (`structured_trunc`:
        at::meta::structured_trunc::meta)."""
        stem = name.split("::")[-1]
        qualified = "::" in name.removeprefix("::")
        by_definition = "n.name = ? OR substr(n.name, -?) = ?" if qualified else "n.name = ? OR d.name = ?"
        wanted = (name, len(name) + 2, "::" + name) if qualified else (name, stem)
        struct = name.removeprefix("::")
        members = (f"{struct}::meta", f"{struct}::impl", len(struct) + 8, f"::{struct}::meta", f"::{struct}::impl")
        rows = self.conn.execute(
            "SELECT n.id, n.name, n.file FROM nodes n LEFT JOIN definitions d ON d.id = n.ref AND n.kind IN (?, ?, ?) "
            f"WHERE (n.kind IN (?, ?, ?) AND ({by_definition})) "
            "OR (n.kind = ? AND (n.name = ? OR n.detail = ? OR substr(n.detail, -?) = ?)) "
            "OR (n.kind = ? AND (n.name IN (?, ?) OR substr(n.name, -?) IN (?, ?))) ORDER BY n.id",
            (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, NodeKind.STRUCTURED,
             NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, NodeKind.STRUCTURED, *wanted,
             NodeKind.STUB, name, name, len(name) + 2, "::" + name, NodeKind.STRUCTURED, *members)).fetchall()
        rows += self._entry_points(name.removeprefix("::"), stem)
        return sorted(rows)

    def _entry_points(self, asked: str, stem: str) -> list[tuple[int, str, str | None]]:
        """The vendor entry points' nodes the name means (_names_entry_point), found by name through the index
        on nodes.name: the names calls write with that last component (calls.callee_name; the template
        arguments stripped) and library_calls' callees (a small table), and the name itself."""
        last = _without_template_arguments(stem) or stem
        written = {asked, stem}
        written.update(c for (c,) in self.conn.execute("SELECT DISTINCT callee FROM calls WHERE callee_name = ?",
                                                       (last,)))
        written.update(c for (c,) in self.conn.execute("SELECT DISTINCT callee FROM library_calls")
                       if _names_entry_point(c, asked))
        return [r for r in self.conn.execute(
            "SELECT id, name, file FROM nodes WHERE name IN (SELECT value FROM json_each(?)) AND kind = ?",
            (json.dumps(sorted(written)), NodeKind.LIBRARY)) if _names_entry_point(r[1], asked)]

    def generated(self, name: str) -> list[tuple[str, str, str]]:
        """(op, key, kernel) of the dispatch rows whose kernel PyTorch generates under this name (ufunc_add_CPU):
        no definition in the checkout, so the walk starts at the rows themselves."""
        return self.conn.execute(
            "SELECT k.op, k.key, k.kernel FROM dispatch k JOIN nodes n ON n.ref = k.id AND n.kind = ? "
            "JOIN edges e ON e.src = n.id AND e.kind = ? WHERE k.kernel = ? AND e.how = ? ORDER BY k.id",
            (NodeKind.KERNEL, EdgeKind.IMPLEMENTS, name.split("::")[-1], How.GENERATED)).fetchall()

    def _op_node(self, op: str) -> int:
        return self.conn.execute("SELECT id FROM nodes WHERE name = ? AND kind = ?", (op, NodeKind.OP)).fetchone()[0]

    def _kernel_row(self, dispatch_id: int) -> tuple[str, str, str]:
        return self.conn.execute("SELECT op, key, kernel FROM dispatch WHERE id = ?", (dispatch_id,)).fetchone()

    def _generated_users(self, stub: str) -> list[tuple[str, str, str]]:
        """Ops whose generated ufunc CPU kernel calls this stub (<name>_stub for the ufunc_inner_loop op <name>:
        chain.ufunc_stub_loops)."""
        base = naming.stub_base(stub)
        if base is None:
            return []
        kernel = naming.ufunc_kernel(base, "CPU")
        return self.conn.execute("SELECT op, key, kernel FROM dispatch WHERE kernel = ?", (kernel,)).fetchall()

    def _ufunc_runs(self, name: str) -> tuple[list[tuple[str, str, str]], str | None]:
        """For a ufunc:: function (native/ufunc/add.h's add): the generated kernels that run it, the (op, key,
        kernel) rows of the ufunc_inner_loop ops naming it, and their ops' stub (add_stub), whose callers run
        those kernels too (chain.py registers them for the stub); ([], None) for any other name."""
        parts = name.removeprefix("::").split("::")
        if len(parts) > 1 and parts[-2] != "ufunc":
            return [], None
        if not ufunc_definitions(self.conn, parts[-1]):
            return [], None
        stubs = [stub for stub, loops in self._ufunc_stub_loops().items() if parts[-1] in loop_names(loops)]
        rows = self.conn.execute(
            "SELECT k.op, k.key, k.kernel, MIN(l.id) FROM ufunc_loops l JOIN dispatch k ON k.op_id = l.op_id "
            "AND k.origin = 'ufunc' WHERE l.name = ? GROUP BY k.id ORDER BY k.id", (parts[-1],)).fetchall()
        return [r[:3] for r in rows], (stubs[0] if rows and stubs else None)

    def generated_registered(self, name: str) -> str | None:
        """For the kernel torchgen generates and registers for a ufunc_inner_loop op's stub on CPU and CUDA
        (torchgen/dest/ufunc.py: `REGISTER_DISPATCH(add_stub, &add_kernel)`; kernels-for shows it as `add_kernel
        [generated]`, named by the op's name: chain.ufunc_stub_loops): that stub; None for any other name."""
        parts = name.removeprefix("::").split("::")
        base = parts[-1].removesuffix("_kernel")
        if base in ("", parts[-1]) or parts[:-1] not in ([], ["native"], ["at", "native"]):
            return None
        stub = naming.ufunc_stub(base)
        return stub if stub in self._ufunc_stub_loops() else None

    def reach(self, name: str, depth: int = 6) -> OpsFor:
        hits: dict[tuple[str, str], Reach] = {}
        for op, key, kernel in self._generated_users(name.split("::")[-1]):
            hits[(op, key)] = Reach(op, key, kernel, (f"generated ufunc kernel -> uses {name.split('::')[-1]}",))
        for op, key, kernel in self.generated(name):
            hits.setdefault((op, key), Reach(op, key, kernel, (f"{kernel} [generated]",)))
        frontier: list[_Entry] = [(node, (n,), "CUDA" if f and is_cuda(f) else None, None, None)
                                  for node, n, f in self.starts(name)]
        runs, stub = self._ufunc_runs(name)
        for op, key, kernel in runs:
            hits.setdefault((op, key), Reach(op, key, kernel, (f"{kernel} [generated] -> runs {name}",)))
        if stub is not None:  # the kernels that call the stub run the generated kernel registered for it
            for op, key, kernel in self._generated_users(stub):
                hits.setdefault((op, key), Reach(op, key, kernel, (f"{kernel} [generated] -> runs {name}",)))
            frontier += [(node, (n, f"{naming.stub_base(stub)}_kernel [generated]", name), None, None, None)
                         for node, n, _f in self.starts(stub)]
        registered = self.generated_registered(name)
        if registered is not None:  # the generated kernel runs wherever its stub is called (the ops' own generated
            # CPU kernels call it too)
            shown = f"{naming.stub_base(registered)}_kernel [generated]"
            for op, key, kernel in self._generated_users(registered):
                hits.setdefault((op, key), Reach(op, key, kernel, (f"{kernel} [generated] -> uses {registered}",
                                                                   shown)))
            frontier += [(node, (n, shown), None, None, None) for node, n, _f in self.starts(registered)]
        seen = {(e[0], e[2], None, None) for e in frontier}
        cuts = _Cuts()
        for level in range(depth + 1):
            following: list[_Entry] = []
            for node, path, device, site, backend in frontier:  # the loop sees the same-level entries _up appends
                if level == depth:
                    cuts.deep += 1
                    continue
                up, same = self._up(node, path, device, site, backend, hits, seen, cuts)
                following.extend(up)
                frontier.extend(same)
            frontier = following
            if not frontier:
                break
        return OpsFor(name, tuple(sorted(hits.values(), key=lambda r: (r.op, r.key))), cuts.truncations(depth))

    def _up(self, node: int, path: tuple[str, ...], device: str | None, site: tuple[str, int] | None,
            backend: str | None, hits: dict, seen: set, cuts: _Cuts) -> tuple[list[_Entry], list[_Entry]]:
        """(the callers one level up, and the nodes gone up to at the same level: the stub a registered kernel is
        registered for and the op a kernel implements, as kernels-for's walk shows a stub's registered kernel
        and a redispatched op's kernel at the level of the call, so that --depth counts calls both ways).
        A redispatch runs the op's kernel for the caller's own key (kernels-for's walk goes on in that one, else
        in a composite one): a path through an op's kernel for a backend key (CPU, NestedTensorCPU) is one only
        for the kernels of that key and the composite ones above it (`backend`)."""
        rows = self.conn.execute(_UP_SQL, (node, *_UP)).fetchall()
        if len(rows) > CALLERS_PER_NODE:
            cuts.callers[path[0]] = None
        out: list[_Entry] = []
        same: list[_Entry] = []
        for kind, src, how, detail, skind, sname, sref, sdetail, file, line, template in rows[:CALLERS_PER_NODE]:
            handed_on = None  # a template caller may hand its own parameter on: the site that writes it is above it
            if site is not None and kind == EdgeKind.CALLS and (file, line) != site:
                if not template:
                    continue  # the template runs this argument only when called from the site that writes it
                handed_on = site
            if how == How.AMBIGUOUS:
                cuts.ambiguous[sname] = None  # a caller that may mean another definition does not say it reaches this one
                continue
            if (why := self.branches.ruled_out(file, line, "")) is not None:  # "": only what no build compiles
                cuts.uncompiled[f"{sname} ({why})"] = None
                continue
            hop_device = device
            if kind == EdgeKind.REGISTERS:
                reg_device = (detail or "").split(" ")[0]
                if device is not None and reg_device != device:
                    continue
                hop_device = reg_device
                if reg_device == "CPU":
                    for op, key, kernel in self._generated_users(sname):
                        hits.setdefault((op, key), Reach(op, key, kernel, (f"generated ufunc kernel -> uses {sname}",
                                                                           *path)))
            if skind == NodeKind.KERNEL:
                op, key, kernel = self._kernel_row(sref)
                composite = key.startswith(_COMPOSITE)
                if (hop_device is None or device_of(key) in (hop_device, None)) and \
                        (backend is None or composite or key == backend):
                    hits.setdefault((op, key), Reach(op, key, kernel, path))
                    op_node = self._op_node(op)
                    runs_for = backend if composite else key
                    if (op_node, hop_device, None, runs_for) not in seen:  # ops whose kernels redispatch to it too
                        seen.add((op_node, hop_device, None, runs_for))
                        same.append((op_node, (f"redispatch to {op}", *path), hop_device, None, runs_for))
                continue
            bound = binding_site(detail) if how == How.TEMPLATE_ARGUMENT and detail else handed_on
            if (src, hop_device, bound, backend) in seen:
                continue
            seen.add((src, hop_device, bound, backend))
            label = f"uses {path[0]}" if kind == EdgeKind.USES_STUB else sname
            if how in SEVERAL:  # one of an overload set the types pick from, or of a pure virtual's overrides: as
                sname = f"{sname} ({how} of {detail})"  # kernels-for follows each, and says so
            (same if kind == EdgeKind.REGISTERS else out).append(
                (src, (sname, *path) if kind != EdgeKind.USES_STUB else (sname, label, *path[1:]), hop_device, bound,
                 backend))
        return out, same
