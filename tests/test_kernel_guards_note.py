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
                         "not ConvPlaceholders.cpp:3 (#if !AT_CUDNN_ENABLED(); only raises: TORCH_CHECK)")


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
