"""A qualified name's first component is looked up from the caller's scopes and its using-directives before
it is taken for a library's namespace: `api::context()` inside at::native::vulkan::ops names
at::native::vulkan::api (2.6.0's native/vulkan/ops/*.cpp), and `memory::policies::unroll` inside at::native
names at::native::memory (cuda/CUDALoops.cuh). Only a first component the checkout has nowhere under those
scopes is a vendor's (resolve.Resolver._outside)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """- func: run(Tensor self) -> Tensor
  dispatch:
    CPU: run_cpu
"""
API_H = """\
namespace at::native::xnnpack {
struct OpContext { virtual void run() = 0; };
struct XNNPackOpContext : OpContext { void run() override {} };
} // namespace at::native::xnnpack
namespace at::native::vulkan::api::utils {
template <typename T, unsigned N> struct vec { T data[N]; };
using uvec4 = vec<unsigned, 4u>;
} // namespace at::native::vulkan::api::utils
namespace at::native::detail::pack {
struct Packed { virtual int width() = 0; };
inline int lanes() { return 8; }
} // namespace at::native::detail::pack
"""
USE_CPP = """\
#include "Api.h"
namespace at::native::xnnpack::internal {
using namespace at::native::detail;
void run_cpu(xnnpack::OpContext* op_context, pack::Packed* p, thirdparty::Widget* w) {
  op_context->run();
}
int width(pack::Packed* p) {
  return p->width();
}
void other(thirdparty::Widget* w) {
  w->go();
}
} // namespace at::native::xnnpack::internal
namespace at::native::vulkan::api {
void make() {
  api::utils::uvec4(1);
}
} // namespace at::native::vulkan::api
"""


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple]:
    db = built_tree(tmp_path_factory.mktemp("relative"), {
        N + "native_functions.yaml": YAML, N + "vulkan/Api.h": API_H, N + "vulkan/Use.cpp": USE_CPP})
    return {line: (how, name, at) for _file, line, _target, how, _detail, name, at in call_edges(db, "Use.cpp")}


def test_a_receiver_s_namespace_under_an_enclosing_scope_is_no_vendor(edges):
    # Use.cpp:5 op_context is an xnnpack::OpContext*, seen from at::native::xnnpack::internal: the class of
    # Api.h:2, whose run() is pure virtual (2.6.0's xnnpack/Convolution.cpp:463 `op_context->run(input)`): the
    # override of the one class derived from it, XNNPackOpContext's (Api.h:3)
    assert edges[5] == ("overrides", "at::native::xnnpack::XNNPackOpContext::run", 3)


def test_a_receiver_s_namespace_a_using_directive_brings_in_is_no_vendor(edges):
    # Use.cpp:8 pack:: is at::native::detail::pack through `using namespace at::native::detail;` (:3), whose
    # Packed::width (Api.h:10) is pure virtual, with no definition anywhere
    assert edges[8] == ("not-in-checkout", None, None)


def test_a_qualified_name_under_an_enclosing_namespace_is_no_vendor(edges):
    # Use.cpp:16 api::utils::uvec4 is at::native::vulkan::api::utils::uvec4 (Api.h:7), as vulkan/api/Tensor.cpp:341
    assert edges[16] == ("type", None, None)


def test_a_namespace_the_checkout_has_nowhere_is_a_vendor_s(edges):
    assert edges[11][0] == "vendor"  # Use.cpp:11 thirdparty:: is under no scope of the checkout
