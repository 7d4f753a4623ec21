"""The rules model of generated registrations, one rule at a time, on tests/fixtures/dispatcher.

Every expectation below is derived by hand from the rule it names (the module docstrings of
tg_index.indexer.dispatcher cite the torchgen / tools/autograd lines) for the fixture's entries.
"""

from __future__ import annotations

import pytest

from tg_index.indexer import derivatives, native_yaml
from tg_index.indexer.dispatcher import GeneratedRegistration, Generator, generated_registrations, parse_version
from tg_index.indexer.dispatcher.shards import shard, shard_file
from tg_index.indexer.errors import TgIndexError

from .conftest import FIXTURES

HERE = FIXTURES / "dispatcher"
NEW, OLD = (2, 6), (1, 13)


def _regs(version: tuple[int, int], native_text: str | None = None,
          derivatives_text: str | None = None) -> tuple[GeneratedRegistration, ...]:
    native = native_yaml.parse(native_text or (HERE / "native_functions.yaml").read_text(), None)
    derived = derivatives.parse(derivatives_text or (HERE / "derivatives.yaml").read_text())
    return generated_registrations(native, derived, version)


def _key(regs: tuple[GeneratedRegistration, ...], key: str) -> dict[str, str]:
    return {r.op.removeprefix("aten::"): r.kernel for r in regs if r.key == key}


@pytest.fixture(scope="module")
def new() -> tuple[GeneratedRegistration, ...]:
    return _regs(NEW)


@pytest.fixture(scope="module")
def old() -> tuple[GeneratedRegistration, ...]:
    return _regs(OLD)


def test_structured_group_registers_every_variant_where_out_has_a_structured_kernel(new):
    # abs.out is structured with CPU, CUDA (and MPS, which torchgen.gen drops unless --mps)
    assert _key(new, "CPU") == {
        "abs": "wrapper_CPU_abs", "abs.out": "wrapper_CPU_abs_out_out", "abs_": "wrapper_CPU_abs_",
        "fill_.Scalar": "wrapper_CPU_Scalar_fill_", "zero_": "wrapper_CPU__zero_",
        "cumsum_helper_": "wrapper_CPU__cumsum_helper_", "count_nonzero": "wrapper_CPU__count_nonzero",
        "argmax": "wrapper_CPU__argmax", "_foreach_sin": "wrapper_CPU___foreach_sin",
    }
    assert _key(new, "CUDA") == {"abs": "wrapper_CUDA_abs", "abs.out": "wrapper_CUDA_abs_out_out",
                                 "abs_": "wrapper_CUDA_abs_"}
    assert _key(new, "MPS") == {}


def test_unstructured_keys_register_their_own_kernels_only(new):
    # abs's own SparseCPU entry is an unstructured kernel; abs_ and abs.out have none there
    assert _key(new, "SparseCPU") == {"abs": "wrapper_SparseCPU__abs", "zero_": "wrapper_SparseCPU__zero_"}


def test_meta_gets_every_structured_variant_and_inplace_wrappers(new):
    # zero_ has no Meta kernel, no composite and one return: a generated inplace Meta wrapper;
    # cumsum_helper_ returns nothing and gets none
    assert _key(new, "Meta") == {
        "abs": "wrapper_Meta_abs", "abs.out": "wrapper_Meta_abs_out_out", "abs_": "wrapper_Meta_abs_",
        "fill_.Scalar": "wrapper_Meta_Scalar_fill_", "zero_": "wrapper_Meta__zero_",
    }


def test_composite_keys(new):
    assert _key(new, "CompositeExplicitAutogradNonFunctional") == {
        "abs": "wrapper_CompositeExplicitAutogradNonFunctional_abs",
        "abs_": "wrapper_CompositeExplicitAutogradNonFunctional_abs_",
        "transpose_copy.int": "wrapper_CompositeExplicitAutogradNonFunctional_int_transpose_copy",
    }
    # relu and relu_ have no dispatch: CompositeImplicitAutograd; manual_op is registered by hand
    assert _key(new, "CompositeImplicitAutograd") == {
        "relu": "wrapper_CompositeImplicitAutograd__relu", "relu_": "wrapper_CompositeImplicitAutograd__relu_",
        "unflatten.int": "wrapper_CompositeImplicitAutograd_int_unflatten",
    }
    explicit = _key(new, "CompositeExplicitAutograd")
    assert explicit["fill.Scalar"] == "wrapper_CompositeExplicitAutograd_Scalar_fill"  # autogen'd
    assert explicit["fill.Scalar_out"] == "wrapper_CompositeExplicitAutograd_Scalar_out_fill_out"
    assert sorted(explicit) == ["copy_", "fill.Scalar", "fill.Scalar_out", "fill_.Scalar", "new_ones", "ones",
                                "ones_like", "sin", "sin_", "transpose.int", "transpose_"]


def test_wrapper_names_leave_out_the_key_in_1_13(old):
    assert _key(old, "CPU")["abs"] == "wrapper_abs"
    assert _key(old, "CPU")["fill_.Scalar"] == "wrapper_Scalar_fill_"
    assert _key(old, "Meta")["zero_"] == "wrapper__zero_"


def test_functionalize_registers_mutations_and_views(new):
    assert _key(new, "Functionalize") == {
        "abs.out": "functionalization::abs_out_out", "abs_": "functionalization::abs_",
        "fill.Scalar_out": "functionalization::fill_out_Scalar_out", "fill_.Scalar": "functionalization::fill__Scalar",
        "zero_": "functionalization::zero_", "cumsum_helper_": "functionalization::cumsum_helper_",
        "copy_": "functionalization::copy_", "sin_": "functionalization::sin_",
        "transpose.int": "functionalization::transpose_int", "transpose_": "functionalization::transpose_",
    }


def test_functionalize_1_13_registers_composite_implicit_kernels_too(old):
    extra = {op: k for op, k in _key(old, "Functionalize").items() if op not in _key(_regs(NEW), "Functionalize")}
    assert extra == {"relu": "at::native::relu", "relu_": "at::native::relu_",
                     "unflatten.int": "at::native::unflatten", "manual_op": "at::native::manual_op"}


def test_backend_select_takes_factories_not_like_or_new(new):
    assert _key(new, "BackendSelect") == {"ones": "ones"}


def test_autograd_kernels_and_their_entries(new):
    autograd = {r.op.removeprefix("aten::"): (r.kernel, r.derivative.line if r.derivative else None)
                for r in new if r.key == "Autograd"}
    assert autograd == {
        "abs": ("VariableType::abs", 1),
        "abs_": ("VariableType::abs_", 1),  # the functional op's entry
        "abs.out": ("VariableType::abs_out_out", 1),
        "fill_.Scalar": ("VariableType::fill__Scalar", 5),
        "fill.Scalar": ("VariableType::fill_Scalar", 5),  # autogen'd: the mutable op's entry
        "fill.Scalar_out": ("torch::autograd::autogradNotImplementedFallback()", None),  # autogen'd out=: none
        "zero_": ("VariableType::zero_", 18),  # abstract; its entry is non_differentiable
        "cumsum_helper_": ("VariableType::cumsum_helper_", None),  # no tensor return
        "count_nonzero": ("VariableType::count_nonzero", None),  # no tensor return
        "argmax": ("VariableType::argmax", None),  # DONT_REQUIRE_DERIVATIVE
        "mps_only": ("torch::autograd::autogradNotImplementedFallback()", None),  # abstract through MPS
        "ones": ("torch::autograd::autogradNotImplementedFallback()", None),
        "ones_like": ("VariableType::ones_like", None),
        "new_ones": ("VariableType::new_ones", None),
        "transpose.int": ("VariableType::transpose_int", 15),
        "transpose_": ("VariableType::transpose_", 15),
        "transpose_copy.int": ("VariableType::transpose_copy_int", 15),  # a view copy: the view's entry
        "sin": ("VariableType::sin", 10),
        "sin_": ("VariableType::sin_", 10),
        "_foreach_sin": ("VariableType::_foreach_sin", 10),  # foreach: its reference op's entry
    }
    assert {r.op: r.not_implemented for r in new if r.key == "Autograd" and r.not_implemented} == {
        "aten::fill.Scalar_out": True, "aten::mps_only": True, "aten::ones": True}


def test_per_key_derivatives_register_at_their_key(new):
    assert {r.op: (r.kernel, r.derivative.line) for r in new if r.key == "AutogradNestedTensor"} == {
        "aten::sin": ("VariableType::sin_AutogradNestedTensor", 12),
        "aten::sin_": ("VariableType::sin__AutogradNestedTensor", 12),
    }


def test_foreach_ops_have_no_reference_entry_in_1_13(old):
    foreach = [r for r in old if r.op == "aten::_foreach_sin" and r.key == "Autograd"]
    assert [(r.kernel, r.not_implemented) for r in foreach] == [
        ("torch::autograd::autogradNotImplementedFallback()", True)]


def test_inplace_or_view_registers_inplace_out_and_views(new):
    assert sorted(_key(new, "ADInplaceOrView")) == [
        "abs.out", "abs_", "fill.Scalar_out", "fill_.Scalar", "sin_", "transpose.int", "transpose_", "zero_"]


def test_tracer_registers_every_op_but_the_manual_ones(new):
    tracer = _key(new, "Tracer")
    ops = {op.name for op in native_yaml.parse((HERE / "native_functions.yaml").read_text(), None).ops}
    assert set(tracer) == ops - {"copy_"}  # copy_ is in MANUAL_TRACER
    assert tracer["relu"] == "TraceType::relu" and tracer["fill.Scalar_out"] == "TraceType::fill_out_Scalar_out"


def test_registration_fields(new):
    reg = next(r for r in new if r.op == "aten::abs_" and r.key == "Autograd")
    assert reg == GeneratedRegistration(
        op="aten::abs_", key="Autograd", kernel="VariableType::abs_", generator=Generator.VARIABLE_TYPE,
        template="tools/autograd/templates/VariableType.cpp", file="VariableType_2.cpp",
        yaml=reg.yaml, derivative=reg.derivative, not_implemented=False)
    assert (str(reg.yaml), str(reg.derivative)) == ("aten/src/ATen/native/native_functions.yaml:8",
                                                    "tools/autograd/derivatives.yaml:1")
    cpu = next(r for r in new if r.op == "aten::abs" and r.key == "CPU")
    assert (cpu.generator, cpu.template, cpu.file) == (
        Generator.REGISTER_DISPATCH_KEY, "aten/src/ATen/templates/RegisterDispatchKey.cpp", "RegisterCPU.cpp")


def test_shards_follow_torchgens_stable_hash():
    # values read in the 2.6.0 codegen's output: add_.Tensor's VariableType and TraceType shards
    assert (shard("add_", 5), shard("add", 5), shard("add", 2)) == (3, 2, 0)
    assert shard_file("RegisterFunctionalization", "add", 4) == "RegisterFunctionalization_0.cpp"


def test_versions():
    assert parse_version("2.6.0a0\n") == (2, 6)
    assert parse_version("1.13.1") == (1, 13)
    with pytest.raises(TgIndexError) as err:
        parse_version("nightly")
    assert str(err.value) == "not a PyTorch version: 'nightly'; expected e.g. 2.6.0"


def test_versions_between_and_beyond_take_the_nearest_older_rules():
    from tg_index.indexer.dispatcher.versions import rules_for

    assert [rules_for(v).version for v in ((2, 1), (2, 9), (2, 13), (3, 0), (1, 8))] == [
        (1, 13), (2, 6), (2, 13), (2, 13), (1, 13)]


def test_optional_backends_get_registrations_when_asked():
    mps = _regs(NEW)
    asked = generated_registrations(native_yaml.parse((HERE / "native_functions.yaml").read_text(), None),
                                    derivatives.parse((HERE / "derivatives.yaml").read_text()), NEW,
                                    backends=frozenset({"MPS"}))
    assert _key(mps, "MPS") == {}
    assert _key(asked, "MPS") == {"abs": "wrapper_MPS_abs", "abs.out": "wrapper_MPS_abs_out_out",
                                  "abs_": "wrapper_MPS_abs_", "mps_only": "wrapper_MPS__mps_only"}
    with pytest.raises(TgIndexError) as err:
        generated_registrations(native_yaml.parse("[]", None), (), OLD, backends=frozenset({"XPU"}))
    assert str(err.value) == "unknown optional backend 'XPU'; choose from MPS"


def test_2_13_registers_composite_views_to_functionalize_and_shards_register_files():
    regs = _regs((2, 13))
    functionalize = _key(regs, "Functionalize")
    assert functionalize["unflatten.int"] == "at::native::unflatten"  # a composite view again
    assert "relu_" not in functionalize  # other composites still left out
    assert {r.file for r in regs if r.key == "CPU"} <= {f"RegisterCPU_{i}.cpp" for i in range(4)}
    assert {r.file for r in regs if r.key == "Meta"} == {"RegisterMeta_0.cpp"}
    # abs's group shares one shard, named by the functional variant's base name
    assert {r.file for r in regs if r.key == "CPU" and r.op.startswith("aten::abs")} == {
        shard_file("RegisterCPU", "abs", 4)}
