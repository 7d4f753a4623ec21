"""A backend kernel whose helpers lead to device work only under an #if the key's build does not compile works
through the dispatcher, as a thin kernel does (queries/chain.py `_walk`): the redispatches its helpers write are
followed. nodes.device_path is read without the build, so such a helper counts as one with device work of its own.

Modelled on 1.13.1 transformers/transformer.cpp:76, transformer_encoder_layer_forward (CPU, CUDA), which calls
native_multi_head_attention and linear (Linear.cpp:21), whose `xnnpack::linear` (:32) is under
`#if defined(C10_MOBILE)` (:30) and whose work on CPU and CUDA is `at::addmm` (:37). Before, its CPU and CUDA chains
showed no device work."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: gemm_thing(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU: gemm_thing_cpu
- func: layer_thing(Tensor self, Tensor weight) -> Tensor
  dispatch:
    CPU: layer_thing_cpu
- func: plain_thing(Tensor self) -> Tensor
  dispatch:
    CPU: plain_thing_cpu
"""
GEMM_CPP = """\
extern "C" void dgemm_(int* m);
namespace at { namespace native {
Tensor gemm_thing_cpu(const Tensor& self, const Tensor& other) {
  int m = 0;
  dgemm_(&m);                                                       // :5
  return self;
}
} }
"""
MOBILE_H = """\
namespace at { namespace native { namespace mobile {
void mobile_linear(int* data) {
  for (int i = 0; i < 4; i++) { data[i] = 0; }
  at::parallel_for(0, 4, 1, [&](int64_t b, int64_t e) { data[b] = 1; });
}
} } }
"""
LAYER_CPP = """\
#include "Mobile.h"
namespace at { namespace native {
Tensor linear_thing(const Tensor& input, const Tensor& weight) {
#if defined(C10_MOBILE)
  mobile::mobile_linear(nullptr);
#endif
  return at::gemm_thing(input, weight);                             // :7
}
Tensor layer_thing_cpu(const Tensor& self, const Tensor& weight) {
  return linear_thing(self, weight);                                // :10
}
Tensor plain_thing_cpu(const Tensor& self) {
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return Index.open(built_tree(tmp_path_factory.mktemp("other_build"), {
        N + "native_functions.yaml": YAML, N + "Gemm.cpp": GEMM_CPP, N + "Mobile.h": MOBILE_H,
        N + "Layer.cpp": LAYER_CPP}))


def _chain(ix: Index, op: str) -> list[tuple[str, str, int | None]]:
    [answer] = [a for a in ix.kernels_for(op) if a.op == op]
    [key] = [k for k in answer.keys if k.key == "CPU"]
    return [(s.kind, s.name, s.loc.line if s.loc else None) for s in key.chain]


def test_the_helpers_redispatch_is_followed_into_the_op_s_kernel(ix: Index):
    chain = _chain(ix, "layer_thing")
    assert ("call", "at::native::linear_thing", 3) in chain  # Layer.cpp:3, called at :10
    assert ("redispatch", "gemm_thing", 7) in chain  # Layer.cpp:7
    assert ("definition", "at::native::gemm_thing_cpu", 3) in chain  # Gemm.cpp:3
    assert [(kind, name) for kind, name, _line in chain if kind == "library"] == [("library", "dgemm_")]  # :5
    # the mobile build's helper is not followed: its #if is left out on CPU
    assert "at::native::mobile::mobile_linear" not in {name for _kind, name, _line in chain}


def test_a_kernel_with_nothing_below_it_stays_empty(ix: Index):
    assert _chain(ix, "plain_thing") == []
