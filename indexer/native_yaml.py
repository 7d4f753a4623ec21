"""native_functions.yaml and tags.yaml -> OpFact, DispatchFact, TagFact.

The op -> dispatch key -> kernel table follows torchgen's rules (torchgen/model.py
NativeFunction.from_yaml and torchgen/native_function_generation.py):

- a dispatch entry `"CPU, CUDA": foo` gives one row per comma-joined key (origin yaml);
  `ns::foo` puts the kernel in namespace `ns::native`, otherwise `at::native`;
- an entry with no dispatch, not structured and no structured_delegate gets
  CompositeImplicitAutograd with the C++ name of the op (origin composite_implicit);
- ufunc_inner_loop gives CPU and CUDA kernels named ufunc_<name>_<key> (origin ufunc);
- every name listed in autogen is a generated op with a CompositeExplicitAutograd
  kernel (origin autogen);
- a structured_delegate variant uses its delegate's structured kernels for the keys it
  does not list itself (origin delegate), and every structured group gets a Meta kernel
  from its meta function (origin meta); torchgen generates both, outside its BackendIndex.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from . import naming
from .errors import SourceError
from .facts import Location
from .vocab import Origin
from .yaml_lines import LinedDict, load, with_lines

NATIVE_FUNCTIONS = "aten/src/ATen/native/native_functions.yaml"
TAGS = "aten/src/ATen/native/tags.yaml"

# The keys an entry may carry; anything else is an error naming file:line.
ENTRY_KEYS = frozenset(
    {
        "func",
        "variants",
        "structured",
        "structured_delegate",
        "structured_inherits",
        "precomputed",
        "ufunc_inner_loop",
        "dispatch",
        "autogen",
        "tags",
        "device_check",
        "device_guard",
        "python_module",
        "manual_kernel_registration",
        "manual_cpp_binding",
        "category_override",
        "cpp_no_default_args",
        "use_const_ref_for_mutable_tensors",
    }
)
STRUCTURED_KEYS = frozenset({"CPU", "CUDA", "MPS", "XPU"})
UFUNC_KEYS = naming.UFUNC_KEYS
DEFAULT_NAMESPACE = "at::native"
AUGMENTED_ASSIGNMENT_NAMES = frozenset(
    "add sub mul div mod pow lshift rshift and xor or".split()
)


@dataclass(frozen=True)
class Argument:
    type: str
    name: str
    default: str | None
    annotation: str | None  # "a!" for Tensor(a!)

    @property
    def is_write(self) -> bool:
        return self.annotation is not None and "!" in self.annotation


@dataclass(frozen=True)
class Schema:
    """The parts of a function schema the dispatch rules need (torchgen's FunctionSchema, abridged)."""

    name: str  # "add.out"
    base: str  # "add", "add_", "__iand__", "_foo_functional"
    overload: str  # "out" or ""
    positional: tuple[Argument, ...]
    kwarg_only: tuple[Argument, ...]
    out: tuple[Argument, ...]
    returns: str

    @property
    def inplace(self) -> bool:
        if self.base.startswith("__") and self.base.endswith("__"):
            inner = self.base[2:-2]
            return inner.startswith("i") and inner[1:] in AUGMENTED_ASSIGNMENT_NAMES
        return self.base.endswith("_")

    @property
    def kind(self) -> str:
        """functional, inplace, out, scratch or mutable, as torchgen's SchemaKind."""
        if self.inplace:
            return "inplace"
        if any(a.name.startswith("_scratch_") for a in self.out):
            return "scratch"
        if self.out:
            return "out"
        post_self = self.positional[1:] if self.positional and self.positional[0].name == "self" else self.positional
        if any(a.is_write for a in post_self):
            return "mutable"
        return "functional"

    @property
    def has_symint(self) -> bool:
        args = self.positional + self.kwarg_only + self.out
        return any("SymInt" in a.type for a in args) or "SymInt" in self.returns

    @property
    def cpp_name(self) -> str:
        """torchgen.api.cpp.name: the base name, plus _out for out= functions."""
        return self.base + ("_out" if self.out else "")

    @property
    def unambiguous_name(self) -> str:
        return naming.unambiguous_name(self.base, self.overload)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split on sep outside of (), [] and quotes."""
    parts: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _parse_argument(text: str) -> Argument:
    declared, _, default = text.partition("=")
    type_, _, name = declared.strip().rpartition(" ")
    annotation = None
    if "(" in type_:
        head, _, rest = type_.partition("(")
        annotation, _, tail = rest.partition(")")
        type_ = head + tail
    return Argument(type=type_, name=name, default=default.strip() or None, annotation=annotation)


def parse_schema(func: str) -> Schema:
    """Parse a native_functions.yaml `func:` string; raises ValueError when it is not one."""
    head, sep, after = func.partition("(")
    args_text, sep2, returns = after.rpartition(") -> ")
    if not sep or not sep2 or not head.strip():
        raise ValueError(f"not a function schema: {func!r}")
    if "::" in head:
        head = head.split("::", 1)[1]
    base, _, overload = head.strip().partition(".")
    positional: list[Argument] = []
    kwarg_only: list[Argument] = []
    out: list[Argument] = []
    target = positional
    for part in split_top_level(args_text):
        if part == "*":
            target = kwarg_only
            continue
        arg = _parse_argument(part)
        if arg.is_write and target is kwarg_only:
            target = out
        target.append(arg)
    return Schema(
        name=f"{base}.{overload}" if overload else base,
        base=base,
        overload=overload,
        positional=tuple(positional),
        kwarg_only=tuple(kwarg_only),
        out=tuple(out),
        returns=returns.strip(),
    )


def op_name(name: str) -> str:
    """`aten::add.out` or `add.out` -> `add.out`."""
    return name.split("::", 1)[1] if "::" in name else name


@dataclass(frozen=True)
class UfuncLoop:
    ufunc_key: str  # Generic, ScalarOnly, CUDAFunctor, ...
    name: str  # the ufunc:: function, e.g. "add"
    dtypes: tuple[str, ...]  # as written: ("AllAndComplex", "BFloat16", ...)


@dataclass(frozen=True)
class OpFact:
    name: str  # "add.out"
    namespace: str  # "aten"
    func: str  # the whole schema string
    kind: str  # functional, inplace, out, mutable, scratch
    variants: tuple[str, ...]
    structured: bool
    structured_delegate: str | None
    structured_inherits: str | None
    precomputed: tuple[str, ...]
    ufunc_inner_loop: tuple[UfuncLoop, ...]
    autogen: tuple[str, ...]
    tags: tuple[str, ...]
    device_check: str | None
    device_guard: bool
    python_module: str | None
    category_override: str | None
    manual_kernel_registration: bool
    manual_cpp_binding: bool
    cpp_no_default_args: tuple[str, ...]
    use_const_ref_for_mutable_tensors: bool
    generated_from: str | None  # set for autogen'd ops: the entry that lists them
    loc: Location
    raw: str = field(repr=False)  # the entry as JSON, every field as written

    @property
    def base(self) -> str:
        return self.name.partition(".")[0]

    @property
    def overload(self) -> str:
        return self.name.partition(".")[2]


@dataclass(frozen=True)
class DispatchFact:
    op: str  # "add.out"
    key: str  # "SparseCPU"
    kernel: str  # "add_out_sparse_cpu"
    cpp_namespace: str  # "at::native"
    origin: Origin
    structured: bool
    via: str | None  # the delegate op, for origin delegate
    loc: Location


@dataclass(frozen=True)
class TagFact:
    name: str
    description: str
    loc: Location


@dataclass(frozen=True)
class NativeFacts:
    ops: tuple[OpFact, ...]
    dispatch: tuple[DispatchFact, ...]
    tags: tuple[TagFact, ...]


def _expect(value: object, types: type | tuple[type, ...], where: str, key: str) -> None:
    if not isinstance(value, types):
        names = types.__name__ if isinstance(types, type) else " or ".join(t.__name__ for t in types)
        raise SourceError(f"{where}: '{key}' must be a {names}, not {type(value).__name__} ({value!r})")


def parse_tags(text: str, path: str = TAGS) -> tuple[TagFact, ...]:
    doc = load(text, path)
    if doc is None:
        return ()
    if not isinstance(doc, list):
        raise SourceError(f"{path}:1: expected a list of tags")
    tags = []
    for entry, line in with_lines(doc):
        if not isinstance(entry, LinedDict) or not isinstance(entry.get("tag"), str):
            raise SourceError(f"{path}:{line}: a tags.yaml entry needs a 'tag' string")
        unknown = set(entry) - {"tag", "desc"}
        if unknown:
            raise SourceError(f"{path}:{entry.key_lines[sorted(unknown)[0]]}: unknown key '{sorted(unknown)[0]}'")
        tags.append(TagFact(entry["tag"], str(entry.get("desc", "")).strip(), Location(path, entry.line)))
    return tuple(tags)


def _parse_ufunc(raw: object, path: str, line: int) -> tuple[UfuncLoop, ...]:
    """`name (Dtype, ...)`, or a mapping of ufunc keys to that; errors name the line of the bad value."""
    if isinstance(raw, str):
        items = [("Generic", raw, line)]
    elif isinstance(raw, LinedDict):
        items = [(key, value, raw.key_lines[key]) for key, value in raw.items()]
    else:
        raise SourceError(f"{path}:{line}: 'ufunc_inner_loop' must be a string or a mapping")
    loops = []
    for key, value, at in items:
        if not isinstance(value, str) or " (" not in value or not value.endswith(")"):
            raise SourceError(f"{path}:{at}: ufunc_inner_loop {key}: expected 'name (Dtype, ...)', got {value!r}")
        name, _, dtypes = value.partition(" (")
        loops.append(UfuncLoop(str(key), name.strip(), tuple(d.strip() for d in dtypes[:-1].split(","))))
    return tuple(loops)


def _str_list(value: object, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    _expect(value, list, where, key)
    return tuple(str(v) for v in value)  # type: ignore[union-attr]


def parse_entry(entry: LinedDict, path: str) -> tuple[OpFact, Schema]:
    where = f"{path}:{entry.line}"
    unknown = [k for k in entry if k not in ENTRY_KEYS]
    if unknown:
        raise SourceError(f"{path}:{entry.key_lines[unknown[0]]}: unknown key '{unknown[0]}'")
    func = entry.get("func")
    if not isinstance(func, str):
        raise SourceError(f"{where}: entry has no 'func' string")
    try:
        schema = parse_schema(func)
    except ValueError as exc:
        raise SourceError(f"{where}: {exc}") from None
    namespace = func.split("::", 1)[0] if "::" in func.partition("(")[0] else "aten"
    for key in ("structured", "device_guard", "manual_kernel_registration", "manual_cpp_binding",
                "use_const_ref_for_mutable_tensors"):
        if key in entry:
            _expect(entry[key], bool, where, key)
    for key in ("structured_delegate", "structured_inherits", "python_module", "category_override",
                "device_check", "variants", "autogen"):
        if key in entry:
            _expect(entry[key], str, where, key)
    variants = tuple(v.strip() for v in entry.get("variants", "function").split(","))
    for variant in variants:
        if variant not in ("function", "method"):
            raise SourceError(f"{path}:{entry.key_lines['variants']}: illegal variant '{variant}'")
    precomputed = entry.get("precomputed") or []
    _expect(precomputed, list, where, "precomputed")
    op = OpFact(
        name=schema.name,
        namespace=namespace,
        func=func,
        kind=schema.kind,
        variants=variants,
        structured=entry.get("structured", False),
        structured_delegate=entry.get("structured_delegate"),
        structured_inherits=entry.get("structured_inherits"),
        precomputed=tuple(str(p) for p in precomputed),
        ufunc_inner_loop=(_parse_ufunc(entry["ufunc_inner_loop"], path, entry.key_lines["ufunc_inner_loop"])
                          if "ufunc_inner_loop" in entry else ()),
        autogen=tuple(a.strip() for a in entry.get("autogen", "").split(",") if a.strip()),
        tags=_str_list(entry.get("tags", []), where, "tags"),
        device_check=entry.get("device_check"),
        device_guard=entry.get("device_guard", True),
        python_module=entry.get("python_module"),
        category_override=entry.get("category_override"),
        manual_kernel_registration=entry.get("manual_kernel_registration", False),
        manual_cpp_binding=entry.get("manual_cpp_binding", False),
        cpp_no_default_args=_str_list(entry.get("cpp_no_default_args", []), where, "cpp_no_default_args"),
        use_const_ref_for_mutable_tensors=entry.get("use_const_ref_for_mutable_tensors", False),
        generated_from=None,
        loc=Location(path, entry.line),
        raw=json.dumps(entry, sort_keys=False, default=str),  # a date or bytes value is kept as written
    )
    return op, schema


def _own_rows(op: OpFact, schema: Schema, entry: LinedDict, path: str) -> list[DispatchFact]:
    rows: list[DispatchFact] = []
    raw = entry.get("dispatch")
    if raw is not None:
        if not isinstance(raw, LinedDict):
            raise SourceError(f"{path}:{entry.key_lines['dispatch']}: 'dispatch' must be a mapping")
        for keys, kernel in raw.items():
            line = raw.key_lines[keys]
            if not isinstance(keys, str) or not isinstance(kernel, str):
                raise SourceError(f"{path}:{line}: illegal dispatch entry {keys!r}: {kernel!r}")
            namespace, _, name = kernel.rpartition("::")
            if not name.strip():
                raise SourceError(f"{path}:{line}: dispatch {keys!r} names no kernel")
            cpp_namespace = f"{namespace}::native" if namespace else DEFAULT_NAMESPACE
            for key in keys.split(","):
                key = key.strip()
                if not key:
                    raise SourceError(f"{path}:{line}: empty dispatch key in {keys!r}")
                rows.append(DispatchFact(op.name, key, name, cpp_namespace, Origin.YAML,
                                         op.structured and key in STRUCTURED_KEYS, None, Location(path, line)))
    elif not op.structured and op.structured_delegate is None:
        rows.append(DispatchFact(op.name, "CompositeImplicitAutograd", schema.cpp_name, DEFAULT_NAMESPACE,
                                 Origin.COMPOSITE_IMPLICIT, False, None, op.loc))
    if op.ufunc_inner_loop:
        line = entry.key_lines["ufunc_inner_loop"]
        for key in UFUNC_KEYS:
            rows.append(DispatchFact(op.name, key, naming.ufunc_kernel(schema.base, key), DEFAULT_NAMESPACE,
                                     Origin.UFUNC, True, None, Location(path, line)))
    return rows


_BASE_PRIORITY = {"mutable": 0, "inplace": 1, "out": 2, "functional": 3}


def _generates(parent: OpFact, schema: Schema, ops: dict[str, OpFact], implicit: set[str]) -> bool:
    """torchgen's add_generated_native_functions skips manual, view and composite-implicit groups."""
    if schema.base.startswith("__") and schema.base.endswith("__"):
        stem = schema.base[3:-2] if schema.inplace else schema.base[2:-2]
        names = {f"__{stem}__", f"__i{stem}__"}
    else:
        stem = schema.base.rstrip("_")
        names = {stem, stem + "_"}
    overload = naming.functional_overload(schema.overload) if schema.kind == "out" else schema.overload
    overloads = {overload, f"{overload}_out" if overload else "out"}
    group = [ops[f"{n}.{o}" if o else n] for n in names for o in overloads if (f"{n}.{o}" if o else n) in ops]
    if all(op.manual_cpp_binding for op in group):
        return False
    if any(_is_view(op) and op.base != "set_" for op in group):
        return False
    is_core = any("core" in op.tags for op in group)
    return not (all(op.name in implicit for op in group) and not is_core)


def _is_view(op: OpFact) -> bool:
    """A return that aliases an input without writing it, as `Tensor(a)`."""
    returns = op.func.rpartition(") -> ")[2]
    return any("!" not in alias for alias in _ALIAS.findall(returns))


_ALIAS = re.compile(r"\(([a-z]\w*!?(?:\s*->\s*\*)?)\)")


def _generated_op(parent: OpFact, parent_schema: Schema, name: str, line: int) -> tuple[OpFact, DispatchFact]:
    base, overload = naming.split_op(name)
    is_out = overload == "out" or overload.endswith("_out")
    kernel = naming.autogen_kernel(base, overload, parent_schema.has_symint)
    loc = Location(parent.loc.file, line)
    op = OpFact(
        name=name, namespace=parent.namespace, func="", kind="out" if is_out else "functional",
        variants=("function",), structured=False, structured_delegate=None, structured_inherits=None,
        precomputed=(), ufunc_inner_loop=(), autogen=(), tags=("generated",), device_check="NoCheck",
        device_guard=False, python_module=None, category_override=None, manual_kernel_registration=False,
        manual_cpp_binding=False, cpp_no_default_args=(), use_const_ref_for_mutable_tensors=False,
        generated_from=parent.name, loc=loc, raw="{}",
    )
    row = DispatchFact(name, "CompositeExplicitAutograd", kernel, DEFAULT_NAMESPACE, Origin.AUTOGEN, False, None, loc)
    return op, row


def parse_native_functions(text: str, path: str = NATIVE_FUNCTIONS) -> tuple[tuple[OpFact, ...], tuple[DispatchFact, ...]]:
    doc = load(text, path)
    if doc is None:
        raise SourceError(f"{path}:1: the file has no entries; expected a list of entries")
    if not isinstance(doc, list):
        raise SourceError(f"{path}:1: expected a list of entries, found {type(doc).__name__}")
    ops: dict[str, OpFact] = {}
    rows: list[DispatchFact] = []
    delegate_lines: dict[str, int] = {}
    autogen: dict[str, list[tuple[OpFact, Schema, int]]] = {}
    for entry, line in with_lines(doc):
        if not isinstance(entry, LinedDict):
            raise SourceError(f"{path}:{line}: an entry must be a mapping with a 'func' key, not {type(entry).__name__} ({entry!r:.60})")
        op, schema = parse_entry(entry, path)
        if op.name in ops:
            raise SourceError(f"{path}:{entry.line}: duplicate op '{op.name}' (first at line {ops[op.name].loc.line})")
        ops[op.name] = op
        if op.structured_delegate is not None:
            delegate_lines[op.name] = entry.key_lines["structured_delegate"]
            if op_name(op.structured_delegate) == op.name:
                raise SourceError(f"{path}:{delegate_lines[op.name]}: structured_delegate '{op.structured_delegate}' "
                                  "names the op itself; it must name the structured out= op")
        rows.extend(_own_rows(op, schema, entry, path))
        for name in op.autogen:
            autogen.setdefault(name, []).append((op, schema, entry.key_lines["autogen"]))
    # torchgen generates each op once, from the group's mutable, else inplace, else out,
    # else functional entry; several entries of a group may list the same name.
    # (The rows generated here are never CompositeImplicitAutograd, so the set is taken once.)
    implicit = {r.op for r in rows if r.key == "CompositeImplicitAutograd"}
    for name, parents in autogen.items():
        if name in ops:
            raise SourceError(f"{path}:{parents[0][2]}: autogen '{name}' is also an entry")
        parent, schema, line = min(parents, key=lambda p: _BASE_PRIORITY.get(p[1].kind, 9))
        if not _generates(parent, schema, ops, implicit):
            continue
        generated, row = _generated_op(parent, schema, name, line)
        ops[name] = generated
        rows.append(row)
    rows.extend(_delegate_rows(ops, rows, delegate_lines))
    return tuple(ops.values()), tuple(rows)


def _delegate_rows(ops: dict[str, OpFact], rows: list[DispatchFact], lines: dict[str, int]) -> list[DispatchFact]:
    """Kernels that structured groups get without a dispatch: line of their own.

    A structured_delegate variant is registered, for each key where its delegate
    has a structured kernel, with a wrapper around that kernel (origin delegate).
    Every structured group gets a Meta kernel built from its meta function, the
    struct at::meta::structured_<functional op> (origin meta).
    """
    by_op: dict[str, list[DispatchFact]] = {}
    variants: dict[str, list[OpFact]] = {}
    for row in rows:
        by_op.setdefault(row.op, []).append(row)
    for op in ops.values():
        if op.structured_delegate is not None:
            if op.structured_delegate not in ops:
                raise SourceError(f"{op.loc}: structured_delegate '{op.structured_delegate}' is not an op of this file")
            variants.setdefault(op.structured_delegate, []).append(op)
    extra = []
    for out_op in ops.values():
        if not out_op.structured:
            continue
        users = variants.get(out_op.name, [])
        functional = next((v for v in users if v.kind == "functional"), None)
        has_meta = any(r.key == "Meta" for r in by_op.get(out_op.name, []))
        if functional is not None and not has_meta:
            meta = naming.meta_struct(functional.base, functional.overload)
            for op in [out_op, *users]:
                if not any(r.key == "Meta" for r in by_op.get(op.name, [])):
                    extra.append(DispatchFact(op.name, "Meta", meta, "at::meta", Origin.META, True,
                                              None if op is out_op else out_op.name,
                                              op.loc if op is out_op else Location(op.loc.file, lines[op.name])))
        for op in users:
            own = {r.key for r in by_op.get(op.name, [])}
            for row in by_op.get(out_op.name, []):
                if row.structured and row.key not in own:
                    extra.append(DispatchFact(op.name, row.key, row.kernel, row.cpp_namespace, Origin.DELEGATE,
                                              True, out_op.name, Location(op.loc.file, lines[op.name])))
    return extra


def parse(native_text: str, tags_text: str | None) -> NativeFacts:
    """Both files of a checkout; tags.yaml is absent in old trees."""
    tags = parse_tags(tags_text) if tags_text is not None else ()
    ops, rows = parse_native_functions(native_text)
    known = {t.name for t in tags}
    if known:
        for op in ops:
            for tag in op.tags:
                if tag not in known and tag != "generated":
                    raise SourceError(f"{op.loc}: illegal tag '{tag}' (not in {TAGS})")
    return NativeFacts(ops, rows, tags)
