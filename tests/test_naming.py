from tg_index.indexer import naming
from tg_index.indexer.vocab import Origin, StepKind


def test_ufunc_names_round_trip():
    assert naming.ufunc_kernel("add", "CUDA") == "ufunc_add_CUDA"
    assert naming.ufunc_base("ufunc_add_CUDA") == "add"
    assert naming.ufunc_base("ufunc_add_MPS") is None
    assert naming.ufunc_stub("add") == "add_stub"
    assert naming.stub_base("add_stub") == "add"
    assert naming.stub_base("_stub") is None


def test_structured_names():
    assert naming.meta_struct("add", "Tensor") == "structured_add_Tensor"
    assert naming.meta_qualified("relu") == "at::meta::structured_relu::meta"
    assert naming.impl_qualified("add_out") == "at::native::structured_add_out::impl"
    assert naming.structured_member("at::native::structured_add_out::impl") == ("add_out", "impl")
    assert naming.kernel_of_definition("at::meta::structured_add_Tensor::meta") == "structured_add_Tensor"
    assert naming.kernel_of_definition("at::native::add_out_sparse_cpu") == "add_out_sparse_cpu"


def test_op_names_and_autogen():
    assert naming.split_op("aten::add.out") == ("add", "out")
    assert naming.split_op("relu") == ("relu", "")
    assert naming.autogen_kernel("_foo", "out", symint=True) == "_foo_out_symint"
    assert naming.autogen_kernel("_foo", "", symint=False) == "_foo"
    assert "add" in naming.cpp_function_forms("add_outf")


def test_vocabularies_are_plain_strings():
    assert Origin.UFUNC == "ufunc" and f"{Origin.UFUNC}" == "ufunc"
    assert StepKind.GLOBAL_KERNEL.value == "global_kernel"
