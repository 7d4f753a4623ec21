"""A call with no arguments and no template arguments, of a set with one non-template that takes none and
function templates beside it with the same qualifiers: the non-template, as C++ prefers it when nothing is
converted ([over.match.best]). c10/core/TensorOptions.h:205-209 and :297-299 (2.6.0) write `device(Args&&...)
const` beside `device() const`; aten/src/ATen/core/TensorBase.h:594 `void* data_ptr() const` and
aten/src/ATen/templates/TensorMethods.cpp:47-49 `template <> T* TensorBase::data_ptr() const`. The expected
lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: thing(Tensor self) -> Tensor
  dispatch:
    CPU: thing_cpu
"""
OPTIONS_H = """\
namespace c10 {
struct Options {
  template <typename... Args> Options device(Args&&... args) const { return *this; }   // :3
  int device() const { return 0; }                                                      // :4
  template <typename T> T* data() const { return nullptr; }                             // :5
  void* data() const { return nullptr; }                                                // :6
  template <typename... A> void* mine(A&&... a) { return nullptr; }                      // :7
  void* mine() const { return nullptr; }                                                // :8
  int twice() const { return 0; }                                                       // :9
  int twice(int n = 0) const { return n; }                                              // :10
};
template <> inline float* Options::data<float>() const { return nullptr; }             // :12
}
"""
USE_CPP = """\
#include <ATen/native/Options.h>
namespace at::native {
int use(c10::Options o) {
  o.device();
  o.data();
  o.data<float>();
  o.mine();
  o.twice();
  return o.device(1).device();
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("noargs"), {
        N + "native_functions.yaml": YAML, N + "Options.h": OPTIONS_H, N + "Use.cpp": USE_CPP})
    out: dict[int, set[tuple]] = {}
    for _file, line, target, how, _detail, _name, at in call_edges(db, "Use.cpp"):
        out.setdefault((line, target.rsplit(".", 1)[-1]), set()).add((how, at))
    return out


@pytest.mark.parametrize("line, name, how, want", [(4, "device", "overload", 4), (5, "data", "receiver-type", 6)])
def test_no_arguments_call_the_non_template(calls, line, name, how, want):
    # Use.cpp:4 device() (Options.h:4), not the variadic template (:3); :5 data() (:6), not the template (:5),
    # which no call without template arguments can deduce, nor its explicit specialisation (:12)
    assert calls[(line, name)] == {(how, want)}


def test_explicit_template_arguments_leave_the_set(calls):
    # Use.cpp:6 data<float>() names a template: the non-template is no candidate, and the rule says nothing
    assert ("overload", 6) not in calls[(6, "data<float>")]


def test_other_qualifiers_or_two_non_templates_leave_the_set(calls):
    # Use.cpp:7 mine(): the variadic template (its pack deduced empty) is non-const, the non-template const
    # (a non-const object prefers the template); :8 twice(): two non-templates take no arguments (ambiguous in C++)
    assert calls[(7, "mine")] == {("overload-set", 7), ("overload-set", 8)}
    assert calls[(8, "twice")] == {("overload-set", 9), ("overload-set", 10)}


BASE_H = """\
namespace at {
struct Base {
  void* data_ptr() const { return nullptr; }                                  // :3
  template <typename T> T* data_ptr() const { return nullptr; }               // :4
};
template <typename T> inline T* pinned(long n) { return nullptr; }           // :6
inline int pinned(const Base& b) { return 0; }                                // :7
}
"""
BASE_CPP = """\
#include <ATen/native/Base.h>
namespace at::native {
void use(const at::Base& b) {
  b.data_ptr<float>();
  b.data_ptr();
  pinned<float>(4);
}
}
"""


def test_explicit_template_arguments_leave_out_the_non_templates(tmp_path):
    # Base.cpp:4 b.data_ptr<float>() names the member template (Base.h:4), never `void* data_ptr() const` (:3),
    # as TensorBase.h:594's beside `template <typename T> T* data_ptr() const`; :5 without them the
    # non-template; :6 pinned<float>(4) is the template (:6), as native/cuda/MiscUtils.h's pin_memory<T>
    db = built_tree(tmp_path, {N + "native_functions.yaml": YAML, N + "Base.h": BASE_H, N + "Base.cpp": BASE_CPP})
    got = {(line, how, at) for _f, line, _t, how, _d, _n, at in call_edges(db, "Base.cpp")}
    assert {(line, at) for line, _how, at in got} == {(4, 4), (5, 3), (6, 6)}
