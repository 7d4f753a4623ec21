"""The vocabulary of the graph the link stage writes: node kinds, edge kinds, and how an edge was made.

Values are the plain strings stored in the `nodes` and `edges` tables and carried in JSON.
"""

from __future__ import annotations

from enum import StrEnum


class NodeKind(StrEnum):
    OP = "op"  # an entry of native_functions.yaml (ops.id)
    KERNEL = "kernel"  # one (op, key) row of the dispatch table (dispatch.id)
    FUNCTION = "function"  # a function, method or __device__ function definition (definitions.id)
    GLOBAL_KERNEL = "global_kernel"  # a __global__ function definition (definitions.id)
    STRUCTURED = "structured"  # a TORCH_META_FUNC* / TORCH_IMPL_FUNC definition (definitions.id)
    STUB = "stub"  # a DispatchStub, by qualified name (link/stubs.py: detail); its line is the DECLARE_DISPATCH
    LIBRARY = "library"  # a vendor library entry point, by family and name (cublasGemmEx in cublas)
    DERIVATIVE = "derivative"  # an entry of derivatives.yaml (derivatives.id)


class EdgeKind(StrEnum):
    HAS_KERNEL = "has-kernel"  # op -> (op, key) kernel, at the yaml line of the dispatch entry
    IMPLEMENTS = "implements"  # (op, key) kernel -> the definition that implements it
    META = "meta"  # op -> its TORCH_META_FUNC (structured ops)
    BACKWARD = "backward"  # op -> the derivatives.yaml entry it gets
    CALLS = "calls"  # function -> function, at the call
    USES_STUB = "uses-stub"  # function -> stub it calls or hands on
    DECLARED_AT = "declared-at"  # stub -> nothing; where DECLARE_DISPATCH is written
    DEFINED_AT = "defined-at"  # stub -> nothing; where DEFINE_DISPATCH is written
    REGISTERS = "registers"  # stub -> the function registered for a device (and CPU capability)
    LAUNCHES = "launches"  # function -> __global__ kernel, at the <<<
    RUNS_FUNCTOR = "runs-functor"  # function -> the operator() (or lambda) a launch helper or loop runs
    CALLS_LIBRARY = "calls-library"  # function -> vendor library entry point
    REDISPATCHES_TO_OP = "redispatches-to-op"  # function -> op it calls through the dispatcher (at::, Tensor methods)
    DTYPES = "dtypes"  # function -> nothing; an AT_DISPATCH dtype set written there (detail: macro and dtypes)


class How(StrEnum):
    """How a name became an edge's target, or why it has none (dst NULL)."""

    EXACT = "exact"  # the written qualified name is one definition's
    SAME_FILE = "same-file"  # the visible definition in the caller's own file
    INCLUDE = "include"  # the one definition visible through the caller's #include chain
    SAME_NAMESPACE = "same-namespace"  # found by C++ lookup from the caller's namespace (or class) outward
    USING = "using"  # found through a using-directive or using-declaration
    RECEIVER = "receiver-type"  # a member call on a parameter or local whose declared type names the class
    OVERLOAD = "overload"  # overloads told apart by argument count
    SPECIALISATIONS = "specialisations"  # a template call with dependent arguments: every explicit specialisation
    OVERLOAD_SET = "overload-set"  # one name in one scope, overloaded by type (or a class template's specialisations)
    UNIQUE = "unique-name"  # no lookup rule decided, and the checkout has exactly one definition of the name
    REGISTERED = "registered"  # a stub registration's kernel, looked up from the registering file
    YAML = "yaml"  # the dispatch table says so (has-kernel, meta, backward)
    GENERATED = "generated"  # code PyTorch generates at build time; the target is modelled, not in the checkout
    OP = "op"  # an op, through the dispatcher
    TENSOR_METHOD = "tensor-method"  # a Tensor method that is not an op (generated TensorBody.h / TensorBase.h)
    MACRO = "macro"  # a macro, not a call
    STANDARD = "standard"  # the C++ or CUDA standard library or a language built-in (casts, intrinsics)
    VENDOR = "vendor"  # a vendor library (cuBLAS, cuDNN, oneDNN, MKL, CUB/Thrust, MPS, ...)
    TYPE = "type"  # a constructor, a cast to a type, a template parameter
    AMBIGUOUS = "ambiguous"  # several candidates remain (detail: how many)
    NOT_IN_CHECKOUT = "not-in-checkout"  # no definition of the name in the checkout
    VIRTUAL = "virtual"  # a call through a virtual method or a function pointer with no known target
    OVERRIDES = "overrides"  # a member the receiver's class declares without a body: each derived class's definition
    LAMBDA = "local-lambda"  # a variable of the caller holding a lambda, called (detail: the lambda's line); its body is the caller's
    TEMPLATE_ARGUMENT = "template-argument"  # through a template parameter, to what a call site writes as its argument
    TEMPLATE_PARAMETER = "template-parameter"  # (while linking only) a call through a template parameter, not yet bound
    PER_BUILD = "per-build-configuration"  # one qualified name, each definition under a guard no build holds with the others' (configurations.py)
    ARGUMENT_DEPENDENT = "argument-dependent"  # an unqualified call that ordinary lookup finds nothing for: the function in the namespace of an argument's type (ADL)
    ARGUMENT_TYPES = "argument-types"  # one overload of an overload set, picked by the argument types written (link/overloads.py; detail: how many)


# The ways a call keeps an edge per candidate (or, past a bound, one edge counting them): resolve.py _many
SEVERAL = (How.AMBIGUOUS, How.OVERLOAD_SET, How.OVERRIDES)

# The operator functions an operator expression calls (cxx/calls.py writes `a * b` as a call of `operator*`)
OPERATOR_CALLS = frozenset("operator" + sign for sign in (
    "+", "-", "*", "/", "%", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="))


VIEW_COPY = "generated by torchgen for view_copy"  # detail of the implements edge of a generated view_copy kernel


_STUB_EDGE_KINDS = {EdgeKind.DECLARED_AT: 0, EdgeKind.DEFINED_AT: 1}


def stub_edge_order(edge: tuple) -> tuple[int, str, int]:
    """The order kernels-for shows a stub's edges in, given as (kind, dst, file, line, ...): declarations,
    definitions, then registrations, each by file and line; a stable sort keeps one line's registrations (one
    per CPU capability) in the order written. Not by edge id: a stub's edges come from many files, which a
    build extracts largest first, and an incremental link gives the registrations it makes again new ids."""
    return _STUB_EDGE_KINDS.get(edge[0], 2), edge[2] or "", edge[3] or 0
