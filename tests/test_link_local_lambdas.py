"""A call of a variable of the caller that holds a lambda (`auto get_counts = [&](...) {...}; get_counts(x)`, as
native/TensorShape.cpp writes them) is the lambda's: how `local-lambda`, no target, the lambda's line in the
detail; a function elsewhere with the name (at::native::slice beside TensorShape.cpp:1493's local `slice`)
is not what it calls. The lambda body's own calls stay the caller's edges. Lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: count_thing(Tensor self) -> Tensor
  dispatch:
    CPU: count_thing_cpu
"""
HELP_H = """\
namespace at::native {
inline int slice(int a) { return a; }                              // :2
inline int helper(int a) { return a; }                             // :3
}
"""
COUNT_CPP = """\
#include <ATen/native/Help.h>
namespace at::native {
int count_thing_cpu(int n) {
  auto slice = [&](int x) {
    return helper(x);
  };
  std::function<int(int)> twice = [](int y) { return 2 * y; };
  return slice(n) + twice(n) + helper(n);
}
}
"""


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> set[tuple]:
    db = built_tree(tmp_path_factory.mktemp("lambdas"), {
        N + "native_functions.yaml": YAML, N + "Help.h": HELP_H, N + "Count.cpp": COUNT_CPP})
    return {(line, target, how, detail, at)
            for _file, line, target, how, detail, _name, at in call_edges(db, "Count.cpp")}


def test_a_call_of_a_local_lambda_names_its_line():
    f = cxx.extract(COUNT_CPP.encode(), N + "Count.cpp")
    # `slice(n) + twice(n) + helper(n)` is also two operator+ rows (operands the link stage types: calls.py)
    assert [(c.callee, c.line, c.lambda_line) for c in f.calls if not c.callee.startswith("operator")] == [
        ("helper", 5, None), ("slice", 8, 4), ("twice", 8, 7), ("helper", 8, None)]


def test_a_local_lambda_is_what_its_variable_s_call_reaches(edges):
    # Count.cpp:8 slice(n) is the lambda at :4, not Help.h:2; twice(n) the one at :7; helper(n) and the
    # lambda body's helper(x) (:5) are Help.h:3
    assert edges == {(8, "slice", "local-lambda", "a lambda at line 4", None),
                     (8, "twice", "local-lambda", "a lambda at line 7", None),
                     (8, "helper", "same-namespace", None, 3), (5, "helper", "same-namespace", None, 3)}
