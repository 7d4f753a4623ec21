"""A file's own macro that defines a kernel and registers it on its stub, as cpu/UnaryOpsKernel.cpp of 2.6.0 does
(:785 IMPLEMENT_COMPLEX_KERNEL_WITHOUT_AVX512, used at :839 for sin; :809 the AVX512 one, used at :874 for acos):
the registration written in the expansion is a stubs row at the use's line, looked up from the use's scope, and
kernels-for goes from the stub to the kernel the macro defines. The fixture is written here; its line numbers are
the expected ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.queries.api import Index

from .conftest import built_tree

N = "aten/src/ATen/native/"
STUBS = """\
namespace at::native {
DECLARE_DISPATCH(unary_fn, sin_stub);
DECLARE_DISPATCH(unary_fn, acos_stub);
}
"""
OPS = """\
#include <ATen/native/UnaryOps.h>
namespace at::native {
DEFINE_DISPATCH(sin_stub);
DEFINE_DISPATCH(acos_stub);
Tensor& sin_out(const Tensor& self, Tensor& result) { sin_stub(kCPU, result); return result; }
Tensor& acos_out(const Tensor& self, Tensor& result) { acos_stub(kCPU, result); return result; }
}
"""
KERNELS = """\
#include <ATen/native/UnaryOps.h>
namespace at::native {
#define IMPLEMENT_KERNEL(op)                                  \\
  inline namespace CPU_CAPABILITY {                            \\
  static void op##_kernel(TensorIteratorBase& iter) {          \\
    iter.for_each(op##_loop);                                  \\
  }                                                            \\
  }

#define IMPLEMENT_KERNEL_WITHOUT_AVX512(op)                   \\
  IMPLEMENT_KERNEL(op)                                         \\
  REGISTER_DISPATCH(op##_stub, &CPU_CAPABILITY::op##_kernel)

#define IMPLEMENT_KERNEL_WITH_AVX512(op)                      \\
  IMPLEMENT_KERNEL(op)                                         \\
  ALSO_REGISTER_AVX512_DISPATCH(op##_stub, &CPU_CAPABILITY::op##_kernel)

IMPLEMENT_KERNEL_WITHOUT_AVX512(sin)
IMPLEMENT_KERNEL_WITH_AVX512(acos)
}
"""
YAML = """\
- func: sin.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: sin_out
- func: acos.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: acos_out
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_tree(tmp_path_factory.mktemp("macro_registrations"), {
        f"{N}UnaryOps.h": STUBS, f"{N}UnaryOps.cpp": OPS, f"{N}cpu/UnaryOpsKernel.cpp": KERNELS,
        f"{N}native_functions.yaml": YAML})


def test_a_registration_in_a_definers_expansion_is_a_stub_site_at_the_use(db: Path):
    with sqlite3.connect(db) as conn:
        got = set(conn.execute("SELECT stub, macro, arch, kernel, is_nullptr, line, scope FROM stubs "
                               "WHERE kind = 'register' AND device = 'CPU'"))
    sin, acos = "CPU_CAPABILITY::sin_kernel", "CPU_CAPABILITY::acos_kernel"
    also = "ALSO_REGISTER_AVX512_DISPATCH"
    assert got == {  # REGISTER_DISPATCH leaves AVX512 empty (DispatchStub.h), its ALSO_ form does not
        ("sin_stub", "REGISTER_DISPATCH", "DEFAULT", sin, 0, 18, "at::native"),
        ("sin_stub", "REGISTER_DISPATCH", "AVX2", sin, 0, 18, "at::native"),
        ("sin_stub", "REGISTER_DISPATCH", "AVX512", None, 1, 18, "at::native"),
        ("acos_stub", also, "DEFAULT", acos, 0, 19, "at::native"),
        ("acos_stub", also, "AVX2", acos, 0, 19, "at::native"),
        ("acos_stub", also, "AVX512", acos, 0, 19, "at::native")}


@pytest.mark.parametrize("op, kernel", [("sin.out", "sin_kernel"), ("acos.out", "acos_kernel")])
def test_kernels_for_goes_from_the_stub_to_the_kernel_the_macro_defines(db: Path, op: str, kernel: str):
    [answer] = Index.open(db).kernels_for(op)
    [cpu] = answer.keys
    defined = [s for s in cpu.chain if s.kind == "definition"]
    assert defined and all(s.name.endswith(f"::{kernel}") for s in defined)
    assert {(s.file, s.line) for s in defined} == {(f"{N}cpu/UnaryOpsKernel.cpp", 18 if op == "sin.out" else 19)}
