"""A use of the file's own macro that writes a whole definition is always the macro's, even where tree-sitter reads
it as a function: 2.6.0 RNN.cpp:1875 `static DEFINE_QUANTIZED_RNN_CELL_DYNAMIC(quantized_gru_cell_dynamic, ...)`
(the #define at :1830 writes the function with its body) was read as a function named DEFINE_QUANTIZED_RNN_CELL_DYNAMIC
running on to :1959, over the uses at :1879-:1887 that define quantized_rnn_relu_cell and quantized_rnn_tanh_cell
(native_functions.yaml:7908, :7910, CompositeImplicitAutograd): doctor listed both as having no definition in the
sources. The misread function is dropped, and each use is expanded in the namespace it is written in.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: relu_cell(Tensor input, Tensor hx) -> Tensor

- func: tanh_cell(Tensor input, Tensor hx) -> Tensor
"""
RNN_CPP = """\
namespace at::native {
#define DEFINE_CELL(name, cell_type) \\
  Tensor name(const Tensor& input, const Tensor& hx) { \\
    return cell_type{}(input, hx); \\
  }

using simple_hx_type = const Tensor&;
static DEFINE_CELL(gru_cell_dynamic, GRUCell)                                  // :8

// Quantized RNN w/ ReLU cell
using relu_cell_type = SimpleCell<relu_f>;
DEFINE_CELL(relu_cell, relu_cell_type)                                         // :12
DEFINE_CELL(tanh_cell, tanh_cell_type)                                         // :13

namespace {
static auto registry = register_things();
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("misread_definer"), {N + "native_functions.yaml": YAML,
                                                                    N + "RNN.cpp": RNN_CPP})


def test_each_use_defines_its_function_in_the_namespace_it_is_written_in(db):
    with sqlite3.connect(db) as conn:
        defs = conn.execute("SELECT qualified_name, line, macro FROM definitions ORDER BY line").fetchall()
    assert defs == [("at::native::gru_cell_dynamic", 8, "DEFINE_CELL"), ("at::native::relu_cell", 12, "DEFINE_CELL"),
                    ("at::native::tanh_cell", 13, "DEFINE_CELL")]


def test_the_ops_kernels_are_the_uses(db):
    ix = Index.open(db)
    for op, line in (("relu_cell", 12), ("tanh_cell", 13)):
        [answer] = ix.kernels_for(op)
        [row] = answer.keys
        assert (row.key, row.definition.file, row.definition.line) == ("CompositeImplicitAutograd", N + "RNN.cpp", line)
