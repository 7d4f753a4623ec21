"""An #if group inside an argument list whose branches are arguments: 2.6.0
aten/src/ATen/native/transformers/cuda/sdp_utils.cpp:663-673 writes `array_of<...>(check_runtime_disabled_mem_efficient,
...` / `#ifdef USE_ROCM` / `check_head_dim_size_flash<true /* caller_is_meff */>` / `#else` /
`check_head_dim_size_mem_efficient` / `#endif` / `);`. tree-sitter reads no directive inside an expression:
can_use_mem_efficient_attention (:647) ended at :705, and its checks after it were read outside any function.
prepare.py keeps the group's last branch, as a compiler keeps one (1.13.1 cuda/Blas.cpp:255, gemm_and_bias, whose
last argument is written under `#if 0` / `#else`, keeps its argument count); the lines keep their guards."""

from __future__ import annotations

from tg_index.indexer.cxx import extract
from tg_index.indexer.cxx.prepare import prepare

SOURCE = b"""\
namespace at::native {

bool can_use(int params, bool debug) {
  constexpr auto general = array_of<bool (*)(int, bool)>(
      check_on_device,
      check_shapes,
#ifdef USE_ROCM
      check_head_dim_flash<true /* caller */>
#else
      check_head_dim_efficient
#endif
  );
  if (has_nested(params)) {
    constexpr auto nested = array_of<bool (*)(int, bool)>(
#ifndef USE_ROCM  // a comment
        check_requires_grad,
#else
        check_head_dim_nested<true>,
#endif
        check_batch_size);
    run(nested);
  }
  return check_dtype(params, debug);
}

void after(int x) { tail(x); }

int sum(int a,
#if defined(EXTRA)
        int b;
#endif
        int c);

}  // namespace at::native
"""


def test_the_function_ends_where_it_is_closed_and_keeps_its_calls() -> None:
    facts = extract(SOURCE, "aten/src/ATen/native/transformers/cuda/sdp.cpp")
    got = {d.name: (d.line, d.end_line) for d in facts.definitions}
    assert got["can_use"] == (3, 24)
    assert got["after"] == (26, 26)
    calls = {(c.caller.rsplit("::", 1)[-1], c.callee, c.line) for c in facts.calls if c.caller}
    for caller, callee, line in (("can_use", "has_nested", 13), ("can_use", "run", 21),
                                 ("can_use", "check_dtype", 23), ("after", "tail", 26)):
        assert (caller, callee, line) in calls, (caller, callee, line)


def test_the_last_branch_is_kept_and_the_argument_count_stays() -> None:
    prepared, _spans = prepare(SOURCE, "aten/src/ATen/native/transformers/cuda/sdp.cpp")
    assert len(prepared) == len(SOURCE)
    lines, written = prepared.split(b"\n"), SOURCE.split(b"\n")
    changed = [i + 1 for i, (a, b) in enumerate(zip(lines, written)) if a != b]
    assert changed == [7, 8, 9, 11, 15, 16, 17, 19]  # the directives and the first branches
    assert all(not lines[k - 1].strip() for k in changed)
    facts = extract(SOURCE, "aten/src/ATen/native/transformers/cuda/sdp.cpp")
    argc = {c.line: c.argc for c in facts.calls if c.callee_name == "array_of"}
    assert argc == {4: 3, 14: 2}  # as one build compiles them
    # a branch with a `;` is no argument: that group stays
    assert lines[27:31] == written[27:31]
