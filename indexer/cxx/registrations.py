"""TORCH_LIBRARY / TORCH_LIBRARY_IMPL / TORCH_LIBRARY_FRAGMENT blocks and every m.impl / m.def /
m.fallback in them, also through macros: the file's own, functorch's helpers and autocast's
KERNEL_<DEVICE> (summarised below; a file's own #define of the same name wins).
"""

from __future__ import annotations

import re

from ..vocab import RegistrationKind
from .arguments import string_value, strip_fn
from .facts import RegistrationFact
from .preprocessor import Define, expand_text
from .scan import ByteOffsets, balanced_args, dec, norm, nospace
from .sourcefile import SourceFile

# functorch's registration helpers (aten/src/ATen/functorch/BatchRulesHelper.h),
# summarised: each becomes one m.impl. A file's own #define of the same name wins.
_BUILTIN_REGISTRATION_MACROS = {
    d.name: d
    for d in (
        Define("VMAP_SUPPORT", ("op", "batch_rule"), "m.impl(#op, batch_rule);"),
        Define("VMAP_SUPPORT2", ("op", "overload", "batch_rule"), 'm.impl(#op "." #overload, batch_rule);'),
        Define("OP_DECOMPOSE", ("op",), "m.impl(#op, native::op);"),
        Define("OP_DECOMPOSE2", ("op", "overload"), 'm.impl(#op "." #overload, native::op);'),
        Define("UNARY_POINTWISE", ("op",), "m.impl(#op, BASIC_UNARY_BATCH_RULE(ATEN_FN(op)));"),
        Define("VARIADIC_BDIMS", ("op",), "m.impl(#op, VARIADIC_BDIMS_BATCH_RULE(ATEN_FN(op)));"),
        Define("VARIADIC_BDIMS2", ("op", "overload"), 'm.impl(#op "." #overload, VARIADIC_BDIMS_BATCH_RULE(ATEN_FN2(op, overload)));'),
        Define("VARIADIC_BDIMS_BOXED", ("op",), "m.impl(#op, boxed_tensor_inputs_batch_rule);"),
    )
}
# autocast's KERNEL_<DEVICE>(op[, overload], policy) (aten/src/ATen/autocast_mode.h in 2.x).
_BUILTIN_REGISTRATION_MACROS.update(
    {
        f"KERNEL_{dev}": Define(f"KERNEL_{dev}", ("...",), f"__TG_AUTOCAST__({key}, __VA_ARGS__)")
        for dev, key in (("CUDA", "CUDA"), ("CPU", "CPU"), ("XPU", "XPU"), ("MPS", "MPS"), ("PRIVATEUSEONE", "PrivateUse1"))
    }
)

_MEMBER_RE = re.compile(r"\b(\w+)\s*\.\s*(impl|def|fallback)\s*\(")


def _registration(kind: RegistrationKind, block: tuple, args: list[str], line: int, via: str | None = None) -> RegistrationFact:
    macro, ns, key = block
    op = schema = function = None
    if kind == RegistrationKind.FALLBACK:
        function = strip_fn(args[0]) if args else None
    else:
        if args:
            v = string_value(args[0])
            if v is None:
                op = norm(args[0])
            elif "(" in v:
                schema = v
                op = v.split("(", 1)[0].strip()
            else:
                op = v
        rest = [a for a in args[1:] if not a.lstrip().startswith("{") and "Tag::" not in a]
        if rest:  # commas inside template arguments split an argument: join them back
            function = strip_fn(", ".join(rest))
    return RegistrationFact(kind, macro, ns, key, op, schema, function, line, via)




def registrations(f: SourceFile) -> None:
    """Phase: the facts of every TORCH_LIBRARY* block the macro sites phase found."""
    if not f.library_blocks:
        return
    reg_macros = dict(_BUILTIN_REGISTRATION_MACROS)
    reg_macros.update(f.local)
    usable = {
        k: d
        for k, d in reg_macros.items()
        if _MEMBER_RE.search(d.body) or "__TG_AUTOCAST__" in d.body or any(o in d.body for o in reg_macros if o != k)
    }
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(k.encode()) for k in usable) + rb")\s*\(") if usable else None
    for _n, ancestors, macro, args, after, line in f.library_blocks:
        if not args:
            continue
        ns = nospace(args[0])
        key = nospace(args[1]) if macro == "TORCH_LIBRARY_IMPL" and len(args) > 2 else None
        var = nospace(args[-1])
        block = (macro, ns, key)
        f.registrations.append(RegistrationFact(RegistrationKind.BLOCK, macro, ns, key, None, None, None, line))
        rng = _block_body(f, ancestors, after)
        if rng is None:
            continue
        for off, node, obj, field in f.member_calls:
            if rng[0] <= off < rng[1] and obj == var:
                a = node.child_by_field_name("arguments")
                parsed = f.orig_scan.args(a.start_byte) if a is not None else None
                f.registrations.append(_registration(RegistrationKind(field), block, parsed[0] if parsed else [],
                                                     node.start_point[0] + 1))
        if pattern is not None:
            _macro_registrations(f, pattern, rng, block, reg_macros)


def _block_body(f: SourceFile, ancestors: tuple, after: int) -> tuple[int, int] | None:
    """The body range of a block (the macro's nearest ancestors given): tree-sitter's
    function_definition, else braces in the text."""
    for p in ancestors[:3]:
        if p.type == "function_definition":
            body = p.child_by_field_name("body")
            if body is not None:
                return body.start_byte, body.end_byte
            break
    end = f.scan.body_end(after)
    return None if end is None else (after, end)


def _macro_registrations(f: SourceFile, pattern, rng: tuple[int, int], block: tuple, reg_macros) -> None:
    macro, ns, key = block
    for m in pattern.finditer(f.orig, rng[0], rng[1]):
        if m.start() in f.define_names or (m.start() > 0 and f.orig[m.start() - 1 : m.start()] in (b".", b">")) or f.in_skip(m.start()):
            continue
        parsed = f.orig_scan.args(m.end() - 1)
        if parsed is None:
            continue
        name = dec(m.group(1))
        expanded = expand_text(f"{name}({', '.join(parsed[0])})", reg_macros)
        ln = f.line_of(m.start())
        src = expanded.encode()
        offsets = ByteOffsets(expanded)
        for mm in _MEMBER_RE.finditer(expanded):
            inner = balanced_args(src, offsets.of(mm.end() - 1))
            f.registrations.append(_registration(RegistrationKind(mm.group(2)), block, inner[0] if inner else [], ln, via=name))
        offsets = ByteOffsets(expanded)
        for mm in _AUTOCAST.finditer(expanded):
            inner = balanced_args(src, offsets.of(mm.end() - 1))
            a = [nospace(x) for x in inner[0]] if inner else []
            if len(a) in (3, 4):
                op = f"aten::{a[1]}" + (f".{a[2]}" if len(a) == 4 else "")
                fn = f"WrapFunction<CastPolicy::{a[-1]}, DeviceType::{a[0]}, ATEN_FN({op[6:]})>::type::call"
                f.registrations.append(RegistrationFact(RegistrationKind.IMPL, macro, ns, key, op, None, fn, ln, via=name))


_AUTOCAST = re.compile(r"__TG_AUTOCAST__\s*\(")
