"""Lookup rules of the fourteenth session, each read as C++ reads it:

- argument-dependent lookup ([basic.lookup.argdep]): an unqualified call that ordinary lookup finds
  nothing for, in a method of a class at global scope, is the function of the namespace of an argument's
  type (quantized/cpu/qconv.cpp:451 `device(c10::kCPU)` in PackedConvWeight<kSpatialDim>::apply_impl is
  c10::device, TensorOptions.h:595, since kCPU is a c10::DeviceType), also inside a chain whose next
  step is then typed (`device(c10::kCPU).dtype(c10::kQUInt8)`);
- a qualifier that is a type alias names the aliased class (`at::GradMode::is_enabled()`, with
  `using GradMode = c10::GradMode;` in namespace at: ATen/core/grad_mode.h);
- a namespace alias to a namespace the checkout does not define is a vendor's (`namespace fe =
  cudnn_frontend;` in native/cudnn/MHA.cpp: `mha_graph->tensor(...)` on an fe::graph::Graph);
- a qualified name that names a class calls its constructors (`c10::complex<double>(0, 0)`, and
  `at::Device(kCUDA)` through at's `using namespace c10;`), but a name at:: has an op of is the op.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: complex(Tensor real, Tensor imag) -> Tensor
  dispatch:
    CPU: complex_cpu
"""
MACROS_H = """\
namespace at { using namespace c10; }
"""
DEVICE_H = """\
namespace c10 {
enum class DeviceType { CPU, CUDA };                                 // :2
constexpr DeviceType kCPU = DeviceType::CPU;
enum class ScalarType { Float, QUInt8 };                             // :4
constexpr ScalarType kQUInt8 = ScalarType::QUInt8;
struct Device {
  Device(DeviceType type, int index = -1) : type_(type) {}          // :7
  DeviceType type_;
};
struct Options {
  Options dtype(ScalarType t) const { return *this; }               // :11
  Options pinned(bool p) const { return *this; }                    // :12
};
inline Options device(DeviceType d) { return Options(); }          // :14
const char* toString(ScalarType t) { return "f"; }                  // :15
const char* toString(DeviceType t) { return "d"; }                  // :16
template <typename T> struct complex {
  complex(const T& re, const T& im = T()) {}                       // :18
  complex(const complex<float>& other) {}                          // :19
};
}
"""
OTHER_H = """\
namespace torch { namespace jit {
inline int device(int stack) { return stack; }                      // :2
inline const char* toString(int x) { return "i"; }                 // :3
} }
"""
GRAD_H = """\
namespace c10 {
struct GradMode { static bool is_enabled() { return true; } };     // :2
}
namespace at { using GradMode = c10::GradMode; }
namespace torch { struct AnomalyMode { static bool is_enabled() { return false; } }; }   // :5
"""
PACKED_H = """\
#include <c10/macros/Macros.h>
#include <c10/core/Device.h>
#include <torch/Other.h>
#include <ATen/core/grad_mode.h>
struct PackedWeight {
  int apply(int x);
};
"""
QCONV_CPP = """\
#include <ATen/native/quantized/Packed.h>
int PackedWeight::apply(int x) {
  auto o = device(c10::kCPU).dtype(c10::kQUInt8).pinned(true);
  const char* s = toString(c10::kQUInt8);
  return x;
}
"""
USES_CPP = """\
#include <c10/macros/Macros.h>
#include <c10/core/Device.h>
#include <ATen/core/grad_mode.h>
namespace at { namespace native {
bool uses(int x) {
  auto z = c10::complex<double>(0, 0);
  auto d = at::Device(c10::kCPU);
  return at::GradMode::is_enabled();
}
int elsewhere(int x) { return missing_everywhere(x); }
} }
"""
MHA_CPP = """\
#include <memory>
namespace fe = cudnn_frontend;
namespace at { namespace native {
struct Table { int tensor(int x) { return x; } };                   // :4
struct Other { int tensor(int x) { return -x; } };                  // :5
int build(int x) {
  auto mha_graph = std::make_shared<fe::graph::Graph>();
  return mha_graph->tensor(x);
}
} }
"""
FACTORIES_CPP = """\
namespace at { namespace native {
Tensor complex(const Tensor& real, const Tensor& imag) { return real; }
} }
"""
ALLOCATOR_H = """\
namespace at { namespace mps { struct Heap { int Device() const { return 0; } }; } }
"""
CORR_CPP = """\
#include <c10/macros/Macros.h>
#include <c10/core/Device.h>
namespace at { namespace native {
Tensor corrcoef(const Tensor& c) { return at::complex(c, c); }
} }
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], set[tuple]]:
    """(file, line) -> {(callee, how, target definition, its line)} of the fixture's call edges."""
    db = built_tree(tmp_path_factory.mktemp("adl"), {
        N + "native_functions.yaml": YAML, "c10/macros/Macros.h": MACROS_H, "c10/core/Device.h": DEVICE_H,
        "torch/Other.h": OTHER_H, "ATen/core/grad_mode.h": GRAD_H, N + "quantized/Packed.h": PACKED_H,
        N + "quantized/qconv.cpp": QCONV_CPP, N + "Uses.cpp": USES_CPP, N + "cudnn/MHA.cpp": MHA_CPP,
        N + "Correlation.cpp": CORR_CPP, N + "TensorFactories.cpp": FACTORIES_CPP,
        "aten/src/ATen/mps/MPSAllocator.h": ALLOCATOR_H})
    out: dict[tuple[str, int], set[tuple]] = {}
    for file, line, target, how, _detail, name, at in call_edges(db):
        out.setdefault((file.removeprefix(N), line), set()).add((target, how, name, at))
    with __import__("sqlite3").connect(db) as conn:
        for file, line, target, how in conn.execute(
                "SELECT file, line, target, how FROM edges WHERE kind = 'redispatches-to-op'"):
            out.setdefault((file.removeprefix(N), line), set()).add((target, how, None, None))
    return out


def test_an_unqualified_call_ordinary_lookup_misses_is_found_in_its_arguments_namespace(calls):
    # qconv.cpp:3 device(c10::kCPU) in a method of a class at global scope: no enclosing scope declares
    # `device`; kCPU is a c10::DeviceType (Device.h:2), so ADL finds c10::device (:14), not torch::jit's (Other.h:2)
    got = {c for c in calls[("quantized/qconv.cpp", 3)] if c[0] == "device"}
    assert got == {("device", "argument-dependent", "c10::device", 14)}


def test_adl_types_the_next_step_of_a_chain(calls):
    # qconv.cpp:3 .dtype(c10::kQUInt8) on what c10::device returns (Options): Options::dtype (:11),
    # then .pinned(true) (:12)
    got = {c for c in calls[("quantized/qconv.cpp", 3)] if c[0] != "device"}
    assert got == {("device(c10::kCPU).dtype", "receiver-type", "c10::Options::dtype", 11),
                   ("device(c10::kCPU).dtype(c10::kQUInt8).pinned", "receiver-type", "c10::Options::pinned", 12)}


def test_adl_sees_an_overload_set_and_the_argument_types_pick_in_it(calls):
    # qconv.cpp:4 toString(c10::kQUInt8): c10's two toString (:15, :16), of which the ScalarType one
    assert calls[("quantized/qconv.cpp", 4)] == {("toString", "argument-types", "c10::toString", 15)}


def test_a_qualifier_that_is_a_type_alias_names_the_aliased_class(calls):
    # Uses.cpp:8 at::GradMode::is_enabled(): grad_mode.h:4 aliases at::GradMode to c10::GradMode (:2),
    # not torch::AnomalyMode's is_enabled (:5)
    assert calls[("Uses.cpp", 8)] == {("at::GradMode::is_enabled", "exact", "c10::GradMode::is_enabled", 2)}


def test_a_qualified_class_name_calls_its_constructors(calls):
    # Uses.cpp:6 c10::complex<double>(0, 0): the constructor taking two (Device.h:18), not (:19), nor the
    # function at::native::complex (TensorFactories.cpp:2)
    assert calls[("Uses.cpp", 6)] == {("c10::complex<double>", "overload", "c10::complex::complex", 18)}
    # Uses.cpp:7 at::Device(c10::kCPU): at has no Device; `using namespace c10;` (Macros.h:1) brings c10's (:7),
    # not the method at::mps::Heap::Device (MPSAllocator.h:1)
    assert calls[("Uses.cpp", 7)] == {("at::Device", "unique-name", "c10::Device::Device", 7)}


def test_a_name_at_has_an_op_of_stays_the_op(calls):
    # Correlation.cpp:4 at::complex(c, c) is the op complex, though c10::complex is a class at sees
    assert calls[("Correlation.cpp", 4)] == {("at::complex", "op", None, None)}


def test_a_namespace_alias_to_a_namespace_the_checkout_lacks_is_a_vendors(calls):
    # MHA.cpp:8 mha_graph->tensor(x) on a std::shared_ptr<fe::graph::Graph>, fe being cudnn_frontend (:2):
    # not Table's or Other's tensor (:4, :5)
    assert calls[("cudnn/MHA.cpp", 8)] == {("mha_graph->tensor", "vendor", None, None)}


def test_adl_finds_nothing_without_a_typed_argument(calls):
    # Uses.cpp:10 missing_everywhere(x): no definition anywhere, an int argument has no namespace
    assert calls[("Uses.cpp", 10)] == {("missing_everywhere", "not-in-checkout", None, None)}
