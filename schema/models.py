"""The data contract: every table of the index, every column documented.

People write their own SQL against these tables (and the views in views.sql),
so each column says what it holds. Locations are always a path relative to the
checkout root plus a 1-based line. Booleans are 0/1 integers, lists are JSON
arrays in TEXT columns.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

SCHEMA_VERSION = 1


class Base(DeclarativeBase):
    pass


class Meta(Base):
    """One row per fact about the build: checkout, pytorch_version, indexed_at,
    tool_version, schema_version, seconds, files."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String, primary_key=True, comment="name of the fact")
    value: Mapped[str] = mapped_column(Text, comment="its value, as text")


class File(Base):
    """Every source file the build read (or skipped), with its content hash."""

    __tablename__ = "files"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    path: Mapped[str] = mapped_column(String, unique=True, comment="path relative to the checkout")
    language: Mapped[str] = mapped_column(String, comment="yaml, cpp, cuda, objcpp or python")
    sha256: Mapped[str] = mapped_column(String, comment="hash of the content; unchanged files are not parsed again")
    size: Mapped[int] = mapped_column(Integer, comment="bytes")
    parse_errors: Mapped[int] = mapped_column(Integer, default=0, comment="tree-sitter ERROR/MISSING nodes")
    status: Mapped[str] = mapped_column(String, default="ok", comment="ok, or why the file was skipped")


class Tag(Base):
    """tags.yaml: the tags an op may carry."""

    __tablename__ = "tags"
    name: Mapped[str] = mapped_column(String, primary_key=True, comment="tag name, e.g. pointwise")
    description: Mapped[str] = mapped_column(Text, comment="the desc: text")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer)


class Op(Base):
    """One row per operator of native_functions.yaml, plus the ones autogen generates."""

    __tablename__ = "ops"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String, unique=True, comment="operator name with overload: add.out, relu")
    namespace: Mapped[str] = mapped_column(String, comment="aten")
    base: Mapped[str] = mapped_column(String, index=True, comment="name without overload: add, add_, __iand__")
    overload: Mapped[str] = mapped_column(String, comment="overload name, '' for none")
    func: Mapped[str] = mapped_column(Text, comment="the func: schema as written ('' for generated ops)")
    kind: Mapped[str] = mapped_column(String, comment="functional, inplace, out, mutable or scratch (torchgen's SchemaKind)")
    variants: Mapped[str] = mapped_column(String, comment="JSON list: function, method")
    structured: Mapped[int] = mapped_column(Integer, comment="1 for structured: True")
    structured_delegate: Mapped[str | None] = mapped_column(String, comment="op whose structured kernels this one uses")
    structured_inherits: Mapped[str | None] = mapped_column(String, comment="base class of the meta struct, e.g. TensorIteratorBase")
    precomputed: Mapped[str] = mapped_column(Text, comment="JSON list of precomputed: lines")
    ufunc_inner_loop: Mapped[str] = mapped_column(Text, comment="JSON list of {ufunc_key, name, dtypes}")
    autogen: Mapped[str] = mapped_column(Text, comment="JSON list of ops this entry asks torchgen to generate")
    device_check: Mapped[str | None] = mapped_column(String, comment="NoCheck or ExactSame; NULL means the default ExactSame")
    device_guard: Mapped[int] = mapped_column(Integer, comment="0 for device_guard: False")
    python_module: Mapped[str | None] = mapped_column(String, comment="nn, linalg, special, fft, sparse, nested")
    category_override: Mapped[str | None] = mapped_column(String)
    manual_kernel_registration: Mapped[int] = mapped_column(Integer)
    manual_cpp_binding: Mapped[int] = mapped_column(Integer)
    cpp_no_default_args: Mapped[str] = mapped_column(Text, comment="JSON list")
    use_const_ref_for_mutable_tensors: Mapped[int] = mapped_column(Integer)
    generated_from: Mapped[str | None] = mapped_column(String, comment="for autogen'd ops: the entry that lists them")
    raw: Mapped[str] = mapped_column(Text, comment="the whole entry as JSON, every field as written")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer, comment="line of '- func:' (of the autogen: key for generated ops)")


class OpTag(Base):
    """The tags of each op (one row per op and tag)."""

    __tablename__ = "op_tags"
    op_id: Mapped[int] = mapped_column(ForeignKey("ops.id"), primary_key=True)
    tag: Mapped[str] = mapped_column(String, primary_key=True, index=True)


class Dispatch(Base):
    """The op -> dispatch key -> kernel table, by torchgen's rules.

    origin: yaml (a dispatch: entry), composite_implicit (no dispatch: entry),
    autogen (generated op, CompositeExplicitAutograd), ufunc (ufunc_inner_loop
    kernels ufunc_<name>_CPU/CUDA, generated at build time) or delegate (the
    kernel of the structured_delegate op, which this variant uses).
    """

    __tablename__ = "dispatch"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op_id: Mapped[int] = mapped_column(ForeignKey("ops.id"), index=True)
    op: Mapped[str] = mapped_column(String, index=True, comment="operator name, as ops.name")
    key: Mapped[str] = mapped_column(String, index=True, comment="dispatch key: CPU, CUDA, SparseCPU, CompositeImplicitAutograd ...")
    kernel: Mapped[str] = mapped_column(String, index=True, comment="C++ function name, without namespace")
    cpp_namespace: Mapped[str] = mapped_column(String, comment="namespace of the kernel, e.g. at::native")
    origin: Mapped[str] = mapped_column(String, comment="yaml, composite_implicit, autogen, ufunc or delegate")
    structured: Mapped[int] = mapped_column(Integer, comment="1 when the kernel is a structured kernel for this key")
    via: Mapped[str | None] = mapped_column(String, comment="the delegate op, for origin delegate")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer, comment="line of the dispatch key (or of the entry, autogen:, ufunc_inner_loop:, structured_delegate:)")


class UfuncLoop(Base):
    """ufunc_inner_loop entries: which ufunc:: function serves which dtypes."""

    __tablename__ = "ufunc_loops"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op_id: Mapped[int] = mapped_column(ForeignKey("ops.id"), index=True)
    ufunc_key: Mapped[str] = mapped_column(String, comment="Generic, ScalarOnly, CUDAFunctorOnSelf, ...")
    name: Mapped[str] = mapped_column(String, comment="the ufunc:: function, e.g. add")
    dtypes: Mapped[str] = mapped_column(Text, comment="JSON list of dtype groups as written: AllAndComplex, BFloat16 ...")


class Derivative(Base):
    """derivatives.yaml entries; a dispatch: block gives one row per dispatch key."""

    __tablename__ = "derivatives"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    op_id: Mapped[int | None] = mapped_column(ForeignKey("ops.id"), index=True, comment="NULL when no op has that name")
    op: Mapped[str] = mapped_column(String, index=True, comment="operator name of name:, e.g. add.Tensor")
    signature: Mapped[str] = mapped_column(Text, comment="the name: schema as written")
    dispatch_key: Mapped[str | None] = mapped_column(String, comment="Default, AutogradNestedTensor ... for dispatch: blocks")
    output_differentiability: Mapped[str | None] = mapped_column(Text, comment="JSON list of true/false or C++ conditions")
    saved_results: Mapped[str] = mapped_column(Text, comment="JSON list of outputs the backward formulas read")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer)


class DerivativeFormula(Base):
    """One formula of a derivatives.yaml entry."""

    __tablename__ = "derivative_formulas"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    derivative_id: Mapped[int] = mapped_column(ForeignKey("derivatives.id"), index=True)
    names: Mapped[str] = mapped_column(String, comment="JSON list of the inputs (or outputs) the formula is for")
    kind: Mapped[str] = mapped_column(String, comment="input (backward formula) or output (forward-mode formula)")
    formula: Mapped[str] = mapped_column(Text, comment="the C++ expression, whitespace folded")
    file: Mapped[str] = mapped_column(String)
    line: Mapped[int] = mapped_column(Integer)


Index("ix_dispatch_op_key", Dispatch.op, Dispatch.key)
