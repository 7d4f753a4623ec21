"""A method call on a Tensor is an op only where the op has a method variant that torchgen writes: 2.6.0
native_functions.yaml:5437 `size.int` is `variants: function` and manual_cpp_binding, and templates/TensorBody.h:145
brings TensorBase::size (core/TensorBase.h:177) into at::Tensor with `using TensorBase::size;`, beside the generated
size(Dimname) method of size.Dimname; `t.size(0)` never reaches the dispatcher. The link took every `t.size(0)` for a
redispatch to size.int (4,395 edges on 2.6.0, 807 for stride.int), so chains listed `redispatch size.int` in loop
bodies. A function-only overload (pow.Scalar, dequantize.tensors) is no method either.

The fixture is written here; each expected edge is read in it (line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: size.int(Tensor self, int dim) -> int
  variants: function
  manual_cpp_binding: True
- func: size.Dimname(Tensor self, Dimname dim) -> int
  variants: function, method
- func: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
  variants: function, method
- func: pow.Scalar(Scalar self, Tensor exponent) -> Tensor
- func: dequantize.self(Tensor self) -> Tensor
  variants: function, method
- func: dequantize.tensors(Tensor[] tensors) -> Tensor[]
- func: measure(Tensor self) -> Tensor
  dispatch:
    CPU: measure_cpu
"""
TENSOR_BASE_H = """\
namespace at {
class TensorBase {
 public:
  int64_t size(int64_t dim) const {                                            // :4
    return dim;
  }
};
}
"""
TENSOR_BODY_H = """\
#include <ATen/core/TensorBase.h>
namespace at {
class Tensor : public TensorBase {
 public:
  using TensorBase::size;
  Tensor contiguous() const { return *this; }
};
}
"""
KERNEL_CPP = """\
#include <ATen/core/TensorBody.h>
namespace at::native {
Tensor measure_cpu(const Tensor& self, int64_t d, Dimname name) {
  int64_t n = self.size(0);                                                    // :4
  int64_t m = self.size(d);                                                    // :5
  int64_t k = self.size(name);                                                 // :6
  Tensor p = self.pow(2);                                                      // :7
  Tensor q = self.dequantize();                                                // :8
  return p;
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("tensor_method_variants"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/core/TensorBase.h": TENSOR_BASE_H,
        "aten/src/ATen/templates/TensorBody.h": TENSOR_BODY_H, N + "Measure.cpp": KERNEL_CPP})


def _edges(db, line: int) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.kind, e.how, d.name FROM edges e JOIN nodes s ON s.id = e.src LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE s.name = 'at::native::measure_cpu' AND e.line = ? AND e.kind IN ('calls', 'redispatches-to-op')",
            (line,)))


def test_a_method_call_of_a_function_only_op_is_the_base_class_member(db):
    assert _edges(db, 4) == {("calls", "receiver-type", "at::TensorBase::size")}
    assert _edges(db, 5) == {("calls", "receiver-type", "at::TensorBase::size")}  # d: int64_t


def test_a_method_variant_stays_the_op(db):
    assert _edges(db, 6) == {("redispatches-to-op", "op", "size.Dimname")}
    assert _edges(db, 7) == {("redispatches-to-op", "op", "pow.Tensor_Scalar")}
    assert _edges(db, 8) == {("redispatches-to-op", "op", "dequantize.self")}
