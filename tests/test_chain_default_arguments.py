"""A branch that tests a parameter whose default value is a device is decided by the call where the call leaves the
parameter to its default (indexer/cxx/device_branches.py `_defaulted_parameter`, calls.forwards, queries/chain.py
`_defaulted`). 2.6.0 ScalarOps.h:31 `scalar_to_tensor(const Scalar& s, const Device device = at::kCPU)` makes a CPU
scalar without the dispatcher when `device == at::kCPU` (:35-:36) and calls at::scalar_tensor otherwise (:38);
wrapped_scalar_tensor (:43) hands its own `device = at::kCPU` on (:48), and add.Scalar's kernel calls it with the
scalar alone (BinaryOps.cpp:1159). A CUDA walk took the comparison for the key's device, and every Scalar overload's
CUDA brief named scalar_tensor; Pow.cpp:66 hands `exp.device()`, and there the key's device decides, as before.

The fixture is written here; each expected step is read in it (line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx
from tg_index.queries.api import Index

from .conftest import FIXTURES, built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: scalar_tensor(Scalar s, *, ScalarType? dtype=None, Device? device=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: scalar_tensor
- func: plus.Tensor(Tensor self, Tensor other) -> Tensor
  dispatch:
    CPU, CUDA: plus_kernel
- func: plus.Scalar(Tensor self, Scalar other) -> Tensor
  dispatch:
    CompositeExplicitAutograd: plus_scalar
- func: power.Scalar(Scalar self, Tensor exponent) -> Tensor
  dispatch:
    CompositeExplicitAutograd: power_scalar
"""
SCALAR_OPS_H = """\
namespace c10 {
inline at::Tensor scalar_to_tensor(const Scalar& s, const Device device = at::kCPU) {
  if (device == at::kCPU) {
    return at::detail::scalar_tensor_static(s, s.type(), at::kCPU);            // :4
  }
  return at::scalar_tensor(s, at::device(device).dtype(s.type()));             // :6
}
} // namespace c10
namespace at::native {
inline Tensor wrapped_scalar_tensor(const Scalar& scalar, const Device device = at::kCPU) {
  auto tensor = scalar_to_tensor(scalar, device);                              // :11
  return tensor;
}
} // namespace at::native
"""
SCALAR_STATIC_CPP = """\
namespace at::detail {
Tensor scalar_tensor_static(const Scalar& s, ScalarType dtype, Device device) {
  AT_DISPATCH_ALL_TYPES(dtype, "fill_scalar", [&] {
    fill(s.to<scalar_t>());
  });
  return Tensor();
}
} // namespace at::detail
"""
PLUS_CPP = """\
#include <ATen/ScalarOps.h>
namespace at::native {
Tensor plus_kernel(const Tensor& self, const Tensor& other) {
  AT_DISPATCH_ALL_TYPES(self.scalar_type(), "plus", [&] {
    self.data_ptr<scalar_t>()[0] = 0;
  });
  return self;
}
Tensor plus_scalar(const Tensor& self, const Scalar& other) {
  return at::plus(self, wrapped_scalar_tensor(other));                        // :10
}
Tensor power_scalar(const Scalar& base, const Tensor& exp) {
  return at::plus(wrapped_scalar_tensor(base, exp.device()), exp);            // :13
}
Tensor scalar_tensor(const Scalar& s, std::optional<ScalarType> dtype, std::optional<Device> device) {
  AT_DISPATCH_ALL_TYPES(s.type(), "scalar_tensor", [&] {
    fill(s.to<scalar_t>());
  });
  return Tensor();
}
} // namespace at::native
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory):
    keys = FIXTURES / "dispatch_keys"
    files = {str(p.relative_to(keys)): p.read_text() for p in (keys / "c10").rglob("*") if p.is_file()}
    db = built_tree(tmp_path_factory.mktemp("default_arguments"), {
        **files, N + "native_functions.yaml": YAML, "aten/src/ATen/ScalarOps.h": SCALAR_OPS_H,
        "aten/src/ATen/ScalarStatic.cpp": SCALAR_STATIC_CPP, N + "Plus.cpp": PLUS_CPP})
    return Index.open(db)


def _steps(ix: Index, op: str, key: str) -> list[tuple]:
    (answer,) = [a for a in ix.kernels_for(op, (key,)) if a.op == op]
    (found,) = answer.keys
    return [(s.kind, s.name, s.loc.line if s.loc else None) for s in found.chain]


def test_the_branch_and_the_forwarded_parameter_are_recorded():
    f = cxx.extract(SCALAR_OPS_H.encode(), "aten/src/ATen/ScalarOps.h")
    assert [(b.first_line, b.branch, b.not_on.split(",")[0], b.parameter, b.default_device)
            for b in f.device_branches] == [(4, "then", "CUDA", 1, "CPU"), (6, "after", "CPU", 1, "CPU")]
    assert [(c.line, c.forwards) for c in f.calls if c.callee == "scalar_to_tensor"] == [(11, "1:1")]


@pytest.mark.parametrize("key", ["CPU", "CUDA"])
def test_a_call_that_leaves_the_device_to_its_default_takes_the_default_s_branch(ix: Index, key: str):
    steps = _steps(ix, "plus.Scalar", key)
    assert ("call", "at::native::wrapped_scalar_tensor", 10) in steps  # ScalarOps.h:10, called at Plus.cpp:10
    assert ("call", "c10::scalar_to_tensor", 2) in steps  # ScalarOps.h:2, called at :11 with wrapped's `device`
    assert ("call", "at::detail::scalar_tensor_static", 2) in steps  # ScalarStatic.cpp:2, called at ScalarOps.h:4
    assert ("redispatch", "scalar_tensor", 6) not in steps  # ScalarOps.h:6 never runs: `device` is at::kCPU
    assert ("redispatch", "plus.Tensor", 10) in steps


def test_a_call_that_hands_a_device_leaves_the_branch_to_the_key(ix: Index):
    cuda = _steps(ix, "power.Scalar", "CUDA")
    assert ("redispatch", "scalar_tensor", 6) in cuda  # Plus.cpp:13 hands exp.device(): CUDA's on a CUDA walk
    assert ("call", "at::detail::scalar_tensor_static", 2) not in cuda
    cpu = _steps(ix, "power.Scalar", "CPU")
    assert ("call", "at::detail::scalar_tensor_static", 2) in cpu
    assert ("redispatch", "scalar_tensor", 6) not in cpu
