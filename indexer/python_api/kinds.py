"""The Python layer's own closed vocabularies (the call kinds are indexer/vocab.py's PyCallKind).

Each value is the plain string stored in the py_* tables and shown in JSON.
"""

from __future__ import annotations

from enum import StrEnum


class PyDefKind(StrEnum):
    """py_defs.kind"""

    FUNCTION = "function"  # a def at module level (also inside a module-level if/try/with)
    METHOD = "method"  # a def in a class body


class ReexportKind(StrEnum):
    """py_reexports.kind: how a module makes a name (or a whole namespace) its own."""

    IMPORT = "import"  # `from .conv import Conv2d` or `import x as y` in a package's __init__.py
    STAR_IMPORT = "star_import"  # `from torch._C import *` in a package's __init__.py
    DIR_LOOP = "dir_loop"  # `for name in dir(X): globals()[name] = ...`
    GETATTR_FORWARD = "getattr_forward"  # `sys.modules[__name__] = Cls(...)` whose __getattr__ forwards
    ALL = "all"  # a string in __all__ (assigned, extended or appended)


class DecompKind(StrEnum):
    """py_decomps.kind"""

    DECOMPOSITION = "decomposition"  # registered outside torch/_refs
    REF = "ref"  # under torch/_refs
    PY_IMPL = "py_impl"  # @aten.<op>.py_impl(<key>)


class DecompHow(StrEnum):
    """py_decomps.how: where the op of a registration comes from."""

    WRITTEN = "written"  # the op is written in the source
    INFERRED = "inferred"  # from a factory's naming rule (torch._refs' get_aten_op, _make_inplace)
    NONE = "none"  # the function registers no op


class BindingVia(StrEnum):
    """py_bindings.via: how a name is bound to its callee."""

    ADD_DOCSTR = "_add_docstr"  # X = _add_docstr(callee, ...) (also add_docstr)
    BOOLEAN_DISPATCH = "boolean_dispatch"  # X = boolean_dispatch(if_true=..., if_false=...)
    MAKE_ALIAS = "_make_alias"  # X = _make_alias(callee, ...)
    MAKE_INPLACE = "_make_inplace"  # X = _make_inplace(callee)
    ASSIGN = "assign"  # X = callee


class BranchKind(StrEnum):
    """py_branches.conditions[].kind: the branch a call is under (branches.py)."""

    IF = "if"
    ELIF = "elif"
    ELSE = "else"
    IFEXP = "ifexp"  # the first value of `A if T else B`
    IFEXP_ELSE = "ifexp_else"  # its second value


class FlagKind(StrEnum):
    """py_flags.kind: where a name a test reads gets its value."""

    PARAMETER = "parameter"  # the def's parameter, with its default
    ASSIGN = "assign"  # an assignment in the def
