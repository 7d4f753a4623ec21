"""The extractor's driver: one C++/CUDA/Objective-C++ file -> CxxFacts, one function per phase.

`extract(source, path, macros)` is pure: no I/O, no printing, never raises. It
prepares the source (prepare.py), parses it once with tree-sitter and runs the
combined query (trees.py), then each phase reads the SourceFile and adds its facts
to it. The order matters where a phase reads what an earlier one found: the
enclosing-function ranges come from the definitions, the stubs a file declares
make its calls special, the registrations read the library blocks and m.impl calls.
"""

from __future__ import annotations

import bisect
from dataclasses import replace

from ..link.configurations import builds_without, never_holds
from ..vocab import PREPROCESSOR
from . import (aliases, calls, classes, constants, definitions, device_branches, directives, method_tables, namespaces,
               registrations, sites, usings)
from .body_macros import body_macro_uses
from .conditions import may_be_false
from .expansions import head_macro_definitions, macro_definitions
from .facts import CxxFacts, DeviceBranchFact, LaunchFact
from .launches import handed_lambda, kernel_name, text_launches
from .preprocessor import Define, text_define
from .prepare import prepare
from .scan import dec, join_continuations, norm, nospace
from .scopes import scope_damage
from .sourcefile import SourceFile
from . import stubs
from .stubs import StubMacros, compile_context
from .trees import captures, damage, language_for, tools

def extract(source: bytes, path: str, macros: StubMacros | None = None,
            shared: dict[str, Define] | None = None) -> CxxFacts:
    """Facts of one C++/CUDA/Objective-C++ file. Pure; never raises. macros: the checkout's DispatchStub macros
    (stub_macros of its DispatchStub.h; None: stubs.DEFAULT_STUB_MACROS). shared: #defines of other files that
    the file's X-macro uses expand (the build's second pass, shared_macros.py); None on the first."""
    language = "cpp"
    if macros is None:
        macros = stubs.DEFAULT_STUB_MACROS
    try:
        language = language_for(path, source)
        return _extract(source, path, macros, language, shared=shared)
    except Exception as exc:  # noqa: BLE001 - a bad file must not stop the index; the failure is in the facts
        return CxxFacts(path=str(path), language=language, parse_errors=1, failure=f"{type(exc).__name__}: {exc}"[:500])


def _extract(source: bytes, path: str, macros: StubMacros, language: str, expand: bool = True,
             shared: dict[str, Define] | None = None) -> CxxFacts:
    f = _parsed(source, path, macros, language)
    if expand:  # a snippet of expanded macro uses has no preprocessor lines of its own
        directives.directives(f)
    local_macros(f)
    definitions.parsed_definitions(f)
    sites.macro_sites(f)
    f.set_ranges(f.ranges)
    calls.calls(f)
    calls.device_stub_calls(f)
    calls.stub_arguments(f)
    definitions.called_parameters(f)
    definitions.forwarded_defaults(f)
    chevron_launches(f)
    definitions.unshaped_kernels(f)
    registrations.registrations(f)
    if expand:  # the link facts of a snippet's expansion are not the file's
        usings.usings(f)
        classes.classes(f)
        constants.constants(f)
        aliases.kernel_aliases(f)
        namespaces.inline_namespaces(f)
        device_branches.device_branches(f)
    if expand and (f.local or shared) and b"{" in f.src:
        snippet = lambda text: _extract(text, path, macros, language, expand=False)  # noqa: E731
        _add(f, macro_definitions(f, snippet, shared))
        _add(f, head_macro_definitions(f, snippet))
        _add(f, body_macro_uses(f, snippet, shared))
    if expand:
        tables, installs = method_tables.method_tables(f)
        return replace(_facts(f), method_defs=tables, method_installs=installs)
    return _facts(f)


def _parsed(source: bytes, path: str, macros: StubMacros, language: str) -> SourceFile:
    """The prepared source, parsed and queried, with its parse damage."""
    prepared, spans = prepare(source, path)
    tree = tools(language)[0].parse(prepared)
    f = SourceFile(prepared, source, path, macros, language, compile_context(path))
    f.spans = spans
    f.root = tree.root_node
    f.errors, missing = damage(f.root)
    f.caps = captures(tree, language, f.errors)
    f.parse_errors = len(f.errors) + len(missing)
    f.damaged = scope_damage(prepared, f.errors, missing)
    return f


def local_macros(f: SourceFile) -> None:
    """Phase: the file's own function-like macros, as tree-sitter shaped them, and the ones
    it could not shape (a comment inside the body breaks its preproc_arg) from the text."""
    for n in f.get("define.name"):
        p = n.parent
        params = p.child_by_field_name("parameters")
        body = p.child_by_field_name("value")
        names = tuple(nospace(dec(c.text)) for c in params.named_children) if params is not None else ()
        if params is not None and b"..." in params.text and not any(x.endswith("...") for x in names):
            names = names + ("...",)
        text = join_continuations(dec(body.text)) if body is not None else ""
        f.local[dec(n.text)] = Define(dec(n.text), names, text)
        f.local_at.setdefault(dec(n.text), []).append((n.start_byte, f.local[dec(n.text)]))
        f.define_names.add(n.start_byte)
    for span in f.spans:
        f.defines.append((span[0], span[2]))
        if span[0] not in f.define_names:
            d = text_define(f.src, span)
            if d.name not in f.local:
                f.local[d.name] = d
                f.local_at.setdefault(d.name, []).append((span[0], d))
                f.define_names.add(span[0])
    for history in f.local_at.values():
        history.sort(key=lambda entry: entry[0])


def chevron_launches(f: SourceFile) -> None:
    """Phase: `<<< >>>` launches tree-sitter parsed, then those in the text of #define bodies
    and ERROR nodes (each `<<<` once)."""
    seen: set[int] = set()
    for node in f.get("launch"):
        kfn = node.child_by_field_name("function")
        cfg = next((c for c in node.children if c.type == "kernel_call_syntax"), None)
        if kfn is None or cfg is None:
            continue
        if f.scan.in_directive(cfg.start_byte):
            continue  # a #define's body that damage left unparsed as one (its text is read below)
        kernel, targs = kernel_name(f, kfn)
        config = tuple(norm(f.text(c)) for c in cfg.named_children if c.type != "comment")
        seen.add(cfg.start_byte)
        handed = handed_lambda(f, node, kernel) if kfn.type == "identifier" else None
        f.launches.append(LaunchFact("triple_chevron", kernel, targs, config, f.caller_at(node.start_byte),
                                     cfg.start_point[0] + 1, handed=handed))
    defines = f.get("define.name")
    parsed = {n.start_byte for n in defines}
    # the text to read, with the macro whose body it is: function-like #defines tree-sitter did not read as #defines
    # (damage left their bodies as code), then those it read, then its ERROR nodes
    texts = [(after, end, dec(f.src[name:after].split(b"(", 1)[0])) for name, after, end in f.spans
             if name not in parsed]
    for n in defines:
        value = n.parent.child_by_field_name("value")
        if value is not None:
            texts.append((value.start_byte, value.end_byte, dec(n.text)))
    texts += [(n.start_byte, n.end_byte, None) for n in f.errors]
    for start, end, macro in texts:
        if b"<<<" not in f.src[start:end]:
            continue
        for launch, off in text_launches(f, start, end, macro):
            if off not in seen:
                seen.add(off)
                f.launches.append(launch)

def _add(f: SourceFile, got: CxxFacts | None) -> None:
    if got is not None:
        f.definitions.extend(got.definitions)
        f.stubs.extend(got.stubs)
        f.stub_uses.extend(got.stub_uses)
        f.calls.extend(got.calls)
        f.launches.extend(got.launches)
        f.dtypes.extend(got.dtype_dispatches)
        f.libcalls.extend(got.library_calls)


def _guarded(f: SourceFile, defs: list) -> list:
    """The definitions with the #if guard of their first line."""
    if len(f.guards[0]) == 1:
        return defs
    out = []
    for d in defs:
        guard = directives.guard_at(f, d.line)
        out.append(d if guard is None else replace(d, guard=guard))
    return out


def _compiled_under(f: SourceFile) -> list[DeviceBranchFact]:
    """Each stretch of lines under an #if (between two directives) that holds a call, a launch, a dtype dispatch or
    a stub's use, with its guard: the build decides the guard with every file's #defines (indexer/guards.py), and
    the walks leave out what is written where it is false (`#else` of `#if AT_USE_JITERATOR()`, which jit_macros.h
    defines as true); and one whose guard a device's build does not compile (`#ifdef USE_ROCM` for CUDA,
    link/configurations.py builds_without), which that device's walks leave out, or that contradicts itself
    (never_holds)."""
    starts, guards, _ = f.guards
    if len(starts) == 1:
        return []
    lines = sorted({x.line for x in f.calls} | {x.line for x in f.launches} | {x.line for x in f.dtypes}
                   | {x.line for x in f.stub_uses} | {x.line for x in f.libcalls})
    out = []
    end = f.orig.count(b"\n") + 1
    for i, node in enumerate(guards):
        if node is None:
            continue
        first, last = starts[i], (starts[i + 1] - 1 if i + 1 < len(starts) else end)
        k = bisect.bisect_left(lines, first)
        if k < len(lines) and lines[k] <= last and (guard := directives.guard_at(f, first)) is not None and \
                (may_be_false(guard) or builds_without(guard) or never_holds(guard)):
            out.append(DeviceBranchFact(first, last, "", first - 1, PREPROCESSOR, guard))
    return out


def _facts(f: SourceFile) -> CxxFacts:
    return CxxFacts(
        path=f.path,
        language=f.language,
        definitions=tuple(sorted(_guarded(f, f.definitions), key=lambda d: (d.line, d.qualified_name))),
        stubs=tuple(sorted(f.stubs, key=lambda x: x.line)),
        stub_uses=tuple(sorted(dict.fromkeys(f.stub_uses), key=lambda x: x.line)),
        calls=tuple(f.calls),
        launches=tuple(sorted(f.launches, key=lambda x: (x.line, x.kind))),
        dtype_dispatches=tuple(sorted(f.dtypes, key=lambda x: x.line)),
        library_calls=tuple(sorted(f.libcalls, key=lambda x: x.line)),
        registrations=tuple(sorted(f.registrations, key=lambda x: x.line)),
        registration_macro_uses=tuple(f.registration_macro_uses),
        definition_macro_uses=tuple(f.definition_macro_uses),
        includes=tuple(f.includes),
        macros=tuple(f.macro_facts),
        usings=tuple(sorted(f.usings, key=lambda x: x.line)),
        classes=tuple(sorted(f.classes, key=lambda x: (x.line, x.qualified_name))),
        kernel_aliases=tuple(sorted(f.kernel_aliases, key=lambda x: (x.line, x.name))),
        inline_namespaces=tuple(f.inline_namespaces),
        constants=tuple(f.constants),
        device_branches=tuple(f.device_branches) + tuple(_compiled_under(f)),
        parse_errors=f.parse_errors,
    )
