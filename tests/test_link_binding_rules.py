"""Overloads told apart by what a Tensor can never be, and sets of source-file functions whose header
declarations give the defaults (link/overloads.py, resolve.py):

- a Tensor never binds SymInt, Scalar, ScalarType, a string, nor a std::vector of number lists, and none of
  them binds a Tensor: `maybe_wrap_dim(dim, self)` is maybe_wrap_dim(int64_t, TensorList) among
  aten/src/ATen/WrapDimUtils.h's overloads (2.6.0), `comparison_op(self, other, ...)` in BinaryOps.cpp the
  (Tensor, Tensor) one;
- a function defined in a source file may take fewer arguments than its definition's parameters: its header
  declaration gives the defaults (mps/OperationUtils.h declares `getMPSShape(const TensorBase& t,
  c10::MemoryFormat memory_format = MemoryFormat::Contiguous)`, OperationUtils.mm:323 defines it without).

The expected lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from .conftest import built_tree, calls_by_line

N = "aten/src/ATen/native/"
YAML = """\
- func: wrap_thing(Tensor self) -> Tensor
  dispatch:
    CPU: wrap_thing_cpu
"""
WRAP_H = """\
#include <vector>
namespace at {
struct Tensor {};
struct Scalar { Scalar(double v) {} };
struct SymInt { SymInt(long v) {} };
template <typename T> struct ArrayRef { ArrayRef(const T& one) {} };
using TensorList = ArrayRef<Tensor>;
inline long maybe_wrap_dim(long dim, TensorList tensors) { return dim; }                       // :8
inline long maybe_wrap_dim(long dim, const std::vector<std::vector<long>>& sizes) { return dim; } // :9
inline long maybe_wrap_dim(long dim, SymInt n) { return dim; }                                 // :10
inline int compare(const Tensor& a, const Tensor& b) { return 0; }                             // :11
inline int compare(const Tensor& a, const Scalar& b) { return 1; }                             // :12
struct Dimname {};
using DimnameList = ArrayRef<Dimname>;
inline int names(const Tensor& result, DimnameList names) { return 0; }                         // :15
inline int names(const Tensor& result, const Tensor& src) { return 1; }                         // :16
inline int infer(const std::vector<long>& a, const std::vector<long>& b) { return 0; }          // :17
inline int infer(const std::vector<long>& a, long numel) { return 1; }                          // :18
struct KeySet {
  KeySet() {}                                                                                  // :20
  KeySet(const Tensor& t) {}                                                                   // :21
  KeySet(Scalar s) {}                                                                          // :22
};
}
"""
SHAPE_H = """\
namespace at::native {
int* shape_of(const Tensor& t, int format = 0);
int* shape_of(const std::vector<long>& sizes, int format = 0);
}
"""
SHAPE_CPP = """\
#include <ATen/native/Shape.h>
namespace at::native {
int* shape_of(const Tensor& t, int format) { return nullptr; }                  // :3
int* shape_of(const std::vector<long>& sizes, int format) { return nullptr; }   // :4
}
"""
USE_CPP = """\
#include <ATen/native/Wrap.h>
#include <ATen/native/Shape.h>
namespace at::native {
long use(long dim, const Tensor& self, const Tensor& other, Scalar s) {
  maybe_wrap_dim(dim, self);
  compare(self, other);
  compare(self, s);
  shape_of(self);
  names(self, other);
  std::vector<long> a, b;
  infer(a, b);
  at::KeySet(self);
  return dim;
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    return calls_by_line(built_tree(tmp_path_factory.mktemp("binding"), {
        N + "native_functions.yaml": YAML, N + "Wrap.h": WRAP_H, N + "Shape.h": SHAPE_H, N + "Shape.cpp": SHAPE_CPP,
        N + "Use.cpp": USE_CPP}), "Use.cpp")


@pytest.mark.parametrize("line, want", [(5, 8), (6, 11), (7, 12)])
def test_a_tensor_never_binds_what_has_no_constructor_from_one(calls, line, want):
    # Use.cpp:5 neither std::vector<std::vector<long>> (Wrap.h:9) nor SymInt (:10) takes a Tensor: the
    # TensorList one (:8); :6 a Tensor is no Scalar (:11); :7 a Scalar is no Tensor (:12)
    assert calls[line] == {("argument-types", want)}


@pytest.mark.parametrize("line, want", [(9, 16), (11, 17)])
def test_a_list_binds_no_tensor_and_no_number(calls, line, want):
    # Use.cpp:9 a Tensor is no DimnameList (ArrayRef<Dimname>, Wrap.h:15): names(Tensor, Tensor) (:16), as
    # namedinference::propagate_names(result, src) in aten/src/ATen/NamedTensorUtils.h; :11 a vector of numbers
    # converts to no number: infer(a, b) (:17), as infer_size(a.sizes(), b.sizes())
    assert calls[line] == {("argument-types", want)}


def test_a_qualified_callee_s_members_that_cannot_take_the_arguments_are_not_viable(calls):
    # Use.cpp:12 at::KeySet(self): KeySet() (Wrap.h:20) takes no argument and only drops out (as
    # c10::DispatchKeySet's constructors beside `DispatchKeySet()`); a Tensor is no Scalar: :21
    assert calls[12] == {("argument-types", 21)}


def test_a_source_file_s_function_takes_its_declaration_s_defaults(calls):
    # Use.cpp:8 shape_of(self), one argument: Shape.cpp's definitions take two, Shape.h's declarations give the
    # second a default; a Tensor is no list of numbers: Shape.cpp:3
    assert calls[8] == {("argument-types", 3)}


HOLDER_H = """\
namespace c10 {
struct Dims {
  const int& value() const& { return n; }          // :3
  int& value() & { return n; }                      // :4
  int&& value() && { return static_cast<int&&>(n); } // :5
  Dims copy() && { return *this; }                  // :6
  Dims copy() const& { return *this; }              // :7
  int n;
};
struct Config {
  Config() {}                                       // :11
  Config(Config&& other) {}                         // :12
};
inline int cast(void* graph, int dtype) { return 0; }      // :14
inline int cast(void* graph, long dtype) { return 1; }     // :15
}
"""
HOLDER_CPP = """\
#include <ATen/native/Holder.h>
namespace at::native {
int use(c10::Dims& d, const c10::Dims& k, void* g, long t) {
  d.value();
  k.value();
  d.copy();
  c10::Config();
  c10::cast(make_graph(), t);
  return 0;
}
}
"""


@pytest.fixture(scope="module")
def holder(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[tuple]]:
    return calls_by_line(built_tree(tmp_path_factory.mktemp("holder"), {
        N + "native_functions.yaml": YAML, N + "Holder.h": HOLDER_H, N + "Holder.cpp": HOLDER_CPP}),
        "Holder.cpp", skip=("make_graph",))  # make_graph has no definition: not in the checkout


def test_a_parameter_of_type_long_is_a_long():
    # `cast(void* graph, long dtype)`: the parameter's type is long (`long dtype` is no unnamed `long dtype` type)
    from tg_index.indexer.link.overloads import parameter_types

    assert parameter_types("cast(void* graph, long dtype)") == ["void*", "long"]
    assert parameter_types("f(unsigned long, const Tensor&, unsigned n)") == ["unsigned long", "Tensor", "unsigned"]


@pytest.mark.parametrize("line, want", [(4, 4), (5, 3), (6, 7)])
def test_an_lvalue_object_calls_no_rvalue_qualified_member(holder, line, want):
    # Holder.cpp:4 d is a variable: value() && (Holder.h:5) is out, and d is not const: value() & (:4);
    # :5 k is const: value() const& (:3); :6 copy() && (:6) is out: copy() const& (:7) (as
    # c10::OptionalArrayRef::value and Tensor::expect_contiguous in 2.6.0)
    assert holder[line] == {("receiver-type", want)}


def test_a_qualified_constructor_call_is_the_constructor_taking_its_arguments(holder):
    # Holder.cpp:7 c10::Config() takes no argument: Config() (Holder.h:11), not the move constructor (:12)
    assert holder[7] == {("overload", 11)}


def test_unknown_arguments_taken_alike_leave_the_known_ones_to_decide(holder):
    # Holder.cpp:8 make_graph() is defined nowhere: its type is unknown, and both cast overloads take a void*
    # there; t is a long: cast(void*, long) (Holder.h:15), exact where the types are known (as
    # mps::castMPSTensor(graph, tensor, dtype) with dtype a ScalarType)
    assert holder[8] == {("argument-types", 15)}


OPTS_H = """\
#include <optional>
namespace c10 {
struct Device { Device(int type) {} };
struct Opts {
  Opts device(std::optional<Device> device) const { return *this; }                          // :5
  template <typename... Args> Opts device(Args&&... args) const { return *this; }            // :6
  template <typename T, typename = std::enable_if_t<sizeof(T) != 0>> Opts layout(T&& t) const { return *this; }  // :7
  Opts layout(long layout) const { return *this; }                                           // :8
};
}
"""
OPTS_CPP = """\
#include <ATen/native/Opts.h>
namespace at::native {
void use(c10::Opts o, int k, std::optional<c10::Device> d) {
  o.device(k);
  o.device(d);
  o.layout(k);
}
}
"""


def test_templates_that_sfinae_may_drop_are_marked():
    from tg_index.indexer import cxx

    f = cxx.extract(OPTS_H.encode(), N + "Opts.h")
    assert [(d.line, d.constrained) for d in f.definitions] == [  # :3 Device's constructor
        (3, False), (5, False), (6, False), (7, True), (8, False)]


def test_a_forwarding_template_takes_what_no_other_overload_takes_exactly(tmp_path):
    # Opts.cpp:4 o.device(k): Args&&... (Opts.h:6) binds an int as it is; optional<Device> (:5) needs a
    # user-defined conversion: the template, as TensorOptions::device(Args&&...) for `options.device(kCPU)`
    # (c10/core/TensorOptions.h:205-209); :5 d is an optional<Device> and :5 takes it by value: a tie the
    # non-template wins; :6 layout's template is constrained (enable_if): not assumed viable, nothing picked
    got = calls_by_line(built_tree(tmp_path, {
        N + "native_functions.yaml": YAML, N + "Opts.h": OPTS_H, N + "Opts.cpp": OPTS_CPP}), "Opts.cpp")
    assert got[4] == {("argument-types", 6)}
    assert got[5] == {("argument-types", 5)}
    assert got[6] == {("overload-set", 7), ("overload-set", 8)}


CATEGORY_H = """\
namespace at {
struct Tensor {};
struct Version { Version(int v) {} };
struct Config {
  Config& add(const Tensor& t) { return *this; }      // :5
  Config& add(Tensor&& t) { return *this; }           // :6
  void set(const Version& v) {}                       // :7
  void set(Version&& v) {}                            // :8
};
inline const Tensor& kept() { static Tensor t; return t; }
inline Tensor made() { return Tensor(); }
}
"""
CATEGORY_CPP = """\
#include <ATen/native/Category.h>
namespace at::native {
void use(Config c) {
  c.add(kept());
  c.add(made());
  c.set(Version(0));
}
}
"""


def test_a_call_s_value_category_is_its_declarator_s(tmp_path):
    # Category.cpp:4 kept() returns a const Tensor& (an lvalue: `& kept()`, definitions.returns drops the &):
    # add(const Tensor&) (Category.h:5), as TensorIteratorConfig().add_output(maybe_get_output()) in
    # native/TensorCompare.cpp; :5 made() returns by value, a prvalue: add(Tensor&&) (:6); :6 a class made in
    # place is a prvalue: set(Version&&) (:8)
    got = calls_by_line(built_tree(tmp_path, {
        N + "native_functions.yaml": YAML, N + "Category.h": CATEGORY_H, N + "Category.cpp": CATEGORY_CPP}),
        "Category.cpp", skip=("kept", "made", "Version"))
    assert got == {4: {("argument-types", 5)}, 5: {("argument-types", 6)}, 6: {("argument-types", 8)}}
