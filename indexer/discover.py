"""The checkout: find it, check it is one, read files without ever leaving it."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import TgIndexError
from .native_yaml import NATIVE_FUNCTIONS


def check_checkout(root: Path) -> Path:
    """Resolve the checkout root; raise a one-line error when it is not a PyTorch checkout."""
    if not root.exists():
        raise TgIndexError(f"no checkout at {root}; clone PyTorch there (see README) or pass its path")
    if not root.is_dir():
        raise TgIndexError(f"{root} is not a directory; pass the root of a PyTorch checkout")
    if not (root / NATIVE_FUNCTIONS).is_file():
        raise TgIndexError(f"{root} is not a PyTorch checkout: {NATIVE_FUNCTIONS} is missing")
    return root.resolve()


def inside(root: Path, rel: str) -> Path | None:
    """The real path of root/rel, or None when a symlink leads out of the checkout."""
    path = (root / rel).resolve()
    if path != root and root not in path.parents:
        return None
    return path


def read_text(root: Path, rel: str) -> str | None:
    """A file of the checkout as text; None when absent. A link out of the checkout is an error."""
    path = inside(root, rel)
    if path is None:
        raise TgIndexError(f"{rel} is a symlink that leads out of the checkout; refusing to read it")
    if not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def pytorch_version(root: Path) -> str:
    text = read_text(root, "version.txt")
    return text.strip() if text else "unknown"


# Source files of the C++/CUDA layer, by suffix.
CXX_LANGUAGES = {
    ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".h": "cpp", ".hpp": "cpp",
    ".cu": "cuda", ".cuh": "cuda", ".mm": "objcpp",
}
# Folder names never walked into (third-party code, build output, tests, platform apps).
DEFAULT_EXCLUDES = (".git", "third_party", "build", "test", "tests", "benchmarks", "android", "ios", "docs")


def walk_sources(root: Path, excludes: tuple[str, ...] = DEFAULT_EXCLUDES) -> tuple[list[str], list[str]]:
    """(C/C++/CUDA/Objective-C++ files, symlinks skipped because they lead out), both relative and sorted.

    An exclude is a folder name (`test`) or a path relative to the checkout (`torch/csrc/deploy`).
    Symlinked folders are not followed; a symlinked file is kept only when it stays inside the checkout.
    """
    names = {e for e in excludes if "/" not in e}
    paths = {e.strip("/") for e in excludes if "/" in e}
    found: list[str] = []
    outside: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir
        dirnames[:] = [d for d in dirnames
                       if d not in names and (f"{rel_dir}/{d}" if rel_dir else d) not in paths]
        for name in filenames:
            if os.path.splitext(name)[1] not in CXX_LANGUAGES:
                continue
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if os.path.islink(os.path.join(dirpath, name)) and inside(root, rel) is None:
                outside.append(rel)
                continue
            found.append(rel)
    return sorted(found), sorted(outside)
