"""The output schemas of the MCP tools: what each tool's structuredContent holds.

The items are the CLI's JSON for the same question (`tg-query ... --json`, or
`--brief --json`), kept as they are; the models declare the envelope every
paged answer carries and the fields an agent reads first.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


def _untitled(schema: dict[str, Any]) -> None:
    """Property titles repeat the names: left out, so that the tool list costs an agent less context."""
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class Paged(BaseModel):
    """How much of the answer this is (the server's instructions say how to page)."""

    model_config = ConfigDict(json_schema_extra=_untitled)

    offset: int
    returned: int
    total: int
    truncated: bool
    next_offset: int | None
    note: str | None


class KernelsForResult(Paged):
    op: str = Field(description="the op as asked")
    brief: bool
    answers: list[dict[str, Any]] = Field(
        description="one per overload: `tg-query kernels-for --json` items (brief: `--brief --json`); units are keys")


class DispatchResult(Paged):
    op: str = Field(description="the op as asked")
    walks: list[dict[str, Any]] = Field(description="one per overload: `tg-query dispatch --json` items; units are walks")


class TraceResult(Paged):
    name: str
    resolved: str
    brief: bool
    hops: list[dict[str, Any]] | None = Field(None, description="full form: the Python hops with file:line")
    path: list[str] | None = Field(None, description="brief form: the Python names on the way")
    ops: list[dict[str, Any]] = Field(description="aten ops reached, each with its overloads' dispatch tables")
    unresolved: list[str] | None = Field(None, description="brief form: callees no op answers")


class OpsForResult(Paged):
    name: str
    brief: bool
    hits: list[dict[str, Any]] = Field(
        description="full: (op, key, kernel, path) as `tg-query ops-for --json`; brief: (op, kernel, keys)")


class OpResult(Paged):
    name: str
    entries: list[dict[str, Any]] = Field(description="native_functions.yaml entries as `tg-query op --json`")


class FindResult(Paged):
    name: str
    kind: str | None
    symbols: list[dict[str, Any]] | None = Field(None, description="as `tg-query symbol --json`")
    stub: dict[str, Any] | None = Field(None, description="as `tg-query stub --json`")
    kernel: dict[str, Any] | None = Field(None, description="as `tg-query kernel --json`")
    callers: list[dict[str, Any]] | None = Field(None, description="as `tg-query callers --json`")


class SqlResult(Paged):
    columns: list[str]
    rows: list[dict[str, Any]] = Field(description="row objects, as `tg-query sql --json`")
