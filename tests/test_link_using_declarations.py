"""`using Q::name;` makes Q::name a member of the scope it is written in for lookup: a function's overloads
join the scope's own (one overload set), a class named as a qualifier (`IndexToOffset<T, I, D>::get` under
`using at::cuda::detail::IndexToOffset;`, as native/cuda/RNN.cu writes it) is Q's class, and one written in a
function body is seen first from that body. Every expected edge is read in the sources below (their line
numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: rnn_cell(Tensor self) -> Tensor
  dispatch:
    CUDA: rnn_cell_cuda
"""
INFO_H = """\
namespace at::cuda::detail {
template <typename T, typename I, int D>
struct IndexToOffset {
  static I get(I linear, int info) { return linear; }              // :4
};
template <typename T, typename I>
struct IndexToOffset<T, I, -1> {
  static I get(I linear, int info) { return linear; }              // :8
};
inline int wrap(int64_t dim, int64_t size) { return 0; }           // :10
int helper(int x) { return x; }                                    // :11
}
namespace c10 { inline int64_t wrap_dim(int64_t dim, int64_t n) { return dim; } }  // :13
namespace at {
using c10::wrap_dim;
struct TensorImpl {};
inline int64_t wrap_dim(int64_t dim, TensorImpl* t) { return dim; }  // :17
}
"""
LOCAL_CPP = """\
namespace at::native { namespace {
struct IndexToOffset { static int get(int a, int b) { return a; } };  // :2, a namesake local to this file
} }
"""
RNN_CU = """\
#include "Info.h"
namespace at::native {
namespace {
using at::cuda::detail::IndexToOffset;
template <typename T, typename I, int D>
int cell(I linear, int64_t dim, int64_t n) {
  int a = IndexToOffset<T, I, D>::get(linear, 0);
  int b = IndexToOffset<T, I, -1>::get(linear, 0);
  int64_t c = wrap_dim(dim, n);
  return a + b;
}
}
Tensor rnn_cell_cuda(const Tensor& self, int64_t dim, int64_t n) {
  using at::cuda::detail::helper;
  helper(1);
  return cell<float, int, 2>(1, dim, n);
}
}
"""

SCALES_H = """\
namespace p { inline int scale(int x) { return x; } }              // :1
namespace q { inline int scale(int x) { return -x; } }             // :2
"""
A_CPP = """\
#include "Scales.h"
namespace at::native {
using p::scale;
int a() { return scale(1); }
}
"""
B_CPP = """\
#include "Scales.h"
namespace at::native {
using q::scale;
int b() { return scale(1); }
}
"""


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> tuple[set[tuple], set[tuple]]:
    """(RNN.cu's call edges, the `scale` calls' edges)."""
    db = built_tree(tmp_path_factory.mktemp("declarations"), {
        N + "native_functions.yaml": YAML, N + "cuda/Info.h": INFO_H, N + "cpu/Local.cpp": LOCAL_CPP,
        N + "cuda/RNN.cu": RNN_CU, N + "Scales.h": SCALES_H, N + "A.cpp": A_CPP, N + "B.cpp": B_CPP})
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.line, e.target, e.how, d.name, d.line FROM edges e LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE e.kind = 'calls' AND e.file LIKE '%RNN.cu'")), set(conn.execute(
            "SELECT e.file, e.how, d.name, d.line FROM edges e LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE e.kind = 'calls' AND e.target = 'scale'"))


def test_a_class_named_by_a_using_declaration_qualifies_its_members(edges: set[tuple]):
    # :8 names the partial specialisation's get (Info.h:8); :7, with D a template parameter, may be it or
    # the primary template's (Info.h:4); never Local.cpp's IndexToOffset, which only that file sees
    got = {(line, how, name, at) for line, _t, how, name, at in edges if line in (7, 8)}
    assert got == {(7, "specialisations", "at::cuda::detail::IndexToOffset::get", 4),
                   (7, "specialisations", "at::cuda::detail::IndexToOffset<T,I,-1>::get", 8),
                   (8, "using", "at::cuda::detail::IndexToOffset<T,I,-1>::get", 8)}


def test_a_declared_function_joins_the_scope_s_own_overloads_and_the_argument_types_pick(edges: set[tuple]):
    # :9 wrap_dim(dim, n) from at::native: lookup reaches at, where at::wrap_dim(int64_t, TensorImpl*) and,
    # through `using c10::wrap_dim;` (Info.h:15), c10::wrap_dim(int64_t, int64_t) are one set; both arguments
    # are int64_t parameters: c10's is exact (Info.h:13)
    assert {(how, name, at) for line, _t, how, name, at in edges if line == 9} == {
        ("argument-types", "c10::wrap_dim", 13)}


def test_a_using_declaration_in_a_function_body_is_seen_from_it(edges: set[tuple]):
    # :15 helper(1) in rnn_cell_cuda, through `using at::cuda::detail::helper;` at :14 (Info.h:11)
    assert {(how, name, at) for line, _t, how, name, at in edges if line == 15} == {
        ("using", "at::cuda::detail::helper", 11)}


@pytest.fixture(scope="module")
def edges(linked: tuple[set[tuple], set[tuple]]) -> set[tuple]:
    return linked[0]


def test_each_file_s_own_declarations_count_for_its_calls_only(linked: tuple[set[tuple], set[tuple]]):
    # A.cpp:4 and B.cpp:4 make the same call from the same namespace; each file's declaration (:3) decides
    assert linked[1] == {(N + "A.cpp", "using", "p::scale", 1), (N + "B.cpp", "using", "q::scale", 2)}
