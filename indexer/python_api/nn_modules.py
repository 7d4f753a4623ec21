"""The one cross-file question of the Python layer: which classes are nn.Module subclasses.

A class is one when its own file shows it (ClassFact.is_module) or when a base,
followed across files and through package re-exports (``from .conv import
Conv2d`` in an ``__init__.py``, ``from torch.nn.modules import *``), is one.
The build answers it over every file's classes and re-exports at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .facts import PyFacts
from .kinds import ReexportKind
from .names import MODULE_ROOTS

_MAX_HOPS = 8  # re-exports followed from one name before giving up on it


class ClassBases(NamedTuple):
    """What module_classes needs of a class (the build reads it from py_classes)."""

    qualname: str
    bases: tuple[str, ...]  # resolved through the class's file
    is_module: bool  # the file alone shows an nn.Module subclass


class Reexport(NamedTuple):
    """A re-export as module_classes follows it (the build reads it from py_reexports)."""

    module: str
    name: str
    source: str
    kind: str  # only import and star_import are followed


def module_classes(classes: Iterable[ClassBases], reexports: Iterable[Reexport]) -> frozenset[str]:
    """Qualified names of every nn.Module subclass, following bases across files and package re-exports.

    A qualified name given twice keeps its last class; a re-exported name given twice its last source.
    """
    by_name = {c.qualname: c for c in classes}
    imports: dict[str, str] = {}
    stars: dict[str, list[str]] = {}
    for r in reexports:
        if r.kind == ReexportKind.IMPORT:
            imports[f"{r.module}.{r.name}"] = r.source
        elif r.kind == ReexportKind.STAR_IMPORT:
            stars.setdefault(r.module, []).append(r.source)

    def canonical(name: str, depth: int = 0) -> str:
        if name in by_name or depth > _MAX_HOPS:
            return name
        if name in imports:
            return canonical(imports[name], depth + 1)
        mod, _, leaf = name.rpartition(".")
        for src in stars.get(mod, ()):
            cand = canonical(f"{src}.{leaf}", depth + 1)
            if cand in by_name:
                return cand
        return name

    verdict: dict[str, bool] = {}

    def is_module(q: str, seen: frozenset[str] = frozenset()) -> bool:
        if q in verdict:
            return verdict[q]
        c = by_name[q]
        result = c.is_module
        for b in c.bases:
            if result:
                break
            cb = canonical(b)
            result = cb in MODULE_ROOTS or (cb in by_name and cb not in seen and is_module(cb, seen | {q}))
        verdict[q] = result
        return result

    return frozenset(q for q in by_name if is_module(q))


def module_classes_of(facts: Iterable[PyFacts]) -> frozenset[str]:
    """module_classes over the facts of files extracted in memory, in their order."""
    files = list(facts)
    return module_classes(
        (ClassBases(c.qualname, c.bases, c.is_module) for f in files for c in f.classes),
        (Reexport(r.module, r.name, r.source, r.kind) for f in files for r in f.reexports),
    )
