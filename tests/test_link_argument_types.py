"""Argument types written at a call (calls.arg_types, cxx/argument_types.py) and the overload they pick
(link/overloads.py, Resolver.resolve's arg_types). The expected definitions are read in OVERLOADS_H below
(their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer import cxx
from tg_index.indexer.cxx.argument_types import number_type
from tg_index.indexer.link import stage
from tg_index.indexer.link.overloads import parameter_types, plain_type

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: scale(Tensor self, Scalar factor) -> Tensor
"""
OVERLOADS_H = """\
namespace at {
struct Tensor { int dim() const { return 0; } int64_t size() const { return 0; } Tensor t() const { return *this; } };
struct TensorImpl {};
struct vTensor {};
template <typename T> struct ArrayRef { ArrayRef(const T& one) {} };
using TensorList = ArrayRef<Tensor>;
using IntArrayRef = ArrayRef<int64_t>; struct SymInt {}; using SymIntArrayRef = ArrayRef<SymInt>;
namespace native {
inline int wrap(int64_t dim, TensorImpl* impl) { return 1; }      // :9
inline int wrap(int64_t dim, TensorList tensors) { return 2; }    // :10
inline int widen(double v) { return 3; }                          // :11
inline int widen(int64_t v) { return 4; }                         // :12
inline int convert(const vTensor& v) { return 5; }                // :13
inline int convert(const Tensor& t) { return 6; }                 // :14
inline int name(const char* text, int n) { return 7; }            // :15
inline int name(const Tensor& t, int n) { return 8; }             // :16
template <typename T> int same(T a) { return 9; }                 // :17
inline int same(int64_t a) { return 10; }                         // :18
} // namespace native
} // namespace at
namespace c10 { inline int pad(int64_t n) { return 11; } }
namespace at {
using c10::pad;
inline int pad(const Tensor& t) { return 12; }                    // :24
inline int pad(const vTensor& t) { return 13; }                   // :25
inline int many(int64_t a, char b) { return 0; }
inline int many(int64_t a, short b) { return 1; }
inline int many(int64_t a, int b) { return 2; }
inline int many(int64_t a, long b) { return 3; }
inline int many(int64_t a, float b) { return 4; }
inline int many(int64_t a, double b) { return 5; }
inline int many(int64_t a, bool b) { return 6; }
inline int many(int64_t a, unsigned b) { return 7; }
inline int many(int64_t a, Tensor b) { return 8; }
inline int many(int64_t a, vTensor b) { return 9; }
inline int many(int64_t a, TensorImpl* b) { return 10; }
inline int many(int64_t a, const char* b) { return 11; }
inline int many(int64_t a, long long b) { return 12; }
} // namespace at
"""
DEFS_CPP = """\
namespace at { namespace native {
int shape(const Tensor& t) { return 16; }                           // :2
int shape(IntArrayRef sizes) { return 17; }                         // :3
int nbytes(IntArrayRef sizes, int64_t n) { return 18; }             // :4
int nbytes(SymIntArrayRef sizes, const SymInt& n) { return 19; }    // :5
int take(const Tensor& t) { return 20; }                            // :6
int take(Tensor&& t) { return 21; }                                 // :7
}} // namespace at::native, declared in a header the callers include (not written here)
"""
FAR_H = """\
namespace at { namespace native {
inline int far(const Tensor& t) { return 14; }
inline int far(int64_t n) { return 15; }
}} // namespace at::native
"""
USER_CPP = """\
#include "Overloads.h"
namespace at { namespace native {
int user(const Tensor& self, int64_t dim, Tensor* out, IntArrayRef dims, SymIntArrayRef sym) {
  auto any = self.dim();
  wrap(dim, self);
  widen(1);
  widen(dim);
  convert(self);
  name("x", 2);
  name(self, 2);
  same(dim);
  widen(any);
  wrap(dim, out);
  pad(self);
  ::widen(dim);
  name(self);
  far(self);
  many(dim, any);
  many(dim, *out);
  widen(self.size());
  convert(self.t().t());
  widen(static_cast<double>(dim));
  widen(self.dim());
  name(self.t(), self.size());
  shape(self);
  shape(dims);
  nbytes(dims, *out);
  nbytes(sym, *out);
  take(self);
  take(self.t());
  auto kept = self.t();
  take(kept);
  return 0;
}
}} // namespace at::native
"""


def test_argument_types_of_literals_declared_variables_and_pointers():
    f = cxx.extract(USER_CPP.encode(), N + "User.cpp")
    assert [(c.line, c.callee, c.arg_types) for c in f.calls] == [  # a variable's type ends in & (an lvalue)
        (4, "self.dim", None), (5, "wrap", '["int64_t&","Tensor&"]'), (6, "widen", '["int"]'),
        (7, "widen", '["int64_t&"]'), (8, "convert", '["Tensor&"]'), (9, "name", '["const char*","int"]'),
        (10, "name", '["Tensor&","int"]'), (11, "same", '["int64_t&"]'),
        (12, "widen", '["decltype(std::declval<Tensor>().dim())&"]'),  # an `auto` variable: typed when linked
        (13, "wrap", '["int64_t&","Tensor*&"]'), (14, "pad", '["Tensor&"]'), (15, "::widen", '["int64_t&"]'),
        (16, "name", '["Tensor&"]'), (17, "far", '["Tensor&"]'),
        (18, "many", '["int64_t&","decltype(std::declval<Tensor>().dim())&"]'), (19, "many", '["int64_t&",null]'),
        (20, "widen", '["decltype(std::declval<Tensor>().size())"]'), (20, "self.size", None),
        (21, "convert", '["decltype(std::declval<Tensor>().t().t())"]'), (21, "self.t", None), (21, "self.t().t", None),
        (22, "widen", '["double"]'), (22, "static_cast<double>", '["int64_t&"]'),
        (23, "widen", '["decltype(std::declval<Tensor>().dim())"]'), (23, "self.dim", None),
        (24, "name", '["decltype(std::declval<Tensor>().t())","decltype(std::declval<Tensor>().size())"]'),
        (24, "self.t", None), (24, "self.size", None), (25, "shape", '["Tensor&"]'), (26, "shape", '["IntArrayRef&"]'),
        (27, "nbytes", '["IntArrayRef&",null]'), (28, "nbytes", '["SymIntArrayRef&",null]'),
        (29, "take", '["Tensor&"]'), (30, "take", '["decltype(std::declval<Tensor>().t())"]'), (30, "self.t", None),
        (31, "self.t", None), (32, "take", '["decltype(std::declval<Tensor>().t())&"]')]


def test_number_literals_and_parameter_types():
    assert [number_type(t) for t in ("2", "2u", "2UL", "2ll", "0x1F", "1.0", "1.5f", "1e3", "2.0L", "0x1p3", "1_km")] == [
        "int", "unsigned", "unsigned long", "long long", "int", "double", "float", "double", "long double", "double",
        None]
    assert parameter_types("f(const at::Tensor & self, int64_t* sizes, bool wrap = true, unsigned long)") == [
        "Tensor", "int64_t*", "bool", "unsigned long"]
    assert parameter_types("f(Args... args)") is None
    assert plain_type("const char *") == "char*"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory):
    db = built_tree(tmp_path_factory.mktemp("argtypes"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Overloads.h": OVERLOADS_H,
        N + "Far.h": FAR_H, N + "Defs.cpp": DEFS_CPP, N + "User.cpp": USER_CPP})
    conn = sqlite3.connect(db)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    columns = {r[1] for r in conn.execute("PRAGMA table_info(definitions)")}
    includes = stage.include_graph(conn, tables)
    nodes = stage.make_nodes(conn, stage.definition_guards(conn, columns, includes), "name_line" in columns)
    yield conn, stage.prepare(conn, nodes, tables, columns, includes=includes)
    conn.close()


def resolved(prepared, with_types: bool) -> list[tuple]:
    """(line, callee, how, the target's line or the number of candidates) of user()'s calls of the overloads."""
    conn, p = prepared
    lines = dict(conn.execute("SELECT n.id, d.line FROM nodes n JOIN definitions d ON d.id = n.ref "
                              "WHERE n.kind = 'function'"))
    out = []
    for file, caller, callee, name, line, argc, receiver, types in conn.execute(
            "SELECT file, caller, callee, callee_name, line, argc, receiver_type, arg_types FROM calls "
            "WHERE caller = 'at::native::user' AND line > 4 AND callee NOT LIKE 'self.%' "
            "AND callee NOT LIKE 'static_cast%' ORDER BY id"):  # the overloaded calls, not those in their arguments
        ctx = p.contexts(file, p.callers.at(file, caller, line))
        targets = p.resolver.resolve(ctx, callee, name, argc, receiver, types if with_types else None)
        out.append((line, callee, targets[0].how.value,
                    lines[targets[0].node] if len(targets) == 1 and targets[0].node else len(targets)))
    return out


def test_without_argument_types_each_is_an_overload_set(prepared):
    # but `::widen(dim)` (User.cpp:15): the global namespace has no widen, at::native's are no candidates
    # (test_link_global_scope.py)
    hows = {(callee == "::widen", how) for _l, callee, how, _t in resolved(prepared, False)}
    assert hows == {(False, "overload-set"), (True, "not-in-checkout")}


def test_the_argument_types_pick_the_one_viable_or_the_one_exact_overload(prepared):
    assert resolved(prepared, True) == [
        (5, "wrap", "argument-types", 10),  # a Tensor never binds TensorImpl*; it binds TensorList (one element)
        (6, "widen", "overload-set", 2),  # int converts to double and to int64_t: C++ calls it ambiguous
        (7, "widen", "argument-types", 12),  # int64_t is an exact match
        (8, "convert", "argument-types", 14),  # Tensor exactly; vTensor is some other class
        (9, "name", "argument-types", 15),  # a string never binds a Tensor
        (10, "name", "argument-types", 16),  # a Tensor never binds a pointer
        (11, "same", "argument-types", 18),  # the template deduces int64_t too: the non-template wins
        (12, "widen", "overload-set", 2),  # `auto any = self.dim()`: int, which converts to double and int64_t
        (13, "wrap", "overload-set", 2),  # Tensor* to TensorImpl* or to TensorList: not judged, so both stay
        (14, "pad", "argument-types", 24),  # at's pads and c10::pad (`using c10::pad;`): Tensor is exact for one
        (15, "::widen", "not-in-checkout", 1),  # the global namespace's: none in the checkout, at::native's are not it
        (16, "name", "overload-set", 2),  # no member takes one argument: the set is not what is called
        (17, "far", "overload-set", 2),  # User.cpp does not include Far.h
        (18, "many", "argument-types", 28),  # 13 members (one edge that counts them); int is exact for one
        (19, "many", "overload-set", 1),  # the same set, `*out` not typed: no pick
        (20, "widen", "argument-types", 12),  # Tensor::size returns int64_t
        (21, "convert", "argument-types", 14),  # Tensor::t returns Tensor, twice
        (22, "widen", "argument-types", 11),  # a cast's type
        (23, "widen", "overload-set", 2),  # Tensor::dim returns int: ambiguous, as at line 12
        (24, "name", "argument-types", 16),  # a Tensor never binds const char*
        # Defs.cpp, which no one includes, defines both shapes of one qualified name: a pick
        (25, "shape", "argument-types", 2),  # a Tensor never binds a list of numbers
        (26, "shape", "argument-types", 3),  # an IntArrayRef never binds a Tensor
        (27, "nbytes", "argument-types", 4),  # `*out` not typed; an IntArrayRef never binds a SymIntArrayRef
        (28, "nbytes", "argument-types", 5),  # nor a SymIntArrayRef an IntArrayRef
        (29, "take", "argument-types", 6),  # a variable never binds Tensor&&
        (30, "take", "argument-types", 7),  # a call's result (a prvalue Tensor) binds both; Tensor&& binds it better
        (32, "take", "argument-types", 6),  # an `auto` variable is an lvalue: never Tensor&&
    ]
