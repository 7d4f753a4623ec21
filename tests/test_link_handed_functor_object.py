"""A functor object handed to a function that calls it, directly or through the functions of its file it hands
it on to, runs its class's operator() at the handing call. 2.6.0 cuda/ScatterGatherKernel.cu:472 gather_cuda_kernel
hands the file's `static TensorAssign tensor_assign;` (:77) to `cuda_scatter_gather_base_kernel<false>()(...)`,
whose operator() (:161) hands its `f` to `_cuda_scatter_gather_internal_kernel<...>()(iter, ..., f)` (:212), whose
operator() (:119) calls `f(...)` in the lambda it launches (:147): TensorAssign::operator() (:24) is gather's
device code, and the chain ended at the internal kernel's call through its parameter. cpu/ScatterGatherKernel.cpp
:876 is the CPU form, cpu_scatter_gather_base_kernel::operator() (:169) calling `kernel_func(...)` itself (:248).

Extraction counts a parameter handed on by name to a function of the same file, or to the operator() of an
object of the file's class made and called there, at a position where that function calls its own (each of the
file's definitions that can take the call's argument count must); the link gives the handing call a runs-functor
edge to the operator() of the class of the argument, a variable's declared type or a namespace-scope variable's
(the constants table). Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer.build import build
from tg_index.indexer.cxx import extract
from tg_index.queries.api import Index
from tg_index.queries.results import StepKind

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: gather_it(Tensor self) -> Tensor
  dispatch:
    CPU: gather_it_cpu
    CUDA: gather_it_cuda
"""
SCATTER_CPP = """\
namespace at::native {
namespace {
class TensorAssign {
public:
  template <typename scalar_t>
  constexpr void operator()(scalar_t* self_data, scalar_t* src_data) const {  // :6
    *self_data = *src_data;
  }
};
static TensorAssign tensor_assign;                                             // :10
template <bool is_scatter_like = true>
struct base_kernel {
  template <typename func_t>
  void operator()(const Tensor& self, const Tensor& src, const std::string& name, func_t& kernel_func) {  // :14
    AT_DISPATCH_ALL_TYPES(self.scalar_type(), "scatter_gather", [&] {
      for (int64_t i = 0; i < 8; i++) {
        kernel_func(self.data_ptr<scalar_t>() + i, src.data_ptr<scalar_t>() + i);  // :17
      }
    });
  }
};
struct Named {
  void operator()(int x) const {}                                              // :23
};
void describe(Named className) {                                               // :25
  auto s = std::string(className.operator const char*());                      // :26
}
} // namespace
Tensor gather_it_cpu(const Tensor& self) {                                     // :29
  Tensor result = self;
  base_kernel<false>()(result, self, "gather_out_cpu", tensor_assign);         // :31
  Named named;
  describe(named);                                                             // :33
  return result;
}
}
"""
SCATTER_CUH = """\
namespace at::native {
class TensorAssign {
public:
  template <typename scalar_t>
  constexpr C10_DEVICE void operator()(scalar_t* self_data, const scalar_t* src_data) const {  // :5
    *self_data = *src_data;
  }
};
static TensorAssign tensor_assign;                                             // :9
template <typename func_t>
__global__ void elementwise_kernel(int N, func_t f) {                          // :11
  f(threadIdx.x);                                                              // :12
}
template <typename func_t>
static void launch_kernel(int64_t N, const func_t& f) {                        // :15
  elementwise_kernel<func_t><<<1, 128, 0, stream()>>>(N, f);                   // :16
}
template <bool is_scatter_like, typename scalar_t>
struct internal_kernel {
  template <typename func_t>
  void operator()(TensorIterator& iter, int64_t size, const func_t& f) {       // :21
    auto loop = [=]C10_DEVICE(int i) {
      f((scalar_t*)nullptr + i, (const scalar_t*)nullptr + i);                 // :23
    };
    launch_kernel(iter.numel(), loop);                                         // :25
  }
};
template <bool is_scatter_like = true>
struct base_kernel {
  template <typename func_t>
  void operator()(const Tensor& self, const Tensor& src, const std::string& name, const func_t& f) {  // :31
    auto iter = TensorIterator::borrowing_binary_op(self, src);
    AT_DISPATCH_ALL_TYPES(self.scalar_type(), "scatter_gather_cuda", [&] {
      internal_kernel<is_scatter_like, scalar_t>()(iter, 8, f);                // :34
    });
  }
};
}
"""
GATHER_CU = """\
#include <ATen/native/cuda/Scatter.cuh>
namespace at::native {
Tensor gather_it_cuda(const Tensor& self) {                                    // :3
  Tensor result = self;
  base_kernel<false>()(result, self, "gather_out_cuda", tensor_assign);        // :5
  return result;
}
}
"""
FILES = {N + "native_functions.yaml": YAML, N + "cpu/Scatter.cpp": SCATTER_CPP, N + "cuda/Scatter.cuh": SCATTER_CUH,
         N + "cuda/Gather.cu": GATHER_CU}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("handed_functor_object"), FILES)


def _called(text: str, path: str) -> dict[tuple[str, int], str | None]:
    return {(d.qualified_name, d.line): d.called_params for d in extract(text.encode(), N + path).definitions}


def test_a_parameter_handed_on_within_the_file_counts_as_called():
    cu = _called(SCATTER_CUH, "cuda/Scatter.cuh")
    assert cu[("at::native::elementwise_kernel", 11)] == '["f:1"]'  # :12
    assert cu[("at::native::launch_kernel", 15)] == '["f:1"]'  # :16 launches the kernel with it
    assert cu[("at::native::internal_kernel::operator()", 21)] == '["f:2"]'  # :23, in the lambda it launches
    assert cu[("at::native::base_kernel::operator()", 31)] == '["f:3"]'  # :34, an object of the file's class called
    cpu = _called(SCATTER_CPP, "cpu/Scatter.cpp")
    assert cpu[("at::native::(anonymous)::base_kernel::operator()", 14)] == '["kernel_func:3"]'  # :17
    # :26 `className.operator const char*()`, which tree-sitter reads as a call of className: not a call of it
    assert cpu[("at::native::(anonymous)::describe", 25)] is None


def _functors(db: Path, caller: str) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute(
            "SELECT e.line, e.target, d.name, d.line, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? AND e.kind = 'runs-functor' AND e.detail != 'constructed'",
            (caller,)))  # (the object a call makes runs its operator() too: its edge says `constructed`)


def test_the_handing_call_runs_the_functor_object(db):
    cuda = _functors(db, "at::native::gather_it_cuda")
    assert (5, "TensorAssign", "at::native::TensorAssign::operator()", 5, "base_kernel<false>(), which calls its f") \
        in cuda
    cpu = _functors(db, "at::native::gather_it_cpu")
    assert (31, "TensorAssign", "at::native::(anonymous)::TensorAssign::operator()", 6,
            "base_kernel<false>(), which calls its kernel_func") in cpu
    assert not any(row[0] == 33 for row in cpu)  # describe never calls its parameter


def test_kernels_for_reaches_the_functor(db):
    [answer] = Index.open(db).kernels_for("gather_it")
    by_key = {k.key: k for k in answer.keys}
    for key, line, site in (("CUDA", 5, (N + "cuda/Gather.cu", 5)), ("CPU", 6, (N + "cpu/Scatter.cpp", 31))):
        functors = [(s.name.rsplit("::", 2)[-2], s.line, (s.site.file, s.site.line)) for s in by_key[key].chain
                    if s.kind == StepKind.FUNCTOR]
        assert ("TensorAssign", line, site) in functors, key


def test_an_edit_that_stops_the_call_relinks_the_handing_call(tmp_path: Path, monkeypatch):
    """Only the header changes, its lines kept (the internal kernel's lambda calls f no more): the handing call in
    Gather.cu is resolved again, as a cold build of the edited tree gives."""
    from tg_index.indexer import build as build_module

    monkeypatch.setattr(build_module, "SETTLED_NS", 0)
    tree = tmp_path / "tree"
    db = built_tree(tree, FILES)
    assert _functors(db, "at::native::gather_it_cuda")
    (tree / N / "cuda/Scatter.cuh").write_text(SCATTER_CUH.replace(
        "      f((scalar_t*)nullptr + i, (const scalar_t*)nullptr + i);", "      g((scalar_t*)nullptr + i);"))
    build(tree, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'linked'").fetchone()[0] == "incremental"
    assert _functors(db, "at::native::gather_it_cuda") == set()
    cold = built_tree(tmp_path / "cold", {rel: (tree / rel).read_text() for rel in FILES})
    assert _functors(cold, "at::native::gather_it_cuda") == set()
