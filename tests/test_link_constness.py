"""A member's const and non-const overloads (`desc()` and `desc() const`, as aten/src/ATen/cudnn/Descriptors.h:104-105
writes them) told apart by the object's constness (calls.receiver_const): a `const T&` parameter, a member of
one (`args.idesc.desc()`), what a `const T*` points to; a non-const variable calls the non-const one; an
`auto&` variable or an object a call returns says nothing, and the pair stays an overload set. The expected
lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: conv_thing(Tensor self) -> Tensor
  dispatch:
    CPU: conv_thing_cpu
"""
DESC_H = """\
namespace at::native {
struct Descriptor {
  int* desc() const { return nullptr; }                            // :3
  int* desc() { return nullptr; }                                  // :4
};
struct Args { Descriptor idesc; Descriptor make() const { return idesc; } };
}
"""
CONV_CPP = """\
#include <ATen/native/Desc.h>
namespace at::native {
int conv(const Args& args, Args& out, const Descriptor* p, Descriptor* q) {
  args.idesc.desc();
  out.idesc.desc();
  p->desc();
  q->desc();
  auto& alias = out.idesc;
  alias.desc();
  args.make().desc();
  const auto& kept = out.idesc;
  kept.desc();
  return 0;
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("constness"), {
        N + "native_functions.yaml": YAML, N + "Desc.h": DESC_H, N + "Conv.cpp": CONV_CPP})
    out: dict[int, set[tuple]] = {}
    for _file, line, target, how, _detail, _name, at in call_edges(db, "Conv.cpp"):
        if target.endswith("desc"):
            out.setdefault(line, set()).add((how, at))
    return out


def test_the_object_s_constness_is_a_fact():
    f = cxx.extract(CONV_CPP.encode(), N + "Conv.cpp")
    assert [(c.line, c.receiver_const) for c in f.calls if c.callee_name == "desc"] == [
        (4, True), (5, False), (6, True), (7, False), (9, None), (10, None), (12, True)]


@pytest.mark.parametrize("line, want", [(4, 3), (5, 4), (6, 3), (7, 4), (12, 3)])
def test_the_constness_picks_the_member(calls, line, want):
    # Conv.cpp:4 a member of a const Args&, :6 through a const Descriptor*, :12 a const auto&: desc() const
    # (Desc.h:3); :5 and :7 non-const objects: desc() (Desc.h:4)
    assert calls[line] == {("receiver-type", want)}


@pytest.mark.parametrize("line", [9, 10])
def test_an_object_of_unknown_constness_keeps_both(calls, line):
    # Conv.cpp:9 `auto& alias` may bind a const object; :10 the object make() returns is not read
    assert calls[line] == {("overload-set", 3), ("overload-set", 4)}


ACCESSOR_H = """\
namespace at {
template <typename T> struct Accessor {
  C10_HOST_DEVICE T* data() { return data_; }                     // :3
  C10_HOST_DEVICE const T* data() const { return data_; }         // :4
  T* data_;
};
}
"""
KERNEL_CPP = """\
#include <ATen/native/Accessor.h>
namespace at::native {
void kernel(Accessor<float> a, const Accessor<float>& b) {
  a.data();
  b.data();
}
}
"""


def test_the_constness_picks_a_host_device_member(tmp_path):
    # a C10_HOST_DEVICE member pair (aten/src/ATen/core/TensorAccessor.h:56-61 data() and data() const) is a
    # device_function's, told apart like a method's: Kernel.cpp:4 non-const -> :3, :5 const -> :4
    db = built_tree(tmp_path, {N + "native_functions.yaml": YAML, N + "Accessor.h": ACCESSOR_H,
                               N + "Kernel.cpp": KERNEL_CPP})
    got = {(line, how, at) for _f, line, target, how, _d, _n, at in call_edges(db, "Kernel.cpp") if target.endswith("data")}
    assert got == {(4, "receiver-type", 3), (5, "receiver-type", 4)}
