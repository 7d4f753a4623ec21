"""A receiver whose type is written without a qualifier names the class that the caller's namespaces declare, where
the checkout has several classes of the name (indexer/link/resolve.py _caller_classes_of); at's and c10's stay
candidates too, since receiver types are stored without at:: and c10::.

Modelled on 1.13.1, where caffe2/core/tensor.h:37 declares a second class Tensor that defines sizes(), dim() and
numel() itself, while at::Tensor (aten/src/ATen/templates/TensorBody.h:92) has them from at::TensorBase: at::native's
`self.sizes()` (Copy.cpp:55, on a `const Tensor& self`) went to caffe2::Tensor::sizes, 7,321 call sites in all.
Also modelled: torch/csrc/utils/invalid_arguments.cpp:94's Argument, a struct in an unnamed namespace inside torch,
which no other file can name; and 1.13.1 tensorexpr_init.cpp:25's `using namespace torch::jit::tensorexpr;` inside
torch::jit, where `For` names both torch::jit::For (frontend/tree_views.h) and tensorexpr::For."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .conftest import built_tree

N = "aten/src/ATen/native/"
TENSOR_H = """\
#pragma once
namespace at {
class TensorBase {
 public:
  long dim() const { return 0; }
  long numel() const { return 1; }
};
class Tensor : public TensorBase {
 public:
  Tensor contiguous() const { return *this; }
};
}
"""
CAFFE2_H = """\
#pragma once
namespace caffe2 {
class Tensor {
 public:
  int dim() const { return 0; }
  int numel() const { return 1; }
};
}
"""
KERNEL_CPP = """\
#include <ATen/Tensor.h>
namespace at { namespace native {
Tensor thing(const Tensor& self) {
  auto n = self.numel();
  auto d = self.dim();
  return self.contiguous();
}
} }
"""
CAFFE2_CC = """\
#include <caffe2/core/tensor.h>
namespace caffe2 {
int count(const Tensor& t) { return t.numel(); }
}
"""
SCHEMA_H = """\
#pragma once
namespace c10 {
struct Argument {
  const char* name() const { return ""; }
};
}
"""
INVALID_CPP = """\
namespace torch {
namespace {
struct Argument {
  const char* name() const { return "local"; }
};
}
}
"""
EMITTER_CPP = """\
#include <ATen/core/function_schema.h>
namespace torch { namespace jit {
const char* first(const Argument& arg) { return arg.name(); }
} }
"""
TREE_VIEWS_H = """\
#pragma once
namespace torch { namespace jit {
struct For { int range() const { return 0; } };
} }
"""
STMT_H = """\
#pragma once
namespace torch { namespace jit { namespace tensorexpr {
struct For { int var() const { return 1; } };
} } }
"""
BINDINGS_CPP = """\
#include <torch/csrc/jit/frontend/tree_views.h>
#include <torch/csrc/jit/tensorexpr/stmt.h>
namespace torch { namespace jit {
using namespace torch::jit::tensorexpr;
int bind(const For& loop) { return loop.var(); }
} }
"""
YAML = "- func: thing(Tensor self) -> Tensor\n  dispatch:\n    CPU: thing\n"


def _calls(db: Path) -> dict[tuple[str, str], tuple[str, str | None]]:
    with sqlite3.connect(db) as conn:
        return {(file.rsplit("/", 1)[-1], target): (how, dst) for file, target, how, dst in conn.execute(
            "SELECT e.file, e.target, e.how, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
            "WHERE e.kind = 'calls' AND e.target LIKE '%.%'")}


def test_a_receiver_type_is_the_class_the_callers_namespaces_name(tmp_path: Path):
    db = built_tree(tmp_path, {
        "aten/src/ATen/Tensor.h": TENSOR_H, "caffe2/core/tensor.h": CAFFE2_H, N + "Thing.cpp": KERNEL_CPP,
        "caffe2/core/count.cc": CAFFE2_CC, "aten/src/ATen/core/function_schema.h": SCHEMA_H,
        "torch/csrc/utils/invalid_arguments.cpp": INVALID_CPP, "torch/csrc/jit/frontend/ir_emitter.cpp": EMITTER_CPP,
        "torch/csrc/jit/frontend/tree_views.h": TREE_VIEWS_H, "torch/csrc/jit/tensorexpr/stmt.h": STMT_H,
        "torch/csrc/jit/tensorexpr/tensorexpr_init.cpp": BINDINGS_CPP, N + "native_functions.yaml": YAML})
    calls = _calls(db)
    # at::native's Tensor is at::Tensor: its own member, else at::TensorBase's (not caffe2::Tensor's, which defines
    # numel and dim itself)
    assert calls[("Thing.cpp", "self.numel")] == ("receiver-type", "at::TensorBase::numel")
    assert calls[("Thing.cpp", "self.dim")] == ("receiver-type", "at::TensorBase::dim")
    assert calls[("Thing.cpp", "self.contiguous")] == ("receiver-type", "at::Tensor::contiguous")
    # caffe2's Tensor is its own
    assert calls[("count.cc", "t.numel")] == ("receiver-type", "caffe2::Tensor::numel")
    # torch's file-local Argument is not what torch::jit names: c10's is (the type was written c10::Argument)
    assert calls[("ir_emitter.cpp", "arg.name")] == ("receiver-type", "c10::Argument::name")
    # `For` in torch::jit under a using-directive of torch::jit::tensorexpr is either class: the member decides
    assert calls[("tensorexpr_init.cpp", "loop.var")] == ("receiver-type", "torch::jit::tensorexpr::For::var")
