"""An `auto` variable initialized by a call too long to write out (a lambda among its arguments) is typed
by the call's function and argument count (receivers._long_call): `auto g = LookUp<CachedGraph>(key,
[&](...) {...}); g->graph()` is CachedGraph's graph, inherited from its base; `->` on a std::shared_ptr<T>
reaches T's members (the line numbers below are the sources')."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer import cxx

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """- func: scale(Tensor self, Scalar factor) -> Tensor
"""
GRAPHS_H = """\
namespace at { namespace native {
struct Graph { int size() const { return 0; } };
struct Cloud { int size() const { return 1; } };
struct CachedBase {
  Graph* graph() const { return nullptr; }
};
struct Plot {
  Graph* graph() const { return nullptr; }
};
template <typename T, typename F> T* LookUp(const char* key, F make) { return nullptr; }
}} // namespace at::native
"""
LAMBDA = "      int unused_" + "_".join(str(i) for i in range(60)) + " = 0;\n"
USER_CPP = """\
#include "Graphs.h"
namespace at { namespace native {
struct CachedGraph : CachedBase {};
int user() {
  auto g = LookUp<CachedGraph>("key", [&](auto graph, auto made) {
""" + LAMBDA * 3 + """  });
  g->graph();
  std::shared_ptr<Graph> shared;
  shared->size();
  return 0;
}
}} // namespace at::native
"""


def test_a_long_initializer_call_is_written_with_each_argument_elided():
    f = cxx.extract(USER_CPP.encode(), N + "User.mm")
    assert [(c.line, c.callee, c.receiver_type) for c in f.calls if c.callee == "g->graph"] == [
        (10, "g->graph", "decltype(LookUp<CachedGraph>(_,_))")]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("long_initializers"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "Graphs.h": GRAPHS_H, N + "User.mm": USER_CPP})


def _calls(db: Path, target: str) -> list[tuple]:
    """(line, target, how, definition:line) of the call edges written `target` in user()."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.line, e.target, e.how, d.name || ':' || d.line FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = 'at::native::user' AND e.kind = 'calls' "
            "AND e.target = ?", (target,)).fetchall()


def test_the_variable_is_typed_by_the_template_argument_the_function_returns(db: Path):
    assert _calls(db, "g->graph") == [(10, "g->graph", "receiver-type", "at::native::CachedBase::graph:5")]


def test_arrow_on_a_standard_smart_pointer_reaches_its_argument(db: Path):
    assert _calls(db, "shared->size") == [(12, "shared->size", "receiver-type", "at::native::Graph::size:2")]
