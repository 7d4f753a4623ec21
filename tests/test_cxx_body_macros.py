"""Uses of a file's own function-like macros inside function bodies (indexer/cxx/body_macros.py)."""

from __future__ import annotations

from tg_index.indexer.cxx import extract

LAUNCHES = b"""\
namespace at { namespace native {
template <typename T, int D> __global__ void small_kernel(T* p);
template <typename T, int D> __global__ void other_kernel(T* p);

void first(float* p, int n) {
#define SMALL(T, D) \\
  small_kernel<T, D> \\
    <<<grid, block, 0, stream>>>(p); \\
  check_launch(n);
  SMALL(float, 1);
  SMALL(float, helper(n));
#undef SMALL
}

void second(float* p) {
#define SMALL(T, D) other_kernel<T, D><<<1, 1>>>(p);
  if (p) {
    SMALL(double, 2);
  }
}
}}
"""


def _launches(facts):
    return [(x.kernel, x.template_args, x.caller, x.line, x.macro) for x in facts.launches if x.caller is not None]


def test_a_launch_written_in_a_body_define_belongs_to_the_function_that_uses_it():
    facts = extract(LAUNCHES, "aten/src/ATen/native/cuda/K.cu")
    # each use's launch is at the line where the #define in effect writes its `<<<`
    assert _launches(facts) == [
        ("small_kernel", "<float, 1>", "at::native::first", 8, "SMALL"),
        ("small_kernel", "<float, helper(n)>", "at::native::first", 8, "SMALL"),
        # the macro is defined again before its use in second(): that definition is the one in effect
        ("other_kernel", "<double, 2>", "at::native::second", 16, "SMALL"),
    ]


def test_the_calls_of_an_expansion_are_the_callers_and_none_is_counted_twice():
    facts = extract(LAUNCHES, "aten/src/ATen/native/cuda/K.cu")
    calls = sorted((c.callee, c.line) for c in facts.calls if c.caller == "at::native::first")
    # helper(n) is written in the arguments: the file already has it at line 11, once; a launch is also a
    # call of its kernel, as when it is written out (`k<float><<<1, 2>>>(p)` gives the call `k<float>`)
    assert calls == [("SMALL", 10), ("SMALL", 11), ("check_launch", 10), ("check_launch", 11), ("helper", 11),
                     ("small_kernel<float,1>", 10), ("small_kernel<float,helper(n)>", 11)]


def test_a_file_scope_macro_used_in_a_body_gives_its_calls_and_dtype_set():
    src = b"""\
#define LAUNCH_ALL(NAME) AT_DISPATCH_FLOATING_TYPES(iter.dtype(), NAME, [&] { run_loop<scalar_t>(iter); })
namespace at { namespace native {
void kernel(TensorIterator& iter) {
  LAUNCH_ALL("kernel_cpu");
}
}}
"""
    facts = extract(src, "aten/src/ATen/native/cpu/K.cpp")
    # the dtype set is the one dtypes.py reads through the file-local wrapper, not a second one
    assert [(d.macro, d.via, d.name, d.caller, d.line) for d in facts.dtype_dispatches] == [
        ("LAUNCH_ALL", "AT_DISPATCH_FLOATING_TYPES", "kernel_cpu", "at::native::kernel", 4)]
    assert ("run_loop<scalar_t>", 4) in [(c.callee, c.line) for c in facts.calls if c.caller == "at::native::kernel"]


def test_a_use_that_does_not_fit_the_parameters_or_sits_at_namespace_scope_is_left_alone():
    src = b"""\
#define TWO(a, b) call_two(a, b)
namespace at {
int x = TWO(1, 2);
void f() {
  obj.TWO(1, 2);
  ns::TWO(3, 4);
}
}
"""
    facts = extract(src, "aten/src/ATen/native/K.cpp")
    assert [c.callee for c in facts.calls if c.callee == "call_two"] == []


def test_a_member_call_a_macro_writes_gets_the_type_of_the_variable_at_the_use():
    # native/DistributionTemplates.h's CHECK_EMPTY_AND_RETURN(self) writes `self.numel()`: self is the
    # function's `const Tensor&` at the use; `other`, declared nowhere in the function, is a name the link stage
    # looks up (a namespace's variable)
    src = (b"#define CHECK_EMPTY_AND_RETURN(tensor) if (tensor.numel() == 0) { return tensor; }\n"
           b"namespace at::native {\n"
           b"Tensor& f(const Tensor& self) {\n  CHECK_EMPTY_AND_RETURN(self);\n  CHECK_EMPTY_AND_RETURN(other);\n"
           b"  return self;\n}\n}\n")
    facts = extract(src, "aten/src/ATen/native/Checks.h")
    assert [(c.callee, c.line, c.receiver_type, c.receiver_const) for c in facts.calls if c.callee.endswith("numel")] \
        == [("self.numel", 4, "Tensor", True), ("other.numel", 5, "decltype(other)", None)]
