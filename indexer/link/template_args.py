"""Calls through a template parameter, bound to the arguments the call sites write.

    template <template <typename> class bernoulli_kernel, typename RNG>
    Tensor& bernoulli_impl_(Tensor& self, double p, ...) { bernoulli_kernel<RNG>()(self, p, gen); }
    ... bernoulli_impl_<BernoulliStub, Generator>(self, p, gen);        // Distributions.cpp

Inside bernoulli_impl_, `bernoulli_kernel` is whatever its caller passes: BernoulliStub, whose
operator() calls the stub. C++ lookup never finds a definition that merely has the parameter's name
(resolve.py answers How.TEMPLATE_PARAMETER for such a call); this pass, run once all calls are
resolved, replaces each of those answers:

- by the edges of the rewritten call, the parameter replaced by each argument written for it at a call
  site of the template (`BernoulliStub<RNG>()(...)` -> BernoulliStub::operator(); `Op::apply(x)` with
  Op = AddOp -> AddOp::apply; `f(x)` with a function as the value argument -> that function), looked up
  from the call site that writes the argument; an edge that reaches a definition is How.TEMPLATE_ARGUMENT
  and its detail says what was bound where;
- where no call site in the checkout writes the argument (it is deduced, or the template is called
  from outside): a type parameter constructs or converts (How.TYPE), a value parameter is called
  through (How.VIRTUAL).

A type parameter that a call site does not write is deduced from the argument the site passes for a function
parameter declared with it ([temp.deduct.call]: `Launcher l`, `const ops_t& ops`), where the argument's type is
written in the call (calls.arg_types: a typed variable, `KthValueLauncher(k)`, `ArgMaxOps<scalar_t>{}`); the
binding's detail says `deduced`. A member call on a variable of a type parameter (`l.template launch<...>(...)`,
`ops.reduce(acc, x)`; Resolver.through_parameter) is bound the same way, to that member of each argument's
class; where no call site binds the parameter to a class of the checkout, the call keeps the edges lookup
by name gave it (the rows after its How.TEMPLATE_PARAMETER row).

The graph holds one copy of a template, so a parameter gets every argument any call site writes for it,
an edge per call site (kernels-for follows those of the call sites it came through: queries/chain.py).
An argument that is itself a template parameter of its call site's function is followed to what that
function's call sites write, a few levels up.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable

from . import overloads
from .classify import template_args, written_parts
from .kinds import EdgeKind, How
from .nodes import temp_nodes
from .resolve import Resolver
from .symbols import Symbol, Symbols, split_top_level
from ..cxx.scopes import split_scope

FORWARDED = 3  # levels of templates that pass their own parameter on
_BOUND_AT = "{param} = {arg} at {file}:{line}"
DEDUCED = " (deduced)"  # after the argument, in a binding's detail, when the call site does not write it
_MADE = re.compile(r"((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:<.*>)?)(?:\(.*\)|\{.*\})")  # `T(...)`, `T<A>{...}`


def made_class(written: str) -> str | None:
    """The class of the object an argument makes, as calls.arg_types writes it (`decltype(ArgMaxOps<scalar_t>{})`,
    `decltype(KthValueLauncher(k))&`): `ArgMaxOps<scalar_t>`; None for any other argument."""
    t = written.rstrip("&")
    made = _MADE.fullmatch(t[9:-1]) if t.startswith("decltype(") and t.endswith(")") else None
    return made.group(1) if made is not None else None


class _Site:
    __slots__ = ("arg", "caller", "file", "line", "deduced")

    def __init__(self, arg: str, caller: Symbol, file: str, line: int, deduced: bool = False):
        self.arg, self.caller, self.file, self.line, self.deduced = arg, caller, file, line, deduced


def split_args(args: str) -> list[str]:
    """Template arguments at the top level: `BernoulliStub, Generator` -> [BernoulliStub, Generator]."""
    return split_top_level(args) if args.strip() else []


def bind(edge_rows: list, symbols: Symbols, resolver: Resolver, contexts: Callable, functors,
         conn: sqlite3.Connection | None = None) -> list:
    """edge_rows with every How.TEMPLATE_PARAMETER row replaced by its bound edges (in place of the row,
    so the order stays that of the calls); conn: the facts, for the argument types of the call sites that
    deduce a parameter (none is deduced without it)."""
    if not any(row[5] is How.TEMPLATE_PARAMETER for row in edge_rows):
        return edge_rows
    by_node = {s.node: s for syms in symbols.by_file.values() for s in syms}
    arg_types = _site_argument_types(conn, edge_rows, by_node) if conn is not None else {}
    sites = _sites(edge_rows, by_node, arg_types, resolver.types)
    typed = _object_calls(conn, edge_rows, by_node) if conn is not None else {}
    out: list = []
    by_name = None  # (src, file, line, callee) of a member call bound: its rows by name that follow are dropped
    for row in edge_rows:
        if by_name is not None:
            if row[5] is not How.TEMPLATE_PARAMETER and (row[1], row[3], row[4], row[6]) == by_name:
                continue
            by_name = None
        if row[5] is not How.TEMPLATE_PARAMETER:
            out.append(row)
        elif _member(row[6], row[7]):
            bound = [e for e in _bound(row, by_node, sites, resolver, contexts, functors, typed) if e[2] is not None]
            if bound:
                out.extend(bound)
                by_name = (row[1], row[3], row[4], row[6])
        else:
            out.extend(_bound(row, by_node, sites, resolver, contexts, functors, typed))
    return _made_and_called(out, typed)


def _object_calls(conn: sqlite3.Connection, edge_rows: list, by_node: dict[int, Symbol]
                  ) -> dict[tuple[str, int, str], str]:
    """(file, line, callee) -> the argument types (calls.arg_types) of the calls through a template parameter that
    call the object they make (`bernoulli_kernel<RNG>()(self, p, gen)`, written `bernoulli_kernel<RNG>()`); read
    by their callers' names (ix_calls_caller)."""
    rows = [row for row in edge_rows if row[5] is How.TEMPLATE_PARAMETER and row[6].endswith(")")
            and not _member(row[6], row[7]) and row[1] in by_node]
    if not rows:
        return {}
    wanted = {(row[3], row[4], row[6]) for row in rows}
    callers = sorted({by_node[row[1]].qualified_name for row in rows})
    out: dict[tuple[str, int, str], str] = {}
    for file, line, callee, types in conn.execute(
            "SELECT file, line, callee, arg_types FROM calls WHERE caller IN (SELECT value FROM json_each(?)) "
            "AND arg_types IS NOT NULL", (json.dumps(callers),)):
        if (file, line, callee) in wanted:
            out[(file, line, callee)] = types
    return out


def _made_and_called(out: list, typed: dict) -> list:
    """A functor made and called on the same line (`Stub<RNG>()(self, p, gen)`: the row of the object made,
    `Stub<RNG>`, and the row of its call, `Stub<RNG>()`) runs the operator() its call chose by the argument
    types, not each overload: the runs-functor edges of the object made keep the call's operators."""
    if not typed:
        return out
    called: dict[tuple, set[int]] = {}
    for e in out:
        if e[0] == EdgeKind.CALLS and e[5] is How.TEMPLATE_ARGUMENT and (e[3], e[4], e[6]) in typed:
            called.setdefault((e[1], e[3], e[4], e[6], e[7]), set()).add(e[2])
    if not called:
        return out
    return [e for e in out if not (e[0] == EdgeKind.RUNS_FUNCTOR and e[5] is How.TEMPLATE_ARGUMENT and
                                   e[2] not in called.get((e[1], e[3], e[4], e[6] + "()", e[7]), (e[2],)))]


def _member(callee: str, param: str) -> bool:
    """Whether a How.TEMPLATE_PARAMETER row is a member call on a variable of the parameter's type (`l.launch`),
    not a call naming the parameter itself (`Op::apply`, `K<RNG>()`)."""
    return not (callee.startswith(param) and callee[len(param):len(param) + 1] in ("", "<", "(", ":"))


def _site_argument_types(conn: sqlite3.Connection, edge_rows: list, by_node: dict[int, Symbol]
                         ) -> dict[tuple[str, int, str], list[list]]:
    """(file, line, callee) -> the argument types (calls.arg_types) of the calls written there, for the calls
    of the templates that call through a parameter and of those that may hand a parameter on to them
    (FORWARDED levels of callers that are templates too)."""
    callers: dict[int, set[int]] = {}
    for kind, src, dst, *_ in edge_rows:
        if kind == EdgeKind.CALLS and dst is not None:
            callers.setdefault(dst, set()).add(src)
    wanted = {row[1] for row in edge_rows if row[5] is How.TEMPLATE_PARAMETER}
    level = wanted
    for _ in range(FORWARDED):
        level = {c for n in level for c in callers.get(n, ()) if c not in wanted and
                 (s := by_node.get(c)) is not None and s.template_params}
        wanted |= level
    names = sorted({by_node[n].name for n in wanted if n in by_node and by_node[n].template_params})
    out: dict[tuple[str, int, str], list[list]] = {}
    for file, line, callee, types in conn.execute(
            "SELECT file, line, callee, arg_types FROM calls WHERE callee_name IN (SELECT value FROM json_each(?)) "
            "AND arg_types IS NOT NULL", (json.dumps(names),)):
        out.setdefault((file, line, callee), []).append(json.loads(types))
    return out


def _deduced(written: str | None, caller: Symbol, types: set[str]) -> str | None:
    """The type a template parameter declared as a function parameter's type gets from the argument's type as
    calls.arg_types writes it: a class of the checkout, by a variable's declared type or by the object made
    (`decltype(KthValueLauncher(k))`, `ArgMaxOps<scalar_t>`), or the caller's own type parameter (handed on:
    _arguments follows it); None for anything else (a number, a pointer, a call's result, a lambda)."""
    if written is None:
        return None
    t = written.rstrip("&")
    if t.startswith("decltype(") and t.endswith(")"):
        t = made_class(t)
        if t is None:
            return None
    else:
        t = overloads.plain_type(t)
    if not t or "*" in t or "(" in t or " " in t:
        return None
    if caller.template_params and caller.template_params.get(t) == "type":
        return t
    return t if t.split("<", 1)[0].rsplit("::", 1)[-1] in types else None


def _sites(edge_rows: list, by_node: dict[int, Symbol], arg_types: dict[tuple[str, int, str], list[list]],
           types: set[str]) -> dict[tuple[int, str], list[_Site]]:
    """(template's node, parameter) -> the arguments call sites write or deduce for it, in the calls' order."""
    out: dict[tuple[int, str], list[_Site]] = {}
    declared: dict[int, list[tuple[int, str]]] = {}  # a template's (position, type parameter) pairs
    for kind, src, dst, file, line, _how, target, *_ in edge_rows:
        if kind != EdgeKind.CALLS or dst is None or not target:
            continue
        template = by_node.get(dst)
        if template is None or not template.template_params:
            continue
        args = template_args(written_parts(target)[1])
        caller = by_node.get(src)
        if caller is None:
            continue
        written = split_args(args) if args is not None else []
        for param, arg in zip(template.template_params, written):
            if arg:
                _add(out, (dst, param), _Site(arg, caller, file, line))
        calls = arg_types.get((file, line, target)) if len(written) < len(template.template_params) else None
        if not calls:
            continue
        if dst not in declared:
            declared[dst] = _declared_with(template)
        left = list(template.template_params)[len(written):]
        for position, param in declared[dst]:
            if param in left:
                for types_written in calls:
                    arg = _deduced(types_written[position], caller, types) if position < len(types_written) else None
                    if arg is not None:
                        _add(out, (dst, param), _Site(arg, caller, file, line, True))
    return out


def _add(out: dict[tuple[int, str], list[_Site]], key: tuple[int, str], site: _Site) -> None:
    got = out.setdefault(key, [])
    if not any(s.arg == site.arg and s.caller is site.caller for s in got):
        got.append(site)


def _declared_with(template: Symbol) -> list[tuple[int, str]]:
    """(position, parameter) for each function parameter declared with one of the template's type parameters
    alone (`Launcher l`, `const ops_t& ops`, `F&& f`): what a call's argument there deduces."""
    written = overloads.parameter_types(template.signature) or []
    params = template.template_params or {}
    return [(i, plain) for i, t in enumerate(written) if params.get(plain := overloads.plain_type(t)) == "type"]


def _arguments(node: int, param: str, sites: dict, depth: int = 0) -> list[_Site]:
    """The arguments bound to a template's parameter; one that is its own caller's template parameter
    is followed to that caller's call sites."""
    out: list[_Site] = []
    for site in sites.get((node, param), ()):
        head = site.arg.split("<", 1)[0].split("::", 1)[0].lstrip("&").strip()
        forwarded = site.caller.template_params and head in site.caller.template_params
        if forwarded and depth < FORWARDED:
            for outer in _arguments(site.caller.node, head, sites, depth + 1):
                out.append(_Site(outer.arg + site.arg.lstrip("&").strip()[len(head):], outer.caller, outer.file,
                                 outer.line, outer.deduced or site.deduced))
        elif not forwarded:
            out.append(site)
    return out


def _bound(row: tuple, by_node: dict[int, Symbol], sites: dict, resolver: Resolver, contexts: Callable,
           functors, typed: dict | None = None) -> list[tuple]:
    kind, src, _dst, file, line, _how, callee, param = row[:8]
    caller = by_node[src]
    bound = _arguments(src, param, sites)
    if not bound:
        return _unbound(row, caller)
    member = written_parts(callee)[1].split("<", 1)[0] if _member(callee, param) else None  # `l.launch<T>`
    out: list[tuple] = []
    for site in bound:
        arg = site.arg.lstrip("&").strip()
        detail = _BOUND_AT.format(param=param, arg=arg + (DEDUCED if site.deduced else ""), file=site.file,
                                  line=site.line)
        ctx = contexts(site.caller.file, site.caller)
        if member is not None:  # looked up as a call on an object of the class bound (its bases' members too)
            if arg.split("<", 1)[0].rsplit("::", 1)[-1] not in resolver.classes:
                continue  # `T = scalar_t`, no class of the checkout: the call keeps what lookup by name found
            out.extend((kind, src, t.node, file, line, How.TEMPLATE_ARGUMENT if t.node is not None else t.how,
                        callee, detail) for t in resolver.resolve(ctx, callee, member, -1, arg))
        else:
            edges = _rewritten(kind, src, file, line, arg + callee[len(param):], callee, detail, ctx, resolver,
                               functors, (typed or {}).get((file, line, callee)), by_node)
            if site.deduced:  # a type: what constructs or runs it, or is its member, never a function of its name
                edges = [e for e in edges if e[2] is None or _of_class(by_node.get(e[2]), arg)]
            if not site.deduced or any(e[2] is not None for e in edges):  # a deduced `T(0)` says nothing more
                out.extend(edges)
    if not out:
        return _unbound(row, caller)
    return list(dict.fromkeys(out))


def _of_class(sym: Symbol | None, arg: str) -> bool:
    """Whether a definition is a member of the class a type argument names (`c10::complex<float>` ->
    c10::complex::complex, its constructor), by the last component of its scope."""
    if sym is None:
        return False
    name = split_scope(arg.split("<", 1)[0])[-1]
    return bool(sym.scope) and split_scope(sym.scope)[-1].split("<", 1)[0] == name


def _unbound(row: tuple, caller: Symbol) -> list[tuple]:
    kind, src, _dst, file, line, _how, callee, param = row[:8]
    unbound = How.VIRTUAL if caller.template_params.get(param) == "value" else How.TYPE
    return [(kind, src, None, file, line, unbound, callee,
             f"template parameter {param}: no call site in the checkout writes its argument")]


def _rewritten(kind: str, src: int, file: str, line: int, written: str, callee: str, detail: str, ctx,
               resolver: Resolver, functors, arg_types: str | None = None,
               by_node: dict[int, Symbol] | None = None) -> list[tuple]:
    """The edges of the call with the argument written in. A functor class made (`Stub<RNG>`) runs its
    operator(), and the call of the object made (`Stub<RNG>()(...)`, written `Stub<RNG>()`) calls it: the
    overload the call's argument types choose (arg_types, calls.arg_types), where they choose one, else each;
    anything else is looked up as written. The edges keep the callee as the caller writes it (`target`)."""
    head = written.split("(", 1)[0]
    name = written_parts(head)[1].split("<", 1)[0]
    operators = functors(ctx, head, name) if functors is not None else []
    if operators:
        edge = EdgeKind.RUNS_FUNCTOR if written == head else EdgeKind.CALLS
        if edge == EdgeKind.CALLS and arg_types is not None and len(operators) > 1 and by_node is not None and \
                all(o in by_node for o in operators):
            chosen = overloads.pick([by_node[o] for o in operators], arg_types, resolver.class_types)
            if chosen is not None:
                operators = [chosen.node]
        return [(edge, src, op, file, line, How.TEMPLATE_ARGUMENT, callee, detail) for op in operators]
    return [(kind, src, t.node, file, line, How.TEMPLATE_ARGUMENT if t.node is not None else t.how, callee, detail)
            for t in resolver.resolve(ctx, written, name, -1, None)]


def rebinding_needed(conn: sqlite3.Connection, new_rows: list, files_table: str, symbols: Symbols,
                     types: set[str] = frozenset()) -> bool:
    """For an incremental link (incremental.py), whose kept edges are bound already: whether resolving the
    files in files_table again may change a binding, so that the graph must be linked whole. That is when
    one of their calls goes through a template parameter, or when their calls that write the arguments of
    a template that uses them (has calls through its parameters, or writes template arguments itself and
    may hand them on) are not the same as before, at the same lines: a binding's detail names its call
    site, or when they deduce a parameter (_deductions_changed). symbols: the definitions the files' calls
    look up; types: the class names of the checkout (Resolver.types)."""
    if any(row[5] is How.TEMPLATE_PARAMETER for row in new_rows):
        return True
    templates = {s.node for syms in symbols.by_file.values() for s in syms if s.template_params}
    if _deductions_changed(conn, new_rows, files_table, symbols, templates, types):
        return True
    written = [(row[3], row[4], row[2], row[6]) for row in new_rows  # the files' calls that write template arguments
               if row[0] == EdgeKind.CALLS and row[2] in templates and row[6] and "<" in row[6]]
    before = {tuple(site) for site in conn.execute(  # (a call's edge starts at the definition around it: looked up by src)
        f"SELECT file, line, dst, target FROM edges WHERE src IN (SELECT id FROM nodes WHERE file IN (SELECT path FROM "
        f"{files_table})) AND file IN (SELECT path FROM {files_table}) AND kind = ? AND dst IS NOT NULL AND "
        "instr(target, '<') > 0", (EdgeKind.CALLS,))}
    uses = _using({site[2] for site in written} | {site[2] for site in before}, conn)
    uses |= {row[1] for row in new_rows if row[0] == EdgeKind.CALLS and row[6] and "<" in row[6]}
    after = {site for site in written if site[2] in uses}
    before = {site for site in before if site[2] in uses and (site[2] in templates or not _is_plain_function(conn, site[2]))}
    return after != before


def _using(nodes: set[int], conn: sqlite3.Connection) -> set[int]:
    """Of these nodes, the templates whose edges a binding makes, and those that may hand one on (they call
    with template arguments written)."""
    temp_nodes(conn, "_template_callees", nodes)
    return {r[0] for r in conn.execute(
        "SELECT DISTINCT src FROM edges WHERE src IN (SELECT id FROM temp._template_callees) AND (how = ? OR detail "
        "LIKE 'template parameter %' OR detail GLOB ? OR (kind = ? AND instr(target, '<') > 0))",
        (How.TEMPLATE_ARGUMENT, _BOUND_AT.format(param="*", arg="*", file="*", line="[0-9]*"), EdgeKind.CALLS))}


def _deductions_changed(conn: sqlite3.Connection, new_rows: list, files_table: str, symbols: Symbols,
                        templates: set[int], types: set[str]) -> bool:
    """Whether the files' calls may deduce a template parameter otherwise than before: a binding the graph holds
    was deduced at one of their call sites, or one of their calls deduces one (_deduced: a class, or its
    caller's own parameter) that the template uses (calls through it, or hands it on)."""
    changed = {path for (path,) in conn.execute(f"SELECT path FROM {files_table}")}
    # (the value written out, so that SQLite reads ix_edges_bindings, an index of those edges alone)
    for (detail,) in conn.execute(f"SELECT detail FROM edges WHERE how = '{How.TEMPLATE_ARGUMENT.value}' AND "
                                  "instr(detail, ?) > 0", (DEDUCED + " at ",)):
        if detail.rpartition(" at ")[2].rpartition(":")[0] in changed:
            return True
    by_node = {s.node: s for syms in symbols.by_file.values() for s in syms}
    called = {(row[3], row[4], row[6]): (by_node[row[2]], by_node[row[1]]) for row in new_rows
              if row[0] == EdgeKind.CALLS and row[2] in templates and row[6] and row[2] in by_node and row[1] in by_node}
    deducing = {key: (t, caller) for key, (t, caller) in called.items()
                if len(split_args(template_args(written_parts(key[2])[1]) or "")) < len(t.template_params or ())}
    if not deducing:
        return False
    names = sorted({t.name for t, _caller in deducing.values()})
    for file, line, callee, arg_types in conn.execute(
            "SELECT file, line, callee, arg_types FROM calls WHERE callee_name IN (SELECT value FROM json_each(?)) "
            "AND arg_types IS NOT NULL", (json.dumps(names),)):
        template, caller = deducing.get((file, line, callee), (None, None))
        if template is None:
            continue
        written = json.loads(arg_types)
        for position, param in _declared_with(template):
            if position < len(written) and _deduced(written[position], caller, types) is not None and \
                    _uses(conn, template, param):
                return True
    return False


def _uses(conn: sqlite3.Connection, template: Symbol, param: str, depth: int = 0) -> bool:
    """Whether a template's calls go through its type parameter: a binding of it made already (its edges' details),
    a member call on a variable of the type, or, FORWARDED levels down, an argument of that type handed to a
    template that deduces its own parameter from it and uses that."""
    for (detail,) in conn.execute("SELECT detail FROM edges WHERE src = ? AND detail IS NOT NULL", (template.node,)):
        if detail.startswith((f"{param} = ", f"template parameter {param}:")):
            return True
    handed: list[tuple[int, int]] = []  # (line, argument position) of the calls passing a value of the type
    for line, callee, name, receiver_type, arg_types in conn.execute(
            "SELECT line, callee, callee_name, receiver_type, arg_types FROM calls WHERE caller = ? AND file = ? AND "
            "line BETWEEN ? AND ?", (template.qualified_name, template.file, template.line, template.end_line)):
        if receiver_type and callee != name and overloads.plain_type(receiver_type) == param:
            return True  # a member call (`l.launch()`; a variable called, `f(x)`, is a call through a parameter)
        for position, t in enumerate(json.loads(arg_types) if arg_types else ()):
            if t is not None and overloads.plain_type(t) == param:
                handed.append((line, position))
    if not handed or depth >= FORWARDED:
        return False
    for line, position in handed:
        for row in conn.execute(
                "SELECT n.id, d.name, d.qualified_name, d.file, d.line, d.end_line, d.signature, d.template_params "
                "FROM edges e JOIN nodes n ON n.id = e.dst JOIN definitions d ON d.id = n.ref "
                "WHERE e.src = ? AND e.kind = ? AND e.line = ?", (template.node, EdgeKind.CALLS, line)):
            called = _template_at(row)
            for at, own in _declared_with(called) if called.template_params else ():
                if at == position and _uses(conn, called, own, depth + 1):
                    return True
    return False


def _template_at(row: tuple) -> Symbol:
    """The Symbol _uses and _declared_with read, of a definitions row joined to its node."""
    node, name, qualified, file, line, end, signature, params = row
    kinds = dict(p.rsplit(":", 1) for p in json.loads(params)) if params else None
    return Symbol(0, node, name, qualified, "", file, line, end, "", False, None, -1, -1, signature, kinds)


def _is_plain_function(conn: sqlite3.Connection, node: int) -> bool:
    """Whether a node stands for a definition that is no template with parameters (a node whose definition
    is gone is not known to be one)."""
    row = conn.execute("SELECT d.template_params FROM nodes n JOIN definitions d ON d.id = n.ref WHERE n.id = ?",
                       (node,)).fetchone()
    return row is not None and row[0] in (None, "[]")
