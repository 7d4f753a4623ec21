"""A function handed by name to a callee whose body calls that parameter is reached through the callee, at the
call: 2.6.0 UnaryOps.cpp:551 `abs_` is `unary_op_impl_(self, at::abs_out)`, and unary_op_impl_ (:482) runs
`out_impl(self, self)`, so abs_ redispatches to abs.out there; cudnn/Conv_v7.cpp:791 hands
raw_cudnn_convolution_forward_out_32bit to split_batch_dim_to_32bit_out (:606), which calls it through
func_32bit. Before, both ended at the callee's call through a parameter, and abs's brief named only
empty.memory_format. The argument's name is looked up from the caller (the callee's definition may see none of
it); one handed to a callee that does not call it is no edge, nor is a name lookup does not find."""

from __future__ import annotations

import sqlite3

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: neg_it(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: neg_it

- func: neg_it.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: neg_it_out
"""
OPS_CPP = """\
namespace at::native {
template <typename OutImpl>
static inline Tensor unary_impl(const Tensor& self, OutImpl& out_impl) {
  Tensor result = at::empty({0}, self.options());
  return out_impl(result, self);
}
template <typename func_t>
static void split_32bit(const Tensor& t, int64_t n, func_t f32) {
  f32(t);
}
template <typename func_t>
static void keep(const Tensor& t, func_t f) {
  (void)f;
}
static void raw_32bit(const Tensor& t) {
  cblas_sscal(t.numel(), 2.0f, t.data_ptr<float>(), 1);
}
Tensor neg_it(const Tensor& self) {
  return unary_impl(self, at::neg_it_out);                                       // :19
}
void raw(const Tensor& t) {
  split_32bit(t, 1024, raw_32bit);                                               // :22
  keep(t, raw_32bit);                                                            // :23
  split_32bit(t, 1024, nowhere_defined);                                         // :24
}
Tensor& neg_it_out(const Tensor& self, Tensor& out) {                          // :26
  cblas_sscal(self.numel(), -1.0f, out.data_ptr<float>(), 1);
  return out;
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("handed"), {N + "native_functions.yaml": YAML, N + "Ops.cpp": OPS_CPP})


def _edges(db, caller: str) -> dict[int, set[tuple]]:
    out: dict[int, set[tuple]] = {}
    with sqlite3.connect(db) as conn:
        for kind, line, how, target, dst, detail in conn.execute(
                "SELECT e.kind, e.line, e.how, e.target, d.name, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
                "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? AND e.kind IN ('calls', 'redispatches-to-op')",
                (caller,)):
            out.setdefault(line, set()).add((kind, how, target, dst, detail))
    return out


def test_extraction_records_the_parameters_a_body_calls(db):
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute(
            "SELECT qualified_name, called_params FROM definitions WHERE called_params IS NOT NULL"))
    assert got == {"at::native::unary_impl": '["out_impl:1"]', "at::native::split_32bit": '["f32:2"]'}


def test_an_op_function_handed_on_is_a_redispatch_at_the_call(db):
    assert _edges(db, "at::native::neg_it")[19] == {
        ("calls", "same-namespace", "unary_impl", "at::native::unary_impl", None),
        ("redispatches-to-op", "op", "at::neg_it_out", "neg_it.out",
         "handed to unary_impl as out_impl, which calls it")}


def test_a_function_handed_on_is_called_at_the_call(db):
    edges = _edges(db, "at::native::raw")
    assert ("calls", "same-namespace", "raw_32bit", "at::native::raw_32bit",
            "handed to split_32bit as f32, which calls it") in edges[22]
    assert {e[3] for e in edges[23]} == {"at::native::keep"}  # keep never calls f
    assert {e[3] for e in edges[24]} == {"at::native::split_32bit"}  # no definition of nowhere_defined


def test_kernels_for_goes_through_the_handed_op(db):
    [answer] = [a for a in Index.open(db).kernels_for("neg_it") if a.op == "neg_it"]
    steps = [(s.kind, s.name, s.file, s.line) for s in answer.keys[0].chain]
    assert ("redispatch", "neg_it.out", N + "Ops.cpp", 19) in steps
    assert ("definition", "at::native::neg_it_out", N + "Ops.cpp", 26) in steps
