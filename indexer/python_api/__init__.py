"""Python sources of a checkout -> PyFacts, with the stdlib ast (torch is never imported).

The Python layer is where people start: ``nn.LayerNorm.forward`` calls
``F.layer_norm``, which calls ``torch.layer_norm``, which is the aten op
``layer_norm`` bound through ``torch._C._VariableFunctions``. This extractor
records, per file, what is statically visible of that chain:

- DefFact       module-level functions and methods (qualified names, line range)
- ClassFact     classes with their bases (resolved and as written), nn.Module evidence, forward
- CallFact      calls made inside each def, classified by target kind (PyCallKind); a called local
                alias (``func = _fused_adam`` ... ``func(...)``) adds a call of each function assigned
- BindingFact   names bound directly to a callee at module or class level
                (``gelu = _add_docstr(torch._C._nn.gelu, ...)``, ``boolean_dispatch``)
- ReexportFact  what a module re-exports (imports of packages, ``import *``,
                ``__all__``, the ``for name in dir(_C._VariableFunctions)`` loop,
                the ``torch._VF`` attribute forwarding)
- DecompFact    decompositions, references and ``py_impl`` kernels with their aten op
- BranchFact    the if/elif/else and conditional expressions that pick a call (``if fused and ...``)
- FlagFact      where the names those tests read get their values (parameter defaults, assignments)
- AttributeFact what a method assigns to an attribute of self from a call (``self.self_attn =
                MultiheadAttention(...)``): the class whose instance ``self.self_attn(...)`` calls

Where each part lives:

- files.py       which files of a checkout are read (PY_SOURCES)
- facts.py       the facts above, and the collector a walk fills; kinds.py their vocabularies
- names.py       name resolution: module names, imports, scopes, dotted names, classify
- walk.py        the walk over modules, classes, defs and calls, and ``extract``
- subtree.py     the one traversal per def that the walk reads (calls, locals, imports, inner defs)
- bindings.py, decomps.py, reexports.py   the recognisers of bound names, of registrations, of re-exports
- aliases.py     the recogniser of calls through a local alias of a function (the optimizers' paths)
- branches.py    the conditions around each call of a def, and the flags they test
- syntax.py      shapes of Python syntax the others read
- nn_modules.py  the one cross-file question: which classes are nn.Module subclasses

Conventions:
- Qualified names are dotted Python paths derived from the file path:
  ``torch/nn/modules/conv.py`` -> ``torch.nn.modules.conv``; ``__init__.py`` is the package.
- Call targets are resolved through the file's imports and module-level
  aliases (``import torch.nn.functional as F``, ``from .. import functional as F``,
  ``from torch import _VF``, ``aten = torch._ops.ops.aten`` ...) into ``target``,
  a dotted name; ``name`` is the part the linker matches on (see PyCallKind).
- Every line is 1-based; a def's line is the line of its ``def`` keyword.
- ``extract`` is pure: bytes in, frozen dataclasses out, no I/O, and a file
  that does not parse yields a PyFacts with ``error`` set instead of raising.
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

from ..facts import Location
from ..vocab import PyCallKind

CallKind = PyCallKind  # the name queries/ imports; indexer/ uses PyCallKind

# Each name the package exports, by the module that defines it, imported when first asked for (PEP 562): a build
# that extracts no Python file reads PY_SOURCES and extractor_hash only, and the dispatcher stage module_name.
_WHERE = {
    **dict.fromkeys(("AttributeFact", "BindingFact", "BranchFact", "CallFact", "ClassFact", "Condition", "DecompFact",
                     "DefFact", "FlagFact", "PyFacts", "ReexportFact"), ".facts"),
    **dict.fromkeys(("PY_SOURCES", "py_source_files"), ".files"),
    **dict.fromkeys(("BindingVia", "BranchKind", "DecompHow", "DecompKind", "FlagKind", "PyDefKind", "ReexportKind"),
                    ".kinds"),
    **dict.fromkeys(("MODULE_ROOTS", "TENSOR_BASES", "classify", "module_name"), ".names"),
    **dict.fromkeys(("ClassBases", "Reexport", "module_classes", "module_classes_of"), ".nn_modules"),
    "extract": ".walk",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module, __name__), name)
    return value

__all__ = [
    "MODULE_ROOTS", "PY_SOURCES", "TENSOR_BASES", "AttributeFact", "BindingFact", "BindingVia", "BranchFact", "BranchKind", "CallFact",
    "CallKind", "ClassBases", "ClassFact", "Condition", "DecompFact", "DecompHow", "DecompKind", "DefFact", "FlagFact",
    "FlagKind", "Location", "PyCallKind",
    "PyDefKind", "PyFacts", "Reexport", "ReexportFact", "ReexportKind", "classify", "extract",
    "extractor_hash", "module_classes", "module_classes_of", "module_name", "py_source_files",
]  # fmt: skip


# indexer modules outside the package whose contents reach the facts (Location, the PyCallKind values)
_USED = ("facts.py", "vocab.py")


def extractor_hash(package: Path = Path(__file__).parent) -> str:
    """Hash of every file of this package and of the indexer modules it uses: cached Python facts
    are reused only when all of that code is the same. (package: where the package is, for tests.)"""
    h = hashlib.sha256()
    for p in [*sorted(package.glob("*.py")), *(package.parent / name for name in _USED)]:
        h.update(f"{p.parent.name}/{p.name}".encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]
