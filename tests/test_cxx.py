"""The C++/CUDA extractor on one small fixture per construct (tests/fixtures/cxx/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tg_index.indexer import cxx
from tg_index.indexer.cxx import (
    DefinitionFact,
    DtypeDispatchFact,
    LaunchFact,
    LibraryCallFact,
    RegistrationFact,
    RegistrationMacroUseFact,
    StubFact,
    StubUseFact,
)

FIXTURES = Path(__file__).parent / "fixtures" / "cxx"


@pytest.fixture(scope="module")
def macros() -> cxx.StubMacros:
    return cxx.stub_macros((FIXTURES / "DispatchStub.h").read_bytes())


def run(name: str, path: str, macros: cxx.StubMacros) -> cxx.CxxFacts:
    facts = cxx.extract((FIXTURES / name).read_bytes(), path, macros)
    assert facts.failure is None
    return facts


def test_both_grammars_load():
    import tree_sitter as ts
    import tree_sitter_cpp
    import tree_sitter_cuda

    for lang in (ts.Language(tree_sitter_cpp.language()), ts.Language(tree_sitter_cuda.language())):
        tree = ts.Parser(lang).parse(b"int f() { return 1; }")
        assert tree.root_node.type == "translation_unit" and not tree.root_node.has_error
    assert cxx.language_for("a/b.cu") == "cuda"
    assert cxx.language_for("a/b.cuh") == "cuda"
    assert cxx.language_for("a/b.cpp", b"__global__ void k() {}") == "cpp"
    assert cxx.language_for("a/b.h", b"__global__ void k() {}") == "cuda"
    assert cxx.language_for("a/b.h", b"int x;") == "cpp"
    assert cxx.extract(b"__global__ void k(int* p) {}", "x.cu").definitions[0].kind == "global_kernel"


def test_stub_macros_from_header(macros):
    assert macros.capabilities == ("DEFAULT", "AVX2", "AVX512")
    E = cxx.StubExpansion
    assert macros.expansions("cpu", "REGISTER_DISPATCH") == (
        E("register", 0, "CPU", "DEFAULT", None, 1),
        E("register", 0, "CPU", "AVX2", None, 1),
        E("register", 0, "CPU", "AVX512", None, None, True),
    )
    assert macros.expansions("cuda", "REGISTER_DISPATCH") == (E("register", 0, "CUDA", None, None, 1),)
    assert macros.expansions("mps", "REGISTER_DISPATCH") == (E("register", 0, "MPS", None, None, 1),)
    assert macros.expansions("plain", "DECLARE_DISPATCH") == (E("declare", 1, type_arg=0),)
    assert macros.expansions("plain", "DEFINE_DISPATCH") == (E("define", 0),)
    assert macros.expansions("plain", "REGISTER_ARCH_DISPATCH") == (E("register", 0, "CPU", None, 1, 2),)
    # expands to nothing on x86: resolved on its own platform
    assert macros.expansions("plain", "REGISTER_VSX_DISPATCH") == (E("register", 0, "CPU", "VSX", None, 1),)
    assert {e.arch for e in macros.expansions("plain", "REGISTER_NO_CPU_DISPATCH")} == {"DEFAULT", "AVX2", "AVX512"}
    assert all(e.is_nullptr for e in macros.expansions("plain", "REGISTER_NO_CPU_DISPATCH"))
    assert "ALSO_REGISTER_AVX512_DISPATCH" in macros.names
    # the built-in summary agrees with the fixture header on the common macros
    for ctx in ("cpu", "cuda", "mps", "plain"):
        for m in ("REGISTER_DISPATCH", "DECLARE_DISPATCH", "DEFINE_DISPATCH", "REGISTER_CUDA_DISPATCH"):
            assert cxx.DEFAULT_STUB_MACROS.expansions(ctx, m) == macros.expansions(ctx, m), (ctx, m)


def test_compile_context():
    assert cxx.compile_context("aten/src/ATen/native/cpu/BinaryOpsKernel.cpp") == "cpu"
    assert cxx.compile_context("aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp") == "cpu"
    assert cxx.compile_context("aten/src/ATen/native/quantized/cpu/qadd.cpp") == "plain"
    assert cxx.compile_context("aten/src/ATen/native/cuda/BinaryMulKernel.cu") == "cuda"
    assert cxx.compile_context("aten/src/ATen/native/mps/operations/BinaryOps.mm") == "mps"


def _definition(*fields, arity: tuple[int, int] = (0, 0), returns: str | None = None,
                template_params: tuple[str, ...] | None = None) -> DefinitionFact:
    return DefinitionFact(*fields, min_args=arity[0], max_args=arity[1], returns=returns, template_params=template_params)


def test_definitions(macros):
    f = run("definitions.cpp", "aten/src/ATen/native/Defs.cpp", macros)
    assert f.definitions == (
        DefinitionFact("helper", "at::native::(anonymous)::helper", "function", "helper(int x)", 5, 5, False, (), min_args=1, max_args=1,
                       returns="int"),
        DefinitionFact("twice", "at::native::twice", "function", "twice(T v)", 10, 12, True, (), min_args=1, max_args=1,
                       returns="T", template_params=("T:type",)),  # `template <typename T>` at line 9
        DefinitionFact("add", "at::native::Accumulator::add", "method", "add(int v)", 15, 15, False, (), min_args=1, max_args=1,
                       returns="void"),
        DefinitionFact("Accumulator_reset", "at::native::Accumulator_reset", "function", "Accumulator_reset(Accumulator& a)", 19, 19, False, (),
                      min_args=1, max_args=1, returns="void"),
        DefinitionFact("size", "at::Widget::size", "method", "Widget::size() const", 23, 23, False, (), returns="int"),
    )
    assert f.parse_errors == 0
    assert cxx.CallFact("at::native::twice", "helper", "helper", 11, 1, arg_types='["T&"]') in f.calls


def test_structured_kernels(macros):
    f = run("structured.cpp", "aten/src/ATen/native/BinaryOps.cpp", macros)
    assert [(d.name, d.qualified_name, d.kind, d.macro, d.line, d.end_line) for d in f.definitions] == [
        ("add.Tensor", "at::meta::structured_add_Tensor::meta", "meta_func", "TORCH_META_FUNC2", 3, 5),
        ("max_pool2d", "at::meta::structured_max_pool2d::meta", "meta_func", "TORCH_PRECOMPUTE_META_FUNC", 7, 9),
        ("add_out", "at::native::structured_add_out::impl", "impl_func", "TORCH_IMPL_FUNC", 15, 18),
    ]
    assert f.definitions[2].signature == (
        "TORCH_IMPL_FUNC(add_out) ( const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& result)"
    )
    assert f.stub_uses == (StubUseFact("add_stub", "at::native::structured_add_out::impl", 17, "call"),)


def test_stub_declarations(macros):
    f = run("stub_declarations.h", "aten/src/ATen/native/BinaryOps.h", macros)
    assert f.stubs == (
        StubFact("declare", "DECLARE_DISPATCH", "add_stub", 4, fn_type="binary_fn_alpha", scope="at::native"),
        StubFact("declare", "DECLARE_DISPATCH", "abs_stub", 5, fn_type="void(*)(TensorIterator&)", scope="at::native"),
    )


def test_cpu_registrations_one_per_capability(macros):
    f = run("stub_registrations_cpu.cpp", "aten/src/ATen/native/cpu/AddKernel.cpp", macros)
    R = "register"
    assert f.stubs == (
        StubFact(R, "REGISTER_DISPATCH", "add_stub", 9, "CPU", "DEFAULT", "add_kernel", scope="at::native"),
        StubFact(R, "REGISTER_DISPATCH", "add_stub", 9, "CPU", "AVX2", "add_kernel", scope="at::native"),
        StubFact(R, "REGISTER_DISPATCH", "add_stub", 9, "CPU", "AVX512", None, True, scope="at::native"),
        StubFact(R, "ALSO_REGISTER_AVX512_DISPATCH", "abs_stub", 10, "CPU", "DEFAULT", "abs_kernel", scope="at::native"),
        StubFact(R, "ALSO_REGISTER_AVX512_DISPATCH", "abs_stub", 10, "CPU", "AVX2", "abs_kernel", scope="at::native"),
        StubFact(R, "ALSO_REGISTER_AVX512_DISPATCH", "abs_stub", 10, "CPU", "AVX512", "abs_kernel", scope="at::native"),
        StubFact(R, "REGISTER_NO_CPU_DISPATCH", "sub_stub", 11, "CPU", "DEFAULT", None, True, scope="at::native"),
        StubFact(R, "REGISTER_NO_CPU_DISPATCH", "sub_stub", 11, "CPU", "AVX512", None, True, scope="at::native"),
        StubFact(R, "REGISTER_NO_CPU_DISPATCH", "sub_stub", 11, "CPU", "AVX2", None, True, scope="at::native"),
        StubFact(R, "REGISTER_VSX_DISPATCH", "mul_stub", 12, "CPU", "VSX", "mul_kernel_vsx", scope="at::native"),
    )


def test_cuda_registrations_and_nullptr(macros):
    f = run("stub_registrations.cu", "aten/src/ATen/native/cuda/AddKernel.cu", macros)
    assert f.stubs == (
        StubFact("register", "REGISTER_DISPATCH", "add_stub", 5, "CUDA", None, "add_kernel_cuda", scope="at::native"),
        StubFact("register", "REGISTER_CUDA_DISPATCH", "abs_stub", 6, "CUDA", None, None, True, scope="at::native"),
    )
    assert f.language == "cuda"


def test_stub_uses(macros):
    f = run("stub_uses.cpp", "aten/src/ATen/native/BinaryOps.cpp", macros)
    assert [s for s in f.stubs] == [
        StubFact("define", "DEFINE_DISPATCH", "add_stub", 3, scope="at::native"),
        StubFact("define", "DEFINE_DISPATCH", "reflection_pad1d_kernel", 4, scope="at::native"),
    ]
    assert f.stub_uses == (
        # a call whose first argument is a device type: recorded, the linker keeps declared stubs only
        StubUseFact("stub", "at::native::binary_op", 7, "call"),
        StubUseFact("add_stub", "at::native::add_out", 12, "call"),
        StubUseFact("add_stub", "at::native::add_out", 13, "argument"),
        StubUseFact("reflection_pad1d_kernel", "at::native::add_out", 14, "call"),
    )


def test_kernels_and_launches(macros):
    f = run("kernels.cu", "aten/src/ATen/native/cuda/Fill.cu", macros)
    assert [(d.name, d.qualified_name, d.kind, d.line, d.end_line, d.is_template, d.qualifiers) for d in f.definitions] == [
        ("fill_kernel", "at::native::(anonymous)::fill_kernel", "global_kernel", 5, 7, True, ("__global__",)),
        ("square", "at::native::(anonymous)::square", "device_function", 9, 9, False, ("static", "__device__", "__forceinline__")),
        # preprocessor lines inside the declaration: recovered from the text
        ("scale_kernel", "at::native::(anonymous)::scale_kernel", "global_kernel", 12, 18, True, ("__global__",)),
        ("fill_cuda", "at::native::fill_cuda", "function", 25, 29, False, ()),
        ("square_cuda", "at::native::square_cuda", "function", 31, 36, False, ()),
    ]
    assert f.launches == (
        LaunchFact("triple_chevron", "scale_kernel", "<T>", ("grid", "block", "0", "stream"), None, 21, macro="LAUNCH_SCALE"),
        LaunchFact(
            "triple_chevron", "fill_kernel", "<float>",
            ("grid", "block", "0", "at::cuda::getCurrentCUDAStream()"), "at::native::fill_cuda", 26,
        ),
        LaunchFact("gpu_kernel", None, None, (), "at::native::square_cuda", 32, lambda_line=32),
        LaunchFact("gpu_kernel_with_scalars", "MulFunctor<float>", None, (), "at::native::square_cuda", 35),
    )


def test_dtype_dispatch(macros):
    f = run("dtype_dispatch.cpp", "aten/src/ATen/native/cpu/AddKernel.cpp", macros)
    assert f.dtype_dispatches == (
        DtypeDispatchFact("AT_DISPATCH_FLOATING_TYPES_AND2", ("FLOATING_TYPES", "kHalf", "kBFloat16"), "add_cpu", "at::native::add_kernel", 7),
        DtypeDispatchFact("AT_DISPATCH_V2", ("AT_ALL_TYPES", "kBFloat16", "kHalf"), "abs_cpu", "at::native::abs_kernel", 13),
        DtypeDispatchFact(
            "AT_DISPATCH_REDUCE_TYPES", ("FLOATING_TYPES", "kHalf"), "sum_cpu", "at::native::sum_kernel", 19,
            via="AT_DISPATCH_FLOATING_TYPES_AND",
        ),
    )
    assert [(l.kind, l.kernel, l.line, l.lambda_line) for l in f.launches] == [
        ("cpu_kernel", None, 8, 8),
        ("cpu_kernel", None, 14, 14),
        ("binary_kernel_reduce_vec", "SumOps<scalar_t>", 20, None),
    ]


def test_library_calls(macros):
    f = run("library_calls.cu", "aten/src/ATen/native/cuda/Blas.cu", macros)
    assert f.library_calls == (
        LibraryCallFact("cublas", "cublasSgemm", "at::native::gemm_cuda", 4),
        LibraryCallFact("cublas", "at::cuda::blas::gemm<float>", "at::native::gemm_cuda", 5),
        LibraryCallFact("cublaslt", "cublasLtMatmul", "at::native::gemm_cuda", 6),
        LibraryCallFact("cudnn", "cudnnConvolutionForward", "at::native::conv_cuda", 10),
        LibraryCallFact("flash_attention", "pytorch_flash::mha_fwd", "at::native::attention_cuda", 14),
    )


def test_library_registrations(macros):
    f = run("registrations.cpp", "aten/src/ATen/Registrations.cpp", macros)
    T, I, F = "TORCH_LIBRARY", "TORCH_LIBRARY_IMPL", "TORCH_LIBRARY_FRAGMENT"
    assert f.registrations == (
        RegistrationFact("block", T, "myops", None, None, None, None, 6),
        RegistrationFact("def", T, "myops", None, "myadd", "myadd(Tensor self, Tensor other) -> Tensor", None, 7),
        RegistrationFact("def", T, "myops", None, "myops::mymul", "myops::mymul(Tensor self) -> Tensor", "mymul_impl", 8),
        RegistrationFact("block", I, "aten", "CPU", None, None, None, 11),
        RegistrationFact("impl", I, "aten", "CPU", "add.Tensor", None, "wrapper_CPU_add_Tensor", 12),
        RegistrationFact("impl", I, "aten", "CPU", "aten::abs", None, "abs_cpu", 13),
        RegistrationFact("impl", I, "aten", "CPU", "neg", None, "neg_cpu", 14),
        RegistrationFact("block", I, "_", "Autocast", None, None, None, 17),
        RegistrationFact("fallback", I, "_", "Autocast", None, None, "torch::CppFunction::makeFallthrough()", 18),
        RegistrationFact("block", I, "aten", "Autocast", None, None, None, 21),
        RegistrationFact(
            "impl", I, "aten", "Autocast", "aten::conv1d", None,
            "WrapFunction<CastPolicy::lower_precision_fp, decltype(ATEN_FN(conv1d))>::type::call", 22, via="KERNEL",
        ),
        RegistrationFact(
            "impl", I, "aten", "Autocast", "aten::matmul", None,
            "WrapFunction<CastPolicy::lower_precision_fp, decltype(ATEN_FN(matmul))>::type::call", 23, via="KERNEL",
        ),
        RegistrationFact("block", I, "aten", "FuncTorchBatched", None, None, None, 26),
        RegistrationFact("block", F, "aten", None, None, None, None, 31),
        RegistrationFact("def", F, "aten", None, "extra_op", "extra_op(Tensor self) -> Tensor", None, 32),
    )
    # functorch's macros are defined in another file: the dispatcher stage expands them
    assert f.registration_macro_uses == (
        RegistrationMacroUseFact(I, "aten", "FuncTorchBatched", "m", "VMAP_SUPPORT", ("sin", "sin_batch_rule"), 27),
        RegistrationMacroUseFact(I, "aten", "FuncTorchBatched", "m", "VMAP_SUPPORT2", ("add", "Tensor", "add_batch_rule"),
                                 28),
    )


def test_parse_errors_around_a_macro_keep_the_rest(macros):
    f = run("parse_errors.cpp", "aten/src/ATen/native/cpu/Weird.cpp", macros)
    assert f.parse_errors > 0
    # the namespace is lost in the damaged region; the definition and the registration survive
    assert [(d.name, d.line, d.end_line) for d in f.definitions] == [("survivor", 8, 8)]
    assert [(s.stub, s.arch, s.kernel, s.line) for s in f.stubs] == [
        ("survivor_stub", "DEFAULT", "survivor_kernel", 10),
        ("survivor_stub", "AVX2", "survivor_kernel", 10),
        ("survivor_stub", "AVX512", None, 10),
    ]
    assert any(c.callee == "helper_call" and c.line == 8 for c in f.calls)


def test_definitions_written_through_file_local_macros(macros):
    f = run("macro_definitions.cpp", "aten/src/ATen/native/UnaryOps.cpp", macros)
    D = _definition
    assert f.definitions == (
        D("acos", "at::meta::structured_acos::meta", "meta_func", "TORCH_META_FUNC(acos) (const Tensor& self)",
          11, 11, False, (), "CREATE_UNARY_META", arity=(1, 1)),
        D("asin", "at::meta::structured_asin::meta", "meta_func", "TORCH_META_FUNC(asin) (const Tensor& self)",
          12, 12, False, (), "CREATE_UNARY_META", arity=(1, 1)),
        D("eq.Tensor", "at::meta::structured_eq_Tensor::meta", "meta_func",
          "TORCH_META_FUNC2(eq, Tensor)(const Tensor& self, const Tensor& other)", 19, 19, False, (), "CREATE_COMPARISON_META", arity=(2, 2)),
        D("acos_out", "at::native::structured_acos_out::impl", "impl_func",
          "TORCH_IMPL_FUNC(acos_out) (const Tensor& self, const Tensor& result)", 40, 40, False, (), "CREATE_UNARY_IMPL", arity=(2, 2)),
        # a comment inside the #define's body hides it from tree-sitter; the text still has it
        D("ceil_out", "at::native::structured_ceil_out::impl", "impl_func",
          "TORCH_IMPL_FUNC(ceil_out) (const Tensor& self, const Tensor& result)", 41, 42, False, (), "CREATE_UNARY_IMPL_NO_OP", arity=(2, 2)),
        # a macro that expands to other macros of the file; ## pastes names
        D("foreach_tensor_exp_cuda", "at::native::foreach_tensor_exp_cuda", "function",
          "foreach_tensor_exp_cuda(TensorList tensors)", 50, 50, False, (), "FOREACH_OPS", arity=(1, 1),
          returns="std::vector<Tensor>"),
        D("foreach_tensor_log_cuda", "at::native::foreach_tensor_log_cuda", "function",
          "foreach_tensor_log_cuda(TensorList tensors)", 50, 50, False, (), "FOREACH_OPS", arity=(1, 1),
          returns="std::vector<Tensor>"),
        # a use inside a body is not a definition
        D("not_expanded_in_a_body", "at::native::not_expanded_in_a_body", "function", "not_expanded_in_a_body()",
          52, 54, False, (), returns="void"),
    )
    assert f.stub_uses == (
        StubUseFact("acos_stub", "at::native::structured_acos_out::impl", 40, "call"),
        StubUseFact("ceil_stub", "at::native::structured_ceil_out::impl", 41, "call"),
    )
    assert cxx.CallFact("at::native::foreach_tensor_log_cuda", "all_types_complex_bool_half_bfloat16<log_functor>",
                        "all_types_complex_bool_half_bfloat16", 50, 1, arg_types='["TensorList&"]') in f.calls
    assert cxx.CallFact("at::meta::structured_acos::meta", "build_unary_op", "build_unary_op", 11, 2,
                        arg_types='["decltype(maybe_get_output())","Tensor&"]') in f.calls  # typed when linked


def test_attribute_macros_do_not_break_definitions(macros):
    f = run("attributes.h", "aten/src/ATen/native/ufunc/add.h", macros)
    assert f.language == "cpp" and f.parse_errors == 0
    D = _definition
    assert f.definitions == (
        D("add", "at::native::ufunc::add", "device_function", "add(T self, T other, T alpha)", 8, 10, True,
          ("C10_HOST_DEVICE", "C10_ALWAYS_INLINE"), arity=(3, 3), returns="T", template_params=("T:type",)),
        D("add", "at::native::ufunc::add", "function",
          "add(Vectorized<T> self, Vectorized<T> other, Vectorized<T> alpha)", 13, 15, True, ("C10_ALWAYS_INLINE",), arity=(3, 3),
          returns="Vectorized<T>", template_params=("T:type",)),
        D("WelfordData", "at::native::ufunc::WelfordData::WelfordData", "device_function", "WelfordData()", 19, 19, False,
          ("C10_HOST_DEVICE",)),
        # the line is the first token after the blanked macros, as for C10_LAUNCH_BOUNDS_1(...) __global__
        D("WelfordData", "at::native::ufunc::WelfordData::WelfordData", "device_function", "WelfordData(float m)", 21, 21,
          False, ("C10_HOST_DEVICE", "explicit"), arity=(1, 1)),
        D("slow_path", "at::native::ufunc::slow_path", "function", "slow_path(const Tensor& self)", 24, 26, False, (), arity=(1, 1),
          returns="void"),
    )


def test_builtin_type_as_a_local_macro_argument(macros):
    f = run("type_arguments.cu", "aten/src/ATen/native/cuda/Indexing.cu", macros)
    assert f.parse_errors == 0
    assert [(d.qualified_name, d.line, d.end_line) for d in f.definitions] == [
        ("at::native::index_select_out_cuda_impl", 9, 15),
        ("at::native::index_select_out_cuda", 17, 20),
    ]


def test_objective_cpp_keeps_namespaces(macros):
    f = run("objc.mm", "aten/src/ATen/native/mps/operations/Activation.mm", macros)
    assert f.parse_errors == 0  # message sends and @-literals are written as C++ (cxx/objc.py)
    assert [(d.name, d.qualified_name, d.kind, d.line, d.end_line) for d in f.definitions] == [
        ("relu_graph", "at::native::mps::relu_graph", "function", 7, 11),  # its `}` (the damaged tree said 10)
        ("leaky_relu_out_mps", "at::native::structured_leaky_relu_out_mps::impl", "impl_func", 15, 22),  # (21)
        ("relu_mps_", "at::native::relu_mps_", "function", 24, 29),
    ]


@pytest.mark.parametrize(
    "source",
    [b"", b"\x00\xff\xfe garbage {{{ ((( <<<", b"#define X(a) a <<<", b"TORCH_LIBRARY_IMPL(", b"REGISTER_DISPATCH(x", "é".encode() * 10],
)
def test_never_raises(source, macros):
    for path in ("a.cpp", "a.cu", "aten/src/ATen/native/cpu/a.cpp", "a.mm"):
        f = cxx.extract(source, path, macros)
        assert isinstance(f, cxx.CxxFacts)
        assert f.failure is None


def test_facts_are_frozen_and_picklable(macros):
    import pickle

    f = run("kernels.cu", "aten/src/ATen/native/cuda/Fill.cu", macros)
    assert pickle.loads(pickle.dumps(f)) == f
    assert pickle.loads(pickle.dumps(macros)) == macros
    with pytest.raises(AttributeError):
        f.definitions[0].name = "x"  # type: ignore[misc]


def test_number_table_is_read_as_a_comment_and_facts_around_it_stay():
    """A 16 KB+ initializer of numbers is handed to tree-sitter as a comment: lines and the
    definitions before and after it do not move, and no fact comes from inside it."""
    rows = ",\n".join(", ".join(str(i * 7 + j) for j in range(16)) for i in range(400))
    src = (
        "namespace at { namespace native {\n"
        "int before(int x) { return helper(x); }\n"
        f"static const int table[400][16] = {{\n{rows}\n}};\n"
        "int after(int y) { return helper2(y); }\n"
        "}}\n"
    ).encode()
    assert len(src) > 16384
    facts = cxx.extract(src, "aten/src/ATen/native/Table.cpp")
    assert [(d.name, d.line) for d in facts.definitions] == [("before", 2), ("after", 405)]
    assert [(c.caller, c.callee, c.line) for c in facts.calls] == [
        ("at::native::before", "helper", 2), ("at::native::after", "helper2", 405)]
    assert facts.parse_errors == 0
    assert cxx._comment_out_tables(src) != src and len(cxx._comment_out_tables(src)) == len(src)
    small = b"int t[3] = {1, 2, 3};\n"
    assert cxx._comment_out_tables(small) is small


def test_extractor_hash_covers_every_file_of_the_package():
    import hashlib

    from tg_index.indexer import build

    here = Path(cxx.__file__).parent
    # with the second extraction pass, which decides what is extracted again with other files' #defines, and the
    # guard rules and vocabulary extraction reads (which #if stretches a device's build leaves out)
    files = sorted(here.rglob("*.py")) + sorted(cxx.SCM.rglob("*.scm")) + [here.parent / "shared_macros.py"] + \
        [here.parent / "link" / "configurations.py", here.parent / "vocab.py"]
    assert {"scan.py", "extract.py", "conditions.py", "calls.scm", "launches.scm"} <= {p.name for p in files}
    h = hashlib.sha256()
    for p in files:
        h.update(p.relative_to(p.parent.parent).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    assert cxx.extractor_hash() == h.hexdigest()[:16]
    assert build._extractor_hash() == cxx.extractor_hash()


LOCAL_LAMBDAS = b"""\
namespace at::native {
void fused_step(TensorIteratorBase& iter, int64_t n) {
  auto loop = [&](int64_t begin, int64_t end) {
    step_math(begin, end);
  };
  at::parallel_for(0, n, 0, loop);
  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), "x", [&] {
    auto inner = [](scalar_t a) -> scalar_t { return a; };
    cpu_kernel(iter, inner);
    cpu_kernel(iter, loop);
  });
  auto loop = [&](int64_t begin, int64_t end) {};
  at::parallel_for(0, n, 0, loop);
  at::parallel_for(0, n, 0, not_a_local);
  at::parallel_for(0, n, 0, later);
  auto later = [&](int64_t begin, int64_t end) {};
}
}
"""


def test_a_local_variable_holding_a_lambda_is_that_lambda_launched(macros):
    """`auto loop = [&](...) {...}; parallel_for(..., loop)`: the lambda the variable holds runs (the nearest one
    written before the call, also from inside an AT_DISPATCH lambda); another name stays a kernel name."""
    f = cxx.extract(LOCAL_LAMBDAS, "aten/src/ATen/native/cpu/StepKernel.cpp", macros)
    assert [(l.kind, l.kernel, l.line, l.lambda_line) for l in f.launches] == [
        ("parallel_for", None, 6, 3),
        ("cpu_kernel", None, 9, 8),
        ("cpu_kernel", None, 10, 3),
        ("parallel_for", None, 13, 12),
        ("parallel_for", "not_a_local", 14, None),
        ("parallel_for", "later", 15, None),
    ]
