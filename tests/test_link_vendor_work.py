"""Which vendor calls are the work done (a calls-library edge that ends a chain) and which only configure the library.

- cuDNN's C++ frontend builds what cuDNN runs: its builders and their setters (2.6.0 cudnn/Conv_v8.cpp:395
  `cudnn_frontend::VariantPackBuilder().setWorkspacePointer(...)`), and the graph API's tensor and node
  definitions (cudnn/MHA.cpp `mha_graph->tensor(...)`), configure it. The work is `cudnnBackendExecute`
  (Conv_v8.cpp:400) or the graph's `execute` (MHA.cpp:851, `mha_graph->execute(handle, variant_pack, workspace)`,
  a member of a class in cudnn_frontend, outside the checkout).
- The Fortran BLAS and LAPACK routines that native/BatchLinearAlgebra.cpp and CPUBlas.cpp declare `extern "C"` and
  call (`sgeqrf_`, `zpotrf_`, `sgemm_`), and LAPACK's C interface (`LAPACKE_dormqr_work`), are the CPU linear
  algebra's work; they were calls to nothing in the checkout.
- A library's check_ or is_ function asks before the work: 2.6.0 transformers/cuda/attention.cu:1131
  `aotriton::v2::flash::check_gpu(stream)` (the ROCm build's test of the GPU) was the CUDA line of
  _scaled_dot_product_efficient_attention. So do MAGMA's version, initialisation and queue calls
  (cuda/linalg/BatchLinearAlgebra.cpp `magma_version`), which would otherwise end det's CUDA line, and oneDNN's
  cache of computations (mkldnn/IDeepRegistration.cpp:28 `ideep::convolution_forward::t_store().clear()`, which
  at::set_num_threads reaches: every CPU chain through parallel_for's runtime ended in oneDNN).

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: geqrf(Tensor self) -> (Tensor a, Tensor tau)
  dispatch:
    CPU: geqrf_cpu
"""
MHA_CPP = """\
#include <memory>
namespace fe = cudnn_frontend;
namespace at { namespace native {
void run_sdpa(void* handle, int x) {
  auto mha_graph = std::make_shared<fe::graph::Graph>();
  auto q = mha_graph->tensor(x);                                               // :6
  mha_graph->validate();                                                       // :7
  mha_graph->execute(handle, x, nullptr);                                      // :8
}
} }
"""
CONV_V8_CPP = """\
#include <cudnn_frontend.h>
namespace at { namespace native {
void run_conv_plan(void* handle, void* plan, void* workspace) {
  auto variantPack = cudnn_frontend::VariantPackBuilder().setWorkspacePointer(workspace).build();   // :4
  cudnnBackendExecute(handle, plan, variantPack.get_raw_desc());               // :5
}
} }
"""
LINALG_CPP = """\
extern "C" void sgeqrf_(int *m, int *n, float *a, int *lda, float *tau, float *work, int *lwork, int *info);
extern "C" int LAPACKE_dormqr_work(int layout, char side, char trans, int m, int n);
namespace at { namespace native {
void geqrf_cpu(const Tensor& self, int m, float* a) {
  int info;
  sgeqrf_(&m, &m, a, &m, a, a, &m, &info);                                     // :6
  LAPACKE_dormqr_work(0, 'L', 'N', m, m);                                      // :7
  auto stride_ = [](int k) { return k; };
  stride_(m);                                                                  // :9
}
} }
"""
ATTENTION_CU = """\
namespace at { namespace native {
void efficient_attention(void* stream, void* q) {
  aotriton::v2::flash::check_gpu(stream);                                      // :3
  aotriton::v2::flash::attn_fwd(q, stream);                                    // :4
  magma_version(&q, &q, &q);                                                   // :5
  magma_dgetrf_gpu(q, q, stream);                                              // :6
  ideep::convolution_forward::t_store().clear();                               // :7
}
} }
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("vendor_work"), {
        N + "native_functions.yaml": YAML, N + "cudnn/MHA.cpp": MHA_CPP, N + "cudnn/Conv_v8.cpp": CONV_V8_CPP,
        N + "BatchLinearAlgebra.cpp": LINALG_CPP, N + "transformers/cuda/attention.cu": ATTENTION_CU})


def _edges(db, file: str) -> dict[int, set[tuple]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT line, kind, how, detail FROM edges WHERE file LIKE ? AND kind IN "
                            "('calls', 'calls-library')", (f"%{file}",)).fetchall()
    out: dict[int, set[tuple]] = {}
    for line, kind, how, detail in rows:
        out.setdefault(line, set()).add((kind, how, detail))
    return out


def test_a_frontend_graph_s_execute_is_the_work_and_its_definitions_are_not(db):
    got = _edges(db, "cudnn/MHA.cpp")
    assert got[8] == {("calls-library", "vendor", "cudnn")}
    assert ("calls-library", "vendor", "cudnn") not in got[6] | got[7]


def test_frontend_builders_configure_and_the_backend_s_execute_computes(db):
    got = _edges(db, "cudnn/Conv_v8.cpp")
    assert ("calls-library", "vendor", "cudnn") in got[5]  # beside it, the argument's variantPack.get_raw_desc()
    assert all(kind == "calls" for kind, _how, _detail in got[4])


def test_fortran_lapack_and_lapacke_calls_are_library_work(db):
    got = _edges(db, "BatchLinearAlgebra.cpp")
    assert got[6] == {("calls-library", "vendor", "lapack")}
    assert got[7] == {("calls-library", "vendor", "lapack")}
    assert got[9] == {("calls", "local-lambda", "a lambda at line 8")}  # a name of the form, but the caller's lambda


def test_a_library_s_checks_ask_and_its_entry_points_compute(db):
    got = _edges(db, "transformers/cuda/attention.cu")
    assert {(kind, how) for kind, how, _detail in got[3]} == {("calls", "vendor")}
    assert got[4] == {("calls-library", "vendor", "flash_attention")}
    assert {(kind, how) for kind, how, _detail in got[5]} == {("calls", "vendor")}
    assert got[6] == {("calls-library", "vendor", "magma")}
    assert {kind for kind, _how, _detail in got[7]} == {"calls"}
