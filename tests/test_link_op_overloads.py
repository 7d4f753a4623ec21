"""A call through the dispatcher names the op overloads its C++ arguments can bind, not every overload of its
argument count: `indices.gather(dim, sorted)` with `int64_t dim` is gather, not gather.dimname (2.6.0
native/cuda/TensorTopK.cpp:90); `at::mul(self, 2)` is mul.Scalar; `at::_ops::add_Tensor::call` names add.Tensor
alone. The C++ order of the arguments is torchgen's: a method without self, `at::foo_out` with its out= arguments
first, `at::foo_outf` in the schema's order. Of the overloads left, the one whose conversions C++ ranks best wins
(an int64_t binds int64_t exactly, an IntArrayRef through its constructor). The fixture is written here; its line numbers are the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
KERNEL = """\
namespace at::native {
Tensor& top(const Tensor& values, Tensor& indices, int64_t dim, Tensor& sorted) {
  indices.copy_(indices.gather(dim, sorted));
  Tensor twice = at::mul(values, 2);
  Tensor both = at::mul(values, sorted);
  Tensor through = at::_ops::add_Tensor::call(values, sorted, 1);
  at::mul_out(sorted, values, 2);
  at::mul_outf(values, 2, sorted);
  Tensor unknown = at::mul(values, mystery());
  Tensor made = at::mul(values, values.sizes());
  Dimname name = Dimname::wildcard();
  Tensor named = values.gather(name, sorted);
  indices.squeeze_(dim);
  Tensor once = at::repeat_like(values, 2);
  Tensor sym = at::repeat_like_symint(values, 2);
  at::TensorOptions opts = values.options();
  Tensor moved = values.to(opts, false, false);
  Tensor cast = values.to(at::kFloat, false, false);
  ScalarType half = ScalarType::Half;
  Tensor halved = values.to(half);
  return indices;
}
}
"""
YAML = """\
- func: top(Tensor values, Tensor(a!) indices, int dim, Tensor sorted) -> Tensor(a!)
  dispatch:
    CPU: top
- func: gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
  variants: method, function
- func: gather.dimname(Tensor self, Dimname dim, Tensor index, *, bool sparse_grad=False) -> Tensor
  variants: method, function
- func: copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
  variants: method
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
- func: mul.Scalar(Tensor self, Scalar other) -> Tensor
  variants: function, method
- func: mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
- func: mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)
- func: squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)
  variants: method
- func: squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)
  variants: method
- func: repeat_like.n(Tensor self, SymInt n) -> Tensor
- func: repeat_like.sizes(Tensor self, int[] sizes) -> Tensor
- func: to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, \
bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
  variants: method
- func: to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, \
MemoryFormat? memory_format=None) -> Tensor(a)
  variants: method
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
- func: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
  variants: function, method
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("op_overloads"), {
        f"{N}Top.cpp": KERNEL, f"{N}native_functions.yaml": YAML})


def _ops(db: Path, line: int, callee: str) -> list[tuple[str, str | None]]:
    """(op name, detail) of each redispatch edge the call on that line of Top.cpp has."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT n.name, e.detail FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.kind = 'redispatches-to-op' "
            "AND e.file = ? AND e.line = ? AND e.target = ? ORDER BY n.name", (f"{N}Top.cpp", line, callee)).fetchall()


def test_an_int_is_no_dimname(db: Path) -> None:
    assert _ops(db, 3, "indices.gather") == [("gather", "Tensor method; the argument types keep 1 of 2 overloads")]


def test_a_dimname_is_no_int(db: Path) -> None:
    assert [o for o, _ in _ops(db, 12, "values.gather")] == ["gather.dimname"]


def test_a_number_is_no_tensor_and_a_tensor_no_scalar(db: Path) -> None:
    assert _ops(db, 4, "at::mul") == [("mul.Scalar", "the argument types keep 1 of 2 overloads")]
    assert [o for o, _ in _ops(db, 5, "at::mul")] == ["mul.Tensor"]


def test_an_ops_struct_names_one_op(db: Path) -> None:
    assert _ops(db, 6, "at::_ops::add_Tensor::call") == [("add.Tensor", None)]


def test_out_arguments_come_first_in_foo_out_and_last_in_foo_outf(db: Path) -> None:
    assert [o for o, _ in _ops(db, 7, "at::mul_out")] == ["mul.Scalar_out"]
    assert [o for o, _ in _ops(db, 8, "at::mul_outf")] == ["mul.Scalar_out"]


def test_an_unknown_argument_rules_out_nothing(db: Path) -> None:
    assert _ops(db, 9, "at::mul") == [("mul.Scalar", "2 overloads fit"), ("mul.Tensor", "2 overloads fit")]
    assert [o for o, _ in _ops(db, 10, "at::mul")] == ["mul.Scalar", "mul.Tensor"]  # values.sizes(): type not known



def test_a_standard_conversion_beats_a_constructor(db: Path) -> None:
    assert _ops(db, 13, "indices.squeeze_") == [("squeeze_.dim", "Tensor method; the argument types keep 1 of 2 overloads")]
    assert [o for o, _ in _ops(db, 14, "at::repeat_like")] == ["repeat_like.n"]


def test_a_symint_function_takes_a_symint_by_its_constructor(db: Path) -> None:
    """at::repeat_like_symint(x, 2): 2 becomes a c10::SymInt through a constructor, as it becomes an IntArrayRef
    for the other overload; neither is better (a real call would not compile), and both stay."""
    assert [o for o, _ in _ops(db, 15, "at::repeat_like_symint")] == ["repeat_like.n", "repeat_like.sizes"]


def test_a_factory_takes_its_tensor_options_as_one_argument_too(db: Path) -> None:
    """torchgen writes to.dtype_layout's method twice: to(dtype, layout, device, pin_memory, non_blocking, copy, ...)
    and to(TensorOptions options, non_blocking, copy, ...). A TensorOptions binds the second only; a ScalarType
    (of no class here) with two bools fits to.dtype and the second form of to.dtype_layout, and both stay."""
    assert [o for o, _ in _ops(db, 17, "values.to")] == ["to.dtype_layout"]
    assert [o for o, _ in _ops(db, 18, "values.to")] == ["to.dtype", "to.dtype_layout"]


def test_a_scalar_type_binds_a_scalar_type_before_the_tensor_options_made_of_it(db: Path) -> None:
    """values.to(half), half a ScalarType: to.dtype takes it as it is, to.dtype_layout through an optional or a
    TensorOptions constructor."""
    assert [o for o, _ in _ops(db, 20, "values.to")] == ["to.dtype"]
