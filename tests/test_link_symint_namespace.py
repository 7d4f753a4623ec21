"""`at::symint::resize_<T>(...)` is a call through the dispatcher: torchgen writes a template in namespace at::symint
for every op with a SymInt argument (2.6.0 torchgen/gen.py:733-740, ComputeFunction, into Functions.h), and it calls
`at::_ops::<op>::call`. The checkout itself defines a few at::symint templates by hand (core/TensorBase.h:1028-1055:
size, sizes, numel...), which stay calls of those definitions. 2.6.0 Resize.cpp:70, the non-CPU path of
_resize_output, was an ambiguous call of four resize_ functions (SparseTensorImpl's members among them), so every
CUDA chain through resize_output went into at::SparseTensorImpl::resize_.

The fixture is written here; each expected edge is read in it (line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
  variants: method
  dispatch:
    CPU: resize_
- func: grow(Tensor self) -> Tensor
  dispatch:
    CPU: grow_cpu
"""
TENSOR_BASE_H = """\
namespace at {
class TensorBase {};
namespace symint {
template <typename T>
T size(const TensorBase& t, int64_t dim) {                                     // :5
  return dim;
}
}
}
"""
SPARSE_H = """\
namespace at {
struct SparseTensorImpl {
  void resize_(int64_t sparse_dim, int64_t dense_dim) {}                       // :3
};
}
"""
RESIZE_CPP = """\
#include <ATen/core/TensorBase.h>
#include <ATen/SparseTensorImpl.h>
namespace at::native {
const Tensor& resize_(const Tensor& self, IntArrayRef size, std::optional<MemoryFormat> format) {
  return self;
}
template <typename T>
bool grow_to(const Tensor& output, ArrayRef<T> shape) {
  at::symint::resize_<T>(output, shape);                                       // :9
  return at::symint::size<T>(output, 0) > 0;                                   // :10
}
Tensor grow_cpu(const Tensor& self) {
  grow_to<int64_t>(self, {});
  return self;
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("symint_namespace"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/core/TensorBase.h": TENSOR_BASE_H,
        "aten/src/ATen/SparseTensorImpl.h": SPARSE_H, N + "Resize.cpp": RESIZE_CPP})


def _edges(db, line: int) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.kind, e.how, d.name FROM edges e JOIN nodes s ON s.id = e.src LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE s.name = 'at::native::grow_to' AND e.line = ? AND e.kind IN ('calls', 'redispatches-to-op')",
            (line,)))


def test_a_generated_symint_template_is_the_op(db):
    assert _edges(db, 9) == {("redispatches-to-op", "op", "resize_")}


def test_a_symint_template_the_checkout_defines_is_that_definition(db):
    assert {(kind, name) for kind, _how, name in _edges(db, 10)} == {("calls", "at::symint::size")}
