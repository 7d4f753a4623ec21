"""The conditions that pick a Python call (python_api/branches.py, py_branches, py_flags) and how trace shows them."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.facts import Location
from tg_index.indexer.python_api import BranchFact, Condition, FlagFact, extract
from tg_index.queries.api import Index
from tg_index.queries.conditions import names_tested
from tg_index.queries.render import trace_data, trace_text

P = "torch/optim/fake.py"


def facts(src: str):
    return extract(textwrap.dedent(src).encode(), P)


def branches(src: str, caller: str = "torch.optim.fake.f") -> list[tuple[str, int, list[str]]]:
    return [(b.target, b.loc.line, [str(c) for c in b.conditions]) for b in facts(src).branches if b.caller == caller]


def test_if_elif_else_chain():
    src = """\
    import torch
    def f(x, fused=None):
        if fused:
            torch.add(x)
        elif x.is_cuda and not torch.jit.is_scripting():
            torch.mul(x)
        else:
            torch.sub(x)
        torch.neg(x)
    """
    f = facts(src)
    assert f.branches == (  # in the order of py_calls (ast.walk's under each statement)
        BranchFact("torch.optim.fake.f", "torch.add", Location(P, 4), (Condition("if", "fused", (), 3),)),
        BranchFact("torch.optim.fake.f", "torch.mul", Location(P, 6),
                   (Condition("elif", "x.is_cuda and not torch.jit.is_scripting()", ("fused",), 5),)),
        BranchFact("torch.optim.fake.f", "torch.sub", Location(P, 8),
                   (Condition("else", "", ("fused", "x.is_cuda and not torch.jit.is_scripting()"), 5),)),
        # an elif's test runs only when the earlier tests are false
        BranchFact("torch.optim.fake.f", "torch.jit.is_scripting", Location(P, 5), (Condition("else", "", ("fused",), 5),)),
    )
    assert [c.target for c in f.calls] == ["torch.add", "torch.mul", "torch.sub", "torch.jit.is_scripting",
                                           "torch.neg"]  # the calls are as before; only the first four are picked


def test_nested_if_and_an_else_holding_an_if_are_two_levels():
    src = """\
    import torch
    def f(x, a, b):
        if a:
            if b:
                torch.add(x)
        else:
            if b:
                torch.mul(x)
    """
    assert branches(src) == [("torch.add", 5, ["if a", "if b"]), ("torch.mul", 8, ["else: not (a)", "if b"])]


def test_conditional_expressions():
    src = """\
    import torch
    def f(x, inplace):
        y = torch.add(x) if inplace else torch.mul(x)
        op = torch.ops.aten.add_ if inplace else (torch.ops.aten.sub if x else torch.ops.aten.add)
        return op(y)
    """
    f = facts(src)
    assert branches(src) == [
        ("torch.add", 3, ["if inplace"]), ("torch.mul", 3, ["else: not (inplace)"]),
        ("torch.ops.aten.add_", 4, ["if inplace"]),
        ("torch.ops.aten.sub", 4, ["else: not (inplace)", "if x"]),
        ("torch.ops.aten.add", 4, ["else: not (inplace)", "else: not (x)"]),
    ]
    # the local alias assigned a conditional expression is a call of each of its values, at the assignment
    assert [(c.kind, c.name, c.loc.line) for c in f.calls if c.loc.line == 4] == [
        ("torch_ops", "aten::add_", 4), ("torch_ops", "aten::sub", 4), ("torch_ops", "aten::add", 4)]
    assert [c.kind for c in f.branches[0].conditions] == ["ifexp"]
    assert [c.kind for c in f.branches[-1].conditions] == ["ifexp_else", "ifexp_else"]


def test_alias_in_branches_like_an_optimizer():
    src = """\
    import torch
    def _fused(p): torch._fused_adam_(p)
    def _foreach(p): torch._foreach_add_(p)
    def _single(p): p.add_(1)
    def f(params, foreach=None, fused: bool = None, *, differentiable=False):
        if fused is None and foreach is None:
            _, foreach = _pick(params, differentiable)
        if fused:
            func = _fused
        elif foreach and not torch.jit.is_scripting():
            func = _foreach
        else:
            func = _single
        func(params)
    """
    assert [b for b in branches(src) if b[0] != "torch.jit.is_scripting"] == [
        ("_pick", 7, ["if fused is None and foreach is None"]),
        ("torch.optim.fake._fused", 9, ["if fused"]),
        ("torch.optim.fake._foreach", 11, ["elif foreach and not torch.jit.is_scripting()"]),
        ("torch.optim.fake._single", 13, ["else: not (fused), not (foreach and not torch.jit.is_scripting())"]),
    ]
    flags = [f for f in facts(src).flags if f.function == "torch.optim.fake.f"]
    cond = (Condition("if", "fused is None and foreach is None", (), 6),)
    assert flags == [
        FlagFact("torch.optim.fake.f", "foreach", "parameter", "foreach=None", (), Location(P, 5)),
        FlagFact("torch.optim.fake.f", "fused", "parameter", "fused=None", (),
                 Location(P, 5)),
        FlagFact("torch.optim.fake.f", "foreach", "assign", "_, foreach = _pick(params, differentiable)", cond,
                 Location(P, 7)),
    ]


def test_flags_are_only_names_the_tests_read():
    src = """\
    def f(a=1, b=2, *, c=3):
        x: int = 4
        x += a
        if x or c:
            return g()
    """
    assert [(f.name, f.kind, f.text, f.loc.line) for f in facts(src).flags] == [
        ("c", "parameter", "c=3", 1), ("x", "assign", "x: int = 4", 2), ("x", "assign", "x += a", 3)]


def test_test_text_as_written_on_one_line_else_unparsed():
    src = """\
    import torch
    def f(x):
        if x.name == "é" and (  # a comment
                x.ok):
            torch.add(x)
        if x.name == "é":
            torch.mul(x)
    """
    assert branches(src) == [("torch.add", 5, ["if x.name == 'é' and x.ok"]), ("torch.mul", 7, ["if x.name == \"é\""])]


def test_a_nested_def_keeps_its_conditions_and_module_level_calls_have_none():
    src = """\
    import torch
    if torch.cuda:
        torch.add(1)
    def f(x):
        if x:
            def g():
                return torch.mul(x)
            return g
    """
    assert [(b.caller, b.target, b.loc.line) for b in facts(src).branches] == [("torch.optim.fake.f", "torch.mul", 7)]


def test_a_file_that_does_not_parse_has_no_branches():
    f = facts("def f(:\n    if x: y()\n")
    assert (f.error, f.branches, f.flags) == ("torch/optim/fake.py:1: invalid syntax", (), ())


def test_names_tested_skips_a_test_that_does_not_parse():
    assert names_tested((Condition("if", "a and b.c", (), 1), Condition("else", "", ("(", "d"), 2))) == ["a", "b", "d"]


# --- trace on a checkout built here ------------------------------------------------------------------

OPTIM = '''\
import torch
from torch.optim.optimizer import Optimizer


def _default(params, differentiable):
    return False, not differentiable


def _fused_relu(x):
    torch.relu(x)


def _foreach_relu(x):
    torch.add(x, x)


def _single_relu(x):
    x.relu()


def relu_step(x, foreach=None, fused=None):
    if fused is None and foreach is None:
        _, foreach = _default(x, False)
    if fused:
        func = _fused_relu
    elif foreach:
        func = _foreach_relu
    else:
        func = _single_relu
    func(x)


class Opt(Optimizer):
    def __init__(self, params, foreach=None, fused=False):
        if fused and foreach:
            raise RuntimeError("not both")

    def step(self):
        relu_step(self.x, foreach=self.foreach, fused=self.fused)
'''


@pytest.fixture(scope="module")
def opt_ix(tmp_path_factory: pytest.TempPathFactory) -> Index:
    from .conftest import MINI
    import shutil

    root = tmp_path_factory.mktemp("optim") / "mini"
    shutil.copytree(MINI, root)
    (root / "torch/optim").mkdir()
    (root / "torch/optim/__init__.py").write_text("from .opt import Opt\n")
    (root / "torch/optim/optimizer.py").write_text("class Optimizer:\n    pass\n")
    (root / "torch/optim/opt.py").write_text(OPTIM)
    db = root.parent / "index.db"
    build(root, db)
    return Index.open(db)


O = "torch/optim/opt.py"


def test_trace_shows_the_condition_of_each_path_and_the_flags(opt_ix: Index):
    text = trace_text(opt_ix.trace("torch.optim.Opt"))
    assert text.split("aten ops reached")[0] == f"""\
torch.optim.Opt
  class torch.optim.opt.Opt  {O}:33
    step torch.optim.opt.Opt.step  {O}:38
      calls torch.optim.opt.relu_step  {O}:39 -> {O}:21
        calls torch.optim.opt._default  {O}:23 -> {O}:5  [if fused is None and foreach is None]
            flag fused: parameter fused=None of torch.optim.opt.relu_step  {O}:21
            flag fused: parameter fused=False of torch.optim.opt.Opt.__init__  {O}:34
            flag foreach: parameter foreach=None of torch.optim.opt.relu_step  {O}:21
            flag foreach: _, foreach = _default(x, False)  {O}:23  [if fused is None and foreach is None]
            flag foreach: parameter foreach=None of torch.optim.opt.Opt.__init__  {O}:34
        calls torch.optim.opt._fused_relu  {O}:25 -> {O}:9  [if fused]
          op relu  (torch.relu)  {O}:10
        calls torch.optim.opt._foreach_relu  {O}:27 -> {O}:13  [elif foreach]
          op add  (torch.add)  {O}:14
        calls torch.optim.opt._single_relu  {O}:29 -> {O}:17  [else: not (fused), not (foreach)]
          bound torch._tensor.Tensor.relu  {O}:18 -> torch/_tensor.py:6
            op relu  (torch._C.TensorBase.relu)  torch/_tensor.py:6
"""


def test_trace_json_carries_conditions_and_flags(opt_ix: Index):
    hops = {h["name"]: h for h in trace_data(opt_ix.trace("torch.optim.Opt"))["hops"] if h["depth"] == 3}
    assert hops["torch.optim.opt._foreach_relu"]["conditions"] == [
        {"kind": "elif", "test": "foreach", "negated": ["fused"], "line": 26, "text": "elif foreach"}]
    assert "flags" not in hops["torch.optim.opt._foreach_relu"]  # shown once, at the first hop testing them
    assert hops["torch.optim.opt._default"]["flags"][3] == {
        "name": "foreach", "kind": "assign", "text": "_, foreach = _default(x, False)",
        "function": "torch.optim.opt.relu_step", "file": O, "line": 23,
        "conditions": [{"kind": "if", "test": "fused is None and foreach is None", "negated": [], "line": 22,
                        "text": "if fused is None and foreach is None"}]}
    assert "conditions" not in trace_data(opt_ix.trace("torch.optim.opt._fused_relu"))["hops"][1]


def test_the_tables_hold_the_facts(opt_ix: Index):
    conn = opt_ix.conn
    rows = conn.execute("SELECT target, line, conditions FROM py_branches WHERE caller = 'torch.optim.opt.relu_step' "
                        "ORDER BY id").fetchall()
    assert [(t, ln, [c["kind"] for c in json.loads(c)]) for t, ln, c in rows] == [
        ("torch.optim.opt._default", 23, ["if"]), ("torch.optim.opt._fused_relu", 25, ["if"]),
        ("torch.optim.opt._foreach_relu", 27, ["elif"]), ("torch.optim.opt._single_relu", 29, ["else"])]
    assert conn.execute("SELECT count(*) FROM py_flags WHERE function = 'torch.optim.opt.Opt.__init__'").fetchone() == (2,)


def test_build_of_the_fixture_checkout_has_branch_rows(tmp_path: Path, mini: Path):
    db = tmp_path / "i.db"
    build(mini, db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM py_branches").fetchone()[0] == conn.execute(
            "SELECT count(*) FROM py_branches b JOIN py_calls c ON c.caller = b.caller AND c.target = b.target "
            "AND c.file = b.file AND c.line = b.line").fetchone()[0]  # every row is the condition of a call
