"""The context an agent spends on a question, and the MCP call latency (`make bench`).

    python tests/bench_context.py [TREE] [--db INDEX]   # default tree: $TG_TEST_PYTORCH_2_6_0

For each of OPS: the bytes of `tg-query kernels-for OP --brief`, of `--json`, and of what the five
grep steps of the hand-tracing workflow print on the same checkout (run with grep, as an agent runs
them). Then the median latency of kernels_for add.out over 100 calls: through the MCP server (the
SDK's stdio client), in-process through the API, and as a `tg-query` process. Without --db the
tree is indexed into a temporary folder first.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
NATIVE_YAML = "aten/src/ATen/native/native_functions.yaml"
DERIVATIVES = "tools/autograd/derivatives.yaml"
OPS = ["add.out", "mul.Tensor", "relu", "_softmax", "mm", "addmm", "bmm", "convolution", "cudnn_convolution",
       "native_layer_norm", "native_batch_norm", "embedding", "index_select", "sum.dim_IntList", "mean.dim",
       "gelu", "cat", "max_pool2d_with_indices", "topk", "_scaled_dot_product_flash_attention"]
CALLS = 100


def _grep(tree: Path, *args: str) -> bytes:
    return subprocess.run(["grep", *args], cwd=tree, capture_output=True).stdout


def _kernels(entry: str, device: str) -> list[str]:
    """The kernels a dispatch: section names for the device's own key (CPU: also the composite keys)."""
    names = []
    for keys, kernel in re.findall(r"^\d+[-:]\s+([\w, ]+):\s*(\w+)\s*$", entry, re.M):
        if any(k.strip() == device or (device == "CPU" and k.strip().startswith("Composite")) for k in keys.split(",")):
            names.append(kernel)
    return list(dict.fromkeys(names))


def grep_steps(tree: Path, op: str) -> list[bytes]:
    """The five steps: the entry, its dispatch: section, the CPU function in native/*.cpp, the CUDA one in
    native/cuda/ and cudnn/, the derivatives.yaml entry."""
    base, _, overload = op.partition(".")
    exact = re.escape(base) + (r"\." + re.escape(overload) if overload else "")
    first = _grep(tree, "-n", "-E", rf"^- func: {re.escape(base)}[.(]", NATIVE_YAML)
    entry = _grep(tree, "-n", "-A", "20", "-E", rf"^- func: {exact}\(", NATIVE_YAML)
    text = re.split(r"\n\d+-- func:", entry.decode(errors="replace"))[0]  # the entry, not the ones after it
    guess = [base, f"{base}_out", f"{base}_kernel"]  # no kernel named for the key: the names an agent tries
    cpu = _kernels(text, "CPU") or guess
    cuda = _kernels(text, "CUDA") or guess
    native = sorted(str(p.relative_to(tree)) for p in (tree / "aten/src/ATen/native").glob("*.cpp"))
    third = _grep(tree, "-n", "-w", "-E", "|".join(cpu), *native)
    fourth = _grep(tree, "-rn", "-w", "-E", "|".join(cuda), "aten/src/ATen/native/cuda", "aten/src/ATen/native/cudnn")
    fifth = _grep(tree, "-n", "-A", "10", "-E", rf"^- name: {re.escape(base)}[.(]", DERIVATIVES)
    return [first, entry, third, fourth, fifth]


def sizes(ix, tree: Path) -> list[tuple[str, int, int, int]]:
    from tg_index.queries import brief, render

    rows = []
    for op in OPS:
        answers = ix.kernels_for(op)
        short = brief.brief("kernels_for", answers)[1]
        full = json.dumps(render.one_or_many_data([render.kernels_for_data(a) for a in answers]), indent=2) + "\n"
        rows.append((op, len(short.encode()), len(full.encode()), sum(len(s) for s in grep_steps(tree, op))))
    return rows


async def _alternating(ix, db: Path) -> tuple[list[float], list[float]]:
    """kernels_for add.out (brief) CALLS times through the MCP server and through the API, alternately, so that
    both see the same machine load."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from tg_index.queries import brief

    params = StdioServerParameters(command=str(BIN / "tg-query"), args=["--db", str(db), "mcp"])
    mcp, api = [], []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("kernels_for", {"op": "add.out"})  # the server opens the index
            brief.brief("kernels_for", ix.kernels_for("add.out"))
            for _ in range(CALLS):
                start = time.perf_counter()
                result = await session.call_tool("kernels_for", {"op": "add.out"})
                mcp.append(time.perf_counter() - start)
                assert not result.is_error
                start = time.perf_counter()
                brief.brief("kernels_for", ix.kernels_for("add.out"))
                api.append(time.perf_counter() - start)
    return mcp, api


def latencies(ix, db: Path) -> dict[str, float]:
    import anyio

    mcp, api = anyio.run(_alternating, ix, db)
    cli = []
    for _ in range(CALLS // 5):
        start = time.perf_counter()
        subprocess.run([str(BIN / "tg-query"), "--db", str(db), "kernels-for", "add.out", "--brief"],
                       capture_output=True, check=True)
        cli.append(time.perf_counter() - start)
    return {"mcp": statistics.median(mcp), "api": statistics.median(api), "cli": statistics.median(cli)}


def main() -> None:
    args = sys.argv[1:]
    db_arg = args[args.index("--db") + 1] if "--db" in args else None
    rest = [a for i, a in enumerate(args) if a != "--db" and (i == 0 or args[i - 1] != "--db")]
    tree = Path(rest[0] if rest else os.environ.get("TG_TEST_PYTORCH_2_6_0", "")).expanduser()
    if not (tree / NATIVE_YAML).is_file():
        sys.exit(f"error: no PyTorch tree at {tree}; run `make sources` or pass its path")
    from tg_index.queries.api import Index

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(db_arg) if db_arg else Path(tmp) / "index.db"
        if db_arg is None:
            subprocess.run([str(BIN / "tg-index"), str(tree), "--db", str(db), "--quiet"], check=True)
        ix = Index.open(db)
        rows = sizes(ix, tree)
        print(f"{'op':<38} {'--brief':>8} {'--json':>9} {'5 greps':>9}")
        for op, short, full, grep in rows:
            print(f"{op:<38} {short:>8} {full:>9} {grep:>9}")
        totals = [sum(r[i] for r in rows) for i in (1, 2, 3)]
        print(f"{'total (' + str(len(rows)) + ' ops)':<38} {totals[0]:>8} {totals[1]:>9} {totals[2]:>9}")
        print(f"median over ops: --brief {statistics.median(r[1] for r in rows):.0f} B, --json "
              f"{statistics.median(r[2] for r in rows):.0f} B, greps {statistics.median(r[3] for r in rows):.0f} B")
        lat = latencies(ix, db)
        print(f"kernels_for add.out (brief), median: MCP call {lat['mcp'] * 1000:.1f} ms over {CALLS}, "
              f"API {lat['api'] * 1000:.1f} ms over {CALLS}, tg-query process {lat['cli'] * 1000:.0f} ms over "
              f"{CALLS // 5}")


if __name__ == "__main__":
    main()
