"""Whether two preprocessor guards can hold in one build: the rule behind "one definition per build
configuration" (How.PER_BUILD in resolve.py).

A guard is what definitions.guard stores: the conditions of the #if/#ifdef/#elif/#else around a
definition joined with `&&`, an #else or #elif branch written as `!(<the earlier condition>)`. Each
guard is read as alternatives of conditions that all hold (`!` pushed down to the conditions by De
Morgan's laws, `&&` multiplied out over `||`); two guards are exclusive (no build compiles both) when
every alternative of one and every alternative of the other have
- a condition one requires and the other requires negated (`X` and `!(X)`, `defined(X)` and
  `!defined(X)`: two branches of one #if chain, or the same macro tested both ways);
- two different CPU capabilities required (`defined(CPU_CAPABILITY_AVX2)`, `defined(CPU_CAPABILITY_AVX512)`):
  PyTorch compiles a kernel file once per capability, with exactly one CPU_CAPABILITY_<NAME> defined;
- or two different target architectures required, by the macros that name one (the compiler's
  `__aarch64__`, `__x86_64__`, `__VSX__`, `__s390x__`, ..., and the capabilities that exist on one only).
Anything else (a condition not understood, an empty guard, a guard of more than MAX_TERMS alternatives)
is taken to hold together with the other: never exclusive by a guess.
"""

from __future__ import annotations

from functools import lru_cache
import re

from ..vocab import DEVICE_BUILDS

CAPABILITY = "CPU_CAPABILITY_"
# Macros that are defined only when compiling for one architecture, and which one.
ARCHITECTURES = {
    "__aarch64__": "arm", "__arm__": "arm", "__ARM_NEON__": "arm", "__ARM_NEON": "arm", "_M_ARM64": "arm",
    "CPU_CAPABILITY_SVE": "arm", "CPU_CAPABILITY_SVE256": "arm",
    "__x86_64__": "x86", "__i386__": "x86", "_M_X64": "x86", "_M_IX86": "x86", "__AVX2__": "x86",
    "__AVX512F__": "x86", "CPU_CAPABILITY_AVX2": "x86", "CPU_CAPABILITY_AVX512": "x86",
    "__VSX__": "power", "__powerpc__": "power", "__powerpc64__": "power", "CPU_CAPABILITY_VSX": "power",
    "__s390x__": "s390", "CPU_CAPABILITY_ZVECTOR": "s390",
    "__riscv": "riscv", "__riscv_v_intrinsic": "riscv",
}
_DEFINED = re.compile(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)")
_SPACE = re.compile(r"\s+")
_SPLIT_TOKENS = {op: re.compile(r"[()]|" + re.escape(op)) for op in ("&&", "||")}  # what split_top reads

Literal = tuple[bool, str]  # (required true, the condition: "defined:X" or the text without spaces)
MAX_TERMS = 64  # a guard with more alternatives than this is not decided (never exclusive)


def split_top(expr: str, op: str) -> list[str]:
    """`a && (b || c) && d` split at the top-level `&&`: ["a", "(b || c)", "d"]."""
    out, depth, start = [], 0, 0
    for m in _SPLIT_TOKENS[op].finditer(expr):
        token = m.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif depth == 0:
            out.append(expr[start:m.start()].strip())
            start = m.end()
    out.append(expr[start:].strip())
    return out


def _unwrap(expr: str) -> str:
    """`((a && b))` -> `a && b` (only parentheses that enclose the whole expression)."""
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")") and _balanced(expr[1:-1]):
        expr = expr[1:-1].strip()
    return expr


def _balanced(expr: str) -> bool:
    depth = 0
    for c in expr:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


def _atom(expr: str) -> str:
    m = _DEFINED.fullmatch(expr)
    return f"defined:{m.group(1) or m.group(2)}" if m else _SPACE.sub("", expr)


Term = frozenset[Literal]  # literals that all hold


@lru_cache(maxsize=16384)
def _terms(expr: str, positive: bool = True) -> tuple[Term, ...] | None:
    """The guard (negated when not positive) as alternatives of literals that all hold (its disjunctive
    normal form: `!` pushed down to the conditions by De Morgan's laws); None when it has more than
    MAX_TERMS alternatives."""
    expr = _unwrap(expr)
    ors, ands = split_top(expr, "||"), split_top(expr, "&&")
    if len(ors) > 1 or len(ands) > 1:
        parts, disjunction = (ors, True) if len(ors) > 1 else (ands, False)
        if disjunction == positive:  # A || B, or !(A && B) = !A || !B: the alternatives of each part
            out: list[Term] = []
            for part in parts:
                got = _terms(part, positive)
                if got is None or len(out) + len(got) > MAX_TERMS:
                    return None
                out.extend(got)
            return tuple(out)
        product: list[Term] = [frozenset()]  # A && B, or !(A || B) = !A && !B: every choice of one from each
        for part in parts:
            got = _terms(part, positive)
            if got is None or len(product) * len(got) > MAX_TERMS:
                return None
            product = [a | b for a in product for b in got]
        return tuple(product)
    if expr.startswith("!") and not expr.startswith("!="):
        return _terms(expr[1:], not positive)
    return (frozenset({(positive, _atom(expr))}),)


def _conflict(a: Term, b: Term) -> bool:
    """Whether two alternatives cannot hold together (the rules in the module docstring)."""
    if any((not positive, atom) in b for positive, atom in a) or any((not p, atom) in a for p, atom in a):
        return True
    macros_a = {atom[8:] for positive, atom in a if positive and atom.startswith("defined:")}
    macros_b = {atom[8:] for positive, atom in b if positive and atom.startswith("defined:")}
    caps_a = {m for m in macros_a if m.startswith(CAPABILITY)}
    caps_b = {m for m in macros_b if m.startswith(CAPABILITY)}
    if caps_a and caps_b and caps_a.isdisjoint(caps_b):
        return True
    arch_a = {ARCHITECTURES[m] for m in macros_a if m in ARCHITECTURES}
    arch_b = {ARCHITECTURES[m] for m in macros_b if m in ARCHITECTURES}
    return bool(arch_a and arch_b and arch_a.isdisjoint(arch_b))


@lru_cache(maxsize=4096)
def exclusive(first: str | None, second: str | None) -> bool:
    """Whether no build compiles code under both guards (the rules in the module docstring)."""
    if not first or not second:
        return False
    terms_a, terms_b = _terms(first), _terms(second)
    if terms_a is None or terms_b is None:
        return False
    return all(_conflict(a, b) for a in terms_a for b in terms_b)


def one_per_build(guards: list[str | None]) -> bool:
    """Whether the guards exclude each other pairwise: any build compiles at most one of them."""
    return len(guards) > 1 and all(exclusive(guards[i], g) for i in range(len(guards)) for g in guards[i + 1:])


def never_holds(guard: str | None) -> bool:
    """Whether no build compiles code under the guard, whatever it defines: the guard contradicts itself (2.6.0
    vec256/vec256_int.h:963's `#ifndef CPU_CAPABILITY_AVX2` inside the file's `#ifdef CPU_CAPABILITY_AVX2`)."""
    return exclusive(guard, guard)


def build_condition(device: str) -> str | None:
    """The #if condition that holds in the build of a device of vocab.DEVICE_BUILDS (its conditions joined with
    `&&`); None for another device."""
    terms = DEVICE_BUILDS.get(device)
    return None if terms is None else " && ".join(f"({condition})" for condition, _said in terms)


def builds_without(guard: str | None) -> list[str]:
    """The devices of vocab.DEVICE_BUILDS whose build does not compile code under the guard (`defined(USE_ROCM) &&
    ROCM_VERSION >= 60201`: CUDA; `defined(C10_MOBILE)`: CUDA and HIP), in DEVICE_BUILDS's order; none for a guard
    no build compiles (never_holds)."""
    if never_holds(guard):
        return []
    return [device for device in DEVICE_BUILDS if exclusive(guard, build_condition(device))]


@lru_cache(maxsize=1024)
def build_reason(device: str, guard: str) -> str:
    """Why the device's build does not compile code under the guard, in words to which `it` may follow: the
    DEVICE_BUILDS words of each of its conditions that the guard alone contradicts (`only a ROCm build (USE_ROCM)
    compiles`), joined with `, and `; where only all of them together do, that the device's build does not."""
    said = [words for condition, words in DEVICE_BUILDS.get(device, ()) if exclusive(guard, condition)]
    return ", and ".join(said) if said else f"a {device} build does not compile"
