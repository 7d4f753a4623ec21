"""Preprocessor lines of one file: its #includes, its #defines (the rows of the cross-file macro
table the link stage builds) and the #if branches around every line (a definition's guard).

Read from the text, one pass over the file's preprocessor lines (Scanner.directives: a `#` that
starts a line outside comments and literals, with its continuation lines), so a directive in any
#if branch, `#if 0` included, is seen as written.

Guards: each open #if branch gives one condition, outermost first, joined with " && ":
`#if A` -> "A", `#ifdef X` -> "defined(X)", `#ifndef X` -> "!defined(X)", a later branch
negates the ones before it in its chain (`#elif B` after `#if A` -> "!(A) && B", `#else` ->
"!(A) && !(B)"). The include guard (the file's first directive `#ifndef X` or `#if !defined(X)`,
then `#define X`, closed by the file's last directive) is not a condition; `#pragma once` is none.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from .facts import IncludeFact, MacroFact
from .scan import dec, join_continuations, norm, strip_comments
from .sourcefile import SourceFile

MACRO_BODY_LIMIT = 4000  # characters of a #define body kept in MacroFact.body

_DIRECTIVE = re.compile(r"\s*#\s*(\w*)(.*)", re.S)
_INCLUDE = re.compile(r'\s*(?:"([^"]*)"|<([^>]*)>)')
_DEFINE = re.compile(r"\s*(\w+)(\([^)]*\))?(.*)", re.S)
_NOT_DEFINED = re.compile(r"!\s*defined\s*(?:\(\s*(\w+)\s*\)|\s+(\w+))\s*")
_INCLUDES = ("include", "include_next", "import")  # #import: Objective-C++ (.mm), an #include read once
_OPENS = ("if", "ifdef", "ifndef")
_LATER = ("elif", "elifdef", "elifndef", "else")


def directives(f: SourceFile) -> None:
    """Phase: the file's includes and #defines, and the guard of each stretch of lines (f.guards)."""
    lines = _directive_lines(f)
    guard_index = _include_guard(lines)
    stack: list[tuple[list[str], str, bool]] = []  # per open #if: (conditions before, this branch's, is the include guard)
    # The guard of each level as a node (its parent's node, this level's parts), so that a directive costs
    # O(1) and only the guards asked for are written out (10,000 nested #if stay linear).
    nodes: list[_Node | None] = []
    starts: list[int] = [1]
    guards: list[_Node | None] = [None]
    for k, (word, rest, line, last) in enumerate(lines):
        if word in _INCLUDES:
            m = _INCLUDE.match(rest)
            target = (m.group(1) if m.group(1) is not None else m.group(2)) if m else norm(rest)
            f.includes.append(IncludeFact(target, line, bool(m and m.group(2) is not None)))
        elif word == "define":
            _define(f, rest, line)
        elif word in _OPENS:
            stack.append(([], _condition(word, rest), k == guard_index))
            nodes.append(_node(nodes, stack[-1]))
        elif word in _LATER and stack:
            before, cond, is_guard = stack.pop()
            nodes.pop()
            stack.append((before + [cond], "" if word == "else" else _condition(word[2:] or "if", rest), is_guard))
            nodes.append(_node(nodes, stack[-1]))
        elif word == "endif" and stack:
            stack.pop()
            nodes.pop()
        else:
            continue
        if word in _OPENS or word in _LATER or word == "endif":
            starts.append(last + 1)
            guards.append(nodes[-1] if nodes else None)
    f.guards = (starts, guards, {})
    if len(starts) > 1:  # each #define with the #if conditions it is written under (a build's choice: no constant),
        # and each #include (a header included only under USE_ROCM is compiled only in a ROCm build)
        f.macro_facts = [m if (g := guard_at(f, m.line)) is None else replace(m, guard=g) for m in f.macro_facts]
        f.includes = [i if (g := guard_at(f, i.line)) is None else replace(i, guard=g) for i in f.includes]


def guard_at(f: SourceFile, line: int) -> str | None:
    """The guard of a line (see the module docstring): None outside every #if."""
    starts, guards, written = f.guards
    node = guards[bisect.bisect_right(starts, line) - 1]
    if node is None:
        return None
    got = written.get(id(node))
    if got is None:
        parts: list[str] = []
        at: _Node | None = node
        while at is not None:
            parts.append(at[1])
            at = at[0]
        text = " && ".join(p for p in reversed(parts) if p)
        got = written[id(node)] = (text or None,)
    return got[0]


def _directive_lines(f: SourceFile) -> list[tuple[str, str, int, int]]:
    """(directive word, the rest with comments stripped and continuations joined, first line, last line)."""
    out = []
    src = f.orig
    line, at = 1, 0  # the line of offset `at`: newlines counted between directives, in C
    for start, end in f.orig_scan.directives:  # the file as written: prepare.py may blank a comment's end
        raw = src[start:end]
        line += src.count(b"\n", at, start)
        at = start
        text = dec(raw)
        if "/" in text:
            text = strip_comments(text)
        if "\\" in text:
            text = join_continuations(text)
        m = _DIRECTIVE.match(text)
        if m is not None:
            out.append((m.group(1), m.group(2), line, line + raw.count(b"\n")))
    return out


def _include_guard(lines: list[tuple[str, str, int, int]]) -> int | None:
    """The index of the include guard's #ifndef / #if !defined, if the file has one (only
    #pragma lines before it)."""
    first = next((k for k, line in enumerate(lines) if line[0] != "pragma"), len(lines))
    if len(lines) - first < 3:
        return None
    word, rest, _, _ = lines[first]
    if word == "ifndef":
        name = rest.split()[0] if rest.split() else ""
    elif word == "if" and (m := _NOT_DEFINED.fullmatch(rest.strip())) is not None:
        name = m.group(1) or m.group(2)
    else:
        return None
    second, after, _, _ = lines[first + 1]
    if second != "define" or after.split()[:1] != [name]:
        return None
    depth = 0
    for k in range(first, len(lines)):
        w = lines[k][0]
        depth += (w in _OPENS) - (w == "endif")
        if depth == 0:
            return first if k == len(lines) - 1 else None
    return None


def _condition(word: str, rest: str) -> str:
    text = norm(rest)
    if word == "if":
        return text
    name = text.split()[0] if text else ""
    return f"defined({name})" if word == "ifdef" else f"!defined({name})"


_Node = tuple  # (the enclosing level's node or None, this level's conditions joined with " && ", or "")


def _node(nodes: list, level: tuple[list[str], str, bool]) -> _Node:
    """The node of an #if level: the branches before this one negated, then this branch's condition
    (the include guard contributes nothing)."""
    before, cond, is_guard = level
    parts = [] if is_guard else [f"!({c})" for c in before] + ([cond] if cond else [])
    return (nodes[-1] if nodes else None, " && ".join(parts))


def _define(f: SourceFile, rest: str, line: int) -> None:
    m = _DEFINE.match(rest)
    if m is None:
        return
    name, params, body = m.group(1), m.group(2), norm(m.group(3))
    if params is not None:
        params = "(" + ", ".join(norm(p) for p in params[1:-1].split(",") if p.strip()) + ")"
    f.macro_facts.append(MacroFact(name, params, body[:MACRO_BODY_LIMIT], line, len(body) > MACRO_BODY_LIMIT))
