"""Which shard of a sharded generated file holds an operator's code (torchgen/utils.py:202 write_sharded).

An item goes to shard `string_stable_hash(key) % num_shards` (utils.py:112: the SHA-1 of the
key as a little-endian integer), in `<Name>_<shard>.cpp`; each generator names its key and
shard count: VariableType (cpp name, 5; 10 in 2.13), ADInplaceOrViewType (base name, 2),
TraceType (base name, 5; 10 in 2.13), RegisterFunctionalization (the group's base name, 4),
and from 2.13 Register<Key> (the group's base name; 4 for CPU, else 1).
"""

from __future__ import annotations

import hashlib


def shard(key: str, num_shards: int) -> int:
    return int.from_bytes(hashlib.sha1(key.encode("latin1")).digest(), byteorder="little") % num_shards


def shard_file(name: str, key: str, num_shards: int) -> str:
    """`shard_file("TraceType", "add", 5)` -> "TraceType_<n>.cpp"."""
    return f"{name}_{shard(key, num_shards)}.cpp"
