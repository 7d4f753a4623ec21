"""Arguments that name a namespace-scope constant or an enumerator, typed so that the overloads can be told
apart: `options().dtype(at::kLong)` calls dtype(optional<ScalarType>), not dtype(optional<TypeMeta>), as
c10/core/TensorOptions.h:240-250 (2.6.0) declares the pair. The constants are written out
(c10/core/DeviceType.h:65 `constexpr DeviceType kCPU = DeviceType::CPU;`), `auto` with an enumerator
(c10/core/Layout.h:22 `constexpr auto kStrided = Layout::Strided;`) or declared by an X-macro list of the
file's own (c10/core/ScalarType.h:324-328 `DEFINE_CONSTANT` through
`AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS`). The expected lines are the comments' `:N`."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tg_index.indexer import cxx

from .conftest import built_tree, call_edges, calls_by_line

N = "aten/src/ATen/native/"
YAML = """\
- func: make_thing(Tensor self) -> Tensor
  dispatch:
    CPU: make_thing_cpu
"""
SCALAR_TYPE_H = """\
#define FORALL_TYPES(_) _(int64_t, Long) _(float, Float)
namespace c10 {
enum class ScalarType : int8_t { Long, Float };
#define DEFINE_CONSTANT(_, name) constexpr ScalarType k##name = ScalarType::name;
FORALL_TYPES(DEFINE_CONSTANT)
#undef DEFINE_CONSTANT
struct TypeMeta {};
enum class Layout : int8_t { Strided, Sparse };
constexpr auto kStrided = Layout::Strided;
int counter = 0;
const char* const kName = "x";
}
namespace at { using namespace c10; }
"""
OPTIONS_H = """\
#include <c10/core/ScalarType.h>
#include <optional>
namespace c10 {
struct TensorOptions {
  TensorOptions dtype(std::optional<TypeMeta> dtype) const { return *this; }
  TensorOptions dtype(std::optional<ScalarType> dtype) const { return *this; }
  TensorOptions layout(std::optional<Layout> layout) const { return *this; }
  TensorOptions layout(std::optional<TypeMeta> layout) const { return *this; }
};
inline void take(std::optional<int64_t> n) {}
inline void take(double n) {}
}
"""
MAKE_CPP = """\
#include <c10/core/TensorOptions.h>
namespace at::native {
void make(TensorOptions o, int64_t n) {
  o.dtype(kLong);
  o.dtype(at::kFloat);
  o.dtype(ScalarType::Long);
  o.layout(kStrided);
  o.dtype(counter);
  take(n);
}
}
"""


TOP_CPP = """\
#include <c10/core/TensorOptions.h>
namespace {
using namespace at;
void top(c10::TensorOptions o) { o.dtype(kLong); }
}
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("constants"), {
        N + "native_functions.yaml": YAML, "c10/core/ScalarType.h": SCALAR_TYPE_H,
        "c10/core/TensorOptions.h": OPTIONS_H, N + "Make.cpp": MAKE_CPP, N + "Top.cpp": TOP_CPP})


def test_using_directives_are_transitive(built):
    # Top.cpp:3 `using namespace at;` also brings c10, which ScalarType.h:13 makes at's (as
    # c10/macros/Macros.h does; native/Itertools.cpp:22 writes the directive): kLong is c10::kLong
    got = {(how, at) for _f, line, target, how, _d, _n, at in call_edges(built, "Top.cpp") if target == "o.dtype"}
    assert got == {("argument-types", 6)}


@pytest.fixture(scope="module")
def calls(built) -> dict[int, set[tuple]]:
    return calls_by_line(built, "Make.cpp")


def test_namespace_constants_are_facts():
    f = cxx.extract(SCALAR_TYPE_H.encode(), "c10/core/ScalarType.h")
    C = cxx.ConstantFact
    assert sorted(f.constants, key=lambda c: (c.line, c.name)) == [
        C("kFloat", "c10::kFloat", "ScalarType", 5, "FORALL_TYPES"),  # the X-macro use's line
        C("kLong", "c10::kLong", "ScalarType", 5, "FORALL_TYPES"),
        C("kStrided", "c10::kStrided", "decltype(Layout::Strided)", 9),
        C("counter", "c10::counter", "int", 10, None, False),  # not const: a variable, which types what names it
        C("kName", "c10::kName", "char*", 11),
    ]


def test_enums_are_classes_of_kind_enum():
    f = cxx.extract(SCALAR_TYPE_H.encode(), "c10/core/ScalarType.h")
    assert [(c.qualified_name, c.kind, c.line, c.bases, c.fields) for c in f.classes if c.kind == "enum"] == [
        ("c10::ScalarType", "enum", 3, (), ()), ("c10::Layout", "enum", 8, (), ())]


def test_names_the_caller_does_not_declare_are_written_for_the_link_stage():
    f = cxx.extract(MAKE_CPP.encode(), N + "Make.cpp")
    got = [(c.line, json.loads(c.arg_types)) for c in f.calls if c.arg_types]
    assert got == [(4, ["decltype(kLong)"]), (5, ["decltype(at::kFloat)"]), (6, ["decltype(ScalarType::Long)"]),
                   (7, ["decltype(kStrided)"]), (8, ["decltype(counter)"]), (9, ["int64_t&"])]


def test_the_index_holds_the_constants(built):
    with sqlite3.connect(built) as conn:
        rows = conn.execute("SELECT qualified_name, type, line, macro FROM constants ORDER BY line, name").fetchall()
    assert ("c10::kLong", "ScalarType", 5, "FORALL_TYPES") in rows and ("c10::kStrided", "decltype(Layout::Strided)",
                                                                        9, None) in rows


@pytest.mark.parametrize("line, want", [(4, 6), (5, 6), (6, 6), (7, 7)])
def test_a_constant_or_enumerator_picks_the_optional_of_its_type(calls, line, want):
    # Make.cpp:4 kLong through at's `using namespace c10;`, :5 at::kFloat, :6 the enumerator ScalarType::Long:
    # dtype(optional<ScalarType>) (TensorOptions.h:6); :7 kStrided, auto from Layout::Strided: layout(optional<Layout>)
    assert calls[line] == {("argument-types", want)}


def test_a_mutable_variable_is_typed_and_an_int_picks_no_dtype(calls):
    # Make.cpp:8 `counter` is ScalarType.h:10's `int counter`, a mutable variable typed as a constant is; an int
    # converts to neither optional<TypeMeta> nor optional<ScalarType> (an enum class): both dtype overloads stay
    assert calls[8] == {("overload-set", 5), ("overload-set", 6)}


def test_an_optional_is_not_preferred_to_a_standard_conversion(calls):
    # Make.cpp:9 take(int64_t): int64_t -> double is a standard conversion, better than optional<int64_t>'s
    # user-defined one; the text does not settle it here, and nothing is picked
    assert calls[9] == {("overload-set", 10), ("overload-set", 11)}


PARALLEL_CPP = """\
#include <atomic>
namespace at {
namespace {
std::atomic<int> num_intraop_threads{-1};                                      // :4
struct Pool { int load() const { return 0; } };                               // :5
struct Worker { int load() const { return 1; } };                             // :6
}
int get_num_threads() {
  int n = num_intraop_threads.load();                                          // :9
  return n;
}
}
"""
HOLDER_CPP = """\
namespace at { namespace native {
struct Holder { int value() const { return 2; } };                            // :2
static Holder the_holder;                                                      // :3
int read_it() { return the_holder.value(); }                                   // :4
struct Other { int value() const { return 3; } };                             // :5
int shadowed() { Other the_holder; return the_holder.value(); }                // :6
} }
"""


@pytest.fixture(scope="module")
def variables(tmp_path_factory: pytest.TempPathFactory):
    built = built_tree(tmp_path_factory.mktemp("variables"), {
        N + "native_functions.yaml": YAML, "aten/src/ATen/ParallelNative.cpp": PARALLEL_CPP,
        N + "Holder.cpp": HOLDER_CPP})
    return {(f.rsplit("/", 1)[-1], line): (how, name, at)
            for f, line, _target, how, _d, name, at in call_edges(built)}


def test_a_member_call_on_a_namespace_variable_takes_its_type(variables):
    # ParallelNative.cpp:9 num_intraop_threads.load() on the std::atomic<int> of :4 (2.6.0 ParallelNative.cpp:64):
    # the standard library's, not Pool's or Worker's load (:5, :6)
    assert variables[("ParallelNative.cpp", 9)] == ("standard", None, None)
    # Holder.cpp:4 the_holder.value() on the file's `static Holder the_holder;` (:3): Holder::value (:2)
    assert variables[("Holder.cpp", 4)] == ("receiver-type", "at::native::Holder::value", 2)


def test_a_local_of_the_name_hides_the_namespace_variable(variables):
    # Holder.cpp:6 declares its own the_holder, an Other: Other::value (:5), not the namespace's Holder's
    assert variables[("Holder.cpp", 6)] == ("receiver-type", "at::native::Other::value", 5)
