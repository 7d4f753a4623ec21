"""Template parameters deduced from a call's arguments, and member calls on a variable of a type parameter
(link/template_args.py, Resolver.through_parameter): `run_launcher<float>(x, KthLauncher())` makes
run_launcher's `l.template launch<...>(x)` KthLauncher::launch, as in cuda/SortingCommon.cuh:151 with
cuda/Sorting.cu:254 of 2.6.0; `binary_kernel_reduce(iter, ArgMaxOps<scalar_t>{}, ...)` makes cpu/Reduce.h's
`ops.reduce(...)` ArgMaxOps::reduce. The fixture is written here, and each expected edge is read in it (line
numbers are the fixture's)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.queries.api import Index

N = "aten/src/ATen/native/"
HEADER = """\
namespace at { namespace native {
template <typename scalar_t, typename Launcher>
void run_launcher(int x, const Launcher& l) {
  l.template launch<scalar_t, 1>(x);
}
template <typename ops_t>
void reduce_all(int x, ops_t ops) {
  ops.reduce(x);
  ops.combine(x, x);
}
template <typename ops_t>
void reduce_outer(int x, ops_t ops) {
  reduce_all(x, ops);
}
template <typename T>
int unbound_member(T t) {
  return t.numel();
}
struct Sizes { int numel() const { return 1; } };
template <typename T> struct ArgBase { int reduce(int x) const { return x; } int combine(int a, int b) const { return b; } };
}}
"""
SOURCE = """\
#include "Deduce.cuh"
namespace at { namespace native {
__global__ void kth_kernel(int x) {} __global__ void sum_dev(int x) {} __global__ void max_dev(int x) {} __global__ void other_kernel(int x) {}
struct KthLauncher {
  template <typename scalar_t, int dims>
  void launch(int x) const { kth_kernel<<<1, 1>>>(x); }
};
struct SumOps { int reduce(int x) const { sum_dev<<<1, 1>>>(x); return x; } int combine(int a, int b) const { return a; } };
struct MaxOps { int reduce(int x) const { max_dev<<<1, 1>>>(x); return x; } int combine(int a, int b) const { return a; } };
template <typename T> struct ArgOps : ArgBase<T> {};  // its members are its base's
// Sizes is the header's
void launch_kth(int x) {
  run_launcher<float>(x, KthLauncher());
}
void sum_kernel(int x) { reduce_all(x, SumOps{}); }
void max_kernel(int x) { MaxOps ops; reduce_outer(x, ops); }
void arg_kernel(int x) { reduce_all(x, ArgOps<float>{}); }
struct OtherLauncher { template <typename scalar_t, int dims> void launch(int x) const { other_kernel<<<1, 1>>>(x); } };
}}
"""
COUNT = """\
#include "Deduce.cuh"
namespace at { namespace native {
void count(int x) { unbound_member(x); }
}}
"""
YAML = """\
- func: kth(Tensor self) -> Tensor
  dispatch:
    CUDA: launch_kth
- func: summed(Tensor self) -> Tensor
  dispatch:
    CUDA: sum_kernel
- func: argd(Tensor self) -> Tensor
  dispatch:
    CPU: arg_kernel
"""


def _tree(root: Path) -> Path:
    cuda = root / N / "cuda"
    cuda.mkdir(parents=True)
    (cuda / "Deduce.cuh").write_text(HEADER)
    (cuda / "Deduce.cu").write_text(SOURCE)
    (cuda / "Count.cu").write_text(COUNT)
    (root / N / "native_functions.yaml").write_text(YAML)
    return root


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _tree(tmp_path_factory.mktemp("deduce"))
    out = root / "ix.db"
    build(root, out, jobs=1)
    return out


def edges(db: Path, src: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.target, e.how, d.name, e.line, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? AND e.kind = 'calls' ORDER BY e.id",
            (src,)).fetchall()


SITE = f"{N}cuda/Deduce.cu"


def test_an_object_made_by_braces_is_an_argument_of_its_type(db: Path):
    with sqlite3.connect(db) as conn:
        got = dict(conn.execute("SELECT caller, arg_types FROM calls WHERE callee = 'reduce_all' AND file = ?",
                                (SITE,)))
    assert got == {"at::native::sum_kernel": '["int&","SumOps"]', "at::native::arg_kernel": '["int&","ArgOps<float>"]'}


def test_a_member_call_on_a_deduced_parameter_calls_the_class_of_the_argument(db: Path):
    assert edges(db, "at::native::run_launcher") == [  # Deduce.cuh:4, bound at Deduce.cu:13
        ("l.launch<scalar_t,1>", "template-argument", "at::native::KthLauncher::launch", 4,
         f"Launcher = KthLauncher (deduced) at {SITE}:13")]


def test_every_call_site_binds_its_own_class_also_through_a_template_that_hands_it_on(db: Path):
    sum_, arg = f"ops_t = SumOps (deduced) at {SITE}:15", f"ops_t = ArgOps<float> (deduced) at {SITE}:17"
    most = f"ops_t = MaxOps (deduced) at {SITE}:16"  # max_kernel -> reduce_outer(x, ops) -> reduce_all(x, ops)
    assert sorted(edges(db, "at::native::reduce_all")) == sorted([
        ("ops.reduce", "template-argument", "at::native::SumOps::reduce", 8, sum_),
        ("ops.reduce", "template-argument", "at::native::MaxOps::reduce", 8, most),
        ("ops.reduce", "template-argument", "at::native::ArgBase::reduce", 8, arg),
        ("ops.combine", "template-argument", "at::native::SumOps::combine", 9, sum_),
        ("ops.combine", "template-argument", "at::native::MaxOps::combine", 9, most),
        ("ops.combine", "template-argument", "at::native::ArgBase::combine", 9, arg)])


def test_a_member_call_no_call_site_binds_keeps_what_lookup_by_name_found(db: Path):
    # count() passes an int (Count.cu:3): nothing to bind, so `t.numel()` stays the call lookup made of it
    [(target, how, name, line, _detail)] = edges(db, "at::native::unbound_member")
    assert (target, line) == ("t.numel", 17) and how != "template-argument"
    assert how in ("unique-name", "ambiguous", "not-in-checkout") and name in (None, "at::native::Sizes::numel")


def test_kernels_for_reaches_the_kernel_the_deduced_launcher_launches(db: Path):
    [answer] = Index.open(db).kernels_for("kth")
    [cuda] = answer.keys
    steps = [(s.kind, s.name) for s in cuda.chain]
    assert ("call", "at::native::KthLauncher::launch") in steps
    assert ("global_kernel", "at::native::kth_kernel") in steps
    assert ("call", "at::native::OtherLauncher::launch") not in steps  # a namesake no call site binds
    assert ("global_kernel", "at::native::other_kernel") not in steps


def test_kernels_for_follows_only_its_own_call_sites_binding(db: Path):
    [answer] = Index.open(db).kernels_for("summed")
    [cuda] = answer.keys
    names = [s.name for s in cuda.chain]
    assert "at::native::SumOps::reduce" in names and "at::native::sum_dev" in names
    assert not any(n.endswith(("MaxOps::reduce", "ArgBase::reduce", "max_dev")) for n in names)  # other sites'


def test_a_walk_shows_what_its_own_call_site_hands_the_template_though_it_does_no_device_work(db: Path):
    # arg_kernel (Deduce.cu:17) hands reduce_all ArgOps<float>, whose reduce and combine are ArgBase's: the
    # innermost loop functions of a CPU reduction, shown though nothing below them is device work
    [answer] = Index.open(db).kernels_for("argd")
    [cpu] = answer.keys
    names = [s.name for s in cpu.chain]
    assert "at::native::ArgBase::reduce" in names and "at::native::ArgBase::combine" in names
    assert not any(n.endswith(("SumOps::reduce", "MaxOps::reduce")) for n in names)


@pytest.mark.parametrize("path, old, new, how", [
    # a call site deduces another class: the template's edges change, so the graph is linked whole
    ("Deduce.cu", "reduce_all(x, SumOps{})", "reduce_all(x, MaxOps{})", "whole"),
    # a call site that deduced a class goes: linked whole
    ("Deduce.cu", "void arg_kernel(int x) { reduce_all(x, ArgOps<float>{}); }", "void arg_kernel(int x) {}", "whole"),
    # a file whose call deduces an int, no class, for a parameter a template calls through: linked in place
    ("Count.cu", "}}", "void more() { unbound_member(2); }\n}}", "incremental"),
    # ... and one whose new call deduces a class for it: linked whole
    ("Count.cu", "}}", "void more(Sizes s) { unbound_member(s); }\n}}", "whole"),
])
def test_a_rebuild_deduces_as_a_cold_build(path: str, old: str, new: str, how: str, tmp_path: Path):
    from .test_link_incremental import graph, meta
    root = _tree(tmp_path / "tree")
    db, cold = tmp_path / "ix.db", tmp_path / "cold.db"
    build(root, db, jobs=1)
    edited = root / N / "cuda" / path
    edited.write_text(edited.read_text().replace(old, new, 1))
    build(root, db, jobs=1)
    build(root, cold, jobs=1)
    assert meta(db, "linked") == how
    assert graph(db) == graph(cold)
