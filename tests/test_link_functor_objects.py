"""A variable of the caller called like a function runs its class's operator(): `Loop loop_func;` ...
`loop_func(x)`. 2.6.0 core/DistributionsHelper.h:242 `uniform_real_distribution<T> uniform(0.0, 1.0); ...
uniform(generator)` was taken for the op uniform through the dispatcher, and cuda/CUDABlas.cpp:709's TunableOp
`bgemm(&params)` for the function at::cuda::blas::bgemm. A parameter whose type is one of the caller's template
parameters (`func_t& f` ... `f(a)`) stays a call through a parameter: its class is whatever a call site passes.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: uniform(Tensor self) -> Tensor
  dispatch:
    CPU: uniform_cpu
"""
HELPER_H = """\
namespace at {
template <typename T>
struct uniform_real_distribution {
  uniform_real_distribution(T from, T to) {}
  template <typename RNG>
  T operator()(RNG generator) { return T(0); }                                 // :6
};
struct Counter { int operator()(int x) const { return x; } };                  // :8
template <typename func_t>
int apply(func_t& f, int x) { return f(x); }                                   // :10
int use(const Counter& c, int x) {
  uniform_real_distribution<double> uniform(0.0, 1.0);
  Counter local;
  return uniform(x) + local(x) + c(x);                                         // :14
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("functor_objects"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/core/DistributionsHelper.h": HELPER_H})
    out: dict[int, set[tuple]] = {}
    for _file, line, target, how, _detail, name, at in call_edges(db, "DistributionsHelper.h"):
        out.setdefault(line, set()).add((target, how, name, at))
    return out


def test_a_local_or_parameter_object_called_runs_its_operator(calls):
    # DistributionsHelper.h:14: uniform(x) is the local uniform_real_distribution's operator() (:6), not the op
    # uniform; local(x) and the parameter c(x) are Counter::operator() (:8)
    assert calls[14] == {("uniform", "receiver-type", "at::uniform_real_distribution::operator()", 6),
                         ("local", "receiver-type", "at::Counter::operator()", 8),
                         ("c", "receiver-type", "at::Counter::operator()", 8)}


def test_a_parameter_of_a_template_parameter_s_type_stays_a_call_through_it(calls):
    # :10 f(x) with `func_t& f`: whatever class a call site passes
    assert calls[10] == {("f", "virtual", None, None)}
