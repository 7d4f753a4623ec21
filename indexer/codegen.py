"""`tg-index --codegen`: run the checkout's own code generators, and hand their C++ output to the build.

Only when asked, since it executes code from the checkout. The generators run in a
subprocess from the checkout's root with a time limit, the way a CMake build runs
them (cmake/Codegen.cmake; the commands are those of `python -m torchgen.gen --help`
and tools/autograd/gen_autograd.py's main):

    python -m torchgen.gen -s aten/src/ATen -d OUT/aten [--aoti-install-dir OUT/aoti]
    python -m tools.autograd.gen_autograd native_functions.yaml tags.yaml OUT/autograd tools/autograd

OUT is a folder of the index's cache (`<index>.codegen/`), never inside the checkout;
bytecode is not written (PYTHONDONTWRITEBYTECODE), and torchgen's AOTInductor shims,
which otherwise go into torch/csrc/inductor/aoti_torch/generated/, go to OUT/aoti when
the version has that option. A stamp of the generators' inputs lets an unchanged
checkout reuse the last output.

The build indexes the generated files that hold the dispatcher's entry points:
Register<Key>.cpp, RegisterFunctionalization_N.cpp, RegisterBackendSelect.cpp,
CompositeViewCopyKernels.cpp, the ufunc kernels (UfuncCPU_<op>.cpp,
UfuncCPUKernel_<op>.cpp, UfuncCUDA_<op>.cu), and tools/autograd's VariableType_N.cpp,
ADInplaceOrViewType_N.cpp and TraceType_N.cpp. The *Everything.cpp files repeat the
shards and are left out. They are indexed under `.tg-codegen/aten/...` and
`.tg-codegen/autograd/...`, a prefix no checkout path has; meta's `codegen_dir` says
which folder that is.

When a generator fails or runs out of time, `run` says so in one line and returns no
files: the index falls back to the rules model of the generated code.
"""

from __future__ import annotations

import fnmatch
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PREFIX = ".tg-codegen"
DEFAULT_TIMEOUT = 900  # seconds for both generators (the CLI default too); 2.6.0 takes about 50 s of CPU here
STAMP = "inputs.sha256"

# What the generated files read: the yaml, torchgen, tools/autograd and the templates.
_INPUTS = ("aten/src/ATen/native/native_functions.yaml", "aten/src/ATen/native/tags.yaml")
_INPUT_TREES = ("torchgen", "tools/autograd", "aten/src/ATen/templates")
# The generated files indexed (fnmatch patterns on the file name, per output folder).
_WANTED = {
    "aten": ("Register*.cpp", "CompositeViewCopyKernels.cpp", "UfuncCPU_*.cpp", "UfuncCPUKernel_*.cpp", "UfuncCUDA_*.cu"),
    "autograd": ("VariableType_*.cpp", "ADInplaceOrViewType_*.cpp", "TraceType_*.cpp"),
}
_NOT_WANTED = ("*Everything.cpp",)


@dataclass(frozen=True)
class Generated:
    """What a --codegen run gave: the files to index (path under PREFIX -> bytes), and one line about it."""

    files: dict[str, bytes]
    status: str  # "ran in 52.1 s", "reused (inputs unchanged)", or "failed: ..." (then files is empty)
    folder: Path


def folder_for(db: Path) -> Path:
    """The codegen output of an index lives beside it, in the index's cache."""
    return db.with_name(db.name + ".codegen")


def run(root: Path, folder: Path, timeout: float = DEFAULT_TIMEOUT) -> Generated:
    """Run the generators of the checkout at root into folder (or reuse its last output); never raises."""
    missing = [p for p in ("torchgen/gen.py", "tools/autograd/gen_autograd.py", "aten/src/ATen/templates")
               if not (root / p).exists()]
    if missing:
        return Generated({}, f"failed: the checkout has no {missing[0]}", folder)
    stamp = _stamp(root)
    if (folder / STAMP).is_file() and (folder / STAMP).read_text() == stamp:
        return Generated(_collect(folder), "reused (inputs unchanged)", folder)
    start = time.perf_counter()
    try:
        _generate(root, folder, timeout)
    except _Failed as exc:
        (folder / STAMP).unlink(missing_ok=True)
        return Generated({}, f"failed: {exc}", folder)
    (folder / STAMP).write_text(stamp)
    return Generated(_collect(folder), f"ran in {time.perf_counter() - start:.1f} s", folder)


class _Failed(Exception):
    pass


def _generate(root: Path, folder: Path, timeout: float) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    aten, autograd = folder / "aten", folder / "autograd"
    torchgen = ["-m", "torchgen.gen", "-s", "aten/src/ATen", "-d", str(aten)]
    if "aoti_install_dir" in (root / "torchgen/gen.py").read_text(errors="replace"):
        torchgen += ["--aoti-install-dir", str(folder / "aoti")]
    native = "aten/src/ATen/native/"
    deadline = time.monotonic() + timeout
    _call(root, torchgen, deadline, "torchgen.gen")
    _call(root, ["-m", "tools.autograd.gen_autograd", native + "native_functions.yaml", native + "tags.yaml",
                 str(autograd), "tools/autograd"], deadline, "tools.autograd.gen_autograd")


def _call(root: Path, args: list[str], deadline: float, name: str) -> None:
    import subprocess  # here: tg-query imports this module for PREFIX, and starts faster without it

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(root)}
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Failed(f"{name} did not start: the time limit was used up")
    try:
        done = subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True,
                              timeout=left, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise _Failed(f"{name} ran out of time") from None
    except OSError as exc:
        raise _Failed(f"{name} could not start ({exc.strerror or exc})") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise _Failed(f"{name} exited with {done.returncode}: {lines[-1].strip() if lines else 'no message'}")


def _stamp(root: Path) -> str:
    """A hash of every input the generators read, and of the interpreter that runs them."""
    import hashlib

    digest = hashlib.sha256(sys.version.encode())
    paths = [root / p for p in _INPUTS]
    for tree in _INPUT_TREES:
        paths.extend(sorted(p for p in (root / tree).rglob("*") if p.is_file() and "__pycache__" not in p.parts))
    for path in paths:
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"unreadable")
    return digest.hexdigest()


def _collect(folder: Path) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    for sub, patterns in _WANTED.items():
        base = folder / sub
        if not base.is_dir():
            continue
        for path in sorted(base.iterdir()):
            name = path.name
            if path.is_file() and any(fnmatch.fnmatchcase(name, p) for p in patterns) \
                    and not any(fnmatch.fnmatchcase(name, p) for p in _NOT_WANTED):
                found[f"{PREFIX}/{sub}/{name}"] = path.read_bytes()
    return found


def is_generated(path: str) -> bool:
    """A files.path that --codegen's output gave."""
    return path.startswith(PREFIX + "/")
