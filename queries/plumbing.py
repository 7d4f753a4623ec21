"""The plumbing ops: aten ops a trace reaches that read metadata or re-view a tensor, not compute on its values.

A trace keeps them (they are real calls with file:line), but groups them after
the ops that do the work; `trace --all` shows them in line. This table is the
one place that says which ops are plumbing, each with the reason. An op is
named by its base (every overload of `size` is plumbing). The name a trace
starts from is never plumbing: `trace Tensor.view` is about view.
"""

from __future__ import annotations

_METADATA = "reads shape or dtype metadata; no kernel touches the data"
_VIEW = "a view: new sizes and strides over the same storage, no data moved"
_DETACH = "a view without autograd history; no data moved"
_SPARSE = "a sparse tensor's own indices or values tensor, returned as it is stored"

# op base -> why it is plumbing
PLUMBING: dict[str, str] = {
    "size": _METADATA,
    "sym_size": _METADATA,
    "stride": _METADATA,
    "sym_stride": _METADATA,
    "numel": _METADATA,
    "sym_numel": _METADATA,
    "dim": _METADATA,
    "is_floating_point": _METADATA,
    "is_complex": _METADATA,
    "is_signed": _METADATA,
    "is_nonzero": "reads one element to decide a Python bool",
    "is_same_size": _METADATA,
    "result_type": "computes a dtype from the arguments' dtypes; no tensor data read",
    "can_cast": "compares two dtypes; no tensor data read",
    "promote_types": "computes a dtype from two dtypes; no tensor data read",
    "contiguous": "returns self when already contiguous; else a plain copy into the default layout",
    "view": _VIEW,
    "view_as": _VIEW,
    "reshape": "a view when the strides allow it, else a plain copy",
    "reshape_as": "a view when the strides allow it, else a plain copy",
    "flatten": "a view when the strides allow it, else a plain copy",
    "unflatten": _VIEW,
    "unsqueeze": _VIEW,
    "squeeze": _VIEW,
    "expand": _VIEW,
    "expand_as": _VIEW,
    "transpose": _VIEW,
    "t": _VIEW,
    "permute": _VIEW,
    "select": _VIEW,
    "narrow": _VIEW,
    "slice": _VIEW,
    "chunk": "views: splits a tensor into slices of the same storage",
    "detach": _DETACH,
    "alias": _VIEW,
    # met in the traces of torch.optim, nn.utils, nn.init and distributions
    "view_as_real": "a view: a complex tensor's storage read as pairs of reals, no data moved",
    "view_as_complex": "a view: pairs of reals read as complex numbers, no data moved",
    "diagonal": _VIEW,
    "unfold": "a view: sliding windows as a new dimension over the same storage",
    "unbind": "views: one slice per index of a dimension",
    "broadcast_tensors": "views: each tensor expanded to the common shape",
    "values": _SPARSE,
    "_values": _SPARSE,
    "indices": _SPARSE,
    "_indices": _SPARSE,
}


def reason(op: str) -> str | None:
    """Why an op (a base or an overload: size, size.int) is plumbing; None when it does work."""
    return PLUMBING.get(op.partition(".")[0])
