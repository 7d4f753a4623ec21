"""The checkout's dispatch keys, read from its own c10/core/DispatchKey.h with tree-sitter.

The enum order is the priority (c10/core/DispatchKey.h: a DispatchKeySet dispatches to its
highest functionality bit first). What the header says, as this module reads it:

- `C10_FORALL_BACKEND_COMPONENTS(_, extra)`: the backends (CPU, CUDA, ..., Meta) in
  BackendComponent order;
- `C10_FORALL_FUNCTIONALITY_KEYS(_)`: the per-backend functionality keys and their prefixes
  (`_(Dense, )`, `_(Sparse, Sparse)`, `_(AutogradFunctionality, Autograd)`): each has one runtime
  key per backend (`CPU`, `SparseCPU`, `AutogradCUDA`), at the functionality's priority;
- `enum class DispatchKey`: an enumerator without a value is the next key; one written
  `= OtherKey` is another name of that key (`Autocast = AutocastCUDA`); `StartOf*`/`EndOf*` are
  range markers; the keys from `StartOfAliasKeys` to `EndOfAliasKeys` are alias keys.

A layout this reader does not know is a DispatchKeysError with one line saying what was missing;
the build turns it into a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DISPATCH_KEY_H = "c10/core/DispatchKey.h"
BACKENDS_MACRO = "C10_FORALL_BACKEND_COMPONENTS"
FUNCTIONALITY_MACRO = "C10_FORALL_FUNCTIONALITY_KEYS"
_ENTRY = re.compile(r"\b_\(\s*(\w+)\s*,\s*(\w*)\s*\)")


class DispatchKeysError(Exception):
    """The checkout's dispatch key headers are not laid out as this reader knows them."""


@dataclass(frozen=True)
class Key:
    """One name of the DispatchKey enum."""

    name: str
    kind: str  # functionality | per_backend | runtime | alias | synonym
    priority: int  # the functionality's enum value: higher is dispatched to first
    line: int  # where the enumerator (or the macro that makes it) is written
    functionality: str | None = None  # a runtime key's per-backend functionality (Dense for CPU)
    backend: str | None = None  # a runtime key's BackendComponent (CPU for AutogradCPU)
    same_as: str | None = None  # a synonym's key


@dataclass(frozen=True)
class KeyEnum:
    """The DispatchKey enum of one checkout."""

    backends: tuple[str, ...]
    keys: dict[str, Key]  # every name, in enum order (per-backend runtime keys after their functionality)
    prefixes: dict[str, str] = field(default_factory=dict)  # per-backend functionality -> runtime key prefix

    def canonical(self, name: str) -> str | None:
        """The key a name stands for (synonyms resolved), or None when the checkout has no such key."""
        key = self.keys.get(name)
        if key is None:
            return None
        return key.same_as or key.name

    def runtime(self) -> list[Key]:
        """The keys with a slot in an operator's dispatch table, highest priority first."""
        found = [k for k in self.keys.values() if k.kind in ("functionality", "runtime")]
        return sorted(found, key=lambda k: -k.priority)  # stable: backends keep their order within a functionality

    def runtime_of(self, functionality: str, backend: str) -> str:
        return f"{self.prefixes[functionality]}{backend}"

    def is_alias(self, name: str) -> bool:
        key = self.keys.get(name)
        return key is not None and key.kind == "alias"


def read_enum(tree, source: bytes) -> KeyEnum:
    """The enum of a parsed DispatchKey.h (tree: a tree-sitter tree of `source`)."""
    macros = _macro_bodies(tree.root_node)
    for name in (BACKENDS_MACRO, FUNCTIONALITY_MACRO):
        if name not in macros:
            raise DispatchKeysError(f"{DISPATCH_KEY_H}: no #define {name}")
    backends = tuple(n for n, _extra in _ENTRY.findall(macros[BACKENDS_MACRO][0]))
    per_backend = {n: prefix for n, prefix in _ENTRY.findall(macros[FUNCTIONALITY_MACRO][0])}
    body = _enum_body(tree.root_node, b"DispatchKey")
    if body is None or not backends or not per_backend:
        raise DispatchKeysError(f"{DISPATCH_KEY_H}: no enum class DispatchKey with backends and functionality keys")
    return KeyEnum(backends, _enumerators(body, backends, per_backend, macros[FUNCTIONALITY_MACRO][1]), per_backend)


def _enumerators(body, backends: tuple[str, ...], per_backend: dict[str, str], macro_line: int) -> dict[str, Key]:
    """Walk the enum's body: values count up from 0, `= Name` makes a synonym; the per-backend
    runtime keys follow where the body expands C10_FORALL_FUNCTIONALITY_KEYS (not enumerators)."""
    keys: dict[str, Key] = {}
    values: dict[str, int] = {}
    value = -1
    alias_range: list[int] = []
    runtime_names = {f"{prefix}{b}" for prefix in per_backend.values() for b in backends}
    for node in body.children:
        if node.type != "enumerator":
            continue
        name = node.child_by_field_name("name").text.decode()
        given = node.child_by_field_name("value")
        line = node.start_point[0] + 1
        if given is not None and given.type == "identifier":
            target = given.text.decode()
            if name in ("StartOfAliasKeys", "EndOfAliasKeys") and target in values:
                alias_range.append(values[target])
            elif target in runtime_names and not name.startswith(("StartOf", "EndOf")):
                keys[name] = Key(name, "synonym", -1, line, same_as=target)
            elif target in keys and not name.startswith(("StartOf", "EndOf")):
                keys[name] = Key(name, "synonym", values[target], line, same_as=keys[target].same_as or target)
            values[name] = values.get(target, value)  # a marker of the macro-made keys: the count goes on
            continue
        value = int(given.text.decode(), 0) if given is not None and given.type == "number_literal" else value + 1
        values[name] = value
        if name.startswith(("StartOf", "EndOf")) or name == "Undefined":
            continue
        kind = "per_backend" if name in per_backend else "functionality"
        keys[name] = Key(name, kind, value, line)
    missing = [n for n in per_backend if n not in keys]
    if missing or len(alias_range) != 2:
        raise DispatchKeysError(f"{DISPATCH_KEY_H}: enum DispatchKey lacks {', '.join(missing) or 'StartOfAliasKeys/EndOfAliasKeys'}")
    out: dict[str, Key] = {}
    for key in keys.values():
        if key.kind == "functionality" and alias_range[0] <= key.priority <= alias_range[1]:
            key = Key(key.name, "alias", key.priority, key.line)
        out[key.name] = key
        if key.kind == "per_backend":
            for b in backends:
                name = f"{per_backend[key.name]}{b}"
                out[name] = Key(name, "runtime", key.priority, macro_line, key.name, b)
    return out


def _macro_bodies(root) -> dict[str, tuple[str, int]]:
    """#define NAME(...) body, for the function-like macros at any level: name -> (body, line)."""
    out: dict[str, tuple[str, int]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "preproc_function_def":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name is not None and value is not None:
                out.setdefault(name.text.decode(), (value.text.decode(), node.start_point[0] + 1))
            continue
        stack.extend(node.children)
    return out


def _enum_body(root, name: bytes):
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "enum_specifier":
            n = node.child_by_field_name("name")
            if n is not None and n.text == name and node.child_by_field_name("body") is not None:
                return node.child_by_field_name("body")
        stack.extend(node.children)
    return None
