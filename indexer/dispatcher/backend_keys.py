"""torchgen's Register<Key>.cpp: which operators each dispatch key of native_functions.yaml registers.

Rules of torchgen/dest/register_dispatch_key.py (2.6.0 line numbers; 1.13.1 has the same
rules, only the wrapper names differ):

- the keys are torchgen/model.py:277 `dispatch_keys`, without MPS (and XPU, 2.x) unless
  torchgen.gen is given --mps / --xpu (gen.py:2896);
- a structured group (its out= variant is `structured: True`) registers every variant at
  Meta and every variant except out= at CompositeExplicitAutogradNonFunctional
  (gen_structured :363-376, gen_one :767), and every variant at a key where the out=
  variant has a structured kernel; at other keys each variant is on its own (:378);
- an unstructured variant registers where the backend index has its kernel, unless it is
  `manual_kernel_registration` (gen_unstructured :392, :419); without a kernel, only an
  inplace variant without composite kernels and with one return gets a Meta wrapper
  (:398-409). In-tree backends use the out= variant as primary, so no out=/inplace
  wrappers are made (:411);
- the file: Register<Key>.cpp; 2.13.0 shards it (gen.py:2382) by the group's base name;
- wrapper names: `wrapper_<Key>_<overload>_<cpp name>` for unstructured kernels (:308) and
  `wrapper_<Key>_<cpp name>_<overload>` for structured ones (:790); 1.13.1 leaves out the
  `<Key>_` part.
"""

from __future__ import annotations

from collections.abc import Iterator

from .model import CEANF, Func, Group, Model
from .registration import TEMPLATES, GeneratedRegistration, Generator
from .shards import shard_file
from .versions import Rules

STRUCTURED_KEYS = frozenset({"CPU", "CUDA", "MPS", "XPU"})


def _unstructured_name(f: Func, key: str, rules: Rules) -> str:
    prefix = f"wrapper_{key}_" if rules.keyed_wrappers else "wrapper_"
    return f"{prefix}{f.schema.overload}_{f.cpp_name}"


def _structured_name(f: Func, key: str, rules: Rules) -> str:
    prefix = f"wrapper_{key}_" if rules.keyed_wrappers else "wrapper_"
    return prefix + f.wrapper_stem


def _unstructured(f: Func, key: str) -> bool:
    if not f.has(key):
        if not (key == "Meta" and f.kind == "inplace" and not f.has_composite_kernel
                and f.returns_count == 1):
            return False
    return not f.op.manual_kernel_registration


def _structured_here(g: Group, key: str) -> bool | None:
    """True: every variant gets a structured wrapper; None: each variant is on its own."""
    if key == "Meta" or key == CEANF:
        return True
    return True if (g.out.has(key) and key in STRUCTURED_KEYS) else None


def _for_key(model: Model, key: str, rules: Rules) -> Iterator[tuple[Func, str]]:
    for item in model.grouped:
        if isinstance(item, Group) and item.structured and _structured_here(item, key):
            for f in item.functions():
                if key == CEANF and f.kind == "out":
                    continue
                yield f, _structured_name(f, key, rules)
            continue
        for f in item.functions() if isinstance(item, Group) else (item,):
            if _unstructured(f, key):
                yield f, _unstructured_name(f, key, rules)


def _file(key: str, f: Func, model: Model, rules: Rules) -> str:
    """Register<Key>.cpp; sharded by the group's base name in 2.13 (CPU in 4 shards, the others in 1)."""
    if not rules.register_shards:
        return f"Register{key}.cpp"
    group = model.group_of.get(f.name)
    root = (group.functional if group is not None else f).base_name
    return shard_file(f"Register{key}", root, rules.register_shards if key == "CPU" else 1)


def registrations(model: Model, rules: Rules, keys: tuple[str, ...]) -> Iterator[GeneratedRegistration]:
    template = TEMPLATES[Generator.REGISTER_DISPATCH_KEY]
    for key in keys:
        for f, kernel in _for_key(model, key, rules):
            yield GeneratedRegistration(f.qualified, key, kernel, Generator.REGISTER_DISPATCH_KEY, template,
                                        _file(key, f, model, rules), f.op.loc)
