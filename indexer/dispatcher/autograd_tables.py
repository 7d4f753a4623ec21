"""The operator-name tables tools/autograd's generators consult, per version.

Each is a set written in the checkout's generator sources; the values here are those
of 1.13.1 and 2.6.0 (line numbers are 2.6.0's):

- MANUAL_AUTOGRAD / MANUAL_TRACER (gen_trace_type.py:24-51): ops whose Autograd and
  Tracer kernels are written by hand in torch/csrc/autograd/VariableTypeManual.cpp;
- RETURNS_VIEWS_OF_INPUT (gen_inplace_or_view_type.py:112, with VIEW_FUNCTIONS :67 and
  VIEW_FUNCTIONS_WITH_METADATA_CHANGE :57): base names whose outputs view an input;
- the checks that keep an op without derivatives.yaml entry from getting the
  not-implemented Autograd kernel (gen_variable_type.py:112 DONT_REQUIRE_DERIVATIVE,
  :409 RESET_GRAD_ACCUMULATOR, :547 DONT_ENFORCE_SAME_TENSOR_IMPL_OR_STORAGE,
  :554 DONT_ENFORCE_TENSOR_IMPL_USE_COUNT, :579 DONT_ENFORCE_STORAGE_IMPL_USE_COUNT).
"""

from __future__ import annotations

from dataclasses import dataclass

_MANUAL_BACKEND = {"options", "data", "set_data", "is_leaf", "output_nr", "_version", "retain_grad", "_backward",
                   "requires_grad_"}
_MANUAL_AUTOGRAD_AND_TRACER = {"resize_", "resize_as_", "detach", "detach_", "copy_", "_fw_primal", "_make_dual"}

_VIEWS_1_13 = {
    "numpy_T", "alias", "as_strided", "diagonal", "expand", "permute", "select", "slice", "split",
    "split_with_sizes", "squeeze", "t", "transpose", "unfold", "unsqueeze", "flatten", "view", "unbind",
    "_indices", "_values", "indices", "values", "crow_indices", "col_indices", "ccol_indices", "row_indices",
    "sparse_coo_tensor_with_dims_and_tensors", "_reshape_alias",
    # metadata-changing views
    "view_as_complex", "view_as_real", "_conj", "_neg_view", "_nested_view_from_buffer",
    # composed of views
    "chunk", "detach", "contiguous", "reshape", "reshape_as", "expand_as", "view_as", "real", "imag", "narrow",
    "movedim", "tensor_split", "swapdims", "swapaxes", "mT", "mH", "adjoint", "matrix_H",
}
_VIEWS_2_6 = _VIEWS_1_13 | {"slice_inverse", "_test_autograd_multiple_dispatch_view", "_nested_get_values",
                            "_nested_view_from_jagged"}

_DONT_REQUIRE_1_13 = {
    "empty_like", "ones_like", "full_like", "zeros_like", "rand_like", "randn_like", "new_empty",
    "new_empty_strided", "new_full", "new_zeros", "new_ones", "__and__", "__iand__", "__ilshift__", "__ior__",
    "__irshift__", "__ixor__", "__lshift__", "__or__", "__rshift__", "__xor__", "_sobol_engine_draw",
    "_sobol_engine_ff", "_sobol_engine_scramble_", "_sobol_engine_initialize_state_", "_coalesced_",
    "quantize_per_tensor", "quantize_per_channel", "argmax", "argmin", "argsort", "searchsorted", "bucketize",
    "isnan", "isposinf", "isneginf", "isinf", "signbit", "isin", "allclose", "record_stream", "logical_and",
    "logical_xor", "logical_not", "logical_or", "_nested_tensor_size", "_nested_tensor_strides",
}
_SAME_IMPL_1_13 = {"set_", "_cudnn_rnn_flatten_weight"}
_IMPL_COUNT_1_13 = {
    "_embedding_bag", "_embedding_bag_forward_only", "q_per_channel_scales", "q_per_channel_zero_points",
    "lu_unpack", "_cudnn_rnn_backward", "_cudnn_rnn", "dequantize_self", "lift", "lift_fresh", "lift_fresh_copy",
    "_nested_tensor_size", "_nested_tensor_strides",
}
_STORAGE_COUNT_EXTRA = {"_slow_conv2d_forward", "slow_conv3d_forward", "channel_shuffle"}


@dataclass(frozen=True)
class AutogradTables:
    manual_autograd: frozenset[str]  # cpp names; MANUAL_TRACER is the same set
    returns_views_of_input: frozenset[str]  # base names
    dont_require_derivative: frozenset[str]  # base names
    reset_grad_accumulator: frozenset[str]  # names with the inplace `_`
    dont_enforce_same_impl: frozenset[str]  # cpp names
    dont_enforce_impl_count: frozenset[str]  # type wrapper names
    dont_enforce_storage_count: frozenset[str]  # type wrapper names


def _tables(views: set[str], dont_require: set[str], same_impl: set[str], impl_count: set[str]) -> AutogradTables:
    return AutogradTables(frozenset(_MANUAL_BACKEND | _MANUAL_AUTOGRAD_AND_TRACER), frozenset(views),
                          frozenset(dont_require), frozenset({"set_", "resize_"}), frozenset(same_impl),
                          frozenset(impl_count), frozenset(impl_count | _STORAGE_COUNT_EXTRA))


TABLES = {
    (1, 13): _tables(_VIEWS_1_13, _DONT_REQUIRE_1_13, _SAME_IMPL_1_13, _IMPL_COUNT_1_13),
    (2, 6): _tables(_VIEWS_2_6, _DONT_REQUIRE_1_13 | {"_nested_tensor_storage_offsets"},
                    _SAME_IMPL_1_13 | {"_unsafe_masked_index", "_unsafe_masked_index_put_accumulate"},
                    _IMPL_COUNT_1_13 | {"_nested_tensor_storage_offsets"}),
}
