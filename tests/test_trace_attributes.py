"""trace follows a call of a module's submodule: 2.6.0 TransformerDecoderLayer._sa_block calls
`self.self_attn(x, x, x, ...)` (torch/nn/modules/transformer.py:1128), the MultiheadAttention its __init__
assigned (`self.self_attn = MultiheadAttention(...)`, :1012); calling it runs MultiheadAttention.forward
(Module.__call__). py_attributes holds each such assignment; a function's result is not typed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

YAML = """\
- func: relu(Tensor self) -> Tensor
  variants: function, method

- func: sigmoid(Tensor self) -> Tensor
  variants: function, method

- func: tanh(Tensor self) -> Tensor
  variants: function, method
"""
MODULE_PY = """\
class Module:
    def __call__(self, *args):
        return self.forward(*args)
"""
ACT_PY = """\
import torch

from .module import Module


class ReLU(Module):
    def forward(self, input):
        return torch.relu(input)


class Sigmoid(Module):
    def forward(self, input):
        return torch.sigmoid(input)


class Scaled(ReLU):
    def forward(self, input):
        return self.inner(super().forward(input))

    def inner(self, x):
        return torch.tanh(x)
"""
LAYER_PY = """\
from .activation import ReLU, Scaled, Sigmoid
from .module import Module


def _pick(name):
    return ReLU()


class Layer(Module):
    def __init__(self, gated: bool):
        super().__init__()
        self.act = ReLU()
        self.gate: Module = Sigmoid() if gated else Scaled()
        self.picked = _pick("relu")

    def forward(self, x):
        return self._block(x) + self.picked(x)

    def _block(self, x):
        return self.gate(self.act(x))


class Deeper(Layer):
    pass


class Function:
    @staticmethod
    def forward(ctx, x):
        ctx.saved = Sigmoid()
        return x
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("attributes"), {
        "aten/src/ATen/native/native_functions.yaml": YAML, "torch/__init__.py": "", "torch/nn/__init__.py": "",
        "torch/nn/modules/__init__.py": "", "torch/nn/modules/module.py": MODULE_PY,
        "torch/nn/modules/activation.py": ACT_PY, "torch/nn/modules/layer.py": LAYER_PY})


def test_the_assignments_are_facts(db: Path):
    """Not a static method's: autograd.Function's `ctx.x = ...` (2.6.0 torch/autograd/_functions/tensor.py:19)
    sets an attribute of ctx, not of the class's instances."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT cls, name, target, method, line FROM py_attributes ORDER BY line, target").fetchall()
    layer, act = "torch.nn.modules.layer.Layer", "torch.nn.modules.activation"
    assert rows == [(layer, "act", f"{act}.ReLU", f"{layer}.__init__", 12),
                    (layer, "gate", f"{act}.Scaled", f"{layer}.__init__", 13),
                    (layer, "gate", f"{act}.Sigmoid", f"{layer}.__init__", 13),
                    (layer, "picked", "torch.nn.modules.layer._pick", f"{layer}.__init__", 14)]


def test_a_submodule_call_runs_its_forward_with_the_submodule_as_self(db: Path):
    ix = Index.open(db)
    for name in ("Layer", "Deeper"):  # an inherited __init__'s attributes too
        found = ix.trace(f"torch.nn.modules.layer.{name}")
        calls = [(h.depth, h.name.rsplit(".", 2)[-2] + "." + h.name.rsplit(".", 1)[-1], h.target)
                 for h in found.hops if h.kind == "call"]
        assert calls == [(2, "Layer._block", "self._block"),
                         (3, "Sigmoid.forward", "self.gate"), (3, "Scaled.forward", "self.gate"),
                         # Scaled's own self.inner and super().forward: Scaled is self there, not Layer
                         (4, "Scaled.inner", "self.inner"), (4, "ReLU.forward", "super().forward"),
                         (3, "ReLU.forward", "self.act")], name
        assert sorted(o.op for o in found.ops) == ["relu", "sigmoid", "tanh"], name
        # self.picked holds what a function returns: not typed, no hop
        assert not any(h.target == "self.picked" for h in found.hops), name
