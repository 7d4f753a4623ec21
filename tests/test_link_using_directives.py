"""`using namespace NAME;` names the namespace NAME found from where it is written: inside at::native,
`using namespace mps;` brings in at::native::mps (mps/operations/*.mm). Every expected edge is read in the
sources below (their line numbers are the comments' `:N`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.link.stage import nominated

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: relu(Tensor self) -> Tensor
  dispatch:
    MPS: relu_mps
- func: leaky(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    MPS: leaky_out_mps
"""
UTILS_H = """\
namespace at::native::mps {
struct MPSCachedGraph {
  MPSGraph* graph() const { return graph_; }
};
struct MPSUnaryCachedGraph : public MPSCachedGraph {};
template <typename T> T* LookUpOrCreateCachedGraph(int key, int f) { return nullptr; }
}
"""
ACT_MM = """\
#include "Utils.h"
namespace at::native {
using namespace mps;
Tensor relu_mps(const Tensor& self) {
  using CachedGraph = MPSUnaryCachedGraph;
  auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(1, 2);
  run(cachedGraph->graph());
}
TORCH_IMPL_FUNC(leaky_out_mps)(const Tensor& self, const Tensor& output) {
  using CachedGraph = MPSUnaryCachedGraph;
  auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(1, 2);
  run(cachedGraph->graph());
}
}
"""


def test_a_directive_names_the_namespace_looked_up_from_its_scope():
    assert nominated("mps", "at::native", frozenset()) == ["at::native::mps", "at::mps", "mps"]
    assert nominated("::mps", "at::native", frozenset()) == ["mps"]
    assert nominated("c10::cuda", "", frozenset()) == ["c10::cuda"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("usings"), {
        N + "native_functions.yaml": YAML, N + "mps/Utils.h": UTILS_H, N + "mps/Act.mm": ACT_MM})


def test_calls_through_the_directive_resolve_in_plain_and_structured_kernels(db: Path):
    with sqlite3.connect(db) as conn:
        got = set(conn.execute("SELECT e.line, e.how, d.name FROM edges e LEFT JOIN nodes d ON d.id = e.dst "
                               "WHERE e.kind = 'calls' AND e.file LIKE '%Act.mm'"))
    # :6 and :11 found through `using namespace mps;` (:3), not by being the only name of the checkout; in a
    # structured kernel's impl an unqualified name lookup does not find was taken for a generated member
    for line in (6, 11):
        assert (line, "using", "at::native::mps::LookUpOrCreateCachedGraph") in got
    # :7 and :12 then typed by the template argument, through the function's alias (:5, :10)
    for line in (7, 12):
        assert (line, "receiver-type", "at::native::mps::MPSCachedGraph::graph") in got
