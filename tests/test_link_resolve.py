"""Name resolution rules of indexer/link/resolve.py, one construct each, on a small checkout written in
tmp_path: member lookup with name hiding, `->` through operator->, class template specialisations named
through aliases, vendor names brought in by `using namespace`, out-of-class members' default arguments,
and receivers typed by return types (chains, `auto` variables, fields, elements of sequences).
Every expected edge is read in the sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer import cxx
from tg_index.indexer.link.symbols import op_return_type

from .conftest import built_tree

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
namespace vec {
template <class T> struct Wide {
  static int size() { return 16; }
};
template <> struct Vectorized<int> : Wide<int> {};  // under one #if: inherits size
template <> struct Vectorized<int> {  // under another: its own
  static int size() { return 2; }
};
} // namespace vec
} // namespace at
"""
CHAINS_H = """\
namespace at {
struct TensorOptions {
  TensorOptions dtype(int d) const { return *this; }
};
struct Base {
  TensorOptions options() const { return TensorOptions(); }
  int dim() const { return 0; }
};
struct Tensor : Base {};
template <typename T> struct ArrayRef {
  const T& front() const;
};
using TensorList = ArrayRef<Tensor>;
struct Iter {
  int device_type() const { return 0; }
};
Iter build_iter(const Tensor& t);
Iter make_iter(const Tensor& t) { return Iter(); }
TensorOptions device(int d) { return TensorOptions(); }
struct Holder {
  Tensor weight_;
  int go() { return weight_.dim() + this->weight_.dim(); }
};
struct Graph {
  int graph() const { return 0; }
};
template <typename T> T* make_graph(int k) { return nullptr; }
} // namespace at
"""
CHAINS_CPP = """\
#include "Chains.h"
namespace at {
namespace native {
int chains(const Tensor& self, TensorList tensors) {
  self.options().dtype(1);
  auto it = make_iter(self);
  it.device_type();
  auto opts = self.options();
  opts.dtype(2);
  at::device(0).dtype(3);
  tensors[0].dim();
  auto other = it;
  other.device_type();
  auto g = make_graph<Graph>(1);
  g->graph();
  return 0;
}
} // namespace native
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
int inherited() { return vec::Vectorized<int>::size(); }
} // namespace native
} // namespace at
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("resolve"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Classes.h": CLASSES_H,
        N + "User.cpp": USER_CPP, N + "Chains.h": CHAINS_H, N + "Chains.cpp": CHAINS_CPP})


@pytest.fixture(scope="module")
def typed(db: Path) -> Path:
    """The build's index: its link gives the resolver the return types (read with the symbols in stage.prepare)."""
    return db


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
        (17, "Vec::size", "specialisations", "at::vec::Vectorized::size:14", "4"),
        (17, "Vec::size", "specialisations", "at::vec::Vectorized<float>::size:17", "4"),
        (17, "Vec::size", "specialisations", "at::vec::Vectorized<double>::size:20", "4"),
        (17, "Vec::size", "specialisations", "at::vec::Vectorized<int>::size:34", "4")]


def test_a_name_through_a_vendor_using_directive_is_the_vendors(db: Path):
    assert (11, "make_shape", "vendor", None, "through `using namespace cute;`, no namespace of the checkout") in \
        calls(db, "at::native::user")


def test_an_out_of_class_member_keeps_its_declarations_default_arguments(db: Path):
    # o.expect(): the one defined at :27 repeats no default, so its one parameter does not rule it out; o is a
    # variable (an lvalue), so the deleted `&&`-qualified one (Classes.h:25, `= delete` reads as a definition)
    # is not viable: :27
    got = [c for c in calls(db, "at::native::user") if c[1] == "o.expect"]
    assert got == [(12, "o.expect", "receiver-type", "at::Options::expect:27",
                    "the object is an lvalue: not the &&-qualified member")]


def test_receivers_are_recorded_for_chains_auto_variables_fields_and_elements():
    f = cxx.extract(CHAINS_CPP.encode(), N + "Chains.cpp")
    assert [(c.line, c.callee, c.receiver_type) for c in f.calls if "." in c.callee or "->" in c.callee] == [
        (5, "self.options", "Tensor"),
        (5, "self.options().dtype", "Tensor"),  # a chain: the type of the variable it starts with
        (7, "it.device_type", "decltype(make_iter(self))"),  # auto: the initializer, for the link stage
        (8, "self.options", "Tensor"),
        (9, "opts.dtype", "decltype(std::declval<Tensor>().options())"),
        (10, "at::device(0).dtype", None),
        (11, "tensors[0].dim", "TensorList"),
        (13, "other.device_type", "decltype(make_iter(self))"),  # auto other = it: it's type
        (15, "g->graph", "decltype(make_graph<Graph>(1))"),
    ]
    header = cxx.extract(CHAINS_H.encode(), N + "Chains.h")
    assert [(c.callee, c.receiver_type) for c in header.calls if not c.callee.startswith("operator")] == [
        ("TensorOptions", None), ("Iter", None), ("TensorOptions", None),
        ("weight_.dim", "Tensor"), ("this->weight_.dim", "Tensor")]  # fields of the class around the call
    assert [(d.name, d.returns) for d in header.definitions] == [
        ("dtype", "TensorOptions"), ("options", "TensorOptions"), ("dim", "int"), ("device_type", "int"),
        ("make_iter", "Iter"), ("device", "TensorOptions"), ("go", "int"), ("graph", "int"), ("make_graph", "T")]


def test_return_types_type_chains_auto_variables_and_elements(typed: Path):
    got = {(c[0], c[1]): c[2:] for c in calls(typed, "at::native::chains")}
    # Base::options (Chains.h:6) returns TensorOptions, whose dtype is :3
    assert got[(5, "self.options().dtype")] == ("receiver-type", "at::TensorOptions::dtype:3", None)
    # auto it = make_iter(self): make_iter (:18) returns Iter; other = it has its type
    assert got[(7, "it.device_type")] == ("receiver-type", "at::Iter::device_type:15", None)
    assert got[(13, "other.device_type")] == ("receiver-type", "at::Iter::device_type:15", None)
    assert got[(9, "opts.dtype")] == ("receiver-type", "at::TensorOptions::dtype:3", None)
    # at::device (:19) returns TensorOptions
    assert got[(10, "at::device(0).dtype")] == ("receiver-type", "at::TensorOptions::dtype:3", None)
    # TensorList is ArrayRef<Tensor> (:13): an element is a Tensor, whose dim is Base's (:7)
    assert got[(11, "tensors[0].dim")] == ("receiver-type", "at::Base::dim:7", None)
    # make_graph (:27) returns its T, named by the one explicit template argument: Graph, whose graph is :25
    assert got[(15, "g->graph")] == ("receiver-type", "at::Graph::graph:25", None)
    assert calls(typed, "at::Holder::go") == [
        (22, "weight_.dim", "receiver-type", "at::Base::dim:7", None),
        (22, "this->weight_.dim", "receiver-type", "at::Base::dim:7", None)]


def test_op_return_types_from_the_schema():
    assert op_return_type("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)") == "Tensor"
    assert op_return_type("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)") == \
        "std::tuple<Tensor,Tensor>"
    assert op_return_type("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]") == \
        "std::vector<Tensor>"
    assert op_return_type("_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()") is None


def test_a_specialisation_that_may_inherit_the_member_reaches_the_bases_one_too(db: Path):
    # Vectorized<int> is written twice (Classes.h:32 derives from Wide, whose size is :30; :33 has its own, :34)
    assert calls(db, "at::native::inherited") == [
        (19, "vec::Vectorized<int>::size", "specialisations", "at::vec::Vectorized<int>::size:34", "2"),
        (19, "vec::Vectorized<int>::size", "specialisations", "at::vec::Wide::size:30", "2")]
