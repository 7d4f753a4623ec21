"""tg-index and tg-query: thin Typer commands over the build and the typed API.

Every error the library raises (TgIndexError) becomes one line `error: ...` on
stderr and a non-zero exit; --debug shows the traceback instead.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer

from ..indexer import paths
from ..indexer.codegen import DEFAULT_TIMEOUT as DEFAULT_CODEGEN_TIMEOUT
from ..indexer.errors import Interrupted, TgIndexError
from . import output, render
from .output import emit as _emit, emit_brief as _emit_brief
from .render import ChainFormat, Format

DbOption = Annotated[Optional[Path], typer.Option("--db", help=f"Index database [env: {paths.DB_ENV}; default: the default checkout's index].", show_default=False)]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (same as --format json).")]
FormatOption = Annotated[Optional[Format], typer.Option("--format", help="Output format: text, json or jsonl.", show_default=False)]
DebugOption = Annotated[bool, typer.Option("--debug", help="Show the traceback of an error.")]
BriefOption = Annotated[bool, typer.Option("--brief", help="The short form: one line per key (per overload for trace, per op and kernel for ops-for); with --json as data.")]

query_app = typer.Typer(
    name="tg-query",
    help="Ask a tg-index database where a PyTorch op really runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
index_app = typer.Typer(name="tg-index", add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)

_state: dict[str, Optional[Path]] = {"db": None}


def _index():
    from .api import Index

    return Index.open(_state["db"])


@query_app.callback()
def _main(db: DbOption = None, debug: DebugOption = False) -> None:
    """Ask a tg-index database where a PyTorch op really runs."""
    _state["db"] = db


@query_app.command("kernels-for")
def kernels_for_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Op: add.out, aten::add.out, or a bare add for every overload.")],
    key: Annotated[Optional[list[str]], typer.Option("--key", help="Only this dispatch key (repeatable).")] = None,
    depth: Annotated[int, typer.Option("--depth", min=0, max=20, help="How many levels of calls deep to follow the chain.")] = 8,
    as_json: JsonOption = False,
    fmt: Annotated[Optional[ChainFormat], typer.Option("--format", help="text, json, jsonl, dot or mermaid.", show_default=False)] = None,
    brief: BriefOption = False,
) -> None:
    """Where an op runs: per dispatch key the kernel, its definition, and the chain below it (stubs,
    registered kernels per device and CPU capability, launches, __global__ kernels, dtypes, library calls),
    the meta function, and the backward formulas."""
    output.kernels_for(_index().kernels_for(name, tuple(key or ()), depth), render.pick(fmt, as_json), brief)


@query_app.command("trace", context_settings={"ignore_unknown_options": True})
def trace_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A Python name: torch.nn.LayerNorm (nn.LayerNorm), torch.nn.functional.cross_entropy (F.cross_entropy), torch.add, Tensor.matmul, Tensor.__add__, _VF.lstm, torch.ops.aten.mm; or an expression with operators: \"x @ w + b\", \"x[idx] += y\", \"-x\", \"a < b\".")],
    key: Annotated[Optional[list[str]], typer.Option("--key", help="Only this dispatch key (repeatable).")] = None,
    chain: Annotated[bool, typer.Option("--chain", help="Each op's whole kernels-for answer (chain, meta, backward), not only its dispatch table.")] = False,
    depth: Annotated[int, typer.Option("--depth", min=0, max=20, help="With --chain: how many levels of calls deep to follow the chain.")] = 8,
    hops: Annotated[int, typer.Option("--hops", min=1, max=30, help="How many Python calls deep to follow.")] = 8,
    inline: Annotated[bool, typer.Option("--all", help="Plumbing ops (size, view, contiguous, ...) in line with the others, not grouped after them.")] = False,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    brief: BriefOption = False,
) -> None:
    """From the Python API to the aten op: the Python hops (file:line each), the aten ops reached, and for
    each op its dispatch table (or with --chain its whole kernels-for answer), decompositions and refs;
    plumbing ops grouped after the ops that do the work."""
    found = _index().trace(name, tuple(key or ()), depth, chain, hops)
    if brief:
        return _emit_brief("trace", found, render.pick(fmt, as_json))
    _emit(found, render.pick(fmt, as_json), lambda r: render.trace_text(r, inline),
          data=lambda r: render.trace_data(r, inline), items=lambda r: [render.trace_data(r, inline)])


@query_app.command("dispatch")
def dispatch_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Op: mm, aten::add_.Tensor, or a bare add for every overload.")],
    device: Annotated[str, typer.Option("--device", help="The tensors' device: cpu, cuda, meta or mps.")] = "cpu",
    requires_grad: Annotated[bool, typer.Option("--requires-grad", help="An input requires grad (the autograd kernel records the backward).")] = False,
    autocast: Annotated[bool, typer.Option("--autocast", help="Under autocast for the device (its Autocast key is no longer excluded).")] = False,
    inference_mode: Annotated[bool, typer.Option("--inference-mode", help="Under torch.inference_mode (Autograd and ADInplaceOrView excluded).")] = False,
    functionalize: Annotated[bool, typer.Option("--functionalize", help="On functional tensors (torch.func.functionalize: the Functionalize key).")] = False,
    vmap: Annotated[bool, typer.Option("--vmap", help="Under torch.vmap (FuncTorchBatched and the dynamic layer keys).")] = False,
    depth: Annotated[int, typer.Option("--depth", min=0, max=20, help="How many levels of calls deep to follow the handling kernel's chain.")] = 8,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """The keys a call visits in priority order (c10/core/DispatchKey.h), what each does (runs and
    redispatches, falls through, handles the call), and the handling kernel's kernels-for chain."""
    found = _index().dispatch_walk(name, device, requires_grad=requires_grad, autocast=autocast,
                                   inference_mode=inference_mode, functionalize=functionalize, vmap=vmap, depth=depth)
    output.dispatch(found, render.pick(fmt, as_json))


@query_app.command("ops-for")
def ops_for_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A function, a DispatchStub or a __global__ kernel.")],
    depth: Annotated[int, typer.Option("--depth", min=0, max=20, help="How many levels of callers up to walk.")] = 12,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    brief: BriefOption = False,
) -> None:
    """The ops (and dispatch keys) whose kernels reach a function, stub or __global__ kernel, with the path."""
    hits = _index().ops_for(name, depth)
    if brief:
        return _emit_brief("ops_for", hits, render.pick(fmt, as_json))
    _emit(hits, render.pick(fmt, as_json), render.reach_text, data=render.reach_data, items=render.reach_items)


@query_app.command("doctor")
def doctor_cmd(
    key: Annotated[Optional[list[str]], typer.Option("--key", help="Only this dispatch key (repeatable).")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="List every unresolved kernel, not the first ten per reason.")] = False,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """Every (op, key) whose kernel has no definition in the checkout, grouped by reason, with counts per key."""
    health = _index().doctor(tuple(key or ()))
    _emit(health, render.pick(fmt, as_json), lambda h: render.doctor_text(h, show=10**9 if show_all else 10),
          data=render.doctor_data, items=lambda h: render.to_data(h.unresolved))


@query_app.command("op")
def op_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Op: add.out, aten::add.out, or a bare add for every overload.")],
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """The native_functions.yaml entry: schema, variants, flags, tags, file:line, overloads, derivative."""
    _emit(_index().op(name), render.pick(fmt, as_json), render.op_text, data=render.one_or_many)


@query_app.command("ops")
def ops_cmd(
    key: Annotated[Optional[str], typer.Option("--key", help="Ops with a kernel for this dispatch key.")] = None,
    tag: Annotated[Optional[str], typer.Option("--tag", help="Ops with this tag (tags.yaml).")] = None,
    structured: Annotated[Optional[bool], typer.Option("--structured/--not-structured", help="Only structured (or only non-structured) ops.", show_default=False)] = None,
    kind: Annotated[Optional[str], typer.Option("--kind", help="functional, inplace, out, mutable or scratch.")] = None,
    origin: Annotated[Optional[str], typer.Option("--origin", help="Ops with a kernel of this origin: yaml, composite_implicit, autogen, ufunc, delegate.")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="Glob on the op name, e.g. '*softmax*'.")] = None,
    python_module: Annotated[Optional[str], typer.Option("--python-module", help="nn, linalg, special, fft, sparse, nested.")] = None,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """A filtered list of ops."""
    found = _index().ops(key=key, tag=tag, structured=structured, kind=kind, origin=origin, name=name,
                         python_module=python_module)
    _emit(found, render.pick(fmt, as_json), render.ops_text)


@query_app.command("symbol")
def symbol_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Function name, qualified name (at::native::add_out_mps) or structured name (add.Tensor).")],
    kind: Annotated[Optional[str], typer.Option("--kind", help="function, method, global_kernel, device_function, meta_func, impl_func.")] = None,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """C++/CUDA definitions of a name, with file:line ranges."""
    _emit(_index().symbol(name, kind), render.pick(fmt, as_json), render.symbols_text)


@query_app.command("stub")
def stub_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="DispatchStub name, e.g. add_stub.")],
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """A DispatchStub: declaration, definition, every registration per device and CPU capability, callers."""
    _emit(_index().stub(name), render.pick(fmt, as_json), render.stub_text)


@query_app.command("kernel")
def kernel_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="__global__ kernel name (or a functor a launch helper runs).")],
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """A __global__ kernel: definition, launch sites, and the AT_DISPATCH dtype sets around its launches."""
    _emit(_index().kernel(name), render.pick(fmt, as_json), render.kernel_text)


@query_app.command("callers")
def callers_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Function name (last component matches) or a qualified suffix like cuda::blas::gemm.")],
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """Where a function is called, by name: caller, call as written, file:line."""
    _emit(_index().callers(name), render.pick(fmt, as_json), render.uses_text)


@query_app.command("sql")
def sql_cmd(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="SQL to run on a read-only connection (tables and views in the README).")],
    timeout: Annotated[float, typer.Option("--timeout", help="Stop the query after this many seconds.")] = 10.0,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
) -> None:
    """Run ad-hoc SQL on a read-only connection: only reading is allowed (no write, ATTACH, VACUUM or
    state-changing PRAGMA), for at most --timeout seconds; Ctrl-C stops it."""
    columns, rows = _index().sql(query, timeout=timeout)
    as_rows = [dict(zip(columns, r)) for r in rows]
    _emit((columns, rows), render.pick(fmt, as_json), lambda r: render.sql_text(*r),
          data=lambda r: as_rows, items=lambda r: as_rows)


@query_app.command("export")
def export_cmd(
    table: Annotated[str, typer.Argument(metavar="TABLE", help="What to export: dispatch, dispatch-table, ops, derivatives, definitions, stubs, launches, registrations, dispatcher, type-dispatch, calls, library-calls.")],
) -> None:
    """Every row of a table as JSON lines (fields in the README)."""
    render.emit_jsonl(_index().export(table))


@query_app.command("info")
def info_cmd(as_json: JsonOption = False, fmt: FormatOption = None) -> None:
    """Which checkout and PyTorch version the index holds, when and by which tool and schema version."""
    ix = _index()
    meta = {key: _shown_meta(key, value) for key, value in ix.meta().items()}
    meta["db"] = str(ix.path)
    width = max(len(k) for k in meta)
    _emit(meta, render.pick(fmt, as_json), lambda m: "".join(f"{k.ljust(width)}  {v}\n" for k, v in m.items()),
          data=lambda m: m, items=lambda m: [m])


LONG_META = 256  # characters of a meta value beyond which info shows a JSON list or object as its size


def _shown_meta(key: str, value: str) -> str:
    """A meta value as info shows it: whole, but for a long JSON list or object (the build's own records of
    each file's stats, includes and scopes, hundreds of KB), shown as its number of entries and the query that
    reads it."""
    if value is None or len(value) <= LONG_META or value[:1] not in "[{":
        return value
    import json

    try:
        entries = len(json.loads(value))
    except ValueError:
        return value
    return f"{entries:,} entries ({len(value):,} bytes): tg-query sql \"SELECT value FROM meta WHERE key = '{key}'\""


@query_app.command("mcp")
def mcp_cmd() -> None:
    """Serve the queries to coding agents: an MCP server on stdio (tools kernels_for, trace, ops_for, op,
    find, sql). Client configuration: {"command": "tg-query", "args": ["mcp"]}."""
    from .mcp import serve

    serve(_state["db"])


@query_app.command("datasette-metadata")
def datasette_metadata_cmd(
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to this file [default: stdout].", show_default=False)] = None,
) -> None:
    """Datasette metadata for the index: a description of every table and column, labels, sort orders,
    canned queries. Use: datasette serve INDEX -m metadata.json"""
    from .datasette import metadata_json

    text = metadata_json(_state["db"] or paths.default_db())
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)


@index_app.command()
def index_cmd(
    checkout: Annotated[Optional[Path], typer.Argument(metavar="CHECKOUT", help="PyTorch checkout [default: $TILEGYM_SKILL_CACHE_DIR/pytorch-source, ~/.cache/tilegym/pytorch-source].", show_default=False)] = None,
    db: Annotated[Optional[str], typer.Option("--db", help="Where to write the index: a new file or an index of tg-index's [default: ~/.cache/tilegym/index/<checkout folder>-<hash of its path>.db].", show_default=False)] = None,
    exclude: Annotated[Optional[list[str]], typer.Option("--exclude", help="Folder name or checkout-relative path not to walk (repeatable; replaces the default list).", show_default=False)] = None,
    jobs: Annotated[Optional[int], typer.Option("--jobs", "-j", min=1, help="Processes that parse C++/CUDA [default: all cores].", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar, only the summary.")] = False,
    max_file_size: Annotated[Optional[int], typer.Option("--max-file-size", min=1, metavar="BYTES", help="Larger files are skipped and listed in the files table [default: 16 MiB].", show_default=False)] = None,
    codegen: Annotated[bool, typer.Option("--codegen", help="First run the checkout's own code generators (torchgen.gen, tools.autograd.gen_autograd: this executes code from the checkout) into <db>.codegen/ and index the generated C++ too; if they fail, say so and index without them.")] = False,
    codegen_timeout: Annotated[int, typer.Option("--codegen-timeout", min=1, metavar="SECONDS", help="Time limit of --codegen's generators.")] = DEFAULT_CODEGEN_TIMEOUT,
    debug: DebugOption = False,
) -> None:
    """Build or update the index of a PyTorch checkout."""
    from functools import partial

    from ..indexer.build import build
    from ..indexer.discover import DEFAULT_EXCLUDES, DEFAULT_MAX_FILE_SIZE
    from ..indexer.index_file import EMPTY_DB

    root = checkout if checkout is not None else paths.default_checkout()
    if db == "":  # Path("") would be the current folder
        raise TgIndexError(EMPTY_DB)
    target = Path(db) if db is not None else paths.index_for(root)
    run = partial(build, excludes=tuple(exclude) if exclude else DEFAULT_EXCLUDES, jobs=jobs,
                  max_file_size=max_file_size or DEFAULT_MAX_FILE_SIZE, codegen_timeout=codegen_timeout if codegen else None)
    try:
        if quiet or not sys.stderr.isatty():
            summary = run(root, target)
        else:
            summary = _build_with_bar(root, target, run)
    except KeyboardInterrupt:
        # Click would turn Ctrl-C into a silent exit; say what it means for the index.
        raise Interrupted(f"interrupted; the index at {target} is as it was before") from None
    print(summary)


def _build_with_bar(root: Path, target: Path, build):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        return build(root, target, progress)


def _run(app: typer.Typer, prog: str) -> None:
    debug = "--debug" in sys.argv[1:]
    try:
        app(prog_name=prog)
    except Interrupted as exc:
        print(f"error: {exc}", file=sys.stderr)
        _leave(130)
    except TgIndexError as exc:
        if debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        _leave(1)
    except BrokenPipeError:
        sys.stderr.close()
        _leave(0)
    except SystemExit as exc:  # how Click ends every command, done or refused
        if exc.code is None or isinstance(exc.code, int):
            _leave(exc.code or 0)
        raise


def _leave(code: int) -> NoReturn:
    """End the process once its output is flushed, without the interpreter's teardown: the command has
    done all it does (files closed, temporary files removed, child processes waited for), and freeing the
    objects one by one took a tenth of a second after a build (the link's tables, cyclic, left to the
    collector). What atexit would run has nothing left to do by then: multiprocessing's clean-up finds the
    build's pools terminated or joined, and no other handler is registered."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except (BrokenPipeError, ValueError):
            pass
    os._exit(code)


def query_main() -> None:
    _run(query_app, "tg-query")


def index_main() -> None:
    # No cycle collection in this process (the build turns it off while it runs and back as it was after):
    # the first one after the build went over the link's cyclic tables, which the process never needs again.
    gc.disable()
    _run(index_app, "tg-index")
