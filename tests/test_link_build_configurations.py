"""One definition per build configuration (indexer/link/configurations.py and How.PER_BUILD in resolve.py):
definitions of one qualified name whose guards no build holds together, on a small checkout written in
tmp_path, and the exclusivity rule on guards as definitions.guard writes them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.link.configurations import build_reason, builds_without, exclusive, one_per_build

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: scale(Tensor self, Scalar factor) -> Tensor
  dispatch:
    CPU: scale_cpu
"""
WIDTH_H = """\
namespace at {
#if defined(CPU_CAPABILITY_AVX2)
inline int width() { return 8; }
#elif defined(CPU_CAPABILITY_AVX512)
inline int width() { return 16; }
#else
inline int width() { return 1; }
#endif
#ifdef USE_A
inline int pick(int x) { return x; }
#endif
#ifdef USE_B
inline int pick(int x) { return -x; }
#endif
#ifndef __aarch64__
inline int lanes() { return 4; }
#endif
#if defined(__aarch64__) && !defined(C10_MOBILE)
inline int lanes() { return 2; }
#endif
#if defined(CPU_CAPABILITY_AVX2)
inline int half(int x) { return x / 2; }
#endif
inline int half(int x) { return x >> 1; }
} // namespace at
"""
USER_CPP = """\
#include "Width.h"
namespace at {
namespace native {
int user() {
  return width() + pick(1) + lanes() + half(4);
}
} // namespace native
} // namespace at
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("configurations"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Width.h": WIDTH_H, N + "User.cpp": USER_CPP})


def test_definitions_under_exclusive_guards_are_one_per_build_configuration(db: Path):
    with sqlite3.connect(db) as conn:
        got = conn.execute(
            "SELECT e.target, e.how, d.line, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = 'at::native::user' AND e.kind = 'calls' "
            "ORDER BY e.id").fetchall()
    assert got == [
        # three branches of one #if/#elif/#else chain (Width.h:3, :5, :7): each build compiles one
        ("width", "per-build-configuration", 3, "3"),
        ("width", "per-build-configuration", 5, "3"),
        ("width", "per-build-configuration", 7, "3"),
        # USE_A and USE_B may both be defined: an overload set, as before
        ("pick", "overload-set", 10, "2"),
        ("pick", "overload-set", 13, "2"),
        # #ifndef __aarch64__ (:16) and a guard requiring __aarch64__ (:19)
        ("lanes", "per-build-configuration", 16, "2"),
        ("lanes", "per-build-configuration", 19, "2"),
        # the one at :24 has no guard: it is compiled with the AVX2 one (:22)
        ("half", "overload-set", 22, "2"),
        ("half", "overload-set", 24, "2")]


@pytest.mark.parametrize(("first", "second", "expected"), [
    ("defined(CPU_CAPABILITY_AVX2)", "!(defined(CPU_CAPABILITY_AVX2)) && defined(CPU_CAPABILITY_AVX512)", True),
    ("defined(CPU_CAPABILITY_AVX2)", "defined(CPU_CAPABILITY_AVX512)", True),  # one capability per compilation
    ("defined(CPU_CAPABILITY_AVX512)", "defined(CPU_CAPABILITY_SVE)", True),
    ("!defined(C10_MOBILE) && defined(__aarch64__)", "defined(CPU_CAPABILITY_AVX2)", True),  # arm and x86
    ("defined(__aarch64__)", "defined(CPU_CAPABILITY_SVE)", False),  # both on arm
    ("AT_MKLDNN_ENABLED()", "!(AT_MKLDNN_ENABLED())", True),
    ("!AT_MKLDNN_ENABLED()", "!(!AT_MKLDNN_ENABLED())", True),
    ("CUDA_VERSION >= 12000", "!(CUDA_VERSION >= 12000)", True),
    ("defined(USE_ROCM)", "defined(USE_CUDA)", False),  # nothing says they exclude each other
    ("defined(X) && defined(Y)", "!(defined(X) && defined(Y))", True),  # #if A && B ... #else
    ("defined(X)", "!(defined(X) && defined(Y))", False),  # X without Y compiles both
    ("defined(X) || defined(Y)", "!(defined(X) || defined(Y))", True),
    ("defined(X) && defined(Y) || defined(Z)", "!defined(X)", False),  # && binds first: Z alone holds with !X
    ("defined(X) && defined(Y) || defined(Z)", "!defined(X) && !defined(Z)", True),
    ("defined X", "!defined(X)", True),
    ("", "defined(X)", False),
    (None, "!defined(X)", False),
])
def test_exclusive_guards(first: str | None, second: str | None, expected: bool):
    assert exclusive(first, second) is expected
    assert exclusive(second, first) is expected


@pytest.mark.parametrize(("guard", "without", "reasons"), [
    ("defined(USE_ROCM) && ROCM_VERSION >= 60201", ["CUDA"], {"CUDA": "only a ROCm build (USE_ROCM) compiles"}),
    ("!defined(USE_ROCM)", ["HIP"], {"HIP": "a ROCm build (USE_ROCM) does not compile"}),
    # 2.6.0 ChanelShuffle.cpp:50, Activation.cpp:475: the xnnpack paths of Android and iOS builds
    # (a CPU key's chain is a desktop or server build's as well: vocab.BASE_BUILD)
    ("defined(C10_MOBILE) && defined(USE_XNNPACK)", ["CPU", "CUDA", "HIP"],
     {"CPU": "only an Android or iOS build (C10_MOBILE) compiles",
      "CUDA": "only an Android or iOS build (C10_MOBILE) compiles", "HIP": "only an Android or iOS build (C10_MOBILE) compiles"}),
    ("defined(USE_ROCM) && defined(C10_MOBILE)", ["CPU", "CUDA", "HIP"],
     {"CPU": "only an Android or iOS build (C10_MOBILE) compiles",
      "CUDA": "only a ROCm build (USE_ROCM) compiles, and only an Android or iOS build (C10_MOBILE) compiles",
      "HIP": "only an Android or iOS build (C10_MOBILE) compiles"}),
    # each alternative is another build's, neither alone is: the device's build as a whole does not compile it
    ("defined(USE_ROCM) || defined(C10_MOBILE)", ["CUDA"], {"CUDA": "a CUDA build does not compile"}),
    ("!defined(C10_MOBILE) && defined(USE_CUDA)", [], {}),
    ("defined(X) && !defined(X)", [], {}),  # never compiled at all (never_holds): no device in particular
    # CUDAConfig.h.in's macros (vocab.DEVICE_BUILDS): AT_ROCM_ENABLED() is USE_ROCM; AT_CUDNN_ENABLED() is USE_CUDNN,
    # on in a CUDA build, off in a ROCm one (2.6.0 miopen/BatchNorm_miopen.cpp:18, cudnn/BatchNorm.cpp:1's #else)
    ("!AT_ROCM_ENABLED()", ["HIP"], {"HIP": "a ROCm build (AT_ROCM_ENABLED()) does not compile"}),
    ("!(!AT_ROCM_ENABLED())", ["CUDA"], {"CUDA": "only a ROCm build (AT_ROCM_ENABLED()) compiles"}),
    ("(!AT_CUDNN_ENABLED())", ["CUDA"], {"CUDA": "only a build without cuDNN (USE_CUDNN=0) compiles"}),
    ("AT_CUDNN_ENABLED()", ["HIP"], {"HIP": "a ROCm build (no cuDNN) does not compile"}),
    ("defined(USE_ROCM) || !AT_CUDNN_ENABLED() || !defined(CUDNN_VERSION)", [], {}),  # CUDNN_VERSION: undecided
    # a ROCm build's flags define TORCH_HIP_VERSION with USE_ROCM (2.6.0 cmake/Dependencies.cmake:1037-1040):
    # c10/cuda/CUDAFunctions.h:92's hipMemcpyWithStream, the #else's cudaMemcpyAsync
    ("defined(TORCH_HIP_VERSION) && (TORCH_HIP_VERSION >= 301)", ["CUDA"],
     {"CUDA": "only a ROCm build (TORCH_HIP_VERSION) compiles"}),
    ("!(defined(TORCH_HIP_VERSION) && (TORCH_HIP_VERSION >= 301))", [],
     {}),  # a ROCm build older than 3.1 compiles it too
])
def test_the_devices_whose_build_does_not_compile_a_guard(guard: str, without: list[str], reasons: dict[str, str]):
    assert builds_without(guard) == without
    assert {device: build_reason(device, guard) for device in without} == reasons


def test_one_per_build_needs_every_pair_exclusive():
    chain = ["defined(A)", "!(defined(A)) && defined(B)", "!(defined(A)) && !(defined(B))"]
    assert one_per_build(chain) is True
    assert one_per_build([*chain, "defined(C)"]) is False
    assert one_per_build(["defined(A)"]) is False  # one definition is not a choice between configurations
