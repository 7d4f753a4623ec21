"""Which calls a chain walked for one device does not follow: those written in a branch that never runs
on that device (the device_branches table; indexer/cxx/device_branches.py says how a branch is read), or under
an #if that the device's build does not compile (`#if defined(USE_ROCM)` for CUDA, indexer/guards.py).

copy_impl (Copy.cpp) returns `mps_copy_(...)` when a tensor is on MPS, so an MPS chain through it does
not go on to copy_stub, and a CUDA chain does not enter its `self.device().is_cpu()` fbgemm branch.
"""

from __future__ import annotations

import sqlite3

from ..indexer.vocab import BRANCH_DEVICES, DENSE, NEVER_COMPILED, PREPROCESSOR

SHOWN = 80  # the characters of a condition a truncation shows
_BACKEND_SUFFIX = "Meta"  # SparseMeta, SparseCsrMeta, QuantizedMeta, NestedTensorMeta: the Meta device


def branch_device(device: str | None, key: str) -> str | None:
    """The device a key's tensors are on, as device_branches names it (chain.device_of's, or Meta)."""
    if device is not None:
        return device
    return "Meta" if key.endswith(_BACKEND_SUFFIX) else None


def dense(key: str) -> bool:
    """Whether a key's tensors are dense (the key is a device's own: CPU, CUDA, Meta), so that a branch only
    a layout test (`is_quantized()`) rules out never runs for it (indexer/cxx/device_branches.py)."""
    return key in BRANCH_DEVICES


class Branches:
    """The device branches of an index, read a file at a time (the database does not change); and the stretches
    of lines under an #if whose guard the checkout decides false (indexer/guards.py), on every device."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self._files: set[str] | None = None
        # (first line, last line, not on, the line to name, its words, the guard a device's build does not compile,
        # the parameter whose default decides it where a call leaves it so, and that default's device)
        self._rows: dict[str, list[tuple[int, int, frozenset[str], int, str, str | None, int | None, str | None]]] = {}
        self._macros = None  # guards.MacroValues, made (and the module imported) at the first such stretch read
        self.never: set[str] = set()  # what ruled_out said of a stretch never compiled

    def _of(self, file: str) -> list[tuple[int, int, frozenset[str], int, str, str | None, int | None, str | None]]:
        if self._files is None:
            try:
                self._files = {r[0] for r in self.conn.execute(
                    "SELECT DISTINCT file FROM device_branches WHERE not_on != ''")}
            except sqlite3.OperationalError:  # an index written before the table existed: no branches known
                self._files = set()
        if file not in self._files:
            return []
        rows = self._rows.get(file)
        if rows is None:
            rows = self._rows[file] = []
            for first, last, not_on, line, branch, condition, parameter, default in self.conn.execute(
                    "SELECT first_line, last_line, not_on, line, branch, condition, parameter, default_device "
                    "FROM device_branches WHERE file = ? AND not_on != '' ORDER BY first_line", (file,)):
                shown = condition if len(condition) <= SHOWN else condition[:SHOWN - 3] + "..."
                if branch != PREPROCESSOR:
                    rows.append((first, last, frozenset(not_on.split(",")), line, f"if {shown}", None, parameter,
                                 default))
                    continue
                if not_on != NEVER_COMPILED:  # the devices whose build does not compile it (guards.mark); why is
                    # said for the device a walk asks about (ruled_out)
                    rows.append((first, last, frozenset(not_on.split(",")), line, f"#if {shown}: ", condition, None,
                                 None))
                    continue
                from ..indexer.guards import MacroValues, decide, never_holds  # why the build found it false

                if self._macros is None:
                    self._macros = MacroValues(self.conn)
                read = '; '.join(decide(condition, self._macros)[1])
                why = f"#if {condition}: {read or ('it contradicts itself' if never_holds(condition) else 'false')}"
                self.never.add(f"{file.rsplit('/', 1)[-1]}:{line} {why}")
                rows.append((first, last, frozenset((NEVER_COMPILED,)), line, why, None, None, None))
        return rows

    def by_parameter(self, file: str | None) -> bool:
        """Whether a branch of a file may be decided by a parameter left to its default (ruled_out)."""
        return file is not None and any(row[6] is not None for row in self._of(file))

    def ruled_out(self, file: str | None, line: int | None, device: str, dense_tensors: bool = False,
                  build: str | None = None, defaulted: frozenset[int] = frozenset()) -> str | None:
        """`FILE:LINE if (CONDITION)` of the innermost branch around file:line that never runs on `device`
        (for its dense tensors too, if `dense_tensors`), or `FILE:LINE #if GUARD: why` of a stretch that the build
        of `build` (a device of vocab.DEVICE_BUILDS: the walk's, vocab.key_build) does not compile, or that no
        build compiles (on any device, "" included: a walk for no device); None: the line can run there."""
        if file is None or line is None:
            return None
        found = None
        also = DENSE + device if dense_tensors else device
        for first, last, not_on, at, said, build_guard, parameter, default in self._of(file):
            if first > line:
                break
            if line > last:
                continue
            if parameter is not None and parameter in defaulted:
                if default in not_on or (dense_tensors and DENSE + default in not_on):
                    found = f"{file.rsplit('/', 1)[-1]}:{at} {said}, its parameter {parameter + 1} left to its " \
                            f"default ({default})"
                continue
            if build_guard is not None:  # an #if stretch: the devices whose build does not compile it
                if build is not None and build in not_on:
                    from ..indexer.link.configurations import build_reason  # (only a walk that meets such a
                    # stretch parses guards)

                    found = f"{file.rsplit('/', 1)[-1]}:{at} {said}{build_reason(build, build_guard)} it"
            elif device in not_on or also in not_on or NEVER_COMPILED in not_on:
                found = f"{file.rsplit('/', 1)[-1]}:{at} {said}"
        return found
