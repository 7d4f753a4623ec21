"""tg-query mcp over the real protocol: the SDK's own client talks to the server subprocess over stdio.

The structured results are checked against the CLI's JSON for the same question on the real 2.6.0
index, errors against the CLI's one line, and a long answer for being cut, saying so, and going on
from next_offset.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tg_index.queries.paging import BUDGET

from .conftest import BIN, real_tree, run

TOOLS = {"kernels_for", "dispatch", "trace", "ops_for", "op", "find", "sql"}

# (label, tool, arguments): every call the module makes, in one server session.
CALLS = [
    ("kf_brief", "kernels_for", {"op": "add.out"}),
    ("kf_full", "kernels_for", {"op": "add.out", "keys": ["CUDA", "CPU"], "brief": False}),
    ("kf_bare_brief", "kernels_for", {"op": "mm"}),
    ("trace_full", "trace", {"name": "nn.LayerNorm", "brief": False}),
    ("trace_brief", "trace", {"name": "nn.LayerNorm"}),
    ("ops_for_full", "ops_for", {"name": "softplus_kernel", "brief": False}),
    ("ops_for_brief", "ops_for", {"name": "softplus_kernel"}),
    ("op", "op", {"name": "relu"}),
    ("find_stub", "find", {"name": "softplus_stub", "kind": "stub"}),
    ("find_symbol", "find", {"name": "add.Tensor", "kind": "symbol"}),
    ("find_kernel", "find", {"name": "sparseElementwiseKernelScalar", "kind": "kernel"}),
    ("find_callers", "find", {"name": "gpu_kernel_with_scalars", "kind": "callers"}),
    ("find_any", "find", {"name": "softplus_stub"}),
    ("sql", "sql", {"query": "SELECT key, count(*) AS n FROM dispatch GROUP BY key ORDER BY n DESC LIMIT 5"}),
    ("sql_cut", "sql", {"query": "SELECT name FROM ops ORDER BY id", "limit": 5}),
    ("sql_next", "sql", {"query": "SELECT name FROM ops ORDER BY id", "limit": 5, "offset": 5}),
    ("unknown_op", "kernels_for", {"op": "add.outt"}),
    ("long", "kernels_for", {"op": "add", "brief": False, "depth": 0}),
]


async def _session(db: Path, calls: list[tuple[str, str, dict[str, Any]]], follow: str | None = None):
    """List the tools and make the calls; with follow, page that label's answer to its end."""
    params = StdioServerParameters(command=str(BIN / "tg-query"), args=["--db", str(db), "mcp"])
    out: dict[str, Any] = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = (await session.list_tools()).tools
            for label, tool, args in calls:
                out[label] = await session.call_tool(tool, args)
            if follow is not None:
                tool, args = next((t, a) for label, t, a in calls if label == follow)
                pages = [out[follow]]
                while pages[-1].structured_content["next_offset"] is not None:
                    offset = pages[-1].structured_content["next_offset"]
                    pages.append(await session.call_tool(tool, {**args, "offset": offset}))
                out["pages"] = pages
    return out


@pytest.fixture(scope="module")
def real_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tg_index.indexer.build import build

    db = tmp_path_factory.mktemp("mcp-real") / "index.db"
    build(real_tree("2.6.0"), db)
    return db


@pytest.fixture(scope="module")
def answers(real_db: Path) -> dict[str, Any]:
    return anyio.run(_session, real_db, CALLS, "long")


def cli_json(db: Path, *args: str) -> Any:
    done = run("tg-query", "--db", str(db), *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def cli_text(db: Path, *args: str) -> str:
    done = run("tg-query", "--db", str(db), *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def listed(data: Any) -> list[Any]:
    return data if isinstance(data, list) else [data]


def whole(result: Any) -> dict[str, Any]:
    """The structured content of an answer that was not cut."""
    assert not result.is_error, result.content[0].text
    data = result.structured_content
    assert data["truncated"] is False and data["next_offset"] is None and data["note"] is None
    assert data["offset"] == 0 and data["returned"] == data["total"]
    return data


pytestmark = pytest.mark.integration


def test_tools_are_listed_with_descriptions_and_output_schemas(answers):
    tools = {t.name: t for t in answers["tools"]}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert "Example: " + tool.name + "(" in tool.description
        assert tool.output_schema["type"] == "object"
        assert {"truncated", "next_offset", "note"} <= set(tool.output_schema["properties"])
        assert tool.annotations.read_only_hint is True


def test_kernels_for_matches_the_cli(answers, real_db):
    brief = whole(answers["kf_brief"])
    assert brief["answers"] == listed(cli_json(real_db, "kernels-for", "add.out", "--brief"))
    assert answers["kf_brief"].content[0].text == cli_text(real_db, "kernels-for", "add.out", "--brief")
    assert [k["key"] for k in brief["answers"][0]["keys"]] == [
        "CPU", "CUDA", "Meta", "MPS", "SparseCPU", "SparseMeta", "SparseCUDA", "SparseCsrCPU", "SparseCsrMeta",
        "SparseCsrCUDA", "MkldnnCPU"]
    full = whole(answers["kf_full"])
    assert full["answers"] == listed(cli_json(real_db, "kernels-for", "add.out", "--key", "CUDA", "--key", "CPU"))
    bare = whole(answers["kf_bare_brief"])
    assert [a["op"] for a in bare["answers"]] == ["mm", "mm.out"]
    assert bare["answers"] == cli_json(real_db, "kernels-for", "mm", "--brief")


def test_trace_and_ops_for_match_the_cli(answers, real_db):
    full = whole(answers["trace_full"])
    cli = cli_json(real_db, "trace", "nn.LayerNorm")
    assert (full["name"], full["resolved"], full["hops"], full["ops"]) == (cli["name"], cli["resolved"], cli["hops"],
                                                                            cli["ops"])
    brief = whole(answers["trace_brief"])
    cli = cli_json(real_db, "trace", "nn.LayerNorm", "--brief")
    assert {k: brief[k] for k in cli} == cli
    assert brief["path"] == ["torch.nn.modules.normalization.LayerNorm",
                             "torch.nn.modules.normalization.LayerNorm.forward", "torch.nn.functional.layer_norm"]
    reached = cli_json(real_db, "ops-for", "softplus_kernel")
    reached = reached["reached"] if isinstance(reached, dict) else reached  # {"name", "reached"} since results.py
    assert whole(answers["ops_for_full"])["hits"] == reached
    assert whole(answers["ops_for_brief"])["hits"] == [
        # math_mish_backward calls at::softplus (aten/src/ATen/native/Activation.cpp:570): a redispatch
        {"op": "mish_backward", "kernel": "math_mish_backward", "keys": ["CompositeImplicitAutograd"]},
        {"op": "softplus", "kernel": "softplus_out", "keys": ["CPU", "CUDA"]},
        {"op": "softplus.out", "kernel": "softplus_out", "keys": ["CPU", "CUDA"]}]
    assert whole(answers["ops_for_brief"])["hits"] == cli_json(real_db, "ops-for", "softplus_kernel", "--brief")


def test_op_find_and_sql_match_the_cli(answers, real_db):
    assert whole(answers["op"])["entries"] == listed(cli_json(real_db, "op", "relu"))
    assert whole(answers["find_stub"])["stub"] == cli_json(real_db, "stub", "softplus_stub")
    assert whole(answers["find_symbol"])["symbols"] == cli_json(real_db, "symbol", "add.Tensor")
    assert whole(answers["find_kernel"])["kernel"] == cli_json(real_db, "kernel", "sparseElementwiseKernelScalar")
    assert whole(answers["find_callers"])["callers"] == cli_json(real_db, "callers", "gpu_kernel_with_scalars")
    anything = whole(answers["find_any"])
    assert anything["stub"] == cli_json(real_db, "stub", "softplus_stub")
    assert (anything["symbols"], anything["kernel"], anything["callers"]) == (
        None, None, cli_json(real_db, "callers", "softplus_stub"))
    query = CALLS[[c[0] for c in CALLS].index("sql")][2]["query"]
    sql = whole(answers["sql"])
    assert sql["rows"] == cli_json(real_db, "sql", query)
    assert sql["columns"] == ["key", "n"]


def test_unknown_op_is_a_tool_error_with_the_cli_line(answers, real_db):
    result = answers["unknown_op"]
    done = run("tg-query", "--db", str(real_db), "kernels-for", "add.outt")
    assert result.is_error is True
    assert result.content[0].text == done.stderr.strip() == (
        "error: unknown op 'add.outt'; did you mean 'add.out', 'addr.out', 'addmv.out'?")


def test_a_long_answer_is_cut_says_so_and_goes_on(answers, real_db):
    first = answers["long"]
    data = first.structured_content
    size = len(json.dumps(data, separators=(",", ":")).encode()) + len(first.content[0].text.encode())
    assert size <= BUDGET
    assert data["truncated"] is True and data["offset"] == 0 and data["next_offset"] == data["returned"]
    assert data["total"] == sum(len(a["keys"]) for a in listed(cli_json(real_db, "kernels-for", "add", "--depth", "0")))
    assert data["note"].startswith(f"truncated (cut at {BUDGET} bytes): keys 0-{data['returned'] - 1} of "
                                   f"{data['total']} shown; call again with offset={data['next_offset']} for the rest")
    assert first.content[0].text.endswith(f"[{data['note']}]\n")
    # The pages, joined, are the CLI's whole answer; a key too big for a page on its own (add.out SparseCUDA)
    # comes alone, says so, and carries the first steps of its chain.
    keys = [(a["op"], k, "itself cut" in (page.structured_content["note"] or "")) for page in answers["pages"]
            for a in page.structured_content["answers"] for k in a["keys"]]
    cli = [(a["op"], k) for a in listed(cli_json(real_db, "kernels-for", "add", "--depth", "0")) for k in a["keys"]]
    assert len(keys) == len(cli)
    for (op, key, was_cut), (cli_op, cli_key) in zip(keys, cli):
        if not was_cut:
            assert (op, key) == (cli_op, cli_key)
        else:
            assert (op, key["key"]) == (cli_op, cli_key["key"])
            assert key["chain"] and key["chain"] == cli_key["chain"][:len(key["chain"])]
    assert answers["pages"][-1].structured_content["next_offset"] is None
    cut, rest = answers["sql_cut"].structured_content, answers["sql_next"].structured_content
    names = [r[0] for r in sqlite3.connect(real_db).execute("SELECT name FROM ops ORDER BY id LIMIT 10")]
    assert [r["name"] for r in cut["rows"] + rest["rows"]] == names
    assert (cut["truncated"], cut["returned"], cut["next_offset"]) == (True, 5, 5)
    assert cut["note"] == (f"truncated (limit 5): rows 0-4 of {cut['total']} shown; call again with offset=5 for "
                           "the rest, or select fewer columns or rows")


def test_no_index_and_a_stale_schema_are_tool_errors(tmp_path: Path):
    absent = tmp_path / "absent.db"
    stale = tmp_path / "stale.db"
    with sqlite3.connect(stale) as conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', '0')")
    for db in (absent, stale):
        result = anyio.run(_session, db, [("op", "op", {"name": "relu"})])["op"]
        done = run("tg-query", "--db", str(db), "op", "relu")
        assert result.is_error is True
        assert result.content[0].text == done.stderr.strip()
    assert done.stderr.strip().startswith(f"error: {stale} was written with schema version 0, this tg-query reads")


def test_help_and_readme():
    done = run("tg-query", "mcp", "--help")
    assert done.returncode == 0 and "tg-query mcp" in done.stdout
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    assert "### tg-query mcp" in readme and '{"command": "tg-query", "args": ["mcp"]}' in readme
