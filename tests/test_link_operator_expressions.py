"""An arithmetic operator expression has the type of what its operator function returns. The extractor writes it
as the call of that function (`a0 - b0` -> `decltype(operator-(std::declval<A>(),std::declval<B>()))`); the link
stage resolves it as it resolves an operator call of a body, then follows a member chain on it:
`(a0 - b0).abs().neg().exp().log1p()` in logaddexp's vectorised lambda (2.6.0
aten/src/ATen/native/cpu/BinaryOpsKernel.cpp:1022) is Vectorized<float>'s methods, whose bodies call Sleef, not the
ops abs, neg, exp and log1p through the dispatcher.

Overload resolution of the operator on two Vectorized<float> follows C++: ordinary lookup from at::native finds
utils.h's `operator-(const Vec2&, const Vec2&)` (2.6.0 aten/src/ATen/native/cpu/utils.h:89), argument-dependent
lookup adds vec_base.h's `template <class T> operator-(const Vectorized<T>&, const Vectorized<T>&)`; the template
takes both operands exactly, Vec2's would need a conversion (Vec2(float) at utils.h:62 takes no Vectorized), so
the template is the call's. A `Vectorized<T>` parameter is never deduced from a Vec2. Built-in operands give the
usual arithmetic conversions' type. The fixture is written here; its line numbers are the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .conftest import built_tree

VEC = """\
namespace at::vec {
inline namespace CPU_CAPABILITY {
template <typename T> class Vectorized {
 public:
  Vectorized<T> abs() const { return *this; }
  Vectorized<T> neg() const { return *this; }
};
template <class T> Vectorized<T> inline operator-(const Vectorized<T>& a, const Vectorized<T>& b) { return a; }
template <class T> Vectorized<T> inline operator*(const Vectorized<T>& a, const Vectorized<T>& b) { return a; }
template <typename T> std::tuple<Vectorized<float>, Vectorized<float>> convert_to_float(const Vectorized<T>& a) {
  return {};
}
template <> class Vectorized<double> {
 public:
  Vectorized<double> abs() const { return *this; }
  Vectorized<double> neg() const { return *this; }
  Vectorized<double> maximum(const Vectorized<double>& b) const { return *this; }
};
template <> class Vectorized<int> {
 public:
  Vectorized<int> maximum(const Vectorized<int>& b) const { return *this; }
};
}
}
"""
UTILS = """\
#include <ATen/cpu/vec/vec.h>
namespace at::native {
inline namespace CPU_CAPABILITY {
using namespace vec;
struct Vec2 {
  Vectorized<float> val0, val1;
  Vec2(float v) : val0(v), val1(v) {}
  Vec2 neg() const { return *this; }
};
inline Vec2 operator-(const Vec2& a, const Vec2& b) { return a; }
inline Vec2 operator*(const Vec2& a, const Vec2& b) { return a; }
inline Vec2 maximum(const Vec2& a, const Vec2& b) { return a; }
template <typename T> inline Vectorized<T> maximum(const Vectorized<T>& a, const Vectorized<T>& b) { return a; }
}
}
"""
KERNEL = """\
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/cpu/utils.h>
namespace at::native {
namespace {
using namespace vec;
void kern(Vectorized<BFloat16> a, Vec2 p, Vec2 q, int64_t n, const Tensor& self) {
  Vectorized<float> x, y;
  auto [a0, a1] = convert_to_float<BFloat16>(a);
  x - y;
  (a0 - a1).abs().neg();
  (p - q).neg();
  auto d = x * y;
  d.abs();
  self.narrow(0, n - 1, 2);
  (x * y - x).neg();
  maximum(p, 1.0f);
}
}
}
"""
DIST = """\
#include <ATen/cpu/vec/vec.h>
#include <ATen/native/cpu/utils.h>
namespace at::native {
namespace {
using namespace vec;
template <typename scalar_t> struct Dist {
  using Vec = Vectorized<scalar_t>;
  static Vec backward(const Vec& diff, const Vec& p) { return (diff.abs() - p).neg(); }
  static Vec clamp(const Vec& diff, const Vec& p) { return diff.maximum(p).neg(); }
};
}
}
"""
YAML = """\
- func: abs(Tensor self) -> Tensor
  variants: function, method
- func: neg(Tensor self) -> Tensor
  variants: function, method
- func: narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
  variants: function, method
- func: narrow.Tensor(Tensor(a) self, int dim, Tensor start, SymInt length) -> Tensor(a)
  variants: function, method
"""
N = "aten/src/ATen/native/cpu/Kern.cpp"
D = "aten/src/ATen/native/cpu/Dist.cpp"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("operator_expressions"), {
        "aten/src/ATen/cpu/vec/vec.h": VEC, "aten/src/ATen/native/cpu/utils.h": UTILS, N: KERNEL, D: DIST,
        "aten/src/ATen/native/native_functions.yaml": YAML})


def _edges(db: Path, line: int, file: str = N) -> set[tuple[str, str, str, str | None]]:
    """(callee as written, kind, how, target node) of the edges written on that line of Kern.cpp (or file)."""
    with sqlite3.connect(db) as conn:
        return set(conn.execute("SELECT e.target, e.kind, e.how, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
                                "WHERE e.file = ? AND e.line = ?", (file, line)))


def test_the_extractor_writes_an_operator_expression_as_its_call(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute("SELECT callee, receiver_type FROM calls WHERE file = ? AND line = 10", (N,)))
    binding = "std::declval<decltype(std::get<{}>(convert_to_float<BFloat16>(a)))&>()"
    assert got["(a0-a1).abs"] == f"decltype(operator-({binding.format(0)},{binding.format(1)}))"


def test_the_exact_template_beats_a_conversion(db: Path) -> None:
    assert _edges(db, 9) == {("operator-", "calls", "argument-types", "at::vec::CPU_CAPABILITY::operator-")}


def test_a_chain_on_an_operator_expression_is_the_class_s_methods(db: Path) -> None:
    assert _edges(db, 10) == {
        ("operator-", "calls", "argument-types", "at::vec::CPU_CAPABILITY::operator-"),
        ("(a0-a1).abs", "calls", "receiver-type", "at::vec::CPU_CAPABILITY::Vectorized::abs"),
        ("(a0-a1).abs().neg", "calls", "receiver-type", "at::vec::CPU_CAPABILITY::Vectorized::neg")}


def test_operands_of_a_class_in_another_namespace_see_its_operators(db: Path) -> None:
    # ordinary lookup finds utils.h's operator-; Vec2's namespace adds nothing else
    assert _edges(db, 11) == {
        ("operator-", "calls", "same-namespace", "at::native::CPU_CAPABILITY::operator-"),
        ("(p-q).neg", "calls", "receiver-type", "at::native::CPU_CAPABILITY::Vec2::neg")}


def test_a_class_template_parameter_is_not_deduced_from_another_class(db: Path) -> None:
    # maximum(const Vectorized<T>&, ...) cannot take a Vec2; Vec2's takes 1.0f through Vec2(float)
    assert _edges(db, 16) == {("maximum", "calls", "argument-types", "at::native::CPU_CAPABILITY::maximum")}
    with sqlite3.connect(db) as conn:
        (line,) = conn.execute("SELECT n.line FROM edges e JOIN nodes n ON n.id = e.dst WHERE e.file = ? AND e.line = 16",
                               (N,)).fetchone()
    assert line == 12  # Vec2's, not the template's at :13


def test_an_auto_variable_initialised_by_an_operator_expression(db: Path) -> None:
    assert _edges(db, 13) == {("d.abs", "calls", "receiver-type", "at::vec::CPU_CAPABILITY::Vectorized::abs")}


def test_built_in_operands_give_a_number(db: Path) -> None:
    # `n - 1` is an int64_t: no Tensor, so narrow.Tensor is ruled out
    assert _edges(db, 14) == {("self.narrow", "redispatches-to-op", "op", "narrow")}


def test_an_operator_expression_among_the_operands(db: Path) -> None:
    # `x * y - x`: operator- of what operator* returns and a Vectorized<float>
    assert _edges(db, 15) == {
        ("operator*", "calls", "argument-types", "at::vec::CPU_CAPABILITY::operator*"),
        ("operator-", "calls", "argument-types", "at::vec::CPU_CAPABILITY::operator-"),
        ("(x*y-x).neg", "calls", "receiver-type", "at::vec::CPU_CAPABILITY::Vectorized::neg")}


def test_operands_through_a_type_alias_and_a_dependent_class(db: Path) -> None:
    # `const Vec&` is a Vectorized<scalar_t> (the class's alias): the operator is the template, and diff.abs() of
    # the primary and its Vectorized<double> specialisation returns Vectorized<scalar_t> (the primary's, bound)
    got = _edges(db, 8, D)
    assert ("operator-", "calls", "argument-types", "at::vec::CPU_CAPABILITY::operator-") in got
    assert {n for t, _k, _h, n in got if t == "(diff.abs()-p).neg"} == {
        "at::vec::CPU_CAPABILITY::Vectorized::neg", "at::vec::CPU_CAPABILITY::Vectorized<double>::neg"}
    assert not any(kind == "redispatches-to-op" for _t, kind, _h, _n in got)


def test_specialisations_that_each_return_their_own_class(db: Path) -> None:
    # Vectorized<double>::maximum and Vectorized<int>::maximum, none in the primary (as the quantized
    # specialisations' maximum, 2.6.0 aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp:966):
    # the result is the receiver's class, so .neg() is Vectorized's
    got = _edges(db, 9, D)
    assert {n for t, _k, _h, n in got if t == "diff.maximum(p).neg"} == {
        "at::vec::CPU_CAPABILITY::Vectorized::neg", "at::vec::CPU_CAPABILITY::Vectorized<double>::neg"}
    assert not any(kind == "redispatches-to-op" for _t, kind, _h, _n in got)

