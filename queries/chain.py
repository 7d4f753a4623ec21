"""Walking the graph the link stage resolved at build time (tables nodes and edges):
(op, key) -> kernel definition -> stubs -> registered kernels -> helper layers -> launches and
__global__ kernels, vendor calls, functors and lambdas, dtype sets, and redispatches into other ops.

The walk is breadth first from the kernel's definition, each function once, to `depth` levels of
calls. A call is followed when its target leads to device work (nodes.device_path) or when it is
made inside a functor a helper runs (the loop functions below cpu_kernel_vec's VectorizedLoop2d);
calls that lead nowhere near device code (checks, sizes, TensorIterator plumbing) are not steps.
A backend kernel's own body's redispatches are followed into the ops' kernels for the same key; a
thin kernel (one that reaches device work only through the dispatcher, device_path 3) has the helpers
it calls that do the same, and the thin composite kernels its redispatches reach, walked as part of
its body (_body).
What a limit keeps the walk from following comes back as Truncation records.

The reverse walk (ops-for) is queries/reverse.py.
"""

from __future__ import annotations

import gc
import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..indexer.facts import Location
from ..indexer.link.kinds import SEVERAL, EdgeKind, How, NodeKind, stub_edge_order
from ..indexer.naming import stub_base, ufunc_base, ufunc_stub, ufunc_stub_kernel
from ..indexer.vocab import BASE_BUILD, DefinitionKind, StepKind, StubKind, key_build
from . import chain_store
from .device_branches import Branches, branch_device, dense
from .results import Definition, Step, Truncation, new_step

GENERATED = "generated"
UFUNC_SOURCES = "aten/src/ATen/native/ufunc/"  # where the ufunc:: functions of ufunc_inner_loop ops live
CHAIN_MEMO = 512  # chains a Linker keeps (the oldest goes first): a long-lived server's memory stays bounded
RULE = -1  # the limit of a truncation that a rule made, not a limit (Truncation prints none)
FANOUT = 4  # an ambiguous call's candidates are followed only up to this many
OVERLOAD_FANOUT = 12  # and the overloads of one overload set
_AUTOGRAD = "torch/csrc/autograd/"  # where the helpers of backward formulas live
_FUNCTION_NODES = (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, NodeKind.STRUCTURED)
COMPOSITE = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")
RUNS_ON = " <- "  # a walk's key `CPU <- CompositeExplicitAutograd`: the composite kernel the runtime key CPU runs
_RUNTIME_OF_COMPOSITE = ("CPU", "CUDA")
_NESTED = "NestedTensor"  # the nested keys (NestedTensorCPU, NestedTensorCUDA, ...): _kernels_of
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


def ufunc_helpers(loop_keys: set[str], cuda: bool) -> list[str]:
    """The helpers torchgen's generated kernels of a ufunc_inner_loop op call (torchgen/dest/ufunc.py):
    gpu_kernel on CUDA; on CPU cpu_kernel_vec for the dtypes with a CPUVector loop (a Generic entry gives one)
    and cpu_kernel for scalar-only ones."""
    if cuda:
        return ["gpu_kernel"]
    return [h for h, wanted in (("cpu_kernel_vec", {"Generic", "CPUVector"}), ("cpu_kernel", {"ScalarOnly", "CPUScalar"}))
            if loop_keys & wanted]


def ufunc_stub_loops(conn: sqlite3.Connection) -> dict[str, list[tuple[str, str, str, str, int]]]:
    """The ufunc_inner_loop entries of each op that has them, by the stub torchgen declares and registers for the op
    (naming.ufunc_stub of its name: add_stub for add.out): (ufunc key, loop name, dtypes, and the file and line of
    the op's ufunc dispatch entry in native_functions.yaml). The one place kernels-for, stub and ops-for take the
    generated stub and its kernel (naming.ufunc_stub_kernel) from."""
    by_op: dict[int, tuple[str, list[tuple[str, str, str, str, int]]]] = {}
    for op, base, ufunc_key, name, dtypes, file, line in conn.execute(
            "SELECT l.op_id, o.base, l.ufunc_key, l.name, l.dtypes, k.file, k.line FROM ufunc_loops l "
            "JOIN ops o ON o.id = l.op_id JOIN dispatch k ON k.op_id = l.op_id AND k.origin = 'ufunc' "
            "GROUP BY l.id ORDER BY l.id"):
        by_op.setdefault(op, (base, []))[1].append((ufunc_key, name, dtypes, file, line))
    out: dict[str, list[tuple[str, str, str, str, int]]] = {}
    for base, loops in by_op.values():
        out.setdefault(ufunc_stub(base), loops)
    return out


def loop_names(loops: list[tuple]) -> list[str]:
    """The distinct names of ufunc_inner_loop entries (their second field), in order: the ufunc:: functions run."""
    return list(dict.fromkeys(loop[1] for loop in loops))


def ufunc_definitions(conn: sqlite3.Connection, base: str) -> list[tuple[str, str, int]]:
    """(qualified name, file, line) of the ufunc:: functions of native/ufunc/ named `base`, by file and line."""
    return conn.execute("SELECT qualified_name, file, line FROM definitions WHERE substr(file, 1, ?) = ? AND name = ? "
                        "ORDER BY file, line", (len(UFUNC_SOURCES), UFUNC_SOURCES, base)).fetchall()


def is_cuda(path: str) -> bool:
    return path.endswith((".cu", ".cuh")) or "/cuda/" in path


class _Node(NamedTuple):
    """A node of the graph, as an edge's target columns give it (one per node: the Linker keeps them)."""

    id: int
    kind: str
    name: str
    loc: Location | None
    device_path: int


# What a call edge to a function needs of the walk to be shown (nodes.device_path, indexer/link/nodes.py):
# a call of what leads to device work (1, 2) always, of what leads there only through redispatches (3) in a
# composite walk or a functor, of anything else only in a functor; a call of any other node never.
ALWAYS, COMPOSITE_OR_FUNCTOR, FUNCTOR_ONLY, NEVER = range(4)


def _need(node: _Node | None) -> int:
    if node is None or node.kind not in (NodeKind.FUNCTION, NodeKind.STRUCTURED):
        return NEVER
    return ALWAYS if node.device_path in (1, 2) else COMPOSITE_OR_FUNCTOR if node.device_path == 3 else FUNCTOR_ONLY


@dataclass
class _Walk:
    """One chain being built: its steps (each once), the functions visited, and what limits left out."""

    key: str
    device: str | None
    composite: bool = False  # a composite key's walk follows redispatches below its kernel's own body
    branch: str | None = None  # the device whose branches the walk follows (device_branches.branch_device)
    dense: bool = False  # the key's tensors are dense (device_branches.dense): layout tests are false
    thin: bool = False  # the kernel reaches device work only through the dispatcher (its device_path is 3)
    build: str = BASE_BUILD  # the device of vocab.DEVICE_BUILDS whose build the chain is (vocab.key_build)
    steps: list[Step] = field(default_factory=list)
    marks: dict[tuple, int] = field(default_factory=dict)  # a step's identity -> its index in steps
    visited: set[int] = field(default_factory=set)
    too_deep: dict[str, None] = field(default_factory=dict)
    too_many: dict[str, None] = field(default_factory=dict)

    sites: set[tuple[str, int]] = field(default_factory=set)  # the call sites of the steps so far
    off_device: dict[str, dict[str, None]] = field(default_factory=dict)  # a branch that never runs on the
    # walk's device -> the calls written in it
    uncompiled: dict[str, dict[str, None]] = field(default_factory=dict)  # lines under an #if no build compiles
    other_build: dict[str, dict[str, None]] = field(default_factory=dict)  # why the device's build does not
    # compile a definition (configurations.build_reason) -> the calls of such definitions (_other_builds)
    reads: set[int] = field(default_factory=set)  # the nodes whose edges the walk read (chain_store: what it read)
    names: set[str] = field(default_factory=set)  # the names it looked definitions up by

    def add(self, fields: tuple, parent: int | None) -> int:
        """The step of these fields (_step's order), found below the step at index `parent`, once: its index
        in the chain. A step is made only the first time: its identity is the fields before depth and how."""
        kind, name, loc, device, detail, site, depth, how = fields
        count = len(self.steps)
        at = self.marks.setdefault((kind, name, id(loc), device, detail, id(site)), count)
        if at == count:
            self.steps.append(new_step(kind, name, loc, device, detail, depth, how, site, parent))
            if site is not None:
                self.sites.add((site.file, site.line))
        return at

    def left_out(self, why: str, name: str, never: set[str]) -> None:
        """A call not followed: in a branch the walk's device never takes, or (`why` in `never`, Branches.never)
        under an #if the checkout's own #defines make false."""
        (self.uncompiled if why in never else self.off_device).setdefault(why, {})[name] = None

    def truncations(self, depth: int) -> tuple[Truncation, ...]:
        cuts = []
        if self.too_deep:
            cuts.append(Truncation("calls below --depth not followed", depth, tuple(self.too_deep)))
        if self.too_many:
            cuts.append(Truncation(f"ambiguous calls with more than {FANOUT} candidates, some leading to device "
                                   "work, not followed", FANOUT, tuple(self.too_many)))
        if self.off_device:
            where = f"on {self.branch}" if self.branch else "in a desktop or server build"  # (no device: #if only)
            cuts.append(Truncation(f"calls in branches that never run {where}, "
                                   "not followed", RULE,
                                   tuple(f"{where}: {', '.join(names)}" for where, names in self.off_device.items())))
        if self.uncompiled:
            cuts.append(Truncation("calls under an #if that the checkout's own #defines make false in every build, "
                                   "not followed", RULE,
                                   tuple(f"{where} -> {', '.join(names)}" for where, names in self.uncompiled.items())))
        for why, calls in self.other_build.items():
            cuts.append(Truncation(f"calls of definitions that {why}, where it compiles another, not followed", RULE,
                                   tuple(calls)))
        return tuple(cuts)


# The macros a placeholder kernel's body is made of (`AT_ERROR("... not compiled with cuDNN")`).
_RAISES = frozenset(("AT_ERROR", "TORCH_CHECK", "TORCH_CHECK_NOT_IMPLEMENTED", "TORCH_INTERNAL_ASSERT",
                     "C10_THROW_ERROR", "TORCH_CHECK_VALUE", "TORCH_CHECK_TYPE"))


def _plain_guard(guard: str) -> str:
    """A guard as it reads best: `!((!AT_CUDNN_ENABLED()))`, an #else of `#if (!AT_CUDNN_ENABLED())`, is
    AT_CUDNN_ENABLED(); parentheses around the whole go, and a negated negation of one term."""
    while True:
        guard = guard.strip()
        if guard.startswith("(") and guard.endswith(")") and _balanced(guard[1:-1]):
            guard = guard[1:-1]
        elif guard.startswith("!(") and guard.endswith(")") and _balanced(guard[2:-1]):
            inner = _plain_guard(guard[2:-1])
            if not (inner.startswith("!") and "&&" not in inner and "||" not in inner):
                return guard
            guard = inner[1:]
        else:
            return guard


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth < 0:
            return False
    return depth == 0


# What a node the walk goes on in is to the kernel's body (_body): none of it, a helper or kernel that works only
# through the dispatcher (a thin kernel's body), or a helper of a composite kernel walked for a runtime key.
NOT_BODY, THIN, COMPOSITE_BODY = 0, 1, 2
_NONE_DEFAULTED: frozenset[int] = frozenset()
_DEFAULTS_PAST = 32  # the parameters past a call's arguments counted as left to their defaults (more than any has)
# The steps that are device work a kernel does itself: without one, a backend kernel is walked as thin (_walk).
_DEVICE_WORK = frozenset((StepKind.STUB, StepKind.LAUNCH, StepKind.GLOBAL_KERNEL, StepKind.LIBRARY,
                          StepKind.FUNCTOR, StepKind.DTYPES, StepKind.UFUNC))


def _body(fields: tuple, target: _Node, body: int) -> int:
    """Whether a node the walk goes on in is walked as part of a thin kernel's body (its redispatches followed, its
    calls of functions that reach device work only through the dispatcher shown): a helper the body calls that is
    thin too (device_path 3), and a kernel that is thin, reached by a redispatch from the body: a composite one
    (`at::sort` -> at::native::sort, which redispatches to sort.values_stable) or one of the walk's key (hardtanh ->
    `at::hardtanh_out` -> the CUDA kernel hardtanh_out, which redispatches to clamp.out). A kernel with device work
    of its own keeps its helpers' plumbing (resize_output, TensorIterator's cast_outputs) out, except a composite
    kernel reached by a redispatch from the body: its work is mostly the ops it redispatches to (1.13.1's div.Scalar
    kernel fills a 0-dim tensor and redispatches to div.Tensor, BinaryOps.cpp:754-755), which are followed. A stub's
    registered function that is thin is a kernel's body wherever the walk meets it: it is the device's kernel
    (2.6.0 cuda/TensorCompare.cpp:11, isin_default_kernel_gpu, computes isin with ne, all, eq and any). A composite
    kernel walked for a runtime key (`CUDA <- CompositeImplicitAutograd`) works through the dispatcher whatever its
    device_path says: every helper it calls is its body (matmul's _matmul_impl, whose at::mm and at::bmm are the
    work on CUDA, has device_path 1 through resize_output), down to the kernels its redispatches reach, which keep
    their own rules."""
    if fields[0] == StepKind.DEFINITION and fields[7] == How.REGISTERED and target.device_path == 3:
        return THIN
    if not body:
        return NOT_BODY
    redispatched = fields[0] == StepKind.DEFINITION and fields[7] == How.YAML  # an op's kernel a redispatch runs
    if redispatched and fields[3] in COMPOSITE:
        return body
    if body == COMPOSITE_BODY and fields[0] == StepKind.CALL:
        return COMPOSITE_BODY
    return THIN if target.device_path == 3 and (fields[0] == StepKind.CALL or redispatched) else NOT_BODY


def _step(kind: str, name: str, loc: Location | None, depth: int, device: str | None = None,
          detail: str | None = None, how: str | None = None, site: Location | None = None) -> tuple:
    """A step's fields in _Walk.add's order: its identity (kind, name, loc, device, detail, site), depth, how."""
    return kind, name, loc, device, detail, site, depth, how


NATIVE = "aten/src/ATen/native/"  # the kernels' folder
PER_DTYPE = "run per dtype by the dispatch"  # Step.detail of a call _instantiated finds


# The edges a walk can show: every edge with a target, and of those without one the places (dtypes, a
# stub's declaration and definition, nullptr registrations, lambdas run) and the ambiguous calls some of
# whose candidates lead to device work; calls ending in a macro, the standard library or a type are not read.
# Of the calls with a target, those of functions (_need: not NEVER), and outside a functor only those that
# lead to device work; calls through a template parameter all (_bound_here picks among them by call site).
# A per-build-configuration call's detail is its target's guard (nodes.detail: the conditions that compile it), not
# the edge's count of candidates: a walk for a device follows the one its build compiles (_other_builds).
# The nodes are one JSON array parameter: one statement text per mode, prepared once per connection (an IN
# list of ? has a text per length, and preparing is most of the cost of reading); rows come in the order of
# ix_edges_src (src, then id), with no sort.
_EDGES = ("SELECT e.src, e.kind, e.dst, e.file, e.line, e.how, e.target, "
          f"CASE WHEN e.how = '{How.PER_BUILD}' THEN n.detail ELSE e.detail END, n.kind, n.name, n.file, n.line, "
          "n.device_path FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
          "WHERE e.src IN (SELECT value FROM json_each(?)) AND "
          "(e.dst IS NOT NULL OR e.kind != 'calls' OR e.detail LIKE '%lead to device work%') AND "
          f"(e.kind != '{EdgeKind.CALLS}' OR n.id IS NULL OR e.how = '{How.TEMPLATE_ARGUMENT}' OR "
          f"(n.kind IN ('{NodeKind.FUNCTION}', '{NodeKind.STRUCTURED}') AND {{}})) ORDER BY e.src, e.id")
# Outside a functor, also the calls of a function template of native/ with a loop in its body that name the
# dispatch's `scalar_t` in their template arguments (_instantiated: the per-dtype loop an AT_DISPATCH lambda runs,
# when it does no device work).
_SHOWN = _EDGES.format("(n.device_path IN (1, 2, 3) OR (n.device_path = 0 AND (instr(e.target, 'scalar_t') OR "
                       f"e.how = '{How.OVERLOAD_SET}') AND substr(n.file, 1, {len(NATIVE)}) = '{NATIVE}' AND "
                       "EXISTS (SELECT 1 FROM definitions d WHERE d.id = n.ref AND d.loops)))")  # outside a functor
# ... and the members of an overload set of native/ with a loop in their body (_loop_overload).
_FUNCTOR = _EDGES.format("1")  # a functor's body: every call of a function
_BATCH = 500  # nodes whose edges one statement reads
# An op node's (op, key) kernels (has-kernel, whose detail is the key) and the definition implementing each,
# in the order of the edges (the first definition of a key is its kernel). The kernel node between them is not
# read: the build makes a has-kernel edge and the implements edge out of its target together, from one kernel
# node (indexer/link/edges.py op_edges), so that an implements edge from it is enough.
# A kernel torchgen writes at build time is not in the checkout: its (op, key) node stands for it, named by the
# kernel with ` [generated]`: an autogen'd or view_copy op's, where the graph says which op it calls (a generated
# redispatches-to-op edge), or a ufunc_inner_loop op's (ufunc_add_CPU: Linker._expand walks what it runs).
_KERNELS = ("SELECT hk.src, hk.detail, n.id, n.kind, CASE WHEN im.dst IS NULL THEN im.target || ' [generated]' "
            "ELSE n.name END, n.file, n.line, n.device_path FROM edges hk JOIN edges im ON im.src = hk.dst "
            f"JOIN nodes n ON n.id = coalesce(im.dst, CASE WHEN im.how = '{How.GENERATED}' THEN hk.dst END) "
            f"WHERE hk.src IN (SELECT value FROM json_each(?)) AND hk.kind = '{EdgeKind.HAS_KERNEL}' AND "
            f"im.kind = '{EdgeKind.IMPLEMENTS}' ORDER BY hk.src, hk.id, im.id")


# A callee written with template arguments that name `scalar_t`, without a receiver: `loss_kernel<scalar_t>(...)`,
# `at::native::vol2col<scalar_t>(...)`; not `x.data_ptr<scalar_t>()` nor `accscalar_t`.
_SCALAR_ARGUMENT = re.compile(r"[\w:]+<[^()]*\bscalar_t\b")


def _instantiated(edges: list, target: str | None, dn: _Node) -> bool:
    """Whether a call of a function that leads to no device work (or to some only through the dispatcher, with a loop:
    _loops) is the loop an AT_DISPATCH lambda runs per dtype,
    which a C++ reader follows as the kernel's body (multi_margin_loss_out_cpu_template's `multi_margin_loss_cpu_kernel
    <scalar_t>(...)` in its AT_DISPATCH_FLOATING_TYPES, 2.6.0 LossMultiMargin.cpp:138, the innermost loop): a function
    template of native/ called with the dispatch's `scalar_t` by a function that dispatches on dtypes (_SHOWN read
    only those with a loop in their body: a per-dtype check such as checkQuantizedTensor<scalar_t> is no loop)."""
    return dn.loc is not None and dn.loc.file.startswith(NATIVE) and target is not None and \
        _SCALAR_ARGUMENT.match(target) is not None and any(e[0] == EdgeKind.DTYPES for e in edges)


def _device_build(fields: tuple) -> str | None:
    """The build a composite walk goes on in below a step: a definition for a device's key (a redispatched op's
    kernel, a stub's registered kernel for CUDA) is that device's build (vocab.key_build), so that what only another
    build compiles is left out there as in the device's own chain (c10/cuda/CUDAFunctions.h:92's hipMemcpyWithStream,
    a ROCm build's, below copy_'s CUDA kernel); None for any other step (the walk's own). Its device's branches are
    not the walk's: a composite kernel's tensors may be on several devices (copy_ from CPU to CUDA runs CUDA's
    kernel, through the branch for a CPU side)."""
    kind, _name, _loc, key = fields[:4]
    if kind != StepKind.DEFINITION or not key or key in COMPOSITE:
        return None
    return key_build(key)


def _loop_overload(edges: list, i: int, shown: int) -> bool:
    """Whether the overload-set call edges[i], to a loop function of native/ that leads to no device work (_SHOWN
    read only those), is a member of an overload set another member of which the walk shows at the same call: each
    overload is a per-dtype loop the call may run, and a C++ reader names every one (2.6.0 cpu/BlasKernel.cpp:450's
    gemm_notrans_ is :104's plain loop for float and double, chosen by enable_if, beside :140's for Half and
    BFloat16, which calls sum)."""
    _kind, _dst, file, line, _how, target = edges[i][:6]
    return any(e[2] == file and e[3] == line and e[5] == target and e[4] == How.OVERLOAD_SET and e[8] is not None
               and e[9] <= shown for e in edges)


def _other_builds(edges: list, device: str) -> dict[int, str]:
    """The positions in `edges` of the per-build-configuration calls whose definition the device's build does not
    compile (its guard and the device's DEVICE_BUILDS condition, link/configurations.py, exclude each other), where
    that build compiles another definition of the same call: 1.13.1 Loops.cuh:105's gpu_kernel_impl is CUDALoops.cuh's
    in a CUDA build and ROCmLoops.cuh's in a ROCm one (each header is included under its own #if, Loops.cuh:77-81);
    each with why that build does not compile it (configurations.build_reason)."""
    sites: dict[tuple, list[int]] = {}
    for i, e in enumerate(edges):
        if e[4] == How.PER_BUILD and e[0] == _CALLS:
            sites.setdefault((e[2], e[3], e[5]), []).append(i)
    if not sites:
        return {}
    from ..indexer.link.configurations import build_condition, build_reason, exclusive  # (a walk's; a query
    # process that reads stored chains does without the guard parser)

    build = build_condition(device)
    out: dict[int, str] = {}
    for members in sites.values():
        other = [i for i in members if exclusive(edges[i][6], build)]
        if len(other) < len(members):
            out.update((i, build_reason(device, edges[i][6] or "")) for i in other)
    return out


def _build_detail(how: str, guard: str | None) -> str | None:
    """A per-build-configuration call step's detail: the guard of the definition it shows (`#if !defined(USE_ROCM)`)."""
    return f"#if {_plain_guard(guard)}" if how == How.PER_BUILD and guard else None


def _run_as_functor(edges: list, file: str, line: int, dst: int) -> bool:
    """Whether a runs-functor edge of the same line reaches the node (`K<RNG>()(x)` both runs and calls K's
    operator(): the functor step shows it)."""
    return any(e[0] == EdgeKind.RUNS_FUNCTOR and e[1] == dst and e[2] == file and e[3] == line for e in edges)


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


# A dispatch row's implements edges and their targets (parameters: the kernel node kind, the implements edge kind),
# as _definition_of reads them: the target's name, kind, place, end line and signature, the edge's how and detail.
_IMPLEMENTED = ("n.name, d.kind, n.file, n.line, n.end_line, d.signature, e.how, e.detail FROM dispatch k "
                "JOIN nodes kn ON kn.ref = k.id AND kn.kind = ? JOIN edges e ON e.src = kn.id AND e.kind = ? "
                "LEFT JOIN nodes n ON n.id = e.dst LEFT JOIN definitions d ON d.id = n.ref")
# Every dispatch row of one op with its kernel node's implements edges, in the rows' order and each row's edges' (the
# first edge is the row's definition, as Linker._definition's LIMIT 1 reads it for one row).
_OP_DEFINITIONS = (f"SELECT k.key, k.kernel, k.cpp_namespace, k.origin, k.structured, n.id, {_IMPLEMENTED} "
                   "WHERE k.op = ? ORDER BY k.id, e.id")


def _definition_of(row: tuple | None) -> tuple[Definition | None, str, int]:
    """definition()'s answer from an implements edge's row (the target's name, kind, place, end line and
    signature, the edge's how and detail); None: the (op, key) row has no implements edge."""
    if row is None:
        return None, "no definition in the sources", 0
    name, kind, file, line, end, signature, how, detail = row
    if how == How.GENERATED:
        return None, GENERATED, 0
    if name is None:
        return None, detail or "no definition in the sources", 0
    count = re.match(r"by-key: (\d+)", detail or "")
    return Definition(name, kind, Location(file, line), end, signature), "", int(count.group(1)) if count else 1


class Linker:
    """Walks the graph through an open index connection."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._op_bases: set[str] | None = None
        self._is_base: dict[str, bool] = {}  # op_bases_among's answers by name
        # A node's edges as the walk reads them: (kind, dst, file, line, how, target, detail, loc, target node,
        # _need), outside a functor (_SHOWN) and in one (every call of a function: a superset).
        self._edges: dict[int, list[tuple]] = {}
        self._functor_edges: dict[int, list[tuple]] = {}
        self._templates: set[int] = set()  # nodes with calls through a template parameter (for _bound_here)
        self._has_loops: dict[int, bool] = {}  # _loops
        self._targets: dict[int, _Node] = {}  # the edges' target nodes, by id
        self._places: dict[tuple[str, int], Location] = {}
        # The database does not change: a chain walked once from a node, for a key and a depth, is the same
        # every time (an answer's keys sharing a definition, repeated questions, ops sharing helpers).
        self._chains: dict[tuple[int, str, int, bool], tuple[list[Step], tuple[Truncation, ...]]] = {}
        self._nodes: dict[tuple[str, str, int], int | None] = {}
        self._definitions: dict[tuple, tuple[Definition | None, str, int]] = {}  # definition()'s answers
        self._ops_read: set[tuple[str, int]] = set()  # the ops (and depths) op_definitions read
        self._definition_nodes: dict[Definition, int] = {}  # a definition's node, where a row named it (_node_of)
        self._ufunc_functions: dict[str, list[tuple[str, Location]]] = {}  # ufunc_functions()'s answers
        self._bodies: dict[tuple[int, str, int, bool], bytes] = {}  # stored chains read ahead (_prefetch_stored)
        self._bodies_read: set[tuple[int, int, bool]] = set()  # the (node, depth, kernel) whose rows were read ahead
        self.branches = Branches(conn)
        self._sorted: dict[int, list[tuple]] = {}  # a stub's edges in _stub_edges's order
        self._kernel_table: dict[int, dict[str, _Node]] = {}  # an op node's kernels: key -> implementing node
        self._op_kernels: dict[tuple[int, str], list[tuple[str, _Node]]] = {}  # _kernels_of's answers
        self._ufuncs: dict[str, list[tuple[str, str, str, Location]]] | None = None  # _ufunc_loops's answer
        self._generated_ufunc: dict[int, tuple[str, str]] = {}  # a generated ufunc kernel's node -> (base, its key)
        self.stored_chains = True  # read the chains the build walked (chain_store); False: walk every chain
        self._stored: bool | None = None  # whether the index's stored chains are this code's (chain_store.usable)
        # Set by the build's chain stage: called with each chain walked (memo key, steps, truncations, the nodes
        # and names the walk read); a recording Linker walks every chain, reading none stored.
        self.record: Callable[[tuple, list[Step], tuple[Truncation, ...], set[int], set[str]], None] | None = None

    def op_bases(self) -> set[str]:
        """Base names of every op, also without a trailing underscore (add_ -> add)."""
        if self._op_bases is None:
            bases = {r[0] for r in self.conn.execute("SELECT DISTINCT base FROM ops")}
            self._op_bases = bases | {b.rstrip("_") for b in bases}
        return self._op_bases

    def edges(self, node: int, functor: bool = False) -> list[tuple]:
        """The edges out of a node a walk can show (in id order), each with its target node's columns."""
        got = self._functor_edges.get(node) if functor else self._edges.get(node, self._functor_edges.get(node))
        if got is None:
            self.prefetch((node,), functor)
            got = (self._functor_edges if functor else self._edges)[node]
        return got

    def _read(self, node: int, functor: bool) -> bool:
        return node in self._functor_edges or (not functor and node in self._edges)

    def prefetch(self, nodes, functor: bool = False) -> None:
        """Read the edges of every node not read yet, a statement per _BATCH nodes (a walk's queue at once)."""
        todo = list(dict.fromkeys(n for n in nodes if not self._read(n, functor)))
        into = self._functor_edges if functor else self._edges
        for i in range(0, len(todo), _BATCH):
            part = todo[i:i + _BATCH]
            for n in part:
                into[n] = []
            targets, places = self._targets, self._places  # looked up here first: most rows repeat a place
            for src, kind, dst, file, line, how, target, detail, nkind, name, nfile, nline, device_path in \
                    self.conn.execute(_FUNCTOR if functor else _SHOWN, (f"[{','.join(map(str, part))}]",)):
                dn = None
                if nkind is not None:
                    dn = targets.get(dst) or self._node(dst, nkind, name, nfile, nline, device_path)
                if how == How.TEMPLATE_ARGUMENT:
                    self._templates.add(src)
                loc = (places.get((file, line)) or self.place(file, line)) if file else None
                into[src].append((kind, dst, file, line, how, target, detail, loc, dn,
                                  _need(dn) if kind == _CALLS else ALWAYS))

    def place(self, file: str, line: int) -> Location:
        """The Location of a file and line, one object for each (steps and marks share them)."""
        got = self._places.get((file, line))
        if got is None:
            got = self._places[(file, line)] = Location(file, line)
        return got

    def _node(self, node: int, kind: str, name: str, file: str | None, line: int | None, device_path: int) -> _Node:
        got = self._targets.get(node)
        if got is None:
            got = self._targets[node] = _Node(node, kind, name, self.place(file, line) if file else None, device_path)
        return got

    def definition(self, key: str, kernel: str, cpp_namespace: str, origin: str, structured: bool,
                   func: str = "") -> tuple[Definition | None, str, int]:
        """(the definition the link stage chose, reason when none, number of candidates), asked once."""
        asked = (key, kernel, cpp_namespace, origin, structured, func)
        got = self._definitions.get(asked)
        if got is None:
            got = self._definitions[asked] = self._definition(*asked)
        return got

    def op_definitions(self, op: str, func: str, depth: int) -> None:
        """definition()'s answers for every dispatch row of one op (whose schema is `func`), read in one statement:
        each row's kernel node and the first definition its implements edges name (a first answer asks for every
        key of an op at once). The definitions' nodes are kept for _node_of, and so are the chains the build
        kept for them as kernels at `depth` (_stored_chain), read in one more statement."""
        if (op, depth) in self._ops_read:
            return
        self._ops_read.add((op, depth))
        rows: dict[tuple, tuple] = {}
        for *asked, node, row in ((*r[:5], r[5], r[6:]) for r in self.conn.execute(_OP_DEFINITIONS, (
                NodeKind.KERNEL, EdgeKind.IMPLEMENTS, op))):
            rows.setdefault((asked[0], asked[1], asked[2], asked[3], bool(asked[4]), func), (node, row))
        nodes = []
        for asked, (node, row) in rows.items():
            if asked not in self._definitions:
                self._definitions[asked] = _definition_of(row)
            found = self._definitions[asked][0]
            if node is not None and found is not None:
                self._definition_nodes.setdefault(found, node)
                nodes.append(node)
        self._prefetch_stored(nodes, depth)

    def _definition(self, key: str, kernel: str, cpp_namespace: str, origin: str, structured: bool,
                    func: str) -> tuple[Definition | None, str, int]:
        sql = f"SELECT {_IMPLEMENTED} WHERE k.kernel = ? AND k.key = ? AND k.cpp_namespace = ? AND k.origin = ?"
        args: tuple = (NodeKind.KERNEL, EdgeKind.IMPLEMENTS, kernel, key, cpp_namespace, origin)
        if func:  # ops sharing a kernel name (to.dtype, to.device ...) have a definition each
            sql += " AND EXISTS (SELECT 1 FROM ops o WHERE o.id = k.op_id AND o.func = ?)"  # ops.func has no index
            args += (func,)
        return _definition_of(self.conn.execute(sql + " LIMIT 1", args).fetchone())

    def candidates_note(self, chosen: Definition, count: int, key: str = "") -> str:
        """Why a kernel had several definitions: each one's #if guard (a CUDA build and a placeholder under
        `!AT_CUDNN_ENABLED()`), which of them only raise (their body calls nothing but AT_ERROR, TORCH_CHECK and
        the like), and why the key's build does not compile the others (vocab.DEVICE_BUILDS): `2 definitions of
        this name; chose by the key: ConvShared.cpp:240 (#if AT_CUDNN_ENABLED()); not ConvPlaceholders.cpp:27 (#if
        !AT_CUDNN_ENABLED(); only raises: TORCH_CHECK; only a build without cuDNN (USE_CUDNN=0) compiles it)`."""
        rows = self.conn.execute(
            "SELECT file, line, name_line, end_line, guard FROM definitions WHERE qualified_name = ? AND kind IN (?, ?) "
            "ORDER BY file, line", (chosen.qualified_name, DefinitionKind.FUNCTION, DefinitionKind.METHOD)).fetchall()
        note = f"{count} definitions of this name; chose by the key"
        if not any(guard for *_rest, guard in rows):
            return note
        from ..indexer.link.configurations import build_condition, build_reason, exclusive

        device = key_build(key)
        build = build_condition(device)
        parts = []
        for file, line, name_line, end_line, guard in rows:
            shown = name_line or line  # where kernels-for points: the line the name is written on
            where = f"{file.rsplit('/', 1)[-1]}:{shown}"
            said = [f"#if {_plain_guard(guard)}"] if guard else []
            raises = self._only_raises(chosen.qualified_name, file, line)
            if raises:
                said.append(f"only raises: {', '.join(raises)}")
            if file != chosen.loc.file or chosen.loc.line not in (line, shown):
                if guard and exclusive(guard, build):
                    said.append(f"{build_reason(device, guard)} it")
                where = f"not {where}"
            parts.append(where + (f" ({'; '.join(said)})" if said else ""))
        chosen_first = sorted(parts, key=lambda p: p.startswith("not "))
        return f"{note}: {chosen_first[0]}; {', '.join(chosen_first[1:])}" if len(parts) > 1 else note

    def _only_raises(self, name: str, file: str, line: int) -> list[str]:
        """The error macros a definition's body calls when it calls nothing else, else []: read from the edges
        of its node (edges.src has an index; calls has none on file and line, and a scan of it costs most of a
        second)."""
        node = self._node_at(name, file, line)
        if node is None:
            return []
        rows = self.conn.execute("SELECT DISTINCT kind, target FROM edges WHERE src = ? ORDER BY target",
                                 (node,)).fetchall()
        called = [target for kind, target in rows]
        return called if rows and all(kind == EdgeKind.CALLS and target in _RAISES for kind, target in rows) else []

    def _node_of(self, d: Definition) -> int | None:
        """The node of a definition: the one an implements edge or a helper's row named for it (op_definitions,
        helper_chain: two overloads a macro writes at one line have a node each, RNN.cpp:1375's gru), else the
        first at its name and place."""
        node = self._definition_nodes.get(d)
        return node if node is not None else self._node_at(d.qualified_name, d.loc.file, d.loc.line)

    def _node_at(self, name: str, file: str, line: int) -> int | None:
        where = (name, file, line)
        if where not in self._nodes:
            row = self.conn.execute("SELECT id FROM nodes WHERE name = ? AND file = ? AND line = ? LIMIT 1",
                                    where).fetchone()
            self._nodes[where] = row[0] if row else None
        return self._nodes[where]

    # -- the chain ----------------------------------------------------------------------------

    def chain(self, start: Definition, key: str, depth: int,
              kernel: bool = False) -> tuple[list[Step], tuple[Truncation, ...]]:
        """The steps below a definition, breadth first to `depth` levels, and what was cut; `kernel`: the
        definition is the (op, key)'s kernel, which may be thin (_walk)."""
        node = self._node_of(start)
        if node is None:
            return [], ()
        return self._chain_at(node, key, depth, kernel)

    def generated_chain(self, op: str, key: str, depth: int,
                        walk_key: str) -> tuple[list[Step], tuple[Truncation, ...]]:
        """The steps below the kernel torchgen writes for an autogen'd or view_copy (op, key), not in the checkout:
        the op it calls through the dispatcher (its (op, key) node's generated redispatch edge) and that op's
        kernels for `walk_key`; none where the graph has no such edge. Walked as a kernel: the node reaches device
        work only through the dispatcher, so for a device's key it is thin (_walk) and the kernels it runs that are
        thin too have their redispatches followed (_aminmax.out -> _aminmax's _aminmax_all -> aminmax)."""
        row = self.conn.execute("SELECT id FROM nodes WHERE kind = ? AND name = ?", (NodeKind.KERNEL, f"{op} {key}"))
        node = row.fetchone()
        return self._chain_at(node[0], walk_key, depth, True) if node else ([], ())

    def chain_from(self, node: int, key: str, depth: int,
                   kernel: bool = False) -> tuple[list[Step], tuple[Truncation, ...]]:
        """The steps below a node given by id (the build's chain stage walks again the chains an edit may change,
        by the row's node, key, depth and kernel)."""
        return self._chain_at(node, key, depth, kernel)

    def _chain_at(self, node: int, key: str, depth: int,
                  kernel: bool) -> tuple[list[Step], tuple[Truncation, ...]]:
        memo = (node, key, depth, kernel)
        if memo not in self._chains:
            if len(self._chains) >= CHAIN_MEMO:
                del self._chains[next(iter(self._chains))]
            # A walk makes thousands of small objects (steps, tuples) and no reference cycles: the cyclic
            # collector, which would go over them again and again while they are made (about a tenth of a
            # first answer's time), waits until the walk is done.
            collecting = gc.isenabled()
            gc.disable()
            try:
                got = self._stored_chain(memo) if self.record is None else None
                if got is None:
                    steps, cuts, walk = self._walk(node, key, depth, kernel)
                    got = steps, cuts
                    if self.record is not None:
                        self.record(memo, steps, cuts, walk.reads, walk.names)
                self._chains[memo] = got
            finally:
                if collecting:
                    gc.enable()
        steps, cuts = self._chains[memo]
        return list(steps), cuts

    def _stored_chain(self, memo: tuple[int, str, int, bool]) -> tuple[list[Step], tuple[Truncation, ...]] | None:
        """The chain the build walked from this node for this key and depth (chain_store), if it kept one and
        this code made it."""
        if self._stored is None:
            self._stored = chain_store.usable(self.conn)
        if not (self._stored and self.stored_chains):
            return None
        blob = self._bodies.pop(memo, None)  # read with the others of its node (_prefetch_stored), decoded once
        if blob is None:
            row = self.conn.execute(f"SELECT body FROM {chain_store.TABLE} WHERE node = ? AND key = ? AND depth = ? "
                                    "AND kernel = ?", memo).fetchone()
            blob = None if row is None else row[0]
        return None if blob is None else chain_store.decode(blob)

    def _prefetch_stored(self, nodes: list[int], depth: int) -> None:
        """The rows the build kept for these nodes as kernels at this depth, every key's, in one statement, for
        _stored_chain to decode when asked (and let go: chain() keeps what it decodes, up to CHAIN_MEMO chains;
        one asked again after that is read again)."""
        if self._stored is None:
            self._stored = chain_store.usable(self.conn)
        todo = [n for n in dict.fromkeys(nodes) if (n, depth, True) not in self._bodies_read]
        if not (todo and self._stored and self.stored_chains and self.record is None):
            return
        for node, key, body in self.conn.execute(
                f"SELECT node, key, body FROM {chain_store.TABLE} WHERE node IN (SELECT value FROM json_each(?)) "
                "AND depth = ? AND kernel = 1", (f"[{','.join(map(str, todo))}]", depth)):
            self._bodies[(node, key, depth, True)] = body
        self._bodies_read.update((n, depth, True) for n in todo)

    def _walk(self, node: int, key: str, depth: int,
              kernel: bool) -> tuple[list[Step], tuple[Truncation, ...], _Walk]:
        """One breadth-first walk from a node (chain() keeps its answer), with the walk (what it read). An op's
        kernel that reaches device work only through the dispatcher (device_path 3) is thin: see _body. So is a
        backend kernel whose walk meets no device work (no stub, launch, __global__, library call or dtype dispatch)
        and that has no loop of its own: device_path is read without the build, and a call that leads to device
        work only under an #if the key's build does not compile (1.13.1 Linear.cpp:32, `xnnpack::linear` under
        `#if defined(C10_MOBILE)`) made linear, and transformer_encoder_layer_forward above it, look like kernels
        with work of their own, whose helpers' redispatches (at::addmm, at::matmul) were not followed. Such a kernel
        is walked again with every helper it calls as its body, as a composite kernel walked for a runtime key is."""
        runtime, _, via = key.partition(RUNS_ON)  # `CUDA <- CompositeImplicitAutograd`: a composite kernel for CUDA
        composite = runtime in COMPOSITE
        thin = kernel and not composite and self._device_path(node) == 3
        body = COMPOSITE_BODY if kernel and via in COMPOSITE else THIN if thin else NOT_BODY
        walk = self._walk_as(node, runtime, depth, thin, body)
        if kernel and not composite and not thin and via not in COMPOSITE and \
                not any(s.kind in _DEVICE_WORK for s in walk.steps) and not self._loops(node):
            first = walk
            walk = self._walk_as(node, runtime, depth, True, COMPOSITE_BODY)
            walk.reads |= first.reads  # an edit of what the first walk read may give it work: walked again then
            walk.names |= first.names
        return walk.steps, walk.truncations(depth), walk

    def _walk_as(self, node: int, runtime: str, depth: int, thin: bool, body: int) -> _Walk:
        """One walk (_walk) for a runtime key (the key before ` <- `); body: what the node is to the kernel's body."""
        device = device_of(runtime)
        walk = _Walk(runtime, device, runtime in COMPOSITE, branch_device(device, runtime), dense(runtime),
                     thin=thin, build=key_build(runtime))
        walk.visited.add(node)
        # (node, level, run as a functor, the step that entered it, part of a thin kernel's body, the build below
        # it: a composite walk goes on in a redispatched op's or a stub's kernel for a device as that device's build
        # compiles it, _device_build; the parameters its call leaves to their defaults, _defaulted)
        queue: list[tuple[int, int, bool, int | None, int, str, frozenset[int]]] = [
            (node, 0, False, None, body, walk.build, _NONE_DEFAULTED)]
        for i, (current, level, in_functor, entered, body, build, defaulted) in enumerate(queue):  # the loop sees
            # what it appends
            walk.reads.add(current)
            if not self._read(current, in_functor):  # every node queued is expanded: their edges in one read
                self.prefetch((q[0] for q in queue[i:] if not q[2]), False)
                self.prefetch((q[0] for q in queue[i:] if q[2]), True)
            walk.build = build
            for fields, target, functor in self._expand(current, level, in_functor, walk, body, defaulted):
                at = walk.add(fields, entered)
                if target is None or target.id in walk.visited:
                    continue
                if level < depth:
                    walk.visited.add(target.id)
                    below = _device_build(fields) if walk.composite else None
                    queue.append((target.id, level + 1, functor, at, _body(fields, target, body), below or build,
                                  self._defaulted(fields, target, defaulted)))
                else:
                    walk.too_deep[target.name] = None
        return walk

    def _defaulted(self, fields: tuple, target: _Node, defaulted: frozenset[int]) -> frozenset[int]:
        """The parameters of a function the walk goes on in that the call it is entered by leaves to their default
        values: those past the arguments written, and those handed the caller's own parameters left so
        (calls.forwards: 2.6.0 ScalarOps.h:48, wrapped_scalar_tensor's `scalar_to_tensor(scalar, device)`). Read
        only where a branch of the function tests such a parameter (device_branches.parameter); a kernel the
        dispatcher runs is handed every argument."""
        site, loc = fields[5], target.loc
        if fields[0] != StepKind.CALL or site is None or loc is None or \
                not self.branches.by_parameter(loc.file):
            return _NONE_DEFAULTED
        name = target.name.rsplit("::", 1)[-1].split("<", 1)[0]
        got: frozenset[int] | None = None
        for argc, forwards in self.conn.execute("SELECT argc, forwards FROM calls WHERE callee_name = ? AND file = ? "
                                                "AND line = ?", (name, site.file, site.line)):
            left = set(range(argc, argc + _DEFAULTS_PAST))
            for pair in (forwards or "").split(","):
                place, _, parameter = pair.partition(":")
                if parameter.isdigit() and int(parameter) in defaulted:
                    left.add(int(place))
            got = frozenset(left) if got is None else got & left  # calls of it on one line: what all leave
        return got or _NONE_DEFAULTED

    def _loops(self, node: int) -> bool:
        """Whether a function node's definition has a loop in its body (definitions.loops), read once per node:
        a per-dtype function that reaches device work only through the dispatcher is shown when it is the loop
        (_instantiated: `_bincount_cpu_template<scalar_t, float>(...)`, 2.6.0 SummaryOps.cpp:92, whose loop at :68
        is bincount's work on CPU; its at::zeros and self.min() are redispatches)."""
        got = self._has_loops.get(node)
        if got is None:
            row = self.conn.execute("SELECT d.loops FROM nodes n JOIN definitions d ON d.id = n.ref WHERE n.id = ?",
                                    (node,)).fetchone()
            got = self._has_loops[node] = bool(row and row[0])
        return got

    def _device_path(self, node: int) -> int:
        row = self.conn.execute("SELECT device_path FROM nodes WHERE id = ?", (node,)).fetchone()
        return row[0] if row and row[0] is not None else 0

    def _expand(self, node: int, level: int, in_functor: bool, walk: _Walk, body: int = NOT_BODY,
                defaulted: frozenset[int] = frozenset()):
        """(step fields, node to go on with, whether that node is run as a functor) for each edge out of a node;
        `body`: the node is a thin kernel or a helper of its body (_walk), whose calls of functions that reach
        device work only through the dispatcher are steps, and whose redispatches are followed."""
        generated = self._generated_ufunc.get(node)
        if generated is not None:  # a generated ufunc kernel (a redispatch to add.Tensor runs ufunc_add_CPU)
            yield from self._generated_registrations(ufunc_stub(generated[0]), level, walk, device_of(generated[1]))
            return
        edges = self.edges(node, in_functor)
        if node in self._templates:
            edges = _bound_here(edges, walk.sites)
        ambiguous: dict[tuple, list] = {}
        if level == 0 or walk.composite or body:  # the redispatches below are followed: their ops' kernels at once
            self._prefetch_kernels([e[1] for e in edges if e[0] == EdgeKind.REDISPATCHES_TO_OP and e[8] is not None])
        shown = FUNCTOR_ONLY if in_functor else COMPOSITE_OR_FUNCTOR if walk.composite or body else ALWAYS
        device = walk.branch or ""  # no device: only what no build compiles is left out
        other_builds = _other_builds(edges, walk.build)
        dtypes_at = -2  # the index of the dtypes edge last shown
        for i, (kind, _dst, file, line, how, target, detail, loc, dn, need) in enumerate(edges):
            if kind == EdgeKind.DEFINED_AT:  # the #define of the wrapper macro of the dtypes edge right before it
                if dtypes_at == i - 1:
                    yield _step(StepKind.DEFINED, target, loc, level, detail=detail, how=how), None, False
                continue
            if i in other_builds:
                walk.other_build.setdefault(other_builds[i], {})[
                    f"{target} -> {dn.name} {dn.loc} ({_build_detail(how, detail)})"] = None
                continue
            if (kind != _CALLS or (dn is not None and need <= shown)) and (
                    why := self.branches.ruled_out(file, line, device, walk.dense, walk.build, defaulted)) is not None:
                walk.left_out(why, target or str(kind), self.branches.never)
                continue
            if kind == _CALLS:
                if dn is None:
                    if how in SEVERAL and "lead to device" in (detail or ""):
                        walk.too_many[f"{target} ({detail})"] = None
                elif need <= shown or (how == How.TEMPLATE_ARGUMENT and binding_site(detail or "") in walk.sites
                                       and not _run_as_functor(edges, file, line, _dst)):
                    # what a call site on this walk hands a template is shown (ArgMaxOps<T>{} -> its reduce), once
                    if how in SEVERAL:
                        ambiguous.setdefault((file, line, target), []).append((dn, how, detail, loc))
                    else:
                        yield _step(StepKind.CALL, dn.name, dn.loc, level, detail=_build_detail(how, detail), how=how,
                                    site=loc), dn, False
                elif need == FUNCTOR_ONLY and how == How.OVERLOAD_SET and _loop_overload(edges, i, shown):
                    ambiguous.setdefault((file, line, target), []).append((dn, how, detail, loc))
                elif need in (COMPOSITE_OR_FUNCTOR, FUNCTOR_ONLY) and how not in SEVERAL and \
                        _instantiated(edges, target, dn) and (need == FUNCTOR_ONLY or self._loops(dn.id)):
                    if (why := self.branches.ruled_out(file, line, device, walk.dense, walk.build,
                                                       defaulted)) is not None:  # as above
                        walk.left_out(why, target, self.branches.never)
                    else:
                        yield _step(StepKind.CALL, dn.name, dn.loc, level, how=how, site=loc, detail=PER_DTYPE), dn, \
                            False
                # else: nothing device-bound below it (a composite follows redispatches); a __global__: its launch
            elif kind == EdgeKind.DTYPES:
                dtypes_at = i
                yield _step(StepKind.DTYPES, target, loc, level, detail=detail), None, False
            elif kind == EdgeKind.USES_STUB and dn is not None:
                yield from self._stub_steps(dn, loc, level, walk)
            elif kind == EdgeKind.LAUNCHES:
                yield _step(StepKind.LAUNCH, target or "kernel", loc, level, detail=detail, how=how), None, False
                if dn is not None:
                    yield _step(StepKind.GLOBAL_KERNEL, dn.name, dn.loc, level, how=how), None, False
            elif kind == EdgeKind.RUNS_FUNCTOR:
                if dn is not None:
                    yield _step(StepKind.FUNCTOR, dn.name, dn.loc, level, detail=f"run by {detail}", how=how,
                                site=loc), dn, True
                elif target.startswith("lambda"):
                    yield _step(StepKind.LAUNCH, target, loc, level, detail=detail), None, False
            elif kind == EdgeKind.CALLS_LIBRARY:
                yield _step(StepKind.LIBRARY, target, loc, level, detail=detail, how=how), None, False
            elif kind == EdgeKind.REDISPATCHES_TO_OP and dn is not None:
                yield from self._redispatch(dn, loc, level, detail, walk, body)
        for (_file, _line, target), cands in ambiguous.items():
            if len(cands) > (OVERLOAD_FANOUT if cands[0][1] == How.OVERLOAD_SET else FANOUT):
                walk.too_many[target] = None
                continue
            for dn, how, detail, loc in cands:
                yield _step(StepKind.CALL, dn.name, dn.loc, level, how=f"{how}({detail})", site=loc), dn, False

    def _stub_steps(self, stub: _Node, loc: Location | None, level: int, walk: _Walk):
        yield _step(StepKind.STUB, stub.name, loc, level, how=How.EXACT), None, False
        walk.reads.add(stub.id)
        registered = False
        for kind, _dst, file, line, how, target, detail, where, dn, _need in self._stub_edges(stub.id):
            where = where or self.place(file, line)
            if kind == EdgeKind.DECLARED_AT:
                yield _step(StepKind.DECLARED, stub.name, where, level), None, False
            elif kind == EdgeKind.DEFINED_AT:
                yield _step(StepKind.DEFINED, stub.name, where, level), None, False
            elif kind == EdgeKind.REGISTERS:
                device, _, arch = (detail or "").partition(" ")
                if walk.device is not None and device != walk.device:
                    continue
                registered = True
                yield _step(StepKind.REGISTERED, target, where, level, device, arch or None, how), None, False
                if dn is not None:
                    yield _step(StepKind.DEFINITION, dn.name, dn.loc, level, device, how=how, site=where), dn, False
        if not registered:
            yield from self._generated_registrations(stub.name.rsplit("::", 1)[-1], level, walk)

    def _generated_registrations(self, stub: str, level: int, walk: _Walk, only: str | None = None):
        """A ufunc_inner_loop op's stub (add_stub) is registered by the code torchgen generates for it, per
        device (torchgen/dest/ufunc.py: compute_ufunc_cpu and compute_ufunc_cuda each write
        `REGISTER_DISPATCH(add_stub, &add_kernel)`), so a kernel calling the stub (sub_out) runs that generated
        kernel: the helper it calls (cpu_kernel_vec or cpu_kernel, gpu_kernel), the ufunc_inner_loop dtypes and the
        ufunc:: functions. The same model as the op's own generated kernels (api.Index._generated_chain). `only`: the
        one device whose generated kernel runs (a redispatch to ufunc_add_CPU), else the walk's (or both)."""
        loops = self.ufunc_loops().get(stub)
        if not loops:
            return
        where, names, keys = loops[0][3], loop_names(loops), {k for k, _n, _d, _w in loops}
        walk.names.update(names)  # the ufunc:: functions are found by name, and so are the helpers
        walk.names.update(ufunc_helpers(keys, True) + ufunc_helpers(keys, False))
        for device in (only,) if only is not None else ("CPU", "CUDA") if walk.device is None else (walk.device,):
            if device not in ("CPU", "CUDA"):
                continue
            yield _step(StepKind.REGISTERED, f"{ufunc_stub_kernel(stub_base(stub))} [generated]", where, level, device,
                        "every capability" if device == "CPU" else None, How.GENERATED), None, False
            for helper in ufunc_helpers(keys, device == "CUDA"):
                row = self._helper_row(helper, device == "CUDA")
                if row is not None:
                    node = self._node(row[0], row[1], row[2], row[4], row[5], row[8])
                    yield _step(StepKind.CALL, node.name, node.loc, level, device, "called by the generated kernel",
                                How.GENERATED), node, False
        for ufunc_key, name, dtypes, at in loops:
            yield _step(StepKind.DTYPES, f"{ufunc_key}: {name}", at, level,
                        detail=", ".join(json.loads(dtypes))), None, False
        for q, at in (f for name in names for f in self.ufunc_functions(name)):
            yield _step(StepKind.UFUNC, q, at, level), None, False

    def ufunc_loops(self) -> dict[str, list[tuple[str, str, str, Location]]]:
        """The ufunc_inner_loop entries by the stub of their op (`add_stub`: ufunc_stub_loops): (ufunc key, name,
        dtypes, the op's dispatch entry in native_functions.yaml)."""
        if self._ufuncs is None:
            self._ufuncs = {stub: [(k, n, d, self.place(f, ln)) for k, n, d, f, ln in loops]
                            for stub, loops in ufunc_stub_loops(self.conn).items()}
        return self._ufuncs

    def _helper_row(self, name: str, cuda: bool) -> tuple | None:
        """A launch helper of native/ by name, the CUDA one or the CPU one, first by file and line: (node id, node
        kind, qualified name, definition kind, file, line, end line, signature, device_path); None: no such helper."""
        for row in self.conn.execute(
                "SELECT n.id, n.kind, n.name, d.kind, n.file, n.line, n.end_line, d.signature, n.device_path "
                "FROM definitions d JOIN nodes n ON n.ref = d.id AND n.kind IN (?, ?) WHERE d.name = ? "
                "AND substr(d.file, 1, 21) = 'aten/src/ATen/native/' ORDER BY d.file, d.line",
                (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, name)):
            if is_cuda(row[4]) == cuda:
                return row
        return None

    def ufunc_functions(self, base: str) -> list[tuple[str, Location]]:
        """(qualified name, place) of the ufunc:: functions of native/ufunc/ named `base`, by file and line (read
        once: an op's CPU and CUDA kernels show them both)."""
        got = self._ufunc_functions.get(base)
        if got is None:
            got = self._ufunc_functions[base] = [(q, self.place(f, ln)) for q, f, ln in ufunc_definitions(self.conn,
                                                                                                         base)]
        return got

    def _stub_edges(self, stub: int) -> list[tuple]:
        """A stub's edges, its declarations first, then its definitions, then its registrations, each by file and
        line (sorted once). Not in id order: a stub's edges come from many files, and a build gives them ids in
        the order it extracts the files (the largest first), an incremental one after the others."""
        got = self._sorted.get(stub)
        if got is None:
            got = self._sorted[stub] = sorted(self.edges(stub), key=stub_edge_order)
        return got

    def _redispatch(self, op: _Node, loc: Location | None, level: int, detail: str | None, walk: _Walk,
                    body: int = NOT_BODY):
        """The op, and its kernel for the walk's key (a composite walk: for CPU and CUDA) to go on in."""
        yield _step(StepKind.REDISPATCH, op.name, loc, level, how=How.OP, detail=detail), None, False
        if level > 0 and not walk.composite and not body and not self._device_only(op.id, walk.key):
            return  # a backend kernel's helpers call many small ops; only its own body's redispatches are followed
        walk.reads.add(op.id)
        for key, dn in self._kernels_of(op.id, walk.key):
            yield _step(StepKind.DEFINITION, dn.name, dn.loc, level, key, detail=f"{op.name} {key}", how=How.YAML,
                        site=loc), dn, False

    def _device_only(self, op: int, key: str) -> bool:
        """Whether an op has a kernel for the walk's key (one of a device's) and none for a key of another device nor
        a composite one: the device's own implementation of some work (cudnn_convolution, _cudnn_rnn,
        _flash_attention_forward, batch_norm_stats on CUDA), which a backend kernel's helper hands its work to. Such a
        redispatch is followed wherever the walk meets it: 2.6.0 cudnn/RNN.cpp:2544, `_cudnn_impl`'s at::_cudnn_rnn,
        two helpers below gru_cudnn, is where gru's cuDNN work is done (RNN.cpp:1384, cudnnRNNForwardTraining). An op
        of SparseCsrCPU and SparseCsrCUDA kernels is no SparseCsrCUDA walk's; a Meta walk has none."""
        device = device_of(key)
        if device is None:
            return False
        if op not in self._kernel_table:
            self._prefetch_kernels([op])
        keys = self._kernel_table[op]
        return key in keys and not any(k in COMPOSITE or device_of(k) not in (None, device) for k in keys)

    def _prefetch_kernels(self, ops: list[int]) -> None:
        """The kernels of these op nodes: for each (op, key) row, the definition that implements it, one
        statement for all of them (a redispatching kernel's body calls many ops: a level's at once)."""
        todo = list(dict.fromkeys(op for op in ops if op not in self._kernel_table))
        for i in range(0, len(todo), _BATCH):
            part = todo[i:i + _BATCH]
            for op in part:
                self._kernel_table[op] = {}
            for op, key, *node in self.conn.execute(_KERNELS, (f"[{','.join(map(str, part))}]",)):
                self._kernel_table[op].setdefault(key, self._node(*node))
                if node[1] == NodeKind.KERNEL and (base := ufunc_base(node[2].removesuffix(" [generated]"))):
                    self._generated_ufunc[node[0]] = (base, key)

    def _kernels_of(self, op: int, key: str) -> list[tuple[str, _Node]]:
        """The kernels a redispatch to `op` runs: the same key's, else a composite one's; from a composite
        kernel, those of CPU and CUDA; from a kernel of a sparse or quantized key, when the op has neither, the
        dense kernel of the key's device: the tensors the call passes are dense then (the dispatcher has no kernel
        for the key's own), and such a tensor's parts live on its device (2.6.0 SparseCUDA's coo_to_sparse_csr
        calls at::_convert_indices_from_coo_to_csr on the indices, TensorConversions.cpp:1467, whose kernels are
        CUDA's and CPU's only). Not from a nested key's: a nested tensor's buffer is on its device, but its sizes,
        strides and offsets are CPU tensors, and which one a call passes is not known here. Worked out once per op
        and key."""
        got = self._op_kernels.get((op, key))
        if got is not None:
            return got
        self._prefetch_kernels([op])
        kernels = self._kernel_table[op]
        wanted = _RUNTIME_OF_COMPOSITE if key in COMPOSITE else (key,)
        out: list[tuple[str, _Node]] = []
        for k in wanted:
            found = next(((c, kernels[c]) for c in (k, *COMPOSITE) if c in kernels), None)
            if found is not None and found not in out:
                out.append(found)
        if not out and key not in COMPOSITE and not dense(key) and not key.startswith(_NESTED):
            own = branch_device(device_of(key), key)  # SparseCUDA's CUDA, SparseMeta's Meta
            if own is not None and own in kernels:
                out.append((own, kernels[own]))
        self._op_kernels[(op, key)] = out
        return out

    def helper_chain(self, name: str, key: str, depth: int, why: str, caller: int | None = None,
                     at: int = 0) -> tuple[list[Step], tuple[Truncation, ...]]:
        """Generated code calling a helper of the checkout (a ufunc kernel's cpu_kernel_vec or gpu_kernel):
        the helper's definition for the key's device, and the chain below it; `at` is the helper step's index
        in the chain these steps go into, `caller` that of the step calling it (their parents)."""
        row = self._helper_row(name, device_of(key) in ("CUDA", "HIP"))
        if row is None:
            return [], ()
        node, _node_kind, qualified, kind, file, line, end_line, signature, _device_path = row
        helper = Definition(qualified, kind, Location(file, line), end_line, signature)
        self._definition_nodes.setdefault(helper, node)
        below, cuts = self.chain(helper, key, depth)
        return [Step(StepKind.CALL, helper.qualified_name, helper.loc, detail=why, how=How.GENERATED, parent=caller),
                *[new_step(s.kind, s.name, s.loc, s.device, s.detail, s.depth + 1, s.how, s.site,
                           at if s.parent is None else s.parent + 1 + at) for s in below]], cuts

    # -- composite ops and backward -------------------------------------------------------------

    def ops_called(self, fn: Definition) -> list[Step]:
        """The ops a kernel's own body calls through the dispatcher are steps of its chain: none here."""
        return []

    def formula_calls(self, formulas: list[str]) -> list[Step]:
        """What backward formulas call: ops, and helpers defined in the sources (FunctionsManual.cpp ...)."""
        from ..indexer import naming

        names = dict.fromkeys(n for f in formulas for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", f))
        known = self.op_bases_among([c for n in names for c in naming.cpp_function_forms(n)])
        out = []
        for n in names:
            op = next((c for c in naming.cpp_function_forms(n) if c in known), None)
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

    def op_bases_among(self, names: list[str]) -> set[str]:
        """Those of the names that are in op_bases(), asked of the ops table for the names not asked yet only
        (reading every base costs a first answer more than its backward formulas need)."""
        if self._op_bases is not None:
            return {n for n in names if n in self._op_bases}
        todo = [n for n in dict.fromkeys(names) if n not in self._is_base]
        if todo:
            wanted = json.dumps(todo)
            found = {r[0] for r in self.conn.execute(
                "SELECT DISTINCT base FROM ops WHERE base IN (SELECT value FROM json_each(?)) "
                "OR rtrim(base, '_') IN (SELECT value FROM json_each(?))", (wanted, wanted))}
            bases = found | {b.rstrip("_") for b in found}
            self._is_base.update((n, n in bases) for n in todo)
        return {n for n in names if self._is_base[n]}


__all__ = ["GENERATED", "Linker", "device_of", "is_cuda", "meta_function", "StubKind"]
