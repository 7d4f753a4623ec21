"""Calls through a template parameter (link/template_args.py): bound to the arguments the call sites
write, never to a definition that only shares the parameter's name. The fixture is written here, and
each expected edge is read in it (line numbers are the fixture's)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.queries.api import Index

N = "aten/src/ATen/native/"
HEADER = """\
namespace at { namespace native {
namespace templates {
template <template <typename> class sample_kernel, typename RNG>
void sample_impl_(int& self, double p) {
  sample_kernel<RNG>()(self, p);
}
template <typename Op>
int apply_impl(int x) {
  return Op::apply(x);
}
template <typename T>
T twice(T x) {
  return T(x);
}
template <void (*fn)(int)>
void call_value(int x) {
  fn(x);
}
template <typename Op>
int forward_impl(int x) {
  return apply_impl<Op>(x);
}
template <typename U>
U deduced(U x) {
  return U(x);
}
}  // namespace templates
}}
"""
SOURCE = """\
#include "Dist.h"
namespace at { namespace native {
void fill_one(int x) {}
template <typename RNG>
struct SampleStub {
  void operator()(int& self, double p) { fill_one(self); }
};
struct AddOp { static int apply(int x) { return x + 1; } };
void sample_(int& self, double p) {
  templates::sample_impl_<SampleStub, int>(self, p);
  templates::call_value<fill_one>(2);
  templates::forward_impl<AddOp>(3);
  templates::twice<float>(4); templates::deduced(5);
}
template <typename RNG>
struct SampleMeta {
  void operator()(int& self, double p) {}
};
void sample_meta_(int& self, double p) { templates::sample_impl_<SampleMeta, int>(self, p); }
}}
"""
NAMESAKE = """\
namespace at { namespace native {
void sample_kernel(int& self, double p) {}
}}
"""


def _tree(root: Path) -> Path:
    native = root / N
    (native / "cuda").mkdir(parents=True)
    (native / "Dist.h").write_text(HEADER)
    (native / "Dist.cpp").write_text(SOURCE)
    (native / "cuda" / "Namesake.cu").write_text(NAMESAKE)
    (native / "native_functions.yaml").write_text("- func: sample_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n"
                                                  "    CPU: sample_\n    Meta: sample_meta_\n")
    return root


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _tree(tmp_path_factory.mktemp("tparams"))
    out = root / "ix.db"
    build(root, out, jobs=1)
    return out


def edges(db: Path, src: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.kind, e.target, e.how, d.name, e.line, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? AND e.kind IN ('calls', 'runs-functor') "
            "ORDER BY e.id", (src, )).fetchall()


def test_the_template_parameters_are_facts(db: Path):
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute("SELECT name, template_params FROM definitions WHERE file = ?", (f"{N}Dist.h",)))
    assert got == {"sample_impl_": '["sample_kernel:template", "RNG:type"]', "apply_impl": '["Op:type"]',
                   "twice": '["T:type"]', "call_value": '["fn:value"]', "forward_impl": '["Op:type"]',
                   "deduced": '["U:type"]'}


def test_a_template_template_parameter_runs_the_functor_its_caller_passes(db: Path):
    stub, meta = f"sample_kernel = SampleStub at {N}Dist.cpp:10", f"sample_kernel = SampleMeta at {N}Dist.cpp:19"
    functor, made, called = "template-argument", "sample_kernel<RNG>", "sample_kernel<RNG>()"
    assert edges(db, "at::native::templates::sample_impl_") == [  # Dist.h:5, never Namesake.cu's sample_kernel
        ("runs-functor", made, functor, "at::native::SampleStub::operator()", 5, stub),
        ("runs-functor", made, functor, "at::native::SampleMeta::operator()", 5, meta),
        ("calls", called, functor, "at::native::SampleStub::operator()", 5, stub),
        ("calls", called, functor, "at::native::SampleMeta::operator()", 5, meta)]


def test_a_type_parameter_names_the_class_its_caller_passes_even_when_forwarded(db: Path):
    # forward_impl<AddOp> (Dist.cpp:12) passes its Op on to apply_impl<Op> (Dist.h:21)
    assert edges(db, "at::native::templates::apply_impl") == [
        ("calls", "Op::apply", "template-argument", "at::native::AddOp::apply", 9, f"Op = AddOp at {N}Dist.cpp:12")]


def test_a_value_parameter_calls_the_function_passed(db: Path):
    assert edges(db, "at::native::templates::call_value") == [
        ("calls", "fn", "template-argument", "at::native::fill_one", 17, f"fn = fill_one at {N}Dist.cpp:11")]


def test_a_parameter_bound_to_a_builtin_or_deduced_is_a_type(db: Path):
    assert edges(db, "at::native::templates::twice") == [  # twice<float> (Dist.cpp:13)
        ("calls", "T", "type", None, 13, f"T = float at {N}Dist.cpp:13")]
    assert edges(db, "at::native::templates::deduced") == [  # deduced(5) (Dist.cpp:13) writes no argument
        ("calls", "U", "type", None, 25, "template parameter U: no call site in the checkout writes its argument")]


def test_kernels_for_follows_the_functor_its_own_call_site_binds(db: Path):
    [answer] = Index.open(db).kernels_for("sample_")
    names = {k.key: [s.name for s in k.chain] for k in answer.keys}
    # CPU comes through Dist.cpp:10 (SampleStub), Meta through Dist.cpp:19 (SampleMeta): one template, two bindings
    assert [n for n in names["CPU"] if n.endswith("operator()")] == ["at::native::SampleStub::operator()"]
    assert [n for n in names["Meta"] if n.endswith("operator()")] == ["at::native::SampleMeta::operator()"]
    assert all("at::native::sample_kernel" not in chain for chain in names.values())


def test_ops_for_a_qualified_name_means_that_definition_only(db: Path):
    ix = Index.open(db)
    stub, meta = ix.ops_for("at::native::SampleStub::operator()"), ix.ops_for("SampleMeta::operator()")
    assert {(h.op, h.key) for h in stub.hits} == {("sample_", "CPU")}  # not SampleMeta's operator() as well
    assert {(h.op, h.key) for h in meta.hits} == {("sample_", "Meta")}


@pytest.mark.parametrize("path, old, new, how", [
    # a call site writes another argument: the template's edges change, so the graph is linked whole
    ("Dist.cpp", "sample_impl_<SampleStub, int>", "sample_impl_<SampleMeta, int>", "whole"),
    # the call sites move: so do the bindings' details, those to a type (twice's T = float) too
    ("Dist.cpp", "void fill_one(int x) {}", "\n\nvoid fill_one(int x) {}", "whole"),
    # a new call site binds a parameter whose only binding so far is to a type (twice's T = float)
    ("cuda/Namesake.cu", "}}", "void use_twice() { templates::twice<double>(1); }\n}}", "whole"),
    # nothing a template's parameters are bound to is touched: linked in place
    ("cuda/Namesake.cu", "}}", "void unrelated() {}\n}}", "incremental"),
])
def test_a_rebuild_binds_as_a_cold_build(path: str, old: str, new: str, how: str, tmp_path: Path):
    from .test_link_incremental import graph, meta
    root = _tree(tmp_path / "tree")
    db, cold = tmp_path / "ix.db", tmp_path / "cold.db"
    build(root, db, jobs=1)
    edited = root / N / path
    edited.write_text(edited.read_text().replace(old, new, 1))
    build(root, db, jobs=1)
    build(root, cold, jobs=1)
    assert meta(db, "linked") == how
    assert graph(db) == graph(cold)


OVERLOADED = """\
namespace at { namespace native {
struct Tensor {};
void tensor_path(Tensor& self) {}
void scalar_path(Tensor& self) {}
template <typename RNG>
struct PickStub {
  void operator()(Tensor& self, const Tensor& p) { tensor_path(self); }
  void operator()(Tensor& self, double p) { scalar_path(self); }
};
template <template <typename> class pick_kernel, typename RNG>
void pick_impl_(Tensor& self, double p) {
  pick_kernel<RNG>()(self, p);
}
template <template <typename> class pick_kernel, typename RNG>
void pick_impl_(Tensor& self, const Tensor& p) {
  pick_kernel<RNG>()(self, p);
}
void pick_(Tensor& self, double p) { pick_impl_<PickStub, int>(self, p); }
void pick_(Tensor& self, const Tensor& p) { pick_impl_<PickStub, int>(self, p); }
}}
"""


@pytest.fixture(scope="module")
def overloaded_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tparams-overloaded")
    (root / N).mkdir(parents=True)
    (root / N / "Pick.cpp").write_text(OVERLOADED)
    (root / N / "native_functions.yaml").write_text("- func: pick_(Tensor(a!) self) -> Tensor(a!)\n")
    out = root / "ix.db"
    build(root, out, jobs=1)
    return out


def test_a_functor_made_and_called_runs_the_operator_its_argument_types_choose(overloaded_db: Path):
    """`pick_kernel<RNG>()(self, p)` with p a double calls PickStub's operator()(Tensor&, double) (Pick.cpp:8),
    with p a Tensor its operator()(Tensor&, const Tensor&) (Pick.cpp:7); so does the object made, which nothing
    else uses. Without argument types the call would reach both."""
    with sqlite3.connect(overloaded_db) as conn:
        got = conn.execute(
            "SELECT s.line, e.kind, d.line FROM edges e JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = e.dst "
            "WHERE s.name = 'at::native::pick_impl_' AND e.how = 'template-argument' ORDER BY s.line, e.id").fetchall()
    assert got == [(11, "runs-functor", 8), (11, "calls", 8), (15, "runs-functor", 7), (15, "calls", 7)]
