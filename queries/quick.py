"""tg-query's entry point: the commonest question answered without loading Typer and Click.

`tg-query [--db PATH] kernels-for NAME [--json] [--brief] [--format F] [--key K]... [--depth N]`, written
in that plain form, is answered here through the same API and writers as queries/cli.py's command
(queries/output.py), so the bytes are the same. Every other command line (help, --debug, an `=` form,
a value out of range, any other command or option) goes to the Typer app, which parses, checks and
reports exactly as before. The Typer app takes about 60 ms to import; a kernels-for answer less.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

FORMATS = ("text", "json", "jsonl", "dot", "mermaid")  # render.ChainFormat's values
MAX_DEPTH = 20  # kernels-for's --depth range is 0..MAX_DEPTH (queries/cli.py)
_VALUE = ("--format", "--key", "--depth")


def plain_kernels_for(argv: list[str]) -> dict | None:
    """The request of a plain kernels-for command line ({db, name, keys, depth, out, brief}), else None."""
    db = None
    if argv[:1] == ["--db"]:
        if len(argv) < 2 or argv[1].startswith("-") or not argv[1]:
            return None
        db, argv = Path(argv[1]), argv[2:]
    if argv[:1] != ["kernels-for"]:
        return None
    names, keys, depth, fmt, as_json, brief = [], [], 8, None, False, False
    rest = iter(argv[1:])
    for token in rest:
        if token in _VALUE:
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None
            if token == "--format":
                if value not in FORMATS:
                    return None
                fmt = value
            elif token == "--key":
                keys.append(value)
            elif re.fullmatch(r"[0-9]{1,3}", value) and int(value) <= MAX_DEPTH:
                depth = int(value)
            else:
                return None
        elif token == "--json":
            as_json = True
        elif token == "--brief":
            brief = True
        elif token.startswith("-") or not token:
            return None
        else:
            names.append(token)
    if len(names) != 1:
        return None
    out = "json" if as_json else (fmt or "text")  # render.pick: --json wins
    return {"db": db, "name": names[0], "keys": tuple(keys), "depth": depth, "out": out, "brief": brief}


def _answer(request: dict) -> None:
    from ..indexer.errors import Interrupted, TgIndexError
    from . import output
    from .api import Index

    try:
        try:
            answers = Index.open(request["db"]).kernels_for(request["name"], request["keys"], request["depth"])
            output.kernels_for(answers, request["out"], request["brief"])
        except KeyboardInterrupt:  # as Click reports it
            print(file=sys.stderr)
            print("Aborted!", file=sys.stderr)
            sys.exit(1)
        except BrokenPipeError:  # as Click ends on a closed pipe: quietly, status 1
            sys.stdout = open(os.devnull, "w")
            sys.exit(1)
    except Interrupted as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(130)
    except TgIndexError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)


def query_main() -> None:
    request = plain_kernels_for(sys.argv[1:])
    if request is None:
        from .cli import query_main as typer_main

        return typer_main()
    _answer(request)
    return None
