"""C++/CUDA/Objective-C++ bytes -> facts (definitions, stubs, launches, ...).

`extract(source, path, macros)` is pure: no I/O, no printing, never raises.
The package's files name its ideas, in the order a file goes through them:

- scan.py: the one literal-aware byte scanner (comments, strings, raw strings,
  line continuations; brackets and bodies) every text pass uses;
- preprocessor.py, conditions.py: #defines, #if nesting and expansion; #if
  expressions evaluated three-valued (true, false, unknown);
- directives.py: the file's #includes, #defines and the #if guard of each line;
- stubs.py: the DispatchStub macro family of the checkout's DispatchStub.h;
- prepare.py: the offset-keeping rewrites of the source before parsing;
- trees.py: tree-sitter (languages, the combined query of indexer/scm/, parse damage);
- extract.py: the driver, one function per phase over a sourcefile.SourceFile;
  the phases live in definitions.py, sites.py, calls.py, launches.py, dtypes.py,
  registrations.py and expansions.py (callees.py, scopes.py and arguments.py
  are what they share);
- facts.py: the frozen fact classes (kinds.py: the vocabularies of the link facts).

Conventions (documented here once, relied on by the linker):

- Lines are 1-based ints; the file is `CxxFacts.path` (relative to the
  checkout), so `Location(facts.path, fact.line)` is the location of a fact.
- Qualified names join the enclosing namespaces and classes with `::`; an
  unnamed namespace is written `(anonymous)`, as clang prints it:
  `at::native::(anonymous)::foo`. An out-of-class definition keeps its
  written qualifier: `void Foo::bar()` in `at` is `at::Foo::bar`.
- Structured kernels: see definitions.py. DispatchStub registrations: see
  stubs.StubMacros. A registration of nullptr has `kernel=None, is_nullptr=True`.
- Calls at namespace scope (static initialisers, TORCH_LIBRARY blocks) have
  `caller=None`; stub uses are recorded only inside function bodies.

`extractor_hash()` hashes every file of the package and its patterns: facts
cached in an index are reused only when the code that made them is the same.
"""

from __future__ import annotations

import importlib

from .. import code_hash

# The names the package gives, each imported from its module when first asked for (PEP 562): a process that
# needs only a light module of the package (scan.py, preprocessor.py, scopes.py: the build's X-macro stage,
# the link stage) does not import the extractor's 40 ms of modules.
_FROM = {
    "extract": ("extract", "extract"),
    **{name: ("facts", name) for name in (
        "CallFact", "ClassFact", "ConstantFact", "CxxFacts", "DefinitionFact", "DefinitionMacroUseFact",
        "DeviceBranchFact", "DtypeDispatchFact", "FieldFact", "IncludeFact", "InlineNamespaceFact", "KernelAliasFact",
        "LaunchFact", "LibraryCallFact", "MacroFact", "RegistrationFact", "RegistrationMacroUseFact", "StubFact",
        "StubUseFact", "UsingFact")},
    "_blank_attributes": ("prepare", "blank_attributes"),
    "_comment_out_tables": ("prepare", "comment_out_tables"),
    **{name: ("stubs", name) for name in (
        "DEFAULT_STUB_MACROS", "StubExpansion", "StubMacros", "compile_context", "stub_macros")},
    **{name: ("trees", name) for name in ("SCM", "language_for", "parse", "query_source")},
    "_tools": ("trees", "tools"),
}


def __getattr__(name: str):
    where = _FROM.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{where[0]}", __name__), where[1])
    globals()[name] = value
    return value


__all__ = [
    "CallFact",
    "ClassFact",
    "ConstantFact",
    "CxxFacts",
    "DEFAULT_STUB_MACROS",
    "DefinitionFact",
    "DefinitionMacroUseFact",
    "DtypeDispatchFact",
    "FieldFact",
    "IncludeFact",
    "InlineNamespaceFact",
    "KernelAliasFact",
    "LaunchFact",
    "DeviceBranchFact",
    "LibraryCallFact",
    "MacroFact",
    "RegistrationFact",
    "RegistrationMacroUseFact",
    "StubExpansion",
    "StubFact",
    "StubMacros",
    "StubUseFact",
    "UsingFact",
    "compile_context",
    "extract",
    "extractor_hash",
    "language_for",
    "parse",
    "query_source",
    "stub_macros",
]


def extractor_hash() -> str:
    """Hash of every .py file of this package and every .scm pattern it reads (16 hex digits)."""
    return code_hash.cxx_extractor()
