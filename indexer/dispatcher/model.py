"""The operators as torchgen sees them: schema kinds, groups, views and backend indexes.

Built from the facts native_yaml.parse makes; everything the generators' rules ask of
an operator is answered here, each answer following the checkout's torchgen/model.py
(line numbers are 2.6.0's; 1.13.1 has the same rules unless a generator says otherwise):

- SchemaKind (model.py:1570): inplace by name, scratch/out by out= arguments, mutable by
  a written post-self positional argument, else functional;
- grouping (native_function_generation.py:110, model.py:1632 `signature()`): the schema
  without overload name, trailing `_`, out= arguments, annotations and TensorOptions,
  with written inputs turned into returns; a group needs a functional and an out= variant
  (model.py:1200 NativeFunctionsGroup.from_dict); autogen'd variants join their parent's;
- is_view_op (model.py:1057): a return aliasing an input without writing it, the
  inplace_view tag (except resize_, and in 2.6.0 resize_as_), or a wildcard alias `(a -> *)`;
- view groups (gen.py:1399): a view op, its inplace form and its `_copy` op share
  view_signature() (`_copy` dropped from the base name);
- `foo_functional` is foo's functional variant (model.py:2559), its base name foo's;
- is_abstract (model.py:886): a structured_delegate, or a dispatch table that is not only
  composite-implicit; an autogen'd variant is abstract as its parent is
  (native_function_generation.py:355);
- the backend index (model.py:725): the yaml's dispatch rows, the default
  CompositeImplicitAutograd row, ufunc and autogen rows. torchgen.gen drops MPS (and XPU)
  rows unless asked (gen.py:2896) and tools/autograd keeps them (gen_autograd.py:66); the
  registration rules never ask about those keys, only is_abstract sees them, so one model
  with every row serves both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from ..native_yaml import Argument, NativeFacts, OpFact, Schema, parse_schema, split_top_level
from ..vocab import Origin

# The rows that make torchgen's BackendIndex (origin delegate and meta rows are generated
# outside it, by the structured rules).
INDEX_ORIGINS = frozenset({Origin.YAML, Origin.COMPOSITE_IMPLICIT, Origin.AUTOGEN, Origin.UFUNC})
TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")

CIA = "CompositeImplicitAutograd"
CIA_NESTED = "CompositeImplicitAutogradNestedTensor"
CEA = "CompositeExplicitAutograd"
CEANF = "CompositeExplicitAutogradNonFunctional"


@dataclass(frozen=True)
class Func:
    """One operator (a native_functions.yaml entry or an autogen'd variant)."""

    op: OpFact
    schema: Schema
    kernels: dict[str, str]  # backend index: dispatch key -> kernel name
    is_view_op: bool  # model.py:1057
    functional_overload: bool = False  # `foo_functional`: the functional variant of the mutable foo
    parent_abstract: bool | None = None  # an autogen'd variant's is_abstract is its parent's

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def kind(self) -> str:
        return self.schema.kind

    @property
    def qualified(self) -> str:
        return f"{self.op.namespace}::{self.op.name}"

    def has(self, key: str) -> bool:
        return key in self.kernels

    @property
    def has_composite_implicit(self) -> bool:
        return CIA in self.kernels

    @property
    def has_composite_kernel(self) -> bool:
        """model.py:1046"""
        return any(k in self.kernels for k in (CIA, CEA, CEANF))

    @property
    def modifies_arguments(self) -> bool:
        """model.py:1746"""
        return self.kind in ("inplace", "out", "mutable")

    @property
    def has_tensor_options(self) -> bool:
        return _tensor_options_at(self.schema.kwarg_only) is not None

    @property
    def cpp_name(self) -> str:
        return self.schema.cpp_name

    @property
    def base_name(self) -> str:
        """torchgen's BaseOperatorName.base: without the inplace `_`, a dunder's without `__`, `__i` and `__`."""
        base = self.schema.base
        if base.startswith("__") and base.endswith("__"):
            inner = base[2:-2]
            return inner[1:] if self.schema.inplace else inner
        if self.functional_overload:
            return base.removesuffix("_functional")
        return base[:-1] if self.schema.inplace else base

    @property
    def is_abstract(self) -> bool:
        """model.py:886: a structured_delegate, or a dispatch table with more than composite-implicit keys."""
        if self.parent_abstract is not None:
            return self.parent_abstract
        if self.op.structured_delegate is not None:
            return True
        return set(self.kernels) not in ({CIA}, {CIA_NESTED}, {CIA, CIA_NESTED})

    def signature(self, strip_default: bool = False) -> tuple:
        """FunctionSchema.signature(); a `foo_functional` variant's base is foo's (BaseOperatorName.base)."""
        return self._stripped_signature if strip_default else self._signature

    @cached_property
    def _signature(self) -> tuple:
        return self._signature_of(False)

    @cached_property
    def _stripped_signature(self) -> tuple:
        return self._signature_of(True)

    def _signature_of(self, strip_default: bool) -> tuple:
        key = signature_key(self.schema, strip_default=strip_default)
        return (self.base_name, *key[1:]) if self.functional_overload else key

    @cached_property
    def return_types(self) -> tuple[str, ...]:
        return _return_types(self.schema.returns)

    @property
    def tensor_like_returns(self) -> int:
        return sum(1 for t in self.return_types if t.startswith("Tensor"))

    @property
    def returns_count(self) -> int:
        return len(self.return_types)

    @property
    def wrapper_stem(self) -> str:
        """`<cpp name>_<overload>`: the name most generated kernels carry (add_out_out, add__Tensor)."""
        return f"{self.cpp_name}_{self.schema.overload}" if self.schema.overload else self.cpp_name


@dataclass(frozen=True)
class Group:
    """NativeFunctionsGroup: a functional and an out= variant, maybe an inplace and a mutable one."""

    functional: Func
    out: Func
    inplace: Func | None = None
    mutable: Func | None = None

    def functions(self) -> tuple[Func, ...]:
        """model.py NativeFunctionsGroup.functions(): functional, out, inplace, mutable."""
        return tuple(f for f in (self.functional, self.out, self.inplace, self.mutable) if f is not None)

    @property
    def structured(self) -> bool:
        return self.out.op.structured


@dataclass(frozen=True)
class ViewGroup:
    """NativeFunctionsViewGroup (model.py:2671): a view op, its inplace form and its _copy variant."""

    view: Func
    view_inplace: Func | None
    view_copy: Func | None


@dataclass(frozen=True)
class Model:
    funcs: tuple[Func, ...]
    groups: tuple[Group, ...]
    group_of: dict[str, Group] = field(repr=False)
    by_name: dict[str, Func] = field(repr=False)
    view_group_of: dict[str, ViewGroup] = field(repr=False)

    @cached_property
    def grouped(self) -> tuple[Func | Group, ...]:
        """gen.py get_grouped_native_functions: groups in order of their first variant, other functions alone."""
        out: list[Func | Group] = []
        seen: set[int] = set()
        for f in self.funcs:
            g = self.group_of.get(f.name)
            if g is None:
                out.append(f)
            elif id(g) not in seen:
                seen.add(id(g))
                out.append(g)
        return tuple(out)


def return_annotations(returns: str) -> list[str | None]:
    """The alias annotation of each return: `Tensor(a!)` -> `a!`, `Tensor` -> None."""
    text = returns.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    out: list[str | None] = []
    for part in split_top_level(text):
        type_ = part.split(" ")[0]
        if "(" in type_:
            out.append(type_.partition("(")[2].partition(")")[0])
        else:
            out.append(None)
    return out


def is_view(op: OpFact, schema: Schema, not_views: frozenset[str]) -> bool:
    """model.py:1057 is_view_op; not_views are the inplace_view ops the version leaves out."""
    if any(a is not None and "!" not in a for a in return_annotations(schema.returns)):
        return True
    if "inplace_view" in op.tags and op.name not in not_views:
        return True
    args = schema.positional + schema.kwarg_only + schema.out
    return any(a.annotation is not None and "*" in a.annotation for a in args)


def _tensor_options_at(kwargs: tuple[Argument, ...]) -> int | None:
    names = [a.name for a in kwargs]
    for i in range(len(names) - 3):
        if tuple(names[i:i + 4]) == TENSOR_OPTIONS:
            return i
    return None


def _return_types(returns: str) -> tuple[str, ...]:
    """The type of each return, annotations dropped: `(Tensor(a!) values, int)` -> (`Tensor`, `int`)."""
    text = returns.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    types = []
    for part in split_top_level(text):
        type_ = part.split(" ")[0]
        head, _, rest = type_.partition("(")
        types.append(head + rest.partition(")")[2])
    return tuple(types)


def signature_key(schema: Schema, strip_view_copy_name: bool = False, strip_default: bool = False) -> tuple:
    """model.py:1632 FunctionSchema.signature(), as a hashable key; view_signature() with strip_view_copy_name."""
    base = schema.base
    dunder = base.startswith("__") and base.endswith("__")
    if schema.inplace:
        base = f"__{base[3:]}" if dunder else base[:-1]
    if strip_view_copy_name:
        if base.endswith("_copy"):
            base = base.replace("_copy", "")
        elif base.endswith("_scatter"):
            base = base.replace("scatter", "inverse")
    kwargs = schema.kwarg_only
    at = _tensor_options_at(kwargs)
    if at is not None:
        kwargs = kwargs[:at] + kwargs[at + 4:]
    args = tuple((a.type, a.name, None if strip_default else a.default) for a in schema.positional + kwargs)
    has_self = bool(schema.positional) and schema.positional[0].name == "self"
    post_self = schema.positional[1:] if has_self else schema.positional
    self_arg = schema.positional[:1] if has_self else ()
    returned = set(a for a in return_annotations(schema.returns) if a is not None)
    mutated = tuple(a.type for a in (*self_arg, *schema.out, *post_self)
                    if a.is_write and a.annotation not in returned)
    return (base, args, _return_types(schema.returns) + mutated)


def _plain(args: tuple[Argument, ...]) -> tuple[Argument, ...]:
    return tuple(Argument(a.type, a.name, a.default, None) for a in args)


def without_options(kwargs: tuple[Argument, ...]) -> tuple[Argument, ...]:
    at = _tensor_options_at(kwargs)
    return kwargs if at is None else kwargs[:at] + kwargs[at + 4:]


def _join_returns(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"({', '.join(parts)})"


def _outs_from_returns(parent: Schema) -> tuple[tuple[Argument, ...], str]:
    """native_function_generation.py:187 generate_out_args_from_schema: an out= argument per tensor-like return."""
    types = _return_types(parent.returns)
    used = {c for a in parent.positional + parent.kwarg_only + parent.out if a.annotation for c in a.annotation
            if c.isalpha()}
    letters = [c for c in "abcdefghijklmnopqrstuvwxyz" if c not in used]
    outs, returns = [], []
    for i, t in enumerate(types):
        if t.startswith("Tensor"):
            outs.append(Argument(t, "out" if len(types) == 1 else f"out{i}", None, f"{letters[i]}!"))
            if all(x == "Tensor" for x in types):
                returns.append(f"Tensor({letters[i]}!)")
        else:
            returns.append(t)
    return tuple(outs), _join_returns(returns) if returns else "()"


def _autogen_schema(op: OpFact, parent: Schema) -> Schema:
    """native_function_generation.py:273 generate_function: the schema of an autogen'd variant."""
    if op.kind == "functional":  # parent.signature(keep_return_names=True)
        mutated = [a.type for a in parent.positional + parent.out if a.is_write
                   and a.annotation not in set(return_annotations(parent.returns))]
        returns = [t for t in _return_types(parent.returns) if t] + mutated
        return Schema(op.name, op.base, op.overload, _plain(parent.positional),
                      _plain(without_options(parent.kwarg_only)), (), _join_returns(returns) if returns else "()")
    if parent.kind == "inplace":  # self_to_out_signature (:133)
        self_arg = parent.positional[0]
        positional = (Argument(self_arg.type, self_arg.name, self_arg.default, None), *parent.positional[1:])
        outs = (Argument(self_arg.type, "out", None, self_arg.annotation),)
        return Schema(op.name, op.base, op.overload, positional, parent.kwarg_only, outs, parent.returns)
    if parent.kind == "mutable":  # mutable_to_out_signature (:238)
        outs, returns = _outs_from_returns(parent)
        return Schema(op.name, op.base, op.overload, parent.positional, parent.kwarg_only, outs, returns)
    outs, returns = _outs_from_returns(parent)  # functional_to_out_signature (:166)
    return Schema(op.name, op.base, op.overload, _plain(parent.positional),
                  _plain(without_options(parent.kwarg_only)), outs, returns)


def build(native: NativeFacts, not_views: frozenset[str]) -> Model:
    kernels: dict[str, dict[str, str]] = {}
    for row in native.dispatch:
        if row.origin in INDEX_ORIGINS:
            kernels.setdefault(row.op, {})[row.key] = row.kernel
    funcs: list[Func] = []
    by_name: dict[str, Func] = {}
    for op in native.ops:
        parent = by_name.get(op.generated_from) if op.generated_from else None
        if parent is None:
            schema = parse_schema(op.func)
            f = Func(op, schema, kernels.get(op.name, {}), is_view(op, schema, not_views),
                     functional_overload=_functional_overload(schema))
        else:
            schema = _autogen_schema(op, parent.schema)
            f = Func(op, schema, kernels.get(op.name, {}), False,
                     functional_overload=_functional_overload(schema),
                     parent_abstract=parent.is_abstract)
        funcs.append(f)
        by_name[f.name] = f
    buckets: dict[tuple, dict[str, Func]] = {}
    for f in funcs:
        key = by_name[f.op.generated_from].signature() if f.op.generated_from else f.signature()
        buckets.setdefault(key, {})[f.kind] = f
    groups: list[Group] = []
    group_of: dict[str, Group] = {}
    for d in buckets.values():
        if len(d) > 1 and "out" in d and "functional" in d:
            g = Group(d["functional"], d["out"], d.get("inplace"), d.get("mutable"))
            groups.append(g)
            for f in g.functions():
                group_of[f.name] = g
    return Model(tuple(funcs), tuple(groups), group_of, by_name, _view_groups(funcs))


def _functional_overload(schema: Schema) -> bool:
    """model.py:2559 BaseOperatorName.parse: a base ending in `_functional` names a functional variant."""
    return schema.base.endswith("_functional") and not schema.base.startswith("__")


def _view_groups(funcs: list[Func]) -> dict[str, ViewGroup]:
    """gen.py:1399 get_grouped_by_view_native_functions: view, view_inplace and view_copy by view_signature()."""
    buckets: dict[tuple, dict[str, Func]] = {}
    for f in funcs:
        kind = ("aliasing_inplace" if f.schema.inplace else "aliasing") if f.is_view_op else f.kind
        buckets.setdefault(signature_key(f.schema, strip_view_copy_name=True), {})[kind] = f
    out: dict[str, ViewGroup] = {}
    for d in buckets.values():
        if "aliasing" in d:
            g = ViewGroup(d["aliasing"], d.get("aliasing_inplace"), d.get("functional"))
            for f in (g.view, g.view_inplace, g.view_copy):
                if f is not None:
                    out[f.name] = g
    return out
