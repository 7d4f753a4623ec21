"""A kernel defined more than once says, in its note, the #if guard each definition is under and which of
the others only raise: 2.6.0's cudnn_convolution is ConvShared.cpp:240 under AT_CUDNN_ENABLED(), and
ConvPlaceholders.cpp:27 under !AT_CUDNN_ENABLED() is a TORCH_CHECK(false, ...) placeholder
(queries/chain.Linker.candidates_note)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: cudnn_thing(Tensor self) -> Tensor
  dispatch:
    CUDA: cudnn_thing
"""
PLACEHOLDERS = """\
#if !AT_CUDNN_ENABLED()
namespace at::native {
Tensor cudnn_thing(const Tensor& self) {
  TORCH_CHECK(false, "cudnn_thing: ATen not compiled with cuDNN support");
}
} // namespace at::native
#endif
"""
SHARED = """\
#if AT_CUDNN_ENABLED()
namespace at::native {
Tensor
cudnn_thing(const Tensor& self) {
  auto handle = getCudnnHandle();
  cudnnConvolutionForward(handle);
  return self;
}
} // namespace at::native
#endif
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("guards"), {
        N + "native_functions.yaml": YAML, N + "cudnn/ConvPlaceholders.cpp": PLACEHOLDERS,
        N + "cudnn/ConvShared.cpp": SHARED})


def test_the_note_names_each_guard_and_the_placeholder(db: Path):
    from tg_index.queries.api import Index

    [answer] = Index.open(db).kernels_for("cudnn_thing", ("CUDA",))
    [cuda] = answer.keys
    # ConvShared.cpp's definition starts on line 3 and names the kernel on line 4: both point at line 4
    assert (cuda.definition.file, cuda.definition.line) == (N + "cudnn/ConvShared.cpp", 4)
    assert cuda.note == ("2 definitions of this name; chose by the key: ConvShared.cpp:4 (#if AT_CUDNN_ENABLED()); "
                         "not ConvPlaceholders.cpp:3 (#if !AT_CUDNN_ENABLED(); only raises: TORCH_CHECK; only a build "
                         "without cuDNN (USE_CUDNN=0) compiles it)")


# A kernel's definitions under #if guards: the key's build compiles one (vocab.DEVICE_BUILDS), whichever is longer
# or better placed. 2.6.0 miopen/BatchNorm_miopen.cpp: :24 a placeholder under `#if !AT_ROCM_ENABLED()`, MIOpen's
# kernel in the #else, which only a ROCm build compiles.
PER_BUILD_YAML = """\
- func: miopen_thing(Tensor self) -> Tensor
  dispatch:
    CUDA: miopen_thing

- func: cudnn_other(Tensor self) -> Tensor
  dispatch:
    CUDA: cudnn_other
"""
MIOPEN = """\
#if !AT_ROCM_ENABLED()
namespace at::native {
Tensor miopen_thing(const Tensor& self) {
  TORCH_CHECK(false, "miopen_thing: ATen not compiled with MIOpen support");
}
} // namespace at::native
#else
namespace at::native {
Tensor miopen_thing(const Tensor& self) {
  auto handle = getMiopenHandle();
  miopenBatchNormalizationForwardTraining(handle);
  miopenBatchNormalizationForwardInference(handle);
  return self;
}
} // namespace at::native
#endif
"""
# the placeholder is the longer one here, and both are in cudnn/: only the guard tells them apart
CUDNN_OTHER = """\
#if AT_CUDNN_ENABLED()
namespace at::native {
Tensor cudnn_other(const Tensor& self) { cudnnSoftmaxForward(getCudnnHandle()); return self; }
} // namespace at::native
#else
namespace at::native {
Tensor cudnn_other(const Tensor& self) {
  TORCH_CHECK(false,
              "cudnn_other: ATen not compiled with cuDNN support");
  return self;
}
} // namespace at::native
#endif
"""


@pytest.fixture(scope="module")
def per_build_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("per-build"), {
        N + "native_functions.yaml": PER_BUILD_YAML, N + "miopen/BatchNorm_miopen.cpp": MIOPEN,
        N + "cudnn/Other.cpp": CUDNN_OTHER})


def test_a_cuda_key_runs_the_definition_a_cuda_build_compiles(per_build_db: Path):
    from tg_index.queries.api import Index

    ix = Index.open(per_build_db)
    [miopen] = next(a for a in ix.kernels_for("miopen_thing", ("CUDA",)) if a.op == "miopen_thing").keys
    assert (miopen.definition.file, miopen.definition.line) == (N + "miopen/BatchNorm_miopen.cpp", 3)
    assert miopen.note == ("2 definitions of this name; chose by the key: BatchNorm_miopen.cpp:3 (#if !AT_ROCM_ENABLED(); "
                           "only raises: TORCH_CHECK); not BatchNorm_miopen.cpp:9 (#if AT_ROCM_ENABLED(); only a ROCm "
                           "build (AT_ROCM_ENABLED()) compiles it)")
    assert not miopen.chain  # the placeholder calls nothing but TORCH_CHECK; MIOpen's calls are not this build's
    [cudnn] = next(a for a in ix.kernels_for("cudnn_other", ("CUDA",)) if a.op == "cudnn_other").keys
    assert (cudnn.definition.file, cudnn.definition.line) == (N + "cudnn/Other.cpp", 3)
    assert [s.name for s in cudnn.chain if s.kind == "library"] == ["cudnnSoftmaxForward"]


@pytest.mark.parametrize("guard, plain", [
    ("!((!AT_CUDNN_ENABLED()))", "AT_CUDNN_ENABLED()"),  # cudnn/LossCTC.cpp:247's, the #else of `#if (!...)`
    ("(!AT_CUDNN_ENABLED())", "!AT_CUDNN_ENABLED()"),
    ("!(AT_POCKETFFT_ENABLED()) && AT_MKL_ENABLED()", "!(AT_POCKETFFT_ENABLED()) && AT_MKL_ENABLED()"),
    ("!(!A && B)", "!(!A && B)"),  # a negated conjunction stays
    ("!(A) || (B)", "!(A) || (B)"),
])
def test_guards_read_plainly(guard, plain):
    from tg_index.queries.chain import _plain_guard

    assert _plain_guard(guard) == plain
