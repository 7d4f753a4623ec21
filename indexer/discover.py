"""The checkout: find it, check it is one, find and read its files without ever leaving it.

Only regular files inside the checkout, under a size cap, are read. A FIFO or a
device is never opened (lstat/stat first; O_NONBLOCK as a second guard, and
fstat on the open file as a third). Everything passed over is returned with its
status (a `Skip`), so the build can list it in the `files` table.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import StrEnum
from pathlib import Path

from . import yaml_lines
from .errors import TgIndexError
from .native_yaml import NATIVE_FUNCTIONS

# PyTorch 2.6.0's largest source file (aten/src/ATen/native/SobolEngineOpsUtils.cpp) is 2.1 MB.
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024


class Skip(StrEnum):
    """files.status of a file or folder that is not read (a detail may follow in parentheses)."""

    OUTSIDE = "skipped: symlink leads out of the checkout"
    LOOP = "skipped: symlink loop"
    BROKEN = "skipped: broken symlink"
    SYMLINKED_DIR = "skipped: symlinked directory"
    FIFO = "skipped: fifo"
    DEVICE = "skipped: device"
    SOCKET = "skipped: socket"
    DIRECTORY = "skipped: directory"
    SPECIAL = "skipped: not a regular file"
    UNREADABLE = "skipped: unreadable"
    UNREADABLE_DIR = "skipped: unreadable directory"
    NAME = "skipped: name is not UTF-8"
    TOO_LARGE = "skipped: too large"


class Skipped(Exception):
    """A file that is not read: its status for the files table."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status

    @property
    def reason(self) -> str:
        """The status as a phrase: `a fifo, not a regular file`, `unreadable (Permission denied)`."""
        what = self.status.removeprefix("skipped: ")
        kinds = (Skip.FIFO, Skip.DEVICE, Skip.SOCKET, Skip.DIRECTORY, Skip.LOOP, Skip.BROKEN)
        return f"a {what}, not a regular file" if self.status in kinds else what


def _kind(mode: int) -> Skip | None:
    """None for a regular file, else what it is."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return Skip.FIFO
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Skip.DEVICE
    if stat.S_ISSOCK(mode):
        return Skip.SOCKET
    if stat.S_ISDIR(mode):
        return Skip.DIRECTORY
    return Skip.SPECIAL


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os functions give undecodable bytes as lone surrogates
        return False
    return True


def printable(rel: str) -> str:
    """A path that may hold bytes that are not UTF-8, with those bytes written as \\xNN."""
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def check_checkout(root: Path) -> Path:
    """Resolve the checkout root; raise a one-line error when it is not a PyTorch checkout."""
    if not _utf8(str(root)):
        raise TgIndexError(f"the checkout path {printable(str(root))} is not UTF-8; rename or move the checkout")
    if not root.exists():
        raise TgIndexError(f"no checkout at {root}; clone PyTorch there (see README) or pass its path")
    if not root.is_dir():
        raise TgIndexError(f"{root} is not a directory; pass the root of a PyTorch checkout")
    if not os.path.lexists(root / NATIVE_FUNCTIONS):
        raise TgIndexError(f"{root} is not a PyTorch checkout: {NATIVE_FUNCTIONS} is missing")
    return root.resolve()


def classify(root: Path, rel: str) -> Path:
    """The real path of root/rel when it is a regular file inside the checkout; else raise Skipped."""
    path = Path(os.path.realpath(root / rel))
    if path != root and root not in path.parents:
        raise Skipped(Skip.OUTSIDE)
    try:
        mode = os.stat(root / rel).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Skipped(Skip.LOOP) from None
        if exc.errno == errno.ENOENT and os.path.islink(root / rel):
            raise Skipped(Skip.BROKEN) from None
        raise Skipped(f"{Skip.UNREADABLE} ({exc.strerror})") from None
    kind = _kind(mode)
    if kind is not None:
        raise Skipped(kind)
    return path


def read_regular(path: Path, max_size: int) -> bytes:
    """The bytes of a regular file of at most max_size bytes; anything else raises Skipped."""
    return _read_regular(path, max_size)[0]


def _read_regular(path: Path, max_size: int) -> tuple[bytes, os.stat_result]:
    """read_regular, with the file's status as it was opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        raise Skipped(f"{Skip.UNREADABLE} ({exc.strerror})") from None
    with open(fd, "rb") as f:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)  # it may have changed since it was looked at
        if kind is not None:
            raise Skipped(kind)
        if info.st_size > max_size:
            raise Skipped(f"{Skip.TOO_LARGE} ({info.st_size} bytes; --max-file-size is {max_size})")
        try:
            data = f.read(info.st_size + 1)
            if len(data) > info.st_size:  # it grew since fstat: read on, up to the cap
                data += f.read(max_size + 1 - len(data))
        except OSError as exc:
            raise Skipped(f"{Skip.UNREADABLE} ({exc.strerror})") from None
    if len(data) > max_size:
        raise Skipped(f"{Skip.TOO_LARGE} (over {max_size} bytes; --max-file-size is {max_size})")
    return data, info


def read_each(root: Path, rels: Iterable[str], max_size: int, skipped: dict[str, str]) -> Iterator[tuple[str, bytes, Stat | None]]:
    """(path, bytes, its Stat as read, or None when it changed while it was read) of each file read; a file
    that is not read goes into skipped with its status."""
    for rel in rels:
        try:
            # A symlink is looked at again (it may have been changed since the walk) and its target read.
            path = classify(root, rel) if os.path.islink(root / rel) else root / rel
            data, info = _read_regular(path, max_size)
        except Skipped as skip:
            skipped[rel] = skip.status
            continue
        yield rel, data, stat_of(info) if len(data) == info.st_size else None


# What says a file is the one read before without reading it again (see build.py's _read_checkout): its size,
# modification and change times in nanoseconds, inode and device. Any write changes the change time, which no
# tool can set; a file renamed or copied into place is another inode.
Stat = tuple[int, int, int, int, int]


def stat_of(info: os.stat_result) -> Stat:
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


def stat_now(root: Path, rel: str) -> Stat | None:
    """The Stat of root/rel now (a symlink followed), None when it cannot be looked at."""
    try:
        return stat_of(os.stat(f"{root}/{rel}"))
    except (OSError, ValueError):
        return None


class Contents(Mapping[str, bytes]):
    """The checkout's files by relative path: the bytes of those read, and the files not read because their
    Stat was the one recorded when the index updated read them (they are read here when asked for, which
    only a few stages do: the files extracted again with another file's macros, the dispatch-key headers)."""

    def __init__(self, root: Path, max_size: int, data: dict[str, bytes], unread: Iterable[str] = ()):
        self._root, self._max_size, self._data, self._unread = root, max_size, data, set(unread)

    def __getitem__(self, rel: str) -> bytes:
        found = self._data.get(rel)
        if found is not None:
            return found
        if rel not in self._unread:
            raise KeyError(rel)
        skipped: dict[str, str] = {}
        for _rel, data, _stat in read_each(self._root, (rel,), self._max_size, skipped):
            self._data[rel] = data
            self._unread.discard(rel)
            return data
        raise TgIndexError(f"{rel} changed while it was indexed ({skipped[rel].removeprefix('skipped: ')}); "
                           "run tg-index again")

    def __contains__(self, rel: object) -> bool:
        return rel in self._data or rel in self._unread

    def __iter__(self) -> Iterator[str]:  # over a copy: reading a file moves it from one collection to the other
        return iter([*self._data, *sorted(self._unread)])

    def __len__(self) -> int:
        return len(self._data) + len(self._unread)

    def update(self, more: Mapping[str, bytes]) -> None:
        self._data.update(more)
        self._unread.difference_update(more)


def read_yaml(root: Path, rel: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> str | None:
    """One of the checkout's YAML files as text; None when absent. Anything unreadable is a one-line error."""
    if not os.path.lexists(root / rel):
        return None
    try:
        data = read_regular(classify(root, rel), max_size)
    except Skipped as skip:
        if skip.status == Skip.OUTSIDE:
            raise TgIndexError(f"{rel} is a symlink that leads out of the checkout; refusing to read it") from None
        raise TgIndexError(f"cannot read {rel}: {skip.reason}") from None
    return yaml_lines.decode(data, rel)


def pytorch_version(root: Path) -> str:
    try:
        text = read_regular(classify(root, "version.txt"), 4096).decode("utf-8", "replace")
    except Skipped:
        return "unknown"
    return text.strip() or "unknown"


# Source files of the C++/CUDA layer, by suffix.
CXX_LANGUAGES = {
    ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".h": "cpp", ".hpp": "cpp",
    ".cu": "cuda", ".cuh": "cuda", ".mm": "objcpp",
}
# Folder names never walked into (third-party code, build output, tests, platform apps).
DEFAULT_EXCLUDES = (".git", "third_party", "build", "test", "tests", "benchmarks", "android", "ios", "docs")


def _join(rel_dir: str, name: str) -> str:
    return f"{rel_dir}/{name}" if rel_dir else name


def _entries(root: Path, rel_dir: str, skipped: dict[str, str]) -> list[os.DirEntry]:
    try:
        with os.scandir(root / rel_dir) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError as exc:
        skipped[printable(rel_dir) or "."] = f"{Skip.UNREADABLE_DIR} ({exc.strerror})"
        return []


def _walk(root: Path, start: str, wanted: Callable[[str], bool], skip_dir: Callable[[str, str], bool],
          found: list[str], skipped: dict[str, str]) -> None:
    """Files under root/start that `wanted` takes, into found (regular files inside the checkout);
    what is passed over, into skipped. Symlinked folders are listed, never walked into."""
    stack = [start]
    while stack:
        rel_dir = stack.pop()
        for entry in _entries(root, rel_dir, skipped):
            rel = _join(rel_dir, entry.name)
            link = entry.is_symlink()
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:  # a symlink loop: classify says so below, when the name is wanted
                is_dir = False
            if is_dir:
                if skip_dir(rel_dir, entry.name):
                    continue
                if not _utf8(entry.name):
                    skipped[printable(rel)] = Skip.NAME
                elif link:
                    skipped[rel] = Skip.SYMLINKED_DIR
                else:
                    stack.append(rel)
                continue
            if not wanted(rel):
                continue
            if not _utf8(entry.name):
                skipped[printable(rel)] = Skip.NAME
            elif not link and entry.is_file(follow_symlinks=False):
                found.append(rel)
            else:
                try:
                    classify(root, rel)
                    found.append(rel)
                except Skipped as skip:
                    skipped[rel] = skip.status


def walk_sources(root: Path, excludes: tuple[str, ...] = DEFAULT_EXCLUDES) -> tuple[list[str], dict[str, str]]:
    """(C/C++/CUDA/Objective-C++ files to read, {path: status} of what is passed over), paths relative.

    An exclude is a folder name (`test`) or a path relative to the checkout (`torch/csrc/deploy`).
    Symlinked folders are not followed; a symlinked file is kept only when it stays inside the checkout.
    """
    names = {e for e in excludes if "/" not in e}
    paths = {e.strip("/") for e in excludes if "/" in e}
    found: list[str] = []
    skipped: dict[str, str] = {}
    _walk(root, "", lambda rel: os.path.splitext(rel)[1] in CXX_LANGUAGES,
          lambda rel_dir, name: name in names or _join(rel_dir, name) in paths, found, skipped)
    return sorted(found), skipped


def _pattern(glob: str) -> re.Pattern[str]:
    """A glob of relative paths as a regular expression: `**/` is any number of folders, `*` and `?` stay in one."""
    out = []
    for part in re.split(r"(\*\*/|\*|\?)", glob):
        out.append({"**/": "(?:[^/]+/)*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part)))
    return re.compile("".join(out))


def glob_files(root: Path, globs: Iterable[str]) -> tuple[list[str], dict[str, str]]:
    """(files matching any of the globs, {path: status} of what is passed over), as walk_sources."""
    found: list[str] = []
    skipped: dict[str, str] = {}
    for glob in globs:
        wild = re.search(r"[*?]", glob)
        start = (glob if wild is None else glob[: wild.start()]).rpartition("/")[0]  # the folder to look in
        if start and os.path.realpath(root / start) != str(root / start):  # it, or a folder above it, is a symlink
            if os.path.isdir(root / start):
                skipped[start] = Skip.SYMLINKED_DIR
            continue
        if wild is None:
            if os.path.lexists(root / glob):
                try:
                    classify(root, glob)
                    found.append(glob)
                except Skipped as skip:
                    skipped[glob] = skip.status
        elif os.path.isdir(root / start):
            matches = _pattern(glob).fullmatch
            _walk(root, start, lambda rel: matches(rel) is not None, lambda _d, _n: False, found, skipped)
    return sorted(set(found)), skipped
