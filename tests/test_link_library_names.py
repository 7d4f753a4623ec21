"""Which names are a vendor library's C API, and which of its calls configure it rather than compute.

A CUDA library's C API is the library's name, then a capital: 2.6.0 cudnn/RNN.cpp:728 `cudnn_method(...)` calls a
local function pointer (a loop over cudnnGetRNNLinLayerMatrixParams and ...BiasParams, :711-712), which was taken for
a cuDNN entry point and ended gru's CUDA line. Arm NEON's vmlaq_f32 (cpu/... depthwise 3x3 Winograd) was taken for
MKL's VML. The calls that make, set, initialise or destroy a handle, descriptor, plan or attribute configure the
library whatever words stand between its name and the verb (cublasLtMatmulDescSetAttribute, cusparseLtMatmulPlanInit,
sparse/cuda/cuSPARSELtOps.cpp:106 cusparseLtInit, which was the brief's end of _cslt_sparse_mm), and so do a
library's has_ tests (mkldnn/Utils.h:114 ideep::has_bf16_type_support)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("written, how", [
    ("cudnnRNNForwardTraining", "vendor"), ("cublasSgemm", "vendor"), ("cusolverDnXgeqrf", "vendor"),
    ("cufftXtExec", "vendor"), ("cusparseSpMM", "vendor"), ("vmlSetMode", "vendor"), ("vslNewStream", "vendor"),
    ("cudnn_method", None), ("cublas_handle_stream_to_workspace", None), ("cufft_simple_embed", None),
    ("vmlaq_f32", "standard")])
def test_a_library_s_c_api_is_its_name_then_a_capital(written: str, how: str | None):
    from tg_index.indexer.link.classify import named_class

    got = named_class("", written, None, set(), set())
    assert (got.value if got is not None else None) == how


@pytest.mark.parametrize("callee, family", [
    ("cudnnRNNForwardTraining", "cudnn"), ("cublasLtMatmul", "cublaslt"), ("cublasGemmEx", "cublas"),
    ("cusparseLtMatmul", "cusparse"), ("at::cuda::blas::gemm<float>", "cublas"), ("cudnn_frontend::graph", "cudnn"),
    ("cudnn_method", None), ("cudnn_conv_suggest_memory_format", None), ("at::cudnn_is_acceptable", None),
    ("cublas_handle_stream_to_workspace", None)])
def test_the_extracted_family_of_a_callee(callee: str, family: str | None):
    from tg_index.indexer.cxx.callees import callee_info

    assert callee_info(callee, "cpp")[5] == family


@pytest.mark.parametrize("callee, service", [
    ("cusparseLtInit", True), ("cusparseLtMatmulPlanInit", True), ("cusparseLtStructuredDescriptorInit", True),
    ("cublasLtMatmulDescSetAttribute", True), ("cublasLtMatrixLayoutCreate", True), ("cusolverDnXgesvdjSetTolerance", True),
    ("cusparseCsrSetPointers", True), ("cudnnSetTensorNdDescriptor", True), ("cublasSetStream", True),
    ("ideep::has_bf16_type_support", True),
    ("cusparseLtMatmul", False), ("cublasLtMatmul", False), ("cudnnRNNForwardTraining", False),
    ("cusolverDnXgesvdj", False), ("cusparseSpMM", False), ("cublasSgemm", False)])
def test_configuring_calls_are_service_calls(callee: str, service: bool):
    from tg_index.indexer.link.classify import is_service_call

    assert is_service_call(callee) is service


CUTLASS_CU = """\
namespace at { namespace native {
template <typename Kernel>
void cutlass_gemm(int n) {
  using Gemm = cutlass::gemm::device::GemmUniversalBase<Kernel>;
  Gemm gemm_op;
  gemm_op.can_implement(n);                                               // :6
  gemm_op.initialize(n);                                                  // :7
  gemm_op.run(n);                                                         // :8
}
} }
"""


def test_a_cutlass_operator_s_run_is_the_library_s_work(tmp_path):
    """2.6.0 cuda/MixedDtypesLinear.cu:147, `gemm_op.run(stream)` on a `Gemm` (a local alias of
    cutlass::gemm::device::GemmUniversalBase): the GEMM runs there, after can_implement and initialize configure it;
    _mixed_dtypes_linear's CUDA line ended at the cutlassGetStatusString of its status checks."""
    import sqlite3

    from .conftest import built_tree

    db = built_tree(tmp_path, {"aten/src/ATen/native/native_functions.yaml": "- func: nothing(Tensor self) -> Tensor\n",
                               "aten/src/ATen/native/cuda/Cutlass.cu": CUTLASS_CU})
    with sqlite3.connect(db) as conn:
        got = conn.execute("SELECT kind, line, how, target, detail FROM edges WHERE file LIKE '%Cutlass.cu' AND "
                           "target LIKE 'gemm_op.%' ORDER BY line").fetchall()
    assert got == [("calls", 6, "vendor", "gemm_op.can_implement",
                    "a member of a class of cutlass's that the checkout does not define"),
                   ("calls", 7, "vendor", "gemm_op.initialize",
                    "a member of a class of cutlass's that the checkout does not define"),
                   ("calls-library", 8, "vendor", "gemm_op.run", "cutlass")]
