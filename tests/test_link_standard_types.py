"""Receivers typed through the standard library and through qualified type aliases (link/resolve.py):

- `std::make_unique<T>(...)` is a std::unique_ptr<T>, `std::make_shared<T>(...)` a std::shared_ptr<T>
  (native/cudnn/MHA.cpp's `auto mha_graph = std::make_shared<fe::graph::Graph>();`), whose `->` reaches T
  and whose get() is a T*;
- std::optional<T>'s value() (and `*`, value_or) is a T (`bias.value().sizes()` with bias a
  `std::optional<Tensor>`);
- a type written qualified that is an alias is looked up whole: `sparse_csr::SparseCsrTensor`
  (aten/src/ATen/SparseCsrTensorUtils.h, `using SparseCsrTensor = Tensor;` in at::sparse_csr) is a Tensor.

The expected lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: thing(Tensor self) -> Tensor
  dispatch:
    CPU: thing_cpu
"""
TYPES_H = """\
namespace at {
struct Tensor { int dim() const { return 0; } };                  // :2
struct Graph { int nodes() const { return 0; } };                  // :3
namespace sparse_csr { using SparseCsrTensor = Tensor; }
}
"""
THING_CPP = """\
#include <ATen/native/Types.h>
namespace at::native {
int thing_cpu(const std::optional<Tensor>& bias, const sparse_csr::SparseCsrTensor& A) {
  auto graph = std::make_shared<Graph>();
  auto owned = std::make_unique<Graph>();
  auto kept = bias.value();
  return graph->nodes() + owned.get()->nodes() + kept.dim() + bias.value().dim() + A.dim();
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("standard"), {
        N + "native_functions.yaml": YAML, N + "Types.h": TYPES_H, N + "Thing.cpp": THING_CPP})
    out: dict[str, set[tuple]] = {}
    for _file, line, target, how, _detail, name, at in call_edges(db, "Thing.cpp"):
        if line == 7:
            out.setdefault(target, set()).add((how, name, at))
    return out


def test_an_owning_pointer_made_by_a_standard_factory_reaches_what_it_holds(calls):
    # Thing.cpp:7 graph->nodes() (graph from std::make_shared<Graph>, :4) and owned.get()->nodes() (:5):
    # Graph::nodes, Types.h:3
    assert calls["graph->nodes"] == {("receiver-type", "at::Graph::nodes", 3)}
    assert calls["owned.get()->nodes"] == {("receiver-type", "at::Graph::nodes", 3)}


def test_an_optional_s_value_is_what_it_holds(calls):
    # Thing.cpp:7 kept.dim() (kept = bias.value(), :6) and bias.value().dim(): Tensor::dim, Types.h:2
    assert calls["kept.dim"] == {("receiver-type", "at::Tensor::dim", 2)}
    assert calls["bias.value().dim"] == {("receiver-type", "at::Tensor::dim", 2)}


def test_a_qualified_alias_is_what_it_aliases(calls):
    # Thing.cpp:7 A.dim(): sparse_csr::SparseCsrTensor is Tensor (Types.h:4), Tensor::dim Types.h:2
    assert calls["A.dim"] == {("receiver-type", "at::Tensor::dim", 2)}


ALLOC_H = """\
namespace c10 {
struct Alloc { int grab(int n) { return n; } };                      // :2
inline Alloc* get() { static Alloc a; return &a; }
struct Holder { Alloc* ptr; };
}
"""
USE_CPP = """\
#include <ATen/native/Alloc.h>
namespace at::native {
int use(c10::Alloc* p) {
  auto& a = *c10::get();
  auto& b = *p;
  return a.grab(1) + b.grab(2);
}
}
"""


def test_a_dereferenced_pointer_is_what_it_points_to(tmp_path):
    # Use.cpp:4 `auto& a = *c10::get();` (native/cuda/linalg/BatchLinearAlgebraLib.cpp:91's
    # `auto& allocator = *::c10::cuda::CUDACachingAllocator::get();`) and :5 `*p`: a.grab and b.grab are
    # Alloc::grab (Alloc.h:2)
    from tg_index.indexer import cxx

    f = cxx.extract(USE_CPP.encode(), N + "Use.cpp")
    assert {(c.callee, c.receiver_type) for c in f.calls if c.callee_name == "grab"} == {
        ("a.grab", "decltype(*c10::get())"), ("b.grab", "decltype(*std::declval<Alloc>())")}  # types without `*`
    db = built_tree(tmp_path, {N + "native_functions.yaml": YAML, N + "Alloc.h": ALLOC_H, N + "Use.cpp": USE_CPP})
    got = {(target, how, at) for _f, _l, target, how, _d, _n, at in call_edges(db, "Use.cpp") if "grab" in target}
    assert got == {("a.grab", "receiver-type", 2), ("b.grab", "receiver-type", 2)}
