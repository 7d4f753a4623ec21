"""trace looks a member up in Python's method resolution order (C3), as Python does: 2.6.0's LazyBatchNorm1d
(torch/nn/modules/batchnorm.py:344) is `class LazyBatchNorm1d(_LazyNormBase, _BatchNorm)` with
`class _LazyNormBase(LazyModuleMixin, _NormBase)` (:293) and `class _BatchNorm(_NormBase)` (:142): its forward is
_BatchNorm.forward (:159), not Module.forward, which a depth-first walk of the bases (_LazyNormBase,
LazyModuleMixin, _NormBase, Module) meets first. `super().name` in a method of class C goes on in the instance's
MRO after C, not in C's own bases."""

from __future__ import annotations

from pathlib import Path

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

YAML = """\
- func: relu(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU: relu

- func: sigmoid(Tensor self) -> Tensor
  variants: function, method
  dispatch:
    CPU: sigmoid
"""
MODULE_PY = """\
class Module:
    def forward(self, *input):
        raise NotImplementedError
"""
NORM_PY = """\
import torch

from .module import Module


class _NormBase(Module):
    def reset(self):
        return None


class LazyMixin:
    def initialize(self):
        return None


class _LazyBase(LazyMixin, _NormBase):
    pass


class _Norm(_NormBase):
    def forward(self, input):
        return torch.relu(input)


class LazyNorm(_LazyBase, _Norm):
    pass


class _LazyForwarding(LazyMixin, _NormBase):
    def forward(self, input):
        return super().forward(input)


class LazyForwardingNorm(_LazyForwarding, _Norm):
    pass


class Bad(_NormBase, _Norm):
    def forward(self, input):
        return torch.sigmoid(input)
"""


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    return Index.open(built_tree(tmp_path_factory.mktemp("mro"), {
        "aten/src/ATen/native/native_functions.yaml": YAML, "torch/__init__.py": "",
        "torch/nn/__init__.py": "", "torch/nn/modules/__init__.py": "",
        "torch/nn/modules/module.py": MODULE_PY, "torch/nn/modules/norm.py": NORM_PY}))


def _forward_and_ops(ix: Index, name: str) -> tuple[str, list[str]]:
    found = ix.trace(f"torch.nn.modules.norm.{name}")
    [forward] = [h.name for h in found.hops if h.kind == "forward"]
    return forward.rsplit(".", 2)[-2] + "." + forward.rsplit(".", 1)[-1], [o.op for o in found.ops]


def test_a_diamond_s_forward_is_the_one_python_s_mro_finds(ix: Index):
    # MRO: LazyNorm, _LazyBase, LazyMixin, _Norm, _NormBase, Module
    assert _forward_and_ops(ix, "LazyNorm") == ("_Norm.forward", ["relu"])


def test_super_goes_on_after_the_defining_class_in_the_instance_s_mro(ix: Index):
    # LazyForwardingNorm's MRO: itself, _LazyForwarding, LazyMixin, _Norm, _NormBase, Module: the super().forward
    # of _LazyForwarding.forward is _Norm.forward (_LazyForwarding's own bases would give Module.forward)
    found = ix.trace("torch.nn.modules.norm.LazyForwardingNorm")
    assert [(h.kind, h.name.rsplit(".", 2)[-2] + "." + h.name.rsplit(".", 1)[-1]) for h in found.hops[1:3]] == [
        ("forward", "_LazyForwarding.forward"), ("call", "_Norm.forward")]
    assert [o.op for o in found.ops] == ["relu"]


def test_an_order_python_refuses_still_finds_the_class_s_own_members(ix: Index):
    # `class Bad(_NormBase, _Norm)` has no consistent MRO (Python raises TypeError): its own forward still answers
    assert _forward_and_ops(ix, "Bad") == ("Bad.forward", ["sigmoid"])
