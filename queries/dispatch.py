"""`tg-query dispatch`: the keys a call visits, key by key, over the computed dispatch table.

The call's key set is made as c10 makes it, from the sets the build read out of the checkout's
c10/core/DispatchKeySet.h (table dispatch_keysets):

- a tensor of backend B carries Dense|B and getAutogradRelatedKeySetFromBackend(B) and
  getAutocastRelatedKeySetFromBackend(B) (c10/core/TensorImpl.cpp); an op without Tensor
  arguments (a factory op) takes its keys from thread-local state only;
- the thread-local included set starts as default_included_set (BackendSelect, ADInplaceOrView)
  and the excluded set as default_excluded_set (every Autocast key);
- --autocast takes the backend's autocast key out of the excluded set (autocast_mode.h
  set_autocast_enabled); --inference-mode excludes autograd_dispatch_keyset_with_ADInplaceOrView
  (c10/core/InferenceMode.h); --functionalize adds Functionalize (a FunctionalTensorWrapper's
  key); --vmap adds FuncTorchBatched (a BatchedTensor's key) and includes
  FuncTorchDynamicLayerFrontMode, FuncTorchVmapMode and FuncTorchDynamicLayerBackMode
  (functorch's dynamic layer stack).

Keys are visited highest priority first (dispatch_keys.priority). Per key: a fallthrough entry
falls through; a key with no entry is where the call fails (the dispatcher's "Could not run");
a backend key (one CompositeExplicitAutograd covers, or a NestedTensor key) and every math,
nested or default backend kernel handles the call; every other kernel runs and redispatches
below itself. BackendSelect redispatches to the backend key alone (torchgen's
RegisterBackendSelect.cpp computes it from the options); Functionalize redispatches with
after_func_keyset (ADInplaceOrView left out). --requires-grad changes what the autograd kernel
is said to do (records the backward or not); the keys are the same, as in PyTorch.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field, replace

from ..indexer.errors import TgIndexError
from ..indexer.facts import Location
from .chain import RUNS_ON, device_of
from .results import KeyKernel

DEVICES = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta", "mps": "MPS"}
RUNS = "runs and redispatches below itself"
RECORDS = "runs, records the backward (an input requires grad) and redispatches below itself"
NO_RECORD = "runs (no input requires grad: records nothing) and redispatches below itself"
FALLS = "falls through"
HANDLES = "handles the call"
FAILS = "no kernel: the call fails here (Could not run ... with arguments from this backend)"
TO_BACKEND = "runs and redispatches to the backend key alone"
_HANDLING_KINDS = ("math kernel", "nested kernel", "default backend kernel", "ambiguous autogradother")


@dataclass(frozen=True)
class Flags:
    device: str = "cpu"
    requires_grad: bool = False
    autocast: bool = False
    inference_mode: bool = False
    functionalize: bool = False
    vmap: bool = False

    def words(self) -> tuple[str, ...]:
        named = (("requires grad", self.requires_grad), ("autocast", self.autocast),
                 ("inference mode", self.inference_mode), ("functionalize", self.functionalize), ("vmap", self.vmap))
        return tuple(w for w, on in named if on)


@dataclass(frozen=True)
class Visit:
    """One key of the walk and what happens there."""

    key: str
    action: str
    kind: str | None = None  # the dispatch_table entry's kind
    from_key: str | None = None
    kernel: str | None = None
    source: str | None = None
    file: str | None = None  # where the registration is written (a generated file's name alone)
    line: int | None = None  # None for a generated registration
    fallthrough: bool = False


@dataclass(frozen=True)
class DispatchWalk:
    op: str  # the dispatcher's name: aten::mm
    func: str
    flags: Flags
    factory: bool
    keyset: tuple[str, ...]  # the runtime keys of the call's key set, highest priority first
    visits: tuple[Visit, ...]
    handler: KeyKernel | None = None  # the kernels-for answer of the handling kernel's registration key
    notes: tuple[str, ...] = field(default=())


class _Sets:
    """The key sets and key order of one index (tables dispatch_keys, dispatch_keysets)."""

    def __init__(self, conn: sqlite3.Connection):
        self.sets = {n: (frozenset(json.loads(f)), frozenset(json.loads(b)))
                     for n, f, b in conn.execute("SELECT name, functionality, backends FROM dispatch_keysets")}
        if not self.sets:
            raise TgIndexError("the index has no dispatch keys (c10/core/DispatchKey.h was not read); "
                               "rebuild it with `tg-index` from a whole checkout")
        self.runtime = [(n, f, b) for n, f, b in conn.execute(
            "SELECT name, functionality, backend FROM dispatch_keys WHERE kind IN ('functionality', 'runtime') "
            "ORDER BY priority DESC, id")]
        self.cea = {n for n, cov in conn.execute("SELECT name, covered_by FROM dispatch_keys")
                    if "CompositeExplicitAutograd" in json.loads(cov)}

    def get(self, name: str) -> tuple[frozenset, frozenset]:
        return self.sets.get(name, (frozenset(), frozenset()))

    def keys_in(self, funcs: frozenset, backends: frozenset) -> list[str]:
        """A per-backend runtime key needs its functionality and its backend bit; another key its own bit."""
        return [n for n, f, b in self.runtime if (f in funcs and b in backends if f is not None else n in funcs)]


def key_set(sets: _Sets, flags: Flags, factory: bool) -> list[str]:
    """The runtime keys of the call, highest priority first."""
    backend = DEVICES[flags.device]
    funcs: set[str] = set()
    backends: set[str] = set()
    if not factory:
        for name in (f"getAutogradRelatedKeySetFromBackend({backend})", f"getAutocastRelatedKeySetFromBackend({backend})"):
            f, b = sets.get(name)
            funcs |= f
            backends |= b
        funcs.add("Dense")
        backends.add(backend)
        if flags.vmap:
            funcs.add("FuncTorchBatched")
        if flags.functionalize:
            funcs.add("Functionalize")
    included, _b = sets.get("default_included_set")
    excluded, _b = sets.get("default_excluded_set")
    included, excluded = set(included), set(excluded)
    if flags.autocast:
        excluded -= sets.get(f"getAutocastRelatedKeySetFromBackend({backend})")[0]
    if flags.inference_mode:
        guard = sets.get("autograd_dispatch_keyset_with_ADInplaceOrView")[0]
        included -= guard
        excluded |= guard
    if flags.vmap:
        included |= {"FuncTorchDynamicLayerFrontMode", "FuncTorchVmapMode", "FuncTorchDynamicLayerBackMode"}
    return sets.keys_in(frozenset((funcs | included) - excluded), frozenset(backends))


def walk(conn: sqlite3.Connection, op: str, flags: Flags, factory: bool) -> tuple[list[str], list[Visit]]:
    """The call's key set and the visits down to the key that handles it (or fails)."""
    if flags.device not in DEVICES:
        raise TgIndexError(f"unknown device {flags.device!r}; one of: {', '.join(DEVICES)}")
    sets = _Sets(conn)
    keys = key_set(sets, flags, factory)
    entries = {k: rest for k, *rest in conn.execute(
        "SELECT key, kind, fallthrough, from_key, kernel, source, file, line FROM dispatch_table WHERE op = ?", (op,))}
    visits: list[Visit] = []
    todo = list(keys)
    while todo:
        key = todo.pop(0)
        got = entries.get(key)
        if got is None:
            visits.append(Visit(key, FAILS))
            break
        kind, ft, from_key, kernel, source, file, line = got
        action = _action(key, kind, bool(ft), flags, sets)
        visits.append(Visit(key, action, kind, from_key, kernel, source, file, line, bool(ft)))
        if action == TO_BACKEND:
            todo = [DEVICES[flags.device]]
        elif action == HANDLES or action == FAILS:
            break
        elif key == "Functionalize":
            after = sets.get("after_func_keyset")[0]
            todo = [k for k in todo if k != "ADInplaceOrView" or "ADInplaceOrView" in after]
    return keys, visits


def _action(key: str, kind: str, fallthrough: bool, flags: Flags, sets: _Sets) -> str:
    if fallthrough:
        return FALLS
    if key == "BackendSelect":
        return TO_BACKEND
    if kind in _HANDLING_KINDS or key in sets.cea or key.startswith("NestedTensor"):
        return HANDLES
    if key.startswith("Autograd") and kind in ("kernel", "autograd kernel"):
        return RECORDS if flags.requires_grad else NO_RECORD
    return RUNS


def is_factory(func: str) -> bool:
    """No Tensor argument (out= ones count): the key set comes from thread-local state alone."""
    args = func.split("(", 1)[1].rsplit(") ->", 1)[0] if "(" in func else ""
    return "Tensor" not in args


def walk_text(walks: list[DispatchWalk]) -> str:
    from .render import chain_lines, truncation_lines

    out: list[str] = []
    for w in walks:
        flags = ", ".join((f"device {w.flags.device}",) + w.flags.words())
        out.append(f"{w.op}  ({flags}{', factory op' if w.factory else ''})")
        out.append(f"  key set: {', '.join(w.keyset)}")
        width = max((len(v.key) for v in w.visits), default=0)
        for v in w.visits:
            what = ""
            if v.kind:
                origin = f"{RUNS_ON}{v.from_key}" if v.from_key and v.from_key != v.key else ""
                where = f"  {v.file}:{v.line}" if v.line else (f"  [{v.source} {v.file}]" if v.file else "")
                what = f"  [{v.kind}{origin}] {v.kernel or ''}{where}"
            out.append(f"  {v.key.ljust(width)}  {v.action}{what}")
        out.extend(f"  note: {n}" for n in w.notes)
        h = w.handler
        if h is not None:
            where = f"{h.qualified_name}  {h.definition}" if h.definition else f"{h.kernel}  {h.location}"
            out.append(f"  {h.key}: {where}")
            if h.note:
                out.append(f"      note: {h.note}")
            out.extend(chain_lines(h.chain))
            out.extend(truncation_lines(h.truncated, "      "))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def walk_data(w: DispatchWalk) -> dict:
    from .render import _step_data
    from .results import to_data, truncation_data

    h = w.handler
    handler = None
    if h is not None:
        handler = {"key": h.key, "kernel": h.kernel, "origin": h.origin, "cpp_namespace": h.cpp_namespace,
                   "location": to_data(h.location),
                   "definition": None if h.definition is None else {**to_data(h.definition), "name": h.qualified_name},
                   "note": h.note, "chain": [_step_data(s) for s in h.chain], **truncation_data(h.truncated)}
    return {
        "op": w.op, "func": w.func, "device": w.flags.device, "flags": list(w.flags.words()), "factory": w.factory,
        "keyset": list(w.keyset),
        "visits": [{"key": v.key, "action": v.action, "kind": v.kind, "from_key": v.from_key, "kernel": v.kernel,
                    "source": v.source, "fallthrough": v.fallthrough, "file": v.file, "line": v.line}
                   for v in w.visits],
        "handler": handler, "notes": list(w.notes),
    }


def registered_name(op_name: str) -> str:
    """The dispatcher's name of a native_functions.yaml op: add.Tensor -> aten::add.Tensor."""
    return op_name if "::" in op_name else f"aten::{op_name}"


_ENTRY = "SELECT kind, fallthrough, from_key, kernel, source, file, line FROM dispatch_table WHERE op = ? AND key = ?"


# The first entry that a registration for an alias key (Autograd, FuncTorchBatchedDecomposition) fills.
_ALIAS_ENTRY = ("SELECT kind, fallthrough, from_key, kernel, source, file, line FROM dispatch_table WHERE op = ? AND "
                "from_key = ? ORDER BY id LIMIT 1")


def computed_keys(index, op_name: str, keys: tuple[str, ...], found: set[str], depth: int) -> list[KeyKernel]:
    """kernels-for --key K for a key native_functions.yaml does not name for the op: for a runtime key the
    computed table's entry, labelled `K <- FROM_KEY`, with the chain of FROM_KEY's kernel; for an alias key
    the kernel registered for it (Autograd: VariableType's), as the entries it fills name it, labelled K."""
    out = []
    for key in keys:
        if key in found:
            continue
        row = index.conn.execute(_ENTRY, (registered_name(op_name), key)).fetchone()
        if row is None:
            row = index.conn.execute(_ALIAS_ENTRY, (registered_name(op_name), key)).fetchone()
        if row is not None:
            out.append(entry_kernel(index, op_name, key, row, depth))
    return out


def entry_kernel(index, op_name: str, key: str, row: tuple, depth: int) -> KeyKernel:
    """The KeyKernel of a dispatch_table entry: the kernels-for answer of its registration key when
    native_functions.yaml has that key for the op, else the registration as the table names it."""
    kind, fallthrough, from_key, kernel, source, file, line = row
    label = key if from_key in (None, key) else f"{key}{RUNS_ON}{from_key}"  # the walk key api.py makes
    note = f"{kind} ({'fallthrough, ' if fallthrough else ''}computed dispatch table)"
    if from_key is not None and index.conn.execute(
            "SELECT 1 FROM dispatch d JOIN ops o ON o.id = d.op_id WHERE o.name = ? AND d.key = ?",
            (op_name, from_key)).fetchone():
        # a composite kernel runs for the key's device: its chain is walked for it (a key of no device, such as
        # Meta, keeps the composite walk, over CPU's and CUDA's kernels)
        runs_on = key if device_of(key) is not None else None
        for k in index._kernels_for_op(op_name, (from_key,), depth, runs_on).keys:
            return replace(k, key=label, note=f"{note}; {k.note}" if k.note else note, same_as=None)
    op_file, op_line = index.conn.execute("SELECT file, line FROM ops WHERE name = ?", (op_name,)).fetchone()
    where = Location(file, line) if file and line else Location(op_file, op_line)
    if file and not line:
        note += f"; registered in the generated {file}"
    return KeyKernel(label, kernel or "", source or "", "", None, where, None, None, note)


def walks(index, name: str, flags: Flags, depth: int) -> list[DispatchWalk]:
    """Index.dispatch_walk: one walk per op the name resolves to."""
    if flags.device not in DEVICES:
        raise TgIndexError(f"unknown device {flags.device!r}; one of: {', '.join(DEVICES)}")
    out = []
    for op_name in index.resolve(name):
        func = index.conn.execute("SELECT func FROM ops WHERE name = ?", (op_name,)).fetchone()[0]
        factory = is_factory(func)
        op = registered_name(op_name)
        keys, visits = walk(index.conn, op, flags, factory)
        handler, notes = None, []
        last = visits[-1] if visits else None
        if last is not None and last.action == HANDLES:
            row = index.conn.execute(_ENTRY, (op, last.key)).fetchone()
            handler = entry_kernel(index, op_name, last.key, row, depth)
        elif not visits:
            notes.append("the call's key set is empty")
        out.append(DispatchWalk(op, func, flags, factory, tuple(keys), tuple(visits), handler, tuple(notes)))
    return out
