"""A functional cast to a built-in type (`float(h)`, `int64_t(n)`) is the type class, never a call of a
definition; an out-of-class conversion operator that tree-sitter reads as the type `Half::operator` is
named `operator float`, in its class (definitions.conversion_owner, resolve.py rule 0)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tg_index.indexer import cxx

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: widen(Tensor self) -> Tensor
"""
HALF_H = """\
namespace c10 {
struct Half {
  unsigned short x;
  operator float() const;
};
inline C10_HOST_DEVICE Half::operator float() const {
  return 0.0f;
}
inline Half::operator sycl::half() const {
  return x;
}
} // namespace c10
"""
USER_CPP = """\
#include "Half.h"
namespace c10 {
float widen(Half h, long n) {
  auto a = float(h);
  auto b = int64_t(n) + unsigned(n);
  return a + double(b);
}
} // namespace c10
"""


def test_an_out_of_class_conversion_operator_is_named_operator_t_in_its_class():
    facts = cxx.extract(HALF_H.encode(), "c10/util/Half.h")
    assert [(d.name, d.qualified_name, d.kind, d.signature, d.line, d.returns) for d in facts.definitions] == [
        ("operator float", "c10::Half::operator float", "device_function", "Half::operator float() const", 6,
         "float"),
        ("operator sycl::half", "c10::Half::operator sycl::half", "method", "Half::operator sycl::half() const", 9,
         "sycl::half"),
    ]


def test_a_functional_cast_to_a_built_in_type_is_the_type_class(tmp_path: Path):
    db = built_tree(tmp_path, {"version.txt": "2.6.0\n", N + "native_functions.yaml": YAML,
                               N + "Half.h": HALF_H, N + "User.cpp": USER_CPP})
    with sqlite3.connect(db) as conn:
        got = conn.execute("SELECT e.line, e.target, e.how, e.dst, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
                           "WHERE s.name = 'c10::widen' AND e.kind = 'calls' ORDER BY e.id").fetchall()
    assert got == [(4, "float", "type", None, None), (5, "int64_t", "type", None, None),
                   (5, "unsigned", "type", None, None), (6, "double", "type", None, None)]
