"""Headers torchgen writes from the checkout's templates (aten/src/ATen/templates, as torchgen/gen.py names its
outputs) are not in a checkout, yet most of ATen reaches c10 through them: aten/src/ATen/core/Tensor.h
includes <ATen/core/TensorBody.h>, which templates/TensorBody.h:11-38 (2.6.0) writes with c10/core/Device.h,
c10/core/ScalarType.h and the rest. The include graph reads such an include as one of its template, so that a
pick in a header the caller reaches only through a generated one is made (link/includes.py)."""

from __future__ import annotations

import pytest

from tg_index.indexer.link.includes import IncludeGraph, generated_template

from .conftest import built_tree, call_edges


@pytest.mark.parametrize("written, template", [
    ("ATen/core/TensorBody.h", "TensorBody.h"), ("ATen/Functions.h", "Functions.h"),
    ("ATen/NativeFunctions.h", "NativeFunctions.h"), ("ATen/CPUFunctions.h", "DispatchKeyFunctions.h"),
    ("ATen/CompositeExplicitAutogradFunctions_inl.h", "DispatchKeyFunctions_inl.h"),
    ("ATen/ops/add.h", "Function.h"), ("ATen/ops/add_ops.h", "Operator.h"), ("ATen/ops/add_native.h", "NativeFunction.h"),
    ("ATen/ops/add_meta.h", "NativeMetaFunction.h"), ("ATen/ops/add_cpu_dispatch.h", "DispatchKeyFunction.h"),
    ("ATen/native/Foo.h", None), ("c10/core/Foo.h", None), ("vector", None)])
def test_the_template_of_each_generated_header(written, template):
    # torchgen/gen.py: core_fm writes TensorBody.h; cpu_fm Functions.h, NativeFunctions.h; per key
    # f"{dispatch_key}Functions.h" from DispatchKeyFunctions.h; per op f"{name}.h" from Function.h,
    # f"{name}_ops.h" from Operator.h, f"{name}_native.h" from NativeFunction.h, f"{name}_meta.h" from
    # NativeMetaFunction.h, f"{name}_{dispatch_namespace}_dispatch.h" from DispatchKeyFunction.h
    assert generated_template(written) == template


def test_a_generated_include_reaches_what_its_template_includes():
    files = ["aten/src/ATen/core/Tensor.h", "aten/src/ATen/templates/TensorBody.h", "c10/core/Options.h",
             "aten/src/ATen/native/Use.cpp"]
    graph = IncludeGraph(files, [("aten/src/ATen/native/Use.cpp", "ATen/core/Tensor.h"),
                                 ("aten/src/ATen/core/Tensor.h", "ATen/core/TensorBody.h"),
                                 ("aten/src/ATen/templates/TensorBody.h", "c10/core/Options.h"),
                                 ("aten/src/ATen/native/Use.cpp", "ATen/core/Missing.h")])
    assert graph.closure("aten/src/ATen/native/Use.cpp") == {
        "aten/src/ATen/core/Tensor.h", "aten/src/ATen/templates/TensorBody.h", "c10/core/Options.h"}


OPTIONS_H = """\
namespace c10 {
struct Opt {
  int pick(int n) const { return n; }            // :3
  int pick(const char* s) const { return 0; }    // :4
};
}
"""
USE_CPP = """\
#include <ATen/core/Tensor.h>
namespace at::native {
int use(const c10::Opt& o) { return o.pick(1); }
}
"""


def test_a_pick_in_a_header_reached_through_a_generated_one_is_made(tmp_path):
    # Use.cpp includes ATen/core/Tensor.h, which includes the generated ATen/core/TensorBody.h; its template
    # includes c10/core/Options.h: pick(int) (Options.h:3) is seen, and the argument 1 picks it
    db = built_tree(tmp_path, {
        "aten/src/ATen/native/native_functions.yaml": "- func: use(Tensor self) -> Tensor\n",
        "aten/src/ATen/core/Tensor.h": "#include <ATen/core/TensorBody.h>\n",
        "aten/src/ATen/templates/TensorBody.h": "// ${generated_comment}\n#include <c10/core/Options.h>\n",
        "c10/core/Options.h": OPTIONS_H, "aten/src/ATen/native/Use.cpp": USE_CPP})
    got = {(how, at) for _f, _l, target, how, _d, _n, at in call_edges(db, "Use.cpp") if target == "o.pick"}
    assert got == {("argument-types", 3)}
