"""kernels-for against the hand-verified traces of hand_traces_Y1.py: every step the expert wrote down
(file:line read in the sources) must be among the places the answer for that key carries, and ops-for
must lead back from the key's kernel to the op."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from tg_index.indexer.facts import Location
from tg_index.queries.results import Backward, Formula, KernelsFor, KeyKernel, Step

from ..conftest import real_tree
from .hand_traces_model import Expect, Trace
from .hand_traces_Y1 import TRACES
from .hand_traces_gaps import GAPS

DEPTH = 8
NEAREST = 3  # collected items of the same file shown for each missing step
LOOKBACK = 3  # lines above a `<<<` where the launched kernel's name may be written


@dataclass(frozen=True)
class Item:
    """A place an answer carries: a name (and detail) at file:line."""

    name: str
    detail: str
    file: str
    line: int
    what: str

    def __str__(self) -> str:
        detail = f" [{self.detail}]" if self.detail else ""
        return f"{self.what} {self.name}{detail} {self.file}:{self.line}"


def _step_item(step: Step) -> Item | None:
    if step.loc is None:
        return None
    return Item(step.name, step.detail or "", step.loc.file, step.loc.line, str(step.kind))


def _backward_items(entry: Backward) -> list[Item]:
    items = [Item(entry.op, entry.signature, entry.location.file, entry.location.line, "backward")]
    items += [_formula_item(f) for f in entry.formulas]
    return items


def _formula_item(formula: Formula) -> Item:
    return Item(", ".join(formula.names), formula.formula, formula.location.file, formula.location.line, "formula")


def collect(answer: KernelsFor, row: KeyKernel) -> list[Item]:
    """Every (name, file, line) the answer carries for one key: the kernel's definition, each chain step,
    and the op's meta function and backward entries."""
    items = []
    if row.definition is not None:
        items.append(Item(row.qualified_name or row.kernel, row.kernel, row.definition.file, row.definition.line,
                          "definition"))
    items += [i for i in map(_step_item, row.chain) if i is not None]
    items += [Item(s.name, s.detail or "", s.site.file, s.site.line, f"{s.kind} site") for s in row.chain
              if s.site is not None]
    if answer.meta is not None and (meta := _step_item(answer.meta)) is not None:
        items.append(meta)
    items += [i for entry in answer.backward for i in _backward_items(entry)]
    items += [i for i in map(_step_item, answer.backward_calls) if i is not None]
    return items


def matches(expect: Expect, item: Item) -> bool:
    return item.file == expect.file and item.line == expect.line and (expect.name in item.name
                                                                      or expect.name in item.detail)


def missing_report(steps: tuple[Expect, ...], items: list[Item]) -> str:
    """'' when every step is matched; else each missing step with the nearest collected items of its file."""
    lines = []
    for expect in steps:
        if any(matches(expect, item) for item in items):
            continue
        near = sorted((i for i in items if i.file == expect.file), key=lambda i: abs(i.line - expect.line))
        shown = "; ".join(map(str, near[:NEAREST])) or "nothing collected in that file"
        lines.append(f"missing {expect.what} {expect.name!r} at {expect.at} (nearest: {shown})")
    return "\n".join(lines)


def key_row(answer: KernelsFor, key: str) -> KeyKernel:
    rows = [r for r in answer.keys if r.key == key]
    assert rows, f"{answer.op}: no {key} row among {[r.key for r in answer.keys]}"
    return rows[0]


def answer_for(index, op: str) -> KernelsFor:
    answers = [a for a in index.kernels_for(op, depth=DEPTH) if a.op == op]
    assert len(answers) == 1, f"{op}: {len(answers)} answers"
    return answers[0]


def _index(request: pytest.FixtureRequest, tree: str):
    return request.getfixturevalue("ix" if tree == "2.6.0" else "old")


@pytest.mark.parametrize("trace", TRACES, ids=[t.id for t in TRACES])
def test_trace_reaches_every_step(request: pytest.FixtureRequest, trace: Trace) -> None:
    """Every step is reached, except the known gaps of hand_traces_gaps.py, which must still be missing."""
    answer = answer_for(_index(request, trace.tree), trace.op)
    items = collect(answer, key_row(answer, trace.key))
    gaps = GAPS.get(f"Y1:{trace.id}", {})
    expected = tuple(e for e in trace.steps if (e.at, e.name) not in gaps)
    report = missing_report(expected, items)
    assert not report, f"{trace.op} {trace.key} ({trace.tree}, {trace.why}):\n{report}"
    closed = [e.at for e in trace.steps if (e.at, e.name) in gaps and any(matches(e, i) for i in items)]
    assert not closed, f"reached now, take off hand_traces_gaps.py: {closed}"


def kernel_function(row: KeyKernel, trace: Trace) -> str:
    """The key's kernel function: its definition's qualified name; for a kernel PyTorch generates (no
    definition in the checkout) the first step of the trace, which names the kernel."""
    return row.qualified_name if row.definition is not None and row.qualified_name else trace.steps[0].name


@pytest.mark.parametrize("trace", TRACES, ids=[t.id for t in TRACES])
def test_ops_for_finds_the_op(request: pytest.FixtureRequest, trace: Trace) -> None:
    index = _index(request, trace.tree)
    name = kernel_function(key_row(answer_for(index, trace.op), trace.key), trace)
    found = sorted({(hit.op, hit.key) for hit in index.ops_for(name)})
    assert trace.op in {op for op, _key in found}, f"ops-for {name}: {trace.op} not among {found[:20]}"


# -- the data itself, read against the trees -------------------------------------------------------


def _source_line(tree: str, expect: Expect) -> str:
    path = real_tree(tree) / expect.file
    assert path.is_file(), f"{expect.at}: no such file in {tree}"
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    assert expect.line <= len(lines), f"{expect.at}: {tree}'s file has {len(lines)} lines"
    return lines[expect.line - 1]


def _written_at(tree: str, expect: Expect) -> bool:
    """The step's name (its last `::` part) is written on its line; for a launch, whose line is the `<<<`,
    also on one of the LOOKBACK lines before; a step PyTorch generates at build time is not written anywhere."""
    if expect.what == "generated":
        _source_line(tree, expect)
        return True
    stem = expect.name.split("::")[-1]
    line = _source_line(tree, expect)
    if stem in line:
        return True
    before = range(max(1, expect.line - LOOKBACK), expect.line)
    return "<<<" in line and any(stem in _source_line(tree, Expect(expect.name, f"{expect.file}:{n}", expect.what))
                                 for n in before)


@pytest.mark.parametrize("trace", TRACES, ids=[t.id for t in TRACES])
def test_every_step_names_its_line(trace: Trace) -> None:
    """Each step points at a line of the tree that writes its name: a typo in the data fails here."""
    wrong = [f"{e.at}: {e.name!r} not in {_source_line(trace.tree, e).strip()!r}" for e in trace.steps
             if not _written_at(trace.tree, e)]
    assert not wrong, "\n".join(wrong)


def test_every_trace_is_listed_once() -> None:
    ids = [t.id for t in TRACES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


# -- the matcher, on an answer made by hand ----------------------------------------------------------


def _fake_answer() -> KernelsFor:
    here = Location("aten/src/ATen/native/Foo.cpp", 10)
    chain = (Step("stub", "foo_stub", Location("aten/src/ATen/native/Foo.cpp", 20)),
             Step("registered", "foo_kernel", Location("aten/src/ATen/native/cuda/Foo.cu", 30), "CUDA"),
             Step("launch", "foo_global", Location("aten/src/ATen/native/cuda/Foo.cu", 40), detail="<<<grid>>>"),
             Step("op", "bar", None))
    row = KeyKernel("CUDA", "foo_out", "yaml", "at::native", None, Location("native_functions.yaml", 5),
                    here, "at::native::foo_out", chain=chain)
    backward = Backward("foo", "foo(Tensor self)", None, None, (), (Formula(("self",), "formula", "grad * 2",
                                                                          Location("tools/derivatives.yaml", 7)),),
                        Location("tools/derivatives.yaml", 6))
    return KernelsFor("foo.out", "foo.out(...)", Location("native_functions.yaml", 4), False, None, (row,),
                      (backward,), Step("meta_func", "at::meta::foo", Location("aten/src/ATen/native/Foo.cpp", 3)))


def test_matcher_on_a_made_up_answer() -> None:
    answer = _fake_answer()
    items = collect(answer, key_row(answer, "CUDA"))
    assert [str(i) for i in items] == [
        "definition at::native::foo_out [foo_out] aten/src/ATen/native/Foo.cpp:10",
        "stub foo_stub aten/src/ATen/native/Foo.cpp:20",
        "registered foo_kernel aten/src/ATen/native/cuda/Foo.cu:30",
        "launch foo_global [<<<grid>>>] aten/src/ATen/native/cuda/Foo.cu:40",
        "meta_func at::meta::foo aten/src/ATen/native/Foo.cpp:3",
        "backward foo [foo(Tensor self)] tools/derivatives.yaml:6",
        "formula self [grad * 2] tools/derivatives.yaml:7",
    ]
    steps = (Expect("foo_out", "aten/src/ATen/native/Foo.cpp:10", "kernel"),
             Expect("grid", "aten/src/ATen/native/cuda/Foo.cu:40", "launch"),
             Expect("foo(Tensor", "tools/derivatives.yaml:6", "backward"),
             Expect("foo_kernel", "aten/src/ATen/native/cuda/Foo.cu:31", "registered"),
             Expect("baz", "aten/src/ATen/native/Other.cpp:1", "call"))
    assert missing_report(steps, items) == (
        "missing registered 'foo_kernel' at aten/src/ATen/native/cuda/Foo.cu:31 (nearest: registered foo_kernel"
        " aten/src/ATen/native/cuda/Foo.cu:30; launch foo_global [<<<grid>>>] aten/src/ATen/native/cuda/Foo.cu:40)\n"
        "missing call 'baz' at aten/src/ATen/native/Other.cpp:1 (nearest: nothing collected in that file)")
    assert missing_report(steps[:3], items) == ""
