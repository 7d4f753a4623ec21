"""Linking again after a rebuild that changed few files: only what can change is resolved again, and
the graph's content is what a cold link of the same facts gives (its node and edge ids may differ).

What a call's resolution reads is of two sorts:
- checkout-wide inputs (the includes of the files others include, namespace-level usings and aliases,
  classes and bases, macros, ops, inline namespaces, the namespaces defined in ...):
  stage.inputs_fingerprint hashes them, and the build keeps the hash in meta (link_inputs). When it
  differs, the whole graph is linked again. What a file no other includes includes is its own input
  (meta link_file_includes: a hash per file); where it changed, the file is resolved again;
- the definitions of the name called, and every operator-> (what a receiver reached through `->` is;
  a changed one links the graph whole). A definition of a changed file that is the same but for its
  lines keeps its node (its lines updated); the others are removed or added, and their names are the
  changed names;
- the scopes of every definition: whether a name is a namespace or class of the checkout, and which files
  define something in it (resolve.scope_maps). The link keeps each definition's scope entry in meta
  (link_scopes), and an update, which reads the definitions of the names it looks up only, takes them from
  there with the changed files' made again; where a scope's entry changed, the files whose facts name it
  are resolved again.

The facts of the changed files, and of the files that call, launch or hold a changed name, are resolved
again, and the stub registrations of the files that register one; the other edges stay. Where those
files call through a template parameter, or call a template that does (template_args.py binds its
parameters to what its call sites write), the graph is linked whole. The op edges are made again for the
dispatch rows whose kernel a definition of the changed files is named for, before or after the change
(only those that changed are written); device_path is worked out again for the nodes of the files resolved
again and their callers, transitively (the others' cannot change); where a node's device_path changes, the
files holding ambiguous calls that may count it among their candidates ("7 (2 lead to device work)") are
resolved again too.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .. import index_file
from ..vocab import Origin
from . import template_args
from .kinds import SEVERAL, EdgeKind, How, NodeKind, stub_edge_order
from .nodes import Nodes, definition_nodes, make_nodes, temp_nodes
from .edges import FUNCTION_ARGUMENT, call_rows, function_name, stub_site_edges
from .includes import IncludeGraph
from .resolve import ScopeEntry, scope_entries, scope_maps
from .symbols import Symbols
from .stage import (DEVICE_WORK, EDGE_INSERT, NODE_INSERT, DeviceWork, GraphChanges, LinkSummary, callable_classes,
                    _columns, count_device_candidates, definition_guards, fact_edges, include_graph, prepare)

OP_EDGES = (EdgeKind.HAS_KERNEL, EdgeKind.IMPLEMENTS, EdgeKind.META, EdgeKind.BACKWARD)  # made from the yaml rows
# ... and so is the redispatch of a kernel torchgen writes for an autogen'd op (edges.op_edges): an op edge is one of
# these (its columns kind and how)
_OP_EDGE = (f"(kind IN ({', '.join(repr(str(k)) for k in OP_EDGES)}) OR "
            f"(kind = '{EdgeKind.REDISPATCHES_TO_OP}' AND how = '{How.GENERATED}'))")


def _op_edge(kind: str, how: str) -> bool:
    return kind in OP_EDGES or (kind == EdgeKind.REDISPATCHES_TO_OP and how == How.GENERATED)

_DEFINITIONS = (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, NodeKind.STRUCTURED)
_FILES = "temp._relink_files"  # the files whose facts are resolved again (stage.SOME_DEFINITIONS reads it)
_REGISTERING = "temp._reregister_files"  # files only whose stub registrations are resolved again
_ROUNDS = 4  # rounds of "a device_path changed: resolve the ambiguous calls that may count it" at most
MAX_CHANGED = 1000  # more changed files than this: the whole graph is linked (most of it would be resolved anyway)


@dataclass
class _Matched:
    """The nodes of the graph in the index, matched to those a cold link of the facts makes."""

    nodes: Nodes  # maps to the index's node ids; rows: the nodes to add
    cold: Nodes  # all but the definitions' nodes, as a cold link makes them
    updates: list[tuple] = field(default_factory=list)  # (line, end_line, ref, detail, id) of kept nodes that moved
    removed: set[int] = field(default_factory=set)  # node ids of definitions that are gone
    changed_names: set[str] = field(default_factory=set)  # names whose definitions changed
    defined: set[str] = field(default_factory=set)  # names and qualified names of the changed files' definitions,
    # before and after (the op edges of the kernels so named are made again: _op_rows)
    device: dict[int, int] = field(default_factory=dict)  # the index's device_path of the nodes kept, where not 0
    library_named: set[tuple[str, str]] = field(default_factory=set)  # (family, callee) of the changed files'
    # library_calls before the change (a library node they alone named may be left with no reason to be)


def relink(conn: sqlite3.Connection, jobs: int, previous_db: Path, previous_inputs: str,
           previous_includes: dict[str, str], includes: IncludeGraph | None = None,
           also_changed: set[str] = frozenset(), previous_scopes: list | None = None) -> LinkSummary | None:
    """Update the graph in conn (a copy of previous_db with the changed files' facts replaced; previous_inputs,
    previous_includes and previous_scopes: the last link's LinkSummary.inputs, .file_includes and .scopes;
    includes: the include graph of conn's facts, when made already; also_changed: files whose facts changed
    though their file row did not, extracted again with other files' macros); None when it must be linked
    whole (the checkout-wide inputs changed, the scopes of the changed files' definitions did, or the graph is
    not the one expected)."""
    if previous_scopes is None:
        return None
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    def_columns = {r[1] for r in conn.execute("PRAGMA table_info(definitions)")}
    with sqlite3.connect(index_file.read_only_uri(previous_db), uri=True) as old:
        changed = _changed_files(conn, old) | set(also_changed)
        if len(changed) > MAX_CHANGED:
            return None
        includes = includes if includes is not None else include_graph(conn, tables)
        matched = _match(conn, old, changed, def_columns, includes)
        if matched is not None:
            marks = ", ".join("?" * len(changed))
            matched.library_named = set(old.execute(
                f"SELECT DISTINCT family, callee FROM library_calls WHERE file IN ({marks})", sorted(changed)))
    if matched is None or "operator->" in matched.changed_names:  # (what `x->` reaches, anywhere: rare)
        return None
    for table in ("_relink_files", "_reregister_files", "_handed_files"):
        conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {table} (path TEXT PRIMARY KEY)")
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS _link_names (name TEXT PRIMARY KEY)")
    callers, registering = _callers_of(conn, matched.changed_names, tables)
    handing = _handing_files(conn, tables)
    if handing:
        callers |= {f for f in handing if not changed.isdisjoint(includes.closure(f))}
    files = changed | callers
    op_rows, kernels = _op_rows(conn, matched.defined)
    scopes = None
    for _ in range(_ROUNDS):
        registering -= files
        calls = _select(conn, files, registering, tables, kernels, handing, includes)
        p = prepare(conn, matched.nodes, tables, def_columns, matched.cold, some=True, includes=includes)
        if p.inputs != previous_inputs:
            return None
        if scopes is None:
            got = _scopes(p.symbols, changed, previous_scopes)
            if got is None:
                return None
            scopes, moved_scopes = got
            mentioning = _mentioning(conn, moved_scopes, tables) - files if moved_scopes else set()
            if mentioning:  # resolved again with the new scope map
                files |= mentioning
                continue
        p.resolver.use_scopes(scopes)
        own = {f for f in p.file_includes.keys() | previous_includes.keys()
               if p.file_includes.get(f) != previous_includes.get(f)} - files
        if own:  # files no other includes whose includes changed (found again: a file added or removed)
            files |= own
            continue
        if _dangling(conn, matched):
            return None
        new = list(fact_edges(conn, p, jobs, _FILES, call_rows=calls, op_rows=op_rows))
        new += stub_site_edges(conn, p.nodes, p.contexts, p.resolver, _REGISTERING, registrations=True)
        if template_args.rebinding_needed(conn, new, _FILES, p.symbols, p.resolver.types):
            return None  # a template's parameters may be bound otherwise: the bindings are made over the whole graph
        device, moved = _device_paths(conn, matched, new)
        more = _counting(conn, moved, files)
        if not more:
            break
        files |= more
    else:
        return None
    count_device_candidates(device, new)
    sources = _write(conn, matched, device, moved, new, op_rows)
    nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    touched = sources | matched.removed | {u[4] for u in matched.updates} | moved | {r[0] for r in matched.nodes.rows}
    return LinkSummary(nodes, conn.execute("SELECT count(*) FROM edges").fetchone()[0], p.inputs, p.file_includes,
                       scopes, True, GraphChanges(frozenset(changed), frozenset(touched), frozenset(matched.changed_names)))


def _scopes(symbols: Symbols, changed: set[str], previous: list) -> tuple[list[ScopeEntry], set[str]] | None:
    """Every definition's scope entry (resolve.scope_entries): the last link's (meta link_scopes) but for the changed
    files', made again (the symbols hold every definition of the files resolved again: SOME_DEFINITIONS); and the
    scopes whose entry in the scope map they make is not the last link's (added, gone, or with other files). None
    when the generated classes differ (the codegen templates changed: the graph is linked whole)."""
    entries = [(scope, bool(local), file, bool(templated)) for scope, local, file, templated in previous]
    now = sorted({e for e in entries if e[2] not in changed} |
                 scope_entries(s for f in changed for s in symbols.by_file.get(f, ())))
    if now == entries:
        return now, set()
    (before, before_templated), (after, after_templated) = scope_maps(entries), scope_maps(now)
    if before_templated != after_templated:
        return None
    # (_PUBLIC is an empty set: it equals no set of files)
    return now, {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def _mentioning(conn: sqlite3.Connection, scopes: set[str], tables: set[str]) -> set[str]:
    """The files with a fact whose resolution may ask whether one of these scopes is a namespace or class of the
    checkout, and of which files: the scope map is asked of a qualifier's components, a receiver's or an
    argument's class and a scope named from the caller's, each written in the call (or in a launch, a stub
    registration, a kernel alias), so its last component is in the text; and the global scope, of a name
    written with a leading `::`. (A receiver whose type is worked out from a function's return type calls a
    member of that class: a changed definition's name, whose callers are resolved again anyway.)"""
    words = sorted({k.rsplit("::", 1)[-1] for k in scopes} - {""})
    columns = [c for c in ("callee", "receiver_type", "arg_types") if c in _columns(conn, "calls")]
    tests = [f"instr({c}, ?) > 0" for c in columns for _ in words]
    args = [w for _ in columns for w in words]
    if "" in scopes:
        tests.append("substr(callee, 1, 2) = '::'")
    files: set[str] = set()
    if tests:
        files |= {r[0] for r in conn.execute(f"SELECT DISTINCT file FROM calls WHERE {' OR '.join(tests)}", args)}
    for table, column in (("launches", "kernel"), ("stubs", "kernel"), ("kernel_aliases", "targets")):
        if table in tables and words:
            found = " OR ".join(f"instr({column}, ?) > 0" for _ in words)
            files |= {r[0] for r in conn.execute(f"SELECT DISTINCT file FROM {table} WHERE {found}", words)}
    return files


def _handing_files(conn: sqlite3.Connection, tables: set[str]) -> set[str]:
    """The files with a launch of a lambda's parameter (launches.handed). The link follows the lambda into the
    functions it is handed to and looks the kernels up there (edges._HandedKernels), so an edit of a file such a
    file includes changes the launch's edges though no name the launch's file looks up changed: relink resolves
    it again."""
    if "launches" not in tables or "handed" not in {r[1] for r in conn.execute("PRAGMA table_info(launches)")}:
        return set()
    return {r[0] for r in conn.execute("SELECT DISTINCT file FROM launches WHERE handed IS NOT NULL")}


def _changed_files(conn: sqlite3.Connection, old: sqlite3.Connection) -> set[str]:
    """The paths whose file row is not the same (id, path, hash) in both indexes: added, removed, changed."""
    query = "SELECT id, path, sha256 FROM files"
    return {path for _id, path, _sha in set(conn.execute(query)) ^ set(old.execute(query))}


def _definition_keys(conn: sqlite3.Connection, files: set[str], def_columns: set[str]) -> dict[int, tuple]:
    """definitions.id -> what name lookup sees of the definition (all but its lines), for the files given:
    with its template parameters (template_args.py binds calls through them), its return type (the
    resolver types call chains by it), its guard (configurations.py: one definition per build) and the
    parameters its body calls (a caller that hands one a function by name reaches it: edges._Calls._handed)."""
    arity = ", min_args, max_args" if "min_args" in def_columns else ""
    arity += "".join(f", {c}" for c in ("template_params", "returns", "guard", "called_params") if c in def_columns)
    marks = ", ".join("?" * len(files))
    return {i: tuple(rest) for i, *rest in conn.execute(
        f"SELECT id, name, qualified_name, kind, file, qualifiers, signature{arity} FROM definitions "
        f"WHERE file IN ({marks}) ORDER BY file, line, id", sorted(files))}


def _match(conn: sqlite3.Connection, old: sqlite3.Connection, changed: set[str],
           def_columns: set[str], includes: IncludeGraph) -> _Matched | None:
    """The nodes a cold link of the facts makes, mapped to the graph's: ops, kernels, stubs and derivatives
    by identity, definitions of unchanged files by id, those of changed files by what lookup sees (in line
    order), libraries by name; None when the graph has not the nodes expected."""
    name_lines = "name_line" in def_columns
    cold = make_nodes(conn, {}, name_lines, definitions=False)
    kinds = (*_DEFINITIONS, NodeKind.LIBRARY)
    marks = ", ".join("?" * len(kinds))
    by_identity = {r[1:]: r[0] for r in conn.execute(
        f"SELECT id, kind, name, file, line, end_line, ref, detail FROM nodes WHERE kind NOT IN ({marks})", kinds)}
    fixed = [tuple(r[1:8]) for r in cold.rows if r[1] != NodeKind.LIBRARY]
    if len(fixed) != len(by_identity) or any(r not in by_identity for r in fixed):
        return None
    nodes = Nodes(base=conn.execute("SELECT max(id) FROM nodes").fetchone()[0] or 0)
    m = _Matched(nodes, cold)
    for maps in ("op", "kernel", "stub", "derivative"):
        setattr(nodes, maps, {k: by_identity[tuple(cold.rows[v - 1][1:8])] for k, v in getattr(cold, maps).items()})
    nodes.stub_names = cold.stub_names
    defs, changes = ", ".join("?" * len(_DEFINITIONS)), ", ".join("?" * len(changed))
    nodes.definition = dict(conn.execute(f"SELECT ref, id FROM nodes WHERE kind IN ({defs}) AND file NOT IN ({changes})",
                                         (*_DEFINITIONS, *sorted(changed))))
    unchanged = conn.execute(f"SELECT count(*) FROM definitions WHERE file NOT IN ({changes})", sorted(changed))
    if unchanged.fetchone()[0] != len(nodes.definition):
        return None
    old_defs = {r[6]: r for r in conn.execute(  # the definitions' nodes of the changed files
        f"SELECT id, kind, name, file, line, end_line, ref, detail FROM nodes WHERE kind IN ({defs}) AND file IN "
        f"({changes})", (*_DEFINITIONS, *sorted(changed)))}
    guards = definition_guards(conn, def_columns, includes, f"file IN ({changes})", tuple(sorted(changed)))
    wanted = {r[5]: r for r in definition_nodes(conn, guards, name_lines, f"WHERE file IN ({changes})",
                                                tuple(sorted(changed)))}
    if _match_changed(m, old_defs, wanted, _definition_keys(old, changed, def_columns),
                      _definition_keys(conn, changed, def_columns)) is None:
        return None
    for node, name, family in conn.execute("SELECT id, name, detail FROM nodes WHERE kind = ?", (NodeKind.LIBRARY,)):
        nodes.library[(family, name)] = node
    for key, node in cold.library.items():  # the entry points library_calls names: a node each
        if key not in nodes.library:
            nodes.library[key] = nodes.add(*cold.rows[node - 1][1:8])
    m.device = {n: v for n, v in conn.execute("SELECT id, device_path FROM nodes WHERE device_path != 0")
                if n not in m.removed}
    return m


def _match_changed(m: _Matched, old_defs: dict[int, tuple], wanted: dict[int, list], before: dict[int, tuple],
                   after: dict[int, tuple]) -> _Matched | None:
    """The definitions of the changed files: one that lookup sees the same keeps its node (its lines and
    guard updated), the others' nodes are removed or added and their names are changed names."""
    free: dict[tuple, list[tuple]] = {}
    m.defined.update(name for keys in (before, after) for key in keys.values() for name in key[:2])
    for ref, key in before.items():
        if ref not in old_defs:
            return None
        free.setdefault(key, []).append(old_defs[ref])
    nodes = m.nodes
    for ref, key in after.items():
        row = wanted[ref]
        reuse = free.get(key)
        if reuse:
            was = reuse.pop(0)
            nodes.definition[ref] = was[0]
            if tuple(row) != was[1:8]:
                m.updates.append((row[3], row[4], ref, row[6], was[0]))
        else:
            nodes.definition[ref] = nodes.add(*row)
            m.changed_names.add(key[0])
    for key, left in free.items():
        if left:
            m.removed.update(r[0] for r in left)
            m.changed_names.add(key[0])
    return m


def _last(name: str) -> str:
    return name.split("<", 1)[0].rsplit("::", 1)[-1]


def _callers_of(conn: sqlite3.Connection, names: set[str], tables: set[str]) -> tuple[set[str], set[str]]:
    """The files with a fact whose resolution looks up one of the names: a call, a launch, a variable
    holding kernels (for operator(), each call of a callable class and each functor a launch helper runs);
    and apart, the files with a stub registration that does (their registrations alone are resolved again:
    a CUDA kernel's name is often a CPU kernel's too, registered in a file of a thousand calls)."""
    if not names:
        return set(), set()
    wanted = set(names)
    if "operator()" in names:
        wanted |= callable_classes(conn, tables)
    _fill(conn, "_link_names", wanted)
    files = {r[0] for r in conn.execute(
        "SELECT DISTINCT file FROM calls WHERE callee_name IN (SELECT name FROM temp._link_names)")}
    for name in wanted:  # `name{...}`: the callee names that start so ('|' follows '{'), by ix_calls_callee_name
        files |= {f for f, n in conn.execute("SELECT file, callee_name FROM calls WHERE callee_name >= ? AND "
                                             "callee_name < ?", (name + "{", name + "|")) if n[:n.index("{")] in wanted}
    for kind, kernel, file in conn.execute("SELECT kind, kernel, file FROM launches WHERE kernel IS NOT NULL"):
        if _last(kernel) in names or (kind != "triple_chevron" and "operator()" in names):
            files.add(file)
    registering = {file for kernel, file in conn.execute("SELECT kernel, file FROM stubs WHERE kernel IS NOT NULL")
                   if _last(kernel) in names}
    if "kernel_aliases" in tables:
        for file, targets in conn.execute("SELECT file, targets FROM kernel_aliases"):
            if any(t.rsplit("::", 1)[-1] in names or _last(t) in names for t in json.loads(targets)):
                files.add(file)
    return files, registering


def _fill(conn: sqlite3.Connection, table: str, values: Iterable[str]) -> None:
    conn.execute(f"DELETE FROM temp.{table}")
    conn.executemany(f"INSERT INTO temp.{table} VALUES (?)", [(v,) for v in values])


def _op_rows(conn: sqlite3.Connection, defined: set[str]) -> tuple[list[int], set[str]]:
    """The dispatch rows whose op edges are made again, and their kernels' names: those whose kernel
    (edges.op_edges, kernels.implementation) is looked up by a name or qualified name of `defined`, the
    definitions of the changed files before and after (a row's op edges read the definitions of its kernel's
    name, and their lines and guards; the yaml rows, and every other file's definitions and guards, are those
    of the graph, or the whole graph is linked again)."""
    rows, kernels = [], set()
    for ref, kernel, ns in conn.execute("SELECT id, kernel, cpp_namespace FROM dispatch ORDER BY id"):
        if kernel in defined or f"{ns}::{kernel}::meta" in defined:
            rows.append(ref)
            kernels.add(kernel)
    return rows, kernels


def _select(conn: sqlite3.Connection, files: set[str], registering: set[str], tables: set[str], kernels: set[str],
            handing: set[str] = frozenset(), includes: IncludeGraph | None = None) -> list[tuple]:
    """Fill the temporary tables prepare and fact_edges read: the files resolved again, those whose stub
    registrations alone are, and every name their facts and the op edges (of the rows whose kernels are named
    `kernels`: _op_rows) look up (stage.SOME_DEFINITIONS); the files' calls (edges.call_rows)."""
    _fill(conn, "_relink_files", files)
    _fill(conn, "_reregister_files", registering)
    calls = call_rows(conn, _FILES)
    # (every operator->: a receiver reached through `->` is typed by what its class's returns, Resolver._pointee)
    names = {"operator()", "operator->"} | kernels
    for name in {r[3] for r in calls}:
        names.add(name)
        if name.endswith("}") and "{" in name:
            names.add(name[:name.index("{")])
    for table in ("launches", "stubs"):
        names |= {_last(k) for (k,) in conn.execute(
            f"SELECT DISTINCT kernel FROM {table} WHERE kernel IS NOT NULL AND file IN (SELECT path FROM {_FILES})")}
    names |= {_last(k) for (k,) in conn.execute(
        f"SELECT DISTINCT kernel FROM stubs WHERE kernel IS NOT NULL AND file IN (SELECT path FROM {_REGISTERING})")}
    if "kernel_aliases" in tables:
        for (targets,) in conn.execute(f"SELECT targets FROM kernel_aliases WHERE file IN (SELECT path FROM {_FILES})"):
            names |= {t.rsplit("::", 1)[-1] for t in json.loads(targets)}
    if handing & files:  # relink made the include graph when the index has such a launch
        names |= _handed_names(conn, handing & files, includes)
    _fill(conn, "_link_names", names)
    return calls


def _handed_names(conn: sqlite3.Connection, handing: set[str], includes: IncludeGraph) -> set[str]:
    """The names the launches of a lambda's parameter in these files look up when the link follows the lambda
    (edges._HandedKernels): the functions called, and those named as arguments, in the launch's file and the files
    it includes. A template the lambda is handed to is instantiated in the launch's file, so it is written there;
    the kernels it hands on may be defined anywhere, and are looked up by the names written."""
    reach = set(handing).union(*(includes.closure(f) for f in handing))
    _fill(conn, "_handed_files", reach)
    names: set[str] = set()
    for name, arg_types in conn.execute(
            "SELECT callee_name, arg_types FROM calls WHERE file IN (SELECT path FROM temp._handed_files)"):
        names.add(name)
        if arg_types and "decltype(" in arg_types:
            names |= {function_name(m.group(1)) for w in json.loads(arg_types)
                      if w and (m := FUNCTION_ARGUMENT.fullmatch(w)) is not None}
    return names


def _dangling(conn: sqlite3.Connection, m: _Matched) -> bool:
    """Whether an edge that stays names a node that is gone (it should have been resolved again): every edge
    but those of the files resolved again, which go (with their functions' defined-at edges to a dtype wrapper's
    #define, written where the #define is), the registrations made again, and the op edges. Fills
    temp._relinked with the nodes of the files resolved again (a fact's edges start at the definition around
    it)."""
    temp_nodes(conn, "_removed", m.removed)
    temp_nodes(conn, "_relinked", (r[0] for r in conn.execute(
        f"SELECT id FROM nodes WHERE file IN (SELECT path FROM {_FILES}) AND kind IN "
        f"({', '.join('?' * len(_DEFINITIONS))})", _DEFINITIONS)))
    return conn.execute(
        "SELECT 1 FROM edges WHERE (src IN (SELECT id FROM temp._removed) OR dst IN (SELECT id FROM temp._removed)) "
        f"AND (file IS NULL OR file NOT IN (SELECT path FROM {_FILES})) AND NOT {_OP_EDGE} "
        f"AND NOT (kind = ? AND file IN (SELECT path FROM {_REGISTERING})) "
        "AND NOT (kind = ? AND how = ? AND src IN (SELECT id FROM temp._relinked)) LIMIT 1",
        (EdgeKind.REGISTERS, EdgeKind.DEFINED_AT, How.MACRO)).fetchone() is not None


# The nodes that call one of temp._changed_nodes, transitively, through the edges of the graph in the index.
_CALLERS = ("WITH RECURSIVE up(id) AS (SELECT id FROM temp._changed_nodes UNION SELECT e.src FROM edges e JOIN up "
            "ON e.dst = up.id WHERE e.kind = ?) SELECT id FROM up")


def _device_paths(conn: sqlite3.Connection, m: _Matched, new: list[tuple]) -> tuple[dict[int, int], set[int]]:
    """device_path of the nodes of the updated graph where not 0 (stage.DeviceWork.paths), and the nodes of the
    index whose value changes. A node's value says what it reaches through its calls, so only the nodes the
    new edges start at (those of the files resolved again, and the nodes added) and the nodes that call them,
    transitively, can change. Those are worked out again from their edges; a call out of them to a node that
    keeps its value counts as that node's value (1: it leads to device work, 3: to the dispatcher). The op
    edges play no part (they are none of the kinds stage.DeviceWork reads)."""
    changed = {r[0] for r in conn.execute("SELECT id FROM temp._relinked")} | {r[0] for r in m.nodes.rows}
    changed |= {row[1] for row in new if not _op_edge(row[0], row[5])}
    temp_nodes(conn, "_changed_nodes", changed)
    affected = {r[0] for r in conn.execute(_CALLERS, (EdgeKind.CALLS,))} | changed
    temp_nodes(conn, "_callers", affected - changed)
    work = DeviceWork(n for n in _global_kernels(conn, m) if n in affected)
    kinds = (*DEVICE_WORK, EdgeKind.CALLS, EdgeKind.REDISPATCHES_TO_OP)
    work.add((kind, src, dst, None, None, how) for kind, src, dst, how in conn.execute(
        f"SELECT kind, src, dst, how FROM edges WHERE src IN (SELECT id FROM temp._callers) AND kind IN "
        f"({', '.join('?' * len(kinds))}) AND (dst IS NOT NULL OR kind != ? OR how = ?)",
        (*kinds, EdgeKind.CALLS, How.VIRTUAL)))
    work.add(new)
    for callee, callers in work.callers.items():  # the calls out of the affected nodes to nodes that keep their value
        if callee not in affected:
            kept = m.device.get(callee, 0)
            if kept == 1:
                work.seeds.extend(callers)
            elif kept == 3:
                work.redispatchers.extend(callers)
    device = {n: v for n, v in m.device.items() if n not in affected}
    device.update((n, v) for n, v in work.paths().items() if n in affected)
    added = {r[0] for r in m.nodes.rows}
    return device, {n for n in affected - added if device.get(n, 0) != m.device.get(n, 0)}


def _global_kernels(conn: sqlite3.Connection, m: _Matched) -> list[int]:
    found = [r[0] for r in conn.execute("SELECT id FROM nodes WHERE kind = ?", (NodeKind.GLOBAL_KERNEL,))
             if r[0] not in m.removed]
    return found + [r[0] for r in m.nodes.rows if r[1] == NodeKind.GLOBAL_KERNEL]


_WORD = re.compile(r"\w+")


def _counting(conn: sqlite3.Connection, moved: set[int], files: set[str]) -> set[str]:
    """The files not resolved again whose ambiguous calls without an edge per candidate may count one of
    the definitions whose device_path changed (their names are among the call's words)."""
    if not moved:
        return set()
    temp_nodes(conn, "_moved", moved)
    words = {w for (name,) in conn.execute(
        "SELECT DISTINCT d.name FROM nodes n JOIN definitions d ON d.id = n.ref WHERE n.id IN (SELECT id FROM "
        f"temp._moved) AND n.kind IN ({', '.join('?' * len(_DEFINITIONS))})", _DEFINITIONS)
        for w in _WORD.findall(name)}
    more = set()
    if words:
        for file, target in conn.execute("SELECT DISTINCT file, target FROM edges WHERE dst IS NULL AND how IN "
                                         f"({', '.join('?' * len(SEVERAL))})", SEVERAL):
            if file not in files and target and not words.isdisjoint(_WORD.findall(target)):
                more.add(file)
    return more


def _op_edges_changed(conn: sqlite3.Connection, new: list[tuple], nodes: Nodes,
                      op_rows: list[int]) -> tuple[list[tuple], set[int]]:
    """The op edges made again (those of the dispatch rows op_rows: their has-kernel, implements, meta and
    generated redispatches) replace the graph's: those not made again are deleted; returned: the new rows to
    insert (those of the files, and the op edges not there yet), and the nodes whose op edges changed."""
    kernels = json.dumps(sorted(nodes.kernel[r] for r in op_rows))
    metas = json.dumps(sorted(nodes.op[op] for op, in conn.execute(
        "SELECT op FROM dispatch WHERE id IN (SELECT value FROM json_each(?)) AND origin = ?",
        (json.dumps(op_rows), Origin.META))))
    there: dict[tuple, list[int]] = {}
    for edge, *row in conn.execute(
            "SELECT id, kind, src, dst, file, line, how, target, detail FROM edges WHERE "
            "(src IN (SELECT value FROM json_each(?)) AND (kind = ? OR (kind = ? AND how = ?))) OR "
            "(dst IN (SELECT value FROM json_each(?)) AND kind = ?) OR "
            "(src IN (SELECT value FROM json_each(?)) AND kind = ?)",
            (kernels, EdgeKind.IMPLEMENTS, EdgeKind.REDISPATCHES_TO_OP, How.GENERATED, kernels, EdgeKind.HAS_KERNEL,
             metas, EdgeKind.META)):
        there.setdefault(tuple(row), []).append(edge)
    rows, sources = [], set()
    for row in new:
        op_edge = _op_edge(row[0], row[5])
        same = there.get(row) if op_edge else None
        if same:
            same.pop()
        else:
            rows.append(row)
            if op_edge:
                sources.add(row[1])
    sources.update(row[1] for row, left in there.items() if left)
    conn.executemany("DELETE FROM edges WHERE id = ?", [(edge,) for left in there.values() for edge in left])
    return rows, sources


def _write(conn: sqlite3.Connection, m: _Matched, device: dict[int, int], moved: set[int],
           new: list[tuple], op_rows: list[int]) -> set[int]:
    """The edges of the files resolved again, the registrations made again and the op edges replaced, the nodes
    removed, moved and added, the library nodes no edge and no library call names removed, device_path
    updated where it changed. Returned: the nodes whose edges are not those they had, in the same order (the
    same edges made again in the same order are no change; a walk reads a node's edges in id order)."""
    # The edges of the files resolved again, found through ix_edges_src: an edge starts at a node of its own
    # file (a fact's edges start at the definition around it), but for a stub's (registers, declared-at,
    # defined-at) and the op edges; a function's defined-at edge (the #define of a dtype wrapper macro,
    # dtype_macros.py) is written where the #define is, maybe another file.
    replaced = ((f"src IN (SELECT id FROM nodes WHERE file IN (SELECT path FROM {_FILES}) OR kind = ?) AND file IN "
                 f"(SELECT path FROM {_FILES}) AND NOT {_OP_EDGE}", (NodeKind.STUB,)),
                (f"src IN (SELECT id FROM nodes WHERE kind = ?) AND kind = ? AND file IN "
                 f"(SELECT path FROM {_REGISTERING})", (NodeKind.STUB, EdgeKind.REGISTERS)),
                (f"src IN (SELECT id FROM nodes WHERE file IN (SELECT path FROM {_FILES})) AND kind = ? AND how = ?",
                 (EdgeKind.DEFINED_AT, How.MACRO)))
    rewritten: set[int] = {row[1] for row in new if not _op_edge(row[0], row[5])}
    # The library nodes that may be left with neither an edge to them nor a library call naming them: those the
    # edges replaced lead to, and those the changed files' library calls named (the op edges lead to none)
    lonely = set()
    for where, args in replaced:
        for src, kind, dst in conn.execute(f"SELECT DISTINCT src, kind, dst FROM edges WHERE {where}", args):
            rewritten.add(src)
            if kind == EdgeKind.CALLS_LIBRARY and dst is not None:
                lonely.add(dst)
    for family, callee in m.library_named:
        if (family, callee) in m.nodes.library:
            lonely.add(m.nodes.library[(family, callee)])
    before = _edge_lists(conn, rewritten)
    for where, args in replaced:
        conn.execute(f"DELETE FROM edges WHERE {where}", args)
    new, sources = _op_edges_changed(conn, new, m.nodes, op_rows)
    conn.executemany("DELETE FROM nodes WHERE id = ?", [(n,) for n in m.removed])
    conn.executemany("UPDATE nodes SET line = ?, end_line = ?, ref = ?, detail = ? WHERE id = ?", m.updates)
    conn.executemany(NODE_INSERT, [(*r[:8], device.get(r[0], 0)) for r in m.nodes.rows])
    conn.executemany("UPDATE nodes SET device_path = ? WHERE id = ?", [(device.get(n, 0), n) for n in moved])
    conn.executemany(EDGE_INSERT, new)
    temp_nodes(conn, "_lonely", lonely)
    conn.execute("DELETE FROM nodes WHERE id IN (SELECT id FROM temp._lonely) AND kind = ? AND id NOT IN (SELECT dst "
                 "FROM edges WHERE kind = ? AND dst IN (SELECT id FROM temp._lonely)) AND (detail, name) NOT IN "
                 "(SELECT family, callee FROM library_calls)", (NodeKind.LIBRARY, EdgeKind.CALLS_LIBRARY))
    after = _edge_lists(conn, rewritten)
    return sources | {n for n in rewritten if before.get(n) != after.get(n)}


def _edge_lists(conn: sqlite3.Connection, nodes: set[int]) -> dict[int, list[tuple]]:
    """The edges out of each of the nodes, without their ids, in the order a walk reads them: in id order, but a
    stub's by kind, file and line (kinds.stub_edge_order: its registrations made again come after the others,
    and are no change)."""
    got: dict[int, list[tuple]] = {}
    stubs = set()
    for src, kind, *row in conn.execute(
            "SELECT e.src, n.kind, e.kind, e.dst, e.file, e.line, e.how, e.target, e.detail FROM edges e JOIN nodes n "
            "ON n.id = e.src WHERE e.src IN (SELECT value FROM json_each(?)) ORDER BY e.src, e.id",
            (json.dumps(sorted(nodes)),)):
        got.setdefault(src, []).append(tuple(row))
        if kind == NodeKind.STUB:
            stubs.add(src)
    for stub in stubs:
        got[stub].sort(key=stub_edge_order)
    return got
