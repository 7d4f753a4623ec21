"""ops-for goes up through a template that hands its own template parameter on to another template.

2.6.0 native/DistributionTemplates.h: normal_out_impl<normal_kernel, RNG> (:219) calls normal_impl_<normal_kernel,
RNG> (:224), whose `normal_kernel<RNG>()(...)` (:211) runs the NormalStub that Distributions.cpp:285's
`normal_out_impl<NormalStub, Generator>(...)` writes. The bound edge names that outer call site; going up from
normal_impl_, its caller normal_out_impl calls it elsewhere (:224), and was dropped as "not the site that writes
the argument", so ops-for of the CUDA kernel below NormalStub never reached normal.Tensor_float_out. A template
caller may hand the parameter on: the site is looked for above it.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: normal_thing(Tensor self) -> Tensor
  dispatch:
    CPU: normal_thing_cpu
- func: other_thing(Tensor self) -> Tensor
  dispatch:
    CPU: other_thing_cpu
"""
TEMPLATES_H = """\
namespace at { namespace native { namespace templates {
template <template <typename> class normal_kernel, typename RNG>
void normal_impl_(const Tensor& self) {
  normal_kernel<RNG>()(self);                                                  // :4
}
template <template <typename> class normal_kernel, typename RNG>
void normal_out_impl(const Tensor& self) {
  normal_impl_<normal_kernel, RNG>(self);                                      // :8
}
} } }
"""
DIST_CPP = """\
#include <ATen/native/DistributionTemplates.h>
namespace at { namespace native {
void normal_leaf(const Tensor& self) { cpu_kernel(iter, [](float a) { return a; }); }
void other_leaf(const Tensor& self) { cpu_kernel(iter, [](float a) { return a; }); }
template <typename RNG>
struct NormalStub { void operator()(const Tensor& self) { normal_leaf(self); } };   // :6
template <typename RNG>
struct OtherStub { void operator()(const Tensor& self) { other_leaf(self); } };     // :8
Tensor normal_thing_cpu(const Tensor& self) {
  templates::normal_out_impl<NormalStub, Generator>(self);                     // :10
  return self;
}
Tensor other_thing_cpu(const Tensor& self) {
  templates::normal_out_impl<OtherStub, Generator>(self);                      // :14
  return self;
}
} }
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("forwarded"), {
        N + "native_functions.yaml": YAML, N + "DistributionTemplates.h": TEMPLATES_H,
        N + "Distributions.cpp": DIST_CPP})


def test_ops_for_finds_the_op_whose_call_site_binds_the_handed_on_parameter(db):
    # normal_leaf runs in NormalStub::operator() (:6), which normal_impl_ (:4) runs only for normal_thing's binding
    # at Distributions.cpp:10, two templates up; other_thing binds OtherStub (:14) and does not reach normal_leaf
    hits = Index.open(db).ops_for("normal_leaf")
    assert [(h.op, h.key) for h in hits] == [("normal_thing", "CPU")]
    assert hits.hits[0].path == ("at::native::normal_thing_cpu", "at::native::templates::normal_out_impl",
                                 "at::native::templates::normal_impl_", "at::native::NormalStub::operator()",
                                 "at::native::normal_leaf")
