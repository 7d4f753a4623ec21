"""The per-file C++ facts the link stage reads: includes, #defines, guards, argument counts,
receiver types, usings, classes and kernel aliases (one fixture per construct, tests/fixtures/cxx/)."""

from __future__ import annotations

from pathlib import Path

from tg_index.indexer import cxx
from tg_index.indexer.cxx import IncludeFact, MacroFact

FIXTURES = Path(__file__).parent / "fixtures" / "cxx"


def run(name: str, path: str) -> cxx.CxxFacts:
    facts = cxx.extract((FIXTURES / name).read_bytes(), path)
    assert facts.failure is None
    return facts


def test_includes_as_written_in_every_branch():
    f = run("directives.h", "aten/src/ATen/native/directives.h")
    assert f.includes == (
        IncludeFact("ATen/Tensor.h", 4, True),
        IncludeFact("ATen/native/BinaryOps.h", 5, False),
        IncludeFact("hip/hip_runtime.h", 8, True, "defined(USE_ROCM)"),  # the #if around it; the include guard is none
    )


def test_every_define_object_and_function_like():
    f = run("directives.h", "aten/src/ATen/native/directives.h")
    assert f.macros == (
        MacroFact("ATEN_FIXTURE_DIRECTIVES_H", None, "", 3),
        MacroFact("KERNEL_NAME", None, "add_kernel", 10),
        MacroFact("TWICE", "(a, b)", "((a) + (b)) * 2", 11),
        MacroFact("VARIADIC", "(...)", "f(__VA_ARGS__)", 14),
        MacroFact("EMPTY", "()", "", 15),
    )


def test_a_long_macro_body_is_cut_and_says_so():
    body = " + ".join(f"x{k}" for k in range(2000))
    f = cxx.extract(f"#define LONG(x) {body}\n#define SHORT 1\n".encode(), "a.h")
    long, short = f.macros
    assert (long.name, long.params, len(long.body), long.truncated) == ("LONG", "(x)", 4000, True)
    assert long.body == body[:4000]
    assert short == MacroFact("SHORT", None, "1", 2, False)


def test_guards_of_definitions():
    f = run("directives.h", "aten/src/ATen/native/directives.h")
    assert [(d.name, d.line, d.guard) for d in f.definitions] == [
        ("conv_cudnn", 21, "AT_CUDNN_ENABLED()"),
        ("conv_cudnn", 23, "!(AT_CUDNN_ENABLED())"),
        ("rocm_only", 27, "defined(USE_ROCM)"),
        ("new_cuda", 29, "!(defined(USE_ROCM)) && CUDA_VERSION >= 11000"),
        ("never", 31, "!(defined(USE_ROCM)) && CUDA_VERSION >= 11000 && 0"),
        ("old_cuda", 34, "!(defined(USE_ROCM)) && !(CUDA_VERSION >= 11000)"),
        ("everywhere", 37, None),
    ]


def test_an_ifndef_that_does_not_span_the_file_is_a_guard():
    src = b"#ifndef HAVE_X\n#define HAVE_X\nvoid a() {}\n#endif\n#include <b.h>\nvoid b() {}\n"
    f = cxx.extract(src, "a.cpp")
    assert [(d.name, d.guard) for d in f.definitions] == [("a", "!defined(HAVE_X)"), ("b", None)]
    src = b"#pragma once\n#if !defined(X_H)\n#define X_H\n#ifdef A\nvoid a() {}\n#endif\n#endif\n"
    assert [(d.name, d.guard) for d in cxx.extract(src, "a.h").definitions] == [("a", "defined(A)")]


def test_directives_in_a_damaged_file():
    """Braces the parser cannot match do not hide preprocessor lines: they are read from the text."""
    src = (b"#include \"a.h\"\nnamespace at {\nvoid broken( {\n#if USE_X\n#include <x.h>\n#define BAD(a) a +\n"
           b"#endif\n}\n#ifdef Y\nvoid fine() {}\n#endif\n")
    f = cxx.extract(src, "aten/src/ATen/native/broken.cpp")
    assert f.parse_errors > 0
    assert f.includes == (IncludeFact("a.h", 1, False), IncludeFact("x.h", 5, True, "USE_X"))
    assert f.macros == (MacroFact("BAD", "(a)", "a +", 6, guard="USE_X"),)  # written under `#if USE_X`
    assert [(d.name, d.guard) for d in f.definitions if d.name == "fine"] == [("fine", "defined(Y)")]


def test_parameter_counts_of_definitions():
    f = run("arity.cu", "aten/src/ATen/native/cuda/arity.cu")
    assert [(d.name, d.min_args, d.max_args) for d in f.definitions] == [
        ("none", 0, 0),
        ("defaults", 1, 3),
        ("c_variadic", 1, -1),
        ("pack", 1, -1),
        ("operator()", 2, 2),
        ("add_kernel", 2, 3),
        ("add_out", 2, 3),
        ("calls", 1, 1),
    ]


def test_argument_counts_of_calls():
    f = run("arity.cu", "aten/src/ATen/native/cuda/arity.cu")
    assert [(c.callee, c.argc) for c in f.calls if c.caller == "at::native::calls"] == [
        ("none", 0), ("defaults", 2), ("pack", 4), ("add_kernel<float>", 3), ("self.sizes", 0),
    ]


def test_parameter_counts_read_from_the_text():
    """A kernel tree-sitter cannot shape (a preprocessor line in its declaration) is read from the
    text, and so are its parameters."""
    src = b"template <typename T>\n__global__ void\n#if USE_BOUNDS\n__launch_bounds__(128)\n#endif\nk(T* p, int n = 2) {}\n"
    (d,) = cxx.extract(src, "aten/src/ATen/native/cuda/k.cu").definitions
    assert (d.name, d.kind, d.line, d.min_args, d.max_args, d.guard) == ("k", "global_kernel", 2, 1, 2, None)


def test_receiver_types_of_member_calls():
    f = run("receivers.cpp", "aten/src/ATen/native/receivers.cpp")
    assert [(c.line, c.callee, c.receiver_type) for c in f.calls] == [
        (4, "iter.dtype", "TensorIteratorBase"),
        (5, "self.sizes", "Tensor"),
        (6, "maybe->has_value", "optional<Tensor>"),
        (7, "self.contiguous", "Tensor"),
        (8, "inferred.sizes", "decltype(std::declval<Tensor>().contiguous())"),  # auto: its initializer, for the link
        (10, "b.store", "Vectorized<scalar_t>"),
        (12, "t.dim", "Tensor"),
        (14, "later.f", "decltype(later)"),  # declared after the call: a name the link looks up
        (16, "later.f", "TensorIterator"),
        (17, "this->helper", None),
        (18, "self.sizes", "Tensor"),
        (18, "self.sizes().size", "Tensor"),  # a chain: the type of the variable it starts with
        (21, "iter.dtype", "decltype(iter)"),  # another function's parameter: not this one's
    ]


def test_the_receiver_of_an_explicit_operator_call():
    # 2.6.0 cpu/ScatterGatherKernel.cpp:213 and :224: `loop_func.template operator()<scalar_t, func_t>(...)` on a
    # local `_cpu_scatter_gather_dim_loop<is_scatter_like> loop_func;` calls that class's operator()
    src = (b"void k() {\n  _dim_loop<true> loop_func;\n"
           b"  auto loop = [&](char** d) { loop_func.template operator()<scalar_t, func_t>(d, f); };\n}\n")
    f = cxx.extract(src, "aten/src/ATen/native/cpu/K.cpp")
    assert [(c.line, c.callee, c.receiver_type) for c in f.calls if c.callee.startswith("loop_func")] == [
        (3, "loop_func.operator()<scalar_t,func_t>", "_dim_loop<true>")]


def test_receiver_types_in_a_damaged_function():
    src = b"void f(const Tensor& self) {\n  self.sizes(;\n  Tensor x = self;\n  x.dim();\n}\n"
    f = cxx.extract(src, "aten/src/ATen/native/broken.cpp")
    assert f.parse_errors > 0
    assert [(c.callee, c.receiver_type) for c in f.calls if c.callee == "x.dim"] == [("x.dim", "Tensor")]


def test_usings_at_every_scope():
    f = run("usings.cpp", "aten/src/ATen/native/usings.cpp")
    U = cxx.UsingFact
    assert f.usings == (
        U("directive", "at::native", None, "", 2),
        U("declaration", "at::cuda::getCurrentCUDAStream", None, "at::native", 4),
        U("alias", "at::cuda::blas", "blas", "at::native", 5),
        U("alias", "std::vector<c10::Scalar>", "scalar_list", "at::native", 6),
        U("alias", "Vectorized<T>", "Vec", "at::native", 8),
        U("directive", "c10", None, "at::native::(anonymous)", 10),
        U("declaration", "Base::Base", None, "at::native::Helper", 13),
        U("directive", "at::vec", None, "at::native::add_kernel", 16),
        U("alias", "at::opmath_type<float>", "opmath_t", "at::native::add_kernel", 17),
    )


def test_classes_and_functors():
    f = run("classes.cu", "aten/src/ATen/native/cuda/classes.cu")
    C, F = cxx.ClassFact, cxx.FieldFact
    assert f.classes == (
        C("AddFunctor", "at::native::AddFunctor", "struct", 4, 8, (), True, True, (F("alpha_", "T"),)),
        C("AddFunctor<bool>", "at::native::AddFunctor<bool>", "struct", 10, 12, (), True, True),
        C("Accumulator", "at::native::Accumulator", "class", 13, 16, ("Base<float>", "Counted"), False, False),
        C("Bits", "at::native::(anonymous)::Bits", "union", 18, 18, (), False, False,
          (F("f", "float"), F("i", "int"))),
        C("Local", "Local", "struct", 22, 25, (), False, True),
    )
    # the functor's operator() is a definition under the class's qualified name
    assert [(d.qualified_name, d.kind, d.line) for d in f.definitions] == [
        ("at::native::AddFunctor::AddFunctor", "method", 5),
        ("at::native::AddFunctor::operator()", "device_function", 6),
        ("at::native::launch", "function", 21),
        ("Local::operator()", "method", 24),
    ]


def test_kernel_aliases_that_are_called_or_launched():
    f = run("kernel_aliases.cu", "aten/src/ATen/native/cuda/kernel_aliases.cu")
    K = cxx.KernelAliasFact
    assert f.kernel_aliases == (
        K("table", ("add_kernel_impl", "sub_kernel_impl"), None, 4),
        K("kernel", ("fast_kernel", "slow_kernel"), "at::native::run", 6),
        K("fn", ("fallback_impl",), "at::native::run", 8),
        K("fn", ("first_impl",), "at::native::run", 10),
        K("fn", ("at::native::second_impl",), "at::native::run", 11),
    )


def test_link_facts_of_a_damaged_file():
    """Parse damage in one function leaves the usings, classes and aliases around it."""
    src = (b"namespace at::native {\nusing namespace at::vec;\nvoid broken() { x = (; }\n"
           b"struct Op { int operator()(int a) const { return a; } };\n"
           b"void run(bool c) {\n  auto k = c ? k1 : k2;\n  k<<<1, 1>>>();\n}\n}\n")
    f = cxx.extract(src, "aten/src/ATen/native/cuda/broken.cu")
    assert f.parse_errors > 0
    assert f.usings == (cxx.UsingFact("directive", "at::vec", None, "at::native", 2),)
    assert f.classes == (cxx.ClassFact("Op", "at::native::Op", "struct", 4, 4, (), False, True),)
    assert f.kernel_aliases == (cxx.KernelAliasFact("k", ("k1", "k2"), "at::native::run", 6),)


def test_inline_namespaces_with_their_qualified_names():
    src = b"""namespace at::native {
// inline namespace Commented {
inline namespace CPU_CAPABILITY {
void f() {}
}  // namespace CPU_CAPABILITY
namespace { inline namespace Inner { } }
const char* s = "inline namespace NotOne {";
}
"""
    f = cxx.extract(src, "aten/src/ATen/native/cpu/Loops.h")
    assert f.inline_namespaces == (cxx.InlineNamespaceFact("at::native::CPU_CAPABILITY", 3),
                                   cxx.InlineNamespaceFact("at::native::(anonymous)::Inner", 6))
    assert [d.qualified_name for d in f.definitions] == ["at::native::CPU_CAPABILITY::f"]


def test_a_functor_whose_operator_is_under_if_and_else_is_callable():
    # ReduceSumProdKernel.cu: prod_functor's operator() is written once per #if AT_USE_JITERATOR() branch
    from tg_index.indexer import cxx
    src = b"""\
namespace at::native {
template <typename scalar_t>
struct prod_functor {
#if AT_USE_JITERATOR()
  void operator()(TensorIterator& iter) { jitted(iter); }
#else
  void operator()(TensorIterator& iter) { gpu_reduce_kernel<scalar_t>(iter); }
#endif
};
struct plain { int size() const { return 0; } };
}
"""
    facts = cxx.extract(src, "aten/src/ATen/native/cuda/ReduceSumProdKernel.cu")
    assert [(c.name, c.has_call_operator) for c in facts.classes] == [("prod_functor", True), ("plain", False)]
