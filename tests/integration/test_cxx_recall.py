"""Recall of the C++/CUDA extractor on real PyTorch trees (2.6.0 and 1.13.1).

An independent line scan (comments, string literals and #define bodies
stripped, then regular expressions) finds every dispatch-stub site,
structured-kernel macro, __global__ definition, <<< launch and
TORCH_LIBRARY* block; every one of them must be among the extracted facts.
Exceptions are listed in EXCEPTIONS with their reason.

The trees come from TG_TEST_PYTORCH_2_6_0 / TG_TEST_PYTORCH_1_13_1 (default
~/.cache/tilegym/test-sources/pytorch-<version>); a missing tree fails.
Run with `pytest -s` to see the timings.
"""

from __future__ import annotations

import os
import re
import time
from multiprocessing import Pool
from pathlib import Path

import pytest

from tg_index.indexer import cxx

TREES = {
    "2.6.0": os.environ.get("TG_TEST_PYTORCH_2_6_0") or os.path.expanduser("~/.cache/tilegym/test-sources/pytorch-2.6.0"),
    "1.13.1": os.environ.get("TG_TEST_PYTORCH_1_13_1") or os.path.expanduser("~/.cache/tilegym/test-sources/pytorch-1.13.1"),
}
ROOTS = ("aten", "c10", "torch/csrc")
EXTENSIONS = {".cpp", ".cc", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".mm"}
SKIP_DIRS = {"third_party", "test", "tests"}

# (version, category, "path:line") -> reason. Keep this list short and honest.
EXCEPTIONS: dict[tuple[str, str, str], str] = {}

# Registered stubs without a DECLARE_DISPATCH in the scanned folders -> reason.
UNDECLARED_STUBS: dict[tuple[str, str], str] = {}


# --------------------------------------------------------------------------
# The independent scanner


def _strip(text: str) -> str:
    """Blank out comments, string/char literals and #define bodies; keep newlines."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i)
            delim = ")" + text[i + 2 : k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    in_define = False
    for k, line in enumerate(lines):
        if in_define or re.match(r"\s*#\s*define\b", line):
            cont = line.rstrip().endswith("\\")
            if not in_define:
                m = re.match(r"(\s*#\s*define\s+\w+(\([^)]*\))?)", line)
                lines[k] = m.group(1) if m else ""
            else:
                lines[k] = ""
            in_define = cont
    return "\n".join(lines)


SCANS = {
    "dispatch": re.compile(r"\b((?:ALSO_)?REGISTER_\w*DISPATCH|DECLARE_DISPATCH|DEFINE_DISPATCH)\s*\("),
    "structured": re.compile(r"\b(TORCH_(?:PRECOMPUTE_)?META_FUNC2?|TORCH_IMPL_FUNC)\s*\("),
    "global": re.compile(r"\b__global__\b"),
    "launch": re.compile(r"<<<"),
    "library": re.compile(r"\b(TORCH_LIBRARY(?:_IMPL|_FRAGMENT)?)\s*\("),
}


def scan(text: str) -> dict[str, list[tuple[int, str]]]:
    s = _strip(text)
    found: dict[str, list[tuple[int, str]]] = {k: [] for k in SCANS}
    for kind, rx in SCANS.items():
        for m in rx.finditer(s):
            if kind == "global":
                # a definition: the parameter list is followed by '{' before any ';'
                brace, semi = s.find("{", m.end()), s.find(";", m.end())
                if brace < 0 or (0 <= semi < brace):
                    continue
            if re.match(r"\s*#\s*(define|undef|ifdef|ifndef|if)\b", s[s.rfind("\n", 0, m.start()) + 1 : m.start()]):
                continue
            found[kind].append((s.count("\n", 0, m.start()) + 1, m.group(1) if m.groups() else m.group(0)))
    return found


# --------------------------------------------------------------------------
# Running the extractor over a tree


def _sources(root: Path) -> list[str]:
    out = []
    for top in ROOTS:
        for dirpath, dirnames, filenames in os.walk(root / top):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                if os.path.splitext(name)[1] in EXTENSIONS:
                    out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return out


_ROOT: Path | None = None
_MACROS: cxx.StubMacros | None = None


def _init(root: str, macros: cxx.StubMacros) -> None:
    global _ROOT, _MACROS
    _ROOT, _MACROS = Path(root), macros


def _work(rel: str) -> tuple[cxx.CxxFacts, float, float]:
    data = (_ROOT / rel).read_bytes()
    t0 = time.perf_counter()
    facts = cxx.extract(data, rel, _MACROS)
    t1 = time.perf_counter()
    return facts, t1 - t0, len(data)


@pytest.fixture(scope="module", params=sorted(TREES))
def tree(request):
    version = request.param
    root = Path(TREES[version])
    header = root / "aten/src/ATen/native/DispatchStub.h"
    if not header.is_file():
        pytest.fail(
            f"PyTorch {version} source tree not found at {root} (no aten/src/ATen/native/DispatchStub.h); "
            f"set TG_TEST_PYTORCH_{version.replace('.', '_')} or unpack it there"
        )
    macros = cxx.stub_macros(header.read_bytes())
    files = _sources(root)
    t0 = time.perf_counter()
    with Pool(2, initializer=_init, initargs=(str(root), macros)) as pool:
        results = pool.map(_work, files, chunksize=8)
    wall = time.perf_counter() - t0
    size = sum(r[2] for r in results)
    print(f"\n[{version}] extracted {len(files)} files, {size / 1e6:.1f} MB in {wall:.1f} s wall (Pool(2)); "
          f"sum of per-file extract time {sum(r[1] for r in results):.1f} s")
    facts = {r[0].path: r[0] for r in results}
    return version, root, facts


def _missing(version, root, facts, category, matches) -> list[str]:
    missing = []
    for rel, f in facts.items():
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        if not any(k in text for k in ("DISPATCH", "META_FUNC", "IMPL_FUNC", "__global__", "<<<", "TORCH_LIBRARY")):
            continue
        for line, macro in scan(text)[category]:
            key = f"{rel}:{line}"
            if (version, category, key) in EXCEPTIONS:
                continue
            if not matches(f, line, macro):
                missing.append(f"{key} {macro}")
    return missing


def test_dispatch_sites(tree):
    version, root, facts = tree
    missing = _missing(version, root, facts, "dispatch", lambda f, line, macro: any(s.line == line and s.macro == macro for s in f.stubs))
    assert not missing, f"{len(missing)} dispatch sites not extracted:\n" + "\n".join(missing[:50])


def test_structured_kernels(tree):
    version, root, facts = tree
    missing = _missing(version, root, facts, "structured", lambda f, line, macro: any(d.line == line and d.macro == macro for d in f.definitions))
    assert not missing, f"{len(missing)} structured kernels not extracted:\n" + "\n".join(missing[:50])


def test_global_kernels(tree):
    version, root, facts = tree
    missing = _missing(
        version, root, facts, "global",
        lambda f, line, _: any(d.kind == "global_kernel" and d.line <= line <= d.end_line for d in f.definitions),
    )
    assert not missing, f"{len(missing)} __global__ definitions not extracted:\n" + "\n".join(missing[:50])


def test_launches(tree):
    version, root, facts = tree
    missing = _missing(
        version, root, facts, "launch",
        lambda f, line, _: any(l.kind == "triple_chevron" and l.line == line for l in f.launches),
    )
    assert not missing, f"{len(missing)} <<< launches not extracted:\n" + "\n".join(missing[:50])


def test_library_blocks(tree):
    version, root, facts = tree
    missing = _missing(
        version, root, facts, "library",
        lambda f, line, macro: any(r.kind == "block" and r.line == line and r.macro == macro for r in f.registrations),
    )
    assert not missing, f"{len(missing)} TORCH_LIBRARY blocks not extracted:\n" + "\n".join(missing[:50])


def test_registered_stubs_are_declared(tree):
    version, _, facts = tree
    declared = {s.stub.split("::")[-1] for f in facts.values() for s in f.stubs if s.kind == "declare"}
    undeclared = sorted(
        {
            f"{s.stub} ({path}:{s.line})"
            for path, f in facts.items()
            for s in f.stubs
            if s.kind == "register" and s.stub.split("::")[-1] not in declared and (version, s.stub) not in UNDECLARED_STUBS
        }
    )
    assert not undeclared, f"{len(undeclared)} registered stubs without a declaration:\n" + "\n".join(undeclared[:50])


def test_extraction_never_failed(tree):
    version, _, facts = tree
    assert facts, f"no files extracted from the {version} tree"
    failed = sorted(f"{path}: {f.failure}" for path, f in facts.items() if f.failure)
    assert not failed, f"{len(failed)} files failed to extract:\n" + "\n".join(failed[:50])


# #include and #define lines: by the same independent scan (comments and literals blanked,
# a #define's continuation lines dropped), every one is a fact, at its line, and no fact is
# anything else.
_INCLUDE_LINE = re.compile(r"^[ \t]*#[ \t]*(?:include(?:_next)?|import)\b", re.M)  # #import: Objective-C++
_DEFINE_LINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)


def _directive_scan(text: str) -> tuple[set[int], set[tuple[int, str]]]:
    s = _strip(text)
    includes = {s.count("\n", 0, m.start()) + 1 for m in _INCLUDE_LINE.finditer(s)}
    defines = {(s.count("\n", 0, m.start()) + 1, m.group(1)) for m in _DEFINE_LINE.finditer(s)}
    return includes, defines


def test_includes_and_defines(tree):
    version, root, facts = tree
    wrong: list[str] = []
    totals = [0, 0]
    for rel, f in facts.items():
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        if "#" not in text:
            continue
        includes, defines = _directive_scan(text)
        totals[0] += len(includes)
        totals[1] += len(defines)
        got_includes = {i.line for i in f.includes}
        got_defines = {(m.line, m.name) for m in f.macros}
        wrong += [f"{rel}:{x} include not extracted" for x in sorted(includes - got_includes)]
        wrong += [f"{rel}:{x} include not in the scan" for x in sorted(got_includes - includes)]
        wrong += [f"{rel}:{x[0]} #define {x[1]} not extracted" for x in sorted(defines - got_defines)]
        wrong += [f"{rel}:{x[0]} #define {x[1]} not in the scan" for x in sorted(got_defines - defines)]
        if len(f.includes) != len(got_includes) or len(f.macros) != len(got_defines):
            wrong.append(f"{rel}: a directive extracted twice")
    print(f"\n[{version}] {totals[0]} #include (and #import) and {totals[1]} #define lines scanned")
    assert not wrong, f"{len(wrong)} directives differ from the scan:\n" + "\n".join(wrong[:50])
