"""A function template's specialisation handed by name to a callee that calls that parameter is reached through
the callee, as a plain function is (test_link_handed_function.py): 2.6.0 ReduceOps.cpp:792 hands
`cummax_cummin_helper<scalar_t, int64_t, std::greater_equal<scalar_t>>` to tensor_dim_apply3 (TensorDimApply.h:9),
whose body runs `func(...)`; cummax_cummin_helper (ReduceOps.cpp:771) is the loop, and _cummax_helper's CPU chain
ended at tensor_dim_apply3's redispatches of stride and size. calls.arg_types wrote nothing for an argument that
names a function with template arguments; it is now `decltype(name<args>)`, as a plain function's name is
`decltype(name)`, and the link looks the name up with its arguments.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tg_index.indexer.cxx import extract
from tg_index.queries.api import Index
from tg_index.queries.results import StepKind

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: cummax_it(Tensor self) -> Tensor
  dispatch:
    CPU: cummax_it_cpu
"""
OPS_CPP = """\
namespace at::native {
template <typename scalar_t, typename func_t>
void dim_apply(const Tensor& self, int64_t dim, func_t func) {                 // :3
  func(self.data_ptr<scalar_t>(), self.size(dim));                             // :4
}
template <typename T1, typename Operation>
void cummax_helper(const T1* data, int64_t n) {                                // :7
  Operation op;
  for (int64_t i = 1; i < n; i++) {                                            // :9
    op(data[i], data[i - 1]);
  }
}
template <typename scalar_t>
void keep(const Tensor& self, int64_t dim, scalar_t v) {}                      // :14
Tensor cummax_it_cpu(const Tensor& self) {                                     // :15
  AT_DISPATCH_FLOATING_TYPES(self.scalar_type(), "cummax_it", [&] {
    at::native::dim_apply<scalar_t>(self, 0, cummax_helper<scalar_t, std::greater_equal<scalar_t>>);  // :17
    keep(self, 0, is_wide_v<scalar_t>);                                        // :18
  });
  return self;
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("handed_template_function"),
                      {N + "native_functions.yaml": YAML, N + "Ops.cpp": OPS_CPP})


def test_extraction_writes_a_function_template_named_as_an_argument():
    facts = extract(OPS_CPP.encode(), N + "Ops.cpp")
    [call] = [c for c in facts.calls if c.line == 17 and c.callee_name == "dim_apply"]
    assert json.loads(call.arg_types)[2] == "decltype(cummax_helper<scalar_t,std::greater_equal<scalar_t>>)"


def _edges(db, line: int) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.kind, e.target, d.name, d.line, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = 'at::native::cummax_it_cpu' AND e.line = ? "
            "AND e.kind = 'calls'", (line,)))


def test_the_handed_specialisation_is_called_at_the_handing_call(db):
    assert ("calls", "cummax_helper<scalar_t,std::greater_equal<scalar_t>>", "at::native::cummax_helper", 7,
            "handed to dim_apply as func, which calls it") in _edges(db, 17)
    assert {e[2] for e in _edges(db, 18)} == {"at::native::keep"}  # a variable template's value is no function


def test_kernels_for_reaches_the_loop(db):
    [answer] = Index.open(db).kernels_for("cummax_it")
    [cpu] = answer.keys
    assert (StepKind.CALL, "at::native::cummax_helper", 7) in [(s.kind, s.name, s.line) for s in cpu.chain]
