"""A chain that starts at `this` is typed from the caller's class: 2.6.0 core/TensorBase.h:583 and :587
`this->unsafeGetTensorImpl()->data()` and `->mutable_data()`, where unsafeGetTensorImpl returns a TensorImpl* (:188),
call c10::TensorImpl's members. The chain's root was untyped, so `->data()` was taken for the op `data` through the
dispatcher (its name, method variant) and `->mutable_data()` was ambiguous over TensorImpl's and StorageImpl's
(1,311 CPU and CUDA chains showed the ambiguous step).

The fixture is written here; each expected edge is read in it (line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: data(Tensor self) -> Tensor
  variants: method
- func: touch(Tensor self) -> Tensor
  dispatch:
    CPU: touch_cpu
"""
IMPL_H = """\
namespace c10 {
struct TensorImpl {
  const void* data() const { return nullptr; }                                 // :3
  void* mutable_data() { return nullptr; }                                     // :4
};
struct StorageImpl {
  void* mutable_data() { return nullptr; }                                     // :7
};
}
"""
TENSOR_BASE_H = """\
#include <c10/core/TensorImpl.h>
namespace at {
using c10::TensorImpl;
class TensorBase {
 public:
  TensorImpl* unsafeGetTensorImpl() const { return impl_; }                    // :6
  const void* const_data_ptr() const {
    return this->unsafeGetTensorImpl()->data();                                // :8
  }
  void* mutable_data_ptr() const {
    return this->unsafeGetTensorImpl()->mutable_data();                        // :11
  }
  TensorImpl* impl_;
};
}
"""
TOUCH_CPP = """\
#include <ATen/core/TensorBase.h>
namespace at::native {
Tensor touch_cpu(const Tensor& self) {
  return self;
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("this_chain"), {
        N + "native_functions.yaml": YAML, "c10/core/TensorImpl.h": IMPL_H,
        "aten/src/ATen/core/TensorBase.h": TENSOR_BASE_H, N + "Touch.cpp": TOUCH_CPP})


def _edges(db, line: int) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.kind, e.how, d.name || ':' || d.line FROM edges e LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE e.file = 'aten/src/ATen/core/TensorBase.h' AND e.line = ? "
            "AND e.kind IN ('calls', 'redispatches-to-op') AND e.target LIKE '%)->%'", (line,)))


def test_a_chain_from_this_calls_the_members_of_what_each_step_returns(db):
    assert _edges(db, 8) == {("calls", "receiver-type", "c10::TensorImpl::data:3")}
    assert _edges(db, 11) == {("calls", "receiver-type", "c10::TensorImpl::mutable_data:4")}
