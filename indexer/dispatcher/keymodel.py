"""One checkout's dispatch keys and key sets: DispatchKey.h's enum (keys.py) and the sets and
switches of DispatchKeySet.h/.cpp (keysets.py), read together into a DispatchKeys.

    keys = read({"c10/core/DispatchKey.h": b"...", "c10/core/DispatchKeySet.h": b"...", ...})

`covers[alias]` are the runtime keys `isIncludedInAlias(k, alias)` holds for
(c10/core/DispatchKeySet.cpp runtimeDispatchKeySetHas); the other maps are the per-key and
per-backend switches OperatorEntry.cpp and TensorImpl use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .keys import DISPATCH_KEY_H, DispatchKeysError, KeyEnum, read_enum
from .keysets import (ALIAS_HAS, AUTOCAST_RELATED, AUTOGRAD_RELATED, FROM_AUTOGRAD, KEYSET_CPP, KEYSET_H, SWITCHES,
                      Evaluator, KeySet)

SOURCES = (DISPATCH_KEY_H, KEYSET_H, KEYSET_CPP)


@dataclass(frozen=True)
class DispatchKeys:
    enum: KeyEnum
    sets: dict[str, KeySet]  # every constexpr DispatchKeySet read, by name
    covers: dict[str, tuple[str, ...]]  # alias -> the runtime keys it covers, highest priority first
    from_autograd: dict[str, KeySet]  # getBackendKeySetFromAutograd: Autograd<B> -> its backend keys
    autograd_related: dict[str, KeySet]  # getAutogradRelatedKeySetFromBackend: backend -> set
    autocast_related: dict[str, KeySet]  # getAutocastRelatedKeySetFromBackend: backend -> set
    evaluator: Evaluator = field(repr=False, compare=False, default=None)

    def has(self, ks: KeySet, key: str) -> bool:
        return self.evaluator.has(ks, key)

    def runtime_in(self, ks: KeySet) -> list[str]:
        """The runtime keys of a set, highest priority first (the order a call visits them)."""
        return [k.name for k in self.enum.runtime() if self.has(ks, k.name)]

    def covered_by(self, key: str) -> tuple[str, ...]:
        return tuple(a for a, ks in self.covers.items() if key in ks)


def read(sources: dict[str, bytes]) -> DispatchKeys:
    """The model from the three files' bytes; DispatchKeysError (one line) when one is missing or unread."""
    import tree_sitter as ts

    from ..cxx import trees

    missing = [p for p in SOURCES if p not in sources]
    if missing:
        raise DispatchKeysError(f"{missing[0]} missing")
    parser = ts.Parser(trees.language("cpp"))
    enum = read_enum(parser.parse(sources[DISPATCH_KEY_H]), sources[DISPATCH_KEY_H])
    ev = Evaluator(enum)
    switches: dict[str, tuple[list[str], dict[str | None, object]]] = {}
    for path in (KEYSET_H, KEYSET_CPP):
        _read_file(parser.parse(sources[path]).root_node, ev, switches)
    for name in SWITCHES:
        if name not in switches:
            raise DispatchKeysError(f"{KEYSET_H}: no switch in {name}")
    return DispatchKeys(enum, dict(ev.sets), _covers(ev, switches[ALIAS_HAS]),
                        {k.name: _case(ev, switches[FROM_AUTOGRAD], k.name) for k in enum.runtime()},
                        {b: _case(ev, switches[AUTOGRAD_RELATED], b) for b in enum.backends},
                        {b: _case(ev, switches[AUTOCAST_RELATED], b) for b in enum.backends}, ev)


def _read_file(root, ev: Evaluator, switches: dict) -> None:
    """Declarations in file order (a set may use those above it); a set the evaluator cannot read
    is left out, and an error comes only where something needs it."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "declaration" and b"DispatchKeySet" in node.text:
            for decl in node.children_by_field_name("declarator"):
                value = decl.child_by_field_name("value") if decl.type == "init_declarator" else None
                name = decl.child_by_field_name("declarator") if value is not None else None
                if name is not None and name.type == "identifier":
                    try:
                        ks = ev.value(value)
                    except DispatchKeysError:
                        continue
                    if isinstance(ks, KeySet):
                        ev.sets[name.text.decode()] = ks
        elif node.type == "function_definition":
            _switch_of(node, switches)
        stack.extend(reversed(node.children))


def _switch_of(fn, switches: dict) -> None:
    decl = fn.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    if decl is None or decl.child_by_field_name("declarator").text.decode() not in SWITCHES:
        return
    name = decl.child_by_field_name("declarator").text.decode()
    params = [p.child_by_field_name("declarator").text.decode() for p in decl.child_by_field_name("parameters").named_children
              if p.type == "parameter_declaration" and p.child_by_field_name("declarator") is not None]
    body = fn.child_by_field_name("body")
    switch = next((c for c in body.named_children if c.type == "switch_statement"), None) if body else None
    if switch is None:
        return
    cases: dict[str | None, object] = {}
    pending: list[str | None] = []
    for case in switch.child_by_field_name("body").named_children:
        if case.type != "case_statement":
            continue
        value = case.child_by_field_name("value")
        pending.append(None if value is None else value.text.decode().rsplit("::", 1)[-1].removesuffix("Bit"))
        ret = next((c for c in case.named_children if c.type == "return_statement"), None)
        if ret is not None:
            for v in pending:
                cases.setdefault(v, ret.named_children[0])
            pending = []
    switches[name] = (params, cases)


def _case(ev: Evaluator, switch: tuple, value: str) -> KeySet:
    params, cases = switch
    expr = cases.get(value, cases.get(None))
    if expr is None:
        return KeySet()
    result = ev.value(expr, {params[0]: value})
    if not isinstance(result, KeySet):
        raise DispatchKeysError(f"{KEYSET_H}: a case of {value} is not a DispatchKeySet")
    return result


def _covers(ev: Evaluator, switch: tuple) -> dict[str, tuple[str, ...]]:
    params, cases = switch
    out = {}
    for alias in (k.name for k in ev.enum.keys.values() if k.kind == "alias"):
        expr = cases.get(alias, cases.get(None))
        out[alias] = tuple(k.name for k in ev.enum.runtime()
                           if expr is not None and ev.value(expr, {params[0]: alias, params[1]: k.name}) is True)
    return out
