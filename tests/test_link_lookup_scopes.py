"""Unqualified lookup as a C++ reader does it, in the cases the tenth session left out:

- a using-directive written in an unnamed namespace names a namespace relative to the enclosing ones
  (`using namespace api::utils;` in at::native::vulkan::ops's unnamed namespace is
  at::native::vulkan::api::utils, as native/vulkan/ops/Convolution.cpp writes it);
- a directive's namespace is seen at the nearest namespace enclosing both it and the caller, before the
  outer namespaces ([namespace.udir]);
- a file-local definition the caller's file does not see takes no part in lookup, so an outer
  namespace's visible one is found (not "only local definitions in other files");
- `#import` (Objective-C++, native/metal and native/mps) is an include: a `static inline` helper of an
  imported header is seen.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: conv_thing(Tensor self) -> Tensor
  dispatch:
    CPU: conv_thing_cpu
"""
UTILS_H = """\
namespace at { namespace native { namespace vulkan { namespace api { namespace utils {
inline int div_up(int a, int b) { return (a + b - 1) / b; }        // :2
} } } } }
"""
ROUND_H = """\
namespace at {
inline int round_up(int a) { return a + 1; }                      // :2
inline int div_up(int a, int b) { return a / b; }                  // :3
}
"""
POOL_H = """\
namespace at { namespace native { namespace {
inline int round_up(int a) { return a; }                          // :2, local to the files including Pool.h
inline int div_up(int a, int b) { return a * b; }                  // :3
} } }
"""
POOL_CPP = """\
#include <ATen/native/Pool.h>
namespace at { namespace native {
int pool(int a) { return round_up(a); }                           // :3, Pool.h:2
} }
"""
CONV_CPP = """\
#include <ATen/native/vulkan/api/Utils.h>
#include <ATen/native/Round.h>
namespace at { namespace native { namespace vulkan { namespace ops {
namespace {
using namespace api::utils;
}
int conv(int a) {
  int x = div_up(a, 4);
  return x + round_up(a);
}
} } } }
"""
UTIL_H = """\
namespace at { namespace native { namespace metal {
static inline int makeThing(int a) { return a; }                   // :2
} } }
"""
OP_MM = """\
#import <ATen/native/metal/MetalUtil.h>
namespace at { namespace native { namespace metal {
int op(int a) { return makeThing(a); }
} } }
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], set[tuple]]:
    """(file, line) -> {(how, target definition, its line)} of the fixture's call edges."""
    db = built_tree(tmp_path_factory.mktemp("lookup"), {
        N + "native_functions.yaml": YAML, N + "vulkan/api/Utils.h": UTILS_H, N + "Round.h": ROUND_H,
        N + "Pool.h": POOL_H, N + "Pool.cpp": POOL_CPP, N + "vulkan/ops/Conv.cpp": CONV_CPP,
        N + "metal/MetalUtil.h": UTIL_H, N + "metal/ops/Op.mm": OP_MM})
    out: dict[tuple[str, int], set[tuple]] = {}
    for file, line, _target, how, _detail, name, at in call_edges(db):
        out.setdefault((file.removeprefix(N), line), set()).add((how, name, at))
    return out


def test_a_directive_in_an_unnamed_namespace_names_a_namespace_relative_to_the_enclosing_ones(calls):
    # Conv.cpp:8 div_up(a, 4) from at::native::vulkan::ops: `using namespace api::utils;` (:5) nominates
    # at::native::vulkan::api::utils, seen at at::native::vulkan, before at's div_up (Round.h:3) and
    # Pool.h's file-local one (:3), which Conv.cpp does not include
    assert calls[("vulkan/ops/Conv.cpp", 8)] == {("using", "at::native::vulkan::api::utils::div_up", 2)}


def test_a_file_local_definition_the_caller_does_not_see_takes_no_part_in_lookup(calls):
    # Conv.cpp:9 round_up(a): at::native's (Pool.h:2) is local to Pool.h's includers; lookup goes on to at
    # (Round.h:2). Pool.cpp includes Pool.h: its call (:3) finds the local one
    assert calls[("vulkan/ops/Conv.cpp", 9)] == {("same-namespace", "at::round_up", 2)}
    assert calls[("Pool.cpp", 3)] == {("same-namespace", "at::native::(anonymous)::round_up", 2)}


def test_an_objective_c_import_is_an_include(calls):
    # Op.mm:3 makeThing(a): static inline in MetalUtil.h (:2), which Op.mm #imports
    assert calls[("metal/ops/Op.mm", 3)] == {("same-namespace", "at::native::metal::makeThing", 2)}


CEIL_DIV_H = """\
namespace at {
template <typename T> T ceil_div(T a, T b) { return (a + b - 1) / b; }        // :2
}
"""
SCAN_UTILS_H = """\
namespace at::native {
template <typename integer> integer ceil_div(integer n, integer m) { return (n + m - 1) / m; }   // :2
}
"""
HIP_ADAPTER_H = """\
namespace at::native {
inline long ceil_div(long n, long m) { return (n + m - 1) / m; }            // :2
}
"""
POOL_CU = """\
#include <ATen/ceil_div.h>
namespace at::native {
int pool(int a, int b) { return ceil_div(a, b); }
}
"""
SCAN_CU = """\
#include <ATen/native/cuda/ScanUtils.cuh>
namespace at::native {
int scan(int a, int b) { return ceil_div(a, b); }
}
"""


@pytest.fixture(scope="module")
def unseen(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("unseen"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/ceil_div.h": CEIL_DIV_H,
        N + "cuda/ScanUtils.cuh": SCAN_UTILS_H, N + "hip/adapter.h": HIP_ADAPTER_H,
        N + "cuda/Pool.cu": POOL_CU, N + "cuda/Scan.cu": SCAN_CU})
    out: dict[str, set[tuple]] = {}
    for file, _line, target, how, _detail, name, at in call_edges(db):
        if target == "ceil_div":
            out.setdefault(file.rsplit("/", 1)[-1], set()).add((how, at))
    return out


def test_a_namespace_whose_definitions_no_include_reaches_is_passed_over(unseen):
    # Pool.cu includes only ATen/ceil_div.h: at::native's two ceil_div (cuda/ScanUtils.cuh, hip/adapter.h,
    # as aten/src/ATen/native/cuda/AdaptiveAveragePooling.cu:514 meets them in 2.6.0) are in headers its
    # translation unit never sees, so lookup goes on to at and finds at::ceil_div (ceil_div.h:2)
    assert unseen["Pool.cu"] == {("same-namespace", 2)}


def test_a_namespace_with_an_included_definition_is_still_found_first(unseen):
    # Scan.cu includes ScanUtils.cuh: at::native's ceil_div is seen, and hides at::ceil_div; of the two the
    # included one (ScanUtils.cuh:2) is the call's
    assert unseen["Scan.cu"] == {("include", 2)}


TENSOR_H = """\
namespace at {
class TensorBase { public: void* data_ptr() const { return nullptr; } };                      // :2
class Tensor : public TensorBase { public: Tensor data() const { return *this; } };           // :3
}
"""
KERNEL_H = """\
#include <ATen/core/Tensor.h>
namespace pytorch_flash {
using namespace cute;
inline void copy(Tensor t, at::Tensor u) { t.data(); }
}
namespace at::native {
inline void own(Tensor t) { t.data(); }
}
"""


def test_tensor_outside_at_under_a_vendor_s_using_directive_is_the_vendor_s(tmp_path):
    # Kernel.h:4 is in pytorch_flash under `using namespace cute;` (as transformers/cuda/flash_attn/
    # flash_fwd_kernel.h:22-24): an unqualified Tensor there is cute::Tensor, at::Tensor being invisible to
    # lookup, so t.data() is the vendor's; :7 in at::native, Tensor is at::Tensor: Tensor.h:3
    db = built_tree(tmp_path, {N + "native_functions.yaml": YAML, "aten/src/ATen/core/Tensor.h": TENSOR_H,
                               N + "cuda/Kernel.h": KERNEL_H})
    got = {(line, how, at) for _f, line, target, how, _d, _n, at in call_edges(db, "Kernel.h") if target == "t.data"}
    assert got == {(4, "vendor", None), (7, "receiver-type", 3)}
