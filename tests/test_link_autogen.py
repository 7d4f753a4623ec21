"""An autogen'd op's kernel is written by torchgen at build time, not in the checkout, but what it does is
known (torchgen/native_function_generation.py, 2.6.0): an out= op's kernel calls its group's functional op
through the dispatcher and copies the result into out (gen_composite_out_kernel, :597-653); a functional op's
calls its group's in-place op where that one is written by hand, else the mutable op (gen_composite_functional_kernel,
:534-591). The graph has that call as a generated redispatches-to-op edge from the (op, key) node, so kernels-for
goes on into the called op's kernels and ops-for comes back up to the autogen'd op. Before, the chain of
`_adaptive_avg_pool2d.out` (2.6.0 native_functions.yaml:12138) was empty."""

from __future__ import annotations

import sqlite3

import pytest
from tg_index.queries.api import Index
from tg_index.queries.brief import kernels_for_brief, kernels_for_brief_text

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: scale(Tensor self, Scalar factor) -> Tensor
  dispatch:
    CPU: scale_cpu
  autogen: scale.out

- func: mul.Scalar(Tensor self, Scalar other) -> Tensor
  dispatch:
    CPU: mul_scalar_cpu
  autogen: mul.Scalar_out

- func: zero_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: zero_cpu_
  autogen: zero, zero.out

- func: noisy(Tensor self, Tensor(b!) noise) -> Tensor
  dispatch:
    CPU: noisy_cpu
  autogen: noisy_functional

- func: clone(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: clone

- func: flipped(Tensor(a) self) -> Tensor(a)
  dispatch:
    CompositeExplicitAutograd: flipped

- func: flipped_copy(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutogradNonFunctional: flipped_copy
  tags: view_copy
"""
KERNELS_CPP = """\
namespace at::native {
static void scale_loop(float* data, long n) {
  for (long i = 0; i < n; i++) data[i] *= 2;
}
Tensor scale_cpu(const Tensor& self, const Scalar& factor) {                     // :5
  scale_loop(self.data_ptr<float>(), self.numel());
  cblas_sscal(self.numel(), 2.0f, self.data_ptr<float>(), 1);
  return self;
}
Tensor mul_scalar_cpu(const Tensor& self, const Scalar& other) {                // :10
  cblas_sscal(self.numel(), 3.0f, self.data_ptr<float>(), 1);
  return self;
}
Tensor& zero_cpu_(Tensor& self) {                                               // :14
  cblas_sscal(self.numel(), 0.0f, self.data_ptr<float>(), 1);
  return self;
}
Tensor noisy_cpu(const Tensor& self, Tensor& noise) {                           // :18
  cblas_sscal(noise.numel(), 0.5f, noise.data_ptr<float>(), 1);
  return self;
}
Tensor clone(const Tensor& self) {                                              // :22
  cblas_scopy(self.numel(), self.data_ptr<float>(), 1, self.data_ptr<float>(), 1);
  return self;
}
Tensor flipped(const Tensor& self) {                                            // :26
  return self;
}
}
"""
# op -> (the op its generated kernel calls, the yaml line of its autogen entry)
CALLS = {"scale.out": ("scale", 4), "mul.Scalar_out": ("mul.Scalar", 9), "zero": ("zero_", 14),
         "zero.out": ("zero", 14), "noisy_functional": ("noisy", 19)}
# A view_copy op's kernel, when the sources define none, is the one torchgen/gen_functionalization_type.py's
# GenCompositeViewCopyKernel writes (2.6.0 :95-165): `at::_ops::<view>::call(...)`, then `output.clone(...)`;
# at its dispatch entry's line.
VIEW_COPY_CALLS = {("flipped", 31), ("clone", 31)}  # the CompositeExplicitAutogradNonFunctional line


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    return built_tree(tmp_path_factory.mktemp("autogen"), {N + "native_functions.yaml": YAML,
                                                          N + "Kernels.cpp": KERNELS_CPP})


def test_each_generated_kernel_redispatches_to_the_op_torchgen_makes_it_call(db):
    with sqlite3.connect(db) as conn:
        got = {src.split(" ")[0]: (dst, line, how) for src, dst, line, how in conn.execute(
            "SELECT s.name, d.name, e.line, e.how FROM edges e JOIN nodes s ON s.id = e.src "
            "JOIN nodes d ON d.id = e.dst WHERE e.kind = 'redispatches-to-op' AND s.kind = 'kernel'")}
    assert {op: got[op] for op in CALLS} == {op: (target, line, "generated") for op, (target, line) in CALLS.items()}


def test_a_view_copy_kernel_the_sources_lack_is_torchgen_s(db):
    with sqlite3.connect(db) as conn:
        calls = set(conn.execute(
            "SELECT d.name, e.line FROM edges e JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = e.dst "
            "WHERE e.kind = 'redispatches-to-op' AND e.how = 'generated' AND s.name = ?",
            ("flipped_copy CompositeExplicitAutogradNonFunctional",)))
        implements = conn.execute(
            "SELECT e.how, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "WHERE e.kind = 'implements' AND s.name = ?",
            ("flipped_copy CompositeExplicitAutogradNonFunctional",)).fetchall()
    assert calls == VIEW_COPY_CALLS
    assert implements == [("generated", "generated by torchgen for view_copy")]
    [answer] = Index.open(db).kernels_for("flipped_copy")
    assert answer.keys[0].note == "generated by torchgen for view_copy"
    assert ("definition", "at::native::clone", N + "Kernels.cpp", 22) in [
        (s.kind, s.name, s.file, s.line) for s in answer.keys[0].chain]


def test_kernels_for_goes_on_into_the_called_op_s_kernel(db):
    ix = Index.open(db)
    [answer] = ix.kernels_for("scale.out")
    [key] = answer.keys
    assert (key.key, key.definition) == ("CompositeExplicitAutograd", None)
    steps = [(s.kind, s.name, s.file, s.line) for s in key.chain]
    assert steps[:2] == [("redispatch", "scale", N + "native_functions.yaml", 4),
                         ("definition", "at::native::scale_cpu", N + "Kernels.cpp", 5)]
    assert ("library", "cblas_sscal", N + "Kernels.cpp", 7) in steps
    text = kernels_for_brief_text([kernels_for_brief(answer)])
    assert text.splitlines()[1] == "  CompositeExplicitAutograd: scale_out [generated] => scale"


def test_a_generated_functional_kernel_is_followed_through_to_the_in_place_op(db):
    ix = Index.open(db)
    [answer] = ix.kernels_for("zero.out")
    steps = [(s.kind, s.name, s.file, s.line) for s in answer.keys[0].chain]
    yaml = N + "native_functions.yaml"
    assert steps[:4] == [("redispatch", "zero", yaml, 14), ("definition", "zero [generated]", yaml, 14),
                         ("redispatch", "zero_", yaml, 14),
                         ("definition", "at::native::zero_cpu_", N + "Kernels.cpp", 14)]


def test_ops_for_comes_back_up_to_the_autogen_d_ops(db):
    ix = Index.open(db)
    assert sorted({h.op for h in ix.ops_for("zero_cpu_").hits}) == ["zero", "zero.out", "zero_"]
    assert sorted({h.op for h in ix.ops_for("noisy_cpu").hits}) == ["noisy", "noisy_functional"]


def test_doctor_counts_no_generated_kernel_as_a_call_written_in_native(db):
    """native_functions.yaml is under aten/src/ATen/native/, but the generated kernels' redispatches are no C++
    call: doctor's call shares leave them out."""
    by_how = dict(Index.open(db).doctor().calls.by_how)
    assert "generated" not in by_how
    assert by_how["vendor"] == 5  # the cblas_* calls of Kernels.cpp (:7, :11, :15, :19, :23)
