"""PyTorch's naming rules, written once (in the spirit of torchgen's `cpp.name`).

Every module that builds or takes apart a name PyTorch derives from another
one calls these functions instead of formatting or slicing strings itself.
"""

from __future__ import annotations

import re

STUB_SUFFIX = "_stub"
UFUNC_KEYS = ("CPU", "CUDA")

_UFUNC_KERNEL = re.compile(r"ufunc_(\w+)_(CPU|CUDA)")
_STRUCTURED_MEMBER = re.compile(r"structured_(\w+)::(impl|meta)$")


def split_op(name: str) -> tuple[str, str]:
    """`add.out` -> (`add`, `out`); `relu` -> (`relu`, ``); a leading `aten::` is dropped."""
    base, _, overload = name.removeprefix("aten::").partition(".")
    return base, overload


def unambiguous_name(base: str, overload: str) -> str:
    """torchgen's unambiguous name: `add_out` for add.out, `relu` for relu."""
    return f"{base}_{overload}" if overload else base


def functional_overload(out_overload: str) -> str:
    """The overload of an out= op's functional op in torchgen's naming: `out` -> ``, `Scalar_out` -> `Scalar`."""
    return out_overload.removesuffix("out").removesuffix("_")


def ops_call(op: str) -> str:
    """The entry point generated code calls an op through: `add.Scalar` -> `at::_ops::add_Scalar::call`."""
    return f"at::_ops::{unambiguous_name(*split_op(op))}::call"


def ufunc_kernel(base: str, key: str) -> str:
    """The kernel torchgen generates for a ufunc_inner_loop op: `ufunc_add_CPU`."""
    return f"ufunc_{base}_{key}"


def ufunc_base(kernel: str) -> str | None:
    """The op base of a generated ufunc kernel name (`ufunc_add_CUDA` -> `add`), else None."""
    m = _UFUNC_KERNEL.fullmatch(kernel)
    return m.group(1) if m else None


def ufunc_stub(base: str) -> str:
    """The DispatchStub torchgen declares for a ufunc_inner_loop op, which its generated CPU kernel calls:
    `add_stub`, named by the op's name (torchgen/dest/ufunc.py StubSignature.name: the functional op's name, which
    its out= op, where ufunc_inner_loop is written, shares; the loops' names play no part)."""
    return base + STUB_SUFFIX


def ufunc_stub_kernel(base: str) -> str:
    """The CPU kernel torchgen writes for a ufunc_inner_loop op and registers for its stub (ufunc_stub):
    `add_kernel` (StubSignature.kernel_name)."""
    return f"{base}_kernel"


def stub_base(stub: str) -> str | None:
    """`add_stub` -> `add`; None for a name that is not a stub's."""
    return stub[: -len(STUB_SUFFIX)] if stub.endswith(STUB_SUFFIX) and len(stub) > len(STUB_SUFFIX) else None


def meta_struct(base: str, overload: str = "") -> str:
    """The struct TORCH_META_FUNC(2) defines for a structured op: `structured_add_Tensor`."""
    return "structured_" + unambiguous_name(base, overload)


def impl_struct(kernel: str) -> str:
    """The struct TORCH_IMPL_FUNC(kernel) defines: `structured_add_out`."""
    return "structured_" + kernel


def meta_qualified(base: str, overload: str = "") -> str:
    return f"at::meta::{meta_struct(base, overload)}::meta"


def impl_qualified(kernel: str, namespace: str = "at::native") -> str:
    return f"{namespace}::{impl_struct(kernel)}::impl"


def structured_member(qualified: str) -> tuple[str, str] | None:
    """`at::native::structured_add_out::impl` -> (`add_out`, `impl`); None for other names."""
    m = _STRUCTURED_MEMBER.search(qualified)
    return (m.group(1), m.group(2)) if m else None


def kernel_of_definition(qualified: str) -> str:
    """The dispatch-table kernel a definition serves: an impl function serves its kernel name,
    a meta function the meta struct's name, anything else its last component."""
    member = structured_member(qualified)
    if member:
        name, which = member
        return name if which == "impl" else "structured_" + name
    return qualified.split("::")[-1]


def autogen_kernel(base: str, overload: str, symint: bool) -> str:
    """The kernel name torchgen gives an autogen'd op: out= forms are `<base>_<overload>`,
    functional ones `<base>`; `_symint` is added when the schema has SymInts."""
    is_out = overload == "out" or overload.endswith("_out")
    kernel = unambiguous_name(base, overload) if is_out else base
    return kernel + "_symint" if symint else kernel


def cpp_function_forms(name: str) -> tuple[str, ...]:
    """The op bases a C++ function name may stand for: at::add, at::add_out, at::add_outf,
    at::native_layer_norm_symint, at::foo_symint_out (most specific first)."""
    return (name, name.removesuffix("_symint"), name.removesuffix("_out"), name.removesuffix("_outf"),
            name.removesuffix("_symint_out").removesuffix("_out_symint"))
