"""The include graph: each `#include` to the checkout file it names, and what a file sees through
its include chain (transitively), computed on demand.

An include is looked up the way the build's include path finds it: relative to the including
file's folder first, then as a path ending in the written one (`ATen/native/Foo.h` is
aten/src/ATen/native/Foo.h). A written path that several files end in goes to the one nearest
the includer (longest common folder prefix); one that no file ends in is outside the checkout
(system and vendor headers) and has no edge, except a header torchgen generates from a template of
the checkout (aten/src/ATen/templates, as torchgen/gen.py writes them): its includes are the template's
(ATen/core/TensorBody.h -> templates/TensorBody.h, ATen/Functions.h -> templates/Functions.h;
ATen/CPUFunctions.h -> DispatchKeyFunctions.h, ATen/CPUFunctions_inl.h -> DispatchKeyFunctions_inl.h;
per op ATen/ops/add.h -> Function.h, add_ops.h -> Operator.h, add_native.h -> NativeFunction.h,
add_meta.h -> NativeMetaFunction.h, add_cpu_dispatch.h -> DispatchKeyFunction.h). The lines a template
writes through `${...}` are not read: a generated header reaches what its template includes.
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
        self._found: dict[tuple[str, str], str | None] = {}  # (folder, target) -> _find's answer, where the name's
        # characters play no part (a path found beside the includer, or the one path ending so)
        for file, target in includes:
            found = self._find(file, target, known)
            if found is not None:
                self.direct.setdefault(file, []).append(found)
        self._closure: dict[str, frozenset[str]] = {}

    def _find(self, file: str, target: str, known: set[str]) -> str | None:
        folder = file.rpartition("/")[0]  # (posixpath.dirname of a relative path)
        got = self._found.get((folder, target), "")
        if got != "":
            return got
        local = posixpath.normpath(posixpath.join(folder, target))
        if local in known:
            got = local
        else:
            found = self._by_suffix.get(target.lstrip("./"))
            if not found:
                template = generated_template(target.lstrip("./"))
                found = self._by_suffix.get(f"ATen/templates/{template}") if template is not None else None
            if found and len(found) > 1:  # the nearest to the includer, by the characters of its whole path
                return max(found, key=lambda p: (len(posixpath.commonprefix([p, file])), -len(p)))
            got = found[0] if found else None
        self._found[(folder, target)] = got
        return got

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


_PER_OP = (("_native.h", "NativeFunction.h"), ("_ops.h", "Operator.h"), ("_meta.h", "NativeMetaFunction.h"),
           ("_dispatch.h", "DispatchKeyFunction.h"))
_NOT_PER_KEY = frozenset(("Functions.h", "NativeFunctions.h", "NativeMetaFunctions.h", "RedispatchFunctions.h",
                          "DispatchKeyFunctions.h"))


def generated_template(target: str) -> str | None:
    """The template torchgen writes an ATen header from (torchgen/gen.py's write_with_template and write
    calls), by the header's name as included; None for a name under no generated folder."""
    if target.startswith("ATen/ops/"):
        name = target[len("ATen/ops/"):]
        return next((template for suffix, template in _PER_OP if name.endswith(suffix)), "Function.h")
    if not target.startswith("ATen/") or target.count("/") > 2 or \
            (target.count("/") == 2 and not target.startswith("ATen/core/")):
        return None
    name = target.rsplit("/", 1)[-1]
    if name.endswith("Functions_inl.h"):
        return "DispatchKeyFunctions_inl.h"
    if name.endswith("Functions.h") and name not in _NOT_PER_KEY:
        return "DispatchKeyFunctions.h"  # CPUFunctions.h, CompositeExplicitAutogradFunctions.h
    return name
