"""A type parameter deduced at a call site is a type: `U(...)` with it constructs an object of that class, and
never calls a function that has the class's name. 2.6.0 cuda/Pow.cuh:54 calls `c10_complex_math::pow(base,
exp)` with two `c10::complex<T>` parameters, which deduces c10/util/complex_math.h:128's U as `complex<T>` (the
declared type as calls.arg_types writes it, without `c10::`); complex_math.h:129's return type writes `U()`,
and the rewritten `complex<T>()`, looked up from Pow.cuh inside at::native, found the op function
at::native::complex (TensorFactories.cpp:218): the fused Adam's CUDA chains showed a redispatch to complex.out
below `pow`. A deduced binding now keeps only what constructs or runs the class (its constructors, its
members); `T(...)` with T deduced as a class of the checkout keeps reaching that class's constructor.

Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3

import pytest

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: complex(Tensor real, Tensor imag) -> Tensor
  dispatch:
    CPU: complex
"""
CMATH_H = """\
#pragma once
namespace c10 {
template <typename T> struct complex {
  complex(T re) : re_(re) {}                                                   // :4
  T re_;
};
}
namespace cmath {
template <typename T, typename U>
T scale(const T& x, const U& y) {                                              // :10
  return x * U(2);                                                             // :11
}
template <typename T>
T make(const T& like) {                                                        // :14
  return T(1);                                                                 // :15
}
}
"""
POW_H = """\
#pragma once
#include <c10/util/cmath.h>
namespace at::native {
template <typename T>
c10::complex<T> pow_(c10::complex<T> base, c10::complex<T> exp) {              // :5
  return cmath::scale(base, exp);                                              // :6
}
inline void make_one() {
  cmath::make(c10::complex<float>(1.0f));                                      // :9
}
}
"""
FACTORIES_CPP = """\
#include <ATen/native/Pow.h>
namespace at::native {
Tensor complex(const Tensor& real, const Tensor& imag) {                       // :3
  return at::empty({0}, real.options());
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("deduced_construction"), {
        N + "native_functions.yaml": YAML, "c10/util/cmath.h": CMATH_H, N + "Pow.h": POW_H,
        N + "Factories.cpp": FACTORIES_CPP})


def _targets(db, caller: str, line: int) -> set[str | None]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute(
            "SELECT d.name FROM edges e JOIN nodes s ON s.id = e.src LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE s.name = ? AND e.line = ? AND e.kind = 'calls'", (caller, line))}


def test_a_deduced_type_constructed_calls_no_function_of_its_name(db):
    # cmath.h:11 `U(2)`, U = complex<T> deduced at Pow.h:6: not at::native::complex (Factories.cpp:3)
    assert "at::native::complex" not in _targets(db, "cmath::scale", 11)


def test_a_deduced_class_constructed_reaches_its_constructor(db):
    # cmath.h:15 `T(1)`, T = c10::complex<float> deduced at Pow.h:9: its constructor (cmath.h:4)
    assert _targets(db, "cmath::make", 15) == {"c10::complex::complex"}
