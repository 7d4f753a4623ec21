"""Chains walked at build time and kept in the index (table chains), so that a fresh Index answers without
walking: a first kernels-for reads a row per definition it shows instead of the edges of every node below it.

A row is the answer of one Linker walk (chain.Linker._chain_at): the node it starts from, the key, the depth and
whether the node is an (op, key)'s kernel, with the steps and truncations the walk gives, zlib-compressed JSON.
Each row also names what the walk read (`reads`: the nodes whose edges it read, the stubs and ops it looked up,
and the names it looked up by name), so that an incremental build walks again only the rows an edit may
change (indexer/chain_stage.py). The rows are valid for the query code that made them: meta chains_key is a hash
of its modules (code_key), and a Linker whose code hashes otherwise walks live.
"""

from __future__ import annotations

import json
import sqlite3
import zlib

from ..indexer import code_hash
from ..indexer.facts import Location
from .results import Step, Truncation

_new_object = object.__new__
TABLE = "chains"
META_KEY = "chains_key"
_code_key: str | None = None


def code_key() -> str:
    """The hash of the code that walks (indexer/code_hash.chain_walk), once per process."""
    global _code_key
    if _code_key is None:
        _code_key = code_hash.chain_walk()
    return _code_key


def encode(steps: list[Step], cuts: tuple[Truncation, ...]) -> bytes:
    """A walk's answer as a row's `body`: [places, steps, truncations], each step's loc and site an index into
    places (a file and line written once however many steps share it). zlib's fastest level: the build
    compresses every chain, and the best level makes the rows a quarter smaller for three times the time."""
    places: dict[tuple[str, int], int] = {}
    rows = []
    for s in steps:
        loc, site = s.loc, s.site
        at = None if loc is None else places.setdefault((loc.file, loc.line), len(places))
        called = None if site is None else places.setdefault((site.file, site.line), len(places))
        rows.append([s.kind, s.name, at, s.device, s.detail, s.depth, s.how, called, s.parent])
    body = [list(places), rows, [[c.what, c.limit, list(c.names)] for c in cuts]]
    return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 1)


def decode(blob: bytes) -> tuple[list[Step], tuple[Truncation, ...]]:
    """The steps and truncations of a row's body (a Location per place, shared by its steps). Each object is
    made as results.new_step makes a step, its attributes set in the dataclass's order without its frozen
    __init__, here in the loop: a first answer decodes a step per line of its chains."""
    places, rows, cuts = json.loads(zlib.decompress(blob))
    locs = []
    for file, line in places:
        loc = _new_object(Location)
        d = loc.__dict__
        d["file"] = file
        d["line"] = line
        locs.append(loc)
    steps = []
    for kind, name, loc, device, detail, depth, how, site, parent in rows:
        step = _new_object(Step)
        d = step.__dict__
        d["kind"] = kind
        d["name"] = name
        d["loc"] = None if loc is None else locs[loc]
        d["device"] = device
        d["detail"] = detail
        d["depth"] = depth
        d["how"] = how
        d["site"] = None if site is None else locs[site]
        d["parent"] = parent
        steps.append(step)
    return steps, tuple(Truncation(what, limit, tuple(names)) for what, limit, names in cuts)


def encode_reads(nodes: set[int], names: set[str]) -> bytes:
    """What a walk read, as a row's `reads`: the node ids in order, and the names it looked up."""
    return zlib.compress(json.dumps([sorted(nodes), sorted(names)], separators=(",", ":")).encode(), 1)


def decode_reads(blob: bytes) -> tuple[list[int], list[str]]:
    nodes, names = json.loads(zlib.decompress(blob))
    return nodes, names


def usable(conn: sqlite3.Connection) -> bool:
    """Whether the index holds chains this code made (the table, and meta chains_key equal to code_key())."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == code_key()
