"""python_api on real PyTorch checkouts: recall against independent line scans, and spot checks.

The checkouts come from TG_TEST_PYTORCH_2_6_0 / TG_TEST_PYTORCH_1_13_1 (default
~/.cache/tilegym/test-sources/pytorch-<version>). A missing checkout fails: these
tests are the evidence that the extractor works on PyTorch, not on our fixtures.
Every expected answer below was read in the sources of that version.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest

from tg_index.indexer.facts import Location
from tg_index.indexer.python_api import (
    BindingFact,
    DecompFact,
    PyFacts,
    ReexportFact,
    extract,
    module_classes_of,
    py_source_files,
)
from tg_index.indexer.python_api.subtree import Subtree

VERSIONS = {
    "2.6.0": "TG_TEST_PYTORCH_2_6_0",
    "1.13.1": "TG_TEST_PYTORCH_1_13_1",
}


def checkout(version: str) -> Path:
    env = VERSIONS[version]
    root = Path(os.environ.get(env) or os.path.expanduser(f"~/.cache/tilegym/test-sources/pytorch-{version}"))
    if not (root / "torch" / "nn" / "functional.py").is_file():
        pytest.fail(
            f"no PyTorch {version} checkout at {root}; set {env} to a checkout of v{version} "
            f"(see DESIGN.md, 'Real sources to work against')"
        )
    return root


@cache
def all_facts(version: str) -> dict[str, PyFacts]:
    root = checkout(version)
    return {rel: extract((root / rel).read_bytes(), rel) for rel in py_source_files(root)}


def calls(version: str, rel: str, caller: str) -> list[tuple[str, str, int]]:
    return [(c.kind, c.name, c.loc.line) for c in all_facts(version)[rel].calls if c.caller == caller]


both = pytest.mark.parametrize("version", list(VERSIONS))
pytestmark = pytest.mark.integration


# --- recall against independent scans -------------------------------------------------------


@both
def test_every_file_parses(version):
    facts = all_facts(version)
    assert len(facts) > 40
    assert [f.error for f in facts.values() if f.error] == []


@both
def test_every_functional_def_is_extracted(version):
    rel = "torch/nn/functional.py"
    lines = (checkout(version) / rel).read_text().splitlines()
    top_level = {(m[2], i) for i, line in enumerate(lines, 1) if (m := re.match(r"(async\s+)?def\s+(\w+)", line))}
    got = {(d.name, d.loc.line) for d in all_facts(version)[rel].defs if d.kind == "function"}
    assert len(top_level) > 100  # 117 in 2.6.0, 110 in 1.13.1
    assert top_level <= got, f"missed: {sorted(top_level - got)}"
    # anything more is a def nested in a module-level if/try block, hence indented
    assert all(lines[line - 1][:1].isspace() for _, line in got - top_level)


def _scan_module_classes(root: Path) -> set[tuple[str, str]]:
    """(file, class) of every nn.Module subclass under torch/nn/modules, by class-header regex and base-name closure."""
    header = re.compile(r"^class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:", re.M)
    entries: list[tuple[str, str, set[str]]] = []
    for path in sorted((root / "torch/nn/modules").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for m in header.finditer(path.read_text()):
            written = re.sub(r"\[[^\]]*\]", "", m[2] or "")
            leaves = {b.strip().split(".")[-1] for b in written.split(",") if b.strip() and "=" not in b}
            entries.append((rel, m[1], leaves))
    names = {"Module"}
    while True:
        grown = names | {name for _, name, leaves in entries if leaves & names}
        if grown == names:
            break
        names = grown
    # a class is a subclass when one of its own bases is; _functions.py reuses module names for autograd Functions
    return {(rel, name) for rel, name, leaves in entries if leaves & names}


@both
def test_every_module_subclass_under_nn_modules_is_extracted(version):
    facts = all_facts(version)
    found = module_classes_of(facts.values())
    got = {
        (c.loc.file, c.name)
        for f in facts.values()
        if f.path.startswith("torch/nn/modules/")
        for c in f.classes
        if c.qualname in found
    }
    expected = _scan_module_classes(checkout(version))
    assert len(expected) > 150
    assert got == expected, f"missed {sorted(expected - got)}, extra {sorted(got - expected)}"


@both
def test_one_traversal_gives_ast_walk_order_for_every_def(version):
    # the order that decides a name imported twice in a def, and which inner def registers for a helper
    root = checkout(version)
    checked = 0
    for rel in py_source_files(root):
        for node in ast.walk(ast.parse((root / rel).read_bytes())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sub = Subtree.of_def(node)
                walked = list(ast.walk(node))[1:]
                imports = [n for n in walked if isinstance(n, (ast.Import, ast.ImportFrom))]
                inner = [n for n in walked if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                assert (sub.imports, sub.defs) == (imports, inner), (rel, node.lineno)
                checked += 1
    # every def, nested ones included (1829 and 1310 before optim, nn.utils, nn.init, nn.attention, distributions;
    # 3169 and 2458 before torch/backends/cuda/__init__.py)
    assert checked == {"2.6.0": 3198, "1.13.1": 2476}[version]


@both
def test_every_register_decomposition_decorator_is_extracted(version):
    rel = "torch/_decomp/decompositions.py"
    lines = (checkout(version) / rel).read_text().splitlines()
    expected = set()
    for i, line in enumerate(lines, 1):
        if m := re.match(r"@register_decomposition\((.*)\)\s*$", line):
            for op in re.findall(r"aten\.([\w.]+)", m[1]):
                expected.add((op, i))
    got = {(d.op, d.loc.line) for d in all_facts(version)[rel].decomps if d.registrar == "register_decomposition"}
    assert len(expected) > 80
    assert expected <= got, f"missed: {sorted(expected - got)}"


# --- spot checks, read in the sources ---------------------------------------------------------

SPOT = {
    # version: (LayerNorm.forward -> F.layer_norm, F.layer_norm -> torch.layer_norm, LSTM.forward -> _VF.lstm,
    #           F.cross_entropy -> torch._C._nn.cross_entropy_loss, gelu binding, conv2d binding, linear binding,
    #           Conv2d.forward -> self._conv_forward, Conv2d._conv_forward -> F.conv2d, Linear.forward -> F.linear,
    #           F.softmax -> input.softmax, dir loop)
    "2.6.0": dict(
        ln_forward=217,
        ln_functional=2910,
        lstm=[1124, 1136],
        cross_entropy=3494,
        gelu=1987,
        conv2d=92,
        linear=2309,
        conv_forward=554,
        conv_fn=[538, 549],
        linear_forward=125,
        softmax=2140,
        dir_loop=2069,
        vf=31,
    ),
    "1.13.1": dict(
        ln_forward=190,
        ln_functional=2515,
        lstm=[774, 777],
        cross_entropy=3026,
        gelu=1706,
        conv2d=81,
        linear=1993,
        conv_forward=463,
        conv_fn=[456, 459],
        linear_forward=114,
        softmax=1841,
        dir_loop=817,
        vf=30,
    ),
}


@both
def test_layer_norm_chain(version):
    s = SPOT[version]
    assert ("functional", "layer_norm", s["ln_forward"]) in calls(
        version, "torch/nn/modules/normalization.py", "torch.nn.modules.normalization.LayerNorm.forward"
    )
    assert ("torch", "layer_norm", s["ln_functional"]) in calls(
        version, "torch/nn/functional.py", "torch.nn.functional.layer_norm"
    )


@both
def test_lstm_forward_calls_vf_lstm(version):
    got = calls(version, "torch/nn/modules/rnn.py", "torch.nn.modules.rnn.LSTM.forward")
    assert [line for kind, name, line in got if (kind, name) == ("vf", "lstm")] == SPOT[version]["lstm"]


@both
def test_cross_entropy_calls_torch_c_nn(version):
    got = calls(version, "torch/nn/functional.py", "torch.nn.functional.cross_entropy")
    assert ("torch_c_nn", "cross_entropy_loss", SPOT[version]["cross_entropy"]) in got


@both
def test_functional_bindings_to_c(version):
    s = SPOT[version]
    bindings = {b.qualname: b for b in all_facts(version)["torch/nn/functional.py"].bindings}
    loc = lambda line: Location("torch/nn/functional.py", line)  # noqa: E731
    assert bindings["torch.nn.functional.gelu"] == BindingFact(
        "torch.nn.functional.gelu", "torch_c_nn", "gelu", "torch._C._nn.gelu", "_add_docstr", loc(s["gelu"])
    )
    assert bindings["torch.nn.functional.conv2d"] == BindingFact(
        "torch.nn.functional.conv2d", "torch", "conv2d", "torch.conv2d", "_add_docstr", loc(s["conv2d"])
    )
    assert bindings["torch.nn.functional.linear"] == BindingFact(
        "torch.nn.functional.linear", "torch_c_nn", "linear", "torch._C._nn.linear", "_add_docstr", loc(s["linear"])
    )
    pool = [b.name for b in all_facts(version)["torch/nn/functional.py"].bindings if b.qualname.endswith(".max_pool2d")]
    assert pool == ["max_pool2d_with_indices", "_max_pool2d"]  # boolean_dispatch(if_true=..., if_false=...)


@both
def test_conv2d_goes_through_conv_forward(version):
    s = SPOT[version]
    rel = "torch/nn/modules/conv.py"
    assert ("python", "_conv_forward", s["conv_forward"]) in calls(version, rel, "torch.nn.modules.conv.Conv2d.forward")
    got = calls(version, rel, "torch.nn.modules.conv.Conv2d._conv_forward")
    assert [line for kind, name, line in got if (kind, name) == ("functional", "conv2d")] == s["conv_fn"]


@both
def test_linear_and_softmax(version):
    s = SPOT[version]
    assert ("functional", "linear", s["linear_forward"]) in calls(
        version, "torch/nn/modules/linear.py", "torch.nn.modules.linear.Linear.forward"
    )
    assert ("tensor_method", "softmax", s["softmax"]) in calls(
        version, "torch/nn/functional.py", "torch.nn.functional.softmax"
    )


@both
def test_torch_exports_variable_functions_and_vf_forwards(version):
    s = SPOT[version]
    torch_init = all_facts(version)["torch/__init__.py"].reexports
    assert (
        ReexportFact(
            "torch", "*", "torch._C._VariableFunctions", "dir_loop", ("__*", "unique_dim"), Location("torch/__init__.py", s["dir_loop"])
        )
        in torch_init
    )
    assert any(r.kind == "star_import" and r.source == "torch.functional" for r in torch_init)
    assert all_facts(version)["torch/_VF.py"].reexports == (
        ReexportFact("torch._VF", "*", "torch._C._VariableFunctions", "getattr_forward", (), Location("torch/_VF.py", s["vf"])),
    )
    functional_all = {r.name for r in all_facts(version)["torch/functional.py"].reexports if r.kind == "all"}
    assert {"einsum", "norm", "split", "stft", "unique"} <= functional_all


NATIVE_LAYER_NORM = {
    "2.6.0": [
        DecompFact(
            "ref", "native_layer_norm", "aten", "torch._refs.native_layer_norm", "register_decomposition", "written",
            Location("torch/_refs/__init__.py", 3237),
        ),
        DecompFact(
            "decomposition", "native_layer_norm_backward.default", "aten",
            "torch._decomp.decompositions.native_layer_norm_backward", "register_decomposition", "written",
            Location("torch/_decomp/decompositions.py", 1621),
        ),
        DecompFact(
            "decomposition", "native_layer_norm_backward.out", "aten",
            "torch._decomp.decompositions.native_layer_norm_backward_out", "register_decomposition", "written",
            Location("torch/_decomp/decompositions.py", 1702),
        ),
        DecompFact(
            "decomposition", "native_layer_norm_backward", "aten",
            "torch._decomp.decompositions_for_jvp.native_layer_norm_backward", "register_decomposition_for_jvp",
            "written", Location("torch/_decomp/decompositions_for_jvp.py", 131),
        ),
    ],
    "1.13.1": [
        DecompFact(
            "ref", "native_layer_norm", "aten", "torch._refs.native_layer_norm", "register_decomposition", "written",
            Location("torch/_refs/__init__.py", 2679),
        ),
        DecompFact(
            "decomposition", "native_layer_norm_backward", "aten",
            "torch._decomp.decompositions.native_layer_norm_backward", "register_decomposition", "written",
            Location("torch/_decomp/decompositions.py", 1232),
        ),
        DecompFact(
            "decomposition", "native_layer_norm_backward", "aten",
            "torch._decomp.decompositions_for_jvp.native_layer_norm_backward", "register_decomposition_for_jvp",
            "written", Location("torch/_decomp/decompositions_for_jvp.py", 120),
        ),
    ],
}  # fmt: skip


@both
def test_native_layer_norm_decompositions(version):
    got = [d for f in all_facts(version).values() for d in f.decomps if d.op and d.op.startswith("native_layer_norm")]
    assert sorted(got, key=lambda d: d.loc) == sorted(NATIVE_LAYER_NORM[version], key=lambda d: d.loc)


@both
def test_register_inplace_helper_calls(version):
    rel = "torch/_decomp/decompositions.py"
    lines = (checkout(version) / rel).read_text().splitlines()
    expected = {(m[1], i) for i, line in enumerate(lines, 1) if (m := re.match(r"register_inplace\(aten\.(\w+),", line))}
    got = {(d.op, d.loc.line) for d in all_facts(version)[rel].decomps if d.registrar == "register_inplace"}
    assert len(expected) >= 8  # 25 in 2.6.0, 8 in 1.13.1
    assert got == expected


def test_refs_factory_naming_rule_2_6_0():
    decomps = {(d.function, d.op, d.how) for f in all_facts("2.6.0").values() for d in f.decomps}
    assert ("torch._refs.abs", "abs", "inferred") in decomps  # @_make_elementwise_unary_reference(...)
    assert ("torch._refs.i0", "i0", "written") in decomps  # aten_op=aten.i0
    assert ("torch._refs.abs_", "abs_", "inferred") in decomps  # abs_ = _make_inplace(abs)
    assert ("torch._refs.special.i0e", "special_i0e", "inferred") in decomps  # prefix from the module
    assert ("torch._refs.nn.functional.celu_", "celu_", "inferred") in decomps


# --- the modules added for issue 13: optim, nn.utils, nn.init, nn.attention, distributions ---------

NEW_MODULES = ("torch/optim/", "torch/nn/utils/", "torch/nn/init.py", "torch/nn/attention/", "torch/distributions/",
               "torch/backends/cuda/")  # the sdp flag setters of nn.attention


def _scan_defs_and_classes(text: str) -> set[tuple[str, str, int]]:
    """(def|class, name, line) of every def and class not inside a def, from the token stream (strings skipped):
    a `def`/`class` keyword that starts a logical line, nested by its column under the headers above it."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
              if t.type not in (tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    found: set[tuple[str, str, int]] = set()
    open_headers: list[tuple[int, str]] = []  # (column, def|class) of the headers that enclose the line
    line_start = True
    for i, t in enumerate(tokens):
        if t.type in (tokenize.NEWLINE, tokenize.NL):
            line_start = True
            continue
        starts, line_start = line_start, False
        header = t.type == tokenize.NAME and t.string in ("def", "class")
        if not header or not (starts or (tokens[i - 1].string == "async" and tokens[i - 1].start[1] == t.start[1] - 6)):
            continue
        column = tokens[i - 1].start[1] if not starts else t.start[1]
        while open_headers and open_headers[-1][0] >= column:
            open_headers.pop()
        if all(kind == "class" for _, kind in open_headers):
            found.add((t.string, tokens[i + 1].string, t.start[0]))
        open_headers.append((column, t.string))
    return found


# without torch/backends/cuda/__init__.py: 100 files, 1470 defs and classes (2.6.0); 92, 1278 (1.13.1)
@pytest.mark.parametrize(("version", "files", "total"), [("2.6.0", 101, 1503), ("1.13.1", 93, 1300)])
def test_every_def_and_class_of_the_new_modules_is_extracted(version, files, total):
    root = checkout(version)
    facts = {rel: f for rel, f in all_facts(version).items() if rel.startswith(NEW_MODULES)}
    assert len(facts) == files
    expected_total = 0
    for rel, f in sorted(facts.items()):
        expected = _scan_defs_and_classes((root / rel).read_text())
        got = {("def", d.name, d.loc.line) for d in f.defs} | {("class", c.name, c.loc.line) for c in f.classes}
        assert got == expected, f"{rel}: missed {sorted(expected - got)[:5]}, extra {sorted(got - expected)[:5]}"
        expected_total += len(expected)
    assert expected_total == total


@both
def test_optimizer_paths_through_the_local_alias(version):
    # adam.py (2.6.0): 870 func = _fused_adam, 872 _multi_tensor_adam, 874 _single_tensor_adam, 876 func(...);
    # (1.13.1): 294 _multi_tensor_adam, 296 _fused_adam, 298 _single_tensor_adam, 300 func(...)
    got = [c for c in calls(version, "torch/optim/adam.py", "torch.optim.adam.adam") if c[1].startswith(("_", "func"))]
    assert got == {
        "2.6.0": [("python", "_default_to_fused_or_foreach", 844), ("python", "func", 876),
                  ("python", "_fused_adam", 870), ("python", "_multi_tensor_adam", 872),
                  ("python", "_single_tensor_adam", 874)],
        "1.13.1": [("python", "func", 300),
                   ("python", "_multi_tensor_adam", 294), ("python", "_fused_adam", 296),
                   ("python", "_single_tensor_adam", 298)],
    }[version]


def _scan_path_choices(text: str) -> set[tuple[str, int, str, str]]:
    """(function, line, if|elif|else, test) of every `func = NAME` line, read off the nearest line above it that is
    indented less: the `if TEST:`, `elif TEST:` or `else:` that picks it."""
    lines = text.splitlines()
    found = set()
    for i, line in enumerate(lines):
        m = re.match(r"(\s+)func = (\w+)\s*$", line)
        if not m:
            continue
        for above in reversed(lines[:i]):
            head = re.match(r"(\s*)(if|elif|else)\b\s*(.*?):\s*$", above)
            if above.strip() and len(above) - len(above.lstrip()) < len(m[1]):
                if head:
                    found.add((m[2], i + 1, head[2], head[3]))
                break
    return found


@both
def test_every_optimizer_path_choice_has_its_condition(version):
    # an independent line scan of torch/optim/*.py against py_branches' facts of the alias calls
    expected: set[tuple[str, int, str, str]] = set()
    got: set[tuple[str, int, str, str]] = set()
    for rel, f in all_facts(version).items():
        if not rel.startswith("torch/optim/"):
            continue
        expected |= _scan_path_choices((checkout(version) / rel).read_text())
        for b in f.branches:
            last = b.conditions[-1]
            if (b.loc.line, b.target.rpartition(".")[2]) in {(e[1], e[0]) for e in expected}:
                got.add((b.target.rpartition(".")[2], b.loc.line, last.kind, last.test))
    assert len(expected) == {"2.6.0": 28, "1.13.1": 23}[version]  # 2.6.0: adagrad, adam, adamw, sgd 3 each, 8 files 2, lr_scheduler 1; 1.13.1: adam 3, 10 files 2
    assert got == expected


_SUBMODULE = re.compile(r"^\s+self\.(\w+)(?:\s*:\s*[^=]+)?\s*=\s*([A-Z]\w*)\(")


@both
def test_every_submodule_assignment_of_nn_modules_is_an_attribute(version):
    # an independent line scan of torch/nn/modules/*.py: `self.x = Class(` on one line (a class by its capital, as
    # these files name them) against py_attributes' facts whose target ends with that class's name
    expected: set[tuple[str, int, str, str]] = set()
    got: set[tuple[str, int, str, str]] = set()
    for rel, f in all_facts(version).items():
        if not rel.startswith("torch/nn/modules/"):
            continue
        for number, line in enumerate((checkout(version) / rel).read_text().splitlines(), 1):
            if (m := _SUBMODULE.match(line)) is not None:
                expected.add((rel, number, m.group(1), m.group(2)))
        got |= {(rel, a.loc.line, a.name, a.target.rsplit(".", 1)[-1]) for a in f.attributes
                if a.target.rsplit(".", 1)[-1][:1].isupper()}
    # transformer.py: TransformerEncoderLayer.__init__ assigns self_attn = MultiheadAttention( (2.6.0 :728; 1.13.1 :404)
    assert ("torch/nn/modules/transformer.py", {"2.6.0": 728, "1.13.1": 404}[version], "self_attn",
            "MultiheadAttention") in expected
    assert len(expected) > 40
    assert expected <= got
