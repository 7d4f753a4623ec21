"""A template call whose argument is a macro use parses as a declaration: it is still a call (calls.py)."""

from __future__ import annotations

from tg_index.indexer.cxx import extract

SRC = b"""\
namespace at { namespace cuda { namespace blas {
template <> void gemm<float>(CUDABLAS_GEMM_ARGTYPES(float)) {
  gemm_internal<float>(CUDABLAS_GEMM_ARGS(float));
  at::native::gemm<double>(ARGS(double));
  std::vector<int> v(n);
  int (*fp)(int);
  Foo (bar);
}
}}}
std::vector<int> (g)(int);
"""


def test_a_vexing_parse_in_a_body_is_a_call_with_one_argument():
    facts = extract(SRC, "aten/src/ATen/cuda/CUDABlas.cpp")
    assert [(c.caller, c.callee, c.callee_name, c.line, c.argc) for c in facts.calls] == [
        ("at::cuda::blas::gemm<float>", "Foo", "Foo", 7, 1),  # tree-sitter itself reads `Foo (bar);` as a call
        ("at::cuda::blas::gemm<float>", "gemm_internal<float>", "gemm_internal", 3, 1),
        ("at::cuda::blas::gemm<float>", "at::native::gemm<double>", "gemm", 4, 1),
    ]


def test_a_call_whose_last_argument_ends_in_braces_is_no_nested_definition():
    # ReduceMomentKernel.cu:20: tree-sitter reads the call as a function definition inside the body, with
    # `{}` as its body; C++ has no such thing, so it is the call (three arguments) and no definition
    src = b"""\
namespace at::native {
template <typename scalar_t>
void impl(TensorIterator& iter) {
  gpu_reduce_kernel<scalar_t, out_t, 2>(iter, ops, typename ops_t::acc_t{});
  after(iter);
}
}
"""
    facts = extract(src, "aten/src/ATen/native/cuda/ReduceMomentKernel.cu")
    assert [(d.qualified_name, d.line, d.end_line) for d in facts.definitions] == [("at::native::impl", 3, 6)]
    assert sorted((c.caller, c.callee, c.line, c.argc) for c in facts.calls) == [
        ("at::native::impl", "after", 5, 1), ("at::native::impl", "gpu_reduce_kernel<scalar_t,out_t,2>", 4, 3)]


def test_a_macro_loop_in_a_kernel_is_no_definition_and_its_body_stays_the_kernels():
    src = b"""\
namespace at::native {
template <typename T>
__global__ void fill_kernel(T* out, int n) {
  CUDA_KERNEL_LOOP(i, n) {
    out[i] = compute(i);
  }
}
}
"""
    facts = extract(src, "aten/src/ATen/native/cuda/Fill.cu")
    assert [d.qualified_name for d in facts.definitions] == ["at::native::fill_kernel"]
    assert ("at::native::fill_kernel", "compute", 5) in {(c.caller, c.callee, c.line) for c in facts.calls}


def test_a_constructor_left_in_a_block_by_an_earlier_error_stays_a_definition():
    # python_sugared_value.h: `struct VISIBILITY_HIDDEN X : ...` is read as a block holding X's constructor
    src = b"""\
void f() {
  {
    PythonClassValue(ClassTypePtr type, py::object py_type) { init(type); }
  }
}
"""
    facts = extract(src, "torch/csrc/jit/python/python_sugared_value.h")
    assert "PythonClassValue" in [d.name for d in facts.definitions]


def test_a_variable_made_by_its_constructor_types_its_member_calls():
    # `std::vector<int64_t> dims(n);` reads as a function declaration (native/cuda/NaiveDilatedConvolution.cu:254):
    # it declares the variable dims of that type, which dims.end() is called on; a function declared at
    # namespace scope, g below, declares no variable of the function that calls g.end(): that name is written for
    # the link stage to look up among the namespace's variables (constants)
    src = (b"namespace at::native {\nstd::vector<int64_t> g(int64_t n);\n"
           b"void f(int64_t n, const Tensor& t) {\n  std::vector<int64_t> dims(n);\n  dims.end();\n"
           b"  Tensor copy(t);\n  copy.dim();\n  g.end();\n}\n}\n")
    facts = extract(src, "aten/src/ATen/native/cuda/X.cu")
    assert [(c.callee, c.line, c.receiver_type) for c in facts.calls if "." in c.callee] == [
        ("dims.end", 5, "std::vector<int64_t>"), ("copy.dim", 7, "Tensor"), ("g.end", 8, "decltype(g)")]
