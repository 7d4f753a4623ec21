"""The argument classes a call through the dispatcher is matched with, beyond a Tensor, a number and the option
enums (test_link_op_overloads.py): integer lists (an IntArrayRef, a vector, a SmallVector behind an alias), Tensor
lists, optionals and OptionalIntArrayRef, strings, c10::SymInt, Storage and caffe2::TypeMeta. Each is read as C++
binds it: an integer list is no Dimname list and no ScalarType (2.6.0 torch/csrc/autograd/FunctionsManual.cpp:1022,
`grad.sum(sizes)`), an optional binds an optional parameter only (2.6.0 aten/src/ATen/native/LinearAlgebra.cpp:623,
`at::linalg_pinv(input, atol, rtol, hermitian)` with std::optional<Tensor> atol), a `const char*` is no Scalar
(LinearAlgebra.cpp:3034, `at::linalg_matrix_norm_out(result, A, "fro", ...)`). The fixture is written here; its
line numbers are the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
HEADER = """\
namespace c10 {
template <typename T> class ArrayRef {};
template <typename T, unsigned N> class SmallVector {};
template <typename T> class OptionalArrayRef {};
using IntArrayRef = ArrayRef<int64_t>;
using OptionalIntArrayRef = OptionalArrayRef<int64_t>;
}
namespace at {
using DimVector = c10::SmallVector<int64_t, 5>;
using TensorList = c10::ArrayRef<Tensor>;
using c10::IntArrayRef;
}
"""
KERNEL = """\
#include "Shapes.h"
namespace at::native {
Tensor& pick(const Tensor& self, Tensor& out, IntArrayRef dims, std::vector<int64_t> more, DimVector shape,
             const std::optional<ScalarType>& dtype, const std::optional<Tensor>& atol, const char* ord,
             c10::SymInt n, TensorList parts, std::string where, at::OptionalIntArrayRef maybe, Storage storage,
             caffe2::TypeMeta meta, Device dev) {
  Tensor a = self.sum(dims);
  Tensor b = at::sum(self, more);
  Tensor c = self.sum(shape);
  Tensor d = at::zeros(dims, dtype);
  Tensor e = at::pinv(self, atol, atol);
  Tensor f = at::norm_like(self, ord);
  Tensor g = self.div_like(n);
  Tensor h = at::stack_like(parts);
  Tensor i = self.to_like(where);
  Tensor j = self.view_like(maybe);
  Tensor k = at::mean_like(self, dtype);
  out.set_like(storage);
  Tensor l = self.to(meta);
  Tensor m = at::stack_like(self);
  Tensor o = self.sum(0);
  Tensor q = self.to(dev, meta, false, true);
  Tensor r = at::pinv(self, atol, parts);
  return out;
}
}
"""
YAML = """\
- func: pick(Tensor self, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: pick
- func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
  variants: function, method
- func: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  variants: function, method
- func: sum.dim_DimnameList(Tensor self, Dimname[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
  variants: function, method
- func: zeros.names(int[] size, *, Dimname[]? names, ScalarType? dtype=None, Layout? layout=None, \
Device? device=None, bool? pin_memory=None) -> Tensor
- func: zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, \
bool? pin_memory=None) -> Tensor
- func: pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False) -> Tensor
- func: pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor
- func: norm_like(Tensor self, Scalar ord) -> Tensor
- func: norm_like.str_ord(Tensor self, str ord) -> Tensor
- func: div_like.Tensor(Tensor self, Tensor other) -> Tensor
  variants: method
- func: div_like.Scalar(Tensor self, Scalar other) -> Tensor
  variants: method
- func: stack_like(Tensor[] tensors) -> Tensor
- func: stack_like.one(Tensor self, Tensor? other=None) -> Tensor
- func: to_like.device(Tensor self, Device device) -> Tensor
  variants: method
- func: to_like.dtype(Tensor self, ScalarType dtype) -> Tensor
  variants: method
- func: view_like.opt(Tensor self, int[]? size) -> Tensor
  variants: method
- func: view_like.dtype(Tensor self, ScalarType dtype) -> Tensor
  variants: method
- func: mean_like(Tensor self, ScalarType dtype) -> Tensor
- func: mean_like.opt(Tensor self, ScalarType? dtype) -> Tensor
- func: set_like.source_Storage(Tensor(a!) self, Storage source) -> Tensor(a!)
  variants: method
- func: set_like.source_Tensor(Tensor(a!) self, Tensor source) -> Tensor(a!)
  variants: method
- func: to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, \
bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
  variants: method
- func: to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, \
MemoryFormat? memory_format=None) -> Tensor(a)
  variants: method
- func: to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, \
MemoryFormat? memory_format=None) -> Tensor(a)
  variants: method
- func: to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, \
MemoryFormat? memory_format=None) -> Tensor(a)
  variants: method
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("op_argument_classes"), {
        f"{N}Shapes.h": HEADER, f"{N}Pick.cpp": KERNEL, f"{N}native_functions.yaml": YAML})


def _ops(db: Path, line: int, callee: str) -> list[str]:
    """The op of each redispatch edge the call on that line of Pick.cpp has."""
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute(
            "SELECT n.name FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.kind = 'redispatches-to-op' "
            "AND e.file = ? AND e.line = ? AND e.target = ? ORDER BY n.name", (f"{N}Pick.cpp", line, callee))]


def test_an_integer_list_is_no_dimname_list_and_no_scalar_type(db: Path) -> None:
    """IntArrayRef through its alias, a std::vector<int64_t> as written, and DimVector (an alias of a SmallVector
    of int64_t)."""
    assert _ops(db, 7, "self.sum") == ["sum.dim_IntList"]
    assert _ops(db, 8, "at::sum") == ["sum.dim_IntList"]
    assert _ops(db, 9, "self.sum") == ["sum.dim_IntList"]


def test_an_optional_binds_only_an_optional_parameter(db: Path) -> None:
    """std::optional<ScalarType> is no Dimname list (zeros.names) and no ScalarType (mean_like);
    std::optional<Tensor> is no optional float."""
    assert _ops(db, 10, "at::zeros") == ["zeros"]
    assert _ops(db, 11, "at::pinv") == ["pinv.atol_rtol_tensor"]
    assert _ops(db, 17, "at::mean_like") == ["mean_like.opt"]


def test_an_optional_integer_list_binds_an_optional_integer_list(db: Path) -> None:
    assert _ops(db, 16, "self.view_like") == ["view_like.opt"]


def test_strings_bind_a_str_and_a_device(db: Path) -> None:
    """A `const char*` is a str, not a Scalar; a std::string makes a Device (its constructor), not a ScalarType."""
    assert _ops(db, 12, "at::norm_like") == ["norm_like.str_ord"]
    assert _ops(db, 15, "self.to_like") == ["to_like.device"]


def test_a_symint_is_a_scalar_not_a_tensor(db: Path) -> None:
    assert _ops(db, 13, "self.div_like") == ["div_like.Scalar"]


def test_a_tensor_list_binds_a_list_and_a_tensor_both(db: Path) -> None:
    """A TensorList is no Tensor; a Tensor is a Tensor and a one-element list (ArrayRef's constructor), and the
    exact match wins."""
    assert _ops(db, 14, "at::stack_like") == ["stack_like"]
    assert _ops(db, 20, "at::stack_like") == ["stack_like.one"]


def test_a_storage_and_a_type_meta(db: Path) -> None:
    """A Storage binds a Storage. A caffe2::TypeMeta binds TensorBody.h's hand-written `to(caffe2::TypeMeta, ...)`
    and `to(Device, caffe2::TypeMeta, ...)`, which call to.dtype and to.device: it binds a ScalarType as if
    exactly, and a TensorOptions (to.dtype_layout's second form) only through its constructor."""
    assert _ops(db, 18, "out.set_like") == ["set_like.source_Storage"]
    assert _ops(db, 19, "self.to") == ["to.dtype"]
    assert _ops(db, 22, "self.to") == ["to.device"]


def test_an_argument_no_overload_takes_says_nothing(db: Path) -> None:
    """at::pinv(self, atol, parts): no overload takes a Tensor list third (its type was read wrong, or the call is
    another function's), so it rules out nothing; the optional Tensor still decides."""
    assert _ops(db, 23, "at::pinv") == ["pinv.atol_rtol_tensor"]


def test_a_number_still_binds_an_integer_list(db: Path) -> None:
    """self.sum(0): 0 makes an IntArrayRef (its one-element constructor), not a Dimname or a ScalarType."""
    assert _ops(db, 21, "self.sum") == ["sum.dim_IntList"]
