"""How many arguments a definition takes and a call passes (overloads are chosen by them).

A definition's (min_args, max_args): parameters without a default, and all parameters, -1 when
variadic (`...` or a parameter pack); `f(void)` takes none. A call's argc: the arguments written.
"""

from __future__ import annotations

from .scan import nospace, skip_space

_PARAMETERS = ("parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration")


def declarator_arity(fd) -> tuple[int, int]:
    """(min_args, max_args) of a function_declarator node."""
    params = fd.child_by_field_name("parameters") if fd is not None else None
    if params is None:
        return 0, 0
    required = optional = 0
    variadic = False
    for c in params.children:
        t = c.type
        if t == "parameter_declaration":
            if c.child_by_field_name("declarator") is None and nospace(c.text.decode("utf-8", "replace")) == "void":
                continue
            required += 1
        elif t == "optional_parameter_declaration":
            optional += 1
        elif t == "variadic_parameter_declaration" or t == "...":
            variadic = True
    return required, -1 if variadic else required + optional


def text_arity(args: list[str]) -> tuple[int, int]:
    """(min_args, max_args) of a parameter list read from the text (scan.Scanner.args)."""
    required = optional = 0
    variadic = False
    for a in args:
        a = a.strip()
        if not a or a == "void":
            continue
        if "..." in a:
            variadic = True
        elif _has_default(a):
            optional += 1
        else:
            required += 1
    return required, -1 if variadic else required + optional


def _has_default(param: str) -> bool:
    """An `=` outside template brackets and not part of an operator (`==`, `<=` ...)."""
    depth = 0
    for k, c in enumerate(param):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "=" and depth <= 0 and param[k - 1 : k] not in ("=", "!", "<", ">") and param[k + 1 : k + 2] != "=":
            return True
    return False


def argument_lists(f) -> dict[int, object]:
    """The argument_list nodes of the file's calls by their start offset (calls.scm's call.args)."""
    return {a.start_byte: a for a in f.get("call.args")}


def call_arguments(f, fn, lists: dict[int, object]):
    """The argument_list of the call whose function node is fn: the one that starts at the `(` after fn;
    else (a `<<<...>>>` or a comment between) the call node's own list; None if it has none."""
    end = fn.end_byte
    src = f.src
    if end < len(src) and src[end] != 0x28:
        end = skip_space(src, end)
    args = lists.get(end)
    if args is None:
        parent = fn.parent
        args = parent.child_by_field_name("arguments") if parent is not None else None
        if args is None or args.type != "argument_list":
            return None
    return args


def call_argc(f, args) -> int:
    """The arguments written in a call's argument_list (comments not counted); 0 for none."""
    if args is None:
        return 0
    n = args.named_child_count
    if n and f.src.find(b"/", args.start_byte, args.end_byte) >= 0:
        n = sum(1 for c in args.named_children if c.type != "comment")
    return n
