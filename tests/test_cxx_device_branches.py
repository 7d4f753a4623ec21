"""Device branches (indexer/cxx/device_branches.py): the lines of an `if` that tests a device, and the
devices they never run on; and the walk that leaves their calls out for a key of such a device
(queries/device_branches.py). Every expected row is read in the fixtures below (their line numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tg_index.indexer import cxx
from tg_index.indexer.cxx.device_branches import DEVICES
from tg_index.queries.api import Index

from .conftest import built_tree

ALL = set(DEVICES)


def _branches(src: str) -> list[tuple[int, int, set[str], int, str]]:
    facts = cxx.extract(src.encode(), "aten/src/ATen/native/X.cpp")
    assert facts.failure is None
    return [(b.first_line, b.last_line, set(b.not_on.split(",")), b.line, b.branch) for b in facts.device_branches]


def test_a_method_test_rules_out_the_other_devices_and_its_else_its_own():
    src = """\
void f(const Tensor& self) {
  if (self.is_cuda()) {
    a();
  } else {
    b();
    c();
  }
}
"""
    assert _branches(src) == [(3, 3, ALL - {"CUDA"}, 2, "then"), (5, 6, {"CUDA"}, 2, "else")]


@pytest.mark.parametrize("cond, then_not_on, else_not_on", [
    ("self.device().type() == at::kMPS", ALL - {"MPS"}, {"MPS"}),
    ("c10::DeviceType::XPU == iter.device_type(0)", ALL - {"XPU"}, {"XPU"}),
    ("self.device().type() != kCPU", {"CPU"}, ALL - {"CPU"}),
    ("!self.device().is_meta()", {"Meta"}, ALL - {"Meta"}),
    ("a.is_mps() || b.is_mps()", ALL - {"MPS"}, {"MPS"}),
    ("a.is_cpu() && n > 1", ALL - {"CPU"}, set()),  # else: CPU with n <= 1, or any other device
    # every tensor tested is on the key's device: on CUDA, y is not on Meta either
    ("(x.is_cuda() || x.is_hip()) && !y.is_meta()", ALL - {"CUDA", "HIP"}, {"CUDA", "HIP"}),
    # two tensors required on one device that is not the CPU: the key's device is that of one of them only (2.6.0
    # cuda/Copy.cu:357 `dst_device.is_cuda() && src_device.is_cuda()`: a copy between CPU and CUDA runs CUDA's
    # kernel, and the code after the `if` is its cudaMemcpyAsync); a CPU key's tensors are all on the CPU
    ("dst_device.is_cuda() && src_device.is_cuda()", ALL - {"CUDA"}, set()),
    ("iter.device_type(0) == kCUDA && iter.device_type(1) == kCUDA", ALL - {"CUDA"}, set()),
    ("a.is_mps() && (b.is_mps() || b.is_cpu())", ALL - {"MPS"}, set()),
    ("x.is_cuda() && x.device().is_cuda()", ALL - {"CUDA"}, {"CUDA"}),
    ("a.is_cpu() && b.is_cpu()", ALL - {"CPU"}, {"CPU"}),
])
def test_conditions_are_read_three_valued(cond, then_not_on, else_not_on):
    src = f"void f() {{\n  if ({cond}) {{\n    a();\n  }} else {{\n    b();\n  }}\n}}\n"
    want = [(3, 3, then_not_on, 2, "then")] + ([(5, 5, else_not_on, 2, "else")] if else_not_on else [])
    assert _branches(src) == want


@pytest.mark.parametrize("cond", ["n > 1", "x.is_cpu_scalar(2)", "dtype == kFloat", "options == kCPU", "x.is_cuda(1)",
                                  # a layout held in a variable may be a conversion's target (to_sparse's layout_to)
                                  "layout_to == kSparse", "is_sparse_compressed(layout_to)",
                                  "at::sparse_csr::is_sparse_compressed(a, b)"])
def test_a_condition_that_tests_no_device_is_no_branch(cond):
    assert _branches(f"void f() {{\n  if ({cond}) {{\n    a();\n  }}\n  b();\n}}\n") == []


def test_the_lines_after_an_if_that_returns_run_only_when_it_is_false():
    src = """\
Tensor& copy(Tensor& self, const Tensor& src) {
  if (self.is_meta()) return self;
#ifdef USE_MPS
  if (self.device().type() == at::kMPS || src.device().type() == at::kMPS) {
    return mps_copy_(self, src);
  }
#endif
  warn();
  copy_stub(kCPU, self, src);
  return self;
}
"""
    meta_then, meta_after, mps_then, mps_after = _branches(src)
    assert meta_then == (2, 2, ALL - {"Meta"}, 2, "then")
    assert meta_after == (3, 10, {"Meta"}, 2, "after")
    assert mps_then == (5, 5, ALL - {"MPS"}, 4, "then")
    assert mps_after == (7, 10, {"MPS"}, 4, "after")


def test_the_lines_after_an_if_whose_branches_all_return_run_only_when_it_is_false():
    # as 1.13.1 ScalarOps.h:37-58: the then-branch ends in an if-else chain whose every branch returns
    src = """\
Tensor to_tensor(const Scalar& s, const Tensor& self) {
  if (self.is_cpu()) {
    if (s.isFloatingPoint()) {
      return fast(s, kDouble);
    } else if (s.isComplex()) {
      return fast(s, kComplexDouble);
    } else {
      check(s);
      return fast(s, kLong);
    }
  }
  return slow(s);
}
void g(const Scalar& s, const Tensor& self) {
  if (self.is_cpu()) {
    if (s.isFloatingPoint()) {
      return;
    }
  }
  slow(s);
}
"""
    assert _branches(src) == [(3, 10, ALL - {"CPU"}, 2, "then"), (12, 12, {"CPU"}, 2, "after"),
                              (16, 18, ALL - {"CPU"}, 15, "then")]  # :16's if has no else: :20 may run on CPU


def test_a_condition_that_calls_a_predicate_of_the_file_reads_what_it_returns():
    # as 2.6.0 Dropout.cpp:43 is_fused_kernel_acceptable and :138 dropout's condition; is_privateuseone() tests a
    # device no walk asks about: false on each
    src = """\
bool fused_ok(const Tensor& t, double p) {
  return (t.is_cuda() || t.is_xpu() || t.is_privateuseone()) && p > 0;
}
bool twice(const Tensor& t) { return t.is_cuda(); }
bool twice(const Tensor& t, int n) { return t.is_cpu(); }
Tensor drop(const Tensor& input, double p, bool train) {
  if (train && fused_ok(input, p)) {
    return fused(input);
  }
  if (twice(input)) {
    other(input);
  }
  return plain(input);
}
"""
    assert _branches(src) == [(8, 8, ALL - {"CUDA", "XPU"}, 7, "then")]  # :10's twice is defined twice: unknown


def test_an_else_if_chain_nests():
    src = """\
void f(TensorIterator& iter) {
  if (iter.device_type(1) == kCUDA) {
    a();
  } else if (iter.device_type(1) == kMPS) {
    b();
  } else {
    c();
  }
}
"""
    assert _branches(src) == [(3, 3, ALL - {"CUDA"}, 2, "then"), (4, 8, {"CUDA"}, 2, "else"),
                              (5, 5, ALL - {"MPS"}, 4, "then"), (7, 7, {"MPS"}, 4, "else")]


N = "aten/src/ATen/native/"
COPY_CPP = """\
namespace at::native {
using copy_fn = void (*)(Tensor&);
DECLARE_DISPATCH(copy_fn, copy_stub);
DEFINE_DISPATCH(copy_stub);
Tensor& mps_copy_(Tensor& self) { at::parallel_for(0, 1, 1, [&](int64_t b, int64_t e) {}); return self; }
Tensor& copy_impl(Tensor& self) {
  if (self.is_mps()) {
    return mps_copy_(self);
  }
  copy_stub(self.device().type(), self);
  return self;
}
Tensor& copy_cpu(Tensor& self) { return copy_impl(self); }
Tensor& copy_mps(Tensor& self) { return copy_impl(self); }
}
"""
KERNEL_CPP = """\
namespace at::native {
namespace {
void copy_kernel(Tensor& self) {
  cpu_kernel(self, [](float x) { return x; });
}
}
REGISTER_DISPATCH(copy_stub, &copy_kernel);
}
"""
YAML = """\
- func: copy(Tensor self) -> Tensor
  dispatch:
    CPU: copy_cpu
    MPS: copy_mps
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("branches"), {
        N + "Copy.cpp": COPY_CPP, N + "cpu/CopyKernel.cpp": KERNEL_CPP, N + "native_functions.yaml": YAML})


def test_each_key_follows_only_its_devices_branch(db: Path):
    by_key = {k.key: k for k in Index.open(db).kernels_for("copy")[0].keys}
    cpu, mps = by_key["CPU"], by_key["MPS"]
    assert [(s.kind, s.name) for s in cpu.chain if s.kind in ("call", "stub")] == [
        ("call", "at::native::copy_impl"), ("stub", "copy_stub")]
    assert [str(t) for t in cpu.truncated] == [
        "calls in branches that never run on CPU, not followed: Copy.cpp:7 if (self.is_mps()): mps_copy_"]
    assert [(s.kind, s.name) for s in mps.chain if s.kind in ("call", "stub")] == [
        ("call", "at::native::copy_impl"), ("call", "at::native::mps_copy_")]
    assert [str(t) for t in mps.truncated] == [
        "calls in branches that never run on MPS, not followed: Copy.cpp:7 if (self.is_mps()): copy_stub"]


DENSE_ALL = {"Dense" + d for d in DEVICES}


@pytest.mark.parametrize("cond, then_not_on, else_not_on", [
    # a dense key's tensors are not quantized: the then-branch never runs for them, the else-branch can
    ("self.is_quantized()", DENSE_ALL, set()),
    ("self.is_quantized() && !src.is_quantized()", DENSE_ALL, set()),
    ("!self.is_sparse()", set(), DENSE_ALL),
    # the device test decides where it can; the layout test only for the devices it leaves open
    ("self.is_cpu() && self.is_mkldnn()", (ALL - {"CPU"}) | {"DenseCPU"}, set()),
    ("self.is_nested() || self.is_cuda()", DENSE_ALL - {"DenseCUDA"}, {"CUDA"}),
    # a layout compared with a constant (2.6.0 TensorConversions.cpp:255 `self.layout() == kSparse`, _to_copy's COO
    # branch, and :290 `at::sparse_csr::is_sparse_compressed(self)`): a dense key's tensors are strided
    ("self.layout() == kSparse", DENSE_ALL, set()),
    ("at::sparse_csr::is_sparse_compressed(self)", DENSE_ALL, set()),
    ("is_sparse_compressed(options.layout())", DENSE_ALL, set()),
    ("self.layout() == c10::Layout::Strided", set(), DENSE_ALL),
    ("kStrided != grad->layout()", DENSE_ALL, set()),
    ("self.layout() == kSparseCsr || self.is_cuda()", DENSE_ALL - {"DenseCUDA"}, {"CUDA"}),
])
def test_a_layout_test_rules_a_branch_out_for_dense_tensors_only(cond, then_not_on, else_not_on):
    src = f"void f() {{\n  if ({cond}) {{\n    a();\n  }} else {{\n    b();\n  }}\n}}\n"
    want = ([(3, 3, then_not_on, 2, "then")] if then_not_on else []) + \
        ([(5, 5, else_not_on, 2, "else")] if else_not_on else [])
    assert _branches(src) == want


QCOPY_CPP = """\
namespace at::native {
using copy_fn = void (*)(Tensor&);
DECLARE_DISPATCH(copy_fn, copy_stub);
DEFINE_DISPATCH(copy_stub);
Tensor& quantized_copy(Tensor& self) { at::parallel_for(0, 1, 1, [&](int64_t b, int64_t e) {}); return self; }
Tensor& copy_impl(Tensor& self, const Tensor& src) {
  if (self.is_quantized() && !src.is_quantized()) {
    return quantized_copy(self);
  }
  copy_stub(self.device().type(), self);
  return self;
}
Tensor& copy_cpu(Tensor& self, const Tensor& src) { return copy_impl(self, src); }
Tensor& copy_qcpu(Tensor& self, const Tensor& src) { return copy_impl(self, src); }
}
"""
QYAML = """\
- func: copy(Tensor self, Tensor src) -> Tensor
  dispatch:
    CPU: copy_cpu
    QuantizedCPU: copy_qcpu
"""


@pytest.fixture(scope="module")
def qdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("layouts"), {
        N + "Copy.cpp": QCOPY_CPP, N + "cpu/CopyKernel.cpp": KERNEL_CPP, N + "native_functions.yaml": QYAML})


def test_a_dense_key_skips_the_quantized_branch_and_a_quantized_key_follows_both(qdb: Path):
    by_key = {k.key: k for k in Index.open(qdb).kernels_for("copy")[0].keys}
    calls = {key: [s.name for s in k.chain if s.kind in ("call", "stub")] for key, k in by_key.items()}
    assert calls["CPU"] == ["at::native::copy_impl", "copy_stub"]
    assert [str(t) for t in by_key["CPU"].truncated] == [
        "calls in branches that never run on CPU, not followed: Copy.cpp:7 if (self.is_quantized() && "
        "!src.is_quantized()): quantized_copy"]
    # QuantizedCPU's tensors mix layouts (float src, quantized self): the layout test is unknown there
    assert calls["QuantizedCPU"] == ["at::native::copy_impl", "at::native::quantized_copy", "copy_stub"]
    assert by_key["QuantizedCPU"].truncated == ()
