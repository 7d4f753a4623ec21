"""The rules model of generated registrations against the checkout's own codegen.

The checkout's generators run once per test session in a subprocess from the tree's
root, into a tmp folder (torchgen's AOTInductor shims too, which otherwise land in the
checkout; the 2.13.0 wheel's tree gets source folders of links to its packaged templates):
`python -m torchgen.gen -s aten/src/ATen -d OUT` and
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
from tg_index.indexer.dispatcher import generated_registrations, parse_version

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


def _wheel_sources(tree: Path, out: Path) -> tuple[Path, Path]:
    """The wheel's tree keeps its templates under torchgen/packaged/: source folders of links, outside the tree."""
    aten, autograd = out / "src" / "ATen", out / "src" / "autograd"
    aten.mkdir(parents=True)
    autograd.mkdir(parents=True)
    (aten / "native").symlink_to(tree / "aten/src/ATen/native")
    (aten / "templates").symlink_to(tree / "torchgen/packaged/ATen/templates")
    (autograd / "derivatives.yaml").symlink_to(tree / derivatives.DERIVATIVES)
    for name in ("templates", "deprecated.yaml"):
        (autograd / name).symlink_to(tree / "torchgen/packaged/autograd" / name)
    return aten, autograd


def run_codegen(tree: Path, out: Path) -> list[Path]:
    """Run the tree's torchgen and tools/autograd generators into out; the two output folders."""
    aten_out, autograd_out = out / "aten", out / "autograd"
    if (tree / "aten/src/ATen/templates").is_dir():
        aten_src, autograd_src, gen_autograd = Path("aten/src/ATen"), Path("tools/autograd"), "tools.autograd"
    else:
        (aten_src, autograd_src), gen_autograd = _wheel_sources(tree, out), "torchgen.packaged.autograd"
    args = ["-m", "torchgen.gen", "-s", str(aten_src), "-d", str(aten_out)]
    if "aoti_install_dir" in (tree / "torchgen/gen.py").read_text():
        args += ["--aoti-install-dir", str(out / "aoti")]
    _run(args, tree)
    native = "aten/src/ATen/native/"
    _run(["-m", f"{gen_autograd}.gen_autograd", native + "native_functions.yaml", native + "tags.yaml",
          str(autograd_out), str(autograd_src)], tree)
    return [aten_out, autograd_out]


def model_registrations(tree: Path):
    native = native_yaml.parse((tree / native_yaml.NATIVE_FUNCTIONS).read_text(),
                               (tree / native_yaml.TAGS).read_text())
    derived = derivatives.parse((tree / derivatives.DERIVATIVES).read_text())
    return generated_registrations(native, derived, parse_version((tree / "version.txt").read_text()))


# What the checkout's codegen registers per key (and the model with it), as counted on each tree.
VERSIONS = ["2.6.0", "1.13.1", "2.13.0"]
COUNTS = {
    "2.6.0": {
        "ADInplaceOrView": 1081, "Autograd": 2308, "AutogradCUDA": 3, "AutogradNestedTensor": 24,
        "BackendSelect": 89, "CPU": 1053, "CUDA": 1231, "CompositeExplicitAutograd": 1048,
        "CompositeExplicitAutogradNonFunctional": 439, "CompositeImplicitAutograd": 836,
        "CompositeImplicitAutogradNestedTensor": 4, "Functionalize": 1255, "Meta": 730, "MkldnnCPU": 56,
        "NestedTensorCPU": 99, "NestedTensorCUDA": 98, "NestedTensorMeta": 1, "QuantizedCPU": 110,
        "QuantizedCUDA": 39, "QuantizedMeta": 1, "SparseCPU": 173, "SparseCUDA": 171, "SparseCsrCPU": 140,
        "SparseCsrCUDA": 139, "SparseCsrMeta": 129, "SparseMeta": 24, "Tracer": 3129, "ZeroTensor": 8,
    },
    "1.13.1": {
        "ADInplaceOrView": 1059, "Autograd": 2097, "AutogradCUDA": 3, "AutogradNestedTensor": 13,
        "BackendSelect": 80, "CPU": 1112, "CUDA": 1135, "CompositeExplicitAutograd": 811,
        "CompositeExplicitAutogradNonFunctional": 424, "CompositeImplicitAutograd": 854,
        "CompositeImplicitAutogradNestedTensor": 3, "Functionalize": 2026, "Meta": 721, "MkldnnCPU": 51,
        "NestedTensorCPU": 46, "NestedTensorCUDA": 44, "QuantizedCPU": 107, "QuantizedCUDA": 38,
        "QuantizedMeta": 1, "SparseCPU": 154, "SparseCUDA": 154, "SparseCsrCPU": 124, "SparseCsrCUDA": 126,
        "SparseMeta": 19, "Tracer": 2937, "ZeroTensor": 8,
    },
    "2.13.0": {  # the torch 2.13.0 wheel's YAML and torchgen (torchgen/packaged/ holds its generators)
        "ADInplaceOrView": 1093, "Autograd": 2358, "AutogradCUDA": 3, "AutogradNestedTensor": 24,
        "BackendSelect": 81, "CPU": 1067, "CUDA": 1268, "CompositeExplicitAutograd": 1061,
        "CompositeExplicitAutogradNonFunctional": 442, "CompositeImplicitAutograd": 743,
        "CompositeImplicitAutogradNestedTensor": 5, "Functionalize": 1323, "Meta": 738, "MkldnnCPU": 56,
        "NestedTensorCPU": 100, "NestedTensorCUDA": 101, "NestedTensorHPU": 88, "NestedTensorMeta": 1,
        "QuantizedCPU": 110, "QuantizedCUDA": 39, "QuantizedMeta": 1, "SparseCPU": 175, "SparseCUDA": 173,
        "SparseCsrCPU": 140, "SparseCsrCUDA": 139, "SparseCsrMeta": 129, "SparseMeta": 24, "Tracer": 3086,
        "ZeroTensor": 8,
    },
}


@pytest.mark.parametrize("version", VERSIONS)
def test_generated_registrations_equal_the_codegen(codegen, version: str) -> None:
    oracle = codegen(version)
    model = {(r.op, r.key): (r.kernel, r.file) for r in model_registrations(real_tree(version))}
    missing = sorted(set(oracle) - set(model))
    extra = sorted(set(model) - set(oracle))
    differ = sorted((k, oracle[k], model[k]) for k in set(oracle) & set(model) if oracle[k] != model[k])
    assert (missing[:20], extra[:20], differ[:20]) == ([], [], [])
    assert (len(missing), len(extra), len(differ)) == (0, 0, 0)
    assert dict(sorted(Counter(key for _, key in oracle).items())) == COUNTS[version]


def test_mps_registrations_equal_torchgen_with_mps(tmp_path: Path) -> None:
    """`torchgen.gen --mps` adds RegisterMPS.cpp; the model gives the same with backends={"MPS"}."""
    tree = real_tree("2.6.0")
    _run(["-m", "torchgen.gen", "-s", "aten/src/ATen", "-d", str(tmp_path / "aten"), "--mps",
          "--aoti-install-dir", str(tmp_path / "aoti")], tree)
    oracle = codegen_registrations([tmp_path / "aten"])
    native = native_yaml.parse((tree / native_yaml.NATIVE_FUNCTIONS).read_text(), (tree / native_yaml.TAGS).read_text())
    regs = generated_registrations(native, (), (2, 6), backends=frozenset({"MPS"}))
    torchgen = {(r.op, r.key): (r.kernel, r.file) for r in regs if not r.generator.startswith("tools.")}
    assert sorted(set(oracle) ^ set(torchgen)) == []
    assert sorted(k for k in oracle if oracle[k] != torchgen[k]) == []
    assert sum(1 for _, key in oracle if key == "MPS") == 707


@pytest.mark.parametrize("version", VERSIONS)
def test_every_registration_is_one_per_op_and_key(version: str) -> None:
    regs = model_registrations(real_tree(version))
    assert len({(r.op, r.key) for r in regs}) == len(regs) == sum(COUNTS[version].values())


# (op, key) -> (derivatives.yaml line, not implemented) of a few Autograd kernels, read in the yaml files.
AUTOGRAD = {
    "2.6.0": {
        ("aten::add.Tensor", "Autograd"): (229, False),
        ("aten::add_.Tensor", "Autograd"): (229, False),  # the functional op's entry
        ("aten::add.out", "Autograd"): (229, False),
        ("aten::_foreach_add.List", "Autograd"): (229, False),  # foreach: its reference op's entry
        ("aten::sum.IntList_out", "AutogradNestedTensor"): (1692, False),
        ("aten::view_copy", "Autograd"): (1909, False),  # a view copy: the view's entry
        ("aten::zeros", "Autograd"): (None, True),
    },
    "1.13.1": {
        ("aten::add.out", "Autograd"): (212, False),
        ("aten::_foreach_add.List", "Autograd"): (None, True),  # no foreach rule in 1.13
        ("aten::sum.IntList_out", "AutogradNestedTensor"): (1549, False),
        ("aten::zeros", "Autograd"): (None, True),
    },
}


@pytest.mark.parametrize("version", ["2.6.0", "1.13.1"])
def test_autograd_kernels_name_their_derivative_entry(version: str) -> None:
    regs = {(r.op, r.key): r for r in model_registrations(real_tree(version))}
    got = {k: (regs[k].derivative.line if regs[k].derivative else None, regs[k].not_implemented)
           for k in AUTOGRAD[version]}
    assert got == AUTOGRAD[version]
    assert {regs[k].derivative.file for k in AUTOGRAD[version] if regs[k].derivative} == {derivatives.DERIVATIVES}
