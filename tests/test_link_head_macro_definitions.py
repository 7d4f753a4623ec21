"""A definition whose head a macro of the file writes, with the body written after the use, is the function the
macro names: 2.6.0 flash_attn/flash_fwd_launch_template.h:31 `#define DEFINE_FLASH_FORWARD_KERNEL(kernelName, ...)
template<typename Kernel_traits, __VA_ARGS__> __global__ void kernelName(KERNEL_PARAM_MODIFIER const Flash_fwd_params
params)`, used at :35 `DEFINE_FLASH_FORWARD_KERNEL(flash_fwd_kernel, bool Is_dropout, ...) {`. tree-sitter read each
use as a function named DEFINE_FLASH_FORWARD_KERNEL (three of them, and two DEFINE_FLASH_BACKWARD_KERNEL in
flash_bwd_launch_template.h), so flash_fwd_kernel was not in the checkout and run_flash_fwd's launch of it
(`auto kernel = &flash_fwd_kernel<...>; kernel<<<...>>>`, :81, :93) had no target. A statement macro used the same
way (`CUDA_KERNEL_LOOP(i, n) {`, a `for` head) is not a definition.

Every expected line below is read in the sources of this file (the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: flashy(Tensor self) -> Tensor
  dispatch:
    CUDA: flashy_cuda
"""
LAUNCH_H = """\
namespace pytorch_flash {
#define KERNEL_PARAM_MODIFIER
#define DEFINE_FORWARD_KERNEL(kernelName, ...) \\
template<typename Kernel_traits, __VA_ARGS__> \\
__global__ void kernelName(KERNEL_PARAM_MODIFIER const Params params)
#define KERNEL_LOOP(i, n) for (int i = 0; i < (n); ++i)

DEFINE_FORWARD_KERNEL(fwd_kernel, bool Is_dropout,
                      bool Is_causal) {                                         // :8
    compute_attn<Kernel_traits, Is_dropout, Is_causal>(params);                // :10
}

template <typename Kernel_traits>
void run_fwd(Params& params) {                                                 // :14
    auto kernel = &fwd_kernel<Kernel_traits, true, false>;
    kernel<<<1, 1>>>(params);                                                  // :16
}

template <typename Kernel_traits, bool Is_dropout, bool Is_causal>
__device__ void compute_attn(const Params& params) {                           // :20
    KERNEL_LOOP(i, 4) {
        step(i);
    }
}
} // namespace pytorch_flash
"""
ENTRY_CU = """\
#include <ATen/native/cuda/flash/launch_template.h>
namespace at::native {
Tensor flashy_cuda(const Tensor& self) {
  pytorch_flash::Params params;
  pytorch_flash::run_fwd<pytorch_flash::Traits>(params);                       // :5
  return self;
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("head_macros"), {
        N + "native_functions.yaml": YAML, N + "cuda/flash/launch_template.h": LAUNCH_H, N + "cuda/Entry.cu": ENTRY_CU})


def test_the_use_defines_the_function_the_macro_names(db):
    with sqlite3.connect(db) as conn:
        defs = conn.execute("SELECT qualified_name, kind, line, end_line, macro, template_params FROM definitions "
                            "WHERE file LIKE '%launch_template.h' ORDER BY line").fetchall()
        calls = conn.execute("SELECT caller, callee_name, line FROM calls WHERE file LIKE '%launch_template.h' "
                             "ORDER BY line").fetchall()
    assert defs[0][:5] == ("pytorch_flash::fwd_kernel", "global_kernel", 8, 11, "DEFINE_FORWARD_KERNEL")
    assert "Is_dropout:value" in defs[0][5]
    assert [d[0] for d in defs] == ["pytorch_flash::fwd_kernel", "pytorch_flash::run_fwd",
                                    "pytorch_flash::compute_attn"]  # no KERNEL_LOOP: a `for` head, not a definition
    # the body's call keeps its line (:10), under the function the macro names
    assert ("pytorch_flash::fwd_kernel", "compute_attn", 10) in calls
    assert ("pytorch_flash::compute_attn", "step", 22) in calls


def test_the_launch_through_a_pointer_reaches_the_kernel(db):
    [answer] = Index.open(db).kernels_for("flashy", ("CUDA",))
    [cuda] = answer.keys
    launched = [s for s in cuda.chain if s.kind == "global_kernel"]
    assert [(s.name, s.file, s.line) for s in launched] == [
        ("pytorch_flash::fwd_kernel", N + "cuda/flash/launch_template.h", 8)]
    [launch] = [s for s in cuda.chain if s.kind == "launch"]
    assert (launch.file, launch.line) == (N + "cuda/flash/launch_template.h", 16)
