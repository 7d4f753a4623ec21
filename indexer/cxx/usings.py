"""using-directives, using-declarations, namespace aliases and alias declarations, with the scope
they apply in: the enclosing function, else the enclosing namespaces and classes (as written in
qualified names, "" at file level)."""

from __future__ import annotations

from .facts import UsingFact
from .kinds import UsingKind
from .scan import dec, nospace
from .scopes import scope_prefix
from .sourcefile import SourceFile
from .trees import uncommented

_NAMES = ("identifier", "qualified_identifier", "namespace_identifier", "nested_namespace_specifier",
          "type_identifier", "template_type", "dependent_type")


def usings(f: SourceFile) -> None:
    """Phase: one UsingFact per using / namespace alias / alias declaration."""
    for node in f.get("using"):
        name = _last_name(node)
        if name is None:
            continue
        is_directive = any(c.type == "namespace" for c in node.children)
        kind = UsingKind.DIRECTIVE if is_directive else UsingKind.DECLARATION
        f.usings.append(UsingFact(kind, name, None, _scope(f, node), node.start_point[0] + 1))
    for node in f.get("using.namespace_alias"):
        named = uncommented(node)
        if len(named) >= 2:
            f.usings.append(UsingFact(UsingKind.ALIAS, nospace(dec(named[-1].text)), nospace(dec(named[0].text)),
                                      _scope(f, node), node.start_point[0] + 1))
    for node in f.get("using.alias"):
        alias, target = node.child_by_field_name("name"), node.child_by_field_name("type")
        if alias is not None and target is not None:
            f.usings.append(UsingFact(UsingKind.ALIAS, " ".join(dec(target.text).split()), dec(alias.text),
                                      _scope(f, node), node.start_point[0] + 1))


def _last_name(node) -> str | None:
    for c in reversed(node.named_children):
        if c.type in _NAMES:
            return nospace(dec(c.text))
    return None


def _scope(f: SourceFile, node) -> str:
    caller = f.caller_at(node.start_byte)
    if caller is not None:
        return caller
    return "::".join(scope_prefix(node, f)[0])
