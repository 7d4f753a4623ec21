"""Two Python spellings trace followed wrongly:

- Tensor's own `self.to_sparse()` (2.6.0 torch/_tensor.py:1491, in to_sparse_coo): a method of the C TensorBase
  torch.Tensor derives from, which the Python facts do not hold, so the call reached nothing; it is the op's
  method variant, as `super().x()` in a Tensor subclass is.
- torch/functional.py:721 `istft = _add_docstr(torch.istft, ...)` binds the C function torch.istft was when the
  line ran; torch/__init__.py star-imports torch.functional later, so looking `torch.istft` up found the binding
  itself, and trace went round it ("see above") to no op."""

from __future__ import annotations

from pathlib import Path

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

YAML = """\
- func: to_sparse(Tensor self) -> Tensor
  variants: method

- func: istft(Tensor self, int n_fft) -> Tensor
  variants: function, method
"""
INIT_PY = """\
from torch._C import *
from torch import _C as _C
from torch._tensor import Tensor as Tensor

for __name in dir(_C._VariableFunctions):
    if __name.startswith("__"):
        continue
    globals()[__name] = getattr(_C._VariableFunctions, __name)

from torch.functional import *
"""
FUNCTIONAL_PY = """\
import torch
from torch._C import _add_docstr

__all__ = ["istft"]

istft = _add_docstr(torch.istft, "istft(input, n_fft) -> Tensor")
"""
TENSOR_PY = """\
import torch


class Tensor(torch._C.TensorBase):
    def to_sparse_coo(self):
        return self.to_sparse()

    def istft(self, n_fft):
        return torch.istft(self, n_fft)

    def storage_size(self):
        return self.untyped_storage_size()


class Buffer(Tensor):
    def sparse(self):
        return self.to_sparse()
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return Index.open(built_tree(tmp_path_factory.mktemp("tensor_self"), {
        "aten/src/ATen/native/native_functions.yaml": YAML, "torch/__init__.py": INIT_PY,
        "torch/functional.py": FUNCTIONAL_PY, "torch/_tensor.py": TENSOR_PY}))


def _hops(ix: Index, name: str) -> list[tuple]:
    return [(h.depth, h.kind, h.name, h.target) for h in ix.trace(name).hops]


def test_tensor_s_own_self_call_is_the_op_s_method_variant(ix: Index):
    assert _hops(ix, "torch.Tensor.to_sparse_coo") == [
        (0, "method", "torch._tensor.Tensor.to_sparse_coo", None), (1, "op", "to_sparse", "self.to_sparse")]
    assert [o.op for o in ix.trace("torch._tensor.Buffer.sparse").ops] == ["to_sparse"]  # a subclass's too
    # a TensorBase method no op answers stays unresolved, named as the C method it is
    [(_depth, kind, name, _target)] = _hops(ix, "torch.Tensor.storage_size")[1:]
    assert (kind, name) == ("unresolved", "torch._C.TensorBase.untyped_storage_size")


def test_a_binding_of_torch_s_own_name_binds_the_c_function(ix: Index):
    assert _hops(ix, "torch.istft") == [(0, "binding", "torch.functional.istft", None),
                                        (1, "op", "istft", "torch.istft")]
    assert _hops(ix, "torch.Tensor.istft") == [
        (0, "method", "torch._tensor.Tensor.istft", None), (1, "binding", "torch.functional.istft", "torch.istft"),
        (2, "op", "istft", "torch.istft")]
