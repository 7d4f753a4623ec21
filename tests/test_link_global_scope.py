"""Two ways a chain ends that the link stage read wrong:

- A call qualified by the global namespace (`::lgamma(a)`, `::abs(x)`) is looked up there only
  ([namespace.qual]): a function of the name in a namespace the caller is in or uses is no candidate,
  and neither is an op through `at::`. CUDA code writes `::lgamma(a)` in a GPU_LAMBDA for CUDA's math
  function (2.6.0 native/cuda/UnaryGammaKernels.cu:122), which was taken for at::vec's lgamma; `::abs(x)`
  in native/cuda was taken for the kernel at::native::abs, and `::isinf` for the op isinf.
- A kernel launched through the CUDA driver's or runtime's launch call, where no `<<<...>>>` is written:
  the jiterator compiles its kernels at run time with NVRTC and launches them with
  `nvrtc.cuLaunchKernel(...)` (2.6.0 native/cuda/jit_utils.cpp:1647, in launch_jitted_pwise_function).
  That call is the device work done: a calls-library edge (family "cuda driver") that ends the chain, so
  that the helpers above it (jitted_gpu_kernel ...) lead to device work and a CUDA chain goes through them.
- A system include of a toolchain header by name (`#include <math.h>` in 2.6.0 c10/util/Half.h) is the C
  library's, not the checkout's file of that name (qnnpack's src/qnnpack/math.h, whose static max and min
  were seen from every file including Half.h); and a global function with a standard name (min, pow) is a
  candidate only where the caller's file includes it (1.13.1 jit/codegen/cuda/runtime/helpers.cu's device min
  is not CUDA's min for a kernel of native/cuda).
- An unqualified call is an op through the dispatcher only where the caller sees at's functions (in at or
  torch, or under `using namespace at;`): flash-attention's `size<1>(x)` in namespace pytorch_flash is not.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest
from tg_index.indexer.link.includes import IncludeGraph
from tg_index.queries.api import Index

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: lgamma(Tensor self) -> Tensor
  dispatch:
    CPU: lgamma_cpu
- func: special_thing(Tensor self) -> Tensor
  dispatch:
    CUDA: special_thing_cuda
"""
VEC_H = """\
namespace at { namespace vec {
inline float lgamma(float a) { return a; }                          // :2
} }
"""
GLOBAL_H = """\
inline int scale_by_two(int a) { return 2 * a; }                  // :1, outside every namespace
namespace at { namespace native {
inline int scale_by_two(int a) { return a + a; }                  // :3
inline int abs(int a) { return a < 0 ? -a : a; }                  // :4
} }
"""
MATH_CU = """\
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/Global.h>
namespace at { namespace native {
using namespace at::vec;
float gamma_of(float a) { return ::lgamma(a); }
int twice(int a) { return ::scale_by_two(a) + scale_by_two(a); }
int magnitude(int a) { return ::abs(a); }
void shut(int fd) { ::close(fd); }
Tensor lgamma_cpu(const Tensor& self) { return self; }
} }
"""
JIT_UTILS_CPP = """\
namespace at { namespace cuda { namespace jit {
void launch_jitted_pwise_function(void* function, void* args[]) {
  const auto& nvrtc = at::globalContext().getNVRTC();
  nvrtc.cuLaunchKernel(function, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr);     // :4
}
} } }
"""
JIT_LOOPS_CUH = """\
namespace at { namespace native {
void jitted_gpu_kernel(TensorIteratorBase& iter, const std::string& f) {       // :2
  at::cuda::jit::launch_jitted_pwise_function(nullptr, nullptr);              // :3
}
} }
"""
THING_CU = """\
#include <ATen/native/cuda/JitLoops.cuh>
namespace at { namespace native {
Tensor special_thing_cuda(const Tensor& self) {
  jitted_gpu_kernel(iter, thing_string);                                      // :4
  return self;
}
} }
"""

HELPERS_CU = """\
__device__ constexpr int min(int a, int b) { return a < b ? a : b; }          // :1, a file nobody includes
"""
VENDOR_CU = """\
namespace vendorlib {
int smallest(int a, int b) { return min(a, b); }                            // :2
void run(const Tensor& t) { special_thing(t); }                              // :3
}
namespace at { namespace native {
int least(int a, int b) { return min(a, b); }                                // :6
void again(const Tensor& t) { special_thing(t); }                            // :7
} }
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("global"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/cpu/vec/vec.h": VEC_H, N + "Global.h": GLOBAL_H,
        N + "cuda/Math.cu": MATH_CU, N + "cuda/jit_utils.cpp": JIT_UTILS_CPP, N + "cuda/JitLoops.cuh": JIT_LOOPS_CUH,
        N + "cuda/Thing.cu": THING_CU, "torch/csrc/jit/codegen/cuda/runtime/helpers.cu": HELPERS_CU,
        N + "cuda/Vendor.cu": VENDOR_CU})


def _calls(db, line: int) -> set[tuple]:
    return {(target, how, name, at) for _file, ln, target, how, _detail, name, at in call_edges(db, "cuda/Math.cu")
            if ln == line}


def test_a_name_qualified_by_the_global_namespace_is_looked_up_there_only(db):
    # Math.cu:5 `::lgamma(a)` in at::native under `using namespace at::vec;`: at::vec::lgamma (vec.h:2) is no
    # candidate, nor the op lgamma; CUDA's and the C library's lgamma are outside the checkout
    assert _calls(db, 5) == {("::lgamma", "standard", None, None)}
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM edges WHERE kind = 'redispatches-to-op' AND line = 5 "
                            "AND file LIKE '%Math.cu'").fetchone() == (0,)


def test_a_global_function_of_the_checkout_is_found_and_the_namespace_one_is_not(db):
    # Math.cu:6 `::scale_by_two(a)` is Global.h:1's, outside every namespace; the unqualified call beside it
    # finds at::native's (Global.h:3) first
    assert _calls(db, 6) == {("::scale_by_two", "exact", "scale_by_two", 1),
                             ("scale_by_two", "same-namespace", "at::native::scale_by_two", 3)}


def test_a_global_name_the_checkout_does_not_define_is_not_taken_for_a_namespace_function(db):
    # Math.cu:7 `::abs(a)`: at::native::abs (Global.h:4) is no candidate, abs is the C library's;
    # :8 `::close(fd)`: POSIX, no definition in the checkout
    assert _calls(db, 7) == {("::abs", "standard", None, None)}
    assert _calls(db, 8) == {("::close", "not-in-checkout", None, None)}


def test_a_global_function_of_a_standard_name_is_a_candidate_only_where_it_is_included(db):
    # Vendor.cu:2 and :6 `min(a, b)`: helpers.cu's global min (:1) is in no file Vendor.cu includes: CUDA's min
    got = {(line, how, name) for _f, line, _t, how, _d, name, _a in call_edges(db, "cuda/Vendor.cu")
           if line in (2, 6)}
    assert got == {(2, "standard", None), (6, "standard", None)}


def test_an_unqualified_call_is_an_op_only_where_at_is_seen(db):
    # Vendor.cu:3 special_thing(t) in namespace vendorlib is no op; :7, in at::native, is the op special_thing
    with sqlite3.connect(db) as conn:
        ops = conn.execute("SELECT e.line FROM edges e WHERE e.kind = 'redispatches-to-op' AND e.file LIKE "
                           "'%Vendor.cu'").fetchall()
    assert ops == [(7,)]
    assert {(how, name) for _f, line, _t, how, _d, name, _a in call_edges(db, "cuda/Vendor.cu") if line == 3} == \
        {("not-in-checkout", None)}


def test_a_kernel_launched_through_the_driver_api_is_a_library_call_that_ends_the_chain(db):
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT e.target, e.detail, e.line, s.name FROM edges e JOIN nodes s ON s.id = e.src "
                            "WHERE e.kind = 'calls-library'").fetchall()
        paths = dict(conn.execute("SELECT name, device_path FROM nodes WHERE name LIKE '%jitted%'").fetchall())
    assert rows == [("nvrtc.cuLaunchKernel", "cuda driver", 4, "at::cuda::jit::launch_jitted_pwise_function")]
    assert paths == {"at::cuda::jit::launch_jitted_pwise_function": 1, "at::native::jitted_gpu_kernel": 1}
    [answer] = Index.open(db).kernels_for("special_thing")
    [cuda] = answer.keys
    steps = [(s.kind, s.name, s.loc.line, s.detail) for s in cuda.chain]
    assert steps == [("call", "at::native::jitted_gpu_kernel", 2, None),
                     ("call", "at::cuda::jit::launch_jitted_pwise_function", 2, None),
                     ("library", "nvrtc.cuLaunchKernel", 4, "cuda driver")]


@pytest.mark.parametrize("callee, family", [
    ("nvrtc.cuLaunchKernel", "cuda driver"), ("nvrtc().cuLaunchCooperativeKernel", "cuda driver"),
    ("cudaLaunchKernel", "cuda runtime"), ("cudaLaunchKernelExC", "cuda runtime"),
    ("hipLaunchKernelGGL", "hip"), ("hipModuleLaunchKernel", "hip"), ("cublasSgemm", "cublas"),
    ("cuLaunchHostFunc", None), ("cudaGetDevice", None), ("cudaStreamSynchronize", None),
    # memory copied or set by the runtime or driver: the work a copy_ between devices does (2.6.0 native/cuda/Copy.cu:381)
    ("cudaMemcpyAsync", "cuda runtime"), ("cudaMemcpy2DAsync", "cuda runtime"), ("cudaMemsetAsync", "cuda runtime"),
    ("cuMemcpyHtoD", "cuda driver"), ("hipMemcpyWithStream", "hip"),
    # CPU libraries called through a C API or a namespace the checkout does not define: 2.6.0 mkl/SpectralOps.cpp:318
    # pocketfft::c2c, native/NNPACK.cpp's nnp_convolution_output, quantized/cpu's pytorch_qnnp_run_operator and
    # xnnpack/'s xnn_run_operator are the work done
    ("pocketfft::c2c", "pocketfft"), ("nnp_convolution_output", "nnpack"), ("pytorch_qnnp_run_operator", "qnnpack"),
    ("xnn_run_operator", "xnnpack"), ("xnn_invoke_runtime", "xnnpack"), ("ducc0::c2c", "ducc")])
def test_compute_family(callee: str, family: str | None):
    from tg_index.indexer.link.classify import compute_family

    assert compute_family(callee) == family


@pytest.mark.parametrize("callee, service", [
    ("pytorch_qnnp_create_add_nc_q8", True), ("pytorch_qnnp_setup_add_nc_q8", True), ("pytorch_qnnp_delete_operator", True),
    ("xnn_create_runtime_v2", True), ("xnn_reshape_convolution2d_nhwc_f32", True), ("nnp_initialize", True),
    ("pytorch_qnnp_run_operator", False), ("xnn_run_operator", False), ("nnp_convolution_output", False)])
def test_operator_setup_is_a_service_call(callee: str, service: bool):
    # QNNPACK's, XNNPACK's and NNPACK's calls that make, set up, reshape or delete an operator configure the library;
    # the run call that follows them computes
    from tg_index.indexer.link.classify import is_service_call

    assert is_service_call(callee) is service


HALF_H = """\
#include <math.h>
#include <cuda.h>
"""
QNNPACK_MATH_H = """\
#pragma once
inline static size_t max(size_t a, size_t b) { return a > b ? a : b; }
"""
POOL_CU = """\
#include <c10/util/Half.h>
namespace at { namespace native {
int widest(int a, int b) { return max(a, b); }
} }
"""
QNNPACK_OP_C = """\
#include <qnnpack/math.h>
size_t biggest(size_t a, size_t b) { return max(a, b); }
"""


def test_a_toolchain_header_included_by_name_is_not_the_checkouts_file_of_that_name(tmp_path):
    graph = IncludeGraph(["c10/util/Half.h", "torch/csrc/api/include/torch/cuda.h", "aten/src/math.h"],
                         [("c10/util/Half.h", "math.h", True), ("c10/util/Half.h", "cuda.h", True),
                          ("c10/util/Half.h", "math.h", False)])
    assert graph.closure("c10/util/Half.h") == {"aten/src/math.h"}  # `"math.h"` is looked up in the checkout
    q = N + "quantized/cpu/qnnpack/src/"
    db = built_tree(tmp_path, {N + "native_functions.yaml": YAML, "c10/util/Half.h": HALF_H,
                               q + "qnnpack/math.h": QNNPACK_MATH_H, N + "cuda/Pool.cu": POOL_CU,
                               q + "op.cc": QNNPACK_OP_C})
    # Pool.cu:3 max(a, b): `<math.h>` in Half.h is the C library's; qnnpack's static max is not seen from Pool.cu
    assert {(how, name) for _f, line, _t, how, _d, name, _a in call_edges(db, "cuda/Pool.cu") if line == 3} == \
        {("standard", None)}
    assert {(how, name) for _f, line, _t, how, _d, name, _a in call_edges(db, "qnnpack/src/op.cc") if line == 2} == \
        {("same-namespace", "max")}  # qnnpack's own file sees it
