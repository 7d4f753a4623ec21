"""Two receivers the link stage could not type, each behind hundreds of answers' "ambiguous call" notes:

- A header that relies on its includer: 2.6.0 native/cuda/CUDALoops.cuh:311 writes
  `auto offset_calc = ::make_offset_calculator<traits::arity + 1>(iter);` and calls `offset_calc.get(idx)`.
  make_offset_calculator is a static function of ATen/cuda/detail/OffsetCalculator.cuh, which CUDALoops.cuh does not
  include: Loops.cuh includes it, then CUDALoops.cuh. A header that sees none of a name's definitions sees a
  header's static (or unnamed-namespace) one, as its includers make it do.
- A variable whose type is a class written in place: ParallelNative.cpp:174 `struct { ...; std::condition_variable
  cv; } state;`, then `state.cv.wait(lock)`: the member's declared type, read from that class body.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: thing(Tensor self) -> Tensor
  dispatch:
    CPU: thing_cpu
"""
OFFSET_H = """\
#pragma once
template <int N>
struct OffsetCalculator { int get(int i) const { return i; } };                // :3
template <int N>
static OffsetCalculator<N> make_offset_calculator(const TensorIteratorBase& iter) {   // :5
  return OffsetCalculator<N>();
}
"""
LOOPS_CUH = """\
#pragma once
#include <ATen/cuda/detail/OffsetCalculator.cuh>
#include <ATen/native/cuda/CUDALoops.cuh>
"""
CUDA_LOOPS_CUH = """\
#pragma once
namespace at { namespace native {
struct Other { int get(int i) const { return -i; } };                          // :3
template <typename traits>
void gpu_kernel_impl(TensorIteratorBase& iter) {
  auto offset_calc = ::make_offset_calculator<traits::arity + 1>(iter);       // :6
  offset_calc.get(0);                                                          // :7
}
} }
"""
ELSEWHERE_CPP = """\
namespace at { namespace native {
static int make_offset_calculator(int n) { return n; }                         // :2, a source file's own
} }
"""
PARALLEL_CPP = """\
#include <condition_variable>
namespace at { namespace native {
struct Queue { void wait() {} };                                               // :3
struct Other2 { void wait() {} };                                              // :4
Tensor thing_cpu(const Tensor& self) {
  struct {
    std::mutex mutex;
    std::condition_variable cv;
    Queue q{};
  } state;
  state.cv.wait(lock);                                                         // :11
  state.q.wait();                                                              // :12
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("header_context"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/cuda/detail/OffsetCalculator.cuh": OFFSET_H,
        N + "cuda/Loops.cuh": LOOPS_CUH, N + "cuda/CUDALoops.cuh": CUDA_LOOPS_CUH, N + "Elsewhere.cpp": ELSEWHERE_CPP,
        N + "Parallel.cpp": PARALLEL_CPP})
    out: dict[tuple[str, int], set[tuple]] = {}
    for file, line, target, how, _detail, name, at in call_edges(db):
        out.setdefault((file.rsplit("/", 1)[-1], line), set()).add((target, how, name, at))
    return out


def test_a_header_sees_a_static_function_of_a_header_its_includer_includes(calls):
    # CUDALoops.cuh:6: OffsetCalculator.cuh:5's static template, not Elsewhere.cpp's static function (a source
    # file's, seen only there); :7 then calls OffsetCalculator<N>::get (OffsetCalculator.cuh:3), not Other's
    assert calls[("CUDALoops.cuh", 6)] == {("::make_offset_calculator<traits::arity+1>", "exact",
                                            "make_offset_calculator", 5)}
    assert calls[("CUDALoops.cuh", 7)] == {("offset_calc.get", "receiver-type", "OffsetCalculator::get", 3)}


def test_a_member_of_a_class_written_in_place_has_its_declared_type(calls):
    # Parallel.cpp:11 state.cv is a std::condition_variable: the standard library's wait; :12 state.q a Queue
    assert calls[("Parallel.cpp", 11)] == {("state.cv.wait", "standard", None, None)}
    assert calls[("Parallel.cpp", 12)] == {("state.q.wait", "receiver-type", "at::native::Queue::wait", 3)}
