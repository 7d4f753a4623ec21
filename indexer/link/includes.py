"""The include graph: each `#include` to the checkout file it names, and what a file sees through
its include chain (transitively), computed on demand.

An include is looked up the way the build's include path finds it: relative to the including
file's folder first, then as a path ending in the written one (`ATen/native/Foo.h` is
aten/src/ATen/native/Foo.h). A written path that several files end in goes to the one nearest
the includer (longest common folder prefix); one that no file ends in is outside the checkout
(system and vendor headers) and has no edge.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable


class IncludeGraph:
    def __init__(self, files: Iterable[str], includes: Iterable[tuple[str, str]]):
        self._by_suffix: dict[str, list[str]] = {}
        paths = list(files)
        known = set(paths)
        for path in paths:
            parts = path.split("/")
            for i in range(len(parts)):
                self._by_suffix.setdefault("/".join(parts[i:]), []).append(path)
        self.direct: dict[str, list[str]] = {}
        for file, target in includes:
            found = self._find(file, target, known)
            if found is not None:
                self.direct.setdefault(file, []).append(found)
        self._closure: dict[str, frozenset[str]] = {}

    def _find(self, file: str, target: str, known: set[str]) -> str | None:
        local = posixpath.normpath(posixpath.join(posixpath.dirname(file), target))
        if local in known:
            return local
        found = self._by_suffix.get(target.lstrip("./"))
        if not found:
            return None
        if len(found) == 1:
            return found[0]
        return max(found, key=lambda p: (len(posixpath.commonprefix([p, file])), -len(p)))

    def closure(self, file: str) -> frozenset[str]:
        """Every checkout file `file` includes, directly or through others."""
        got = self._closure.get(file)
        if got is None:
            seen: set[str] = set()
            todo = list(self.direct.get(file, ()))
            while todo:
                f = todo.pop()
                if f in seen:
                    continue
                seen.add(f)
                done = self._closure.get(f)
                if done is not None:
                    seen |= done
                    continue
                todo.extend(self.direct.get(f, ()))
            got = self._closure[file] = frozenset(seen)
        return got
