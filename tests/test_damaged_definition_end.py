"""A definition whose parse tree-sitter damaged ends at the brace that closes its body, not where error recovery
stopped: the facts after it are not its own."""

from __future__ import annotations

from tg_index.indexer import cxx

# As 2.6.0 cuda/DepthwiseConv3d.cu:390-459 writes it: statement macros used without a `;` (the last one's body is a
# block) leave tree-sitter reading the function on to the namespace's end, through the next #define (a launch in
# its body) and the next definitions.
STATEMENT_MACROS = b"""namespace at::native {
__global__ void fwd_kernel(float* p) {}
__global__ void bwd_kernel(float* p) {}

#define FWD_CASE(k) \\
  if (ks == (k)) { \\
    fwd_kernel<<<1, 1>>>(out); \\
  } else

#define FWD_OTHERS \\
  { \\
    fwd_kernel<<<1, 1>>>(out); \\
  }

Tensor forward_cuda(const Tensor& input, int ks) {
  float* out = nullptr;
  AT_DISPATCH_FLOATING_TYPES(input.scalar_type(), "forward_cuda", [&] {
        FWD_CASE(3)
        FWD_CASE(5)
        FWD_OTHERS
      }
  );
  return input;
}

#undef FWD_CASE
#undef FWD_OTHERS

#define BWD_CASE(k) \\
  if (ks == (k)) { \\
    bwd_kernel<<<1, 1>>>(out); \\
  } else

void backward_cuda(const Tensor& grad, int ks) {
  float* out = nullptr;
  helper(grad);
}

}  // namespace at::native
"""

# As 2.6.0 profiler/collection.cpp:797-849: the function closes under `#ifndef` and goes on under `#else`, the
# build that compiles it; the braces of the last branch count.
CLOSED_UNDER_IF = b"""namespace torch {
namespace {
void links(
    std::vector<int>& trace,
    const std::vector<int>& results){
#ifndef USE_KINETO
}
#else // USE_KINETO
  check(trace.size() == results.size());

  std::unordered_map<int, int> seen;
  int next = 1;

  for (const auto& r : results) {
    link(r, next);
  }
}
#endif // USE_KINETO

void after(int n) {
  other(n);
}
} // namespace
}  // namespace torch
"""


def _ends(facts) -> dict[str, tuple[int, int]]:
    return {d.qualified_name: (d.line, d.end_line) for d in facts.definitions}


def test_statement_macros_without_semicolon_end_the_function_at_its_brace():
    facts = cxx.extract(STATEMENT_MACROS, "aten/src/ATen/native/cuda/Fixture.cu")
    ends = _ends(facts)
    assert ends["at::native::forward_cuda"] == (15, 24)
    assert ends["at::native::backward_cuda"] == (34, 37)
    # the launch written in BWD_CASE's body is no launch of forward_cuda: it is in no function until a use expands it
    assert sorted((la.kernel, la.caller) for la in facts.launches if la.kernel == "bwd_kernel") == [
        ("bwd_kernel", None)]
    assert {la.caller for la in facts.launches if la.kernel == "fwd_kernel"} <= {"at::native::forward_cuda", None}
    calls = {(c.callee, c.caller) for c in facts.calls}
    assert ("helper", "at::native::backward_cuda") in calls


def test_a_function_closed_under_if_and_continued_under_else_keeps_its_else_branch():
    facts = cxx.extract(CLOSED_UNDER_IF, "torch/csrc/profiler/fixture.cpp")
    ends = _ends(facts)
    assert ends["torch::(anonymous)::links"] == (3, 17)
    assert ends["torch::(anonymous)::after"] == (20, 22)
    callers = {c.callee: c.caller for c in facts.calls}
    assert callers["check"] == "torch::(anonymous)::links"
    assert callers["link"] == "torch::(anonymous)::links"
    assert callers["other"] == "torch::(anonymous)::after"


# As 2.6.0 BatchLinearAlgebra.cpp:3949-3952: a branch hint whose parentheses are the `if`'s.
HINTED_IF = b"""namespace at::native {
Tensor& solve_out(const Tensor& A, Tensor& out) {
  Tensor out_f;
  if C10_LIKELY (is_contiguous(out)) {
    out_f = out;
    if C10_LIKELY (!out.is_same(A)) {
      out_f.copy_(A);
    }
  } else {
    out_f = A.clone();
  }
  solve_kernel(out_f);
  return out;
}

Tensor solve(const Tensor& A) {
  Tensor out;
  return solve_out(A, out);
}
}  // namespace at::native
"""


def test_a_branch_hint_written_as_the_condition_is_an_if():
    facts = cxx.extract(HINTED_IF, "aten/src/ATen/native/Fixture.cpp")
    assert _ends(facts) == {"at::native::solve_out": (2, 14), "at::native::solve": (16, 19)}
    callers = {c.callee: c.caller for c in facts.calls}
    assert callers["out.is_same"] == callers["solve_kernel"] == "at::native::solve_out"


# As 2.6.0 ForeachUtils.h:219-229 and :271-277: a parameter whose default is a braced list; tree-sitter-cpp reads
# no such parameter, and both functions were lost (a declaration with an ERROR, the body a stray block), so
# FusedSgdKernel.cu:159's at::native::check_fast_path_restrictions was "not in the checkout".
BRACED_DEFAULTS = b"""namespace at::native {
inline bool check_fast_path_restrictions(
    ArrayRef<TensorList> tensorLists,
    ArrayRef<Scalar> scalarList = {},
    bool does_op_promote_integer_inputs_to_float = false) {
  return share_device(tensorLists);
}

inline bool can_use_fast_route(ArrayRef<TensorList> lists, std::array<int, 2> pad = {0, 0}) {
  auto message = fmt::format("pad = {}, lists = {}", pad[0], lists.size());
  return check_fast_path_restrictions(lists);
}
}  // namespace at::native
"""


def test_a_braced_default_argument_keeps_its_function():
    facts = cxx.extract(BRACED_DEFAULTS, "aten/src/ATen/native/ForeachUtils.h")
    assert _ends(facts) == {"at::native::check_fast_path_restrictions": (2, 7),
                            "at::native::can_use_fast_route": (9, 12)}
    callers = {c.callee: c.caller for c in facts.calls}
    assert callers["share_device"] == "at::native::check_fast_path_restrictions"
    assert callers["check_fast_path_restrictions"] == "at::native::can_use_fast_route"
    # the parameters with a default stay optional: 1 to 3 arguments, 1 to 2
    arity = {d.qualified_name: (d.min_args, d.max_args) for d in facts.definitions}
    assert arity == {"at::native::check_fast_path_restrictions": (1, 3), "at::native::can_use_fast_route": (1, 2)}
