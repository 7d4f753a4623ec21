"""The link stage's run: everything that needs more than one file, resolved once per build into the
graph tables `nodes` and `edges` (schema/models.py documents them; kinds.py names their kinds).

It reads the fact tables the extract stage wrote (one pass over each) and writes the graph in bulk.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .. import code_hash, naming
from .classify import OpForms, SchemaParameters, schema_arity
from .edges import Callers, call_edges, dtype_edges, launch_edges, op_edges, optional_call_columns, stub_edges
from .dtype_macros import DtypeMacros, shared_rows
from .includes import IncludeGraph
from .kinds import SEVERAL, EdgeKind, How, NodeKind
from . import template_args
from .nodes import Nodes, make_nodes
from .resolve import Context, Resolver, ScopeEntry, scope_entries
from ..cxx.scopes import split_scope
from .symbols import (ANONYMOUS, Symbol, Symbols, has_return_types, is_header, normalise_scope, op_typing,
                      parameter_names, scope_chain, untemplated)

__all__ = ["GRAPH_TABLES", "link_hash", "EdgeKind", "How", "NodeKind", "LinkSummary", "link"]

# The columns the link stage writes, per graph table (the models in schema/models.py say the same).
GRAPH_TABLES = {
    "nodes": ("id", "kind", "name", "file", "line", "end_line", "ref", "detail", "device_path"),
    "edges": ("id", "kind", "src", "dst", "file", "line", "how", "target", "detail"),
}
NODE_INSERT = f"INSERT INTO nodes ({', '.join(GRAPH_TABLES['nodes'])}) VALUES ({', '.join('?' * 9)})"
# Edges whose source does device work itself (device_path seeds).
DEVICE_WORK = frozenset((EdgeKind.USES_STUB, EdgeKind.LAUNCHES, EdgeKind.RUNS_FUNCTOR, EdgeKind.CALLS_LIBRARY,
                          EdgeKind.DTYPES))
EDGE_INSERT = f"INSERT INTO edges ({', '.join(GRAPH_TABLES['edges'][1:])}) VALUES ({', '.join('?' * 8)})"


@dataclass(frozen=True)
class GraphChanges:
    """What an incremental link changed, for the stages that keep what was made from the graph (the chains
    walked at build time, indexer/chain_stage.py)."""

    files: frozenset[str]  # the files whose facts changed
    nodes: frozenset[int]  # nodes added, removed, moved or with another device_path, and those whose edges changed
    names: frozenset[str]  # the names whose definitions were added or removed


@dataclass(frozen=True)
class LinkSummary:
    nodes: int
    edges: int
    inputs: str = ""  # fingerprint of the checkout-wide inputs (Prepared.inputs)
    file_includes: dict[str, str] = field(default_factory=dict)  # Prepared.file_includes
    scopes: list[ScopeEntry] = field(default_factory=list)  # every definition's resolve.scope_entries, sorted
    incremental: bool = False  # only what could change was resolved again (incremental.py)
    changes: GraphChanges | None = None  # what an incremental link changed (None: linked whole)


def link_hash() -> str:
    """Hash of this package's code (16 hex digits): an index linked by other code is linked again."""
    return code_hash.link_stage()


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


class Contexts:
    """The lookup context of a caller (memoised per file and scope)."""

    def __init__(self, symbols: Symbols, includes: IncludeGraph, usings: dict[str, tuple[str, ...]],
                 aliases: dict[str, str], local_aliases: dict[tuple[str, str], dict[str, str]],
                 declarations: dict[str, dict[tuple[str, str], tuple[str, ...]]] | None = None):
        self.symbols = symbols
        self.includes = includes
        self.usings = usings
        self.declarations = declarations or {}  # file -> the using-declarations it sees ("" -> the headers')
        self._scopes: dict[int, set[str]] = {}  # a declarations table's id -> the scopes it has declarations in
        self.aliases = aliases  # namespace and class level: alias -> aliased type
        self.local_aliases = local_aliases  # (file, function) -> its own aliases
        self._memo: dict[tuple[str, str], Context] = {}

    def _bodies(self, declared: dict[tuple[str, str], tuple[str, ...]] | None) -> set[str]:
        """The scopes a declarations table has declarations in. A caller is named in its Context only when its
        body is one of them: the resolver's memos are shared by all the callers of a scope otherwise."""
        if not declared:
            return set()
        got = self._scopes.get(id(declared))
        if got is None:
            got = self._scopes[id(declared)] = {scope for scope, _name in declared}
        return got

    def __call__(self, file: str, caller: Symbol | None) -> Context:
        qualified = caller.qualified_name if caller is not None else ""
        key = (file, qualified, caller.line if caller is not None else 0)
        ctx = self._memo.get(key)
        if ctx is None:
            chain = scope_chain(qualified, self.symbols.inline) if qualified else [""]
            declared = self.declarations.get(file, self.declarations.get(""))
            own = normalise_scope(split_scope(qualified), self.symbols.inline) if qualified else ""
            closure = self.includes.closure
            ctx = self._memo[key] = Context(
                file, chain, self.usings.get(file, ()),
                lambda f, file=file: f == file or f in closure(file) or (is_header(f) and not self.includes.direct),
                lambda f, file=file: f in closure(file),
                parameter_names(caller.signature) if caller is not None else frozenset(),
                self.local_aliases.get((file, qualified)), caller.template_params if caller is not None else None,
                declared, own if own in self._bodies(declared) else "")
        return ctx


@dataclass
class Prepared:
    """What resolving needs, built once from the facts: the symbol table (with the node ids given),
    the resolver, the include graph, the callers' contexts."""

    nodes: Nodes
    tables: set[str]
    symbols: Symbols
    resolver: Resolver
    includes: IncludeGraph
    contexts: Contexts
    callers: Callers
    functors: object
    call_columns: str  # the optional columns of calls this index has
    dtype_macros: DtypeMacros  # the #defines of the wrappers dtype dispatches are written with
    inputs: str  # fingerprint of the checkout-wide inputs (see inputs_fingerprint)
    file_includes: dict[str, str]  # a hash of what each file no other includes includes (its own input)


# The definitions an incremental link reads (see prepare): of the names in this temporary table, of the
# files resolved again, and the structured kernels' (the op edges look those up by qualified name).
SOME_DEFINITIONS = (" WHERE name IN (SELECT name FROM temp._link_names) OR file IN (SELECT path FROM temp._relink_files)"
                    " OR kind IN ('meta_func', 'impl_func')")


def prepare(conn: sqlite3.Connection, nodes: Nodes, tables: set[str], def_columns: set[str],
            cold: Nodes | None = None, some: bool = False, includes: IncludeGraph | None = None,
            guards: dict[int, str] | None = None) -> Prepared:
    """Everything resolution reads, the definitions numbered as nodes.definition says; cold: the nodes a
    cold link makes, when `nodes` are another graph's (the fingerprint hashes the cold ones). some: only
    the definitions SOME_DEFINITIONS selects, for resolving the facts of a few files (every name their
    facts and the op edges look up is among them). includes: the include graph, and guards: every
    definition's guard (definition_guards), when made already."""
    inline = frozenset(r[0] for r in conn.execute("SELECT qualified_name FROM inline_namespaces")) \
        if "inline_namespaces" in tables else frozenset()
    arity = ", min_args, max_args" if "min_args" in def_columns else ", -1, -1"
    arity += ", template_params" if "template_params" in def_columns else ""
    arity += ", constrained" if "template_params" in def_columns and "constrained" in def_columns else ""
    # (each row's declared return type last, read in the same pass: a pass over the table's 12 MB)
    rows = conn.execute("SELECT id, name, qualified_name, kind, file, line, end_line, qualifiers, signature" + arity +
                        (", returns" if "returns" in def_columns else ", NULL") + " FROM definitions" +
                        (SOME_DEFINITIONS if some else "") + " ORDER BY id").fetchall()
    symbols = Symbols(((i, nodes.definition[i], *rest[:-1]) for i, *rest in rows), inline)
    returns = {row[0]: row[-1] for row in rows if row[-1] is not None}  # definitions.id -> its return type
    macros, types, bases, classes = _names(conn, tables)
    _structured_bases(conn, bases)
    namespaces = _namespaces(conn, inline)
    ops = _op_forms(conn)
    scope_usings = _scope_usings(conn, tables, inline)
    resolver = Resolver(symbols, ops, macros, types, bases, namespaces, scope_usings)
    resolver.classes = classes
    includes = includes or include_graph(conn, tables)
    if guards is None:
        guards = definition_guards(conn, def_columns, includes)
    resolver.guards = guards  # one definition per build configuration (resolve.py)
    # what call chains are typed by (resolve.py): the return types of the symbols' definitions
    op_returns, tensor_methods = op_typing(conn)
    resolver.returns, resolver.op_returns, resolver.tensor_methods = returns, op_returns, tensor_methods
    resolver.typed = has_return_types(conn, def_columns) if some else bool(returns)
    resolver.fields = class_fields(conn, tables, inline)
    resolver.constants, resolver.enums = constants(conn, tables, inline)
    resolver.class_namespaces = class_namespaces(conn, tables, inline)
    resolver.op_references = frozenset(name for name, func in conn.execute("SELECT name, func FROM ops")
                                       if "!)" in func.rpartition(") -> ")[2])  # `-> Tensor(a!)`: returns a Tensor&
    global_aliases, local_aliases = _aliases(conn, tables)
    resolver.aliases = global_aliases
    resolver.qualified_aliases = qualified_aliases(conn, tables, inline)
    usings = transitive_usings(_usings(conn, tables, inline), scope_usings)
    declarations = using_declarations(conn, tables, inline)
    contexts = Contexts(symbols, includes, usings, global_aliases, local_aliases, declarations)
    extra = optional_call_columns(_columns(conn, "calls"))
    functors = _functors(conn, tables, symbols, resolver)
    dtype_shared = shared_rows(conn, tables)
    included = {t for found in includes.direct.values() for t in found}
    shared = {f: found for f, found in includes.direct.items() if f in included}
    own = {f: hashlib.sha256(repr(found).encode()).hexdigest()[:16] for f, found in includes.direct.items()
           if f not in included}
    inputs = inputs_fingerprint(cold or nodes, inline, macros, types, bases, namespaces, ops, scope_usings, shared,
                                bool(includes.direct), global_aliases, resolver.qualified_aliases,
                                callable_classes(conn, tables), op_returns,
                                tensor_methods, declarations.get("", {}),
                                # (each value in an order of the facts: class_fields, class_namespaces; a field's
                                # members in the order the class writes them)
                                repr(sorted(resolver.fields.items())),
                                sorted((s.qualified_name, s.file, s.signature) for found in resolver.constants.values() for s in found),
                                resolver.enums, resolver.op_references, repr(sorted(resolver.class_namespaces.items())),
                                includes.inclusion_guards(), sorted(map(repr, dtype_shared)))
    return Prepared(nodes, tables, symbols, resolver, includes, contexts, Callers(symbols), functors, extra,
                    DtypeMacros(conn, tables, dtype_shared, includes), inputs, own)


def include_graph(conn: sqlite3.Connection, tables: set[str]) -> IncludeGraph:
    """The include graph of the C++ files' facts."""
    guard = ", guard" if "includes" in tables and "guard" in _columns(conn, "includes") else ""
    return IncludeGraph(
        (r[0] for r in conn.execute("SELECT path FROM files WHERE language IN ('cpp', 'cuda', 'objcpp')")),
        conn.execute(f"SELECT file, target, system{guard} FROM includes ORDER BY id") if "includes" in tables else ())


def _namespaces(conn: sqlite3.Connection, inline: frozenset[str]) -> frozenset[str]:
    """The first component of every (normalised) scope a definition is in: the first component written,
    read whole (split_scope, normalise_scope) where it is an unnamed or inline namespace or templated."""
    first = "substr(qualified_name, 1, instr(qualified_name, '::') - 1)"
    out, odd = set(), set()
    for (name,) in conn.execute(f"SELECT DISTINCT {first} FROM definitions WHERE instr(qualified_name, '::') > 0"):
        if not name or name == ANONYMOUS or name in inline or "<" in name or ">" in name:
            odd.add(name)
        else:
            out.add(name)
    if odd:
        marks = ", ".join("?" * len(odd))
        for (qualified,) in conn.execute(f"SELECT DISTINCT qualified_name FROM definitions WHERE instr(qualified_name, "
                                         f"'::') > 0 AND {first} IN ({marks})", sorted(odd)):
            scope = normalise_scope(split_scope(qualified)[:-1], inline)
            if scope:
                out.add(scope.split("::", 1)[0])
    return frozenset(out)


def inputs_fingerprint(nodes: Nodes, *inputs) -> str:
    """A hash of what every call's resolution may read beyond the definitions of the name it calls and
    the facts of its own file (its using-directives, its functions' own type aliases): the op, kernel,
    stub and derivative nodes, inline namespaces, macro and type names, class bases, the namespaces
    defined in, the op forms, the includes of the files others include, the using-directives of headers' namespaces, the type
    aliases at namespace or class level, the callable classes, the ops' C++ return types, the Tensor methods
    torchgen generates, the using-declarations written in headers, the classes' data members and the type
    aliases by qualified name, the #defines of the macros dtype dispatches are written with (dtype_macros.py).
    The same facts give the same hash,
    whatever the order of their rows' ids."""
    h = hashlib.sha256()
    for row in nodes.rows:
        if row[1] not in (NodeKind.FUNCTION, NodeKind.GLOBAL_KERNEL, NodeKind.STRUCTURED, NodeKind.LIBRARY):
            h.update(repr(row[1:8]).encode())
    for value in inputs:
        h.update(b"\0" + _canonical(value).encode())
    return h.hexdigest()[:32]


def _canonical(value) -> str:
    """A text for a set, dict, list or object of sets and dicts, independent of the sets' order."""
    if type(value) is str:
        return repr(value)
    if isinstance(value, (set, frozenset)):  # (of plain strings, their reprs: what the recursion gives, sooner)
        texts = map(repr, value) if all(type(v) is str for v in value) else map(_canonical, value)
        return "{" + ",".join(sorted(texts)) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(sorted(f"{_canonical(k)}:{_canonical(v)}" for k, v in value.items())) + "}"
    if isinstance(value, (list, tuple)):
        if all(type(v) is str for v in value):
            return "[" + ",".join(map(repr, value)) + "]"
        return "[" + ",".join(map(_canonical, value)) + "]"
    if isinstance(value, SchemaParameters):
        return _canonical(value.funcs)
    if isinstance(value, OpForms):  # what it was made of, when known (the same rows make the same forms)
        if value.source is not None:
            return repr(value.source)
        return _canonical([value.bases, value.methods, value.unambiguous, value.by_base, value.parameters])
    if value is None or isinstance(value, (str, int, float)):
        return repr(value)
    raise TypeError(f"no canonical text for {type(value).__name__}")


def link(conn: sqlite3.Connection, jobs: int = 1, includes: IncludeGraph | None = None) -> LinkSummary:
    """Resolve the facts into nodes and edges (replacing what an earlier build linked); the calls are
    resolved in `jobs` processes, forked once the symbol table is built (parallel.py). includes: the
    include graph of the facts, when made already."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    def_columns = _columns(conn, "definitions")
    includes = includes or include_graph(conn, tables)
    guards = definition_guards(conn, def_columns, includes)
    nodes = make_nodes(conn, guards, "name_line" in def_columns)
    p = prepare(conn, nodes, tables, def_columns, includes=includes, guards=guards)
    scopes = sorted(scope_entries(s for syms in p.symbols.by_file.values() for s in syms))
    p.resolver.use_scopes(scopes)
    edge_rows = template_args.bind(list(fact_edges(conn, p, jobs)), p.symbols, p.resolver, p.contexts, p.functors,
                                   conn)
    _mark_device_paths(nodes.rows, edge_rows)
    count_device_candidates({r[0]: r[8] for r in nodes.rows if r[8]}, edge_rows)
    _write(conn, nodes.rows, edge_rows)
    return LinkSummary(len(nodes.rows), len(edge_rows), p.inputs, p.file_includes, scopes)


def definition_guards(conn: sqlite3.Connection, def_columns: set[str], includes: IncludeGraph,
                      where: str = "", params: tuple = ()) -> dict[int, str]:
    """definitions.id -> the conditions under which the definition is compiled: its own #if guard, after the
    condition every #include of its file is written under (includes.py inclusion_guards), joined with ` && `;
    `where`: which definitions (an SQL condition)."""
    if "guard" not in def_columns:
        return {}
    included = includes.inclusion_guards()
    files = json.dumps(sorted(included))
    out = {}
    for ref, file, guard in conn.execute(
            "SELECT id, file, guard FROM definitions WHERE (guard IS NOT NULL OR file IN (SELECT value FROM "
            f"json_each(?))){' AND ' + where if where else ''}", (files, *params)):
        outer = included.get(file)
        out[ref] = guard if outer is None else outer if guard is None else \
            f"{f'({outer})' if ' || ' in outer else outer} && {guard}"
    return out


def fact_edges(conn: sqlite3.Connection, p: Prepared, jobs: int, files: str | None = None,
               call_rows: list[tuple] | None = None, op_rows: list[int] | None = None) -> Iterator[tuple]:
    """The edges of the facts: the op edges (from the yaml rows and the definitions of the kernels'
    names; op_rows: those of these dispatch rows alone, edges.op_edges), and those of every file or of the
    files in the temporary table named `files` (call_rows: the calls of those files, when read already)."""
    nodes, symbols, resolver, callers, contexts = p.nodes, p.symbols, p.resolver, p.callers, p.contexts
    return itertools.chain(
        op_edges(conn, nodes, symbols, resolver.guards, op_rows),
        call_edges(conn, nodes, resolver, callers, contexts, p.call_columns, p.functors, p.tables, jobs, files,
                   call_rows),
        stub_edges(conn, nodes, symbols, callers, contexts, resolver, files),
        launch_edges(conn, nodes, symbols, callers, contexts, resolver, p.tables, files),
        dtype_edges(conn, callers, p.dtype_macros, files))


def _write(conn: sqlite3.Connection, node_rows: list, edge_rows: list) -> None:
    """Replace the graph; its indexes are made once the rows are in (one sort each, not a b-tree per row)."""
    indexes = [r[0] for r in conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('nodes', 'edges') AND sql IS NOT NULL")]
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN "
                                "('nodes', 'edges') AND sql IS NOT NULL").fetchall():
        conn.execute(f"DROP INDEX {name}")
    conn.execute("DELETE FROM nodes")
    conn.execute("DELETE FROM edges")
    conn.executemany(NODE_INSERT, node_rows)
    conn.executemany(EDGE_INSERT, edge_rows)
    for sql in indexes:
        conn.execute(sql)


def _mark_device_paths(node_rows: list[list], edge_rows: list[tuple]) -> None:
    """device_path of every node row (device_paths)."""
    kernels = (r[0] for r in node_rows if r[1] == NodeKind.GLOBAL_KERNEL)
    for node, value in device_paths(kernels, edge_rows).items():
        node_rows[node - 1][8] = value


class DeviceWork:
    """What device_path is computed from: the nodes that do device work, the callers of each node, the
    helpers that call what they are handed, the nodes that call an op through the dispatcher."""

    def __init__(self, seeds: Iterable[int] = ()):
        self.seeds = list(seeds)
        self.callers: dict[int, list[int]] = {}
        self.handed: list[int] = []
        self.redispatchers: list[int] = []

    def add(self, edge_rows: Iterable[tuple]) -> None:
        """Edge rows that start (kind, src, dst, file, line, how)."""
        for kind, src, dst, _f, _l, how, *_ in edge_rows:
            if kind in DEVICE_WORK:
                self.seeds.append(src)
            elif kind == EdgeKind.CALLS:
                if dst is not None:
                    self.callers.setdefault(dst, []).append(src)
                if how == How.VIRTUAL:
                    self.handed.append(src)
            elif kind == EdgeKind.REDISPATCHES_TO_OP:
                self.redispatchers.append(src)

    def paths(self) -> dict[int, int]:
        """The nodes whose device_path is not 0: 1 for every node that does device work or calls
        (transitively) one that does; 2 for a helper that calls what it is handed; 3 for one that leads
        through calls to an op called through the dispatcher."""
        value: dict[int, int] = {}
        _fill(value, list(self.seeds), self.callers, 1)
        for node in self.handed:  # a helper that calls what it is handed (a stub, a lambda, a functor)
            value.setdefault(node, 2)
        _fill(value, list(self.redispatchers), self.callers, 3)
        return value


def device_paths(global_kernels: Iterable[int], edge_rows: Iterable[tuple]) -> dict[int, int]:
    """DeviceWork.paths of these edge rows (that start (kind, src, dst, file, line, how))."""
    work = DeviceWork(global_kernels)
    work.add(edge_rows)
    return work.paths()


def _fill(value: dict[int, int], todo: list[int], callers: dict[int, list[int]], mark: int) -> None:
    """value = mark for the nodes of todo and, transitively, their callers, where it is still unset."""
    while todo:
        node = todo.pop()
        if node in value:
            continue
        value[node] = mark
        todo.extend(callers.get(node, ()))


def count_device_candidates(device: dict[int, int], edge_rows: list) -> None:
    """An ambiguous call with too many candidates for an edge each says how many lead to device work
    (detail "7 (2 lead to device work)"), so a walk can say what it did not follow; `device` maps the
    nodes to their device_path."""
    for i, row in enumerate(edge_rows):
        if row[5] in SEVERAL and row[2] is None and len(row) > 8:
            count = sum(device.get(n) == 1 for n in row[8])
            edge_rows[i] = (*row[:7], f"{row[7]} ({count} lead to device work)" if count else row[7])
        elif len(row) > 8:
            edge_rows[i] = row[:8]


def _op_forms(conn: sqlite3.Connection) -> OpForms:
    bases, methods, unambiguous, overloads, funcs, method_ops = set(), set(), {}, {}, {}, set()
    manual = "manual_cpp_binding" if "manual_cpp_binding" in {r[1] for r in conn.execute("PRAGMA table_info(ops)")} \
        else "0"
    rows = conn.execute(f"SELECT name, base, overload, variants, kind, func, {manual} FROM ops ORDER BY id").fetchall()
    for name, base, overload, variants, kind, func, manual_binding in rows:
        bases.add(base)
        if "method" in json.loads(variants):
            methods.add(base)
            if not manual_binding:
                method_ops.add(name)
        unambiguous[naming.unambiguous_name(base, overload)] = name
        overloads.setdefault(base, []).append((name, kind, *schema_arity(func)))
        funcs[name] = func
    forms = OpForms(bases, methods, unambiguous, overloads, SchemaParameters(funcs))
    forms.method_ops = frozenset(method_ops)
    forms.source = hashlib.sha256(repr(rows).encode()).hexdigest()
    return forms


def _names(conn: sqlite3.Connection, tables: set[str]
           ) -> tuple[set[str], set[str], dict[str, tuple[str, ...]], frozenset[str]]:
    """(function-like and object-like macro names, type names, class -> base classes, class names)."""
    macros = {r[0] for r in conn.execute("SELECT DISTINCT name FROM macros")} if "macros" in tables else set()
    types: set[str] = set()
    bases: dict[str, tuple[str, ...]] = {}
    if "classes" in tables:
        for name, written in conn.execute("SELECT name, bases FROM classes"):
            types.add(name)
            found = tuple(json.loads(written or "[]"))
            if found:
                bases[name] = bases.get(name, ()) + found
    classes = frozenset(types)
    if "usings" in tables:
        types |= {r[0] for r in conn.execute("SELECT alias FROM usings WHERE kind = 'alias' AND alias IS NOT NULL")}
    return macros, types, bases, classes


def class_fields(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]
                 ) -> dict[str, list[tuple[str, dict[str, str]]]]:
    """The classes' data members (classes.fields), by the class's last name (untemplated): each class's
    qualified name, normalised as scopes are, and its fields' types. A class index without the column
    (an index of an older schema) has none."""
    out: dict[str, list[tuple[str, dict[str, str]]]] = {}
    if "classes" not in tables or "fields" not in _columns(conn, "classes"):
        return out
    for name, qualified, written in conn.execute(
            "SELECT name, qualified_name, fields FROM classes WHERE fields != '[]' ORDER BY id"):
        members = {f["name"]: f["type"] for f in json.loads(written)}
        out.setdefault(name.split("<", 1)[0], []).append((normalise_scope(split_scope(qualified), inline), members))
    for found in out.values():  # an order of the facts, not of their rows' ids (the fingerprint hashes it)
        found.sort(key=lambda c: (c[0], sorted(c[1].items())))
    return out


def constants(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]
              ) -> tuple[dict[str, list[Symbol]], set[str]]:
    """The namespace-scope constants (the constants table) by name, as symbols that lookup finds like
    definitions (their type in `signature`; one of a source file, or of an unnamed namespace, is local to its
    file), and the names of the enums (classes of kind enum): what an argument that names them is. An index
    of an older schema has neither."""
    out: dict[str, list[Symbol]] = {}
    if "constants" in tables:
        for file, name, qualified, written, line in conn.execute(
                "SELECT file, name, qualified_name, type, line FROM constants ORDER BY file, line, qualified_name"):
            parts = split_scope(qualified)
            out.setdefault(name, []).append(Symbol(
                -1, -1, name, qualified, "constant", file, line, line, normalise_scope(parts[:-1], inline),
                ANONYMOUS in parts or not is_header(file), None, -1, -1, written))
    enums = {r[0] for r in conn.execute("SELECT DISTINCT name FROM classes WHERE kind = 'enum'")} \
        if "classes" in tables else set()
    return out, enums


def class_namespaces(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]
                     ) -> dict[str, tuple[tuple[str, str], ...]]:
    """The classes and enums by last name: (qualified name, the namespace around it) of each, normalised as
    scopes are and without template arguments; a nested class's namespace is its outermost class's. What
    argument-dependent lookup searches for a call whose argument is of that type (resolve.py)."""
    if "classes" not in tables:
        return {}
    rows = [(name.split("<", 1)[0], untemplated(normalise_scope(split_scope(qualified), inline)))
            for name, qualified in conn.execute("SELECT name, qualified_name FROM classes")]
    classes = {q for _, q in rows}
    out: dict[str, set[tuple[str, str]]] = {}
    for name, qualified in rows:
        space = qualified.rpartition("::")[0]
        while space and space in classes:
            space = space.rpartition("::")[0]
        out.setdefault(name, set()).add((qualified, space))
    return {name: tuple(sorted(found)) for name, found in out.items()}


def callable_classes(conn: sqlite3.Connection, tables: set[str]) -> set[str]:
    if "classes" not in tables:
        return set()
    return {r[0] for r in conn.execute("SELECT DISTINCT name FROM classes WHERE has_call_operator = 1")}


FUNCTOR_OVERLOADS = 8  # a constructed functor's operator() overloads followed, at most


def _functors(conn: sqlite3.Connection, tables: set[str], symbols: Symbols, resolver: Resolver):
    """A lookup for calls that construct a functor (`sum_functor<scalar_t>{}(iter)`, `Op()`): the
    operator() definitions of the class named, found like any call of `Class::operator()`, of a class the caller
    can see (written in its file or a file it includes). Lookup of `Tensor::operator()` from at::native finds the
    one class of the checkout whose name ends in Tensor and has an operator(), 1.13.1's nvfuser::Tensor
    (jit/codegen/cuda/python_frontend/fusion_definition.h), though `Tensor()` in a kernel makes an at::Tensor."""
    if "classes" not in tables:
        return None
    callable_names = callable_classes(conn, tables)
    class_files: dict[str, set[str]] = {}
    for qualified, file in conn.execute("SELECT qualified_name, file FROM classes WHERE has_call_operator = 1"):
        class_files.setdefault(normalise_scope(split_scope(qualified), symbols.inline), set()).add(file)

    def seen_from(ctx, node: int) -> bool:
        """Whether the class of an operator() is written where the caller can see it (or is not known)."""
        sym = resolver.symbol_of_node().get(node)
        files = class_files.get(sym.scope) if sym is not None else None
        return not files or any(ctx.visible(f) for f in files)

    def operators(ctx, callee: str, name: str) -> list[int]:
        if name not in callable_names:
            return []
        out: list[int] = []
        for t in resolver.resolve(ctx, f"{callee}::operator()", "operator()", -1, None):
            if t.node is not None:
                out.append(t.node)
            elif len(t.candidates) <= FUNCTOR_OVERLOADS:  # operator() overloaded by type: each may run
                out.extend(t.candidates)
        return [n for n in out if seen_from(ctx, n)]
    return operators


def _aliases(conn: sqlite3.Connection, tables: set[str]) -> tuple[dict[str, str], dict[tuple[str, str], dict[str, str]]]:
    """Type aliases: those at namespace or class level (one table for the checkout: a name aliased twice
    keeps its first), and each function's own."""
    glob: dict[str, str] = {}
    local: dict[tuple[str, str], dict[str, str]] = {}
    if "usings" not in tables:
        return glob, local
    for file, alias, name, scope, in_function in conn.execute(
            "SELECT u.file, u.alias, u.name, u.scope, EXISTS (SELECT 1 FROM definitions d WHERE d.qualified_name = "
            "u.scope AND d.file = u.file) FROM usings u WHERE u.kind = 'alias' AND u.alias IS NOT NULL ORDER BY u.id"):
        if in_function:
            local.setdefault((file, scope), {})[alias] = name
        else:
            glob.setdefault(alias, name)
    return glob, local


def qualified_aliases(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]) -> dict[str, str]:
    """Type aliases at namespace or class level by qualified name, the scope normalised
    (`at::sparse_csr::SparseCsrTensor` -> `Tensor`): a type written qualified is looked up whole. A name
    aliased twice under one qualified name (under #if branches) to different types is left out."""
    out: dict[str, str | None] = {}
    if "usings" not in tables:
        return {}
    for alias, name, scope in conn.execute(
            "SELECT u.alias, u.name, u.scope FROM usings u WHERE u.kind = 'alias' AND u.alias IS NOT NULL AND "
            "NOT EXISTS (SELECT 1 FROM definitions d WHERE d.qualified_name = u.scope AND d.file = u.file)"):
        where = normalise_scope(split_scope(scope), inline) if scope else ""
        key = f"{where}::{alias}" if where else alias
        out[key] = name if out.get(key, name) == name else None
    return {k: v for k, v in out.items() if v is not None}


def _structured_bases(conn: sqlite3.Connection, bases: dict[str, tuple[str, ...]]) -> None:
    """The classes torchgen generates for structured kernels: the meta struct structured_<op> of each op
    of a structured group derives from the group's structured_inherits (MetaBase by default), and the impl
    struct structured_<kernel> of the group's kernels from the meta struct of the group's functional op."""
    inherits = {name: i or "MetaBase" for name, i in conn.execute(
        "SELECT name, structured_inherits FROM ops WHERE structured = 1")}
    functional: dict[str, str] = {}
    for name, base, overload, delegate, kind in conn.execute(
            "SELECT name, base, overload, structured_delegate, kind FROM ops WHERE structured = 1 OR "
            "structured_delegate IS NOT NULL ORDER BY id"):
        group = name if name in inherits else delegate
        if group in inherits:
            bases.setdefault(naming.meta_struct(base, overload), (inherits[group],))
            if kind == "functional":
                functional.setdefault(group, naming.meta_struct(base, overload))
    for kernel, op in conn.execute("SELECT kernel, op FROM dispatch WHERE structured = 1 AND origin != 'meta'"):
        meta = functional.get(op) or (naming.meta_struct(*naming.split_op(op)) if op in inherits else None)
        if meta is not None:
            bases.setdefault(naming.impl_struct(kernel), (meta,))


def _scope_usings(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]) -> dict[str, frozenset[str]]:
    """Using-directives written at namespace scope in headers: every file that includes the header sees
    the namespace's names there (`namespace at { using namespace c10; }`), so they count for the namespace."""
    out: dict[str, set[str]] = {}
    if "usings" in tables:
        for file, name, scope in conn.execute("SELECT file, name, scope FROM usings WHERE kind = 'directive'"):
            if is_header(file) and scope not in ("",) and "(" not in scope:
                out.setdefault(normalise_scope(scope.split("::"), inline), set()).update(
                    nominated(name, scope, inline))
    return {k: frozenset(v) for k, v in out.items()}


def transitive_usings(usings: dict[str, tuple[str, ...]], scope_usings: dict[str, frozenset[str]]
                      ) -> dict[str, tuple[str, ...]]:
    """Each file's using-directive namespaces, with those the namespaces' own directives bring in, transitively
    ([namespace.udir]: `using namespace at;` also brings c10, which c10/macros/Macros.h's `namespace at { using
    namespace c10; }` makes at's), after the file's own, in a stable order."""
    out = {}
    for file, own in usings.items():
        seen = list(own)
        for used in seen:  # grows as it goes
            seen.extend(n for n in sorted(scope_usings.get(used, ())) if n not in seen)
        out[file] = tuple(seen)
    return out


def nominated(name: str, scope: str | None, inline: frozenset[str]) -> list[str]:
    """The namespaces `using namespace NAME;` written in SCOPE may bring in, innermost first: NAME is looked up
    from SCOPE outward (`using namespace mps;` inside at::native is at::native::mps, or a top-level mps);
    `::NAME` is the top-level one. Names that are no namespace are never a definition's scope, so harmless.
    An unnamed namespace is a scope like any other (`using namespace mps;` in at::native's is at::native::mps
    first): normalise_scope drops it from each candidate."""
    target = name.removeprefix("::").split("::")
    if name.startswith("::") or not scope:
        return [normalise_scope(target, inline)]
    parts = split_scope(scope)
    return list(dict.fromkeys(normalise_scope(parts[:i] + target, inline) for i in range(len(parts), -1, -1)))


def using_declarations(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]
                       ) -> dict[str, dict[tuple[str, str], tuple[str, ...]]]:
    """The using-declarations lookup follows (resolve.Context.declared): under "" those written in headers,
    which every includer of the header sees in their scope, and for each other file that writes some, the
    headers' and its own. Each maps (the scope written in, normalised; the name's last component) to the
    qualified names it may bring in, innermost meaning first (nominated: `using c10::pad;` in at is
    at::c10::pad or c10::pad)."""
    headers: dict[tuple[str, str], list[str]] = {}
    own: dict[str, dict[tuple[str, str], list[str]]] = {}
    if "usings" in tables:
        for file, name, scope in conn.execute(
                "SELECT file, name, scope FROM usings WHERE kind = 'declaration' ORDER BY id"):
            qualifier, _, last = name.removeprefix("typename ").rpartition("::")
            if not qualifier or not last:
                continue
            into = headers if is_header(file) else own.setdefault(file, {})
            where = normalise_scope(split_scope(scope), inline) if scope else ""  # (anonymous) drops out
            into.setdefault((where, last), []).extend(
                f"{q}::{last}" if q else last for q in nominated(qualifier, where, inline))
    shared = {k: tuple(dict.fromkeys(v)) for k, v in headers.items()}
    out: dict[str, dict[tuple[str, str], tuple[str, ...]]] = {"": shared}
    for file, found in own.items():
        merged = dict(shared)
        for k, v in found.items():
            merged[k] = tuple(dict.fromkeys(v + list(shared.get(k, ()))))
        out[file] = merged
    return out


def _usings(conn: sqlite3.Connection, tables: set[str], inline: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """Per file, the namespaces its using-directives bring in (normalised)."""
    out: dict[str, list[str]] = {}
    if "usings" in tables:
        for file, name, scope in conn.execute("SELECT file, name, scope FROM usings WHERE kind = 'directive' ORDER BY id"):
            out.setdefault(file, []).extend(nominated(name, scope, inline))
    return {f: tuple(dict.fromkeys(v)) for f, v in out.items()}
