"""A call on an object of a library's class is the library's (indexer/link/resolve.py _vendor_class): the checkout's
functions of the member's name are no candidates, unless the checkout itself defines the class in the library's
namespace (aten/src/ATen/native/cuda/cutlass_extensions adds classes to namespace cutlass) or the name, looked up
from the caller, is the checkout's namespace of that name (at::native::xnnpack).

Modelled on 2.6.0 native/nested/cuda/NestedTensorMatmul.cu:92,151,169 (`using GemmGrouped = typename
cutlass::gemm::device::GemmGrouped<GemmKernel>; GemmGrouped gemm; ... gemm.run(stream)`, then resolved among 71
functions named run) and sparse/cuda/SparseSemiStructuredOps.cu:237 (`problem_size.m()` on a cutlass::gemm::GemmCoord,
then taken for the one function named m in the checkout)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .conftest import built_tree

N = "aten/src/ATen/native/"
OTHERS_H = """\
#pragma once
namespace at { namespace native {
struct Runner { void run(int stream) {} };
struct Engine { void run(int stream) {} };
struct Shape { int m() const { return 1; } };
namespace xnnpack { struct Context { void run(int stream) {} }; }
struct Box { int size() const { return 1; } };
struct Bag { int size() const { return 2; } };
struct TensorRef { Box* box; Box* operator->() const { return box; } };
struct Iterator { using TensorRef = cutlass::TensorRef<float, int>; };
} }
namespace cutlass { namespace gemm { namespace kernel {
struct Extension { void launch(int stream) {} };
} } }
"""
GROUPED_CU = """\
#include <ATen/native/Others.h>
namespace at { namespace native {
template <typename K>
void grouped(int stream) {
  using GemmGrouped = typename cutlass::gemm::device::GemmGrouped<K>;
  GemmGrouped gemm;
  gemm.run(stream);
  cutlass::gemm::GemmCoord size;
  int rows = size.m();
  cutlass::gemm::kernel::Extension ext;
  ext.launch(stream);
  ideep::tensor t;
  t.reorder_from(rows);
  xnnpack::Context context;
  context.run(stream);
  TensorRef ref;
  ref->size();
}
void grouped_cuda(int stream) { grouped<float>(stream); }
} }
"""
YAML = "- func: grouped(Tensor self) -> Tensor\n  dispatch:\n    CUDA: grouped_cuda\n"


def test_a_call_on_a_library_class_is_the_librarys(tmp_path: Path):
    db = built_tree(tmp_path, {N + "Others.h": OTHERS_H, N + "cuda/Grouped.cu": GROUPED_CU,
                               N + "native_functions.yaml": YAML})
    with sqlite3.connect(db) as conn:
        edges = {target: (how, dst, detail) for target, how, dst, detail in conn.execute(
            "SELECT e.target, e.how, n.name, e.detail FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
            "WHERE e.kind IN ('calls', 'calls-library') AND e.file LIKE '%Grouped.cu' AND "
            "(e.target LIKE '%.%' OR e.target LIKE '%->%')")}
    # a CUTLASS operator's run is the library's work: a calls-library edge (classify.runs_what_was_built)
    assert edges["gemm.run"] == ("vendor", "gemm.run", "cutlass")
    assert edges["size.m"][:2] == ("vendor", None)  # not at::native::Shape::m
    assert edges["t.reorder_from"][:2] == ("vendor", None)
    # the checkout's own class in namespace cutlass: its member; and xnnpack:: inside at::native is the checkout's
    # at::native::xnnpack (as 2.6.0 xnnpack/Convolution.cpp:439's `op_context->run(input)` on an
    # intrusive_ptr<xnnpack::Conv2dOpContext>)
    assert edges["ext.launch"][1] == "cutlass::gemm::kernel::Extension::launch"
    assert edges["context.run"][1] == "at::native::xnnpack::Context::run"
    # functorch's TensorRef (dim/arena.h:195), whose operator-> reaches a Tensor, is no class-level alias of another
    # file's named TensorRef (mem_eff_attention/gemm/mma_from_smem.h:1667's cutlass::TensorRef<...>)
    assert edges["ref->size"][:2] == ("receiver-type", "at::native::Box::size")
