"""Launches: `<<<...>>>` written in the text (a #define body, an ERROR region) and the launch
helpers' calls (gpu_kernel, cpu_kernel_vec, parallel_for ...) with the kernel or functor they run.
"""

from __future__ import annotations

import json
import re

from .callees import callee_info, last_component
from .definitions import parameter_names
from .facts import LaunchFact
from .scan import balanced_args, dec, nospace, norm
from .sourcefile import SourceFile
from .trees import uncommented

_CHEVRON = re.compile(rb"<<<")
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:")
_NAME_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_SPACE = frozenset(b" \t\r\n\x0b\x0c")
_STOP = frozenset(b";{}")


def text_launches(f: SourceFile, start: int, end: int, macro: str | None) -> list[tuple[LaunchFact, int]]:
    """Launches found in raw text (a #define body or an ERROR region), with the offset of each `<<<`.

    A launch is `kernel<template args> <<<config>>>`: the kernel name and its template arguments
    (up to three levels deep, without `;{}`) are read backwards from the `<<<`, and the config is
    what lies before the next `>>>`, if that comes before the next `<<<`. Each byte is read at
    most a bounded number of times."""
    out = []
    src = f.src
    chevrons = [m.start() for m in _CHEVRON.finditer(src, start, end)]
    last_end = start  # launches do not overlap
    close = -1
    for k, chevron in enumerate(chevrons):
        if chevron < last_end:
            continue
        got = _kernel_before(src, chevron, last_end)
        if got is None:
            continue
        name_start, name, targs = got
        last_end = chevron + 3
        if macro is None and f.in_skip(name_start):
            continue
        if close < chevron:
            close = src.find(b">>>", chevron, end)
        if close < 0:
            break
        if k + 1 < len(chevrons) and chevrons[k + 1] < close:
            continue  # another launch comes first: this `<<<` has no config of its own
        cfg = balanced_args(b"(" + src[chevron + 3 : close] + b")", 0)
        out.append(
            (
                LaunchFact(
                    "triple_chevron",
                    dec(name),
                    nospace(dec(targs)) if targs else None,
                    tuple(norm(a) for a in cfg[0]) if cfg else (),
                    None if macro else f.caller_at(name_start),
                    f.line_of(chevron),
                    macro=macro,
                ),
                chevron,
            )
        )
    return out


def _kernel_before(src: bytes, chevron: int, start: int) -> tuple[int, bytes, bytes | None] | None:
    """(offset, name, template arguments) of the kernel written before the `<<<` at chevron."""
    i = chevron
    while i > start and src[i - 1] in _SPACE:
        i -= 1
    targs = None
    if i > start and src[i - 1] == 0x3E:  # '>': template arguments, matched backwards
        j, depth = i, 0
        while True:
            j -= 1
            if j < start or src[j] in _STOP:
                return None
            if src[j] == 0x3E:
                depth += 1
                if depth > 3:
                    return None
            elif src[j] == 0x3C:
                depth -= 1
                if depth == 0:
                    break
        targs = src[j:i]
        i = j
        while i > start and src[i - 1] in _SPACE:
            i -= 1
    k = i
    while k > start and src[k - 1] in _WORD:
        k -= 1
    while k < i and src[k] not in _NAME_START:
        k += 1
    if k == i:
        return None
    return k, src[k:i], targs


def kernel_name(f: SourceFile, kfn) -> tuple[str, str | None]:
    if kfn.type == "template_function":
        nm = kfn.child_by_field_name("name")
        ta = kfn.child_by_field_name("arguments")
        return nospace(f.text(nm)) if nm is not None else nospace(f.text(kfn)), norm(f.text(ta)) if ta is not None else None
    if kfn.type == "qualified_identifier":
        t = nospace(f.text(kfn))
        m = re.fullmatch(r"(.*?)(<.*>)", t)
        if m:
            return m.group(1), m.group(2)
        return t, None
    return nospace(f.text(kfn)), None


def helper_launch(f: SourceFile, fn, helper: str, args_node, caller: str | None, line: int) -> LaunchFact:
    targs = None
    if fn.type == "template_function":
        ta = fn.child_by_field_name("arguments")
        targs = norm(f.text(ta)) if ta is not None else None
    elif fn.type == "qualified_identifier":
        ta = fn.child_by_field_name("name")
        if ta is not None and ta.type == "template_function":
            a = ta.child_by_field_name("arguments")
            targs = norm(f.text(a)) if a is not None else None
    args = uncommented(args_node)
    lam = next((a for a in args if a.type == "lambda_expression"), None)
    if lam is not None:
        return LaunchFact(helper, None, targs, (), caller, line, lambda_line=lam.start_point[0] + 1)
    kernel = None
    for a in args:
        if a.type in ("call_expression", "compound_literal_expression"):
            c = a.child_by_field_name("function") or a.child_by_field_name("type")
            name = last_component(nospace(f.text(c))) if c is not None else ""
            if name[:1].isupper() or "functor" in name.lower() or "Functor" in name:
                kernel = nospace(f.text(c))
                break
    if kernel is None:  # the helper's last named argument; a member helper's (`iter.for_each(loop, grain)`) first
        named = args[:1] if fn.type == "field_expression" else args[1:]
        idents = [a for a in named if a.type in ("identifier", "qualified_identifier", "template_function")]
        if idents:
            held = _local_lambda(f, idents[-1]) if idents[-1].type == "identifier" else None
            if held is not None:  # `auto loop = [&](...) {...}; cpu_kernel(iter, loop);`: that lambda runs
                return LaunchFact(helper, None, targs, (), caller, line, lambda_line=held)
            kernel = nospace(f.text(idents[-1]))
    return LaunchFact(helper, kernel, targs, (), caller, line)


def _local_lambda(f: SourceFile, ident) -> int | None:
    """The line of the lambda that the local variable `ident` names holds: the nearest `auto x = [...](...) {...}`
    before it in the function around it (a lambda's body included), else None."""
    name, fn = f.text(ident), ident.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    body = fn.child_by_field_name("body") if fn is not None else None
    found = None
    stack = [body] if body is not None else []
    while stack:
        n = stack.pop()
        if n.start_byte >= ident.start_byte:
            continue
        if n.type == "init_declarator":
            value = n.child_by_field_name("value")
            declarator = n.child_by_field_name("declarator")
            if value is not None and value.type == "lambda_expression" and declarator is not None \
                    and f.text(declarator) == name and (found is None or value.start_byte > found.start_byte):
                found = value
        stack.extend(n.named_children)
    return found.start_point[0] + 1 if found is not None else None


def handed_lambda(f: SourceFile, launch, kernel: str) -> str | None:
    """A `<<<...>>>` of a parameter of the lambda around it: JSON `[position, [[callee, callee_name, argument,
    line, argc], ...]]`, the parameter's position and the calls the lambda is handed to (it, or the local variable
    it initialises, written as an argument); None for any other launch. 2.6.0 transformers/cuda/attention.cu:1230
    `auto launchKernel = [&](auto _k, auto kernel_fn) {` ... :1383 `kernel_fn<<<...>>>(p);`, handed at :1388 to
    `dispatch_cutlassF<scalar_t>(launchKernel, computeCapability)`, whose per-architecture functions call it with
    each kernel (mem_eff_attention/kernels/cutlassF.h:27 `cb(AttentionKernel<...>(), fmha_cutlassF_...)`): the
    link stage follows the hand-over to the kernels (link/edges.py, _HandedKernels)."""
    lam = launch.parent
    while lam is not None and lam.type != "lambda_expression":
        if lam.type == "function_definition":
            return None
        lam = lam.parent
    declarator = lam.child_by_field_name("declarator") if lam is not None else None
    names = parameter_names(declarator) if declarator is not None else ()
    if kernel not in names:
        return None
    holder, handed = lam.parent, []
    if holder is not None and holder.type == "argument_list":
        handed.append(_handed_to(f, holder, lam))
    elif holder is not None and holder.type == "init_declarator" and holder.child_by_field_name("value") == lam:
        variable = holder.child_by_field_name("declarator")
        body = holder.parent
        while body is not None and body.type != "function_definition":
            body = body.parent
        if variable is not None and variable.type == "identifier" and body is not None:
            for args in f.get("call.args"):  # the calls after the lambda in its function that pass the variable
                if lam.end_byte < args.start_byte < body.end_byte:
                    handed.extend(_handed_to(f, args, a) for a in uncommented(args)
                                  if a.type == "identifier" and a.text == variable.text)
    handed = [h for h in handed if h is not None]
    return json.dumps([names.index(kernel), sorted(handed, key=lambda h: (h[3], h[2]))]) if handed else None


def _handed_to(f: SourceFile, args, argument) -> list | None:
    """[callee, callee_name, argument position, line, argc] of the call whose argument list holds `argument`, as
    the calls table writes the callee and line (the callee as written, without whitespace; the line it starts)."""
    call = args.parent
    fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    if fn is None:
        return None
    written = uncommented(args)
    position = next((i for i, a in enumerate(written) if a.id == argument.id), None)
    if position is None:
        return None
    info = callee_info(nospace(dec(f.orig[fn.start_byte:fn.end_byte])), f.language)
    return [info[0], info[1], position, fn.start_point[0] + 1, len(written)]
