"""#if guards the checkout itself decides: those whose macros it #defines as constants, once for every build.

2.6.0 aten/src/ATen/jit_macros.h:6 writes `#define AT_USE_JITERATOR() true`, outside any #if, and it is the
only #define of the name: so a kernel's `#if AT_USE_JITERATOR()` branch is what every build compiles, and its
`#else` (the gpu_kernel fallback of native/cuda/UnaryGammaKernels.cu:116-124) never is. A C++ reader walking
the chain leaves the #else out.

Extraction (pure, per file) writes each stretch of a file's lines under an #if that holds calls and whose guard
may be false (cxx/conditions.may_be_false) as a device_branches row of branch "#if" with not_on empty. Once
every file's #defines are in the macros table, `mark` decides each guard and writes not_on NEVER_COMPILED where it is
false; kernels-for does not follow what is written there (queries/device_branches.py), and says why (`decide`'s
list of the macros read).

A macro's value is known when every #define of it in the checkout is written outside any #if (the include
guard aside), all agree on one body, and the body is itself decided (`true`, `0`, `1L`, another known macro).
A macro defined under an #if (`#ifndef X` / `#define X 0`: a default a build may override with -D), defined
differently in two places, or not defined in the checkout at all (a flag the build passes: USE_ROCM,
__CUDA_ARCH__) is unknown, and so is `defined(X)`. The expression is evaluated as the preprocessor does
(cxx/conditions.py), with unknown values: `0 && X` is false and `1 || X` true whatever X is; a guard left
unknown rules nothing out.
"""

from __future__ import annotations

import sqlite3

from .cxx.conditions import Env, evaluate, value_of
from .link.configurations import builds_without, never_holds
from .vocab import NEVER_COMPILED, PREPROCESSOR

_DEPTH = 8  # macros whose bodies name other macros, followed at most this deep


class MacroValues:
    """The constant values of the checkout's macros, read from the macros table by name (memoised)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._values: dict[tuple[str, bool], tuple[int | None, str]] = {}
        self._depth = 0

    def value(self, name: str, called: bool) -> tuple[int | None, str]:
        """(the value of `name`, or of `name()` when `called`; its body and where it is defined: "`true`,
        jit_macros.h:6"); (None, "") when unknown."""
        key = (name, called)
        got = self._values.get(key)
        if got is None:
            self._values[key] = (None, "")  # a macro whose body names itself stays unknown
            got = self._values[key] = self._value(name, called)
        return got

    def _value(self, name: str, called: bool) -> tuple[int | None, str]:
        try:
            rows = self.conn.execute("SELECT params, body, guard, file, line FROM macros WHERE name = ?",
                                     (name,)).fetchall()
        except sqlite3.OperationalError:  # an index written before macros.guard: nothing is known
            return None, ""
        if not rows or self._depth >= _DEPTH or any(guard for _p, _b, guard, _f, _l in rows):
            return None, ""
        if len({(params, body) for params, body, *_ in rows}) > 1 or rows[0][0] != ("()" if called else None):
            return None, ""
        params, body, _guard, file, line = rows[0]
        self._depth += 1
        try:
            value = value_of(body, Env(lookup=lambda n, c: self.value(n, c)[0]))
        finally:
            self._depth -= 1
        return (None, "") if value is None else (value, f"`{body}`, {file.rsplit('/', 1)[-1]}:{line}")


def decide(condition: str, macros: MacroValues) -> tuple[bool | None, list[str]]:
    """(whether an #if condition holds in every build, None when the checkout does not decide it; and the known
    macros it read: "AT_USE_JITERATOR() is `true`, jit_macros.h:6")."""
    read: list[str] = []

    def lookup(name: str, called: bool) -> int | None:
        value, where = macros.value(name, called)
        if value is not None:
            read.append(f"{name}{'()' if called else ''} is {where}")
        return value

    return evaluate(condition, Env(lookup=lookup)), list(dict.fromkeys(read))


def mark(conn: sqlite3.Connection) -> int:
    """not_on of every "#if" row of device_branches: NEVER_COMPILED where the guard is false in every build (by the
    checkout's #defines, or because it contradicts itself: link/configurations.py never_holds), else the
    devices whose build does not compile it (link/configurations.py builds_without: CUDA for `#if defined(USE_ROCM)`),
    else empty (a row re-extracted comes empty; one whose macros changed is decided again). The rows changed."""
    macros = MacroValues(conn)
    decided: dict[str, str] = {}
    changed = []
    for row, condition, not_on in conn.execute("SELECT id, condition, not_on FROM device_branches WHERE branch = ?",
                                               (PREPROCESSOR,)).fetchall():
        if condition not in decided:
            decided[condition] = NEVER_COMPILED if decide(condition, macros)[0] is False or never_holds(condition) \
                else ",".join(builds_without(condition))
        want = decided[condition]
        if want != not_on:
            changed.append((want, row))
    conn.executemany("UPDATE device_branches SET not_on = ? WHERE id = ?", changed)
    return len(changed)
