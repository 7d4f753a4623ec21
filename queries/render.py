"""Turning API results into text for people or JSON for agents."""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Any, Iterable

from ..indexer.facts import Location
from ..indexer.vocab import Origin, StepKind
from . import json_text
from .backward import BackwardUse
from .results import (META_STEP, CallShares, Backward, block_parents, Health, Hop, HopKind, KernelInfo, KernelsFor, KeyKernel, OpInfo, OpsFor,
                      OpSummary,
                      Step, StubInfo, StubSite, Symbol, Trace, TraceOp, Truncation, Use, to_data, truncation_data)

# The steps that are ops a kernel's own body calls (a redispatch, or an op named by a formula).
_OPS_CALLED = (StepKind.OP, StepKind.REDISPATCH)


class Format(str, Enum):
    """The output of every read command."""

    text = "text"
    json = "json"
    jsonl = "jsonl"


class ChainFormat(str, Enum):
    """kernels-for also draws its chain."""

    text = "text"
    json = "json"
    jsonl = "jsonl"
    dot = "dot"
    mermaid = "mermaid"


def pick(fmt: Format | ChainFormat | None, as_json: bool) -> str:
    """--json wins; otherwise the --format given, text by default."""
    if as_json:
        return "json"
    return fmt.value if fmt is not None else "text"


def emit_json(data: Any) -> None:
    """The text of json.dump(data, indent=2) and a newline (queries/json_text.py writes it faster)."""
    sys.stdout.write(json_text.indented(data) + "\n")


def emit_jsonl(items: Iterable[Any]) -> None:
    write = sys.stdout.write
    for item in items:
        write(json.dumps(to_data(item), separators=(",", ":")))
        write("\n")


def emit_jsonl_data(items: Iterable[Any]) -> None:
    for item in items:
        sys.stdout.write(json.dumps(item, separators=(",", ":")) + "\n")


def one_or_many(items: list[Any]) -> Any:
    """A single answer is an object; several (a bare name with overloads) a list of them."""
    return one_or_many_data(to_data(items))


def one_or_many_data(data: list[Any]) -> Any:
    return data[0] if len(data) == 1 else data


def _table(rows: list[tuple[str, ...]], indent: str = "  ") -> list[str]:
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1] for r in rows]


def backward_lines(backward: tuple[Backward, ...]) -> list[str]:
    """Each entry with its formulas; an entry lent by another op says from which and how it applies. An out= form
    shows only the entry's place: tools/autograd records no grad_fn for it, so its formulas never run."""
    lines = []
    for b in backward:
        head = f"  backward  {b.location}"
        if b.dispatch_key:
            head += f"  [{b.dispatch_key}]"
        if b.output_differentiability is not None:
            head += f"  output_differentiability={list(b.output_differentiability)}"
        if b.note:
            head += f"  from {b.from_op} ({b.note})"
        lines.append(head)
        if b.applies_as == BackwardUse.OUT:
            continue
        for f in b.formulas:
            mark = "" if f.kind == "input" else "  (forward)"
            lines.append(f"    {', '.join(f.names)}: {f.formula}{mark}  {f.location}")
    return lines


def _step_data(step: Step) -> dict[str, Any]:
    """A step as JSON: kind, name, file, line and depth always; device, detail, how, site and parent (the index
    in the chain of the step it was found below) when set."""
    data = {"kind": step.kind, "name": step.name, "file": step.file, "line": step.line, "depth": step.depth}
    for extra in ("device", "detail", "how"):
        if getattr(step, extra) is not None:
            data[extra] = getattr(step, extra)
    if step.site is not None:
        data["site"] = {"file": step.site.file, "line": step.site.line}
    if step.parent is not None:
        data["parent"] = step.parent
    return data


def kernels_for_data(answer: KernelsFor) -> dict[str, Any]:
    """The JSON of one op: every key with its whole chain (a key sharing an earlier key's chain says `same_as`),
    None fields of steps left out."""
    keys = []
    for k in answer.keys:
        item = {"key": k.key, "kernel": k.kernel, "origin": k.origin, "cpp_namespace": k.cpp_namespace,
                "yaml": to_data(k.location),
                "definition": None if k.definition is None else {**to_data(k.definition), "name": k.qualified_name},
                "chain": [_step_data(s) for s in k.chain]}
        if k.via:
            item["via"] = k.via
        if k.note:
            item["note"] = k.note
        if k.same_as:
            item["same_as"] = k.same_as
        if k.wrapper is not None:
            item["wrapper"] = _step_data(k.wrapper)
        item.update(truncation_data(k.truncated))
        keys.append(item)
    return {"op": answer.op, "func": answer.func, "location": to_data(answer.location),
            "structured": answer.structured, "structured_delegate": answer.structured_delegate,
            "keys": keys, "meta": None if answer.meta is None else _step_data(answer.meta),
            "backward": to_data(answer.backward), "backward_calls": [_step_data(s) for s in answer.backward_calls]}


_ORIGIN_NOTE = {Origin.UFUNC: "[generated from ufunc_inner_loop]", Origin.AUTOGEN: "[generated by autogen]",
                Origin.COMPOSITE_IMPLICIT: "[no dispatch: entry]"}


def _where(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file else ""


_STEP_LABELS = {StepKind.REGISTERED: "->", StepKind.CALL: "calls", StepKind.GLOBAL_KERNEL: "__global__",
                META_STEP: "meta"}  # every other kind is its own label


def _step_text(step: Step) -> str:
    label = _STEP_LABELS.get(step.kind, step.kind)
    where = " ".join(x for x in (step.device, step.detail if step.kind == StepKind.REGISTERED else None) if x)
    name = step.name if step.kind != StepKind.DTYPES else f"{step.name} {step.detail}"
    if step.kind in (StepKind.LAUNCH, StepKind.LIBRARY) and step.detail:
        name = f"{step.name} ({step.detail})"
    head = f"{label} {where} {name}" if where else f"{label} {name}"
    site = f"  (at {_where(step.site.file, step.site.line)})" if step.site is not None else ""
    return f"{head}  {_where(step.file, step.line)}{site}".rstrip()


def _wrapper_lines(k: KeyKernel) -> list[str]:
    """The generated wrapper a key's kernel is registered through (--codegen's Register<Key>.cpp), if known."""
    w = k.wrapper
    if w is None:
        return []
    impl = f"  (m.impl at {_where(w.site.file, w.site.line)})" if w.site is not None else ""
    return [f"      registered by the generated wrapper {w.name}  {_where(w.file, w.line)}{impl}"]


def kernels_for_text(answers: list[KernelsFor]) -> str:
    out = []
    for a in answers:
        out.append(f"aten::{a.func or a.op}")
        flags = []
        if a.structured:
            flags.append("structured")
        if a.structured_delegate:
            flags.append(f"structured_delegate: {a.structured_delegate}")
        out.append(f"  {a.location}" + (f"  {'  '.join(flags)}" if flags else ""))
        if a.meta is not None:
            out.append(f"  meta  {a.meta.name}  {_where(a.meta.file, a.meta.line)}")
        shown: set[str | None] = set()
        for k in a.keys:
            note = f"[via {k.via}]" if k.via else _ORIGIN_NOTE.get(k.origin, "")
            where = str(k.definition) if k.definition else f"(yaml {k.location})"
            kernel = (f"{k.cpp_namespace}::" if k.cpp_namespace else "") + k.kernel + (f" {note}" if note else "")
            if k.same_as in shown:  # a page (MCP) may hold the key without the one it shares a chain with
                out.append(f"  {k.key:<14} same kernel and chain as {k.same_as}")
                out.extend(_wrapper_lines(k))
                continue
            shown.add(k.key)
            out.append(f"  {k.key:<14} {kernel}  {where}")
            if k.note:
                out.append(f"      note: {k.note}")
            out.extend(_wrapper_lines(k))
            out.extend(chain_lines(k.chain))
            out.extend(truncation_lines(k.truncated, "      "))
        if not a.keys:
            out.append("  (no kernels for the keys asked)")
        out.extend(backward_lines(a.backward))
        if a.backward_calls:
            out.append("    calls: " + ", ".join(s.name for s in a.backward_calls))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def tree_order(chain: tuple[Step, ...] | list[Step]) -> list[int]:
    """The indices of a chain's steps with each step's subtree right after it (children in the chain's order): the
    chain itself is breadth-first, as the walk found it, and its `parent` indices make it a tree. A step without a
    parent, or with one that does not come before it, is a root."""
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, step in enumerate(chain):
        if step.parent is not None and 0 <= step.parent < i:
            children.setdefault(step.parent, []).append(i)
        else:
            roots.append(i)
    order: list[int] = []
    todo = roots[::-1]
    while todo:
        i = todo.pop()
        order.append(i)
        todo.extend(children.get(i, ())[::-1])
    return order


def chain_lines(chain: tuple[Step, ...] | list[Step], indent: str = "      ") -> list[str]:
    """A chain as text: one line per step, each below the step it was found under, indented by its depth."""
    return [indent + "  " * chain[i].depth + _step_text(chain[i]) for i in tree_order(chain)]


def _graph_edges(answers: list[KernelsFor]) -> list[tuple[str, str, str]]:
    """(from, to, label) edges of the chain: op -> key kernel -> steps, each from the step it lies below
    (results.block_parents: its parent, or the head of its block), or from the kernel."""
    edges = []
    for a in answers:
        for k in a.keys:
            top = f"{k.cpp_namespace}::{k.kernel}"
            edges.append((a.op, top, k.key))
            names = [s.name if s.kind != StepKind.DTYPES else f"{s.name}: {s.detail}" for s in k.chain]
            for i, (step, above) in enumerate(zip(k.chain, block_parents(k.chain))):
                parent = names[above] if above is not None and 0 <= above < i else top
                edges.append((parent, names[i], step.kind))
    return list(dict.fromkeys(edges))


def kernels_for_dot(answers: list[KernelsFor]) -> str:
    lines = ["digraph kernels_for {", "  rankdir=LR;", "  node [shape=box, fontsize=10];"]
    for a, b, label in _graph_edges(answers):
        lines.append(f"  {json.dumps(a)} -> {json.dumps(b)} [label={json.dumps(label)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def kernels_for_mermaid(answers: list[KernelsFor]) -> str:
    ids: dict[str, str] = {}

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = f"n{len(ids)}"
        text = name.replace('"', "'")
        return f'{ids[name]}["{text}"]'

    lines = ["flowchart LR"]
    for a, b, label in _graph_edges(answers):
        lines.append(f"  {node(a)} -->|{label}| {node(b)}")
    return "\n".join(lines) + "\n"


def op_text(infos: list[OpInfo]) -> str:
    out = []
    for i in infos:
        out.append(f"aten::{i.func or i.name}")
        out.append(f"  {i.location}  kind={i.kind}  variants={', '.join(i.variants)}")
        if i.tags:
            out.append(f"  tags: {', '.join(i.tags)}")
        skip = {"func", "variants", "tags", "dispatch"}
        for key, value in i.fields.items():
            if key not in skip:
                out.append(f"  {key}: {json.dumps(value) if not isinstance(value, str) else value}")
        if i.generated_from:
            out.append(f"  generated by autogen of {i.generated_from}")
        if i.siblings:
            out.append(f"  overloads: {', '.join(i.siblings)}")
        out.extend(backward_lines(i.backward))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def ops_text(ops: list[OpSummary]) -> str:
    rows = [(o.name, o.kind, "structured" if o.structured else "", ",".join(o.tags), str(o.location)) for o in ops]
    lines = _table(rows, indent="")
    lines.append(f"{len(ops)} ops")
    return "\n".join(lines) + "\n"


def sql_text(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    if not columns:
        return "(no result)\n"
    cells = [tuple(columns)] + [tuple("NULL" if v is None else str(v) for v in r) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append(f"({len(rows)} rows)")
    return "\n".join(lines) + "\n"


def symbols_text(symbols: list[Symbol]) -> str:
    rows = [(s.kind, s.qualified_name, f"{s.location}-{s.end_line}") for s in symbols]
    lines = _table(rows, indent="")
    for s in symbols:
        if s.macro:
            lines.append(f"{s.qualified_name}: {s.macro}({s.name})")
    return "\n".join(lines) + "\n"


def _device_arch(s: StubSite) -> str:
    return " ".join(x for x in (s.device, s.arch) if x)


def _site(s: StubSite, width: int = 14) -> str:
    target = "nullptr" if s.is_nullptr else (s.kernel or "")
    return f"  {_device_arch(s):<{width}} {target:<40} {s.macro}  {s.location}"


def stub_text(info: StubInfo) -> str:
    out = [info.stub]
    out.extend(f"  declared  {s.location}" for s in info.declarations)
    out.extend(f"  defined   {s.location}" + (f"  ({s.macro})" if s.macro != "DEFINE_DISPATCH" else "")
               for s in info.definitions)
    out.append(f"  registrations ({len(info.registrations)}):")
    width = max([14, *(len(_device_arch(s)) for s in info.registrations)])  # "CPU every capability" is wider
    out.extend("  " + _site(s, width) for s in info.registrations)
    out.append(f"  callers ({len(info.callers)}):")
    out.extend(f"    {u.caller or '(namespace scope)'}  [{u.how}]  {u.location}" for u in info.callers)
    return "\n".join(out) + "\n"


def uses_text(uses: list[Use] | tuple[Use, ...], indent: str = "") -> str:
    rows = [(u.caller or "(namespace scope)", u.name, u.how, str(u.location)) for u in uses]
    return "\n".join(_table(rows, indent=indent)) + "\n"


def kernel_text(info: KernelInfo) -> str:
    out = [info.name]
    out.extend(f"  defined  {d.qualified_name}  {d.location}-{d.end_line}" for d in info.definitions)
    out.append(f"  launches ({len(info.launches)}):")
    out.append(uses_text(info.launches, indent="    ").rstrip("\n"))
    if info.dtypes:
        out.append("  dtypes (AT_DISPATCH in the launching functions):")
        out.extend(f"    {t.macro}({', '.join(t.dtypes)}) {t.name or ''}  in {t.function}  {t.location}"
                   for t in info.dtypes)
    return "\n".join(out) + "\n"


def doctor_text(health: Health, show: int = 10) -> str:
    out = ["key                              rows  defined  generated  unresolved"]
    for k in health.keys:
        out.append(f"{k.key:<30} {k.rows:6} {k.defined:8} {k.generated:10} {k.unresolved:7} "
                   f"({100 * k.unresolved_share:.1f}%)")
    groups: dict[str, list] = {}
    for u in health.unresolved:
        groups.setdefault(u.reason, []).append(u)
    for reason, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append("")
        out.append(f"{reason}: {len(items)}")
        for u in items[:show]:
            out.append(f"  {u.op:<40} {u.key:<24} {u.kernel}  {u.location}")
        if len(items) > show:
            out.append(f"  ... {len(items) - show} more (--all shows every one)")
    if health.calls is not None:
        out.extend(_call_share_lines(health.calls, show))
    if health.partial_files:
        out.append("")
        out.append(f"files whose extraction failed (their facts may be incomplete): {len(health.partial_files)}")
        out.extend(f"  {p.file}  {p.status}" for p in health.partial_files[:show])
        if len(health.partial_files) > show:
            out.append(f"  ... {len(health.partial_files) - show} more (--all shows every one)")
    return "\n".join(out) + "\n"


def _call_share_lines(c: CallShares, show: int) -> list[str]:
    pct = lambda n: f"{100 * c.share(n):.1f}%"  # noqa: E731
    out = ["", f"calls written under {c.folder}: {c.sites} call sites",
           f"  one definition in the checkout  {c.one_definition:7} {pct(c.one_definition):>6}",
           f"  a named class                   {c.named_class:7} {pct(c.named_class):>6}   "
           "(op through the dispatcher, Tensor method, vendor, standard library, macro, type, generated)",
           f"  one template or overload set    {c.several:7} {pct(c.several):>6}   (the argument types pick among them; "
           "overrides: the object)",
           f"  one per build configuration     {c.per_build:7} {pct(c.per_build):>6}   (exclusive #if guards)",
           f"  unresolved                      {c.unresolved:7} {pct(c.unresolved):>6}   (ambiguous, not in the checkout, "
           "through a parameter)",
           "  by how: " + ", ".join(f"{h} {n}" for h, n in c.by_how)]
    if c.operators:
        out.append(f"operator expressions on class operands under {c.folder} (implicit calls, not counted above): "
                   f"{sum(n for _h, n in c.operators)} sites")
        out.append("  by how: " + ", ".join(f"{h} {n}" for h, n in c.operators))
    if c.top_unresolved:
        out.append(f"  most frequent unresolved (of {c.unresolved}):")
        out.extend(f"    {how:<16} {n:6}  {target}" for how, target, n in c.top_unresolved[:show])
    return out


def doctor_data(health: Health) -> dict[str, Any]:
    data = {"keys": [{**to_data(k), "unresolved_share": round(k.unresolved_share, 4)} for k in health.keys],
            "unresolved": to_data(health.unresolved), "partial_count": len(health.partial_files),
            "partial_files": to_data(health.partial_files)}
    if health.calls is not None:
        c = health.calls
        data["calls"] = {"folder": c.folder, "sites": c.sites, "by_how": dict(c.by_how),
                         "one_definition": c.one_definition, "named_class": c.named_class, "several": c.several,
                         "unresolved": c.unresolved, "per_build": c.per_build,
                         "resolved_share": round(c.share(c.one_definition + c.named_class), 4),
                         "top_unresolved": [{"how": h, "target": t, "sites": n} for h, t, n in c.top_unresolved],
                         "operators": dict(c.operators)}
    return data


def truncation_lines(cuts: tuple[Truncation, ...], indent: str = "") -> list[str]:
    """One line per limit that cut a result: `truncated: <what> (limit N): names ...`."""
    return [f"{indent}truncated: {cut}" for cut in cuts]


def reach_text(found: OpsFor) -> str:
    out = [] if found.hits else ["no op reaches it within the depth asked"]
    for h in found.hits:
        out.append(f"{h.op:<40} {h.key:<26} {h.kernel}")
        out.append("    " + " -> ".join(h.path))
    out.extend(truncation_lines(found.truncated))
    return "\n".join(out) + "\n"


def reach_data(found: OpsFor) -> dict[str, Any]:
    """{"name", "reached": [{"op", "key", "kernel", "path"}], and "truncated"/"limits" when a limit cut the walk}."""
    return {"name": found.name, "reached": to_data(found.hits), **truncation_data(found.truncated)}


def reach_items(found: OpsFor) -> list[dict[str, Any]]:
    """JSON lines: one per hit, then one {"truncated", "limits"} line when a limit cut the walk."""
    return to_data(found.hits) + ([truncation_data(found.truncated)] if found.truncated else [])


# -- trace ------------------------------------------------------------------------------------------


def _loc_data(loc: Location | None) -> dict[str, Any] | None:
    return None if loc is None else {"file": loc.file, "line": loc.line}


def _hop_data(hop: Hop) -> dict[str, Any]:
    data: dict[str, Any] = {"depth": hop.depth, "kind": hop.kind, "name": hop.name}
    for field_name in ("via", "target", "note", "plumbing"):
        if getattr(hop, field_name) is not None:
            data[field_name] = getattr(hop, field_name)
    for field_name in ("call", "definition"):
        if getattr(hop, field_name) is not None:
            data[field_name] = _loc_data(getattr(hop, field_name))
    from . import conditions  # the trace's branches: imported by a trace's answer only

    return {**data, **conditions.hop_data(hop)}


def _dispatch_data(answer: KernelsFor) -> dict[str, Any]:
    """An overload without the chain: per key the kernel, its definition and the ops a composite kernel calls."""
    keys = []
    for k in answer.keys:
        item: dict[str, Any] = {"key": k.key, "kernel": k.kernel, "origin": k.origin,
                                "definition": None if k.definition is None else
                                {**to_data(k.definition), "name": k.qualified_name}}
        calls = [s.name for s in k.chain if s.kind in _OPS_CALLED and s.depth == 0]
        if calls:
            item["calls"] = calls
        keys.append(item)
    return {"op": answer.op, "func": answer.func, "location": to_data(answer.location), "keys": keys}


def _trace_op_data(trace: Trace, o: TraceOp) -> dict[str, Any]:
    overloads = [kernels_for_data(a) if trace.chain else _dispatch_data(a) for a in o.overloads]
    decomps = [{"kind": d.kind, "op": d.op, "function": d.function, "registrar": d.registrar,
                **_loc_data(d.location)} for d in o.decompositions]
    data = {"op": o.op, "reached_by": list(o.reached_by), "overloads": overloads, "decompositions": decomps}
    return {**data, "plumbing": o.plumbing} if o.plumbing else data


def trace_data(trace: Trace, inline: bool = False) -> dict[str, Any]:
    """{"name", "resolved", "hops": [...], "ops": [{"op", "reached_by", "overloads", "decompositions"}],
    "plumbing": [the plumbing ops, each with its reason as "plumbing"]}; inline (--all): every op in "ops"."""
    work = [_trace_op_data(trace, o) for o in trace.ops if inline or not o.plumbing]
    grouped = {} if inline else {"plumbing": [_trace_op_data(trace, o) for o in trace.ops if o.plumbing]}
    return {"name": trace.name, "resolved": trace.resolved, "hops": [_hop_data(h) for h in trace.hops], "ops": work,
            **grouped, **truncation_data(trace.truncated)}


def _hop_line(h: Hop) -> str:
    pad = "  " * (h.depth + 1)
    label = {HopKind.CALL: "calls", HopKind.BINDING: "bound"}.get(h.kind, h.kind)
    via = f"  ({h.target})" if h.target and h.target != h.name and h.kind in (HopKind.OP, HopKind.UNRESOLVED) else ""
    if h.kind == HopKind.OPERATOR:
        via = f"  `{h.target}`"
    where = str(h.call) if h.call else ""
    if h.definition is not None:
        where = f"{where} -> {h.definition}" if where else str(h.definition)
    note = f"  [{h.note}]" if h.note else ""
    from . import conditions  # the trace's branches: imported by a trace's answer only

    return f"{pad}{label} {h.name}{via}  {where}{note}".rstrip() + conditions.hop_text(h, pad)


def _trace_op_lines(trace: Trace, o: TraceOp) -> list[str]:
    out = [f"  {o.op}  via {', '.join(o.reached_by)}" if o.reached_by else f"  {o.op}"]
    if trace.chain:
        out.extend("    " + line if line else "" for line in kernels_for_text(list(o.overloads)).rstrip().split("\n"))
    else:
        for a in o.overloads:
            out.append(f"    aten::{a.func or a.op}  {a.location}")
            for k in a.keys:
                where = str(k.definition) if k.definition else f"(yaml {k.location})"
                out.append(f"      {k.key:<26} {k.cpp_namespace}::{k.kernel}  {where}")
                calls = [s.name for s in k.chain if s.kind in _OPS_CALLED and s.depth == 0]
                if calls:
                    out.append(f"        calls ops: {', '.join(calls)}")
    for d in o.decompositions:
        out.append(f"    {d.kind} {d.op}  {d.function}  {d.registrar}  {d.location}")
    return out


def trace_text(trace: Trace, inline: bool = False) -> str:
    """The hops, then the ops that do work; plumbing calls and ops grouped after them (inline: in place)."""
    out = [f"{trace.name} = {trace.resolved}" if trace.name != trace.resolved else trace.name]
    out.extend(_hop_line(h) for h in trace.hops if inline or not h.plumbing)
    calls = [h for h in trace.hops if h.plumbing and not inline]
    if calls:
        out.append(f"  plumbing calls ({len(calls)}; --all shows them in line):")
        out.extend(f"    {h.name}  ({h.target})  {h.call}" if h.call else f"    {h.name}  ({h.target})" for h in calls)
    out.extend(truncation_lines(trace.truncated, "  "))
    work = [o for o in trace.ops if inline or not o.plumbing]
    out.append(f"aten ops reached ({len(work)}):" if work else "aten ops reached: none")
    for o in work:
        out.extend(_trace_op_lines(trace, o))
        if o.plumbing:
            out.append(f"    plumbing: {o.plumbing}")
    grouped = [o for o in trace.ops if o.plumbing and not inline]
    if grouped:
        out.append(f"plumbing ops ({len(grouped)}; --all shows their dispatch tables):")
        out.extend(f"  {o.op}  via {', '.join(o.reached_by)}  [{o.plumbing}]" for o in grouped)
    return "\n".join(out) + "\n"
