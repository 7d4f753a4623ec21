"""tg-query's entry point: the commonest questions answered without loading Typer and Click.

`tg-query [--db PATH] kernels-for NAME [--json] [--brief] [--format F] [--key K]... [--depth N]` and
`tg-query [--db PATH] dispatch NAME [--device D] [--requires-grad] [--autocast] [--inference-mode]
[--functionalize] [--vmap] [--depth N] [--json] [--format F]`, written in that plain form, are answered
here through the same API and writers as queries/cli.py's commands (queries/output.py), so the bytes are
the same. Every other command line (help, --debug, an `=` form, a value out of range, any other command
or option) goes to the Typer app, which parses, checks and reports exactly as before. The Typer app takes
about 60 ms to import; a kernels-for answer less.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

FORMATS = ("text", "json", "jsonl", "dot", "mermaid")  # render.ChainFormat's values (kernels-for)
PLAIN_FORMATS = ("text", "json", "jsonl")  # render.Format's values (dispatch)
MAX_DEPTH = 20  # the --depth range is 0..MAX_DEPTH (queries/cli.py)
DEFAULT_DEPTH = 8
# dispatch's flags, by the keyword of Index.dispatch_walk they set
DISPATCH_FLAGS = {"--requires-grad": "requires_grad", "--autocast": "autocast", "--inference-mode": "inference_mode",
                  "--functionalize": "functionalize", "--vmap": "vmap"}


def _plain(argv: list[str], command: str, values: tuple[str, ...],
           flags: tuple[str, ...]) -> tuple[Path | None, str, dict[str, list[str]], set[str]] | None:
    """(db, the one name, the values of each value option, the flags given) of a plain command line, else None."""
    db = None
    if argv[:1] == ["--db"]:
        if len(argv) < 2 or argv[1].startswith("-") or not argv[1]:
            return None
        db, argv = Path(argv[1]), argv[2:]
    if argv[:1] != [command]:
        return None
    names: list[str] = []
    given: dict[str, list[str]] = {}
    seen: set[str] = set()
    rest = iter(argv[1:])
    for token in rest:
        if token in values:
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None
            given.setdefault(token, []).append(value)
        elif token in flags:
            seen.add(token)
        elif token.startswith("-") or not token:
            return None
        else:
            names.append(token)
    return (db, names[0], given, seen) if len(names) == 1 else None


def _depth(given: dict[str, list[str]]) -> int | None:
    """The last --depth (each one a number in range), the default without one; None: one is not."""
    depths = given.get("--depth", [])
    if not all(re.fullmatch(r"[0-9]{1,3}", d) and int(d) <= MAX_DEPTH for d in depths):
        return None
    return int(depths[-1]) if depths else DEFAULT_DEPTH


def _out(given: dict[str, list[str]], seen: set[str], formats: tuple[str, ...]) -> str | None:
    """The output asked for: --json wins, else the last --format (each one known), text by default."""
    fmts = given.get("--format", [])
    if not all(f in formats for f in fmts):
        return None
    return "json" if "--json" in seen else (fmts[-1] if fmts else "text")  # render.pick


def plain_kernels_for(argv: list[str]) -> dict | None:
    """The request of a plain kernels-for command line ({db, name, keys, depth, out, brief}), else None."""
    found = _plain(argv, "kernels-for", ("--format", "--key", "--depth"), ("--json", "--brief"))
    if found is None:
        return None
    db, name, given, seen = found
    depth, out = _depth(given), _out(given, seen, FORMATS)
    if depth is None or out is None:
        return None
    return {"db": db, "name": name, "keys": tuple(given.get("--key", ())), "depth": depth, "out": out,
            "brief": "--brief" in seen}


def plain_dispatch(argv: list[str]) -> dict | None:
    """The request of a plain dispatch command line ({db, name, device, depth, out} and each flag), else None."""
    found = _plain(argv, "dispatch", ("--device", "--format", "--depth"), ("--json", *DISPATCH_FLAGS))
    if found is None:
        return None
    db, name, given, seen = found
    depth, out = _depth(given), _out(given, seen, PLAIN_FORMATS)
    if depth is None or out is None:
        return None
    return {"db": db, "name": name, "device": given.get("--device", ["cpu"])[-1], "depth": depth, "out": out,
            **{keyword: flag in seen for flag, keyword in DISPATCH_FLAGS.items()}}


def _kernels_for(index, request: dict) -> None:
    from . import output

    answers = index.kernels_for(request["name"], request["keys"], request["depth"])
    output.kernels_for(answers, request["out"], request["brief"])


def _dispatch(index, request: dict) -> None:
    from . import output

    flags = {keyword: request[keyword] for keyword in DISPATCH_FLAGS.values()}
    output.dispatch(index.dispatch_walk(request["name"], request["device"], depth=request["depth"], **flags),
                    request["out"])


def _answer(request: dict, write) -> None:
    """Open the index and write the answer, with the errors and exit codes of the Typer app (queries/cli.py)."""
    from ..indexer.errors import Interrupted, TgIndexError
    from .api import Index

    try:
        try:
            write(Index.open(request["db"]), request)
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
    argv = sys.argv[1:]
    for plain, write in ((plain_kernels_for, _kernels_for), (plain_dispatch, _dispatch)):
        request = plain(argv)
        if request is not None:
            _answer(request, write)
            return None
    from .cli import query_main as typer_main

    return typer_main()
