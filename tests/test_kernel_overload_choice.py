"""Which of several same-named definitions implements an (op, key) (indexer/link/kernels.implementation).

- An optional schema type is passed as the C++ type it makes optional: 1.13.1's `var.correction(Tensor self,
  int[1]? dim, *, int? correction, bool keepdim=False)` (native_functions.yaml:5487, `CPU, CUDA: var`) is
  ReduceOps.cpp:1858 `var(const Tensor&, at::OptionalIntArrayRef, c10::optional<int64_t> correction, bool)`,
  not :1811 `var(const Tensor&, at::OptionalIntArrayRef, bool unbiased, bool)`, which has as many parameters and
  was chosen before; 2.6.0's `rand.names(..., Dimname[]? names, ...)` is TensorFactories.cpp:1861, not :882
  (`std::optional<Generator>` there).
- The registration names at::native::<kernel>: a same-named function at global scope is not it. 1.13.1's
  `isnan` (`CPU, CUDA, MPS: isnan`) for CUDA was torch/csrc/jit/codegen/cuda/runtime/helpers.cu:503, a template
  of nvfuser's runtime-compiled source, preferred for being a .cu file, not TensorCompare.cpp:301.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: spread.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor
  dispatch:
    CPU, CUDA: spread

- func: spread.names(Tensor self, *, Dimname[]? names, float? scale=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: spread

- func: isodd(Tensor self) -> Tensor
  dispatch:
    CPU, CUDA: isodd
"""
OPS = """\
namespace at::native {
Tensor spread(const Tensor& self, at::OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return at::spread(self, dim, c10::make_optional<int64_t>(unbiased ? 1 : 0), keepdim);
}

Tensor spread(const Tensor& self, at::OptionalIntArrayRef dim, c10::optional<int64_t> correction, bool keepdim) {
  return spread_impl(self, dim, correction, keepdim);
}

Tensor spread(const Tensor& self, std::optional<Generator> generator, std::optional<double> scale) {
  return self;
}

Tensor spread(const Tensor& self, std::optional<DimnameList> names, std::optional<double> scale) {
  return self;
}

Tensor isodd(const Tensor& self) {
  return self != self;
}
} // namespace at::native
"""
RUNTIME_HELPERS = """\
template <typename T>
bool isodd(T x) {
  return x != x;
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("overloads"), {
        N + "native_functions.yaml": YAML, N + "Spread.cpp": OPS,
        "torch/csrc/jit/codegen/cuda/runtime/helpers.cu": RUNTIME_HELPERS})


def _implements(db: Path) -> dict[str, tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return {k: (f, ln) for k, f, ln in conn.execute(
            "SELECT k.name, n.file, n.line FROM edges e JOIN nodes k ON k.id = e.src JOIN nodes n ON n.id = e.dst "
            "WHERE e.kind = 'implements'")}


def test_an_optional_schema_type_picks_the_overload_that_takes_it(db: Path):
    got = _implements(db)
    assert got["spread.correction CPU"] == (N + "Spread.cpp", 6)  # int? correction: c10::optional<int64_t>
    assert got["spread.correction CUDA"] == (N + "Spread.cpp", 6)
    assert got["spread.names CompositeExplicitAutograd"] == (N + "Spread.cpp", 14)  # Dimname[]?: optional<DimnameList>


def test_a_global_function_of_the_kernel_name_is_not_the_kernel(db: Path):
    got = _implements(db)
    assert got["isodd CUDA"] == (N + "Spread.cpp", 18)
    assert got["isodd CPU"] == (N + "Spread.cpp", 18)
