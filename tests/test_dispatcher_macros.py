"""Registrations through macros of other files, X-macro lists, fallthrough lists, backend fallbacks
and Python registrations, on a copy of the fixture checkout with one file per construct; and the
macro expander on its own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer.build import build
from tg_index.indexer.cxx.preprocessor import Define
from tg_index.indexer.dispatcher.expand import Expander
from tg_index.indexer.dispatcher.python_regs import aten_op

FILES = {
    # functorch-style helpers in a header; a file's own macro calling them
    "aten/src/ATen/functorch/Helper.h": """
#define VMAP_SUPPORT(op, batch_rule) \\
  m.impl(#op, op ## _generated_plumbing<decltype(&batch_rule), &batch_rule>);
#define VMAP_SUPPORT2(op, overload, batch_rule) \\
  m.impl(#op "." #overload, op ## _ ## overload ## _generated_plumbing<decltype(&batch_rule), &batch_rule>);
""",
    "aten/src/ATen/functorch/Rules.cpp": """#include "ATen/functorch/Helper.h"
TORCH_LIBRARY_IMPL(aten, FuncTorchBatched, m) {
  VMAP_SUPPORT(relu, relu_batch_rule);
  VMAP_SUPPORT2(add, Tensor, add_batch_rule);
#define MY_RULE(op) VMAP_SUPPORT(op, op ## _rule);
  MY_RULE(mul)
#undef MY_RULE
  if (false) { VMAP_SUPPORT(sub, sub_rule); }
}
""",
    # autocast-style: argument-count dispatch, an X-macro list, a call written after it without `;`
    "aten/src/ATen/autocast_mode.h": """
#define CONCAT_IMPL(a, b) a##b
#define CONCAT(a, b) CONCAT_IMPL(a, b)
#define NARG_IMPL(_0, _1, _2, N, ...) N
#define NARG(...) NARG_IMPL(__VA_ARGS__, 2, 1)
#define KERNEL1(KEY, OP, POLICY) m.impl(TORCH_SELECTIVE_NAME("aten::" #OP), &WrapFunction<CastPolicy::POLICY, KEY, decltype(ATEN_FN(OP))>::type::call);
#define KERNEL2(KEY, OP, OVERLOAD, POLICY) m.impl(TORCH_SELECTIVE_NAME("aten::" #OP "." #OVERLOAD), &WrapFunction<CastPolicy::POLICY, KEY, decltype(ATEN_FN2(OP, OVERLOAD))>::type::call);
#define KERNEL(KEY, ...) CONCAT(KERNEL, NARG(__VA_ARGS__))(KEY, __VA_ARGS__)
#define KERNEL_CUDA(...) KERNEL(c10::DeviceType::CUDA, __VA_ARGS__)
#define AT_FORALL_LOWER(_) \\
  _(mul, Scalar) \\
  _(relu)
""",
    "aten/src/ATen/autocast_mode.cpp": """#include <ATen/autocast_mode.h>
TORCH_LIBRARY_IMPL(aten, AutocastCUDA, m) {
#define _KERNEL_CUDA_LOWER(...) KERNEL_CUDA(__VA_ARGS__, lower_precision_fp)
  AT_FORALL_LOWER(_KERNEL_CUDA_LOWER)
  m.impl(TORCH_SELECTIVE_NAME("aten::sub.out"), TORCH_FN(sub_banned));
}
TORCH_LIBRARY_IMPL(_, AutocastCUDA, m) {
  m.fallback(torch::CppFunction::makeFallthrough());
}
""",
    # a fallthrough list in a header, and a boxed backend fallback
    "aten/src/ATen/ViewFns.h": """
#define TORCH_VIEW_FNS(m) \\
  m.impl("add_.Tensor", torch::CppFunction::makeFallthrough()); \\
  m.impl("relu", torch::CppFunction::makeFallthrough());
""",
    "aten/src/ATen/ConjugateFallback.cpp": """#include <ATen/ViewFns.h>
TORCH_LIBRARY_IMPL(_, Conjugate, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&conjugateFallback>());
}
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  TORCH_VIEW_FNS(m)
}
""",
    # the same macro name in two headers: the one the file includes wins
    "aten/src/ATen/aa/Reg.h": "#define REG(op) m.impl(#op, not_included_ ## op);\n",
    "aten/src/ATen/zz/Reg.h": "#define REG(op) m.impl(#op, included_ ## op);\n",
    "aten/src/ATen/native/Included.cpp": """#include <ATen/zz/Reg.h>
TORCH_LIBRARY_IMPL(aten, Meta, m) {
  REG(relu)
}
""",
    "aten/src/ATen/native/NotIncluded.cpp": """TORCH_LIBRARY_IMPL(aten, SparseCPU, m) {
  REG(relu)
  UNDEFINED_MACRO(relu)
}
""",
    "torch/_meta_registrations.py": """import torch
from torch._ops import ops
aten = torch.ops.aten
_meta_lib_dont_use_me_use_register_meta = torch.library.Library("aten", "IMPL", "Meta")


def register_meta(op):
    def wrapper(fn):
        return fn
    return wrapper


@register_meta(aten.add.Tensor)
def meta_add(self, other):
    return self


@register_meta([aten.mul.default, aten.mul.Scalar_out])
def meta_mul(self, other):
    return self


@register_meta(aten.add_)
def meta_add_(self, other):
    return self
""",
    "torch/ao/quantization/fx/_decomposed.py": """from torch.library import Library, impl
lib = Library("quantized_decomposed", "DEF")
lib.define("quantize(Tensor input, float scale) -> Tensor")


@impl(lib, "quantize", "CompositeExplicitAutograd")
def quantize(input, scale):
    return input


@impl(lib, "quantize", "Meta")
def quantize_meta(input, scale):
    return input


lib.impl("quantize", quantize, "CPU")
""",
}


@pytest.fixture(scope="module")
def regs_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from .conftest import MINI

    root = tmp_path_factory.mktemp("regs") / "tree"
    shutil.copytree(MINI, root)
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    db = root.parent / "ix.db"
    build(root, db)
    return db


def _rows(db: Path, where: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT op, key, kind, generator, kernel, file, line, fallthrough FROM "
                            f"dispatcher_registrations WHERE {where} ORDER BY id").fetchall()


def test_macros_of_a_header_and_a_files_own_macro_calling_them(regs_db: Path):
    f = "aten/src/ATen/functorch/Rules.cpp"
    assert _rows(regs_db, f"file = '{f}'") == [
        ("aten::relu", "FuncTorchBatched", "impl", "VMAP_SUPPORT",
         "relu_generated_plumbing<decltype(&relu_batch_rule), &relu_batch_rule>", f, 3, 0),
        ("aten::add.Tensor", "FuncTorchBatched", "impl", "VMAP_SUPPORT2",
         "add_Tensor_generated_plumbing<decltype(&add_batch_rule), &add_batch_rule>", f, 4, 0),
        ("aten::mul", "FuncTorchBatched", "impl", "MY_RULE",
         "mul_generated_plumbing<decltype(&mul_rule), &mul_rule>", f, 6, 0),
        ("aten::sub", "FuncTorchBatched", "impl", "VMAP_SUPPORT",
         "sub_generated_plumbing<decltype(&sub_rule), &sub_rule>", f, 8, 0),
    ]


def test_an_x_macro_list_through_argument_count_dispatch(regs_db: Path):
    f = "aten/src/ATen/autocast_mode.cpp"
    assert _rows(regs_db, f"file = '{f}'") == [
        ("aten::sub.out", "AutocastCUDA", "impl", "TORCH_LIBRARY_IMPL", "sub_banned", f, 5, 0),
        ("_", "AutocastCUDA", "fallback", "TORCH_LIBRARY_IMPL", "torch::CppFunction::makeFallthrough()", f, 8, 1),
        ("aten::mul.Scalar", "AutocastCUDA", "impl", "AT_FORALL_LOWER",
         "WrapFunction<CastPolicy::lower_precision_fp, c10::DeviceType::CUDA, decltype(ATEN_FN2(mul, Scalar))>"
         "::type::call", f, 4, 0),
        ("aten::relu", "AutocastCUDA", "impl", "AT_FORALL_LOWER",
         "WrapFunction<CastPolicy::lower_precision_fp, c10::DeviceType::CUDA, decltype(ATEN_FN(relu))>::type::call",
         f, 4, 0),
    ]


def test_a_fallthrough_list_and_a_boxed_fallback(regs_db: Path):
    f = "aten/src/ATen/ConjugateFallback.cpp"
    assert _rows(regs_db, f"file = '{f}'") == [
        ("_", "Conjugate", "fallback", "TORCH_LIBRARY_IMPL",
         "torch::CppFunction::makeFromBoxedFunction<&conjugateFallback>()", f, 3, 0),
        ("aten::add_.Tensor", "Conjugate", "impl", "TORCH_VIEW_FNS", "torch::CppFunction::makeFallthrough()", f, 6, 1),
        ("aten::relu", "Conjugate", "impl", "TORCH_VIEW_FNS", "torch::CppFunction::makeFallthrough()", f, 6, 1),
    ]


def test_the_included_definition_wins_else_the_first_by_path(regs_db: Path):
    assert sorted((r[5], r[4]) for r in _rows(regs_db, "file LIKE 'aten/src/ATen/native/%Included.cpp'")) == [
        ("aten/src/ATen/native/Included.cpp", "included_relu"),
        ("aten/src/ATen/native/NotIncluded.cpp", "not_included_relu")]


def test_the_per_file_table_keeps_the_local_rows_and_the_uses(regs_db: Path):
    with sqlite3.connect(regs_db) as conn:
        local = conn.execute("SELECT op, via FROM registrations WHERE file = 'aten/src/ATen/functorch/Rules.cpp' "
                             "AND kind = 'impl'").fetchall()
        uses = conn.execute("SELECT name, arguments, line FROM registration_macro_uses "
                            "WHERE file = 'aten/src/ATen/native/NotIncluded.cpp' ORDER BY id").fetchall()
    assert local == []  # MY_RULE does not reach m.impl with the file's own macros
    assert uses == [("REG", '["relu"]', 2), ("UNDEFINED_MACRO", '["relu"]', 3)]


def test_python_registrations(regs_db: Path):
    meta = "torch/_meta_registrations.py"
    q = "torch/ao/quantization/fx/_decomposed.py"
    assert _rows(regs_db, "source = 'python'") == [
        ("aten::add.Tensor", "Meta", "impl", "register_meta", "torch._meta_registrations.meta_add", meta, 13, 0),
        ("aten::mul", "Meta", "impl", "register_meta", "torch._meta_registrations.meta_mul", meta, 18, 0),
        ("aten::mul.Scalar_out", "Meta", "impl", "register_meta", "torch._meta_registrations.meta_mul", meta, 18, 0),
        ("aten::add_.Tensor", "Meta", "impl", "register_meta", "torch._meta_registrations.meta_add_", meta, 23, 0),
        ("quantized_decomposed::quantize", None, "def", "Library.define", None, q, 3, 0),
        ("quantized_decomposed::quantize", "CompositeExplicitAutograd", "impl", "torch.library.impl",
         "torch.ao.quantization.fx._decomposed.quantize", q, 6, 0),
        ("quantized_decomposed::quantize", "Meta", "impl", "torch.library.impl",
         "torch.ao.quantization.fx._decomposed.quantize_meta", q, 11, 0),
        ("quantized_decomposed::quantize", "CPU", "impl", "Library.impl",
         "torch.ao.quantization.fx._decomposed.quantize", q, 16, 0),
    ]


def test_op_packets_are_every_overload():
    overloads = {"add": ["add.Tensor", "add.out"]}
    assert aten_op("aten.add", overloads) == ["aten::add.Tensor", "aten::add.out"]
    assert aten_op("aten.mm.default", overloads) == ["aten::mm"]
    assert aten_op("torch.ops.aten.add.out", overloads) == ["aten::add.out"]
    assert aten_op("aten", overloads) == []


def _expand(text: str, *defines: Define, keep: str | None = None) -> str:
    table = {d.name: d for d in defines}
    return Expander(table.get, keep=keep).expand_text(text)


def test_arguments_are_expanded_first_unless_pasted_or_stringified():
    defs = (Define("F", ("x",), "#x x ## _s x"), Define("G", None, "g"))
    assert _expand("F(G)", *defs) == '"G" G_s g'


def test_a_macro_is_not_expanded_inside_itself_and_object_like_macros_expand():
    assert _expand("A + B", Define("A", None, "A B"), Define("B", None, "A b")) == "A A b + A B b"
    assert _expand("F(F(1))", Define("F", ("x",), "f(x)")) == "f(f(1))"


def test_variadic_arguments_and_a_call_from_the_tokens_that_follow():
    defs = (Define("PICK", ("...",), "CAT(K, N(__VA_ARGS__))"), Define("N", ("...",), "NI(__VA_ARGS__, 2, 1)"),
            Define("NI", ("_0", "_1", "n", "..."), "n"), Define("CAT", ("a", "b"), "CI(a, b)"),
            Define("CI", ("a", "b"), "a##b"), Define("K1", ("x",), "one(x)"), Define("K2", ("x", "y"), "two(x, y)"))
    assert _expand("PICK(p)(p) PICK(p, q)(p, q)", *defs) == "one(p) two(p, q)"


def test_registration_calls_are_kept_as_written():
    assert _expand("R(sin)", Define("R", ("op",), "m.impl(#op, FN(op));"), Define("FN", ("x",), "fn_x"),
                   keep="m") == 'm.impl("sin", FN(sin));'


def test_a_runaway_expansion_stops():
    e = Expander({"A": Define("A", None, "B B"), "B": Define("B", None, "C C C C"),
                  "C": Define("C", None, "x x x x x x")}.get, limit=20)
    assert e.expand_text("A") .count("x") < 48
    assert e.truncated
