"""The checkout's DispatchKeySets, evaluated from c10/core/DispatchKeySet.h and DispatchKeySet.cpp.

A DispatchKeySet is two sets of bits (c10/core/DispatchKeySet.h): functionality keys and
backend components. A runtime key of a per-backend functionality (AutogradCPU) is in a set when
both its functionality (AutogradFunctionality) and its backend (CPU) are; `remove(k)` and `-`
drop functionality bits only (Note [Removing keys from DispatchKeySet Only Affects
Functionality Keys]); `RAW, full_backend_mask` is every backend; `FULL_AFTER, k` is every
functionality below k, every backend, and PythonDispatcher.

What is read (tree-sitter, the checkout's own text, no table of ours):
- every `constexpr DispatchKeySet NAME = ...;` / `constexpr auto NAME = DispatchKeySet(...)`;
- the switch of runtimeDispatchKeySetHas (which runtime keys an alias covers: isIncludedInAlias),
  getBackendKeySetFromAutograd, getAutogradRelatedKeySetFromBackend and
  getAutocastRelatedKeySetFromBackend (per backend; `default:` for the rest).
An expression this evaluator does not know raises DispatchKeysError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .keys import DispatchKeysError, KeyEnum

KEYSET_H = "c10/core/DispatchKeySet.h"
KEYSET_CPP = "c10/core/DispatchKeySet.cpp"
ALIAS_HAS = "runtimeDispatchKeySetHas"
FROM_AUTOGRAD = "getBackendKeySetFromAutograd"
AUTOGRAD_RELATED = "getAutogradRelatedKeySetFromBackend"
AUTOCAST_RELATED = "getAutocastRelatedKeySetFromBackend"
SWITCHES = (ALIAS_HAS, FROM_AUTOGRAD, AUTOGRAD_RELATED, AUTOCAST_RELATED)
_FULL_BACKENDS = "full_backend_mask"


@dataclass(frozen=True)
class KeySet:
    """Functionality bits and backend bits, as c10::DispatchKeySet holds them."""

    funcs: frozenset[str] = frozenset()
    backends: frozenset[str] = frozenset()

    def __or__(self, other: KeySet) -> KeySet:
        return KeySet(self.funcs | other.funcs, self.backends | other.backends)

    def __and__(self, other: KeySet) -> KeySet:
        return KeySet(self.funcs & other.funcs, self.backends & other.backends)

    def minus(self, other: KeySet) -> KeySet:
        return KeySet(self.funcs - other.funcs, self.backends)


class Evaluator:
    """Expressions of DispatchKeySet.h/.cpp over one checkout's enum; names are the sets read so far."""

    def __init__(self, enum: KeyEnum):
        self.enum = enum
        self.sets: dict[str, KeySet] = {}

    def of_key(self, name: str) -> KeySet:
        """DispatchKeySet(k): a runtime per-backend key sets both bits; an alias key sets none."""
        real = self.enum.canonical(name)
        if real is None:
            raise DispatchKeysError(f"{KEYSET_H}: unknown dispatch key {name}")
        key = self.enum.keys[real]
        if key.kind == "runtime":
            return KeySet(frozenset({key.functionality}), frozenset({key.backend}))
        return KeySet() if key.kind == "alias" else KeySet(frozenset({real}))

    def full_after(self, name: str) -> KeySet:
        key = self.enum.keys[self.enum.canonical(name) or name]
        below = {k.functionality or k.name for k in self.enum.keys.values()
                 if k.kind in ("functionality", "per_backend", "runtime") and k.priority < key.priority}
        return KeySet(frozenset(below) | {"PythonDispatcher"}, frozenset(self.enum.backends))

    def has(self, ks: KeySet, name: str) -> bool:
        one = self.of_key(name)
        return bool(one.funcs or one.backends) and one.funcs <= ks.funcs and one.backends <= ks.backends

    def value(self, node, env: dict[str, str] | None = None):
        """A KeySet, a key name (str) or a bool; env binds the switch's parameters (t, k)."""
        kind = node.type
        if kind == "parenthesized_expression":
            return self.value(_args(node)[0], env)
        if kind in ("identifier", "qualified_identifier"):
            return self._name(node, env)
        if kind == "call_expression":
            return self._call(node, env)
        if kind == "compound_literal_expression":
            return self._construct(_args(node.child_by_field_name("value")), env)
        if kind == "binary_expression":
            return self._binary(node, env)
        if kind == "unary_expression" and node.child_by_field_name("operator").text == b"!":
            return not self.value(node.child_by_field_name("argument"), env)
        raise DispatchKeysError(f"{KEYSET_H}: cannot read `{_text(node)}`")

    def _name(self, node, env):
        text = _text(node)
        last = text.rsplit("::", 1)[-1]
        if env and text in env:
            return env[text]
        if last in self.sets:
            return self.sets[last]
        if text.endswith("BackendComponent::" + last):
            return _Backend(last.removesuffix("Bit"))
        if text.endswith("DispatchKey::" + last):
            return last
        if last in (_FULL_BACKENDS, "RAW", "FULL_AFTER"):
            return last
        raise DispatchKeysError(f"{KEYSET_H}: unknown name {text}")

    def _call(self, node, env):
        fn, args = node.child_by_field_name("function"), _args(node.child_by_field_name("arguments"))
        if fn.type == "field_expression":
            obj, method = self.value(fn.child_by_field_name("argument"), env), _text(fn.child_by_field_name("field"))
            arg = self.value(args[0], env) if args else None
            if method == "has":
                return self.has(obj, arg)
            if method == "remove":
                return obj.minus(self.of_key(arg))
            if method == "remove_backend":
                return KeySet(obj.funcs, obj.backends - {str(arg)})
            if method == "add":
                return obj | (arg if isinstance(arg, KeySet) else self.of_key(arg))
        elif _text(fn).rsplit("::", 1)[-1] == "DispatchKeySet":
            return self._construct(args, env)
        elif _text(fn) == "toFunctionalityKey":
            name = self.value(args[0], env)
            key = self.enum.keys.get(name)
            return key.functionality if key is not None and key.functionality else name
        raise DispatchKeysError(f"{KEYSET_H}: cannot read `{_text(node)}`")

    def _construct(self, args, env) -> KeySet:
        if not args:
            return KeySet()
        if len(args) == 1 and args[0].type == "initializer_list":
            return self._construct(_args(args[0]), env)
        values = [self.value(a, env) for a in args]
        if values[0] == "RAW" and values[1:] == [_FULL_BACKENDS]:
            return KeySet(frozenset(), frozenset(self.enum.backends))
        if values[0] == "FULL_AFTER" and len(values) == 2:
            return self.full_after(values[1])
        out = KeySet()
        for v in values:
            if isinstance(v, KeySet):
                out = out | v
            elif isinstance(v, _Backend):
                out = out | KeySet(frozenset(), frozenset({str(v)}))
            elif isinstance(v, str) and v not in ("RAW", "FULL_AFTER", _FULL_BACKENDS):
                out = out | self.of_key(v)
            else:
                raise DispatchKeysError(f"{KEYSET_H}: cannot read DispatchKeySet({', '.join(map(str, values))})")
        return out

    def _binary(self, node, env):
        op = _text(node.child_by_field_name("operator"))
        left = self.value(node.child_by_field_name("left"), env)
        if op == "&&" and not left:
            return False
        if op == "||" and left is True:
            return True
        right = self.value(node.child_by_field_name("right"), env)
        if op in ("&&", "||"):
            return bool(right)
        if op in ("==", "!="):
            same = (self.enum.canonical(left) or left) == (self.enum.canonical(right) or right)
            return same if op == "==" else not same
        if op == "|":
            return left | right
        if op == "&":
            return left & right
        if op == "-":
            return left.minus(right)
        raise DispatchKeysError(f"{KEYSET_H}: cannot read operator {op}")


class _Backend(str):
    """A BackendComponent (`BackendComponent::CPUBit` is `CPU`), told apart from the DispatchKey CPU."""


def _args(node) -> list:
    return [c for c in node.named_children if c.type != "comment"]


def _text(node) -> str:
    return node.text.decode()
