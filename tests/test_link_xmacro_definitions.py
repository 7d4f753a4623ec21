"""Definitions written through another file's X-macro list, and the calls they answer.

aten/src/ATen/templates/TensorMethods.cpp:21-46 (2.6.0) defines `DEFINE_CAST(T, name)`, which writes the
explicit specialisations `template <> T* TensorBase::data_ptr() const`, and applies c10/core/ScalarType.h:132's
`AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(_)` to it (:45). Extraction of one file cannot see the list; the build
extracts the file again with the list's #define from the macros table (indexer/shared_macros.py). A call
`t.data_ptr<float>()` then reaches the specialisation whose deduced argument is float, `data_ptr<int32_t>`
the one for `int`, and a dependent `data_ptr<scalar_t>` every one. Expected lines are the comments' `:N`.

Beside them, three rules of the same resolver step: a template whose parameter no function parameter names
is not viable without template arguments (c10/util/Load.h:29 `T load(const void*)` beside :34
`scalar_t load(const scalar_t*)`); a class template's members named with concrete arguments no explicit
specialisation has are the primary's (c10/util/complex.h: `complex<float>::real` is not complex<Half>'s,
:629); and C10_HOST_DEVICE members of a specialisation are the specialisation's.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tg_index.indexer import cxx
from tg_index.indexer.build import build
from tg_index.indexer.cxx.preprocessor import Define

from .conftest import built_tree, calls_by_line

N = "aten/src/ATen/native/"
YAML = """\
- func: make_thing(Tensor self) -> Tensor
  dispatch:
    CPU: make_thing_cpu
- func: size.int(Tensor self, int dim) -> int
  variants: function, method
"""
LIST_H = """\
#pragma once
#define FORALL_TYPES(_) \\
  _(float, Float)       \\
  _(int, Int)
"""
BODY_H = """\
#pragma once
#include <c10/core/List.h>
#define C10_HOST_DEVICE __host__ __device__
namespace at {
struct TensorBase {
  template <typename T> T* data_ptr() const;
  int64_t size(int64_t dim) const { return dim; }
};
template <typename T> struct complex {
  C10_HOST_DEVICE T real() const { return re; }
  T re;
};
template <> struct complex<short> {
  C10_HOST_DEVICE short real() const { return 0; }
};
template <typename T>
T load(const void* src) { return *static_cast<const T*>(src); }
template <typename scalar_t>
scalar_t load(const scalar_t* src) { return *src; }
}
"""
METHODS_CPP = """\
#include <ATen/core/Body.h>
namespace at {
#define DEFINE_CAST(T, name)                      \\
  template <>                                     \\
  T* TensorBase::data_ptr() const {               \\
    return nullptr;                               \\
  }
FORALL_TYPES(DEFINE_CAST)
#undef DEFINE_CAST
}
"""
USE_CPP = """\
#include <ATen/core/Body.h>
#include <cstdint>
namespace at::native {
template <typename scalar_t>
void kernel(const TensorBase& t, const float* p, complex<float> z, complex<short> w) {
  t.data_ptr<float>();
  t.data_ptr<int32_t>();
  t.data_ptr<scalar_t>();
  load(p);
  z.real();
  w.real();
  t.size(0);
}
}
"""
FILES = {N + "native_functions.yaml": YAML, "c10/core/List.h": LIST_H, "aten/src/ATen/core/Body.h": BODY_H,
         "aten/src/ATen/templates/Methods.cpp": METHODS_CPP, N + "Use.cpp": USE_CPP}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("xmacro"), FILES)


def _definitions(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT qualified_name, line, returns, macro FROM definitions "
                            "WHERE file = 'aten/src/ATen/templates/Methods.cpp' ORDER BY returns").fetchall()


def test_one_file_alone_records_the_use_and_writes_no_definition():
    f = cxx.extract(METHODS_CPP.encode(), "aten/src/ATen/Methods.cpp")
    assert f.definitions == ()
    assert f.definition_macro_uses == (cxx.DefinitionMacroUseFact("FORALL_TYPES", ("DEFINE_CAST",), 8, None),)


def test_with_the_list_the_use_writes_a_definition_per_entry():
    shared = {"FORALL_TYPES": Define("FORALL_TYPES", ("_",), "_(float, Float) _(int, Int)")}
    f = cxx.extract(METHODS_CPP.encode(), "aten/src/ATen/Methods.cpp", shared=shared)
    assert sorted((d.qualified_name, d.line, d.returns, d.macro) for d in f.definitions) == [
        ("at::TensorBase::data_ptr", 8, "float", "FORALL_TYPES"), ("at::TensorBase::data_ptr", 8, "int", "FORALL_TYPES")]
    assert [u.expanded is not None for u in f.definition_macro_uses] == [True]


def test_a_list_of_the_file_itself_is_expanded_at_once():
    # as aten/src/ATen/core/IListRef.h:601 (2.6.0) applies its own TORCH_ILISTREF_FORALL_TAGS to a definer
    text = """\
#define TAGS(_) _(Boxed) _(Unboxed)
#define DEFINE_IS(T) bool is##T() const { return tag == T; }
struct Ref {
  int tag;
  TAGS(DEFINE_IS)
};
"""
    f = cxx.extract(text.encode(), "c10/Ref.h")
    assert sorted((d.qualified_name, d.line, d.macro) for d in f.definitions) == [
        ("Ref::isBoxed", 5, "TAGS"), ("Ref::isUnboxed", 5, "TAGS")]
    assert f.definition_macro_uses == ()  # nothing left for the build to expand


def test_the_build_expands_the_list_from_the_macros_table(built):
    # c10/core/List.h:2-4 FORALL_TYPES, applied at Methods.cpp:8
    assert _definitions(built) == [("at::TensorBase::data_ptr", 8, "float", "FORALL_TYPES"),
                                   ("at::TensorBase::data_ptr", 8, "int", "FORALL_TYPES")]
    with sqlite3.connect(built) as conn:
        assert conn.execute("SELECT name, line, expanded IS NOT NULL FROM definition_macro_uses").fetchall() == [
            ("FORALL_TYPES", 8, 1)]


@pytest.fixture(scope="module")
def calls(built) -> dict[int, set[tuple]]:
    return calls_by_line(built, "Use.cpp")


def _returned(db, line: int) -> list[tuple[str, str]]:
    """(how, the target definition's return type) of each call edge of Use.cpp:line."""
    with sqlite3.connect(db) as conn:
        return sorted(conn.execute(
            "SELECT e.how, d.returns FROM edges e JOIN nodes n ON n.id = e.dst JOIN definitions d ON d.id = n.ref "
            "WHERE e.kind = 'calls' AND e.file LIKE '%Use.cpp' AND e.line = ?", (line,)).fetchall())


def test_an_explicit_argument_picks_the_specialisation_deduced_as_it(built):
    # Use.cpp:6 data_ptr<float>: Methods.cpp:8's `float* data_ptr()`; :7 data_ptr<int32_t>: the `int` one (LP64)
    assert _returned(built, 6) == [("receiver-type", "float")]
    assert _returned(built, 7) == [("receiver-type", "int")]


def test_a_dependent_argument_reaches_every_specialisation(built):
    # Use.cpp:8 data_ptr<scalar_t>, scalar_t the caller's template parameter
    assert _returned(built, 8) == [("overload-set", "float"), ("overload-set", "int")]


def test_a_template_its_arguments_cannot_deduce_is_not_viable(calls):
    # Use.cpp:9 load(p): Body.h:19 `scalar_t load(const scalar_t*)`, not :17 `T load(const void*)`
    assert calls[9] == {("same-namespace", 19)}


def test_concrete_arguments_no_specialisation_names_are_the_primary_template(calls):
    # Use.cpp:10 complex<float>::real is the primary's (Body.h:10); :11 complex<short>::real, a C10_HOST_DEVICE
    # member of the explicit specialisation, is the specialisation's (:14)
    assert calls[10] == {("receiver-type", 10)}
    assert calls[11] == {("receiver-type", 14)}


def test_members_a_source_template_defines_make_no_generated_class(calls):
    # Use.cpp:12 t.size(0) on a TensorBase: Body.h:7's method. templates/Methods.cpp defines TensorBase members
    # (as 2.6.0's templates/TensorMethods.cpp does), which does not make TensorBase a class torchgen completes
    # with a method per op (templates/TensorBody.h's at::Tensor is one): not the op size.int
    assert calls[12] == {("receiver-type", 7)}


def test_an_update_expands_again_when_the_list_changes(tmp_path):
    root = tmp_path / "tree"
    db = built_tree(root, FILES)
    (root / "c10/core/List.h").write_text(LIST_H.replace("_(int, Int)", "_(int, Int) \\\n  _(double, Double)"))
    build(root, db, jobs=1)
    assert [r[2] for r in _definitions(db)] == ["double", "float", "int"]
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("*.db"))
    cold = fresh / "cold.db"
    build(fresh, cold, jobs=1)
    assert _definitions(cold) == _definitions(db)
