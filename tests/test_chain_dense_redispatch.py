"""A sparse or quantized kernel that calls an op with no kernel of its key (and no composite one) passes it dense
tensors, on the key's device: the redispatch goes on in the op's dense kernel (queries/chain.py _kernels_of).
A nested kernel's does not: a nested tensor's sizes, strides and offsets are CPU tensors beside its device buffer.

Modelled on 2.6.0 TensorConversions.cpp:1460 coo_to_sparse_csr (SparseCPU, SparseCUDA: native_functions.yaml), which
calls at::_convert_indices_from_coo_to_csr on the COO indices (:1467); that op's kernels are CPU's and CUDA's only
(native_functions.yaml:11535-11543), and its CUDA one launches convert_indices_from_coo_to_csr_cuda_kernel. Before,
the SparseCUDA chain stopped at the redispatch."""

from __future__ import annotations

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: convert_thing(Tensor self) -> Tensor
  dispatch:
    CPU: convert_thing_cpu
    CUDA: convert_thing_cuda
- func: to_csr_thing(Tensor self) -> Tensor
  dispatch:
    SparseCPU, SparseCUDA: to_csr_thing
    QuantizedCUDA: to_csr_thing_quantized
    NestedTensorCUDA: to_csr_thing_nested
"""
CONVERT_CU = """\
namespace at { namespace native {
__global__ void convert_thing_kernel(int* out) { out[0] = 0; }
Tensor convert_thing_cuda(const Tensor& self) {
  convert_thing_kernel<<<1, 1>>>(nullptr);
  return self;
}
} }
"""
CONVERT_CPP = """\
namespace at { namespace native {
Tensor convert_thing_cpu(const Tensor& self) { return self; }
} }
"""
TO_CSR_CPP = """\
namespace at { namespace native {
Tensor to_csr_thing(const Tensor& self) {
  return at::convert_thing(self._indices());
}
Tensor to_csr_thing_quantized(const Tensor& self) {
  return at::convert_thing(self.int_repr());
}
Tensor to_csr_thing_nested(const Tensor& self) {
  return at::convert_thing(self);
}
} }
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return Index.open(built_tree(tmp_path_factory.mktemp("dense_redispatch"), {
        N + "native_functions.yaml": YAML, N + "cuda/Convert.cu": CONVERT_CU, N + "Convert.cpp": CONVERT_CPP,
        N + "sparse/ToCsr.cpp": TO_CSR_CPP}))


def _keys(ix: Index) -> dict:
    [answer] = [a for a in ix.kernels_for("to_csr_thing") if a.op == "to_csr_thing"]
    return {k.key: k for k in answer.keys}


@pytest.mark.parametrize("key, dense, kernel", [
    ("SparseCUDA", "CUDA", "at::native::convert_thing_cuda"),
    ("SparseCPU", "CPU", "at::native::convert_thing_cpu"),
    ("QuantizedCUDA", "CUDA", "at::native::convert_thing_cuda"),
])
def test_a_sparse_or_quantized_kernels_call_goes_on_in_the_dense_kernel(ix: Index, key: str, dense: str, kernel: str):
    chain = _keys(ix)[key].chain
    assert [(s.kind, s.name) for s in chain][:2] == [("redispatch", "convert_thing"), ("definition", kernel)]
    assert chain[1].device == dense
    if dense == "CUDA":
        assert ("global_kernel", "at::native::convert_thing_kernel") in {(s.kind, s.name) for s in chain}


def test_a_nested_kernels_call_is_not_taken_for_the_devices(ix: Index):
    chain = _keys(ix)["NestedTensorCUDA"].chain
    assert [(s.kind, s.name) for s in chain] == [("redispatch", "convert_thing")]
