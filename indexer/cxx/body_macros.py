"""Uses of the file's own function-like macros inside function bodies: what the expansion calls and launches.

A kernel file often writes its launch once as a macro and uses it per case:

    #define SMALL_INDEX(TENSOR_TYPE, INDICES_TYPE, TYPE, DST_DIM, SRC_DIM, IDX_DIM) \\
      indexSelectSmallIndex<TENSOR_TYPE, INDICES_TYPE, TYPE, DST_DIM, SRC_DIM, IDX_DIM> \\
        <<<smallIndexGrid, smallIndexBlock, 0, stream>>>(...);
    ...
    SMALL_INDEX(scalar_t, index_t, unsigned int, 1, 1, -2);

tree-sitter does not parse a #define's body, and the use looks like a call of
SMALL_INDEX, so the launch would belong to no function. Each such use (the macro
defined in this file, at file scope or earlier in the body) is expanded the way the
preprocessor would, with the file's own macros (the #define in effect at the use:
a name may be defined again further on); the expansions are extracted as one
snippet, one function per use; and their calls, launches, stub uses, dtype
dispatches and library calls are moved to the function around the use, at the
use's line, except a `<<<` launch, which is at the line where the #define writes
it. A fact the file already has in the lines of the use (a call written in the
arguments, a dtype set a file-local wrapper gave) is not added twice.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from .expansions import macro_use_sites, shared_hash
from .facts import CallFact, CxxFacts, DefinitionMacroUseFact
from .preprocessor import Define, expand_text
from .receivers import Declarations, member_object
from .scan import dec, norm, nospace
from .sourcefile import SourceFile

_USE = "__tg_macro_use_"  # the snippet's function for use k is _USE + str(k)
# A name called in a macro's body: a whole word (not a member or a qualified name's last part) before `(`.
_CALLED_WORD = re.compile(r"(?<![\w.>:])(\w+)\s*\(")
MAX_USES = 2000  # per file; beyond that the uses are left as they are (each costs a parse of its expansion)


def _expanders(local) -> set[str]:
    """The file's function-like macros whose body may call or launch something."""
    return {k for k, d in local.items() if d.params is not None and "(" in d.body}


def calls_parameter(d: Define) -> bool:
    """Whether a function-like macro's body calls one of its named parameters or launches a kernel: what the link
    cannot see at a use without the use's argument texts (cuda/cub.cuh:38 `CUB_WRAPPER(func, ...)` writes
    `func(nullptr, temp_storage_bytes, __VA_ARGS__)`)."""
    if d.params is None:
        return False
    if "<<<" in d.body:
        return True
    named = {p for p in d.params if p != "..." and not p.endswith("...")}
    return bool(named) and any(m.group(1) in named for m in _CALLED_WORD.finditer(d.body))


def body_macro_uses(f: SourceFile, extract_snippet, shared: dict[str, Define] | None = None) -> CxxFacts | None:
    """The facts of the uses of the file's own macros in function bodies, at the uses' places; and, on the
    build's second pass (shared: the other files' #defines the build found for the file, shared_macros.py), of
    the uses of another file's macro whose body calls a parameter or launches (calls_parameter), each recorded in
    f.definition_macro_uses with the hash of `shared`."""
    names = _expanders(f.local)
    borrowed = {k for k, d in (shared or {}).items() if k not in f.local and calls_parameter(d)}
    if not names and not borrowed:
        return None
    pieces, uses = _uses(f, names | borrowed, shared or {}, borrowed)
    if not uses:
        return None
    return _moved(f, extract_snippet("\n".join(pieces).encode()), uses)


def _uses(f: SourceFile, names: set[str], shared: dict[str, Define], borrowed: set[str]
          ) -> tuple[list[str], list[tuple[str, int, int, str, int | None, int]]]:
    """The snippet's functions, and per use (caller, line, last line, macro, where its #define is, offset). A
    use of a borrowed macro (another file's) is expanded with the file's macros over `shared`, and recorded."""
    pieces: list[str] = []
    uses: list[tuple[str, int, int, str, int | None, int]] = []
    tag = shared_hash(shared) if borrowed else None
    for m, name, _node in macro_use_sites(f, names, in_function=True):
        a = m.start()
        caller = f.caller_at(a)
        parsed = f.orig_scan.args(m.end() - 1)
        if name in borrowed:
            f.definition_macro_uses.append(DefinitionMacroUseFact(
                name, tuple(norm(x) for x in parsed[0]) if parsed else (), f.line_of(a), tag))
        if parsed is None:
            continue
        args, end = parsed
        defines, define_at = ({**shared, **f.local}, None) if name in borrowed else _in_effect(f, name, a)
        text = expand_text(f"{name}({', '.join(args)})", defines)
        if text.startswith(f"{name}("):
            continue  # the arguments do not fit the parameters: the preprocessor would refuse it too
        pieces.append(f"void {_USE}{len(uses)}() {{\n{text}\n;\n}}")  # a `//` in the text ends at its line
        uses.append((caller, f.line_of(a), f.line_of(end - 1), name, define_at, a))
        if len(uses) >= MAX_USES:
            break
    return pieces, uses


def chain_macros(f: SourceFile) -> frozenset[str]:
    """The file's function-like macros whose body may start a chain of member calls: a call with no `;` or `{`
    (2.6.0 TensorIterator.cpp:1106 `#define NULLARY_OP_CONFIG() TensorIteratorConfig().set_check_mem_overlap(true)
    ...`, used as `NULLARY_OP_CONFIG().add_output(out).build()` at :1120)."""
    return frozenset(k for k, d in f.local.items()
                     if d.params is not None and "(" in d.body and ";" not in d.body and "{" not in d.body)


def _postfix(text: str) -> bool:
    """Whether text (spaces removed) is a name followed by member accesses and calls only, as _chain_parts of
    the link stage reads one: what stays outside every bracket is names, `::`, `.`, `->` and template brackets."""
    depth, outside = 0, []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
        elif depth == 0:
            outside.append(ch)
    return depth == 0 and _OUTSIDE.fullmatch("".join(outside)) is not None


_OUTSIDE = re.compile(r"[A-Za-z_][\w:.<>,]*(?:->[\w:.<>,]*)*")


def expanded_chain(f: SourceFile, callee: str, call, budget: int) -> str | None:
    """A member call's callee whose chain starts at a use of one of the file's own macros (call: the use's call
    node), written with the use expanded as the preprocessor would, the #define in effect there
    (`NULLARY_OP_CONFIG().add_output(out).build` -> `TensorIteratorConfig().set_check_mem_overlap(true)
    .check_all_same_dtype(false).resize_outputs(false).add_output(out).build`): the link stage types the chain
    from the class made in place. None when the expansion is no chain of calls, the use's arguments do not fit
    the macro, or the callee would be longer than budget."""
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    name = dec(fn.text)
    if args is None:
        return None
    written = nospace(f"{name}{dec(f.orig[args.start_byte:args.end_byte])}")
    if not callee.startswith(written):  # a long chain writes each argument `_` (receivers.chain_steps)
        written = name + "(" + ",".join("_" * sum(c.type != "comment" for c in args.named_children)) + ")"
        if not callee.startswith(written):
            return None
    defines, at = _in_effect(f, name, call.start_byte)
    if at is None:  # defined further on: no macro at the use
        return None
    text = expand_text(f"{name}{dec(f.orig[args.start_byte:args.end_byte])}", defines)
    if text.startswith(f"{name}("):
        return None
    text = nospace(text)
    if not text or not _postfix(text):
        return None
    out = text + callee[len(written):]
    return out if len(out) <= budget else None


def _in_effect(f: SourceFile, name: str, offset: int) -> tuple[dict, int | None]:
    """The file's macros with name's last #define before offset in effect, as the preprocessor has it
    there, and where that #define is written (None when unknown)."""
    history = f.local_at.get(name, ())
    before = [(at, d) for at, d in history if at < offset]
    if not before:
        return f.local, None
    at, chosen = before[-1]
    return (f.local if chosen is f.local[name] else {**f.local, name: chosen}), at


def _chevron_line(f: SourceFile, define_at: int | None, kernel: str | None) -> int | None:
    """The line of `kernel ... <<<` in the text of the #define at define_at: where the launch is written."""
    if define_at is None or not kernel:
        return None
    k = bisect.bisect_right(f.defines, (define_at, 1 << 62)) - 1
    if k < 0 or not f.defines[k][0] <= define_at < f.defines[k][1]:
        return None
    m = re.compile(rb"\b" + re.escape(kernel.rsplit("::", 1)[-1].encode()) + rb"\b[^;{}]*?<<<").search(
        f.src, f.defines[k][0], f.defines[k][1])
    return f.line_of(m.end() - 3) if m else None


def _moved(f: SourceFile, sub: CxxFacts, uses: list[tuple[str, int, int, str, int | None, int]]) -> CxxFacts:
    """The snippet's facts in the functions around the uses, at their lines; none that the file already has
    in the lines the use spans (what the arguments hold is written there, and extracted there). A member call
    the expansion writes on a variable of the function around the use (`CHECK_EMPTY_AND_RETURN(self)` writes
    `self.numel()`) gets the variable's declared type there, as receiver_types gives one written out."""
    declarations = []  # the file's, read on first need

    def typed(call: CallFact, offset: int) -> CallFact:
        obj = member_object(call.callee)
        # the snippet declares none of the use's variables: its receiver_types wrote `decltype(self)` for them
        if obj is None or obj.startswith("this->") or call.receiver_type not in (None, f"decltype({obj})"):
            return call
        if not declarations:
            declarations.append(Declarations(f))
        found, const = declarations[0].receiver(obj, offset, call.callee[len(obj):])
        return call._replace(receiver_type=found, receiver_const=const)

    def use_of(caller: str | None):
        if caller is None or not caller.startswith(_USE):
            return None
        k = caller[len(_USE):]
        return uses[int(k)] if k.isdigit() and int(k) < len(uses) else None

    def moved(facts, existing, key, launch: bool = False):
        have: dict[tuple, list[int]] = {}
        for x in existing:
            have.setdefault(key(x), []).append(x.line)
        out = []
        for x in facts:
            use = use_of(x.caller)
            if use is None:
                continue
            caller, line, last, macro, define_at, offset = use
            more = {"macro": macro, "lambda_line": x.lambda_line and line} if launch else {}
            at = line
            if launch and x.kind == "triple_chevron":  # a `<<<` is shown where the #define writes it
                at = _chevron_line(f, define_at, x.kernel) or line
            y = x._replace(caller=caller, line=at) if isinstance(x, tuple) else replace(x, caller=caller, line=at, **more)
            lines = have.setdefault(key(y), [])
            if any(line <= seen <= last or seen == at for seen in lines):
                continue
            lines.append(at)
            out.append(typed(y, offset) if isinstance(y, CallFact) else y)
        return out

    calls = moved(sub.calls, f.calls, lambda c: (c.caller, c.callee))
    launches = moved(sub.launches, f.launches, lambda x: (x.caller, x.kernel, x.kind, x.template_args), launch=True)
    stub_uses = moved(sub.stub_uses, f.stub_uses, lambda s: (s.caller, s.stub))
    dtypes = moved(sub.dtype_dispatches, f.dtypes, lambda d: (d.caller,))
    libcalls = moved(sub.library_calls, f.libcalls, lambda c: (c.caller, c.callee))
    return CxxFacts(f.path, f.language, stub_uses=tuple(stub_uses), calls=tuple(calls), launches=tuple(launches),
                    dtype_dispatches=tuple(dtypes), library_calls=tuple(libcalls))
