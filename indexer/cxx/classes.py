"""Class, struct, union and enum definitions with a body: name, qualified name, bases, whether a
template, whether the body has an operator() (a functor, whose operator() is the device
code a launch helper runs; that operator() is a DefinitionFact `...::AddFunctor::operator()`),
and its data members with their written types (also under `#if` branches of the body; a member whose
type is `auto`, `decltype(...)` or a class defined in place, or an array, is left out). An enum has no
fields and no bases (its underlying type is none); it is a type the link stage knows `E::X` to be of."""

from __future__ import annotations

from .facts import ClassFact, FieldFact
from .kinds import ClassKind
from .receivers import normalised_type
from .scan import dec, nospace
from .scopes import declared_type_of_function, function_declarator, scope_prefix
from .sourcefile import SourceFile

_KINDS = {"class_specifier": ClassKind.CLASS, "struct_specifier": ClassKind.STRUCT, "union_specifier": ClassKind.UNION,
          "enum_specifier": ClassKind.ENUM}
_MEMBERS = ("function_definition", "field_declaration", "declaration")
_NOT_BASES = ("access_specifier", "comment")


def classes(f: SourceFile) -> None:
    """Phase: one ClassFact per class/struct/union with a body."""
    for node in f.get("class"):
        name_node = node.child_by_field_name("name")
        name = nospace(dec(name_node.text)) if name_node is not None else "(anonymous)"
        # a local class keeps its class path only, as the definitions in it do (scopes.py)
        local = f.caller_at(node.start_byte) is not None and declared_type_of_function(node) is None
        scope, is_template, _ = scope_prefix(node, None if local else f)
        bases: tuple[str, ...] = ()
        clause = next((c for c in node.named_children if c.type == "base_class_clause"), None)
        if clause is not None:
            bases = tuple(nospace(dec(c.text)) for c in clause.named_children if c.type not in _NOT_BASES)
        body = node.child_by_field_name("body")
        enum = node.type == "enum_specifier"
        if enum:  # its underlying type (`: int8_t`) is no base
            bases = ()
        f.classes.append(ClassFact(
            name=name,
            qualified_name="::".join(scope + [name]),
            kind=_KINDS[node.type],
            line=node.start_point[0] + 1,
            end_line=node.end_point[0] + 1,
            bases=bases,
            is_template=is_template or "<" in name,
            has_call_operator=not enum and body is not None and _has_call_operator(body),
            fields=tuple(_fields(body)) if body is not None and not enum else (),
        ))


_WRITTEN_TYPES = ("type_identifier", "qualified_identifier", "template_type", "primitive_type",
                  "sized_type_specifier")


def _fields(body):
    """The data members a class body declares (field_declaration without a function declarator)."""
    for c in body.named_children:
        if c.type in _PREPROC:
            yield from _fields(c)
            continue
        if c.type != "field_declaration":
            continue
        t = c.child_by_field_name("type")
        if t is None or t.type not in _WRITTEN_TYPES:
            continue
        written = None
        for d in c.children_by_field_name("declarator"):
            pointer = False
            while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
                pointer = pointer or d.type == "pointer_declarator"
                d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
            if d is None or d.type != "field_identifier":
                continue
            written = written or normalised_type(t.text)
            if written:
                yield FieldFact(dec(d.text), written + "*" if pointer else written)


_PREPROC = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")


def _has_call_operator(body) -> bool:
    """Whether a class body declares operator(), also under `#if` / `#else` (ReduceSumProdKernel.cu's
    prod_functor has one per branch)."""
    for c in body.named_children:
        if c.type in _PREPROC:
            if _has_call_operator(c):
                return True
            continue
        while c.type == "template_declaration" and c.named_child_count:
            c = c.named_children[-1]
        if c.type not in _MEMBERS:
            continue
        decl = c.child_by_field_name("declarator")
        fd = function_declarator(decl) if decl is not None else None
        inner = fd.child_by_field_name("declarator") if fd is not None else None
        if inner is not None and nospace(dec(inner.text)) == "operator()":
            return True
    return False
