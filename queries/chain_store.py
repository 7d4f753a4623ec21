"""Chains walked at build time and kept in the index (table chains), so that a fresh Index answers without
walking: a first kernels-for reads a row per definition it shows instead of the edges of every node below it.

A row is the answer of one Linker walk (chain.Linker._chain_at): the node it starts from, the key, the depth and
whether the node is an (op, key)'s kernel, with the steps and truncations the walk gives, zlib-compressed
marshal data (see encode).
Each row also names what the walk read (`reads`: the nodes whose edges it read, the stubs and ops it looked up,
and the names it looked up by name), so that an incremental build walks again only the rows an edit may
change (indexer/chain_stage.py). The rows are valid for the query code that made them: meta chains_key is a hash
of its modules (code_key), and a Linker whose code hashes otherwise walks live.
"""

from __future__ import annotations

import marshal
import sqlite3
import zlib
from typing import Any

from ..indexer import code_hash
from ..indexer.facts import Location
from ..indexer.link.kinds import EdgeKind, How, NodeKind
from ..indexer.vocab import DefinitionKind, Origin, StepKind
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


# marshal's format 4 (Python 3.4 on; every later version reads it). A row is only tuples, lists, str, int and
# None, which marshal writes and reads in C, each repeated string as a reference to its first: add.out's 12
# chains were 167 KB of JSON that json.loads read in 1.5 ms, and are 89 KB that marshal.loads reads in 0.35-0.5 ms.
# marshal builds data and runs nothing; the rows are this code's own (usable() checks the code that wrote them).
_FORMAT = 4


# The enum members a step's fields hold (its kind, how the edge was resolved), each value as a plain str: a row's
# strings start from these, so that a member is written as its value (marshal writes only an exact str).
_PLAIN = {str.__str__(m): str.__str__(m) for kind in (StepKind, DefinitionKind, How, NodeKind, EdgeKind, Origin)
          for m in kind}


def _plain(value: Any) -> Any:
    """A row's data with every str subclass (an enum member not in _PLAIN) made an exact str."""
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def encode(steps: list[Step], cuts: tuple[Truncation, ...]) -> bytes:
    """A walk's answer as a row's `body`: (places, steps, truncations), each step's loc and site an index into
    places (a file and line written once however many steps share it). Equal strings are made one object, which
    marshal writes once and then refers to (a row's files, kinds, hows, devices and dtype lists repeat), so
    that reading a row makes each string once. zlib's fastest level: the build compresses every chain, and the
    best level makes the rows a quarter smaller for three times the time."""
    strings = dict(_PLAIN)
    text = strings.setdefault  # an enum member finds its plain value (equal, and of equal hash)
    places: dict[tuple[str, int], int] = {}
    place = places.setdefault
    rows = []
    for s in steps:
        loc, site, device, detail, how = s.loc, s.site, s.device, s.detail, s.how
        at = None if loc is None else place((text(loc.file, loc.file), loc.line), len(places))
        called = None if site is None else place((text(site.file, site.file), site.line), len(places))
        rows.append((text(s.kind, s.kind), text(s.name, s.name), at, device and text(device, device),
                     detail and text(detail, detail), s.depth, how and text(how, how), called, s.parent))
    body = (tuple(places), tuple(rows),
            tuple((text(c.what, c.what), c.limit, tuple(text(n, n) for n in c.names)) for c in cuts))
    try:
        data = marshal.dumps(body, _FORMAT)
    except ValueError:  # a str subclass _PLAIN does not hold
        data = marshal.dumps(_plain(body), _FORMAT)
    return zlib.compress(data, 1)


def decode(blob: bytes) -> tuple[list[Step], tuple[Truncation, ...]]:
    """The steps and truncations of a row's body (a Location per place, shared by its steps). Each object is
    made as results.new_step makes a step, its attributes set in the dataclass's order without its frozen
    __init__, here in the loop: a first answer decodes a step per line of its chains."""
    places, rows, cuts = marshal.loads(zlib.decompress(blob))
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
    return steps, tuple(Truncation(what, limit, names) for what, limit, names in cuts)


def encode_reads(nodes: set[int], names: set[str]) -> bytes:
    """What a walk read, as a row's `reads`: the node ids in order, and the names it looked up."""
    return zlib.compress(marshal.dumps((sorted(nodes), sorted(str.__str__(n) for n in names)), _FORMAT), 1)


def decode_reads(blob: bytes) -> tuple[list[int], list[str]]:
    nodes, names = marshal.loads(zlib.decompress(blob))
    return nodes, names


def usable(conn: sqlite3.Connection) -> bool:
    """Whether the index holds chains this code made (the table, and meta chains_key equal to code_key())."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == code_key()
