"""Name resolution rules of indexer/link/resolve.py, one construct each, on a small checkout written in
tmp_path: member lookup with name hiding, `->` through operator->, class template specialisations named
through aliases, vendor names brought in by `using namespace`, out-of-class members' default arguments.
Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build

N = "aten/src/ATen/native/"
YAML = """- func: scale(Tensor self, Scalar factor) -> Tensor
  dispatch:
    CPU: scale_cpu
"""
CLASSES_H = """\
namespace at {
struct TensorBase {
  int dim() const { return 0; }
  TensorBase contiguous() const { return *this; }
};
struct Tensor : TensorBase {
  Tensor contiguous() const { return *this; }
};
template <typename T> struct MaybeOwned {
  const T* operator->() const { return nullptr; }
};
namespace vec {
template <class T> struct Vectorized {
  static int size() { return 1; }
};
template <> struct Vectorized<float> {
  static int size() { return 8; }
};
template <> struct Vectorized<double> {
  static int size() { return 4; }
};
} // namespace vec
struct Options {
  Options expect(int memory_format = 0) const &;
  Options expect(int memory_format = 0) && = delete;
};
inline Options Options::expect(int memory_format) const & { return *this; }
} // namespace at
"""
USER_CPP = """\
#include "Classes.h"
using namespace cute;
namespace at {
namespace native {
int user(const Tensor& t, MaybeOwned<Tensor> owned, const Options& o) {
  t.contiguous();
  t.dim();
  owned->dim();
  using fVec = vec::Vectorized<float>;
  fVec::size();
  make_shape(1, 2);
  o.expect();
  return 0;
}
template <typename scalar_t> int templated() {
  using Vec = vec::Vectorized<scalar_t>;
  return Vec::size();
}
} // namespace native
} // namespace at
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resolve")
    native = root / N
    native.mkdir(parents=True)
    (root / "version.txt").write_text("2.6.0\n")
    (native / "native_functions.yaml").write_text(YAML)
    (native / "Classes.h").write_text(CLASSES_H)
    (native / "User.cpp").write_text(USER_CPP)
    out = root / "ix.db"
    build(root, out, jobs=1)
    return out


def calls(db: Path, caller: str) -> list[tuple]:
    """(line, target as written, how, the target's name and line, detail) of the caller's call edges."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.line, e.target, e.how, d.name || ':' || d.line, e.detail FROM edges e "
            "JOIN nodes s ON s.id = e.src LEFT JOIN nodes d ON d.id = e.dst "
            "WHERE s.name = ? AND e.kind = 'calls' ORDER BY e.id", (caller,)).fetchall()


def test_member_calls_find_the_derived_class_first_and_go_through_operator_arrow(db: Path):
    got = calls(db, "at::native::user")
    # Tensor::contiguous (:7) hides TensorBase::contiguous (:4); dim is only TensorBase's (:3)
    assert (6, "t.contiguous", "receiver-type", "at::Tensor::contiguous:7", None) in got
    assert (7, "t.dim", "receiver-type", "at::TensorBase::dim:3", None) in got
    # MaybeOwned<Tensor> defines operator-> (:10): owned->dim() is a Tensor's, so TensorBase::dim
    assert (8, "owned->dim", "receiver-type", "at::TensorBase::dim:3", None) in got


def test_a_class_template_alias_picks_the_named_specialisation(db: Path):
    # fVec is vec::Vectorized<float> (User.cpp:9): its size is Classes.h:17, not the primary's (:14) or double's
    assert (10, "fVec::size", "same-namespace", "at::vec::Vectorized<float>::size:17", None) in \
        calls(db, "at::native::user")
    # Vec is Vectorized<scalar_t>: every specialisation and the primary template may be meant
    assert calls(db, "at::native::templated") == [
        (17, "Vec::size", "specialisations", "at::vec::Vectorized::size:14", "3"),
        (17, "Vec::size", "specialisations", "at::vec::Vectorized<float>::size:17", "3"),
        (17, "Vec::size", "specialisations", "at::vec::Vectorized<double>::size:20", "3")]


def test_a_name_through_a_vendor_using_directive_is_the_vendors(db: Path):
    assert (11, "make_shape", "vendor", None, "through `using namespace cute;`, no namespace of the checkout") in \
        calls(db, "at::native::user")


def test_an_out_of_class_member_keeps_its_declarations_default_arguments(db: Path):
    # o.expect() may be either expect: the deleted one (Classes.h:25, `= delete` reads as a definition)
    # or the one defined at :27, which repeats no default, so its one parameter does not rule it out
    got = [c for c in calls(db, "at::native::user") if c[1] == "o.expect"]
    assert got == [(12, "o.expect", "overload-set", "at::Options::expect:25", "2"),
                   (12, "o.expect", "overload-set", "at::Options::expect:27", "2")]
