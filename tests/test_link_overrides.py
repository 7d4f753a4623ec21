"""A member call whose receiver's class declares the member without a body (a pure virtual one) runs one of the
overrides in the classes derived from that class: the call has an edge to each, how `overrides`.

2.6.0 native/quantized/QTensor.cpp:97-98 writes `auto quantizer = make_per_channel_affine_quantizer(...);
return quantizer->quantize(self);`. The factory returns a QuantizerPtr (intrusive_ptr<Quantizer>), and
Quantizer::quantize is pure virtual (core/QuantizerBase.h), defined by PerTensorAffineQuantizer,
PerChannelAffineQuantizer, ... in ATen/quantized/Quantizer.cpp (AffineQuantizer between them and
Quantizer). Lookup by the receiver's class and its bases found no definition, and the call was left
ambiguous between every `quantize` of the checkout, so the chain stopped there.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: quantize_thing(Tensor self) -> Tensor
  dispatch:
    CPU: quantize_thing
"""
INTRUSIVE_PTR_H = """\
namespace c10 {
template <class TTarget>
class intrusive_ptr {
 public:
  TTarget* operator->() const noexcept { return target_; }
  TTarget* target_;
};
}
"""
BASE_H = """\
#include <c10/util/intrusive_ptr.h>
namespace at {
struct Quantizer {
  virtual ~Quantizer() {}
  virtual Tensor quantize(const Tensor& t) = 0;
  virtual int bits() const = 0;
};
using QuantizerPtr = c10::intrusive_ptr<Quantizer>;
struct AffineQuantizer : public Quantizer {};
struct PerTensorQuantizer : public AffineQuantizer {
  Tensor quantize(const Tensor& t) override;
  int bits() const override { return 8; }                                      // :12
};
struct PerChannelQuantizer : public AffineQuantizer {
  Tensor quantize(const Tensor& t) override;
};
QuantizerPtr make_per_channel_quantizer(const Tensor& scales);
struct Unrelated {
  Tensor quantize(const Tensor& t) { return t; }                               // :19
};
}
"""
QUANTIZER_CPP = """\
#include <ATen/core/QuantizerBase.h>
namespace at {
Tensor PerTensorQuantizer::quantize(const Tensor& t) {                         // :3
  return at::native::quantize_per_tensor_kernel(t);
}
Tensor PerChannelQuantizer::quantize(const Tensor& t) {                        // :6
  return at::native::quantize_per_channel_kernel(t);
}
QuantizerPtr make_per_channel_quantizer(const Tensor& scales) {
  return c10::make_intrusive<PerChannelQuantizer>(scales);
}
}
"""
KERNELS_CPP = """\
namespace at { namespace native {
Tensor quantize_per_tensor_kernel(const Tensor& t) {
  cpu_kernel(iter, [](float a) { return a; });
  return t;
}
Tensor quantize_per_channel_kernel(const Tensor& t) {
  cpu_kernel(iter, [](float a) { return a; });
  return t;
}
} }
"""
QTENSOR_CPP = """\
#include <ATen/core/QuantizerBase.h>
namespace at { namespace native {
Tensor quantize_thing(const Tensor& self) {
  auto quantizer = make_per_channel_quantizer(self);
  int b = quantizer->bits();                                                   // :5
  return quantizer->quantize(self);                                            // :6
}
Tensor plain(const Tensor& self, const Unrelated& u) {
  return u.quantize(self);                                                     // :9
}
} }
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("overrides"), {
        N + "native_functions.yaml": YAML, "c10/util/intrusive_ptr.h": INTRUSIVE_PTR_H,
        "aten/src/ATen/core/QuantizerBase.h": BASE_H,
        "aten/src/ATen/quantized/Quantizer.cpp": QUANTIZER_CPP, N + "quantized/Kernels.cpp": KERNELS_CPP,
        N + "quantized/QTensor.cpp": QTENSOR_CPP})


def _calls(db, line: int) -> set[tuple]:
    return {(target, how, name, at) for _file, ln, target, how, _detail, name, at in call_edges(db, "QTensor.cpp")
            if ln == line}


def test_a_pure_virtual_member_called_on_its_class_reaches_each_override(db):
    # QTensor.cpp:6: Quantizer::quantize has no body; PerTensorQuantizer (Quantizer.cpp:3) and PerChannelQuantizer
    # (:6) derive from it through AffineQuantizer; Unrelated::quantize (QuantizerBase.h:19) is no override
    assert _calls(db, 6) == {("quantizer->quantize", "overrides", "at::PerTensorQuantizer::quantize", 3),
                             ("quantizer->quantize", "overrides", "at::PerChannelQuantizer::quantize", 6)}
    # :5 bits() has one override, defined in the class (QuantizerBase.h:12)
    assert _calls(db, 5) == {("quantizer->bits", "overrides", "at::PerTensorQuantizer::bits", 12)}


def test_a_member_the_receivers_class_defines_is_no_virtual_call(db):
    # QTensor.cpp:9 u.quantize(self) on an Unrelated: its own quantize (QuantizerBase.h:19)
    assert _calls(db, 9) == {("u.quantize", "receiver-type", "at::Unrelated::quantize", 19)}


def test_kernels_for_follows_the_overrides_to_the_kernels(db):
    [answer] = Index.open(db).kernels_for("quantize_thing")
    [cpu] = answer.keys
    names = [s.name for s in cpu.chain if s.kind == "call"]
    assert names[:2] == ["at::PerTensorQuantizer::quantize", "at::PerChannelQuantizer::quantize"]
    assert {"at::native::quantize_per_tensor_kernel", "at::native::quantize_per_channel_kernel"} <= set(names)
    assert [s.how for s in cpu.chain if s.name == "at::PerChannelQuantizer::quantize"] == ["overrides(2)"]


def test_ops_for_goes_up_through_the_overrides(db):
    # ops-for walks up the edges kernels-for walks down: from the per-channel kernel (Kernels.cpp:6) through
    # PerChannelQuantizer::quantize, one of the two overrides QTensor.cpp:6 calls, to quantize_thing's CPU kernel
    hits = Index.open(db).ops_for("quantize_per_channel_kernel")
    assert [(h.op, h.key) for h in hits] == [("quantize_thing", "CPU")]
    assert hits.hits[0].path == ("at::native::quantize_thing (overrides of 2)", "at::PerChannelQuantizer::quantize",
                                 "at::native::quantize_per_channel_kernel")
