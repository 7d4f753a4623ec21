"""A ufunc_inner_loop op's stub (add_stub) is registered only by code torchgen generates
(torchgen/dest/ufunc.py: compute_ufunc_cpu and compute_ufunc_cuda write `REGISTER_DISPATCH(add_stub,
&add_kernel)`), so another kernel that calls the stub (sub_out, BinaryOps.cpp in PyTorch) runs that generated
kernel on each device: the walk shows it, the helper it calls and the ufunc:: functions, as for the op's own
generated kernels. Every expected step is read in the sources below (their line numbers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tg_index.indexer.errors import TgIndexError
from tg_index.queries import brief
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
YAML = """\
- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  ufunc_inner_loop:
    Generic: add (AllAndComplex, BFloat16, Half, ComplexHalf)
    ScalarOnly: add (Bool)

- func: sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  dispatch:
    CPU, CUDA: sub_out

- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  structured_delegate: add.out

- func: twice(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: twice
"""
BINARY_H = """\
namespace at::native {
using structured_binary_fn_alpha = void(*)(TensorIteratorBase&, const Scalar& alpha);
DECLARE_DISPATCH(structured_binary_fn_alpha, add_stub);
}
"""
BINARY_CPP = """\
#include <ATen/native/BinaryOps.h>
namespace at::native {
DEFINE_DISPATCH(add_stub);
TORCH_IMPL_FUNC(sub_out) (const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& result) {
  add_stub(device_type(), *this, -alpha);
}
Tensor twice(const Tensor& self) {
  return at::add(self, self);
}
}
"""
UFUNC_H = """\
namespace at::native::ufunc {
template <typename T> C10_HOST_DEVICE T add(T self, T other, T alpha) { return self + alpha * other; }
}
"""
CPU_LOOPS = """\
namespace at::native { inline namespace CPU_CAPABILITY {
template <typename op_t, typename vop_t>
void cpu_kernel_vec(TensorIteratorBase& iter, op_t&& op, vop_t&& vop) { iter.for_each(op); }
}}
"""
CUDA_LOOPS = """\
namespace at::native {
template <typename func_t> __global__ void elementwise_kernel(int n, func_t f) { f(n); }
template <typename func_t> void gpu_kernel(TensorIteratorBase& iter, const func_t& f) {
  elementwise_kernel<<<1, 128, 0, stream>>>(iter.numel(), f);
}
}
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("ufunc_stub"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": YAML, N + "BinaryOps.h": BINARY_H,
        N + "BinaryOps.cpp": BINARY_CPP, N + "ufunc/add.h": UFUNC_H, N + "cpu/Loops.h": CPU_LOOPS,
        N + "cuda/Loops.cuh": CUDA_LOOPS})


def test_a_kernel_calling_a_ufunc_stub_runs_the_generated_kernel_per_device(db: Path):
    [answer] = Index.open(db).kernels_for("sub.out")
    keys = {k.key: k for k in answer.keys}
    shown = {key: [(s.kind, s.name, s.file and s.file.rsplit("/", 1)[-1], s.line, s.device) for s in k.chain]
             for key, k in keys.items()}
    yaml_line = 4  # the generated kernels come from add.out's ufunc_inner_loop
    assert shown["CPU"][:6] == [
        ("stub", "add_stub", "BinaryOps.cpp", 5, None), ("declared", "add_stub", "BinaryOps.h", 3, None),
        ("defined", "add_stub", "BinaryOps.cpp", 3, None),
        ("registered", "add_kernel [generated]", "native_functions.yaml", yaml_line, "CPU"),
        ("call", "at::native::CPU_CAPABILITY::cpu_kernel_vec", "Loops.h", 3, "CPU"),
        ("dtypes", "Generic: add", "native_functions.yaml", yaml_line, None)]
    assert ("ufunc", "at::native::ufunc::add", "add.h", 2, None) in shown["CPU"]
    cuda = shown["CUDA"]
    assert ("registered", "add_kernel [generated]", "native_functions.yaml", yaml_line, "CUDA") in cuda
    assert ("call", "at::native::gpu_kernel", "Loops.cuh", 3, "CUDA") in cuda
    assert ("global_kernel", "at::native::elementwise_kernel", "Loops.cuh", 2, None) in cuda
    data, text = brief.brief("kernels_for", [answer])
    assert "  CUDA: sub_out BinaryOps.cpp:4 -> add_stub -> add_kernel [generated] -> ufunc::add -> " \
           "elementwise_kernel <<<>>>" in text


def test_ops_for_a_ufunc_function_finds_the_generated_kernels_and_the_stubs_callers(db: Path):
    hits = {(r.op, r.key): r.path for r in Index.open(db).ops_for("ufunc::add")}
    # add.out's generated kernels run ufunc::add (add.out's ufunc_inner_loop, yaml line 4); sub_out calls
    # add_stub (BinaryOps.cpp:5), whose generated registration runs it too
    assert hits[("add.out", "CPU")] == ("ufunc_add_CPU [generated] -> runs ufunc::add",)
    assert hits[("add.out", "CUDA")] == ("ufunc_add_CUDA [generated] -> runs ufunc::add",)
    for key in ("CPU", "CUDA"):
        assert hits[("sub.out", key)] == ("at::native::structured_sub_out::impl", "uses add_stub",
                                          "add_kernel [generated]", "ufunc::add")


def test_ops_for_the_generated_kernel_finds_what_kernels_for_shows_it_under(db: Path):
    """kernels-for names the kernel torchgen registers for add_stub `add_kernel [generated]`: ops-for takes that
    name (bare or as at::native's) to the stub's callers and to add.out's generated CPU kernel, which calls the
    stub; a name no ufunc_inner_loop op generates stays an error."""
    ix = Index.open(db)
    hits = {(r.op, r.key): r.path for r in ix.ops_for("add_kernel")}
    assert hits[("add.out", "CPU")] == ("ufunc_add_CPU [generated] -> uses add_stub", "add_kernel [generated]")
    for key in ("CPU", "CUDA"):
        assert hits[("sub.out", key)] == ("at::native::structured_sub_out::impl", "uses add_stub",
                                          "add_kernel [generated]")
    assert {(r.op, r.key) for r in ix.ops_for("at::native::add_kernel")} == set(hits)
    for other in ("sub_kernel", "other::add_kernel", "_kernel"):
        with pytest.raises(TgIndexError, match="no function, stub or kernel named"):
            ix.ops_for(other)


def test_the_stub_answer_names_the_generated_registrations(db: Path):
    """torchgen registers add_kernel for add_stub in the CPU and the CUDA kernel files it writes for add.out's
    ufunc_inner_loop (yaml line 4): `tg-query stub add_stub` lists them there, beside the DEFINE_DISPATCH the
    sources write (BinaryOps.cpp:3; where the sources write none, torchgen's own is listed too)."""
    info = Index.open(db).stub("add_stub")
    assert [(d.location.line, d.macro) for d in info.definitions] == [(3, "DEFINE_DISPATCH")]
    assert [(r.device, r.arch, r.kernel, r.location.file.rsplit("/", 1)[-1], r.location.line)
            for r in info.registrations] == [("CPU", "every capability", "add_kernel", "native_functions.yaml", 4),
                                             ("CUDA", None, "add_kernel", "native_functions.yaml", 4)]
    assert all(r.macro == "REGISTER_DISPATCH [generated by torchgen from add's ufunc_inner_loop]"
               for r in info.registrations)


def test_the_stub_texts_registrations_keep_their_columns(db: Path):
    """The text's device and capability column is as wide as its widest entry: "CPU every capability" does not
    push its kernel out of the column."""
    from tg_index.queries.render import stub_text

    rows = [line for line in stub_text(Index.open(db).stub("add_stub")).splitlines() if "add_kernel" in line]
    assert len(rows) == 2 and len({line.index("add_kernel") for line in rows}) == 1, rows


def test_symbol_says_a_generated_kernel_has_no_definition_because_torchgen_writes_it(db: Path):
    ix = Index.open(db)
    with pytest.raises(TgIndexError, match=r"^no definition named 'add_kernel'; torchgen generates it from "
                                           r"native_functions.yaml's ufunc_inner_loop and registers it for add_stub"):
        ix.symbol("add_kernel")
    with pytest.raises(TgIndexError, match=r"^no definition named 'ufunc_add_CPU'; torchgen generates it .* as the "
                                           r"kernel of add.out \(CPU\)"):
        ix.symbol("ufunc_add_CPU")
    with pytest.raises(TgIndexError, match=r"^no definition named 'sub_kernel'$"):
        ix.symbol("sub_kernel")


def test_a_redispatch_to_a_ufunc_op_runs_its_generated_kernels(db: Path):
    """twice (BinaryOps.cpp:8) calls at::add: add.Tensor delegates to add.out, whose CPU and CUDA kernels torchgen
    generates (ufunc_add_CPU, ufunc_add_CUDA; yaml line 4), at add.Tensor's structured_delegate line (15). The walk
    goes on into them as into any op's kernel."""
    [answer] = Index.open(db).kernels_for("twice")
    shown = [(s.kind, s.name, s.file and s.file.rsplit("/", 1)[-1], s.line, s.device) for s in answer.keys[0].chain]
    assert shown[:3] == [("redispatch", "add.Tensor", "BinaryOps.cpp", 8, None),
                         ("definition", "ufunc_add_CPU [generated]", "native_functions.yaml", 15, "CPU"),
                         ("definition", "ufunc_add_CUDA [generated]", "native_functions.yaml", 15, "CUDA")]
    for device in ("CPU", "CUDA"):
        assert ("registered", "add_kernel [generated]", "native_functions.yaml", 4, device) in shown
    assert ("global_kernel", "at::native::elementwise_kernel", "Loops.cuh", 2, None) in shown


# An op whose ufunc_inner_loop names a loop other than itself: torchgen names the stub and the kernel it registers
# by the op (torchgen/dest/ufunc.py StubSignature: `<functional op's name>_stub`, `<name>_kernel`), and the
# generated kernels run the ufunc:: functions named by the loops.
BLEND_YAML = """\
- func: blend.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  structured_inherits: TensorIteratorBase
  ufunc_inner_loop:
    Generic: mix (AllAndComplex)
    ScalarOnly: mix_scalar (Bool)

- func: blend(Tensor self, Tensor other) -> Tensor
  structured_delegate: blend.out
"""
BLEND_H = """\
namespace at::native {
using blend_fn = void(*)(TensorIteratorBase&);
DECLARE_DISPATCH(blend_fn, blend_stub);
}
"""
MIX_H = """\
namespace at::native::ufunc {
template <typename T> C10_HOST_DEVICE T mix(T self, T other) { return self + other; }
template <typename T> C10_HOST_DEVICE T mix_scalar(T self, T other) { return self || other; }
}
"""


@pytest.fixture(scope="module")
def blend_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("ufunc_blend"), {
        "version.txt": "2.6.0\n", N + "native_functions.yaml": BLEND_YAML, N + "Blend.h": BLEND_H,
        N + "ufunc/mix.h": MIX_H, N + "cpu/Loops.h": CPU_LOOPS, N + "cuda/Loops.cuh": CUDA_LOOPS})


def test_the_generated_stub_and_kernel_are_named_by_the_op_not_by_its_loops(blend_db: Path):
    ix = Index.open(blend_db)
    [answer] = ix.kernels_for("blend.out", keys=("CPU",))
    cpu = [(s.kind, s.name) for k in answer.keys for s in k.chain]
    assert ("registered", "blend_kernel [generated]") in cpu, cpu
    assert [name for kind, name in cpu if kind == "ufunc"] == ["at::native::ufunc::mix",
                                                               "at::native::ufunc::mix_scalar"]  # mix.h:2 and :3
    info = ix.stub("blend_stub")
    assert [(r.device, r.kernel, r.macro) for r in info.registrations] == \
        [(d, "blend_kernel", "REGISTER_DISPATCH [generated by torchgen from blend's ufunc_inner_loop]")
         for d in ("CPU", "CUDA")]
    assert ("blend.out", "CPU") in {(r.op, r.key) for r in ix.ops_for("blend_kernel")}
    assert {("blend.out", "CPU"), ("blend.out", "CUDA")} <= {(r.op, r.key) for r in ix.ops_for("ufunc::mix_scalar")}
