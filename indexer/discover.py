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
