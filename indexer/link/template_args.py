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

The graph holds one copy of a template, so a parameter gets every argument any call site writes for it,
an edge per call site (kernels-for follows those of the call sites it came through: queries/chain.py).
An argument that is itself a template parameter of its call site's function is followed to what that
function's call sites write, a few levels up.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from .classify import template_args, written_parts
from .kinds import EdgeKind, How
from .resolve import Resolver
from .symbols import Symbol, Symbols, split_top_level

FORWARDED = 3  # levels of templates that pass their own parameter on
_BOUND_AT = "{param} = {arg} at {file}:{line}"


class _Site:
    __slots__ = ("arg", "caller", "file", "line")

    def __init__(self, arg: str, caller: Symbol, file: str, line: int):
        self.arg, self.caller, self.file, self.line = arg, caller, file, line


def split_args(args: str) -> list[str]:
    """Template arguments at the top level: `BernoulliStub, Generator` -> [BernoulliStub, Generator]."""
    return split_top_level(args) if args.strip() else []


def bind(edge_rows: list, symbols: Symbols, resolver: Resolver, contexts: Callable, functors) -> list:
    """edge_rows with every How.TEMPLATE_PARAMETER row replaced by its bound edges (in place of the row,
    so the order stays that of the calls)."""
    if not any(row[5] is How.TEMPLATE_PARAMETER for row in edge_rows):
        return edge_rows
    by_node = {s.node: s for syms in symbols.by_file.values() for s in syms}
    sites = _sites(edge_rows, by_node)
    out: list = []
    for row in edge_rows:
        if row[5] is How.TEMPLATE_PARAMETER:
            out.extend(_bound(row, by_node, sites, resolver, contexts, functors))
        else:
            out.append(row)
    return out


def _sites(edge_rows: list, by_node: dict[int, Symbol]) -> dict[tuple[int, str], list[_Site]]:
    """(template's node, parameter) -> the arguments call sites write for it, in the calls' order."""
    out: dict[tuple[int, str], list[_Site]] = {}
    for kind, src, dst, file, line, _how, target, *_ in edge_rows:
        if kind != EdgeKind.CALLS or dst is None or not target:
            continue
        template = by_node.get(dst)
        if template is None or not template.template_params:
            continue
        args = template_args(written_parts(target)[1])
        caller = by_node.get(src)
        if args is None or caller is None:
            continue
        for param, arg in zip(template.template_params, split_args(args)):
            if arg:
                got = out.setdefault((dst, param), [])
                if not any(s.arg == arg and s.caller is caller for s in got):
                    got.append(_Site(arg, caller, file, line))
    return out


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
                                 outer.line))
        elif not forwarded:
            out.append(site)
    return out


def _bound(row: tuple, by_node: dict[int, Symbol], sites: dict, resolver: Resolver, contexts: Callable,
           functors) -> list[tuple]:
    kind, src, _dst, file, line, _how, callee, param = row[:8]
    caller = by_node[src]
    bound = _arguments(src, param, sites)
    if not bound:
        unbound = How.VIRTUAL if caller.template_params.get(param) == "value" else How.TYPE
        return [(kind, src, None, file, line, unbound, callee,
                 f"template parameter {param}: no call site in the checkout writes its argument")]
    out: list[tuple] = []
    for site in bound:
        arg = site.arg.lstrip("&").strip()
        written = arg + callee[len(param):]
        detail = _BOUND_AT.format(param=param, arg=arg, file=site.file, line=site.line)
        ctx = contexts(site.caller.file, site.caller)
        out.extend(_rewritten(kind, src, file, line, written, callee, detail, ctx, resolver, functors))
    return list(dict.fromkeys(out))


def _rewritten(kind: str, src: int, file: str, line: int, written: str, callee: str, detail: str, ctx,
               resolver: Resolver, functors) -> list[tuple]:
    """The edges of the call with the argument written in. A functor class made (`Stub<RNG>`) runs its
    operator(), and the call of the object made (`Stub<RNG>()(...)`, written `Stub<RNG>()`) calls it;
    anything else is looked up as written. The edges keep the callee as the caller writes it (`target`)."""
    head = written.split("(", 1)[0]
    name = written_parts(head)[1].split("<", 1)[0]
    operators = functors(ctx, head, name) if functors is not None else []
    if operators:
        edge = EdgeKind.RUNS_FUNCTOR if written == head else EdgeKind.CALLS
        return [(edge, src, op, file, line, How.TEMPLATE_ARGUMENT, callee, detail) for op in operators]
    return [(kind, src, t.node, file, line, How.TEMPLATE_ARGUMENT if t.node is not None else t.how, callee, detail)
            for t in resolver.resolve(ctx, written, name, -1, None)]


def rebinding_needed(conn: sqlite3.Connection, new_rows: list, files_table: str, symbols: Symbols) -> bool:
    """For an incremental link (incremental.py), whose kept edges are bound already: whether resolving the
    files in files_table again may change a binding, so that the graph must be linked whole. That is when
    one of their calls goes through a template parameter, or when their calls that write the arguments of
    a template that uses them (has calls through its parameters, or writes template arguments itself and
    may hand them on) are not the same as before, at the same lines: a binding's detail names its call
    site. symbols: the definitions the files' calls look up."""
    if any(row[5] is How.TEMPLATE_PARAMETER for row in new_rows):
        return True
    templates = {s.node for syms in symbols.by_file.values() for s in syms if s.template_params}
    uses = {r[0] for r in conn.execute(  # the templates whose edges a binding makes, and those that may hand one on
        "SELECT DISTINCT src FROM edges WHERE how = ? OR detail LIKE 'template parameter %' OR detail GLOB ? "
        "OR (kind = ? AND instr(target, '<') > 0)",
        (How.TEMPLATE_ARGUMENT, _BOUND_AT.format(param="*", arg="*", file="*", line="[0-9]*"), EdgeKind.CALLS))}
    uses |= {row[1] for row in new_rows if row[0] == EdgeKind.CALLS and row[6] and "<" in row[6]}
    after = {(row[3], row[4], row[2], row[6]) for row in new_rows if row[0] == EdgeKind.CALLS and row[2] in uses
             and (row[2] in templates) and row[6] and "<" in row[6]}
    before = {tuple(site) for site in conn.execute(
        "SELECT file, line, dst, target FROM edges WHERE kind = ? AND dst IS NOT NULL AND instr(target, '<') > 0 "
        f"AND file IN (SELECT path FROM {files_table})", (EdgeKind.CALLS,)) if site[2] in uses}
    before = {site for site in before if site[2] in templates or not _is_plain_function(conn, site[2])}
    return after != before


def _is_plain_function(conn: sqlite3.Connection, node: int) -> bool:
    """Whether a node stands for a definition that is no template with parameters (a node whose definition
    is gone is not known to be one)."""
    row = conn.execute("SELECT d.template_params FROM nodes n JOIN definitions d ON d.id = n.ref WHERE n.id = ?",
                       (node,)).fetchone()
    return row is not None and row[0] in (None, "[]")
