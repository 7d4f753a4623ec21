"""Where the generators' rules differ between PyTorch versions: one Rules value per version.

Versions are (major, minor) tuples; a checkout's version.txt ("2.6.0a0") gives one
through parse_version. The rules of the newest known version not newer than the
checkout's apply: 1.13 (also for anything older), 2.6, 2.13 (also for anything newer).
Versions between were not compared with their codegen: 2.7-2.12 get 2.6's rules.
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
# 2.13.0 (the wheel's torchgen/model.py:297)
_KEYS_2_13 = ("CPU", "SparseCPU", "SparseCsrCPU", "MkldnnCPU", "CUDA", "MPS", "XPU", "SparseXPU", "SparseCsrXPU",
              "SparseCUDA", "SparseCsrCUDA", "SparseMPS", "SparseCsrMPS", "QuantizedCPU", "QuantizedCUDA",
              "CompositeImplicitAutograd", "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd",
              "CompositeExplicitAutogradNonFunctional", "NestedTensorCPU", "NestedTensorCUDA", "NestedTensorXPU",
              "NestedTensorHPU", "Meta", "SparseMeta", "SparseCsrMeta", "QuantizedMeta", "NestedTensorMeta",
              "ZeroTensor", "MTIA")


@dataclass(frozen=True)
class Rules:
    version: tuple[int, int]
    all_keys: tuple[str, ...]  # torchgen's dispatch_keys
    optional_keys: frozenset[str]  # the keys torchgen.gen drops unless asked (--mps, --xpu)
    keyed_wrappers: bool  # register_dispatch_key's wrapper names carry the key
    not_views: frozenset[str]  # inplace_view ops is_view_op leaves out (model.py:1063)
    functionalize_skip: frozenset[str]  # MUTABLE_OPS_NOT_USING_FUNCTIONALIZATION (gen_functionalization_type.py:60)
    # CompositeImplicitAutograd kernels registered to Functionalize as themselves: view ops' (1.13, 2.13),
    # and any other op's (1.13)
    functionalize_composite_views: bool
    functionalize_composite_others: bool
    foreach_derivatives: bool  # 2.x: foreach ops take their reference op's derivatives (torchgen/api/autograd.py:370)
    register_shards: int  # Register<Key>.cpp: 0 unsharded; else CPU's shard count (other keys: 1 shard)
    autograd_shards: int  # VariableType_N.cpp and TraceType_N.cpp

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
                   functionalize_composite_views=True, functionalize_composite_others=True,
                   foreach_derivatives=False, register_shards=0, autograd_shards=5),
    (2, 6): Rules((2, 6), _KEYS_2_6, frozenset({"MPS", "XPU"}), keyed_wrappers=True,
                  not_views=frozenset({"resize_", "resize_as_"}),
                  functionalize_skip=frozenset(_NOT_GROUPED + ("record_stream", "resize_", "resize_as_",
                                                               "_fill_mem_eff_dropout_mask_")),
                  functionalize_composite_views=False, functionalize_composite_others=False,
                  foreach_derivatives=True, register_shards=0, autograd_shards=5),
    # the wheel's torchgen: gen.py:2920 (optional keys), :2382 (sharded Register<Key>.cpp),
    # gen_functionalization_type.py:1118 (views' composites again), :62 (skip list)
    (2, 13): Rules((2, 13), _KEYS_2_13, frozenset({"MPS", "SparseMPS", "SparseCsrMPS", "XPU", "MTIA"}),
                   keyed_wrappers=True, not_views=frozenset({"resize_", "resize_as_"}),
                   functionalize_skip=frozenset(_NOT_GROUPED + ("record_stream", "resize_", "resize_as_",
                                                                "_fill_mem_eff_dropout_mask_",
                                                                "_flash_attention_forward_no_dropout_inplace")),
                   functionalize_composite_views=True, functionalize_composite_others=False,
                   foreach_derivatives=True, register_shards=4, autograd_shards=10),
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
