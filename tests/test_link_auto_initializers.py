"""More `auto` initializers typed (cxx/receivers.py, Declarations._typed), each read in 2.6.0:

- an element of a subscripted variable: `const auto& w_ir = w_i_rzn[0];` (aten/src/ATen/native/vulkan/ops/Gru.cpp:164,
  w_i_rzn a std::vector<Tensor>), written `decltype(std::declval<std::vector<Tensor>>()[_])`;
- a range-for over a data member of the caller's class, in a method defined outside the class:
  `for (auto& indice : indices) indice = indice.contiguous();` (TensorAdvancedIndexing.cpp:597, indices a
  std::vector<Tensor> of AdvancedIndex): the name the function does not declare is written `decltype(indices)`, and
  the link stage looks it up among the class's fields;
- an operator expression whose operands are `auto` variables made of operator expressions, whose text is longer
  than an initializer's 300 characters: `auto inner_vec0 = kBetaVec * (x0_vec + kKappaVec * x0_cube);`
  (cpu/Activation.cpp:417), then `inner_vec0.tanh()`; the fixture adds a term so that its shorter names still
  pass 600 characters, the limit before.
- a type a using-declaration brings into another namespace: `std::vector<torch::Tensor> tensors_;` with
  `namespace torch { using at::Tensor; }` (torch/csrc/api/include/torch/types.h), so that `tensor._values()` in
  torch/csrc/distributed/rpc/message.cpp:77 is the op's Tensor method.
The fixture is written here; its line numbers are the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

VEC = """\
namespace at::vec {
template <typename T> class Vectorized {
 public:
  Vectorized<T> tanh() const { return *this; }
};
template <class T> Vectorized<T> inline operator*(const Vectorized<T>& a, const Vectorized<T>& b) { return a; }
template <class T> Vectorized<T> inline operator+(const Vectorized<T>& a, const Vectorized<T>& b) { return a; }
template <typename T> std::tuple<Vectorized<float>, Vectorized<float>> convert_to_float(const Vectorized<T>& a) {
  return {};
}
}
"""
HEADER = """\
namespace at::native {
struct Holder {
  Holder(const Tensor& self);
  std::vector<Tensor> indices;
  int64_t count;
};
}
namespace torch {
using at::Tensor;
namespace rpc {
struct Message {
  void each();
  std::vector<torch::Tensor> tensors_;
};
}
}
"""
KERNEL = """\
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/Holder.h>
namespace at::native {
using namespace at::vec;
Holder::Holder(const Tensor& self) {
  for (auto& indice : indices) {
    indice = indice.contiguous();
  }
}
void kern(const Tensor& self, std::vector<Tensor> w_i_rzn, Vectorized<BFloat16> x_vec) {
  const auto& w_ir = w_i_rzn[0];
  w_ir.contiguous();
  auto [x0_vec, x1_vec] = convert_to_float<BFloat16>(x_vec);
  const Vectorized<float> kBetaVec(0.5f);
  const Vectorized<float> kKappaVec(0.044715f);
  auto x0_cube = x0_vec * x0_vec * x0_vec;
  auto inner_vec0 = kBetaVec * (x0_vec + kKappaVec * x0_cube + x0_cube);
  inner_vec0.tanh();
}
}
namespace torch::rpc {
void Message::each() {
  for (const auto& tensor : tensors_) {
    tensor._values();
  }
}
}
"""
YAML = """\
- func: contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)
  variants: method
  manual_cpp_binding: True
- func: tanh(Tensor self) -> Tensor
  variants: function, method
- func: _values(Tensor(a) self) -> Tensor(a)
  variants: method
"""
TENSOR = """\
namespace at {
class Tensor {
 public:
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const { return *this; }
};
}
"""
N = "aten/src/ATen/native/cpu/Kern.cpp"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("auto_initializers"), {
        "aten/src/ATen/cpu/vec/vec.h": VEC, "aten/src/ATen/native/Holder.h": HEADER, N: KERNEL,
        "aten/src/ATen/core/TensorBody.h": TENSOR, "aten/src/ATen/native/native_functions.yaml": YAML})


def _edges(db: Path, line: int) -> set[tuple[str, str, str, str | None]]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute("SELECT e.target, e.kind, e.how, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
                                "WHERE e.file = ? AND e.line = ?", (N, line)))


def test_a_range_for_over_a_field_of_the_caller_s_class(db: Path) -> None:
    assert _edges(db, 7) == {("indice.contiguous", "calls", "receiver-type", "at::Tensor::contiguous")}


def test_an_element_of_a_subscripted_variable(db: Path) -> None:
    assert _edges(db, 12) == {("w_ir.contiguous", "calls", "receiver-type", "at::Tensor::contiguous")}


def test_a_long_operator_expression(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        (written,) = conn.execute("SELECT receiver_type FROM calls WHERE file = ? AND line = 18", (N,)).fetchone()
    assert len(written) > 600 and written.startswith("decltype(operator*(std::declval<Vectorized<float>&>(),")
    assert _edges(db, 18) == {("inner_vec0.tanh", "calls", "receiver-type", "at::vec::Vectorized::tanh")}


def test_a_type_a_using_declaration_brings_in(db: Path) -> None:
    assert _edges(db, 24) == {("tensor._values", "redispatches-to-op", "op", "_values")}
    with sqlite3.connect(db) as conn:  # typed, not guessed ("method of an op's name")
        assert conn.execute("SELECT detail FROM edges WHERE file = ? AND line = 24", (N,)).fetchall() == [
            ("Tensor method",)]

