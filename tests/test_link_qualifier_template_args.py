"""A qualifier whose template arguments hold `::` names the class template all the same: 2.6.0
cuda/fused_adam_impl.cu:43 makes `FusedAdamMathFunctor<scalar_t, 4, ADAM_MODE::ORIGINAL, false>()`, whose
operator() (cuda/fused_adam_utils.cuh:110) is the fused Adam's device code, and ForeachReduceOp.cu:479 makes
`LpNormFunctor<scalar_t, NormType::L1, out_t>()`. The qualifier was cut at every `::`, ADAM_MODE's too, so
`FusedAdamMathFunctor<...>::operator()` named no class and was ambiguous over every operator() of the checkout
(495): the functor made ran nothing, and _fused_adam_'s CUDA chain ended at multi_tensor_apply_kernel's call
through its parameter. C++ splits a qualified name only at a `::` outside template arguments.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from tg_index.queries.api import Index
from tg_index.queries.results import StepKind

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: step_all(Tensor[] self) -> ()
  dispatch:
    CUDA: step_all_cuda
"""
FUNCTORS_CUH = """\
#pragma once
namespace at::native {
enum class MODE { PLAIN, DECAY };
namespace kinds { struct Wide {}; }
namespace {
template <typename scalar_t, int depth, MODE mode>
struct StepFunctor {
  __device__ void operator()(int chunk, float lr) {                            // :8
    step_math<scalar_t>(chunk, lr);                                            // :9
  }
};
template <typename K>
struct Traits {
  static int width(int x) { return x; }                                        // :14
};
} // namespace
struct Other { int operator()(int x) const { return x; } };                    // :17
struct Another { int operator()(int x) const { return -x; } };                 // :18
template <typename scalar_t>
__device__ void step_math(int chunk, float lr) { record(chunk, lr); }         // :20
} // namespace at::native
"""
STEP_CU = """\
#include <ATen/native/cuda/Functors.cuh>
namespace at::native {
void step_all_cuda(TensorList self) {                                         // :3
  apply<4>(self, StepFunctor<float, 4, MODE::DECAY>(), 0.1f);                  // :4
  int w = Traits<kinds::Wide>::width(3);                                       // :5
  apply<4>(self, StepFunctor<float, 4, at::native::MODE::PLAIN>(), w);         // :6
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("qualifier_template_args"), {
        N + "native_functions.yaml": YAML, N + "cuda/Functors.cuh": FUNCTORS_CUH, N + "cuda/Step.cu": STEP_CU})


def _edges(db, line: int) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.kind, e.how, e.target, d.name, d.line FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = 'at::native::step_all_cuda' AND e.line = ? "
            "AND e.kind IN ('calls', 'runs-functor') AND e.target NOT LIKE 'apply%'", (line,)))


def test_a_functor_made_with_a_qualified_template_argument_runs_its_operator(db):
    assert _edges(db, 4) == {
        ("runs-functor", "type", "StepFunctor<float,4,MODE::DECAY>", "at::native::(anonymous)::StepFunctor::operator()", 8),
        ("calls", "type", "StepFunctor<float,4,MODE::DECAY>", None, None)}
    assert _edges(db, 6) == {
        ("runs-functor", "type", "StepFunctor<float,4,at::native::MODE::PLAIN>", "at::native::(anonymous)::StepFunctor::operator()",
         8),
        ("calls", "type", "StepFunctor<float,4,at::native::MODE::PLAIN>", None, None)}


def test_a_static_member_of_such_a_class_is_found(db):
    assert _edges(db, 5) == {("calls", "same-namespace", "Traits<kinds::Wide>::width", "at::native::(anonymous)::Traits::width", 14)}


def test_kernels_for_reaches_the_functor_s_device_code(db):
    [answer] = Index.open(db).kernels_for("step_all")
    [cuda] = [k for k in answer.keys if k.key == "CUDA"]
    steps = [(s.kind, s.name, s.line) for s in cuda.chain]
    assert (StepKind.FUNCTOR, "at::native::(anonymous)::StepFunctor::operator()", 8) in steps
    assert (StepKind.CALL, "at::native::step_math", 20) in steps
