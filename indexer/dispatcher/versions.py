"""Where the generators' rules differ between PyTorch versions: one Rules value per version.

Versions are (major, minor) tuples; a checkout's version.txt ("2.6.0a0") gives one
through parse_version. The rules of the newest version not newer than the checkout's
apply (1.13 for anything older, 2.6 for anything newer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import TgIndexError

# torchgen/model.py `dispatch_keys` (2.6.0: model.py:277; 1.13.1: model.py:210).
_KEYS_1_13 = ("CPU", "SparseCPU", "SparseCsrCPU", "MkldnnCPU", "CUDA", "MPS", "SparseCUDA", "SparseCsrCUDA",
              "QuantizedCPU", "QuantizedCUDA", "CompositeImplicitAutograd",
              "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd",
              "CompositeExplicitAutogradNonFunctional", "NestedTensorCPU", "NestedTensorCUDA", "Meta",
              "SparseMeta", "QuantizedMeta", "NestedTensorMeta", "ZeroTensor")
_KEYS_2_6 = ("CPU", "SparseCPU", "SparseCsrCPU", "MkldnnCPU", "CUDA", "MPS", "XPU", "SparseXPU", "SparseCUDA",
             "SparseCsrCUDA", "QuantizedCPU", "QuantizedCUDA", "CompositeImplicitAutograd",
             "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd",
             "CompositeExplicitAutogradNonFunctional", "NestedTensorCPU", "NestedTensorCUDA", "NestedTensorXPU",
             "Meta", "SparseMeta", "SparseCsrMeta", "QuantizedMeta", "NestedTensorMeta", "ZeroTensor")


@dataclass(frozen=True)
class Rules:
    version: tuple[int, int]
    all_keys: tuple[str, ...]  # torchgen's dispatch_keys
    optional_keys: frozenset[str]  # the keys torchgen.gen drops unless asked (--mps, --xpu)
    keyed_wrappers: bool  # register_dispatch_key's wrapper names carry the key
    not_views: frozenset[str]  # inplace_view ops is_view_op leaves out (model.py:1063)
    functionalize_skip: frozenset[str]  # MUTABLE_OPS_NOT_USING_FUNCTIONALIZATION (gen_functionalization_type.py:60)
    functionalize_composites: bool  # 1.13: CompositeImplicitAutograd kernels are registered to Functionalize too
    foreach_derivatives: bool  # 2.x: foreach ops take their reference op's derivatives (torchgen/api/autograd.py:370)

    def keys(self, extra: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """The keys torchgen.gen writes Register<Key>.cpp for, with the optional ones asked for."""
        unknown = sorted(extra - self.optional_keys)
        if unknown:
            raise TgIndexError(f"unknown optional backend '{unknown[0]}'; choose from "
                               f"{', '.join(sorted(self.optional_keys))}")
        return tuple(k for k in self.all_keys if k not in self.optional_keys or k in extra)


# native_function_generation.py: OUT_OPS_THAT_DONT_GET_GROUPED_PROPERLY,
# MUTABLE_OPS_THAT_CANNOT_GET_AN_OUT_VARIANT, INPLACE_OPS_THAT_DONT_GET_GROUPED_PROPERLY
# (the same in both versions), plus gen_functionalization_type.py's own additions.
_NOT_GROUPED = ("adaptive_avg_pool3d_backward.grad_input", "_slow_conv2d_backward.grad_input",
                "_cummax_helper", "_cummin_helper", "polygamma_")

_RULES = {
    (1, 13): Rules((1, 13), _KEYS_1_13, frozenset({"MPS"}), keyed_wrappers=False,
                   not_views=frozenset({"resize_"}),
                   functionalize_skip=frozenset(_NOT_GROUPED + ("record_stream", "resize_")),
                   functionalize_composites=True, foreach_derivatives=False),
    (2, 6): Rules((2, 6), _KEYS_2_6, frozenset({"MPS", "XPU"}), keyed_wrappers=True,
                  not_views=frozenset({"resize_", "resize_as_"}),
                  functionalize_skip=frozenset(_NOT_GROUPED + ("record_stream", "resize_", "resize_as_",
                                                               "_fill_mem_eff_dropout_mask_")),
                  functionalize_composites=False, foreach_derivatives=True),
}


def parse_version(text: str) -> tuple[int, int]:
    """`2.6.0a0` -> (2, 6)."""
    m = re.match(r"\s*(\d+)\.(\d+)", text)
    if not m:
        raise TgIndexError(f"not a PyTorch version: {text.strip()!r}; expected e.g. 2.6.0")
    return int(m.group(1)), int(m.group(2))


def rules_for(version: tuple[int, int]) -> Rules:
    known = sorted(_RULES)
    chosen = known[0]
    for v in known:
        if v <= version:
            chosen = v
    return _RULES[chosen]
