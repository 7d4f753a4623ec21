"""The rules model of generated registrations against the checkout's own codegen.

The checkout's generators run once per test session in a subprocess from the tree's
root, into a tmp folder (torchgen's AOTInductor shims too, which otherwise land in the
checkout): `python -m torchgen.gen -s aten/src/ATen -d OUT` and
`python -m tools.autograd.gen_autograd native_functions.yaml tags.yaml OUT2 tools/autograd`.
Their registrations are read from the generated files' TORCH_LIBRARY_IMPL blocks
(the sharded files; the *Everything.cpp copies repeat them) and compared per
(op, key) with `generated_registrations`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tg_index.indexer import derivatives, native_yaml
from tg_index.indexer.dispatcher import generated_registrations, version_of

from ..conftest import real_tree

pytestmark = pytest.mark.integration

_BLOCK = re.compile(r"^TORCH_LIBRARY_IMPL\((\w+),\s*(\w+),\s*m\)\s*\{", re.M)
_IMPL = re.compile(r'm\.impl\(\s*"([^"]+)"\s*,\s*(.*?)\)\s*;', re.S)
_TORCH_FN = re.compile(r"TORCH_FN\(([\w:]+)\)")
_CAST = re.compile(r"static_cast<.*>\(([\w:]+)\)", re.S)
_GENERATED = ("Register*.cpp", "VariableType_*.cpp", "ADInplaceOrViewType_*.cpp", "TraceType_*.cpp")


def _block_body(text: str, start: int) -> str:
    """The text of a `{ ... }` block opened just before start (the generated bodies hold no braces in strings)."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    raise AssertionError("unclosed TORCH_LIBRARY_IMPL block")


def codegen_registrations(folders: list[Path]) -> dict[tuple[str, str], tuple[str, str]]:
    """(op, key) -> (kernel, file) of every generated file; the kernel is the TORCH_FN or static_cast
    target, else the registered expression."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for folder in folders:
        for pattern in _GENERATED:
            for path in sorted(folder.glob(pattern)):
                if "Everything" in path.name:
                    continue
                text = path.read_text()
                for block in _BLOCK.finditer(text):
                    namespace, key = block.groups()
                    for impl in _IMPL.finditer(_block_body(text, block.end())):
                        name, payload = impl.groups()
                        op = name if "::" in name else f"{namespace}::{name}"
                        fn = _TORCH_FN.fullmatch(payload.strip()) or _CAST.fullmatch(payload.strip())
                        assert (op, key) not in found, (op, key, path.name)
                        found[(op, key)] = (fn.group(1) if fn else " ".join(payload.split()), path.name)
    return found


def _run(args: list[str], cwd: Path) -> None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def run_codegen(tree: Path, out: Path) -> list[Path]:
    """Run the tree's torchgen and tools/autograd generators into out; the two output folders."""
    aten, autograd = out / "aten", out / "autograd"
    args = ["-m", "torchgen.gen", "-s", "aten/src/ATen", "-d", str(aten)]
    if "aoti_install_dir" in (tree / "torchgen/gen.py").read_text():
        args += ["--aoti-install-dir", str(out / "aoti")]
    _run(args, tree)
    native = "aten/src/ATen/native/"
    _run(["-m", "tools.autograd.gen_autograd", native + "native_functions.yaml", native + "tags.yaml",
          str(autograd), "tools/autograd"], tree)
    return [aten, autograd]


@pytest.fixture(scope="session")
def codegen(tmp_path_factory: pytest.TempPathFactory):
    """version -> the registrations the checkout's codegen writes, generated on first use."""
    cache: dict[str, dict[tuple[str, str], str]] = {}

    def get(version: str) -> dict[tuple[str, str], str]:
        if version not in cache:
            out = tmp_path_factory.mktemp(f"codegen-{version}")
            cache[version] = codegen_registrations(run_codegen(real_tree(version), out))
        return cache[version]

    return get


def model_registrations(tree: Path) -> dict[tuple[str, str], str]:
    native = native_yaml.parse((tree / native_yaml.NATIVE_FUNCTIONS).read_text(),
                               (tree / native_yaml.TAGS).read_text())
    derived = derivatives.parse((tree / derivatives.DERIVATIVES).read_text())
    regs = generated_registrations(native, derived, version_of(tree))
    return {(r.op, r.key): r.kernel for r in regs}
