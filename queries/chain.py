"""Walking the graph the link stage resolved at build time (tables nodes and edges):
(op, key) -> kernel definition -> stubs -> registered kernels -> helper layers -> launches and
__global__ kernels, vendor calls, functors and lambdas, dtype sets, and redispatches into other ops.

The walk is breadth first from the kernel's definition, each function once, to `depth` levels of
calls. A call is followed when its target leads to device work (nodes.device_path) or when it is
made inside a functor a helper runs (the loop functions below cpu_kernel_vec's VectorizedLoop2d);
calls that lead nowhere near device code (checks, sizes, TensorIterator plumbing) are not steps.
What a limit keeps the walk from following comes back as Truncation records.

The reverse walk (ops-for) is queries/reverse.py.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field, replace

from ..indexer.facts import Location
from ..indexer.link.kinds import EdgeKind, How, NodeKind
from ..indexer.vocab import DefinitionKind, StepKind, StubKind
from .device_branches import Branches, branch_device
from .results import Definition, Step, Truncation

GENERATED = "generated"
CHAIN_MEMO = 512  # chains a Linker keeps (the oldest goes first): a long-lived server's memory stays bounded
RULE = -1  # the limit of a truncation that a rule made, not a limit (Truncation prints none)
FANOUT = 4  # an ambiguous call's candidates are followed only up to this many
OVERLOAD_FANOUT = 12  # and the overloads of one overload set
_AUTOGRAD = "torch/csrc/autograd/"  # where the helpers of backward formulas live
_FUNCTION_NODES = (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, NodeKind.STRUCTURED)
_COMPOSITE = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")
_RUNTIME_OF_COMPOSITE = ("CPU", "CUDA")
_SEVERAL = (How.AMBIGUOUS, How.OVERLOAD_SET)  # calls with an edge per candidate
_CALLS = str(EdgeKind.CALLS)


def meta_function(cpp_namespace: str, struct: str) -> str:
    """The meta function of a Meta dispatch row, whose kernel is the meta struct's name:
    `at::meta::structured_add_Tensor::meta` (naming.meta_qualified builds it from the op's base and overload)."""
    return f"{cpp_namespace}::{struct}::meta"


def device_of(key: str) -> str | None:
    """The device whose stub registrations serve a dispatch key."""
    for device in ("CUDA", "HIP", "MPS", "XPU", "MTIA", "PrivateUse1"):
        if device in key:
            return device
    if key.endswith("CPU") or key == "CPU":
        return "CPU"
    return None


def is_cuda(path: str) -> bool:
    return path.endswith((".cu", ".cuh")) or "/cuda/" in path


@dataclass(frozen=True)
class _Node:
    """A node of the graph, as an edge's target columns give it."""

    id: int
    kind: str
    name: str
    file: str | None
    line: int | None
    end_line: int | None
    device_path: int

    @property
    def loc(self) -> Location | None:
        return Location(self.file, self.line) if self.file else None


@dataclass
class _Walk:
    """One chain being built: its steps (each once), the functions visited, and what limits left out."""

    key: str
    device: str | None
    steps: list[Step] = field(default_factory=list)
    marks: dict[tuple, int] = field(default_factory=dict)  # a step's identity -> its index in steps
    visited: set[int] = field(default_factory=set)
    too_deep: dict[str, None] = field(default_factory=dict)
    too_many: dict[str, None] = field(default_factory=dict)

    sites: set[tuple[str, int]] = field(default_factory=set)  # the call sites of the steps so far
    off_device: dict[str, dict[str, None]] = field(default_factory=dict)  # a branch that never runs on the
    # walk's device -> the calls written in it

    def add(self, step: Step, parent: int | None) -> int:
        """The step, found below the step at index `parent`, once: its index in the chain."""
        mark = (step.kind, step.name, step.loc, step.device, step.detail, step.site)
        at = self.marks.get(mark)
        if at is None:
            at = self.marks[mark] = len(self.steps)
            self.steps.append(step if parent is None else replace(step, parent=parent))
            if step.site is not None:
                self.sites.add((step.site.file, step.site.line))
        return at

    def truncations(self, depth: int) -> tuple[Truncation, ...]:
        cuts = []
        if self.too_deep:
            cuts.append(Truncation("calls below --depth not followed", depth, tuple(self.too_deep)))
        if self.too_many:
            cuts.append(Truncation(f"ambiguous calls with more than {FANOUT} candidates, some leading to device "
                                   "work, not followed", FANOUT, tuple(self.too_many)))
        if self.off_device:
            cuts.append(Truncation(f"calls in branches that never run on {branch_device(self.device, self.key)}, "
                                   "not followed", RULE,
                                   tuple(f"{where}: {', '.join(names)}" for where, names in self.off_device.items())))
        return tuple(cuts)


# The edges a walk can show: every edge with a target, and of those without one the places (dtypes, a
# stub's declaration and definition, nullptr registrations, lambdas run) and the ambiguous calls some of
# whose candidates lead to device work; calls ending in a macro, the standard library or a type are not read.
_EDGES = ("SELECT e.src, e.kind, e.dst, e.file, e.line, e.how, e.target, e.detail, n.id, n.kind, n.name, n.file, "
          "n.line, n.end_line, n.device_path FROM edges e LEFT JOIN nodes n ON n.id = e.dst WHERE e.src IN ({}) AND "
          "(e.dst IS NOT NULL OR e.kind != 'calls' OR e.detail LIKE '%lead to device work%') ORDER BY e.id")
_BATCH = 500  # nodes whose edges one statement reads (SQLite allows 32,766 parameters)


def binding_site(detail: str) -> tuple[str, int] | None:
    """Where a template-argument edge's argument is written: `K = Stub at FILE:LINE` (link/template_args.py)."""
    where = detail.rpartition(" at ")[2]
    file, _, line = where.rpartition(":")
    return (file, int(line)) if file and line.isdigit() else None


def _bound_here(edges: list, sites: set[tuple[str, int]]) -> list:
    """A template's calls through its parameters, only those bound by the call sites this walk came through,
    when it came through one of them (the graph has one copy of a template for all its callers); each
    target once."""
    bound = [e for e in edges if e[4] == How.TEMPLATE_ARGUMENT and e[6]]
    if not bound:
        return edges
    here = {id(e) for e in bound if binding_site(e[6]) in sites}
    out, seen = [], set()
    for e in edges:
        if e[4] == How.TEMPLATE_ARGUMENT and e[6]:
            if (here and id(e) not in here) or (e[0], e[1], e[3]) in seen:
                continue
            seen.add((e[0], e[1], e[3]))
        out.append(e)
    return out


class Linker:
    """Walks the graph through an open index connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._op_bases: set[str] | None = None
        self._edges: dict[int, list[tuple]] = {}
        # The database does not change: a chain walked once from a node, for a key and a depth, is the same
        # every time (an answer's keys sharing a definition, repeated questions, ops sharing helpers).
        self._chains: dict[tuple[int, str, int], tuple[list[Step], tuple[Truncation, ...]]] = {}
        self._nodes: dict[tuple[str, str, int], int | None] = {}
        self.branches = Branches(conn)

    def op_bases(self) -> set[str]:
        """Base names of every op, also without a trailing underscore (add_ -> add)."""
        if self._op_bases is None:
            bases = {r[0] for r in self.conn.execute("SELECT DISTINCT base FROM ops")}
            self._op_bases = bases | {b.rstrip("_") for b in bases}
        return self._op_bases

    def edges(self, node: int) -> list[tuple]:
        """The edges out of a node a walk can show (in id order), each with its target node's columns."""
        got = self._edges.get(node)
        if got is None:
            self.prefetch((node,))
            got = self._edges[node]
        return got

    def prefetch(self, nodes) -> None:
        """Read the edges of every node not read yet, a statement per _BATCH nodes (a walk's queue at once)."""
        todo = list(dict.fromkeys(n for n in nodes if n not in self._edges))
        for i in range(0, len(todo), _BATCH):
            part = todo[i:i + _BATCH]
            for n in part:
                self._edges[n] = []
            for row in self.conn.execute(_EDGES.format(", ".join("?" * len(part))), part):
                self._edges[row[0]].append(row[1:])

    def definition(self, key: str, kernel: str, cpp_namespace: str, origin: str, structured: bool,
                   func: str = "") -> tuple[Definition | None, str, int]:
        """(the definition the link stage chose, reason when none, number of candidates)."""
        sql = ("SELECT n.name, d.kind, n.file, n.line, n.end_line, d.signature, e.how, e.detail FROM dispatch k "
               "JOIN nodes kn ON kn.ref = k.id AND kn.kind = ? JOIN edges e ON e.src = kn.id AND e.kind = ? "
               "LEFT JOIN nodes n ON n.id = e.dst LEFT JOIN definitions d ON d.id = n.ref "
               "WHERE k.kernel = ? AND k.key = ? AND k.cpp_namespace = ? AND k.origin = ?")
        args: tuple = (NodeKind.KERNEL, EdgeKind.IMPLEMENTS, kernel, key, cpp_namespace, origin)
        if func:  # ops sharing a kernel name (to.dtype, to.device ...) have a definition each
            sql += " AND EXISTS (SELECT 1 FROM ops o WHERE o.id = k.op_id AND o.func = ?)"  # ops.func has no index
            args += (func,)
        row = self.conn.execute(sql + " LIMIT 1", args).fetchone()
        if row is None:
            return None, "no definition in the sources", 0
        name, kind, file, line, end, signature, how, detail = row
        if how == How.GENERATED:
            return None, GENERATED, 0
        if name is None:
            return None, detail or "no definition in the sources", 0
        count = re.match(r"by-key: (\d+)", detail or "")
        return Definition(name, kind, Location(file, line), end, signature), "", int(count.group(1)) if count else 1

    def _node_of(self, d: Definition) -> int | None:
        where = (d.qualified_name, d.loc.file, d.loc.line)
        if where not in self._nodes:
            row = self.conn.execute("SELECT id FROM nodes WHERE name = ? AND file = ? AND line = ? LIMIT 1",
                                    where).fetchone()
            self._nodes[where] = row[0] if row else None
        return self._nodes[where]

    # -- the chain ----------------------------------------------------------------------------

    def chain(self, start: Definition, key: str, depth: int) -> tuple[list[Step], tuple[Truncation, ...]]:
        """The steps below a kernel's definition, breadth first to `depth` levels, and what was cut."""
        node = self._node_of(start)
        if node is None:
            return [], ()
        memo = (node, key, depth)
        if memo not in self._chains:
            if len(self._chains) >= CHAIN_MEMO:
                del self._chains[next(iter(self._chains))]
            self._chains[memo] = self._walk(node, key, depth)
        steps, cuts = self._chains[memo]
        return list(steps), cuts

    def _walk(self, node: int, key: str, depth: int) -> tuple[list[Step], tuple[Truncation, ...]]:
        """One breadth-first walk from a node (chain() keeps its answer)."""
        walk = _Walk(key, device_of(key))
        walk.visited.add(node)
        queue: list[tuple[int, int, bool, int | None]] = [(node, 0, False, None)]  # the step that entered it
        while queue:
            if queue[0][0] not in self._edges:  # every node queued is expanded: their edges in one read
                self.prefetch(q[0] for q in queue)
            current, level, in_functor, entered = queue.pop(0)
            for step, target, functor in self._expand(current, level, in_functor, walk):
                at = walk.add(step, entered)
                if target is None or target.id in walk.visited:
                    continue
                if level < depth:
                    walk.visited.add(target.id)
                    queue.append((target.id, level + 1, functor, at))
                else:
                    walk.too_deep[target.name] = None
        return walk.steps, walk.truncations(depth)

    def _expand(self, node: int, level: int, in_functor: bool, walk: _Walk):
        """(step, node to go on with, whether that node is run as a functor) for each edge out of a node."""
        edges = _bound_here(self.edges(node), walk.sites)
        ambiguous: dict[tuple, list] = {}
        composite = walk.key in _COMPOSITE
        device = branch_device(walk.device, walk.key)
        if level == 0 or composite:  # the redispatches below are followed: their ops' kernels read at once
            self._prefetch_kernels([e[7] for e in edges if e[0] == EdgeKind.REDISPATCHES_TO_OP and e[7] is not None])
        for edge in edges:
            kind = edge[0]
            if kind == _CALLS and edge[7] is not None and (
                    edge[8] not in _FUNCTION_NODES or edge[8] == NodeKind.GLOBAL_KERNEL
                    or not (edge[13] in (1, 2) or in_functor or (edge[13] == 3 and composite))):
                continue  # most edges: a call of what leads to no device work (as below; decided before any object)
            if device is not None and (why := self.branches.ruled_out(edge[2], edge[3], device)) is not None:
                walk.off_device.setdefault(why, {})[edge[5] or str(edge[0])] = None
                continue
            _kind, dst, file, line, how, target, detail, *n = edge
            loc = Location(file, line) if file else None
            dn = _Node(*n) if n[0] is not None else None
            if kind == EdgeKind.DTYPES:
                yield Step(StepKind.DTYPES, target, loc, detail=detail, depth=level), None, False
            elif kind == EdgeKind.USES_STUB and dn is not None:
                yield from self._stub_steps(dn, loc, level, walk)
            elif kind == EdgeKind.LAUNCHES:
                yield Step(StepKind.LAUNCH, target or "kernel", loc, detail=detail, depth=level, how=how), None, False
                if dn is not None:
                    yield Step(StepKind.GLOBAL_KERNEL, dn.name, dn.loc, depth=level, how=how), None, False
            elif kind == EdgeKind.RUNS_FUNCTOR:
                if dn is not None:
                    yield Step(StepKind.FUNCTOR, dn.name, dn.loc, detail=f"run by {detail}", depth=level, how=how,
                               site=loc), dn, True
                elif target.startswith("lambda"):
                    yield Step(StepKind.LAUNCH, target, loc, detail=detail, depth=level), None, False
            elif kind == EdgeKind.CALLS_LIBRARY:
                yield Step(StepKind.LIBRARY, target, loc, detail=detail, depth=level, how=how), None, False
            elif kind == EdgeKind.REDISPATCHES_TO_OP and dn is not None:
                yield from self._redispatch(dn, loc, level, detail, walk)
            elif kind == EdgeKind.CALLS and dn is None and how in _SEVERAL and "lead to device" in (detail or ""):
                walk.too_many[f"{target} ({detail})"] = None
            elif kind == EdgeKind.CALLS and dn is not None and dn.kind in _FUNCTION_NODES:
                if dn.kind == NodeKind.GLOBAL_KERNEL or not (
                        dn.device_path in (1, 2) or in_functor or (dn.device_path == 3 and walk.key in _COMPOSITE)):
                    continue  # nothing device-bound below it (a composite follows redispatches); a __global__: its launch
                if how in _SEVERAL:
                    ambiguous.setdefault((file, line, target), []).append((dn, how, detail, loc))
                    continue
                yield Step(StepKind.CALL, dn.name, dn.loc, depth=level, how=how, site=loc), dn, False
        for (_file, _line, target), cands in ambiguous.items():
            if len(cands) > (OVERLOAD_FANOUT if cands[0][1] == How.OVERLOAD_SET else FANOUT):
                walk.too_many[target] = None
                continue
            for dn, how, detail, loc in cands:
                yield Step(StepKind.CALL, dn.name, dn.loc, depth=level, how=f"{how}({detail})", site=loc), dn, False

    def _stub_steps(self, stub: _Node, loc: Location | None, level: int, walk: _Walk):
        yield Step(StepKind.STUB, stub.name, loc, depth=level, how=How.EXACT), None, False
        order = {EdgeKind.DECLARED_AT: 0, EdgeKind.DEFINED_AT: 1}
        for kind, _dst, file, line, how, target, detail, *n in sorted(self.edges(stub.id),
                                                                        key=lambda e: order.get(e[0], 2)):
            where = Location(file, line)
            if kind == EdgeKind.DECLARED_AT:
                yield Step(StepKind.DECLARED, stub.name, where, depth=level), None, False
            elif kind == EdgeKind.DEFINED_AT:
                yield Step(StepKind.DEFINED, stub.name, where, depth=level), None, False
            elif kind == EdgeKind.REGISTERS:
                device, _, arch = (detail or "").partition(" ")
                if walk.device is not None and device != walk.device:
                    continue
                yield Step(StepKind.REGISTERED, target, where, device, arch or None, level, how), None, False
                if n[0] is not None:
                    dn = _Node(*n)
                    yield Step(StepKind.DEFINITION, dn.name, dn.loc, device, depth=level, how=how, site=where), \
                        dn, False

    def _redispatch(self, op: _Node, loc: Location | None, level: int, detail: str | None, walk: _Walk):
        """The op, and its kernel for the walk's key (a composite walk: for CPU and CUDA) to go on in."""
        yield Step(StepKind.REDISPATCH, op.name, loc, depth=level, how=How.OP, detail=detail), None, False
        if level > 0 and walk.key not in _COMPOSITE:
            return  # a backend kernel's helpers call many small ops; only its own body's redispatches are followed
        for key, dn in self._kernels_of(op.id, walk.key):
            yield Step(StepKind.DEFINITION, dn.name, dn.loc, key, detail=f"{op.name} {key}", depth=level,
                       how=How.YAML, site=loc), dn, False

    def _prefetch_kernels(self, ops: list[int]) -> None:
        """Read the edges of these op nodes and of their kernel nodes, a statement per level (as _kernels_of
        reads them one by one)."""
        if ops:
            self.prefetch(ops)
            self.prefetch(e[7] for op in ops for e in self._edges[op]
                          if e[0] == EdgeKind.HAS_KERNEL and e[7] is not None)

    def _kernels_of(self, op: int, key: str) -> list[tuple[str, _Node]]:
        """The kernels a redispatch to `op` runs: the same key's, else a composite one's; from a composite
        kernel, those of CPU and CUDA."""
        kernels: dict[str, _Node] = {}
        for kind, _dst, _f, _l, _how, _target, detail, *n in self.edges(op):
            if kind != EdgeKind.HAS_KERNEL or n[0] is None:
                continue
            for ikind, _d, _f2, _l2, _h, _t, _detail, *m in self.edges(n[0]):
                if ikind == EdgeKind.IMPLEMENTS and m[0] is not None:
                    kernels.setdefault(detail, _Node(*m))
        wanted = _RUNTIME_OF_COMPOSITE if key in _COMPOSITE else (key,)
        out = []
        for k in wanted:
            got = next(((c, kernels[c]) for c in (k, *_COMPOSITE) if c in kernels), None)
            if got is not None and got not in out:
                out.append(got)
        return out

    def helper_chain(self, name: str, key: str, depth: int, why: str, caller: int | None = None,
                     at: int = 0) -> tuple[list[Step], tuple[Truncation, ...]]:
        """Generated code calling a helper of the checkout (a ufunc kernel's cpu_kernel_vec or gpu_kernel):
        the helper's definition for the key's device, and the chain below it; `at` is the helper step's index
        in the chain these steps go into, `caller` that of the step calling it (their parents)."""
        cuda = device_of(key) in ("CUDA", "HIP")
        rows = self.conn.execute(
            "SELECT n.name, d.kind, n.file, n.line, n.end_line, d.signature FROM definitions d JOIN nodes n "
            "ON n.ref = d.id AND n.kind IN (?, ?) WHERE d.name = ? AND substr(d.file, 1, 21) = 'aten/src/ATen/native/' "
            "ORDER BY d.file, d.line", (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, name)).fetchall()
        rows = [r for r in rows if is_cuda(r[2]) == cuda]
        if not rows:
            return [], ()
        helper = Definition(rows[0][0], rows[0][1], Location(rows[0][2], rows[0][3]), rows[0][4], rows[0][5])
        below, cuts = self.chain(helper, key, depth)
        return [Step(StepKind.CALL, helper.qualified_name, helper.loc, detail=why, how=How.GENERATED, parent=caller),
                *[replace(s, depth=s.depth + 1, parent=at if s.parent is None else s.parent + 1 + at) for s in below]], cuts

    # -- composite ops and backward -------------------------------------------------------------

    def ops_called(self, fn: Definition, op_bases: set[str]) -> list[Step]:
        """The ops a kernel's own body calls through the dispatcher are steps of its chain: none here."""
        return []

    def formula_calls(self, formulas: list[str], op_bases: set[str]) -> list[Step]:
        """What backward formulas call: ops, and helpers defined in the sources (FunctionsManual.cpp ...)."""
        names = dict.fromkeys(n for f in formulas for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", f))
        out = []
        for n in names:
            op = _op_of(n, op_bases)
            if op is not None:
                out.append(Step(StepKind.OP, op, None))
                continue
            found = self.conn.execute(
                "SELECT qualified_name, kind, file, line, end_line, signature FROM definitions WHERE name = ? AND "
                "kind = ? AND substr(file, 1, ?) = ? LIMIT 1",
                (n, DefinitionKind.FUNCTION, len(_AUTOGRAD), _AUTOGRAD)).fetchone()
            if found:
                out.append(Step(StepKind.CALL, found[0], Location(found[2], found[3])))
        return out


def _op_of(name: str, op_bases: set[str]) -> str | None:
    from ..indexer import naming

    return next((c for c in naming.cpp_function_forms(name) if c in op_bases), None)


__all__ = ["GENERATED", "Linker", "device_of", "is_cuda", "meta_function", "StubKind"]
