"""indexer/python_api/ on the small fixture checkout under tests/fixtures/python/ and on sources built here."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from tg_index.indexer import python_api
from tg_index.indexer.facts import Location
from tg_index.indexer.python_api import (
    PY_SOURCES,
    BindingFact,
    ClassBases,
    ClassFact,
    DecompFact,
    DefFact,
    Reexport,
    PyFacts,
    ReexportFact,
    classify,
    extract,
    extractor_hash,
    module_classes,
    module_classes_of,
    module_name,
    py_source_files,
)
from tg_index.indexer.python_api.subtree import Subtree
from tg_index.indexer.vocab import PyCallKind

FIXTURES = Path(__file__).parent / "fixtures" / "python"


def facts(rel: str) -> PyFacts:
    return extract((FIXTURES / rel).read_bytes(), rel)


def calls_of(f: PyFacts, caller: str) -> list[tuple[str, str, str, int]]:
    return [(c.kind, c.name, c.target, c.loc.line) for c in f.calls if c.caller == caller]


# --- names -----------------------------------------------------------------------------


def test_module_name_from_path():
    assert module_name("torch/nn/modules/conv.py") == "torch.nn.modules.conv"
    assert module_name("torch/_refs/special/__init__.py") == "torch._refs.special"
    assert module_name("torch/__init__.py") == "torch"


@pytest.mark.parametrize(
    ("dotted", "expected"),
    [
        ("torch._C._nn.gelu", ("torch_c_nn", "gelu")),
        ("torch._VF.lstm", ("vf", "lstm")),
        ("torch.layer_norm", ("torch", "layer_norm")),
        ("torch.ops.aten.add.Tensor", ("torch_ops", "aten::add.Tensor")),
        ("torch._ops.ops.aten.native_layer_norm", ("torch_ops", "aten::native_layer_norm")),
        ("torch._C._VariableFunctions.add", ("torch_c", "_VariableFunctions.add")),
        ("torch._C._linalg.linalg_det", ("torch_c", "_linalg.linalg_det")),
        ("torch._C._TensorBase.neg", ("tensor_base", "neg")),
        ("torch.Tensor.add_", ("tensor_method", "add_")),
        ("torch.nn.functional.conv2d", ("functional", "conv2d")),
        ("torch.cuda.is_available", ("python", "is_available")),
        ("torch.ops.aten.add.Tensor.py_impl", ("python", "py_impl")),
    ],
)
def test_classify(dotted, expected):
    assert classify(dotted) == expected


# --- defs, classes, calls -----------------------------------------------------------------


def test_functional_defs_with_lines():
    f = facts("torch/nn/functional.py")
    assert f.error is None
    assert f.module == "torch.nn.functional"
    assert [(d.qualname, d.kind, d.loc.line, d.end_line) for d in f.defs] == [
        ("torch.nn.functional._max_pool1d", "function", 20, 21),
        ("torch.nn.functional.max_pool1d_with_indices", "function", 24, 25),
        ("torch.nn.functional.layer_norm", "function", 35, 38),
        ("torch.nn.functional.cross_entropy", "function", 41, 42),
        ("torch.nn.functional.dropout", "function", 45, 46),
        ("torch.nn.functional.silu", "function", 49, 51),
        ("torch.nn.functional.softplus_like", "function", 54, 55),
        ("torch.nn.functional.scripted_only", "function", 60, 61),  # under a module-level `if`
    ]
    assert f.defs[2] == DefFact(
        "torch.nn.functional.layer_norm",
        "layer_norm",
        "function",
        None,
        Location("torch/nn/functional.py", 35),
        38,
    )


def test_functional_calls_resolve_aliases():
    f = facts("torch/nn/functional.py")
    assert calls_of(f, "torch.nn.functional.layer_norm") == [
        ("python", "has_torch_function_unary", "torch.overrides.has_torch_function_unary", 36),
        ("python", "handle_torch_function", "torch.overrides.handle_torch_function", 37),
        ("torch", "layer_norm", "torch.layer_norm", 38),
    ]
    # `import torch._C._nn as nn2`
    assert calls_of(f, "torch.nn.functional.cross_entropy") == [
        ("torch_c_nn", "cross_entropy_loss", "torch._C._nn.cross_entropy_loss", 42)
    ]
    # `from torch import _VF`
    assert calls_of(f, "torch.nn.functional.dropout") == [("vf", "dropout", "torch._VF.dropout", 46)]
    # method calls on values, including on a call result
    assert calls_of(f, "torch.nn.functional.silu") == [
        ("tensor_method", "sigmoid", "input.sigmoid", 50),
        ("tensor_method", "contiguous", "<expr>.contiguous", 51),
        ("tensor_method", "mul", "out.mul", 51),
    ]
    # module-level names bound to C functions are called through their binding
    assert calls_of(f, "torch.nn.functional.softplus_like") == [
        ("torch_c_nn", "softplus", "torch._C._nn.softplus", 55),
        ("functional", "gelu", "torch.nn.functional.gelu", 55),
    ]
    assert calls_of(f, "torch.nn.functional.scripted_only") == [
        ("torch_ops", "aten::add.Tensor", "torch.ops.aten.add.Tensor", 61)
    ]


def test_module_classes_forward_and_helper_method():
    f = facts("torch/nn/modules/conv.py")
    by_name = {c.name: c for c in f.classes}
    assert by_name["Conv2d"] == ClassFact(
        "torch.nn.modules.conv.Conv2d",
        "Conv2d",
        ("torch.nn.modules.conv._ConvNd",),
        ("_ConvNd",),
        True,
        "torch.nn.modules.conv.Conv2d.forward",
        Location("torch/nn/modules/conv.py", 17),
        24,
    )
    assert by_name["_ConvNd"].bases == ("torch.nn.modules.module.Module",)
    assert by_name["_ConvNd"].is_module and by_name["_ConvNd"].forward is None
    assert by_name["LazyConv2d"].bases == ("torch.nn.modules.lazy.LazyModuleMixin", "torch.nn.modules.conv.Conv2d")
    assert by_name["LazyConv2d"].is_module
    assert not by_name["NotAModule"].is_module
    assert calls_of(f, "torch.nn.modules.conv.Conv2d.forward") == [
        ("python", "_conv_forward", "self._conv_forward", 24)
    ]
    # `from torch.nn import functional as F` and `from .. import functional as F2`
    assert calls_of(f, "torch.nn.modules.conv.Conv2d._conv_forward") == [
        ("functional", "conv2d", "torch.nn.functional.conv2d", 20),
        ("functional", "pad", "torch.nn.functional.pad", 20),
        ("functional", "conv2d", "torch.nn.functional.conv2d", 21),
    ]
    assert calls_of(f, "torch.nn.modules.conv._ConvNd.reset_parameters") == [
        ("python", "sqrt", "math.sqrt", 13),
        ("tensor_method", "uniform_", "self.weight.uniform_", 14),
    ]
    assert [d.kind for d in f.defs] == ["method"] * 4
    assert f.defs[1].cls == "torch.nn.modules.conv.Conv2d"


def test_layer_norm_forward_and_cross_file_module_linking():
    f = facts("torch/nn/modules/normalization.py")
    assert calls_of(f, "torch.nn.modules.normalization.LayerNorm.forward") == [
        ("functional", "layer_norm", "torch.nn.functional.layer_norm", 9)
    ]
    (_, group) = f.classes
    assert group.bases == ("torch.nn.modules.batchnorm._NormBase",)
    assert group.is_module is False  # the evidence is in batchnorm.py
    every = [facts(str(p.relative_to(FIXTURES))) for p in sorted((FIXTURES / "torch/nn/modules").glob("*.py"))]
    assert module_classes_of(every) == {
        "torch.nn.modules.batchnorm._NormBase",
        "torch.nn.modules.conv._ConvNd",
        "torch.nn.modules.conv.Conv2d",
        "torch.nn.modules.conv.LazyConv2d",
        "torch.nn.modules.normalization.LayerNorm",
        "torch.nn.modules.normalization.GroupNormish",
    }


def test_module_classes_from_rows_follows_imports_stars_and_chains():
    # what the build reads from py_classes and py_reexports; no file, line or other field is needed
    classes = [
        ClassBases("torch.nn.modules.module.Module", (), False),
        ClassBases("torch.nn.modules.conv.Conv2d", ("torch.nn.modules.module.Module",), True),
        ClassBases("torch.ao.QConv", ("torch.nn.Conv2d",), False),  # through torch.nn's star import
        ClassBases("torch.ao.QConvRelu", ("torch.ao.QConv",), False),  # a chain of two files' verdicts
        ClassBases("torch.ao.Loop", ("torch.ao.Loop",), False),  # a base cycle ends, no module
        ClassBases("torch.ao.Plain", ("object",), False),
    ]
    forwards = [
        Reexport("torch.nn.modules", "Conv2d", "torch.nn.modules.conv.Conv2d", "import"),
        Reexport("torch.nn", "*", "torch.nn.modules", "star_import"),
        Reexport("torch.nn", "Plain", "torch.ao.Plain", "all"),  # only import and star_import are followed
    ]
    assert module_classes(classes, forwards) == {
        "torch.nn.modules.conv.Conv2d",
        "torch.ao.QConv",
        "torch.ao.QConvRelu",
    }


def test_tensor_class_bindings_and_super_calls():
    f = facts("torch/_tensor.py")
    assert f.bindings == (
        BindingFact(
            "torch._tensor.Tensor.detach",
            "tensor_base",
            "detach",
            "torch._C.TensorBase.detach",
            "_add_docstr",
            Location("torch/_tensor.py", 7),
        ),
        BindingFact(
            "torch._tensor.Tensor.__neg__",
            "tensor_base",
            "neg",
            "torch._C.TensorBase.neg",
            "assign",
            Location("torch/_tensor.py", 8),
        ),
    )
    assert calls_of(f, "torch._tensor.Tensor.norm") == [("torch", "norm", "torch.norm", 11)]
    assert calls_of(f, "torch._tensor.Tensor.unflatten") == [("tensor_base", "unflatten", "super().unflatten", 14)]


# --- bindings ------------------------------------------------------------------------------


def test_add_docstr_boolean_dispatch_and_plain_bindings():
    f = facts("torch/nn/functional.py")
    loc = lambda line: Location("torch/nn/functional.py", line)  # noqa: E731
    assert f.bindings == (
        BindingFact("torch.nn.functional.conv2d", "torch", "conv2d", "torch.conv2d", "_add_docstr", loc(10)),
        BindingFact("torch.nn.functional.gelu", "torch_c_nn", "gelu", "torch._C._nn.gelu", "_add_docstr", loc(15)),
        BindingFact("torch.nn.functional.softplus", "torch_c_nn", "softplus", "torch._C._nn.softplus", "assign", loc(17)),
        BindingFact(
            "torch.nn.functional.max_pool1d",
            "python",
            "max_pool1d_with_indices",
            "torch.nn.functional.max_pool1d_with_indices",
            "boolean_dispatch",
            loc(28),
        ),
        BindingFact(
            "torch.nn.functional.max_pool1d",
            "python",
            "_max_pool1d",
            "torch.nn.functional._max_pool1d",
            "boolean_dispatch",
            loc(28),
        ),
    )


# --- re-exports --------------------------------------------------------------------------------


def test_torch_init_reexports():
    f = facts("torch/__init__.py")
    loc = lambda line: Location("torch/__init__.py", line)  # noqa: E731
    assert f.reexports == (
        ReexportFact("torch", "TYPE_CHECKING", "typing.TYPE_CHECKING", "import", (), loc(1)),
        ReexportFact("torch", "*", "torch._C", "star_import", (), loc(3)),
        ReexportFact("torch", "no_grad", "torch.autograd.no_grad", "import", (), loc(4)),
        ReexportFact("torch", "_C", "torch._C", "import", (), loc(5)),
        ReexportFact("torch", "typename", "", "all", (), loc(7)),
        # the TYPE_CHECKING-only `from torch._C._VariableFunctions import *` is not a runtime export
        ReexportFact("torch", "*", "torch._C._VariableFunctions", "dir_loop", ("__*", "unique_dim"), loc(14)),
        ReexportFact("torch", "e", "", "all", (), loc(22)),
        ReexportFact("torch", "pi", "", "all", (), loc(22)),
        ReexportFact("torch", "*", "torch.functional", "star_import", (), loc(24)),
    )


def test_dir_loop_with_a_startswith_of_no_argument_excludes_nothing():
    source = b"""
import torch
for name in dir(torch._C._VariableFunctions):
    if name.startswith():
        continue
    globals()[name] = getattr(torch._C._VariableFunctions, name)
"""
    f = extract(source, "torch/__init__.py")
    assert f.error is None
    assert f.reexports == (
        ReexportFact("torch", "*", "torch._C._VariableFunctions", "dir_loop", (), Location("torch/__init__.py", 3)),
    )


def test_vf_forwards_to_variable_functions():
    f = facts("torch/_VF.py")
    assert f.reexports == (
        ReexportFact("torch._VF", "*", "torch._C._VariableFunctions", "getattr_forward", (), Location("torch/_VF.py", 16)),
    )
    # a class of the file is a python call, whatever namespace the file is
    assert calls_of(f, "torch._VF") == [("python", "VFModule", "torch._VF.VFModule", 16)]


def test_package_init_imports_are_reexports():
    f = facts("torch/nn/modules/__init__.py")
    imports = [(r.name, r.source) for r in f.reexports if r.kind == "import"]
    assert imports == [
        ("Module", "torch.nn.modules.module.Module"),
        ("Conv2d", "torch.nn.modules.conv.Conv2d"),
        ("LazyConv2d", "torch.nn.modules.conv.LazyConv2d"),
        ("LayerNorm", "torch.nn.modules.normalization.LayerNorm"),
    ]
    assert [r.name for r in f.reexports if r.kind == "all"] == ["Module", "Conv2d", "LazyConv2d", "LayerNorm"]
    # a plain module's imports are not re-exports
    assert facts("torch/nn/modules/conv.py").reexports == ()


# --- decompositions and refs -------------------------------------------------------------------


def test_decompositions():
    f = facts("torch/_decomp/decompositions.py")
    loc = lambda line: Location("torch/_decomp/decompositions.py", line)  # noqa: E731
    mod = "torch._decomp.decompositions"
    reg = "register_decomposition"
    assert f.decomps == (
        DecompFact("decomposition", "native_layer_norm", "aten", f"{mod}.native_layer_norm", reg, "written", loc(11)),
        DecompFact("decomposition", "fill.Scalar", "aten", f"{mod}.fill", reg, "written", loc(17)),
        DecompFact("decomposition", "fill.Tensor", "aten", f"{mod}.fill", reg, "written", loc(17)),
        DecompFact("py_impl", "fill.Scalar", "aten", f"{mod}.fill", "py_impl(Autograd)", "written", loc(18)),
        # register_decomposition(MODULE_LEVEL_LIST)(fn) and getattr(aten, "const")
        DecompFact("decomposition", "upsample_nearest1d.vec", "aten", f"{mod}._upsample", reg, "written", loc(27)),
        DecompFact("decomposition", "upsample_nearest2d.vec", "aten", f"{mod}._upsample", reg, "written", loc(27)),
        DecompFact("decomposition", "relu_", "aten", f"{mod}._upsample", reg, "written", loc(28)),
        # register_decomposition(op) on a parameter of make_it is not statically visible: nothing;
        # but a module-level call of a helper that registers its parameter is
        DecompFact("decomposition", "add_", "aten", f"{mod}.register_inplace", "register_inplace", "written", loc(44)),
    )
    # `aten = torch._ops.ops.aten` makes aten.X calls torch.ops calls
    assert calls_of(f, f"{mod}.native_layer_norm")[-1] == ("torch_ops", "aten::sub.Tensor", "torch.ops.aten.sub.Tensor", 14)


def test_refs_factories_and_public_defs():
    f = facts("torch/_refs/__init__.py")
    loc = lambda line: Location("torch/_refs/__init__.py", line)  # noqa: E731
    unary = "_make_elementwise_unary_reference"
    assert f.decomps == (
        DecompFact("ref", "cos", "aten", "torch._refs.cos", unary, "inferred", loc(15)),
        DecompFact("ref", "special_i0", "aten", "torch._refs.i0", unary, "written", loc(20)),
        DecompFact("ref", None, "", "torch._refs.positive", unary, "none", loc(25)),  # aten_op=None
        DecompFact("ref", "add", "aten", "torch._refs.add", "register_decomposition", "written", loc(30)),
        DecompFact("ref", None, "", "torch._refs.broadcast_to", "", "none", loc(35)),  # public, registers nothing
        DecompFact("ref", "cos_", "aten", "torch._refs.cos_", "_make_inplace", "inferred", loc(39)),
    )
    assert calls_of(f, "torch._refs.cos") == [("python", "cos", "torch._prims.cos", 17)]


def test_refs_submodule_prefix_rule():
    f = facts("torch/_refs/special/__init__.py")
    loc = lambda line: Location("torch/_refs/special/__init__.py", line)  # noqa: E731
    assert f.decomps == (
        DecompFact(
            "ref", "special_i0e", "aten", "torch._refs.special.i0e", "_make_elementwise_unary_reference", "inferred", loc(4)
        ),
        DecompFact(
            "ref",
            "special_xlog1py_named",
            "aten",
            "torch._refs.special.xlog1py",
            "_make_elementwise_binary_reference",
            "inferred",
            loc(9),
        ),
        DecompFact(
            "ref", None, "", "torch._refs.special.zeta", "_make_elementwise_binary_reference", "none", loc(14)
        ),
    )


# --- orders that only ast.walk's breadth-first walk decides ----------------------------------


def test_a_name_imported_twice_in_a_def_takes_the_later_import_in_walk_order():
    # breadth first, the nested import comes after the top-level one of the def, so it wins
    source = b"""
def f(x):
    if x:
        import torch.nn.functional as F
    import torch.special as F
    return F.relu(x)
"""
    f = extract(source, "torch/m.py")
    assert calls_of(f, "torch.m.f") == [("functional", "relu", "torch.nn.functional.relu", 6)]


def test_a_helper_registering_two_parameters_records_the_first_inner_def_in_walk_order():
    source = b"""
import torch
from torch._decomp import register_decomposition

aten = torch._ops.ops.aten


def register_both(aten_op, outplace_op):
    if True:
        @register_decomposition(outplace_op)
        def outplace(*args):
            pass

    @register_decomposition(aten_op)
    def inplace(*args):
        pass


register_both(aten.add_, aten.add)
"""
    f = extract(source, "torch/_decomp/m.py")
    assert f.decomps == (
        DecompFact(
            "decomposition",
            "add_",
            "aten",
            "torch._decomp.m.register_both",
            "register_both",
            "written",
            Location("torch/_decomp/m.py", 19),
        ),
    )


_TANGLED = b"""
import torch

def outer(a, b):
    import torch.nn.functional as F
    if a:
        from torch import special as F
        def inner(x):
            import torch._C._nn as F
            class Local:
                def method(self):
                    from . import sibling
            return F.relu(x)
    for i in range(2):
        while b:
            try:
                import math
            except ImportError:
                def fallback():
                    import cmath
    def second():
        lambda: [y for y in range(3)]
    return F.gelu(a)
"""


def _all_defs(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_subtree_gives_imports_and_inner_defs_in_ast_walk_order():
    sources = [_TANGLED, *(p.read_bytes() for p in sorted(FIXTURES.rglob("*.py")) if p.name != "broken.py")]
    defs = [d for source in sources for d in _all_defs(ast.parse(source))]
    assert len(defs) == 5 + 36  # the tangled source's five, and every def of the fixture files
    for node in defs:
        sub = Subtree.of_def(node)
        walked = list(ast.walk(node))[1:]
        assert sub.imports == [n for n in walked if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert sub.defs == [n for n in walked if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        # calls keep ast.walk's order under each statement of the body, the order of py_calls rows
        assert sub.calls == [n for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]


def test_tangled_def_takes_the_last_import_in_walk_order():
    # breadth first: `import ... as F` of outer (depth 1), then the `from torch import special as F`
    # under the if (depth 2), then the one inside inner (depth 3), which wins
    f = extract(_TANGLED, "torch/m.py")
    assert calls_of(f, "torch.m.outer")[-1] == ("torch_c_nn", "gelu", "torch._C._nn.gelu", 23)


# --- bad input and file selection --------------------------------------------------------------


def test_syntax_error_is_a_fact_not_an_exception():
    f = facts("broken.py")
    assert f == PyFacts("broken.py", "broken", error="broken.py:1: invalid syntax")


@pytest.mark.parametrize("source", [b"\x00\x01", b"x = (" * 10, "é = 1".encode("latin-1"), b""])
def test_never_raises(source):
    f = extract(source, "torch/odd.py")
    assert isinstance(f, PyFacts)
    assert f.error is None or f.error.startswith("torch/odd.py:")


def test_py_source_files_on_fixture_tree():
    files = py_source_files(FIXTURES)
    assert "broken.py" not in files
    assert files == sorted(files)
    assert {
        "torch/__init__.py",
        "torch/_VF.py",
        "torch/_tensor.py",
        "torch/nn/functional.py",
        "torch/nn/modules/conv.py",
        "torch/_decomp/decompositions.py",
        "torch/_refs/special/__init__.py",
    } <= set(files)
    assert "torch/nn/modules/**/*.py" in PY_SOURCES


# --- the package as the build uses it ------------------------------------------------------------


def test_call_kind_is_the_vocabulary_and_facts_carry_its_members():
    assert python_api.CallKind is PyCallKind
    f = extract(b"import torch\ndef f(x):\n    return torch.relu(x)\n", "torch/m.py")
    assert [(type(c.kind), c.kind) for c in f.calls] == [(PyCallKind, "torch")]
    assert classify("torch._VF.lstm")[0] is PyCallKind.VF


def test_extractor_hash_covers_every_file_of_the_package_and_what_it_uses(tmp_path):
    here = Path(python_api.__file__).parent
    copy = tmp_path / "indexer" / "python_api"
    shutil.copytree(here, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for used in ("facts.py", "vocab.py"):
        shutil.copy(here.parent / used, copy.parent / used)
    first = extractor_hash(copy)
    assert first == extractor_hash() and len(first) == 16
    seen = {first}
    for path in [*sorted(copy.glob("*.py")), copy.parent / "vocab.py"]:
        path.write_bytes(path.read_bytes() + b"\n")
        seen.add(extractor_hash(copy))
    (copy / "new_recogniser.py").write_text("")
    seen.add(extractor_hash(copy))
    assert len(seen) == len(list(copy.glob("*.py"))) + 2  # each change gave a new hash


# --- calls through a local alias (aliases.py) ---------------------------------------------------

_ALIASED = b'''import torch
from torch.optim import helpers

def _fused(p):
    torch._fused_step_(p)

def _loop(p):
    p.mul_(2)

def step(p, fused, loop):
    if fused:
        func = _fused
    elif loop:
        func = helpers.loop
    else:
        func = _loop
    func(p)

def not_an_alias(p, f):
    g = f
    g(p)
    for h in (_fused, _loop):
        h(p)
    k = _fused
    k += 1
    k(p)
'''


def test_a_called_local_alias_calls_each_function_assigned():
    f = extract(_ALIASED, "torch/optim/m.py")
    assert calls_of(f, "torch.optim.m.step") == [
        ("python", "func", "func", 17),  # the call as written stays
        ("python", "_fused", "torch.optim.m._fused", 12),
        ("python", "loop", "torch.optim.helpers.loop", 14),
        ("python", "_loop", "torch.optim.m._loop", 16),
    ]


def test_no_alias_without_plain_function_assignments_only():
    # g = f (a parameter), a for target, an augmented assignment: no alias, only the calls as written
    f = extract(_ALIASED, "torch/optim/m.py")
    assert calls_of(f, "torch.optim.m.not_an_alias") == [
        ("python", "g", "g", 21), ("python", "h", "h", 23), ("python", "k", "k", 26)]
