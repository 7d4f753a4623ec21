"""An #if group whose branch goes on an if-else chain begun before it: 2.6.0
aten/src/ATen/native/sparse/cuda/cuSPARSELtOps.cpp:217-244 writes `#if defined(CUSPARSELT_VERSION) && ...` /
`else if (input_type == CUDA_R_8F_E4M3) { switch ... }` / `#endif` / `else { TORCH_CHECK(...) }`. tree-sitter
reads no statement that starts with `else`: _cslt_sparse_mm_impl (:94) ended at :248, and everything after it,
cusparseLtMatmul (:440) among it, was read outside any function. The same shape as `} else if (...) {` is in
cuda/Sort.cu:373-376 (`#if HAS_WARP_MERGE_SORT()`), Activation.cpp:399-404 (inside an outer `#if ... #else`) and
cuda/CUDABlas.cpp's gemm_internal specialisations. prepare.py blanks the group's directive lines, so that the chain is
one statement; the guards of the lines are read from the file as written."""

from __future__ import annotations

from tg_index.indexer.cxx import extract
from tg_index.indexer.cxx.prepare import prepare

CHAINS = b"""\
namespace at::native {

int pick(int kind, int out) {
  int chosen = 0;
  if (kind == 1) {
    chosen = first(out);
  }
#if defined(LIB_VERSION) && LIB_VERSION >= 602
  else if (kind == 2) {
    switch (out) {
      case 1:
        chosen = second(out);
        break;
      default:
        break;
    }
  }
#endif
  else {
    chosen = third(out);
  }
  return finish(chosen);
}

void sort_by_size(int size, bool stable) {
  if (size <= 1) {
    return;
  } else if (!stable && size <= 32) {
    bitonic(size);
#if HAS_WARP_MERGE_SORT()
  } else if (size <= 128) {
    // the warp merge sort
    warp_merge(size);
#endif
  } else {
    radix(size);
  }
}

void gelu_like(int x, int approximate) {
#if AT_MKLDNN_ENABLED()
  if (use_mkldnn(x) && approximate == 0) {
    library_erf(x);
#ifdef __aarch64__
  } else if (use_mkldnn(x) && approximate == 1) {
    library_tanh(x);
#endif  // ifdef __aarch64__
  } else {
    gelu_kernel(x, approximate);
  }
#else
  gelu_kernel(x, approximate);
#endif
}

void alternatives(int x) {
  if (x == 0) {
    zero(x);
#if defined(USE_ROCM)
  } else if (x == 1) {
    rocm_one(x);
#elif defined(USE_XPU)
  } else if (x == 2) {
    xpu_two(x);
#endif
  } else {
    other(x);
  }
}

void two_last_links(int x) {
  if (x == 0) {
    zero(x);
#if defined(USE_ROCM)
  } else {
    rocm_rest(x);
#else
  } else {
    cuda_rest(x);
#endif
  }
}

void after_all(int x) { tail(x); }

}  // namespace at::native
"""


def _lines(source: bytes) -> tuple[list[bytes], list[bytes]]:
    prepared, _spans = prepare(source, "aten/src/ATen/native/cuda/Chains.cpp")
    assert len(prepared) == len(source)
    return prepared.split(b"\n"), source.split(b"\n")


def test_each_function_ends_where_it_is_closed() -> None:
    facts = extract(CHAINS, "aten/src/ATen/native/cuda/Chains.cpp")
    got = {d.name: (d.line, d.end_line) for d in facts.definitions}
    assert got["pick"] == (3, 23)
    assert got["sort_by_size"] == (25, 38)
    assert got["gelu_like"] == (40, 54)
    assert got["alternatives"] == (56, 69)
    assert got["two_last_links"] == (71, 82)
    assert got["after_all"] == (84, 84)


def test_the_calls_after_the_group_are_the_functions() -> None:
    facts = extract(CHAINS, "aten/src/ATen/native/cuda/Chains.cpp")
    calls = {(c.caller.rsplit("::", 1)[-1], c.callee, c.line) for c in facts.calls if c.caller}
    for caller, callee, line in (("pick", "first", 6), ("pick", "second", 12), ("pick", "third", 20),
                                 ("pick", "finish", 22), ("sort_by_size", "warp_merge", 33),
                                 ("sort_by_size", "radix", 36), ("gelu_like", "library_tanh", 46),
                                 ("gelu_like", "gelu_kernel", 49), ("gelu_like", "gelu_kernel", 52),
                                 ("alternatives", "rocm_one", 61), ("alternatives", "xpu_two", 64),
                                 ("alternatives", "other", 67), ("two_last_links", "cuda_rest", 79),
                                 ("after_all", "tail", 84)):
        assert (caller, callee, line) in calls, (caller, callee, line)
    assert not [c for c in facts.calls if c.caller is None and c.callee in ("third", "finish", "radix", "tail")]


def test_only_the_directives_of_such_groups_are_blanked() -> None:
    lines, written = _lines(CHAINS)
    changed = [i + 1 for i, (a, b) in enumerate(zip(lines, written)) if a != b]
    # pick's, sort_by_size's, the inner #ifdef of gelu_like, alternatives' three; two_last_links: its directives and
    # the ROCm branch (a bare `else` that is not the chain's last link)
    assert changed == [8, 18, 30, 34, 44, 47, 59, 62, 65, 74, 75, 76, 77, 80]
    assert all(not lines[i - 1].strip() for i in changed)


def test_other_groups_stay() -> None:
    """A group whose branch starts a statement, and one whose continuation closes a block it did not open (its
    `}` after the #endif), are left as written."""
    source = b"""\
void f(int x) {
#ifdef FAST
  if (x > 0) { fast(x); }
#endif
  if (x < 0) {
    neg(x);
#if defined(USE_ROCM)
  } else {
    rocm(x);
  }
#endif
  done(x);
}
"""
    lines, written = _lines(source)
    assert lines == written
