"""The loop an AT_DISPATCH lambda runs per dtype is a step also when it reaches device work through the
dispatcher (nodes.device_path 3): 2.6.0 SummaryOps.cpp:92 `_bincount_cpu_template<scalar_t, float>(...)` in
_bincount_cpu's AT_DISPATCH_INTEGRAL_TYPES is bincount's work on CPU (its loops at :68 and :74), and it calls
at::zeros, self.min() and self.max(), ops through the dispatcher; the CPU chain showed only the kernel's own
redispatch of `to`. A function with no loop in its body that only redispatches (a per-dtype check or allocation)
stays no step (test_chain_per_dtype.py has those that reach no device work at all)."""

from __future__ import annotations

import pytest

from tg_index.queries import brief
from tg_index.queries.api import Index
from tg_index.queries.chain import PER_DTYPE

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: count(Tensor self) -> Tensor
  dispatch:
    CPU: count_cpu
- func: zeros(int[] size, *, ScalarType? dtype=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: zeros
"""
COUNT_CPP = """\
namespace at { namespace native {
namespace {
template <typename input_t>
Tensor count_template(const Tensor& self) {                                   // :4
  Tensor out = at::zeros({8}, kLong);                                          // :5
  for (int64_t i = 0; i < 8; i++) { out.data_ptr<int64_t>()[i] = 1; }          // :6
  return out;
}
template <typename input_t>
Tensor check_template(const Tensor& self) {                                   // :10
  return at::zeros({1}, kLong);                                                // :11
}
}
Tensor count_cpu(const Tensor& self) {                                        // :14
  return AT_DISPATCH_INTEGRAL_TYPES(self.scalar_type(), "count_cpu", [&] {
    check_template<scalar_t>(self);                                            // :16
    return count_template<scalar_t>(self);                                     // :17
  });
}
Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype) { return Tensor(); }
} }
"""


@pytest.fixture(scope="module")
def cpu(tmp_path_factory: pytest.TempPathFactory):
    db = built_tree(tmp_path_factory.mktemp("per_dtype_redispatching"),
                    {N + "native_functions.yaml": YAML, N + "Count.cpp": COUNT_CPP})
    [answer] = Index.open(db).kernels_for("count")
    [key] = answer.keys
    return key


def test_the_loop_that_redispatches_is_a_step(cpu):
    calls = [(s.name, s.loc.line, s.site.line if s.site else None, s.detail) for s in cpu.chain if s.kind == "call"]
    assert calls == [("at::native::(anonymous)::count_template", 4, 17, PER_DTYPE)]  # not check_template (:10)
    assert ("redispatch", "zeros", 5) in [(s.kind, s.name, s.loc.line) for s in cpu.chain]
    assert brief.key_brief(cpu)["device_functions"] == ["count_template"]
