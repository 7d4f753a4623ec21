"""A class body tree-sitter cannot close is read as the declared type of the function after it (`class X {...}
f(...) {...}`), which C++ never writes. The class and its members belong to the scope around that function, not to
a block of it. 2.6.0's cpu/vec/vec128/vec128_bfloat16_neon.h:140 declares `class Vectorized<c10::BFloat16>` in
at::vec::CPU_CAPABILITY; its macro-written members (:341-347) leave the body open, and the class was stored without
a namespace, as a global class "Vectorized". Argument-dependent lookup then took the global namespace for every
Vectorized operand (resolve.py _associated), and `a0 - b0` on two Vectorized<float> found only utils.h's
`operator-(const Vec2&, const Vec2&)`. The missing `;` after the class body here makes the same tree."""

from __future__ import annotations

from tg_index.indexer import cxx

SOURCE = b"""\
namespace at::vec {
inline namespace CPU_CAPABILITY {
template <class T> class Vectorized {};
template <>
class Vectorized<float> {
 public:
  Vectorized<float> abs() const { return *this; }
  struct Mask { int bits; };
}
template <>
Vectorized<float> inline operator+(const Vectorized<float>& a, const Vectorized<float>& b) {
  return a;
}
}
}
"""


def test_the_class_and_its_members_keep_their_namespace():
    facts = cxx.extract(SOURCE, "aten/src/ATen/cpu/vec/vec128/damaged.h")
    assert {(c.line, c.qualified_name) for c in facts.classes} == {
        (3, "at::vec::CPU_CAPABILITY::Vectorized"),
        (5, "at::vec::CPU_CAPABILITY::Vectorized<float>"),
        (8, "at::vec::CPU_CAPABILITY::Vectorized<float>::Mask")}
    assert {(d.line, d.qualified_name) for d in facts.definitions if d.name == "abs"} == {
        (7, "at::vec::CPU_CAPABILITY::Vectorized<float>::abs")}


def test_a_class_in_a_function_body_is_still_local():
    src = b"namespace at {\nvoid f() {\n  struct Local { int g() { return 1; } };\n}\n}\n"
    facts = cxx.extract(src, "aten/src/ATen/native/local.cpp")
    assert [c.qualified_name for c in facts.classes] == ["Local"]
