"""An #if whose branches are alternative pieces of one declaration: 2.6.0 aten/src/ATen/cpu/vec/vec_base.h:144-149
writes `#if defined(__s390x__) / template <class T, class TEMP=void> / #else / template <class T> / #endif /
struct Vectorized {`, and :200-205 a method head `blendv(` the same way. tree-sitter reads no declaration across the
directives: the whole struct became an ERROR, its members free functions. prepare.py keeps the last branch of such
a group (blanking the others and the directive lines, offsets and lines kept); an #if whose branches are whole
statements is left as it is."""

from __future__ import annotations

from tg_index.indexer.cxx import extract
from tg_index.indexer.cxx.prepare import prepare

SPLIT = b"""\
namespace at::vec {
#if defined(__s390x__)
template <class T, class TEMP=void>
#else
template <class T>
#endif
struct Vectorized {
  int size() const { return 8; }
#if __GNUC__ <= 12 && defined(__ARM_FEATURE_SVE)
  static Vectorized<T> __attribute__((optimize("-fno-tree-loop-vectorize"))) blendv(const Vectorized<T>& a,
#else
  static Vectorized<T> blendv(const Vectorized<T>& a,
#endif
    const Vectorized<T>& b) {
    return a;
  }
};
bool allowed() {
#if defined(FORCE)
  return true;
#else
  return check(name.substr(0, name.find("(")));
#endif
}
}
"""


def test_the_class_and_its_members_are_read() -> None:
    facts = extract(SPLIT, "aten/src/ATen/cpu/vec/vec_base.h")
    assert [(c.name, c.line) for c in facts.classes] == [("Vectorized", 7)]
    got = {(d.qualified_name, d.line) for d in facts.definitions}
    assert ("at::vec::Vectorized::size", 8) in got
    assert ("at::vec::Vectorized::blendv", 12) in got  # the #else branch's head, the one kept
    assert ("at::vec::allowed", 18) in got


def test_the_last_branch_is_kept_and_offsets_stay() -> None:
    prepared, _spans = prepare(SPLIT, "vec_base.h")
    assert len(prepared) == len(SPLIT)
    lines, written = prepared.split(b"\n"), SPLIT.split(b"\n")
    assert len(lines) == len(written)
    blanked = [i + 1 for i, (a, b) in enumerate(zip(lines, written)) if a != b]
    assert blanked == [2, 3, 4, 6, 9, 10, 11, 13]
    assert all(not lines[i - 1].strip() for i in blanked)


def test_branches_that_are_whole_statements_stay() -> None:
    """allowed()'s branches balance once the "(" in a string literal is not counted."""
    prepared, _spans = prepare(SPLIT, "vec_base.h")
    assert prepared.split(b"\n")[18:23] == SPLIT.split(b"\n")[18:23]
