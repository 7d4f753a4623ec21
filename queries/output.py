"""Writing an answer to stdout in the form asked for (text, json, jsonl, brief, dot, mermaid).

Typer-free, so that the commands of queries/cli.py and the quick path of queries/quick.py write
exactly the same bytes.
"""

from __future__ import annotations

import sys

from . import render


def emit(result, out: str, text, *, data=render.to_data, items=None) -> None:
    """Write a result as text, JSON (data(result)) or JSON lines (items(result), one per line)."""
    if out == "text":
        sys.stdout.write(text(result))
    elif out == "jsonl":
        rows = items(result) if items is not None else render.to_data(result if isinstance(result, list) else [result])
        render.emit_jsonl_data(rows)
    else:
        render.emit_json(data(result))


def emit_brief(question: str, result, out: str) -> None:
    """--brief: the short form of kernels-for, trace or ops-for, as text or (json, jsonl) data."""
    from . import brief

    data, text = brief.brief(question, result)
    if out == "text":
        sys.stdout.write(text)
    elif out == "jsonl":
        render.emit_jsonl_data(data if isinstance(data, list) else [data])
    else:
        render.emit_json(render.one_or_many_data(data) if question == "kernels_for" else data)


def kernels_for(answers: list, out: str, brief: bool) -> None:
    """kernels-for's answers in the form asked for (out: text, json, jsonl, dot or mermaid)."""
    if brief:
        return emit_brief("kernels_for", answers, out)
    if out == "dot":
        sys.stdout.write(render.kernels_for_dot(answers))
    elif out == "mermaid":
        sys.stdout.write(render.kernels_for_mermaid(answers))
    else:
        emit(answers, out, render.kernels_for_text,
             data=lambda a: render.one_or_many_data([render.kernels_for_data(x) for x in a]),
             items=lambda a: [render.kernels_for_data(x) for x in a])
    return None


def dispatch(walks: list, out: str) -> None:
    """dispatch's walks in the form asked for (out: text, json or jsonl)."""
    from . import dispatch as walk

    emit(walks, out, walk.walk_text, data=lambda w: render.one_or_many_data([walk.walk_data(x) for x in w]),
         items=lambda w: [walk.walk_data(x) for x in w])
