"""Overloads told apart by what a Tensor can never be, and sets of source-file functions whose header
declarations give the defaults (link/overloads.py, resolve.py):

- a Tensor never binds SymInt, Scalar, ScalarType, a string, nor a std::vector of number lists, and none of
  them binds a Tensor: `maybe_wrap_dim(dim, self)` is maybe_wrap_dim(int64_t, TensorList) among
  aten/src/ATen/WrapDimUtils.h's overloads (2.6.0), `comparison_op(self, other, ...)` in BinaryOps.cpp the
  (Tensor, Tensor) one;
- a function defined in a source file may take fewer arguments than its definition's parameters: its header
  declaration gives the defaults (mps/OperationUtils.h declares `getMPSShape(const TensorBase& t,
  c10::MemoryFormat memory_format = MemoryFormat::Contiguous)`, OperationUtils.mm:323 defines it without).

The expected lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: wrap_thing(Tensor self) -> Tensor
  dispatch:
    CPU: wrap_thing_cpu
"""
WRAP_H = """\
#include <vector>
namespace at {
struct Tensor {};
struct Scalar { Scalar(double v) {} };
struct SymInt { SymInt(long v) {} };
template <typename T> struct ArrayRef { ArrayRef(const T& one) {} };
using TensorList = ArrayRef<Tensor>;
inline long maybe_wrap_dim(long dim, TensorList tensors) { return dim; }                       // :8
inline long maybe_wrap_dim(long dim, const std::vector<std::vector<long>>& sizes) { return dim; } // :9
inline long maybe_wrap_dim(long dim, SymInt n) { return dim; }                                 // :10
inline int compare(const Tensor& a, const Tensor& b) { return 0; }                             // :11
inline int compare(const Tensor& a, const Scalar& b) { return 1; }                             // :12
}
"""
SHAPE_H = """\
namespace at::native {
int* shape_of(const Tensor& t, int format = 0);
int* shape_of(const std::vector<long>& sizes, int format = 0);
}
"""
SHAPE_CPP = """\
#include <ATen/native/Shape.h>
namespace at::native {
int* shape_of(const Tensor& t, int format) { return nullptr; }                  // :3
int* shape_of(const std::vector<long>& sizes, int format) { return nullptr; }   // :4
}
"""
USE_CPP = """\
#include <ATen/native/Wrap.h>
#include <ATen/native/Shape.h>
namespace at::native {
long use(long dim, const Tensor& self, const Tensor& other, Scalar s) {
  maybe_wrap_dim(dim, self);
  compare(self, other);
  compare(self, s);
  shape_of(self);
  return dim;
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("binding"), {
        N + "native_functions.yaml": YAML, N + "Wrap.h": WRAP_H, N + "Shape.h": SHAPE_H, N + "Shape.cpp": SHAPE_CPP,
        N + "Use.cpp": USE_CPP})
    out: dict[int, set[tuple]] = {}
    for _file, line, _target, how, _detail, _name, at in call_edges(db, "Use.cpp"):
        out.setdefault(line, set()).add((how, at))
    return out


@pytest.mark.parametrize("line, want", [(5, 8), (6, 11), (7, 12)])
def test_a_tensor_never_binds_what_has_no_constructor_from_one(calls, line, want):
    # Use.cpp:5 neither std::vector<std::vector<long>> (Wrap.h:9) nor SymInt (:10) takes a Tensor: the
    # TensorList one (:8); :6 a Tensor is no Scalar (:11); :7 a Scalar is no Tensor (:12)
    assert calls[line] == {("argument-types", want)}


def test_a_source_file_s_function_takes_its_declaration_s_defaults(calls):
    # Use.cpp:8 shape_of(self), one argument: Shape.cpp's definitions take two, Shape.h's declarations give the
    # second a default; a Tensor is no list of numbers: Shape.cpp:3
    assert calls[8] == {("argument-types", 3)}
