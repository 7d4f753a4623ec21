"""tg-query mcp: a stdio MCP server (the official SDK's MCPServer) over the typed API.

One tool per question: kernels_for, dispatch, trace, ops_for, op, find, sql. Each returns
structuredContent (the CLI's JSON for the same question, in an envelope that
says how much of the answer it is) and the CLI's text for the same units. An
answer never exceeds paging.BUDGET bytes; a cut one says so and how to get the
rest. A TgIndexError becomes a tool error carrying the CLI's line `error: ...`.
The index is opened on the first call and kept open (a call before it exists
says so, and a later call opens it).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Sequence

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..indexer.errors import TgIndexError
from . import brief as briefs
from . import paging, render
from .mcp_models import DispatchResult, FindResult, KernelsForResult, OpResult, OpsForResult, SqlResult, TraceResult

ENVELOPE = 600  # bytes kept free for the envelope and its note, in the JSON and in the text
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

Offset = Annotated[int, Field(ge=0, description="first unit to return (from next_offset)")]
Limit = Annotated[int | None, Field(ge=1, description="at most this many units")]


def _size(data: dict[str, Any], text: str) -> int:
    return len(json.dumps(data, separators=(",", ":")).encode()) + len(text.encode())


def _paged(units: Sequence[Any], offset: int, limit: int | None, build: Callable[[Sequence[Any]], tuple[dict, str]],
           unit: str, narrower: str, shrink: Callable[[Any, int | None], Any] | None = None) -> CallToolResult:
    """The page of units that fits the budget, as structured data and text, with the envelope.

    shrink(unit, n) gives the unit cut to n parts (shrink(unit, None): how many parts it has)."""
    budget = paging.BUDGET - 2 * ENVELOPE
    page = paging.fit(units, offset, limit, lambda sub: _size(*build(sub)), budget)
    kept = list(units[page.offset:page.end])
    if len(kept) == 1 and shrink is not None and _size(*build(kept)) > budget:
        n = paging.shrink(shrink(kept[0], None), lambda k: _size(*build([shrink(kept[0], k)])), budget)
        kept, page = [shrink(kept[0], n)], replace(page, shrunk=True)
    data, text = build(kept)
    envelope = replace(page, budget=paging.BUDGET).envelope(unit, narrower)  # the note names the whole budget
    if envelope["note"]:
        text += f"[{envelope['note']}]\n"
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={**data, **envelope})


class Tools:
    """The tools, over one Index opened on first use."""

    def __init__(self, db: Path | None):
        self.db = db
        self._index = None

    def ask(self, question: Callable[[Any], Any]) -> Any:
        """Run a question on the index, opening it on first use (TgIndexError when there is none)."""
        if self._index is None:
            from .api import Index

            self._index = Index.open(self.db)
        return question(self._index)

    # -- kernels_for ----------------------------------------------------------------------------

    def kernels_for(self, op: str, keys: list[str] | None, depth: int, brief: bool, offset: int,
                    limit: int | None) -> CallToolResult:
        answers = self.ask(lambda ix: ix.kernels_for(op, tuple(keys or ()), depth))
        units = [(i, k) for i, a in enumerate(answers) for k in (a.keys or (None,))]

        def build(sub: Sequence[tuple[int, Any]]) -> tuple[dict, str]:
            picked: dict[int, list[Any]] = {}
            for i, k in sub:
                picked.setdefault(i, []).extend([] if k is None else [k])
            page = [replace(answers[i], keys=tuple(ks)) for i, ks in picked.items()]
            if brief:
                items = [briefs.kernels_for_brief(a) for a in page]
                return {"op": op, "brief": True, "answers": items}, briefs.kernels_for_brief_text(items)
            return ({"op": op, "brief": False, "answers": [render.kernels_for_data(a) for a in page]},
                    render.kernels_for_text(page) if page else "")

        def shrink(u: tuple[int, Any], n: int | None):
            i, k = u
            if k is None:  # an answer without keys has no chain to cut
                return 0 if n is None else u
            return len(k.chain) if n is None else (i, replace(k, chain=k.chain[:n]))

        return _paged(units, offset, limit, build, "keys", "ask brief=true, fewer keys or a smaller depth",
                      shrink if not brief else None)

    # -- trace ----------------------------------------------------------------------------------

    def trace(self, name: str, brief: bool, offset: int, limit: int | None) -> CallToolResult:
        found = self.ask(lambda ix: ix.trace(name))
        units = [("hop", h) for h in found.hops] + [("op", o) for o in found.ops]

        def build(sub: Sequence[tuple[str, Any]]) -> tuple[dict, str]:
            page = replace(found, hops=tuple(u for kind, u in sub if kind == "hop"),
                           ops=tuple(u for kind, u in sub if kind == "op"))
            if brief:
                data = briefs.trace_brief(page)
                return {**data, "brief": True}, briefs.trace_brief_text(data)
            return {**render.trace_data(page), "brief": False}, render.trace_text(page)

        return _paged(units, offset, limit, build, "hops and ops", "ask brief=true, or kernels_for one op")

    # -- ops_for --------------------------------------------------------------------------------

    def ops_for(self, name: str, depth: int, brief: bool, offset: int, limit: int | None) -> CallToolResult:
        found = self.ask(lambda ix: ix.ops_for(name, depth))
        # A list of hits before the answer types moved to results.py, an OpsFor (with the walk's own
        # truncation, which its text states) after: both iterate as the hits.
        hits = list(found)
        units = briefs.ops_for_brief(hits) if brief else hits

        def build(sub: Sequence[Any]) -> tuple[dict, str]:
            if brief:
                return {"name": name, "brief": True, "hits": list(sub)}, briefs.ops_for_brief_text(list(sub))
            page = replace(found, hits=tuple(sub)) if hasattr(found, "hits") else list(sub)
            return {"name": name, "brief": False, "hits": render.to_data(list(sub))}, render.reach_text(page)

        return _paged(units, offset, limit, build, "hits", "ask brief=true or a smaller depth")

    # -- dispatch ---------------------------------------------------------------------------------

    def dispatch(self, op: str, device: str, flags: dict[str, bool], depth: int, offset: int,
                 limit: int | None) -> CallToolResult:
        from . import dispatch as walks

        found = self.ask(lambda ix: ix.dispatch_walk(op, device, depth=depth, **flags))

        def build(sub: Sequence[Any]) -> tuple[dict, str]:
            return {"op": op, "walks": [walks.walk_data(w) for w in sub]}, walks.walk_text(list(sub)) if sub else ""

        return _paged(found, offset, limit, build, "walks", "ask for one overload (mm.out) or a smaller depth")

    # -- op ---------------------------------------------------------------------------------------

    def op(self, name: str, offset: int, limit: int | None) -> CallToolResult:
        infos = self.ask(lambda ix: ix.op(name))

        def build(sub: Sequence[Any]) -> tuple[dict, str]:
            return {"name": name, "entries": render.to_data(list(sub))}, render.op_text(list(sub)) if sub else ""

        return _paged(infos, offset, limit, build, "entries", "ask for one overload (add.out)")

    # -- sql --------------------------------------------------------------------------------------

    def sql(self, query: str, offset: int, limit: int) -> CallToolResult:
        columns, rows = self.ask(lambda ix: ix.sql(query))

        def build(sub: Sequence[tuple]) -> tuple[dict, str]:
            return ({"columns": columns, "rows": [dict(zip(columns, r)) for r in sub]},
                    render.sql_text(columns, list(sub)))

        def shrink(row: tuple, n: int | None):
            cells = [c for c in row if isinstance(c, str)]
            if n is None:
                return max((len(c) for c in cells), default=0)
            return tuple(c[:n] + "..." if isinstance(c, str) and len(c) > n else c for c in row)

        return _paged(rows, offset, limit, build, "rows", "select fewer columns or rows", shrink)

    # -- find -------------------------------------------------------------------------------------

    def find(self, name: str, kind: str | None, offset: int, limit: int | None) -> CallToolResult:
        kinds = [kind] if kind else list(FIND_KINDS)
        found: dict[str, Any] = {}
        errors = []
        for k in kinds:
            try:
                found[k] = self.ask(lambda ix: FIND_KINDS[k](ix, name))
            except TgIndexError as exc:
                if self._index is None:  # no index: nothing else to try
                    raise
                errors.append(str(exc))
        if not found:
            raise TgIndexError(" / ".join(errors))
        units = [(section, item) for k, value in found.items() for section, item in _find_units(k, value)]

        def build(sub: Sequence[tuple[str, Any]]) -> tuple[dict, str]:
            data: dict[str, Any] = {"name": name, "kind": kind, "symbols": None, "stub": None, "kernel": None,
                                    "callers": None}
            texts = []
            for k, value in found.items():
                part = _find_part(k, value, [item for section, item in sub if section.split(".")[0] == k], sub)
                if part is not None:
                    data[k if k != "symbol" else "symbols"] = render.to_data(part)
                    texts.append(f"{k}:\n{FIND_TEXT[k](part)}")
            return data, "".join(texts)

        return _paged(units, offset, limit, build, "items", f"ask with kind= one of {', '.join(FIND_KINDS)}")


FIND_KINDS: dict[str, Callable[[Any, str], Any]] = {
    "symbol": lambda ix, name: ix.symbol(name),
    "stub": lambda ix, name: ix.stub(name),
    "kernel": lambda ix, name: ix.kernel(name),
    "callers": lambda ix, name: ix.callers(name),
}
FIND_TEXT: dict[str, Callable[[Any], str]] = {
    "symbol": render.symbols_text, "stub": render.stub_text, "kernel": render.kernel_text, "callers": render.uses_text,
}
_LISTS = {"stub": ("declarations", "definitions", "registrations", "callers"),
          "kernel": ("definitions", "launches", "dtypes")}


def _find_units(kind: str, value: Any) -> list[tuple[str, Any]]:
    if kind in _LISTS:
        return [(f"{kind}.{field}", item) for field in _LISTS[kind] for item in getattr(value, field)]
    return [(kind, item) for item in value]


def _find_part(kind: str, value: Any, items: list[Any], sub: Sequence[tuple[str, Any]]) -> Any:
    """What of one kind's answer is on the page (None: nothing)."""
    if not items:
        return None
    if kind not in _LISTS:
        return items
    kept = {field: tuple(item for section, item in sub if section == f"{kind}.{field}") for field in _LISTS[kind]}
    return replace(value, **kept)


INSTRUCTIONS = """tg-index answers where a PyTorch op really runs, from an index of a PyTorch checkout (no build).
Ask the brief form first (the default), then brief=false or a narrower question for the chain.
Every location is a path relative to the checkout and a line. Long answers are paged: truncated,
next_offset and note say what was left out and how to get it."""

OpName = Annotated[str, Field(description="op: add.out, aten::add.out, or a bare add for every overload")]
Brief = Annotated[bool, Field(description="short form (default); false: the full answer")]


def _guard(answer: Callable[[], CallToolResult]) -> CallToolResult:
    """The answer, or the library's error as a tool error with the CLI's line."""
    try:
        return answer()
    except TgIndexError as exc:
        return CallToolResult(content=[TextContent(type="text", text=f"error: {exc}")], is_error=True)


def server(db: Path | None = None) -> MCPServer:
    """The MCP server over the index at db (None: $TG_INDEX_DB or the default checkout's index)."""
    tools = Tools(db)
    app = MCPServer("tg-index", instructions=INSTRUCTIONS, log_level="WARNING")

    @app.tool(annotations=READ_ONLY, description=(
        "Where a PyTorch op runs: per dispatch key the kernel, its definition file:line, and below it the "
        "stubs, registered kernels, launches/__global__ kernels, library calls and dtypes; meta and backward. "
        "Use first for any 'which kernel / where is the CUDA code of op X' question. "
        "Example: kernels_for(op='add.out', keys=['CUDA'])"))
    async def kernels_for(op: OpName, keys: Annotated[list[str] | None, Field(description="only these dispatch keys")] = None,
                          depth: Annotated[int, Field(ge=0, le=20, description="levels of calls followed")] = 8,
                          brief: Brief = True, offset: Offset = 0, limit: Limit = None
                          ) -> Annotated[CallToolResult, KernelsForResult]:
        return _guard(lambda: tools.kernels_for(op, keys, depth, brief, offset, limit))

    @app.tool(annotations=READ_ONLY, description=(
        "The keys a call of an op visits in the dispatcher, highest priority first (Autocast, Autograd, "
        "ADInplaceOrView, Functionalize, BackendSelect, the backend), what each does (runs and redispatches, "
        "falls through, handles the call) with the kernel and its registration file:line, then the handling "
        "kernel's chain. Example: dispatch(op='mm', device='cuda', requires_grad=True, autocast=True)"))
    async def dispatch(op: OpName, device: Annotated[Literal["cpu", "cuda", "meta", "mps"], Field(description="the tensors' device")] = "cpu",
                       requires_grad: bool = False, autocast: bool = False, inference_mode: bool = False,
                       functionalize: bool = False, vmap: bool = False,
                       depth: Annotated[int, Field(ge=0, le=20, description="levels of calls followed below the handling kernel")] = 8,
                       offset: Offset = 0, limit: Limit = None) -> Annotated[CallToolResult, DispatchResult]:
        flags = {"requires_grad": requires_grad, "autocast": autocast, "inference_mode": inference_mode,
                 "functionalize": functionalize, "vmap": vmap}
        return _guard(lambda: tools.dispatch(op, device, flags, depth, offset, limit))

    @app.tool(annotations=READ_ONLY, description=(
        "From a Python API name to the aten ops it reaches (nn.Module forward, functional, torch.X, Tensor "
        "methods, torch.ops.aten), with each op's dispatch table and decompositions. Use when you start from "
        "Python code. Example: trace(name='nn.LayerNorm')"))
    async def trace(name: Annotated[str, Field(description="torch.nn.LayerNorm, F.cross_entropy, torch.add, Tensor.matmul")],
                    brief: Brief = True, offset: Offset = 0, limit: Limit = None) -> Annotated[CallToolResult, TraceResult]:
        return _guard(lambda: tools.trace(name, brief, offset, limit))

    @app.tool(annotations=READ_ONLY, description=(
        "The reverse: which (op, dispatch key) kernels reach a C++ function, DispatchStub or __global__ kernel. "
        "Use when you know a kernel and want the ops that run it. Example: ops_for(name='softplus_kernel')"))
    async def ops_for(name: Annotated[str, Field(description="function, stub or __global__ kernel name")],
                      depth: Annotated[int, Field(ge=0, le=20, description="levels of callers walked up")] = 12,
                      brief: Brief = True, offset: Offset = 0, limit: Limit = None) -> Annotated[CallToolResult, OpsForResult]:
        return _guard(lambda: tools.ops_for(name, depth, brief, offset, limit))

    @app.tool(annotations=READ_ONLY, description=(
        "The native_functions.yaml entry of an op: schema, variants, tags, every field, overloads, "
        "derivatives.yaml formulas. Use for the schema or flags of an op. Example: op(name='relu')"))
    async def op(name: OpName, offset: Offset = 0, limit: Limit = None) -> Annotated[CallToolResult, OpResult]:
        return _guard(lambda: tools.op(name, offset, limit))

    @app.tool(annotations=READ_ONLY, description=(
        "Look a C++/CUDA name up: its definitions (symbol), a DispatchStub's declaration and registrations "
        "(stub), a __global__ kernel's launches and dtypes (kernel), call sites (callers); every kind when "
        "kind is omitted. Example: find(name='add_stub', kind='stub')"))
    async def find(name: Annotated[str, Field(description="plain, qualified (at::native::foo) or structured (add.Tensor) name")],
                   kind: Literal["symbol", "stub", "kernel", "callers"] | None = None,
                   offset: Offset = 0, limit: Limit = None) -> Annotated[CallToolResult, FindResult]:
        return _guard(lambda: tools.find(name, kind, offset, limit))

    @app.tool(annotations=READ_ONLY, description=(
        "Read-only SQL on the index (tables ops, dispatch, definitions, stubs, calls, launches, registrations, "
        "py_* and views v_dispatch, v_ops, v_backward). Use when no other tool asks your question. "
        "Example: sql(query=\"SELECT op, kernel FROM v_dispatch WHERE key = 'MPS'\", limit=20)"))
    async def sql(query: Annotated[str, Field(description="one SQL statement")],
                  limit: Annotated[int, Field(ge=1, description="at most this many rows")] = 100,
                  offset: Offset = 0) -> Annotated[CallToolResult, SqlResult]:
        return _guard(lambda: tools.sql(query, offset, limit))

    return app


def serve(db: Path | None = None) -> None:
    """Serve the tools over stdio until the client closes the connection."""
    server(db).run("stdio")
