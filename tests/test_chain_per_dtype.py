"""The loop an AT_DISPATCH lambda runs per dtype is a step of the chain, though it does no device work of its
own: a CPU kernel's innermost loop is often a plain function template called with the dispatch's `scalar_t`
(2.6.0 native/LossMultiMargin.cpp:138 `multi_margin_loss_cpu_kernel<scalar_t>(...)` in
multi_margin_loss_out_cpu_template's AT_DISPATCH_FLOATING_TYPES), which a C++ reader follows as the kernel's
body (queries/chain.py _instantiated). A call of another instantiation (`loss_kernel<float>`), a function outside
native/ (`c10::convert<scalar_t>`), a member call (`x.data_ptr<scalar_t>()`), a function without a loop (a per-dtype
check, `check_kind<scalar_t>`) or a call from a function that does not dispatch on dtypes is no such step."""

from __future__ import annotations

import pytest
from tg_index.queries import brief
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: loss.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: loss_out
- func: other.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: other_out
- func: wrapper(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: wrapper
"""
TYPECAST_H = """\
namespace c10 {
template <typename T> T convert(int v) { return T(v); }
}
"""
LOSS_CPP = """\
#include <c10/util/TypeCast.h>
namespace at { namespace native {
namespace {
template <typename scalar_t>
void loss_kernel(scalar_t* out, int64_t n) {
  for (int64_t i = 0; i < n; i++) { out[i] = 0; }
}
template <typename scalar_t>
void check_kind(const Tensor& t) { TORCH_CHECK(t.defined(), "for each dtype"); }
void loss_template(Tensor& output) {
  AT_DISPATCH_FLOATING_TYPES(output.scalar_type(), "loss_cpu", [&] {
    loss_kernel<scalar_t>(output.data_ptr<scalar_t>(), output.numel());
    c10::convert<scalar_t>(1);
    check_kind<scalar_t>(output);
#if 0
    loss_kernel<scalar_t>(nullptr, 0);
#endif
  });
}
void other_template(Tensor& output) {
  AT_DISPATCH_FLOATING_TYPES(output.scalar_type(), "other_cpu", [&] {
    loss_kernel<float>(nullptr, 0);
  });
}
}
Tensor& loss_out(const Tensor& self, Tensor& out) { loss_template(out); return out; }
Tensor& other_out(const Tensor& self, Tensor& out) { other_template(out); return out; }
Tensor wrapper(const Tensor& self) { Tensor out; return at::loss_out(out, self); }
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    db = built_tree(tmp_path_factory.mktemp("per_dtype"),
                    {N + "native_functions.yaml": YAML, "c10/util/TypeCast.h": TYPECAST_H, N + "Loss.cpp": LOSS_CPP})
    return Index.open(db)


def test_the_function_the_dispatch_runs_per_dtype_is_a_step(ix: Index):
    [answer] = ix.kernels_for("loss.out")
    [cpu] = answer.keys
    calls = [(s.name, s.loc.line, s.site.line if s.site else None, s.detail) for s in cpu.chain if s.kind == "call"]
    assert calls == [("at::native::(anonymous)::loss_template", 10, 26, None),
                     ("at::native::(anonymous)::loss_kernel", 5, 12, "run per dtype by the dispatch")]
    assert brief.key_brief(cpu)["device_functions"] == ["loss_kernel"]


def test_another_instantiation_is_not(ix: Index):
    [answer] = ix.kernels_for("other.out")
    [cpu] = answer.keys
    assert [s.name for s in cpu.chain if s.kind == "call"] == ["at::native::(anonymous)::other_template"]
    assert brief.key_brief(cpu)["device_functions"] == []


def test_an_op_it_redispatches_to_keeps_its_loop_in_its_own_brief(ix: Index):
    # wrapper's composite chain goes on into loss.out's CPU kernel and its loop (Loss.cpp:24 at::loss_out); the brief
    # line of wrapper names no device function of its own
    [answer] = ix.kernels_for("wrapper")
    [composite] = answer.keys
    assert "at::native::(anonymous)::loss_kernel" in [s.name for s in composite.chain]
    assert brief.key_brief(composite)["device_functions"] == []


def test_a_call_no_build_compiles_is_not_one(ix: Index):
    # Loss.cpp:16 calls loss_kernel<scalar_t> again, under `#if 0`: only the call of :12 is a step
    [answer] = ix.kernels_for("loss.out")
    sites = [s.site.line for s in answer.keys[0].chain if s.detail == "run per dtype by the dispatch"]
    assert sites == [12]
    assert [n for t in answer.keys[0].truncated for n in t.names] == ["Loss.cpp:15 #if 0: false -> loss_kernel<scalar_t>"]
