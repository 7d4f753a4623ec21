"""The graph's edges, kind by kind, from the facts of every file at once."""

from __future__ import annotations

import bisect
import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

from .. import index_file
from ..vocab import Origin, StubKind
from .kernels import CLONE, autogen_detail, autogen_target, implementation, view_copy_detail, view_copy_target
from .classify import compute_family, is_service_call, runs_what_was_built
from .dtype_macros import DtypeMacros
from .kinds import VIEW_COPY, EdgeKind, How, NodeKind
from .nodes import Nodes
from .parallel import map_parts
from ..cxx.scopes import split_scope
from . import overloads
from .resolve import Resolver, Target
from .stubs import hiding_functions
from .symbols import Symbol, Symbols, ordered_parameter_names
from .template_args import made_class

Edge = tuple  # (kind, src, dst, file, line, how, target, detail)


def _in(files: str | None, where: bool = False) -> str:
    """The SQL condition that keeps the rows of the files in the temporary table `files` (all when None)."""
    if files is None:
        return ""
    return f"{'WHERE' if where else 'AND'} file IN (SELECT path FROM {files}) "


class Callers:
    """The definition a fact inside a function body belongs to: by file, qualified name and line."""

    def __init__(self, symbols: Symbols):
        self._by: dict[tuple[str, str], list[Symbol]] = {}
        for file, syms in symbols.by_file.items():
            for s in syms:
                self._by.setdefault((file, s.qualified_name), []).append(s)
        self._starts = {k: [s.line for s in v] for k, v in self._by.items()}
        self._siblings: dict[int, tuple[int, ...]] = {}

    def at(self, file: str, caller: str | None, line: int) -> Symbol | None:
        if caller is None:
            return None
        syms = self._by.get((file, caller))
        if not syms:
            return None
        i = bisect.bisect_right(self._starts[(file, caller)], line) - 1
        while i >= 0:
            if syms[i].end_line >= line:
                return syms[i]
            i -= 1
        return None

    def named(self, file: str, caller: str | None) -> list[Symbol]:
        """Every definition of that qualified name in the file."""
        return self._by.get((file, caller), []) if caller is not None else []

    def siblings(self, s: Symbol) -> tuple[int, ...]:
        """The nodes of the definitions of s's qualified name that start on s's line of its file, when there are
        several (a macro use that defines overloads: `DEFINE_OPERATOR(!=, ...)` writes three at::operator!= on one
        line): facts can tell their bodies apart by line only, so each holds what that line writes. Else ()."""
        got = self._siblings.get(s.node)
        if got is None:
            same = [t.node for t in self._by.get((s.file, s.qualified_name), ()) if t.line == s.line]
            got = self._siblings[s.node] = tuple(same) if len(same) > 1 else ()
        return got


# An argument that names a function, as calls.arg_types writes it: `decltype(at::abs_out)`, `decltype(&f)`,
# `decltype(helper<scalar_t,Op>)` (a function template's specialisation).
FUNCTION_ARGUMENT = re.compile(r"decltype\(&?((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:<.*>)?)\)&?")


def function_name(written: str) -> str:
    """The last component of a function named with its qualifier and template arguments, without them:
    `at::native::helper<scalar_t,std::less<scalar_t>>` -> helper (how calls.callee_name writes a callee)."""
    return split_scope(written.split("<", 1)[0])[-1]


_CLASS = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*(?:<.*>)?")  # a class named (template arguments and all)
# How a function handed on by name is found for it to count: by C++ lookup from the caller, or an op.
_HANDED_HOW = frozenset((How.EXACT, How.SAME_FILE, How.INCLUDE, How.SAME_NAMESPACE, How.USING, How.OP))


def called_parameters(conn: sqlite3.Connection, nodes: Nodes) -> dict[int, tuple[tuple[int, str], ...]]:
    """(position, name) of the parameters a function's own body calls (`out_impl(result, self)` in UnaryOps.cpp's
    unary_op_impl: definitions.called_params), by its node; none in an index without the column."""
    if "called_params" not in {r[1] for r in conn.execute("PRAGMA table_info(definitions)")}:
        return {}
    out: dict[int, tuple[tuple[int, str], ...]] = {}
    for ref, called in conn.execute("SELECT id, called_params FROM definitions WHERE called_params IS NOT NULL"):
        node = nodes.definition.get(ref)
        if node is not None:
            out[node] = tuple((int(position), name) for name, position in
                              (p.rsplit(":", 1) for p in json.loads(called)))
    return out


def call_edges(conn: sqlite3.Connection, nodes: Nodes, resolver: Resolver, callers: Callers,
               contexts, columns: str, functors=None, tables: set[str] = frozenset(), jobs: int = 1,
               files: str | None = None, rows: list[tuple] | None = None) -> Iterator[Edge]:
    """One edge per call written in a function (several for a template call that reaches every
    specialisation): calls to a definition, redispatches to an op, or no target and why. The calls are
    resolved in `jobs` processes (parallel.py), a contiguous part each; the edges keep the calls' order.
    files: only the calls written in the files of that temporary table; rows: their call_rows, when read."""
    library = {(f, ln, c): fam for f, ln, c, fam in conn.execute(
        f"SELECT file, line, callee, family FROM library_calls {_in(files, True)}")}
    calls = _Calls(nodes, resolver, callers, contexts, functors, library, _kernel_aliases(conn, tables),
                   called_parameters(conn, nodes) if "arg_types" in columns else {})
    path = _database_file(conn) if rows is None and files is None and jobs > 1 and sys.platform == "linux" else None
    if path is not None:  # each process reads its own part: the rows are not all in memory before the fork
        ids = [r[0] for r in conn.execute("SELECT id FROM calls WHERE caller IS NOT NULL ORDER BY id")]
        parts = map_parts(lambda part: calls.edges(_read_part(path, columns, part[0], part[-1])) if part else (),
                          ids, jobs)  # a part is empty when the checkout writes no call at all
    else:
        parts = map_parts(calls.edges, rows if rows is not None else call_rows(conn, files, columns), jobs)
    for part in parts:
        for edge in part:
            if type(edge[2]) is tuple:  # a vendor entry point first met here: its node, numbered in the calls' order
                family, callee = edge[2]
                if (family, callee) not in nodes.library:
                    nodes.library[(family, callee)] = nodes.add(NodeKind.LIBRARY, callee, None, None, None, None,
                                                                family)
                edge = (edge[0], edge[1], nodes.library[(family, callee)], *edge[3:])
            yield edge


def optional_call_columns(have: set[str]) -> str:
    """The optional columns of calls an index with these columns has, in call_rows's order (`, argc, ...`): each
    group only with the ones before it (an older schema's index lacks the later ones)."""
    columns = ", argc, receiver_type" if {"argc", "receiver_type"} <= have else ""
    columns += ", arg_types" if columns and "arg_types" in have else ""
    columns += ", receiver_const, lambda_line" if "arg_types" in columns and "lambda_line" in have else ""
    return columns


def call_rows(conn: sqlite3.Connection, files: str | None = None, columns: str | None = None) -> list[tuple]:
    """(file, caller, callee, callee_name, line[, argc, receiver_type[, arg_types[, receiver_const, lambda_line]]])
    of the calls written in a function, in id order: all, or those of the files in the temporary table `files`;
    columns: the optional ones this index has (None: found out)."""
    if columns is None:
        columns = optional_call_columns({r[1] for r in conn.execute("PRAGMA table_info(calls)")})
    # A call's caller is the qualified name of a definition of its file (cxx/definitions.py makes the ranges
    # caller_at reads of the definitions): the files' calls are looked up by caller, through ix_calls_caller.
    callers = "" if files is None else \
        f"AND caller IN (SELECT qualified_name FROM definitions {_in(files, where=True)}) "
    return conn.execute(f"SELECT file, caller, callee, callee_name, line{columns} FROM calls "
                        f"WHERE caller IS NOT NULL {callers}{_in(files)}ORDER BY id").fetchall()


def _database_file(conn: sqlite3.Connection) -> str | None:
    """The file of conn's main database (None in memory)."""
    found = [r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"]
    return found[0] if found and found[0] else None


def _read_part(path: str, columns: str, first: int, last: int) -> list[tuple]:
    """call_rows with ids first..last, read through a connection of this process; the file and caller
    of consecutive rows are one string each (most rows repeat those of the row before)."""
    out: list[tuple] = []
    file = caller = None
    with sqlite3.connect(index_file.read_only_uri(Path(path)), uri=True) as conn:
        for row in conn.execute(f"SELECT file, caller, callee, callee_name, line{columns} FROM calls "
                                "WHERE caller IS NOT NULL AND id BETWEEN ? AND ? ORDER BY id", (first, last)):
            file = file if row[0] == file else row[0]
            caller = caller if row[1] == caller else row[1]
            out.append((file, caller, *row[2:]))
    return out


class _Calls:
    """What resolving calls needs, made before the fork; edges() runs in any of the processes."""

    def __init__(self, nodes: Nodes, resolver: Resolver, callers: Callers, contexts, functors,
                 library: dict[tuple[str, int, str], str], aliases: dict[tuple[str, str | None, str], list[str]],
                 called: dict[int, tuple[tuple[int, str], ...]] | None = None):
        self.nodes, self.resolver, self.callers, self.contexts = nodes, resolver, callers, contexts
        self.functors, self.library, self.aliases = functors, library, aliases
        self.called = called or {}  # called_parameters

    def edges(self, rows: list[tuple]) -> Iterator[Edge]:
        """The edges of these calls. A vendor entry point that has no node yet gets (family, callee) for
        its dst: call_edges numbers it, in order, since nodes made in a worker would not reach the build."""
        callers, contexts = self.callers, self.contexts
        last_src = ctx = None
        for row in rows:
            file, caller, line = row[0], row[1], row[4]
            src = last_src if last_src is not None and last_src.qualified_name == caller and last_src.file == file \
                and last_src.line <= line <= last_src.end_line else callers.at(file, caller, line)
            if src is None:
                continue
            if src is not last_src:
                last_src, ctx = src, contexts(file, src)
            siblings = callers.siblings(src)
            if siblings:  # a macro use defining several overloads on one line: each holds the line's calls
                for edge in self._row(row, src, ctx):
                    for node in siblings:
                        yield (edge[0], node, *edge[2:])
            else:
                yield from self._row(row, src, ctx)

    def _row(self, row: tuple, src: Symbol, ctx) -> Iterator[Edge]:
        """The edges of one call row, from its caller's definition `src`."""
        nodes, resolver, functors, library, aliases = self.nodes, self.resolver, self.functors, self.library, self.aliases
        stub_names = nodes.stub_names
        stub_bare = stub_names.bare if stub_names is not None else frozenset()
        file, caller, callee, name, line = row[:5]
        argc = row[5] if len(row) > 5 else -1
        receiver_type = row[6] if len(row) > 6 else None
        arg_types = row[7] if len(row) > 7 else None
        receiver_const = row[8] if len(row) > 8 else None
        lambda_line = row[9] if len(row) > 9 else None
        if name.endswith("}") and "{" in name:  # `sum_functor<scalar_t>{}(iter)`: the object made by braces
            name, callee = name[:name.index("{")], callee[:callee.rindex("{")]
        if callee == name and name in stub_bare and stub_names.called(
                name, ctx.chain, ctx.usings, hiding_functions(resolver.symbols, ctx)) is not None:
            return  # a stub called: its uses-stub edge (stub_uses) says so
        if lambda_line is not None:  # a local lambda: its body's calls are the caller's own
            yield (EdgeKind.CALLS, src.node, None, file, line, How.LAMBDA, callee, f"a lambda at line {lambda_line}")
            return
        held = aliases.get((file, caller, name)) if aliases and callee == name else None
        if held:  # a variable holding functions or kernels: each it may hold
            for target in dict.fromkeys(held):
                for t in resolver.resolve(ctx, target, target.rsplit("::", 1)[-1], -1, None):
                    yield (EdgeKind.CALLS, src.node, t.node, file, line, t.how, target, f"through {name}")
            return
        if callee == name and receiver_type is not None:  # a variable of the caller called: its class's operator()
            # (`Loop loop_func;` ... `loop_func(x)`). Not one of a template parameter's type (`func_t& f` ... `f(a)`):
            # binding it to the call sites' classes would make every edit of a file with such a template relink
            # the whole graph (template_args.rebinding_needed); it stays a call through a parameter.
            member = f"{callee}.operator()"
            found = [] if resolver.through_parameter(ctx, member, receiver_type) is not None else [
                t for t in resolver.resolve(ctx, member, "operator()", argc if argc is not None else -1, receiver_type,
                                            arg_types, receiver_const) if t.node is not None]
            if found:
                for t in found:
                    yield (EdgeKind.CALLS, src.node, t.node, file, line, t.how, callee, t.detail)
                return
            receiver_type = None
        targets = resolver.resolve(ctx, callee, name, argc if argc is not None else -1, receiver_type, arg_types,
                                   receiver_const)
        if arg_types is not None and self.called:
            yield from self._handed(targets, arg_types, src, ctx, file, line, name, callee)
        param = resolver.through_parameter(ctx, callee, receiver_type)
        if param is not None:  # bound to what the call sites give the parameter; else the rows below stand
            yield (EdgeKind.CALLS, src.node, None, file, line, How.TEMPLATE_PARAMETER, callee, param)
        family = library.get((file, line, callee))
        new_library = False
        for t in targets:
            if t.how is How.TYPE and functors is not None:
                for op_node in functors(ctx, callee, name):
                    yield (EdgeKind.RUNS_FUNCTOR, src.node, op_node, file, line, How.TYPE, callee, "constructed")
            if t.how is How.VENDOR and family is None and (t.detail is None or runs_what_was_built(t.library, name)) \
                    and (family := compute_family(callee if t.detail is None else f"{t.library}::{name}")) is not None:
                new_library = (family, callee) not in nodes.library
            if t.how is How.OP:  # an op through the dispatcher, though its name reads as a library's
                # (at::mkldnn_linear, at::cudnn_convolution: ops of native_functions.yaml whose kernels call oneDNN)
                for op_node in (nodes.op[o] for o in t.op):
                    yield (EdgeKind.REDISPATCHES_TO_OP, src.node, op_node, file, line, How.OP, callee, t.detail)
            elif family is not None and t.node is None and not is_service_call(callee):
                dst = (family, callee) if new_library else nodes.library.get((family, callee))
                yield (EdgeKind.CALLS_LIBRARY, src.node, dst, file, line, How.VENDOR, callee, family)
            elif family is not None and t.node is None and t.how is How.NOT_IN_CHECKOUT:
                # a library's configuring call that extraction named (cudnn_frontend::TensorBuilder().setDim): the vendor's
                yield (EdgeKind.CALLS, src.node, None, file, line, How.VENDOR, callee, family)
            elif t.candidates:
                yield (EdgeKind.CALLS, src.node, None, file, line, t.how, callee, t.detail, t.candidates)
            else:
                yield (EdgeKind.CALLS, src.node, t.node, file, line, t.how, callee, t.detail)

    def _handed(self, targets: list, arg_types: str, src: Symbol, ctx, file: str, line: int,
                name: str, callee: str) -> Iterator[Edge]:
        """A function handed by name to a callee whose body calls that parameter (`unary_op_impl_(self,
        at::abs_out)`, UnaryOps.cpp:551, whose unary_op_impl_ calls `out_impl(self, self)`): the caller reaches
        it through the callee, at this call: a redispatch to the op, or a call of the function, found by lookup
        from the caller (the callee's definition may see none of it). A functor object handed so runs its class's
        operator() there (_handed_object). The callee of `Class<...>()(...)`, an object made and called, is the
        class's operator()."""
        called = [t.node for t in targets if t.node is not None]
        if callee.endswith("()") and self.functors is not None:
            made = callee[:-2]
            called += self.functors(ctx, made, function_name(made))
        positions = [p for node in called for p in self.called.get(node, ())]
        if not positions:
            return
        written = json.loads(arg_types)
        for position, param in dict.fromkeys(positions):
            w = (written[position] or "") if position < len(written) else ""
            m = FUNCTION_ARGUMENT.fullmatch(w)
            reached = False
            handed = m.group(1) if m is not None else ""
            detail = f"handed to {name} as {param}, which calls it"
            for t in self.resolver.resolve(ctx, handed, function_name(handed), -1, None) if m is not None else ():
                if t.how not in _HANDED_HOW:
                    continue
                if t.how is How.OP:
                    for op_node in (self.nodes.op[o] for o in t.op):
                        reached = True
                        yield (EdgeKind.REDISPATCHES_TO_OP, src.node, op_node, file, line, How.OP, handed, detail)
                elif t.node is not None:
                    reached = True
                    yield (EdgeKind.CALLS, src.node, t.node, file, line, t.how, handed, detail)
            if not reached and w:
                yield from self._handed_object(w, src, ctx, file, line, callee, param)

    def _handed_object(self, written: str, src: Symbol, ctx, file: str, line: int, callee: str,
                       param: str) -> Iterator[Edge]:
        """A functor object handed to a callee that calls that parameter (cuda/ScatterGatherKernel.cu:472 hands the
        file's `static TensorAssign tensor_assign;` to `cuda_scatter_gather_base_kernel<false>()(...)`, whose
        operator() hands it on to the internal kernel that calls it): a runs-functor edge at the handing call to the
        operator() of the argument's class, a class of the checkout with one: a variable's declared type, or the
        type the link gives a name the caller does not declare (a namespace-scope variable: the constants table).
        Not an object the argument makes (`Op<T>()`): the call that makes it runs its operator() already
        (`constructed`)."""
        if self.functors is None:
            return
        if written.startswith("decltype("):
            if made_class(written) is not None:
                return
            typed = self.resolver.argument_type(ctx, written)
            if typed is None:
                return
            written = typed
        cls = overloads.plain_type(written)
        if not cls or not _CLASS.fullmatch(cls):
            return
        detail = f"{callee}, which calls its {param}"
        for op_node in self.functors(ctx, cls, function_name(cls)):
            yield (EdgeKind.RUNS_FUNCTOR, src.node, op_node, file, line, How.TYPE, cls, detail)


def stub_edges(conn: sqlite3.Connection, nodes: Nodes, symbols: Symbols, callers: Callers,
               contexts, resolver: Resolver, files: str | None = None) -> Iterator[Edge]:
    """uses-stub from the functions that call or pass a stub; declared-at, defined-at and registers
    (per device and CPU capability; the kernel looked up from the registering file) from the stub."""
    names = nodes.stub_names
    for stub, caller, file, line, how in conn.execute(
            f"SELECT stub, caller, file, line, how FROM stub_uses {_in(files, True)}ORDER BY id"):
        src = callers.at(file, caller, line)
        if src is None or stub not in names.bare:
            continue
        ctx = contexts(file, src)
        meant = names.called(stub, ctx.chain, ctx.usings, hiding_functions(symbols, ctx))
        if meant is not None:
            yield (EdgeKind.USES_STUB, src.node, nodes.stub[meant], file, line, How.EXACT, stub, how)
    yield from stub_site_edges(conn, nodes, contexts, resolver, files)


def stub_site_edges(conn: sqlite3.Connection, nodes: Nodes, contexts, resolver: Resolver, files: str | None = None,
                    registrations: bool = False) -> Iterator[Edge]:
    """declared-at, defined-at and registers from the stubs (of the files in the temporary table `files`, or
    all); registrations: only the registers edges (an incremental link resolves those again in the files
    that register a name whose definitions changed)."""
    names = nodes.stub_names
    scope = "scope" if "scope" in {r[1] for r in conn.execute("PRAGMA table_info(stubs)")} else "''"
    only = f"{'AND' if files else 'WHERE'} kind NOT IN ('{StubKind.DECLARE}', '{StubKind.DEFINE}') " \
        if registrations else ""
    for stub, kind, device, arch, kernel, null, file, line, at in conn.execute(
            f"SELECT stub, kind, device, arch, kernel, is_nullptr, file, line, {scope} FROM stubs "
            f"{_in(files, True)}{only}ORDER BY id"):
        src = nodes.stub[names.at_site(stub, at)]
        if kind == StubKind.DECLARE:
            yield (EdgeKind.DECLARED_AT, src, None, file, line, How.EXACT, stub, None)
        elif kind == StubKind.DEFINE:
            yield (EdgeKind.DEFINED_AT, src, None, file, line, How.EXACT, stub, None)
        else:
            where = f"{device} {arch}" if arch else device
            if null or not kernel:
                yield (EdgeKind.REGISTERS, src, None, file, line, How.EXACT, "nullptr", where)
                continue
            for t in resolver.registered(contexts(file, None), kernel):
                yield (EdgeKind.REGISTERS, src, t.node, file, line, t.how, kernel, where)


def _kernel_aliases(conn: sqlite3.Connection, tables: set[str]) -> dict[tuple[str, str | None, str], list[str]]:
    """(file, function, variable) -> the kernels it may hold (`auto kernel = c ? k1 : k2;`, tables of kernels)."""
    out: dict[tuple[str, str | None, str], list[str]] = {}
    if "kernel_aliases" in tables:
        for file, caller, name, targets in conn.execute("SELECT file, caller, name, targets FROM kernel_aliases ORDER BY id"):
            out.setdefault((file, caller, name), []).extend(json.loads(targets))
    return out


def launch_edges(conn: sqlite3.Connection, nodes: Nodes, symbols: Symbols, callers: Callers,
                 contexts, resolver: Resolver, tables: set[str] = frozenset(), files: str | None = None
                 ) -> Iterator[Edge]:
    """launches: a <<<...>>> to the __global__ kernel it names, or to each kernel a variable or table
    launched holds (how: the way each was found, detail: through which variable); runs-functor: a launch
    helper's functor (its operator()) or lambda."""
    aliases = _kernel_aliases(conn, tables)
    columns = {r[1] for r in conn.execute("PRAGMA table_info(launches)")}
    macro = "macro" if "macro" in columns else "NULL"
    handing = "handed" if "handed" in columns else "NULL"
    handed_kernels = _HandedKernels(conn, contexts, resolver)
    for kind, kernel, config, caller, file, line, lam, written_by, handed in conn.execute(
            f"SELECT kind, kernel, config, caller, file, line, lambda_line, {macro}, {handing} FROM launches "
            f"{_in(files, True)}ORDER BY id"):
        src = callers.at(file, caller, line)
        if src is None and written_by is not None:  # a file-scope #define's launch, at the #define's line, used in
            # the caller (cuda/AveragePool3d.cu:335 LAUNCH_UPDATE_OUTPUT_KERNEL_WIDTH): the caller's one definition
            named = callers.named(file, caller)
            src = named[0] if len(named) == 1 else None
        if src is None:
            continue
        ctx = contexts(file, src)
        if kind == "triple_chevron":
            detail = "<<<" + ", ".join(json.loads(config)) + ">>>"
            if not kernel:
                yield (EdgeKind.LAUNCHES, src.node, None, file, line, How.VIRTUAL, None, detail)
                continue
            name = kernel.split("<", 1)[0].rsplit("::", 1)[-1]
            held = aliases.get((file, caller, name)) or aliases.get((file, None, name))
            if held:  # a variable or table of kernels: each kernel it may hold
                for target in dict.fromkeys(held):
                    for t in resolver.resolve(ctx, target, target.rsplit("::", 1)[-1], -1, None):
                        yield (EdgeKind.LAUNCHES, src.node, t.node, file, line, t.how, target,
                               f"{detail} through {name}")
                continue
            if handed:  # a parameter of a lambda that is handed to functions calling it with kernels
                position, calls = json.loads(handed)
                found = list(handed_kernels.kernels(ctx, position, [tuple(c) for c in calls]))
                for t, target, by, at in found:
                    yield (EdgeKind.LAUNCHES, src.node, t.node, file, line, t.how, target,
                           f"{detail} through {name}, handed to it by {by.qualified_name} ({by.file}:{at})")
                if found:
                    continue
            for t in resolver.resolve(ctx, kernel, name, -1, None):
                yield (EdgeKind.LAUNCHES, src.node, t.node, file, line, t.how, kernel, detail)
        elif kernel:
            name = kernel.split("<", 1)[0].rsplit("::", 1)[-1]
            for t in resolver.resolve(ctx, f"{kernel}::operator()", "operator()", -1, None):
                if t.node is not None:
                    yield (EdgeKind.RUNS_FUNCTOR, src.node, t.node, file, line, t.how, kernel, kind)
        else:
            yield (EdgeKind.RUNS_FUNCTOR, src.node, None, file, lam or line, How.EXACT,
                   f"lambda at line {lam}" if lam else "lambda", kind)


_HAND_ON = 4  # the most functions a lambda is handed on through before one calls it with kernels


class _HandedKernels:
    """The kernels a lambda's parameter is launched with, found through the functions the lambda is handed to
    (cxx/launches.handed_lambda): a function that calls the parameter it receives the lambda as, with a function's
    name at the lambda parameter's position (`cb(AttentionKernel<...>(), fmha_cutlassF_f16_aligned_64x64_rf_sm80)`),
    gives that function, looked up from there; one that hands the parameter on (`dispatch_cutlassF_f16_sm80(cb,
    cc)`: an argument of the parameter's type, a template type parameter no other parameter has) is followed,
    _HAND_ON functions deep. Each function once per launch."""

    def __init__(self, conn: sqlite3.Connection, contexts, resolver: Resolver):
        self.conn, self.contexts, self.resolver = conn, contexts, resolver

    def kernels(self, ctx, position: int, calls: list[tuple], depth: int = 0,
                seen: set[int] | None = None) -> Iterator[tuple[Target, str, Symbol, int]]:
        """(target, the function's name as written, the function that names it, the line) for each function the
        calls (callee, callee_name, argument, line, argc) reach the lambda's parameter `position` with."""
        by_node = self.resolver.symbol_of_node()
        seen = set() if seen is None else seen
        for callee, name, argument, _line, argc in calls:
            for t in self.resolver.resolve(ctx, callee, name, argc, None):
                sym = by_node.get(t.node) if t.node is not None else None
                if sym is None or sym.node in seen:
                    continue
                seen.add(sym.node)
                yield from self._within(sym, argument, position, depth, seen)

    def _within(self, sym: Symbol, argument: int, position: int, depth: int,
                seen: set[int]) -> Iterator[tuple[Target, str, Symbol, int]]:
        names = ordered_parameter_names(sym.signature)
        if names is None or argument >= len(names) or names[argument] is None:
            return
        param = names[argument]
        types = overloads.parameter_types(sym.signature) or []
        own = types[argument] if argument < len(types) else None
        handed_on = own is not None and (sym.template_params or {}).get(own) == "type" and types.count(own) == 1
        ctx = self.contexts(sym.file, sym)
        for callee, name, line, argc, arg_types in self.conn.execute(
                "SELECT callee, callee_name, line, argc, arg_types FROM calls WHERE file = ? AND caller = ? AND "
                "line BETWEEN ? AND ? ORDER BY id", (sym.file, sym.qualified_name, sym.line, sym.end_line)):
            written = json.loads(arg_types) if arg_types else []
            if callee == param:
                m = FUNCTION_ARGUMENT.fullmatch(written[position] or "") if position < len(written) else None
                if m is not None:
                    function = m.group(1)
                    for t in self.resolver.resolve(ctx, function, function_name(function), -1, None):
                        if t.node is not None:
                            yield t, function, sym, line
            elif handed_on and depth < _HAND_ON:
                on = [(callee, name, j, line, argc) for j, w in enumerate(written)
                      if w and overloads.plain_type(w) == own]
                if on:
                    yield from self.kernels(ctx, position, on, depth + 1, seen)


WRAPPER_DEFINED = "the #define of the macro that writes the dtype set"  # a defined-at edge's detail after a dtypes edge


def dtype_edges(conn: sqlite3.Connection, callers: Callers, macros: DtypeMacros,
                files: str | None = None) -> Iterator[Edge]:
    """A dtypes edge per AT_DISPATCH use; one written through a wrapper macro is followed by a defined-at edge
    to the wrapper's #define (dtype_macros.py)."""
    for macro, dtypes, name, caller, file, line, wrapped in conn.execute(
            f"SELECT macro, dtypes, name, caller, file, line, via FROM type_dispatch {_in(files, True)}ORDER BY id"):
        src = callers.at(file, caller, line)
        if src is None:
            continue
        defined = macros.defined(file, line, macro, wrapped)
        types = defined[1] if defined is not None and defined[1] is not None else json.loads(dtypes)
        yield (EdgeKind.DTYPES, src.node, None, file, line, How.EXACT, name or macro, f"{macro}({', '.join(types)})")
        if defined is not None:
            d = defined[0]
            yield (EdgeKind.DEFINED_AT, src.node, None, d.file, d.line, How.MACRO, macro, WRAPPER_DEFINED)


def op_edges(conn: sqlite3.Connection, nodes: Nodes, symbols: Symbols,
             guards: dict[int, str] | None = None, only: list[int] | None = None) -> Iterator[Edge]:
    """has-kernel and implements for every dispatch row, meta for structured ops, backward for the ops
    derivatives.yaml names; guards: the definitions' (stage.definition_guards), which decide between a
    kernel's definitions for the key's build. only: the edges of these dispatch rows alone, without the
    backward edges (an incremental link's: those whose kernel's definitions may have changed)."""
    rows = conn.execute("SELECT d.id, d.op, d.key, d.kernel, d.cpp_namespace, d.origin, d.structured, d.via, "
                        "d.file, d.line, o.func, o.kind, o.generated_from FROM dispatch d JOIN ops o ON o.id = d.op_id "
                        + ("" if only is None else "WHERE d.id IN (SELECT value FROM json_each(?)) ") +
                        "ORDER BY d.id", () if only is None else (json.dumps(sorted(only)),)).fetchall()
    generated = {r[0] for r in conn.execute("SELECT name FROM ops WHERE generated_from IS NOT NULL")}
    view_copies = {r[0] for r in conn.execute(
        "SELECT o.name FROM ops o JOIN op_tags t ON t.op_id = o.id WHERE t.tag = 'view_copy'")}
    for ref, op, key, kernel, ns, origin, structured, via, file, line, func, kind, generated_from in rows:
        kernel_node = nodes.kernel[ref]
        yield (EdgeKind.HAS_KERNEL, nodes.op[op], kernel_node, file, line, How.YAML, kernel, key)
        sym, how, detail = implementation(symbols, key, kernel, ns, origin, bool(structured), func, guards)
        view = view_copy_target(op, nodes.op) if sym is None and how is How.NOT_IN_CHECKOUT and op in view_copies \
            else None
        if view is not None:  # a view_copy op's kernel that torchgen writes at build time
            how, detail = How.GENERATED, VIEW_COPY
        loc = (sym.file, sym.line) if sym is not None else (file, line)
        yield (EdgeKind.IMPLEMENTS, kernel_node, sym.node if sym else None, *loc, how, kernel, detail)
        if view is not None:
            for target in (view, CLONE) if CLONE in nodes.op else (view,):
                yield (EdgeKind.REDISPATCHES_TO_OP, kernel_node, nodes.op[target], file, line, How.GENERATED, target,
                       view_copy_detail(target))
        if origin == Origin.AUTOGEN and sym is None and generated_from:
            # the kernel torchgen writes is not in the checkout: what it calls through the dispatcher is known
            target = autogen_target(op, kind, generated_from, generated, nodes.op.keys())
            if target is not None:
                yield (EdgeKind.REDISPATCHES_TO_OP, kernel_node, nodes.op[target], file, line, How.GENERATED, target,
                       autogen_detail(kind, target))
        if origin == Origin.META and sym is not None:
            yield (EdgeKind.META, nodes.op[op], sym.node, sym.file, sym.line, How.YAML, kernel, None)
    if only is not None:
        return
    for ref, op, file, line in conn.execute("SELECT id, op, file, line FROM derivatives ORDER BY id"):
        if op in nodes.op:
            yield (EdgeKind.BACKWARD, nodes.op[op], nodes.derivative[ref], file, line, How.YAML, op, None)
