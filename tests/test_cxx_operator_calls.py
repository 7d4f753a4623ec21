"""Operator expressions as the calls C++ makes of them ([over.match.oper]): `self != self` on Tensors calls the
at::operator!= that TensorOperators.h defines (2.6.0 native/TensorCompare.cpp:362 `return self != self;`, the
whole body of isnan), `a += b` a member operator of the left operand's class, `-a` its unary one. An expression
whose operands all have built-in types calls nothing and leaves no row; several operators one macro use defines on
one line each hold what that line calls. doctor counts operator expressions apart from the calls written. The
fixture is written here; its line numbers are the expected ones."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
TENSOR = """\
namespace at {
class Tensor {
 public:
  Tensor ne(const Tensor& other) const;
  Tensor neg() const;
  Tensor& add_(const Tensor& other);
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor operator-() const { return neg(); }
};
}
"""
OPERATORS = """\
#include <ATen/core/Tensor.h>
namespace at {
#define FOR_EACH_OP(_) _(!=, x.ne(y))
#define DEFINE_OP(op, body) \\
  inline Tensor operator op(const Tensor& x, const Tensor& y) { return body; } \\
  inline Tensor operator op(const Tensor& x, const Scalar& y) { return body; }
FOR_EACH_OP(DEFINE_OP)
}
"""
KERNEL = """\
#include <ATen/TensorOperators.h>
namespace at::native {
Tensor isnan_like(const Tensor& self) {
  return self != self;
}
Tensor& accumulate(Tensor& acc, const Tensor& x) {
  acc += x;
  return acc;
}
Tensor negated(const Tensor& x) {
  return -x;
}
int64_t arithmetic(int64_t n, double scale) {
  int64_t m = n * 2 + 1;
  return m < n ? m : -n;
}
}
"""
YAML = """\
- func: isnan_like(Tensor self) -> Tensor
  dispatch:
    CPU: isnan_like
- func: ne.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU: ne_cpu
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("operator_calls"), {
        "aten/src/ATen/core/Tensor.h": TENSOR, "aten/src/ATen/TensorOperators.h": OPERATORS,
        f"{N}Ops.cpp": KERNEL, f"{N}native_functions.yaml": YAML})


def _calls(db: Path, caller: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT callee, line, argc, arg_types FROM calls WHERE caller = ? ORDER BY id",
                            (caller,)).fetchall()


def _edges(db: Path, caller: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.kind, e.line, e.how, e.target, d.name, d.line FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? ORDER BY e.id", (caller,)).fetchall()


def test_operator_expressions_on_class_operands_are_calls(db: Path) -> None:
    assert _calls(db, "at::native::isnan_like") == [("operator!=", 4, 2, json.dumps(["Tensor&", "Tensor&"],
                                                                                     separators=(",", ":")))]
    assert [c[:3] for c in _calls(db, "at::native::accumulate")] == [("operator+=", 7, 2)]
    assert [c[:3] for c in _calls(db, "at::native::negated")] == [("operator-", 11, 1)]


def test_built_in_operands_leave_no_row(db: Path) -> None:
    assert _calls(db, "at::native::arithmetic") == []


def test_a_non_member_operator_is_found_by_the_operand_types(db: Path) -> None:
    # two at::operator!= on TensorOperators.h:7; the operands (Tensor, Tensor) pick the first
    assert _edges(db, "at::native::isnan_like") == [("calls", 4, "argument-types", "operator!=", "at::operator!=", 7)]


def test_member_operators_of_the_left_operand(db: Path) -> None:
    assert _edges(db, "at::native::accumulate") == [("calls", 7, "receiver-type", "operator+=",
                                                     "at::Tensor::operator+=", 7)]
    assert _edges(db, "at::native::negated") == [("calls", 11, "receiver-type", "operator-", "at::Tensor::operator-", 8)]


def test_each_operator_of_one_macro_line_holds_its_calls(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        held = conn.execute("SELECT s.id, e.target FROM nodes s JOIN edges e ON e.src = s.id "
                            "WHERE s.name = 'at::operator!=' AND e.kind = 'redispatches-to-op' ORDER BY s.id").fetchall()
        nodes = conn.execute("SELECT count(*) FROM nodes WHERE name = 'at::operator!='").fetchone()[0]
    assert nodes == 2
    assert len({src for src, _target in held}) == 2 and {t for _s, t in held} == {"x.ne"}


def test_the_chain_goes_through_the_operator_to_the_op(db: Path) -> None:
    [answer] = Index.open(db).kernels_for("isnan_like", keys=("CPU",))
    steps = [(str(s.kind), s.name) for s in answer.keys[0].chain]
    assert ("call", "at::operator!=") in steps
    assert ("redispatch", "ne.Tensor") in steps


def test_doctor_counts_operator_expressions_apart(db: Path) -> None:
    calls = Index.open(db).doctor().calls
    assert dict(calls.operators) == {"argument-types": 1, "receiver-type": 2}
    with sqlite3.connect(db) as conn:
        written = conn.execute("SELECT count(DISTINCT src || file || line || target) FROM edges WHERE "
                               "substr(file, 1, 21) = ? AND kind IN ('calls', 'redispatches-to-op') AND "
                               "target NOT LIKE 'operator%'", (N,)).fetchone()[0]
    assert calls.sites == written
