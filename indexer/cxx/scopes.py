"""Where a definition sits: its enclosing namespaces and classes, from the tree or, where parse
damage has moved them, from the file's braces.

An unnamed namespace is written `(anonymous)`, as clang prints it; an out-of-class
definition keeps its written qualifier (`void Foo::bar()` in `at` is `at::Foo::bar`).
"""

from __future__ import annotations

import re

from .scan import Scanner, dec, logical_line_end, nospace


def split_scope(qualified: str) -> list[str]:
    """`a::b<c::d>::e` -> [a, b<c::d>, e]: `::` inside template arguments does not split."""
    parts = qualified.split("::")
    if "<" not in qualified:
        return parts
    out: list[str] = []
    depth = 0  # of the angle brackets before the `::` that ends the part (a `::` splits only at 0)
    for part in parts:
        if depth:
            out[-1] += "::" + part
        else:
            out.append(part)
        depth += part.count("<") - part.count(">")
    return out


_BRACE_TOKENS = re.compile(rb"\bnamespace\b\s*([A-Za-z_][\w:]*)?\s*\{|[{}]|^[ \t]*#", re.M)
_CONDITIONAL = re.compile(rb"[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")


def text_namespaces(scan: Scanner) -> list[tuple[int, int, str]]:
    """(start, end, name) of every namespace block by brace matching, outermost first
    (braces in literals and on preprocessor lines do not count).

    The braces are those of one configuration, as a compiler sees the file: each branch of an
    `#if`/`#elif`/`#else` starts from the braces open at the `#if`, and after `#endif` those the first branch
    left open stay open (`#ifndef V8 f(a, {` / `#else f(b, {` / `#endif` opens one brace, not two: 2.6.0's
    cudnn/RNN.cpp put its functions in an unnamed namespace that had closed). A namespace a later branch
    leaves open ends with that branch."""
    src = scan.src
    out: list[tuple[int, int, str]] = []
    stack: list[int | None] = []  # index into out for a namespace brace, None for another brace
    branches: list[list] = []  # per open #if: [the stack at #if, the stack the first branch left, or None]
    pos = 0
    search = _BRACE_TOKENS.search
    end_of_file = len(src)

    def close(k: int, at: int) -> None:
        s, e, name = out[k]
        if e == end_of_file:
            out[k] = (s, at, name)

    def leave_branch(base: list[int | None], at: int) -> None:
        for k in stack:  # the namespaces this branch opened and did not close end with it
            if k is not None and k not in base:
                close(k, at)

    while True:
        m = search(src, pos)
        if m is None:
            return out
        skip_to = scan.literal_end(m.start())
        if skip_to is not None:  # a token starts in a comment or literal: read on after it
            pos = skip_to
            continue
        pos = m.end()
        c = src[m.end() - 1]
        if c == 0x23:  # a preprocessor line
            d = _CONDITIONAL.match(src, m.end())
            if d is not None:
                word = d.group(1)
                if word.startswith(b"if"):
                    branches.append([list(stack), None])
                elif branches and word.startswith(b"el"):  # the next branch starts where the #if was
                    base, first = branches[-1]
                    if first is None:
                        branches[-1][1] = list(stack)
                    else:
                        leave_branch(base, m.start())
                    stack = list(base)
                elif branches:  # #endif
                    base, first = branches.pop()
                    if first is not None:
                        leave_branch(base, m.start())
                        stack = first
            pos = logical_line_end(src, m.end())
        elif c == 0x7D:  # }
            if stack:
                k = stack.pop()
                if k is not None:
                    close(k, m.end())
        elif m.group(0) == b"{":
            stack.append(None)
        else:  # namespace ... {
            stack.append(len(out))
            out.append((m.start(), end_of_file, dec(m.group(1) or b"")))


def scope_damage(src: bytes, errors, missing) -> bool:
    """Whether parse damage that holds a brace reaches namespace level (then
    namespace ends may have moved); damage inside a function body shows as a
    function nested in a block, which scope_prefix checks itself."""
    for nodes in (errors, missing):
        for n in nodes:
            if n.is_missing:
                if n.type not in ("{", "}"):
                    continue
            elif src.find(b"{", n.start_byte, n.end_byte) < 0 and src.find(b"}", n.start_byte, n.end_byte) < 0:
                continue
            p = n
            while p is not None and p.type not in ("compound_statement", "field_declaration_list"):
                if p.type == "declaration_list":
                    return True
                p = p.parent
            if p is None:  # reached the root (which may be an ERROR itself)
                return True
    return False


def scope_prefix(node, f=None) -> tuple[list[str], bool, bool]:
    """Enclosing namespaces/classes (outermost first), is_template, in_class.

    With f (the SourceFile): when parse damage has left the node outside every namespace
    tree-sitter saw (Objective-C++ message sends, unbalanced macros), the
    namespaces that the file's braces put around it are used instead."""
    held = declared_type_of_function(node) if node.type in _CLASSES else None
    p = (held or node).parent  # a class read as a function's declared type: the function's place is the class's
    is_template = p is not None and p.type == "template_declaration"
    while p is not None and p.type == "template_declaration":
        p = p.parent
    memo, root = (f.scopes, f.root) if f is not None else ({}, None)
    parts, namespaces, in_class, local, nested = _scope_walk(p, memo, root)
    if f is not None and not local and (f.damaged or nested):
        # the braces of the text decide the namespaces where they differ from the damaged tree's
        text_ns = f.namespaces_at(node.start_byte)
        if text_ns and "::".join(text_ns) != "::".join(namespaces):
            return text_ns + parts[len(namespaces):], is_template, in_class
    return list(parts), is_template, in_class


_CLASSES = ("class_specifier", "struct_specifier", "union_specifier")
_ROOT = ((), (), False, False, False)  # the walk above the root: nothing


def _scope_walk(p, memo: dict, root=None) -> tuple[list[str], list[str], bool, bool, bool]:
    """From p up: (scopes outermost first, namespaces outermost first, in_class, local, nested).

    The walk stops at the first enclosing function (a local class keeps its class path
    only); a function inside a block (not inside a class) is parse damage, as C++ has no
    nested functions. Each node's share is computed once per file (memo by node id), from
    its parent's: a file's walks together visit each node once."""
    chain = []
    while p is not None and p.id not in memo:
        if len(chain) == _DEEP and root is not None:  # Node.parent costs the node's depth: read the rest downwards
            chain.extend(reversed(_ancestors(p, root)))
            p = None
            break
        chain.append(p)
        p = p.parent
    above = _ROOT if p is None else memo[p.id]
    for n in reversed(chain):
        if n.type in _CLASSES and (held := declared_type_of_function(n)) is not None:
            above = memo.get(held.parent.id, above) if held.parent is not None else _ROOT  # parse damage: see there
        above = memo[n.id] = _step(n, above)
    parts, namespaces, in_class, found_function, nested = above
    return list(parts), list(namespaces), in_class, in_class and found_function, nested


_DEEP = 64


def declared_type_of_function(node):
    """The function_definition a class with a body is the declared type of (`class X {...} f() {...}`), or None.
    C++ defines no class there: it is parse damage (a class body tree-sitter could not close, read as the return
    type of the function after it), and the class belongs to the scope around that function, not inside it."""
    parent = node.parent
    if parent is None or parent.type != "function_definition" or node.child_by_field_name("body") is None:
        return None
    declared = parent.child_by_field_name("type")
    return parent if declared is not None and declared.id == node.id else None


def _ancestors(node, root) -> list:
    """node and its ancestors, root first: one walk down from the root with a tree cursor
    (or, where byte ranges do not lead to it, the parent walk)."""
    cursor = root.walk()
    out = []
    start, end = node.start_byte, node.end_byte
    while True:
        here = cursor.node
        out.append(here)
        if here.id == node.id:
            return out
        if cursor.goto_first_child_for_byte(start) is None:
            break
        if not (cursor.node.start_byte <= start and cursor.node.end_byte >= end):
            break
    out = [node]
    p = node.parent
    while p is not None:
        out.append(p)
        p = p.parent
    return out[::-1]


def _step(n, above: tuple) -> tuple:
    """The walk from n, given the walk from n's parent:
    (parts, namespaces, a class on the way, stopped at a function, a block before any class)."""
    parts, namespaces, in_class, found_function, nested = above
    t = n.type
    if t == "function_definition":
        return _ROOT[:3] + (True, False)
    if t == "namespace_definition":
        nm = n.child_by_field_name("name")
        name = nospace(dec(nm.text)) if nm is not None else "(anonymous)"
        return parts + (name,), namespaces + (name,), in_class, found_function, nested
    if t in _CLASSES:
        nm = n.child_by_field_name("name")
        name = nospace(dec(nm.text)) if nm is not None else "(anonymous)"
        return parts + (name,), namespaces, True, found_function, False
    if t == "compound_statement":
        return parts, namespaces, in_class, found_function, True
    return above


def function_declarator(decl):
    d = decl
    while d is not None and d.type != "function_declarator":
        nxt = d.child_by_field_name("declarator")
        if nxt is None:
            for c in d.named_children:
                if c.type == "function_declarator" or c.child_by_field_name("declarator") is not None:
                    nxt = c
                    break
        d = nxt
    return d
