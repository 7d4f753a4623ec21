"""DispatchStubs by the qualified name C++ gives them.

A stub is a variable. DECLARE_DISPATCH declares it in the namespace around the macro (`copy_stub` in
at::native, and another `copy_stub` in at::native::cpublas), DEFINE_DISPATCH and REGISTER_DISPATCH
name it as written where they stand (`REGISTER_DISPATCH(cpublas::copy_stub, ...)` from at::native),
and a function calls it by a name looked up from its own scopes, innermost first, then through its
file's using-directives. So two stubs of one name in two namespaces are two nodes, and a function of
the stub's name in a scope nearer the caller (`copy_stub` in PaddingKernel.cpp's unnamed namespace)
hides the stub: that call is a call of the function.

Scopes are normalised as the link's lookup normalises them (symbols.normalise_scope: unnamed and
inline namespaces drop out). A name no scope finds falls back to the one declared stub of that last
name (stub_uses keeps only the last component of a qualified call); a macro site's name then falls
back to the name qualified by the site's own scope (a stub whose declaration is not indexed).
A node shows the shortest suffix of its qualified name that no other stub shares (`add_stub`,
`native::copy_stub`, `cpublas::copy_stub`); its detail is the qualified name.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..cxx.scopes import split_scope
from ..vocab import DefinitionKind, StubKind
from .symbols import normalise_scope, scope_chain

_FUNCTIONS = frozenset({DefinitionKind.FUNCTION, DefinitionKind.METHOD, DefinitionKind.DEVICE_FUNCTION})


class StubNames:
    """The qualified names of the checkout's stubs, and name lookup of a stub from a site or a caller."""

    def __init__(self, rows: list[tuple[str, str, str]], inline: frozenset[str]):
        """rows: (stub as written, kind, scope of the macro site) of every stubs row."""
        self.inline = inline
        self.declared: dict[str, None] = {}
        self._by_last: dict[str, list[str]] = {}
        for stub, kind, scope in rows:
            if kind == StubKind.DECLARE:
                self._declare(self.qualify(scope, stub))
        for stub, kind, scope in rows:
            if kind == StubKind.DEFINE and self.lookup(stub, self.chain(scope)) is None:
                self._declare(self.qualify(scope, stub))  # defined where no indexed declaration is seen
        self.bare = frozenset(self._by_last)

    def _declare(self, qualified: str) -> None:
        if qualified not in self.declared:
            self.declared[qualified] = None
            self._by_last.setdefault(qualified.rsplit("::", 1)[-1], []).append(qualified)

    def declare_all(self, qualified: list[str]) -> None:
        """Also the stubs only registrations name (their nodes need shown names too; calls find them)."""
        for q in qualified:
            self._declare(q)
        self.bare = frozenset(self._by_last)

    def qualify(self, scope: str, written: str) -> str:
        """The written name declared in `scope`, normalised."""
        return normalise_scope([*split_scope(scope), *split_scope(written.removeprefix("::"))], self.inline)

    def chain(self, scope: str) -> list[str]:
        """The scopes lookup searches from a macro site in `scope`, innermost first, ending at ""."""
        return scope_chain(f"{scope}::_", self.inline) if scope else [""]

    def lookup(self, written: str, chain: list[str], usings: tuple[str, ...] = ()) -> str | None:
        """The declared stub a name written in the chain's innermost scope means, or None."""
        name = normalise_scope(split_scope(written.removeprefix("::")), self.inline)
        if written.startswith("::"):
            return name if name in self.declared else None
        for scope in (*chain, *usings):
            qualified = f"{scope}::{name}" if scope else name
            if qualified in self.declared:
                return qualified
        return None

    def at_site(self, written: str, scope: str) -> str:
        """The stub a DECLARE/DEFINE/REGISTER site names (see the module's fallbacks)."""
        found = self.lookup(written, self.chain(scope))
        if found is not None:
            return found
        same = [q for q in self._by_last.get(written.rsplit("::", 1)[-1], ()) if q == written or
                q.endswith("::" + written.removeprefix("::"))]
        return same[0] if len(same) == 1 else self.qualify(scope, written)

    def called(self, written: str, chain: list[str], usings: tuple[str, ...],
               hiding: Callable[[str], list[tuple[str, bool]]]) -> str | None:
        """The stub a function calling `written` means, or None when a function of that name in a scope
        nearer the caller hides it. hiding(name) -> (normalised scope, whether seen only from the caller's
        own file and includers) of each visible function of that name."""
        found = self.lookup(written, chain, usings)
        if found is None:  # stub_uses keeps a name's last component: `at::native::x_stub(...)` from at::sparse
            same = self._by_last.get(written.rsplit("::", 1)[-1], ())
            return same[0] if len(same) == 1 else None
        if "::" in written:
            return found
        stub_scope = found.rpartition("::")[0]
        depth = chain.index(stub_scope) if stub_scope in chain else len(chain)
        for scope, local in hiding(written):
            if scope in chain and (chain.index(scope) < depth or (chain.index(scope) == depth and local)):
                return None
        return found

    def shown(self) -> dict[str, str]:
        """qualified -> the name its node shows: the shortest suffix no other stub's qualified name ends with."""
        out = {}
        for qualified in self.declared:
            parts = qualified.split("::")
            for k in range(1, len(parts) + 1):
                suffix = "::".join(parts[-k:])
                if all(o == qualified or not (o == suffix or o.endswith("::" + suffix))
                       for o in self._by_last[parts[-1]]):
                    break
            out[qualified] = suffix
        return out


def stub_names(conn: sqlite3.Connection) -> tuple[StubNames, list[tuple[str, str, str, str, int]]]:
    """The stub names of the index, and its stubs rows (stub, kind, scope, file, line), declarations first."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    inline = frozenset(r[0] for r in conn.execute("SELECT qualified_name FROM inline_namespaces")) \
        if "inline_namespaces" in tables else frozenset()
    columns = {r[1] for r in conn.execute("PRAGMA table_info(stubs)")}
    scope = "scope" if "scope" in columns else "''"
    rows = conn.execute(f"SELECT stub, kind, {scope}, file, line FROM stubs ORDER BY kind != ?, id",
                        (StubKind.DECLARE,)).fetchall()
    return StubNames([r[:3] for r in rows], inline), rows


def hiding_functions(symbols, ctx) -> Callable[[str], list[tuple[str, bool]]]:
    """hiding() for StubNames.called over the link's symbols: the functions of a name the caller (a
    resolve.Context) sees; a local one only from its own file and its includers."""
    def hiding(name: str) -> list[tuple[str, bool]]:
        return [(s.scope, s.local) for s in symbols.by_name.get(name, ())
                if s.kind in _FUNCTIONS and (not s.local or ctx.visible(s.file))]
    return hiding
