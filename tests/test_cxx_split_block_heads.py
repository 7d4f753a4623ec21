"""An #if whose branches are alternative heads of one block: 2.6.0
aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp:1702-1706 writes `#ifdef CPU_CAPABILITY_AVX2` /
`if (vec_width == 8) {` / `#else` / `if (vec_width == 16) {` / `#endif`, one `}` closing whichever was compiled.
tree-sitter reads both heads, a block more than the file closes, and from there to the file's end everything was
one ERROR node: do_avg_pool_nhwc_on_AVX_n (:1671), do_avg_pool_on_AVX_n (:1756) and
do_quantized_bilinear_on_AVX_n (:2203) were not read as definitions. prepare.py keeps the last branch of such a
group, as it does for split declarations; namespace heads (TopKImpl.h:7-11) and branches that each close what they
open stay as they are."""

from __future__ import annotations

from tg_index.indexer.cxx import extract
from tg_index.indexer.cxx.prepare import prepare

SPLIT = b"""\
namespace at::native {
namespace {
template <typename T>
void pool_on_avx(int c_start, int csize) {
  constexpr int vec_width = 8;
#ifdef CPU_CAPABILITY_AVX2
  if (vec_width == 8) {
#else
  if (vec_width == 16) { // the wider one
#endif
    for (int c = c_start; c < csize; c += vec_width) {
      accumulate(c);
    }
  }
}

void after_the_block(int n) {
#if defined(FAST)
  if (n > 0) { run_fast(n); }
#else
  if (n > 0) { run(n); }
#endif
  finish(n);
}

#ifdef CPU_CAPABILITY
inline namespace CPU_CAPABILITY {
#else
inline namespace DEFAULT {
#endif
void in_the_capability(int n) { after_the_block(n); }
} // namespace CPU_CAPABILITY
} // namespace
} // namespace at::native
"""


def test_the_definitions_after_the_block_are_read() -> None:
    facts = extract(SPLIT, "aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp")
    got = {(d.name, d.line, d.end_line) for d in facts.definitions}
    assert ("pool_on_avx", 4, 15) in got
    assert ("after_the_block", 17, 24) in got
    calls = {(c.caller.rsplit("::", 1)[-1], c.callee, c.line) for c in facts.calls if c.caller}
    assert ("pool_on_avx", "accumulate", 12) in calls
    assert ("after_the_block", "finish", 23) in calls


def test_the_last_branch_is_kept_and_offsets_stay() -> None:
    prepared, _spans = prepare(SPLIT, "QuantizedOpKernels.cpp")
    assert len(prepared) == len(SPLIT)
    lines, written = prepared.split(b"\n"), SPLIT.split(b"\n")
    assert len(lines) == len(written)
    changed = [i + 1 for i, (a, b) in enumerate(zip(lines, written)) if a != b]
    assert changed == [6, 7, 8, 10]  # the directives and the #ifdef branch's head
    assert all(not lines[i - 1].strip() for i in changed)


def test_whole_blocks_and_namespace_heads_stay() -> None:
    """after_the_block's branches each close the block they open; the capability namespace's heads are left to
    tree-sitter, which keeps CPU_CAPABILITY as the definitions' namespace."""
    prepared, _spans = prepare(SPLIT, "QuantizedOpKernels.cpp")
    assert prepared.split(b"\n")[17:30] == SPLIT.split(b"\n")[17:30]
    facts = extract(SPLIT, "aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp")
    names = {d.qualified_name for d in facts.definitions if d.name == "in_the_capability"}
    assert names == {"at::native::(anonymous)::CPU_CAPABILITY::in_the_capability"}
