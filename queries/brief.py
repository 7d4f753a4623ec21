"""The brief forms: one line per key (kernels-for), per overload (trace), per op and kernel (ops-for).

An agent asks the short question first: what each dispatch key runs, where it
is defined, which stubs, registered kernels, __global__ kernels or library
calls lie below it and for which dtypes, without the chain's every step.
Each brief answer is data (for --json and MCP) and text made from that data.
Lists longer than LIST_CAP are cut and say how many more there were.
"""

from __future__ import annotations

import re
from typing import Any

from ..indexer.vocab import StepKind
from .api import KernelsFor, Reach, Trace

LIST_CAP = 2  # names shown per list in a brief text line; "+N" says how many more there are
DTYPES_CAP = 1  # dtype sets shown per key (the kernel's own first)
NATIVE = "aten/src/ATen/native/"  # the folder most locations are in: the text form states it once
_SCALAR_TYPE = re.compile(r"\b(?:at::ScalarType::|ScalarType::|k(?=[A-Z]))")


def _loc(file: str | None, line: int | None) -> dict[str, Any] | None:
    return None if file is None else {"file": file, "line": line}


def _names(steps: list[Any], kind: StepKind, name=lambda s: s.name) -> list[str]:
    return list(dict.fromkeys(name(s) for s in steps if s.kind == kind))


def _dtype_set(step: Any) -> str:
    """AT_DISPATCH_X_AND2(ALL_TYPES, at::ScalarType::Half, kBFloat16) -> 'ALL_TYPES,Half,BFloat16'."""
    detail = step.detail or ""
    inner = detail[detail.find("(") + 1:detail.rfind(")")] if "(" in detail else detail
    return ",".join(_SCALAR_TYPE.sub("", t.strip()) for t in inner.split(",") if t.strip())


def _library(step: Any) -> str:
    return f"{step.detail}:{step.name.split('::')[-1]}" if step.detail else step.name


def _launches(steps: list[Any]) -> list[str]:
    """The __global__ kernels launched; else the launch helpers used (gpu_kernel, parallel_for ...)."""
    kernels = _names(steps, StepKind.GLOBAL_KERNEL, lambda s: s.name.split("::")[-1])
    if kernels:
        return kernels
    return _names(steps, StepKind.LAUNCH, lambda s: s.detail if s.detail and "<<<" not in s.detail else s.name)


SAME_CHAIN = "same chain as "  # the API's note on a key whose chain it shows once, under an earlier key


def key_brief(k: Any) -> dict[str, Any]:
    """One dispatch key of a kernels-for answer, brief: kernel, definition and what lies below it."""
    steps = sorted(k.chain, key=lambda s: s.depth)  # the kernel's own dtype sets before its helpers'
    item: dict[str, Any] = {"key": k.key, "kernel": k.kernel, "origin": k.origin,
                            "definition": None if k.definition is None else _loc(k.definition.file, k.definition.line)}
    if k.via:
        item["via"] = k.via
    if k.note and k.definition is None:
        item["note"] = k.note
    item["stubs"] = _names(steps, StepKind.STUB)
    item["registered"] = _names(steps, StepKind.REGISTERED)
    item["launches"] = _launches(steps)
    item["library"] = _names(steps, StepKind.LIBRARY, _library)
    item["dtypes"] = _names(steps, StepKind.DTYPES, _dtype_set)
    return item


def _same_as(k: Any, item: dict[str, Any], earlier: list[dict[str, Any]]) -> str | None:
    """The earlier key whose line this one would repeat: the one the API shows this key's chain under, or
    one with the same kernel, definition and everything below it."""
    if k.note and k.note.startswith(SAME_CHAIN) and k.definition is not None:
        return k.note[len(SAME_CHAIN):]
    body = {f: v for f, v in item.items() if f != "key"}
    for other in earlier:
        if "same_as" not in other and other["definition"] is not None and \
                {f: v for f, v in other.items() if f != "key"} == body:
            return other["key"]
    return None


def kernels_for_brief(answer: KernelsFor) -> dict[str, Any]:
    """One op, brief: its entry, its meta function, one item per key, and where its backward is."""
    keys: list[dict[str, Any]] = []
    for k in answer.keys:
        item = key_brief(k)
        same = _same_as(k, item, keys)
        keys.append(item if same is None else
                    {"key": k.key, "kernel": k.kernel, "origin": k.origin, "definition": item["definition"],
                     "same_as": same})
    return {"op": answer.op, "location": _loc(answer.location.file, answer.location.line),
            "structured": answer.structured, "structured_delegate": answer.structured_delegate,
            "meta": None if answer.meta is None else _loc(answer.meta.file, answer.meta.line),
            "keys": keys, "backward": [_loc(b.location.file, b.location.line) for b in answer.backward]}


def _where(loc: dict[str, Any] | None) -> str:
    if loc is None:
        return ""
    file = loc["file"][len(NATIVE):] if loc["file"].startswith(NATIVE) else loc["file"]
    return f"{file}:{loc['line']}"


def _capped(label: str, names: list[str], cap: int = LIST_CAP) -> str:
    if not names:
        return ""
    more = f" +{len(names) - cap}" if len(names) > cap else ""
    return f"  {label} {', '.join(names[:cap])}{more}"


def key_brief_text(item: dict[str, Any]) -> str:
    note = item.get("note") or ""
    where = _where(item["definition"]) or ("[generated]" if "generated" in note else f"[{note}]")
    if "same_as" in item:
        return f"  {item['key']} = {item['same_as']}"
    line = f"  {item['key']}  {item['kernel']}  {where}" + (f"  via {item['via']}" if "via" in item else "")
    line += _capped("stub", item["stubs"]) + _capped("->", item["registered"])
    line += _capped("launch", item["launches"]) + _capped("lib", item["library"])
    return line + _capped("dtypes", item["dtypes"], DTYPES_CAP)


def kernels_for_brief_text(items: list[dict[str, Any]]) -> str:
    out = []
    for a in items:
        flags = "  structured" if a["structured"] else ""
        if a["structured_delegate"]:
            flags += f"  delegate {a['structured_delegate']}"
        meta = f"  meta {_where(a['meta'])}" if a["meta"] else ""
        backward = f"  backward {', '.join(_where(b) for b in a['backward'])}" if a["backward"] else ""
        out.append(f"{a['op']}  {_where(a['location'])}{flags}{meta}{backward}")
        out.extend(key_brief_text(k) for k in a["keys"])
        if not a["keys"]:
            out.append("  (no kernels for the keys asked)")
    return "\n".join(out) + f"\n(short paths are under {NATIVE})\n"


# -- trace ------------------------------------------------------------------------------------------


def trace_brief(trace: Trace) -> dict[str, Any]:
    """The Python path as names, and per op reached one item per overload: key -> kernel."""
    path = [h.name for h in trace.hops if h.kind not in ("op", "unresolved")]
    ops = []
    for o in trace.ops:
        overloads = [{"op": a.op, "location": _loc(a.location.file, a.location.line),
                      "keys": {k.key: k.kernel for k in a.keys}} for a in o.overloads]
        ops.append({"op": o.op, "reached_by": list(o.reached_by), "overloads": overloads,
                    "decompositions": list(dict.fromkeys(d.function for d in o.decompositions))})
    unresolved = [h.name for h in trace.hops if h.kind == "unresolved"]
    return {"name": trace.name, "resolved": trace.resolved, "path": path, "ops": ops, "unresolved": unresolved}


def trace_brief_text(data: dict[str, Any]) -> str:
    head = data["name"] if data["name"] == data["resolved"] else f"{data['name']} = {data['resolved']}"
    out = [head]
    if data["path"]:
        out.append("  path: " + " -> ".join(p.split(".")[-1] for p in data["path"]))
    for o in data["ops"]:
        via = f"  via {', '.join(o['reached_by'])}" if o["reached_by"] else ""
        out.append(f"  op {o['op']}{via}" + _capped("decomp", o["decompositions"]))
        for ov in o["overloads"]:
            keys = ", ".join(f"{key}:{kernel}" for key, kernel in ov["keys"].items())
            out.append(f"    {ov['op']}  {_where(ov['location'])}  {keys}")
    if data["unresolved"]:
        out.append("  unresolved: " + ", ".join(data["unresolved"]))
    return "\n".join(out) + "\n"


# -- ops-for ----------------------------------------------------------------------------------------


def ops_for_brief(hits: list[Reach]) -> list[dict[str, Any]]:
    """One item per (op, kernel) with the keys it serves, in the order found."""
    groups: dict[tuple[str, str], list[str]] = {}
    for h in hits:
        keys = groups.setdefault((h.op, h.kernel), [])
        if h.key not in keys:
            keys.append(h.key)
    return [{"op": op, "kernel": kernel, "keys": keys} for (op, kernel), keys in groups.items()]


def ops_for_brief_text(items: list[dict[str, Any]]) -> str:
    if not items:
        return "no op reaches it within the depth asked\n"
    return "".join(f"{i['op']:<40} {','.join(i['keys']):<26} {i['kernel']}\n" for i in items)


def brief(question: str, result: Any) -> tuple[Any, str]:
    """(data, text) of the brief form of an API answer: kernels_for (a list), trace, ops_for."""
    if question == "kernels_for":
        data = [kernels_for_brief(a) for a in result]
        return data, kernels_for_brief_text(data)
    if question == "trace":
        data = trace_brief(result)
        return data, trace_brief_text(data)
    data = ops_for_brief(result)
    return data, ops_for_brief_text(data)
