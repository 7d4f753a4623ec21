"""The parameters a definition's own template head declares, each with its kind:
`template <template <typename> class K, typename RNG, int N>` before a function gives
[("K", "template"), ("RNG", "type"), ("N", "value")].

Inside the function these names are the template's parameters, not the checkout's definitions of the
same name: a call written through one (`K<RNG>()(iter)`) runs whatever the caller passes as the
argument (link/template_args.py binds them at the call sites that write the arguments).
"""

from __future__ import annotations

from .scan import dec

_TYPE_PARAMETERS = ("type_parameter_declaration", "optional_type_parameter_declaration",
                    "variadic_type_parameter_declaration")
_VALUE_PARAMETERS = ("parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration")


def template_parameters(node) -> list[tuple[str, str]] | None:
    """(name, kind) of each parameter of the template head just around a definition node, in the
    order written: the head whose arguments a call writes (`f<A, B>(...)`); a member template's outer
    class head is not read. None when the definition is no template."""
    head = node.parent
    if head is None or head.type != "template_declaration":
        return None
    out: list[tuple[str, str]] = []
    params = head.child_by_field_name("parameters")
    for child in params.named_children if params is not None else ():
        name = _parameter_name(child)
        if name is not None:
            out.append((name, _kind(child)))
    return out


def _kind(node) -> str:
    if node.type == "template_template_parameter_declaration":
        return "template"
    return "type" if node.type in _TYPE_PARAMETERS else "value"


def _parameter_name(node) -> str | None:
    if node.type == "template_template_parameter_declaration":
        inner = [c for c in node.named_children if c.type in _TYPE_PARAMETERS]
        return _parameter_name(inner[-1]) if inner else None
    if node.type in _TYPE_PARAMETERS:
        named = node.child_by_field_name("name")
        if named is None:
            named = next((c for c in node.named_children if c.type == "type_identifier"), None)
        return dec(named.text) if named is not None else None
    if node.type in _VALUE_PARAMETERS:
        return _declared(node.child_by_field_name("declarator"))
    return None


def _declared(node) -> str | None:
    """The identifier a (possibly nested) declarator names: `(*f)(int)` -> f, `...Ns` -> Ns."""
    for _ in range(8):
        if node is None:
            return None
        if node.type == "identifier":
            return dec(node.text)
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else next(iter(node.named_children), None)
    return None


_DEFAULTED = ("optional_type_parameter_declaration", "optional_parameter_declaration")


def constrained(node, declarator) -> bool:
    """Whether a template definition may be left out of overload resolution by its own head or declaration
    (SFINAE): its template head gives a parameter a default or leaves one unnamed (`typename =
    std::enable_if_t<...>`, `std::enable_if_t<C, int> = 0`), has a requires-clause, or its return type or
    parameters name enable_if. Only such a template is not assumed viable from its parameters alone."""
    head = node.parent
    if head is None or head.type != "template_declaration":
        return False
    params = head.child_by_field_name("parameters")
    for child in params.named_children if params is not None else ():
        if child.type in _DEFAULTED or _parameter_name(child) is None:
            return True
    if any(c.type == "requires_clause" for c in head.named_children):
        return True
    written = node.child_by_field_name("type")
    return any(n is not None and (b"enable_if" in n.text or b"requires" in n.text) for n in (written, declarator))
