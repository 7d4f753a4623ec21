"""Receivers that are elements of a sequence: `t` of `for (const auto& t : tensors)` (an element of its
range, receivers.py) and `tensors[0]` (link/resolve.py `_element`), with TensorList an alias of an alias
template: `ArrayRef<Tensor>` where a `template <typename T> using ArrayRef = at::ArrayRef<T>;` elsewhere (as
torch/csrc/jit/ir/ir.h:152 writes it in 2.6.0) keeps its argument, Tensor, rather than becoming ArrayRef<T>.
A member of a class template defined outside it (`template <class T> int List<T>::size()`) is the primary
template's, and its return type takes the receiver's template arguments. The expected lines are the
comments' `:N`."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: total(Tensor[] tensors) -> int
  dispatch:
    CPU: total_cpu
"""
ARRAY_H = """\
namespace c10 {
template <typename T> class ArrayRef {
 public:
  const T& operator[](int i) const;
  int size() const { return 0; }                                   // :5
};
}
namespace at {
using c10::ArrayRef;
struct Tensor { int dim() const { return 0; } };                   // :10
using TensorList = ArrayRef<Tensor>;
}
"""
IR_H = """\
namespace torch::jit {
template <typename T> using ArrayRef = at::ArrayRef<T>;
}
"""
TOTAL_CPP = """\
#include <ATen/native/Array.h>
namespace at::native {
int total_cpu(TensorList tensors) {
  int n = 0;
  for (const auto& t : tensors) n += t.dim();
  return n + tensors[0].dim() + tensors.size();
}
}
"""
LIST_H = """\
#include <ATen/native/Array.h>
namespace c10 {
template <class T> class List {
 public:
  std::vector<T> vec() const;
  int size() const;
};
template <class T> std::vector<T> List<T>::vec() const { return {}; }     // :8
template <class T> int List<T>::size() const { return 0; }                // :9
}
"""
LISTED_CPP = """\
#include <ATen/native/List.h>
namespace at::native {
int listed(const c10::List<Tensor>& l) {
  return l.size() + l.vec()[0].dim();
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, str], set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("elements"), {
        N + "native_functions.yaml": YAML, N + "Array.h": ARRAY_H, "torch/csrc/jit/ir/ir.h": IR_H,
        N + "Total.cpp": TOTAL_CPP, N + "List.h": LIST_H, N + "Listed.cpp": LISTED_CPP})
    out: dict[tuple[int, str], set[tuple]] = {}
    for file, line, target, how, _detail, name, at in call_edges(db, ".cpp"):
        out.setdefault((line, target) if file.endswith("Total.cpp") else (file.rsplit("/", 1)[-1], line, target),
                       set()).add((how, name, at))
    return out


def test_a_range_for_auto_variable_is_written_as_an_element_of_its_range():
    f = cxx.extract(TOTAL_CPP.encode(), N + "Total.cpp")
    assert [(c.callee, c.receiver_type) for c in f.calls if c.callee == "t.dim"] == [
        ("t.dim", "decltype(std::declval<TensorList>()[_])")]


def test_an_element_of_the_range_is_the_sequence_s_element_type(calls):
    # :5 t.dim(): t is a Tensor of tensors, Array.h:10
    assert calls[(5, "t.dim")] == {("receiver-type", "at::Tensor::dim", 10)}


def test_an_alias_template_keeps_the_arguments_written(calls):
    # :6 tensors[0].dim() is Tensor's (Array.h:10), tensors.size() ArrayRef's (Array.h:5)
    assert calls[(6, "tensors[0].dim")] == {("receiver-type", "at::Tensor::dim", 10)}
    assert calls[(6, "tensors.size")] == {("receiver-type", "c10::ArrayRef::size", 5)}


def test_a_member_of_a_class_template_defined_outside_it_is_the_primary_template_s(calls):
    # Listed.cpp:4 l.size() with l a List<Tensor>: List<T>::size, List.h:9, defined outside the class and no
    # specialisation; l.vec() returns std::vector<T> with T the receiver's Tensor (List.h:8), so
    # l.vec()[0].dim() is Tensor::dim (Array.h:10)
    assert calls[("Listed.cpp", 4, "l.size")] == {("receiver-type", "c10::List<T>::size", 9)}
    assert calls[("Listed.cpp", 4, "l.vec()[0].dim")] == {("receiver-type", "at::Tensor::dim", 10)}
