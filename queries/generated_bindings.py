"""The Python bindings tools/autograd generates, modelled: which ops a generated `THPVariable_<name>` binds.

A checkout has no python_variable_methods.cpp, python_torch_functions_N.cpp or
python_nn_functions.cpp: tools/autograd/gen_python_functions.py writes them at
build time from the templates in tools/autograd/templates/ and
native_functions.yaml. Its rules, read in 2.6.0 and 1.13.1:

- `should_generate_py_binding`: no binding for an op tagged `generated` (2.6.0
  keeps the `view_copy` ones, gen_python_functions.py:199; 1.13.1 none, :182),
  for a cpp name (the base name, `_out` added for an out= overload) matching a
  pattern of `_SKIP_PYTHON_BINDINGS` (2.6.0 :88, 1.13.1 :83), or for a schema in
  `SKIP_PYTHON_BINDINGS_SIGNATURES` (2.6.0 :180, 1.13.1 :167);
- the namespace: `is_py_variable_method` (python_module none, method variant)
  -> torch._C.TensorBase (python_variable_methods.cpp); `is_py_torch_function`
  (python_module none, function variant) -> torch._C._VariableFunctions
  (python_torch_functions.cpp, sharded); `python_module == M` -> torch._C._M
  (python_M_functions.cpp), any variant;
- one function per name, all its overloads together: `get_pycname` is
  `THPVariable_<name>` (2.6.0 :214, 1.13.1 :197); it goes into the template's
  `${py_methods}` slot and its table entry into `${py_method_defs}`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from functools import cache


PYCNAME = "THPVariable_"
TENSOR_BASE = "torch._C.TensorBase"
VARIABLE_FUNCTIONS = "torch._C._VariableFunctions"

_SKIP_COMMON = (
    "alias", "contiguous", "is_cuda", "is_sparse", "is_sparse_csr", "size", "stride", ".*_backward",
    ".*_backward_(out|input|weight|bias)", ".*_forward", ".*_forward_out", ".*_jvp", "_unsafe_view", "tensor",
    "_?sparse_(coo|compressed|csr|csc|bsr|bsc)_tensor.*", "_range.*", "_sparse_add_out", "_sparse_div.*",
    "_sparse_mul.*", "_sparse_sub.*", "_sparse_dense_add_out", "index", "index_out", "unique_dim_consecutive",
    "_cumsum.*", "_cumprod.*", "_sum.*", "_prod.*", "_th_.*", "_thnn_.*", "range.*", "_solve.*", "_inverse.*",
    "_cholesky.*", "_triangular_solve.*", "_qr.*", "_svd.*", "slice", "item", "_local_scalar_dense", "to",
    "_to_copy", "copy_sparse_to_sparse_", "copy_", "numpy_T", "matrix_H", "mT", "mH", "nonzero(_(out|numpy))?",
    "set_data", ".*_overrideable", "data", "is_leaf", "output_nr", "_version", "requires_grad_", "retains_grad",
    "set_", "_fw_primal", "fake_quantize_per_tensor_affine_cachemask", "fake_quantize_per_channel_affine_cachemask",
    "_new_zeros_with_same_feature_meta", "_has_same_storage_numel", "_reshape_alias", "replace_", "copy",
    "fill.Tensor", "fill.Scalar", "lift.*", "normal_functional",
)
# version -> the patterns of _SKIP_PYTHON_BINDINGS (the newest not newer than the checkout applies)
_SKIP = {
    (1, 13): _SKIP_COMMON + ("_symeig.*", "_nested_tensor_strides", "_nested_tensor_offsets",
                             "_nested_view_from_buffer", "_nested_view_from_buffer_copy"),
    (2, 6): _SKIP_COMMON + ("sym_size", "sym_stride", "sym_storage_offset", "sym_numel", "_to_copy_out",
                            "_reshape_copy", "_reshape_copy_out", "_foreach_copy", "nbytes", "itemsize",
                            "_batch_norm_with_update", "_batch_norm_with_update_out", "_batch_norm_no_update"),
}
_SKIP_SIGNATURES = frozenset((
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
))


@cache
def _skip_patterns(version: tuple[int, int]) -> tuple[re.Pattern[str], ...]:
    chosen = max((v for v in _SKIP if v <= version), default=min(_SKIP))
    return tuple(re.compile(rf"^{p}$") for p in _SKIP[chosen])


def _version(conn: sqlite3.Connection) -> tuple[int, int]:
    """The checkout's (major, minor) from meta ("2.6.0a0" -> (2, 6)); the 2.6 rules when it has none.
    (indexer/dispatcher/versions.py reads it the same way; importing it would load PyYAML on the query side.)"""
    row = conn.execute("SELECT value FROM meta WHERE key = 'pytorch_version'").fetchone()
    m = re.match(r"\s*(\d+)\.(\d+)", row[0]) if row else None
    return (int(m.group(1)), int(m.group(2))) if m else (2, 6)


def python_module(namespace: str) -> tuple[str | None, str | None] | None:
    """A namespace -> (variant, python_module) of the ops bound there; None if the generator writes none."""
    if namespace in (TENSOR_BASE, "torch._C._TensorBase"):
        return "method", None
    if namespace in (VARIABLE_FUNCTIONS, VARIABLE_FUNCTIONS + "Class"):
        return "function", None
    m = re.fullmatch(r"torch\._C\._(\w+)", namespace)
    return (None, m.group(1)) if m else None


def generated_ops(conn: sqlite3.Connection, namespace: str, name: str) -> tuple[str, ...]:
    """The ops (overload names) the generated THPVariable_<name> of `namespace` dispatches over, in yaml order."""
    where = python_module(namespace)
    if where is None:
        return ()
    variant, module = where
    version = _version(conn)
    skips = _skip_patterns(version)
    out = []
    rows = conn.execute("SELECT o.name, o.kind, o.func, o.variants, o.python_module, "
                        "(SELECT group_concat(tag) FROM op_tags t WHERE t.op_id = o.id) "
                        "FROM ops o WHERE o.base = ? ORDER BY o.id", (name,)).fetchall()
    for op, kind, func, variants, op_module, tags in rows:
        if op_module != module or (variant is not None and variant not in json.loads(variants)):
            continue
        tags = set((tags or "").split(","))
        if "generated" in tags and (version < (2, 6) or "view_copy" not in tags):
            continue
        cpp_name = name + ("_out" if kind == "out" else "")
        if any(p.match(cpp_name) for p in skips) or func in _SKIP_SIGNATURES:
            continue
        out.append(op)
    return tuple(out)


def generated_name(function: str | None) -> str | None:
    """THPVariable_add -> add: the op name a generated binding function is named after."""
    return function[len(PYCNAME):] if function and function.startswith(PYCNAME) else None
