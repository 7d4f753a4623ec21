"""A call written with long template arguments is a call of that name: 2.6.0 sparse/cuda/SparseSemiStructuredOps.cu:638
calls `spgemm_cutlass_dispatch_layouts_tensor_c<ElementInputA, ElementInputB, ... eleven arguments>(...)`, 278
characters without spaces. The callee was cut at 200, inside the template arguments, and its name was then no name
of the checkout: the CUDA chains of _sparse_semi_structured_mm and _sparse_semi_structured_addmm stopped at the
dtype switch, before the CUTLASS kernels.

Every expected edge is read in the source below (its line numbers are the comments' `:N`)."""

from __future__ import annotations

import pytest

from .conftest import built_tree, calls_by_line

N = "aten/src/ATen/native/"
YAML = """\
- func: mad(Tensor self) -> Tensor
  dispatch:
    CUDA: mad_op
"""
ARGS = ", ".join(f"ElementInputArgumentNumber{i}" for i in range(12))  # about 330 characters
OPS_CU = f"""\
namespace at::native {{
template <typename... Ts>
void dispatch_layouts_tensor_c(int a, int b) {{}}                             // :3
void mad_op(int a, int b) {{
  dispatch_layouts_tensor_c<{ARGS}>(a, b);                                     // :5
}}
}}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory):
    db = built_tree(tmp_path_factory.mktemp("long_template_call"), {N + "native_functions.yaml": YAML, N + "sparse/cuda/Ops.cu": OPS_CU})
    return calls_by_line(db, "Ops.cu")


def test_a_call_with_long_template_arguments_reaches_its_template(calls):
    assert len(ARGS) > 200
    assert {at for _how, at in calls[5]} == {3}
