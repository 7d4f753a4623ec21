"""The source as tree-sitter is handed it: rewrites that keep every offset and line.

Each rewrite replaces bytes by as many blanks (newlines kept), so a fact's
offset and line are the same in the file as written:

- attribute-like macros tree-sitter cannot place (`C10_HOST_DEVICE`, `TORCH_API`,
  `C10_LAUNCH_BOUNDS_1(128)`) are blanked, except on preprocessor lines;
- a number table of 16 KB or more becomes a comment inside its braces;
- a builtin type as an argument of one of the file's own macros becomes `_`;
- a lambda's qualifier macro (`[&] GPU_LAMBDA (...)`) is blanked;
- a `/* */` comment in a function-like #define's body is blanked;
- Objective-C's `for (T* x in y)` becomes a range for, `for (T* x :  y)`;
- Objective-C++ (messages, `@` literals, blocks, `@autoreleasepool`) is written as C++: objc.py;
- a raw string whose delimiter has 16 characters, the most C++ allows (`R"PT_METAL_SHADERS(...)PT_METAL_SHADERS"`),
  which tree-sitter-cpp does not end (it reads at most 15), becomes `R"(` and `)"` with its text blanked;
- an `#if` whose branches are alternative pieces of one declaration (each only template heads, or one with
  unbalanced parentheses: 2.6.0 cpu/vec/vec_base.h's `#if defined(__s390x__) template <class T, class TEMP=void>
  #else template <class T> #endif struct Vectorized {`, and its `blendv(` head) keeps its last branch, the others
  and the directive lines blanked: tree-sitter reads no declaration across directives (the guards of the lines are
  read from the file as written, directives.py);
- an `#if` group whose branches go on an if-else chain written before it (`#ifdef USE_ROCM` / `else if (...) {...}` /
  `#endif` / `else {...}`) loses its directive lines, so the chain is one statement: _if_chain_continuations;
- an `#if` group inside an argument list whose branches are arguments (`array_of<...>(a, b,` / `#ifdef USE_ROCM` /
  `c<true>` / `#else` / `d` / `#endif` / `);`) keeps its last branch, the others and the directive lines blanked:
  _argument_alternatives;
- a use of the file's own statement macro (its body ends with `}` or `else`) alone on its line gets the `;` its
  writer left out, on the next line's indent;
- a branch hint written as the condition's parentheses (`if C10_LIKELY (x)`) is blanked to `if (x)`;
- a parameter's default written as a braced list (`ArrayRef<Scalar> scalarList = {}`) becomes `0` and blanks;

Every pass is linear in the source.
"""

from __future__ import annotations

import bisect
import re

from .objc import is_objective_c, objective_c
from .preprocessor import define_spans
from .scan import Scanner, skip_space

_BLANK = bytes(0x0A if c == 0x0A else 0x20 for c in range(256))  # bytes.translate: every byte but \n -> space

_ATTRIBUTE_MACROS = (  # (bytes that must occur, pattern): literal prefixes keep the scans fast
    (
        b"C10_",
        re.compile(
            rb"C10_(?:HOST_DEVICE|HOST|DEVICE|HIP_HOST_DEVICE|ALWAYS_INLINE(?:_ATTRIBUTE|_UNLESS_MOBILE)?|NOINLINE|"
            rb"UNUSED|USED|NODISCARD|DEPRECATED|RESTRICT|HIDDEN|EXPORT|IMPORT|API|API_ENUM|CUDA_API|HIP_API|XPU_API|"
            rb"TYPENAME_CONSTEXPR|HOST_CONSTEXPR_EXCEPT_WIN_CUDA|(LAUNCH_BOUNDS_[0-9]|DEPRECATED_MESSAGE))\b"
        ),
    ),
    (b"_API", re.compile(rb"TORCH_(?:[A-Z0-9]+_)*API\b")),
    (b"_API", re.compile(rb"CAFFE2_API\b")),
    (b"__ubsan", re.compile(rb"__ubsan_ignore_[a-z_]+__\b")),
)


def prepare(source: bytes, path: str = "") -> tuple[bytes, list[tuple[int, int, int]]]:
    """(what tree-sitter parses, the function-like #define spans of it: see define_spans); `path` says whether
    the source is Objective-C++ (a .mm file: objc.py)."""
    source = blank_attributes(comment_out_tables(objective_c(source, is_objective_c(path))))
    spans = define_spans(source) if b"define" in source else []
    if spans:
        source = _blank_type_arguments(source, spans)
        if b"/*" in source:
            source = _blank_define_comments(source, spans)
    if b"]" in source and (b"LAMBDA" in source or b"__device__" in source or b"C10_" in source):
        source = _LAMBDA_QUALIFIERS.sub(_blank_lambda_qualifier, source)
    if b" in " in source and b"for" in source:
        source = _FAST_ENUMERATION.sub(_range_for, source)
    if b'R"' in source:
        source = _short_raw_delimiters(source)
    if b"#else" in source or b"#elif" in source:
        source = _one_branch_of_split_declarations(source)
    if b"else" in source and b"#" in source:
        source = _if_chain_continuations(source)
    if b"#if" in source:
        source = _argument_alternatives(source)
    if b"#define" in source:
        source = _end_statement_macro_uses(source)
    if b"LIKELY" in source:
        source = _CONDITION_MACRO.sub(lambda m: m.group(1) + m.group(2).translate(_BLANK), source)
    if _BRACED_DEFAULT.search(source):
        source = _braced_defaults(source)
    return source, spans


# A parameter's default written as a braced list, `= {}` or `= {0, 0}`, before the next parameter or the list's end:
# tree-sitter-cpp reads no such parameter, and the function it heads is lost (2.6.0 ForeachUtils.h:219
# check_fast_path_restrictions(..., ArrayRef<Scalar> scalarList = {}, ...) parsed as a declaration with an ERROR,
# its body a stray block). The list becomes `0` and blanks: a default still, so the parameter stays optional.
_BRACED_DEFAULT = re.compile(rb"=[ \t]*(\{[^{}();\"'/#\n]*\})(?=\s*[,)])")
_PARAMETERS_BACK = 4096  # the bytes looked back through for the parameter list's `(`


def _braced_defaults(source: bytes) -> bytes:
    out = None
    for m in _BRACED_DEFAULT.finditer(source):
        if not _in_parameters(source, m.start()):
            continue
        if out is None:
            out = bytearray(source)
        start, end = m.span(1)
        out[start:end] = b"0" + source[start + 1:end].translate(_BLANK)
    return source if out is None else bytes(out)


def _in_parameters(source: bytes, i: int) -> bool:
    """Whether offset i is inside parentheses opened since the last `;`, `{` or `}` (a parameter list, or a call's
    arguments, where `x = 0` reads as well), with no literal on the way and not on a preprocessor line."""
    line = source.rfind(b"\n", 0, i) + 1
    if source[line:i].lstrip().startswith(b"#"):
        return False
    depth = 0
    for k in range(i - 1, max(-1, i - _PARAMETERS_BACK), -1):
        c = source[k]
        if c == 0x29:  # )
            depth += 1
        elif c == 0x28:  # (
            if depth == 0:
                return True
            depth -= 1
        elif c in b";{}\"'":
            return False
    return False


# `if C10_LIKELY (cond)`: the hint macro's parentheses are the `if`'s (2.6.0 BatchLinearAlgebra.cpp:3949); read as a
# call, the statement is no `if` to tree-sitter, which then ends the function early. The name is blanked.
_CONDITION_MACRO = re.compile(rb"(\b(?:if|while)[ \t]+)([A-Z][A-Z0-9_]*LIKELY)(?=[ \t]*\()")


# A #define (object-like or function-like) with its logical line's body; the body is read up to the line's end.
_DEFINE_LINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(\([^()]*\))?((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
_STATEMENT_END = re.compile(rb"(?:}|\belse)\s*$")
_COMMENTS = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)
_STATEMENT_BEFORE = re.compile(rb"(?:[;{}:]|\belse|\))[ \t]*(?://[^\n]*)?$")


def _end_statement_macro_uses(source: bytes) -> bytes:
    """A use of the file's own statement macro (one whose body ends with `}` or `else`, so that its uses are written
    without a `;`) on a line of its own, at a statement's place, gets a `;`: the first blank of the next line's indent
    becomes one. The preprocessor needs none; tree-sitter, without one, reads on past the end of the function (2.6.0
    cuda/DepthwiseConv3d.cu:452-454 `DWCONV3D_FORWARD_DISPATCH_SPECIALIZATION(3, 3, 3, 1, 1, 1)` ...
    `DWCONV3D_FORWARD_DISPATCH_OTHERS` ran conv_depthwise3d_cuda on to the namespace's end). The `;` is an empty
    statement after the block or the `else`."""
    names = {m.group(1) for m in _DEFINE_LINE.finditer(source)
             if _STATEMENT_END.search(_COMMENTS.sub(b"", m.group(3).replace(b"\\\n", b"\n")))}
    if not names:
        return source
    # a line that is one use of such a name, with its arguments when it has any (on that line), and nothing else
    uses = re.compile(rb"^[ \t]*(?:" + b"|".join(map(re.escape, sorted(names))) +
                      rb")[ \t]*(\([^\n]*\))?[ \t]*(?://[^\n]*)?$", re.M)
    out = None
    for m in uses.finditer(source):
        args = m.group(1)
        if args is not None and args.count(b"(") != args.count(b")"):
            continue
        k = m.start() - 1  # the last line with code before the use
        while k > 0:
            start = source.rfind(b"\n", 0, k) + 1
            line = source[start:k].rstrip()
            if line:
                break
            k = start - 1
        else:
            continue
        if line.lstrip().startswith(b"#") or line.endswith(b"\\") or not _STATEMENT_BEFORE.search(line):
            continue
        after = m.end() + 1  # the next line: its first blank becomes the `;`
        if after < len(source) and source[after] in b" \t" and \
                not source[after:after + 64].lstrip().startswith((b";", b"else", b"#")):
            if out is None:
                out = bytearray(source)
            out[after] = 0x3B
    return source if out is None else bytes(out)


CONDITIONAL = re.compile(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")  # an #if group's directive
_TEMPLATE_HEAD = re.compile(rb"[ \t]*template[ \t]*<.*>[ \t]*(?://.*)?")
_SPLIT_BRANCH_LINES = 3  # the most lines a branch of such an #if has
_BLOCK_HEAD_LINES = 12  # the most lines a branch that is a block's head has (a function head, a parameter a line)
_LITERAL = re.compile(rb"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")


def _without_literals(line: bytes) -> bytes:
    """A line without its string and character literals."""
    return _LITERAL.sub(b"", line) if b'"' in line or b"'" in line else line


def _parens(line: bytes) -> int:
    """How many more `(` than `)` a line opens, outside string and character literals."""
    code = _without_literals(line)
    return code.count(b"(") - code.count(b")")


def _lines(source: bytes) -> tuple[list[bytes], list[int]]:
    """The source's lines (without their newlines) and the offset each starts at."""
    lines = source.split(b"\n")
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return lines, starts


def _if_openers(lines: list[bytes]):
    """The indexes of the lines that open an #if group (#if, #ifdef, #ifndef)."""
    for i, line in enumerate(lines):
        if b"#" in line and (d := CONDITIONAL.match(line)) is not None and d.group(1) in (b"if", b"ifdef", b"ifndef"):
            yield i


def _blanked(out: bytearray, lines: list[bytes], starts: list[int], blank: list[int]) -> bytearray:
    """out with these lines (indexes into lines) blanked, their newlines kept."""
    for k in blank:
        out[starts[k]:starts[k] + len(lines[k])] = lines[k].translate(_BLANK)
    return out


def _one_branch_of_split_declarations(source: bytes) -> bytes:
    """Blank an #if group (no nested directive) whose branches are alternative pieces of one declaration: each
    branch at most _SPLIT_BRANCH_LINES lines, and every branch only template heads, or a branch whose parentheses
    do not balance: the last branch is kept. Or every branch, of at most _BLOCK_HEAD_LINES lines, the head of one
    block (_block_heads): the branch with the most lines of code is kept, the last of equals (2.6.0
    torch/csrc/cuda/comm.cpp:53-65 keeps USE_NCCL's ten lines, not `{`). One pass over the lines."""
    lines, starts = _lines(source)
    out = bytearray(source)
    i = 0
    while i < len(lines):
        group = _if_group(lines, i)
        if group is None:
            i += 1
            continue
        marks, branches = group
        short = all(len(b) <= _SPLIT_BRANCH_LINES for b in branches)
        heads = short and all(_TEMPLATE_HEAD.fullmatch(lines[k]) for b in branches for k in b)
        if heads or (short and any(sum(_parens(lines[k]) for k in b) != 0 for b in branches)):
            kept = len(branches) - 1
        elif _block_heads(lines, branches):
            kept = max(range(len(branches)), key=lambda b: (_code_lines(lines, branches[b]), b))
        else:
            kept = None
        if kept is not None:
            _blanked(out, lines, starts, marks + [k for b, ks in enumerate(branches) if b != kept for k in ks])
            i = marks[-1] + 1
        else:
            i += 1
    return bytes(out)


_CONTINUATION = re.compile(rb"[ \t]*(?:\}[ \t]*)?else\b")  # a line that goes on an if-else chain
_BARE_ELSE = re.compile(rb"[ \t]*(?:\}[ \t]*)?else[ \t]*(?:\{|$|//)")  # its last link (`else {`), no `if`


def _if_chain_continuations(source: bytes) -> bytes:
    """Blank the directive lines of an #if group whose every branch goes on an if-else chain begun before the group
    (its first line of code starts with `else` or `} else`) and closes every block it opens: the chain's links under
    the group and after it are then one statement, as the preprocessor makes them. tree-sitter reads a branch that
    starts with `else` as no statement; what follows went astray: 2.6.0 sparse/cuda/cuSPARSELtOps.cpp:217
    `#if defined(CUSPARSELT_VERSION) && CUSPARSELT_VERSION >= 602` / `else if (input_type == CUDA_R_8F_E4M3) {` ...
    `#endif` / `else {` ended _cslt_sparse_mm_impl (:94) at :248, and its cusparseLtMatmul (:440) was read outside
    any function. Of several branches, all are kept when only the last is a bare `else`; else only the last is. The
    guards of the lines are read from the file as written (directives.py). Nested groups inside a branch stay."""
    lines, starts = _lines(source)
    following = _next_code_lines(lines)
    out: bytearray | None = None
    for i in _if_openers(lines):
        k = following[i + 1] if i + 1 < len(lines) else None
        if k is None or not _CONTINUATION.match(lines[k]):
            continue  # the first branch's first code line, if it has one, is no link: the group is not read whole
        group = _whole_if_group(lines, i)
        if group is None:
            continue
        marks, branches = group
        firsts = [_first_code_line(lines, b) for b in branches]
        if any(k is None or not _CONTINUATION.match(lines[k]) for k in firsts) or \
                any(sum(_braces(lines[k]) for k in b) != 0 for b in branches):
            continue
        blank = list(marks)
        if any(_BARE_ELSE.match(lines[k]) for k in firsts[:-1]):  # `else {...} else {...}`: one branch
            blank += [k for b in branches[:-1] for k in b]
        out = _blanked(out if out is not None else bytearray(source), lines, starts, blank)
    return source if out is None else bytes(out)


def _next_code_lines(lines: list[bytes]) -> list[int | None]:
    """Per line, the first line from it on that holds code (_first_code_line's test), None when none does: one pass
    from the end, so that a file of many nested #if groups is not read once per group."""
    got: list[int | None] = [None] * len(lines)
    nxt: int | None = None
    for k in range(len(lines) - 1, -1, -1):
        code = lines[k].strip()
        if code and not code.startswith((b"//", b"/*", b"*", b"#")):
            nxt = k
        got[k] = nxt
    return got


def _whole_if_group(lines: list[bytes], i: int) -> tuple[list[int], list[list[int]]] | None:
    """(its #if, #elif, #else and #endif lines, each branch's other lines) of the #if group starting at line i, the
    lines of groups nested in a branch being that branch's; None when the file ends first."""
    marks, branches, depth = [i], [[]], 0
    for j in range(i + 1, len(lines)):
        d = CONDITIONAL.match(lines[j])
        kind = d.group(1) if d else b""
        if kind in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif kind == b"endif" and depth:
            depth -= 1
        elif kind in (b"elif", b"else") and not depth:
            marks.append(j)
            branches.append([])
            continue
        elif kind == b"endif":
            marks.append(j)
            return marks, branches
        branches[-1].append(j)
    return None


_ARGUMENTS_OPEN = re.compile(rb"[(,]\s*(?://.*)?$")  # a line of code that leaves an argument list open


def _argument_alternatives(source: bytes) -> bytes:
    """Keep the last branch of an #if group written inside an argument list (the line of code before it ends with
    `(` or `,`) whose every branch is 1 to _SPLIT_BRANCH_LINES lines of arguments (no `;`, `{` or `}`, its parentheses
    balanced, no nested directive): the other branches and the directive lines are blanked. tree-sitter reads no
    directive inside an expression: 2.6.0 transformers/cuda/sdp_utils.cpp:668-672 (`#ifdef USE_ROCM` /
    `check_head_dim_size_flash<true>` / `#else` / `check_head_dim_size_mem_efficient` / `#endif` in array_of's
    arguments) ended can_use_mem_efficient_attention (:647) at :705, and its checks after it were read outside any
    function. One branch, as a compiler reads it, so that the call keeps its argument count (1.13.1
    cuda/Blas.cpp:255, gemm_and_bias's last argument under `#if 0` / `#else`); the last, as for split declarations,
    is the `#else` of `#if 0` and of `#ifdef USE_ROCM`. The lines keep their guards (directives.py)."""
    lines, starts = _lines(source)
    out: bytearray | None = None
    for i in _if_openers(lines):
        before = i - 1
        while before >= 0 and (not lines[before].strip() or lines[before].lstrip().startswith(b"//")):
            before -= 1
        if before < 0 or lines[before].lstrip().startswith(b"#") or \
                not _ARGUMENTS_OPEN.search(_without_literals(lines[before])):
            continue
        group = _whole_if_group(lines, i)
        if group is None:
            continue
        marks, branches = group
        if not all(0 < _code_lines(lines, b) <= _SPLIT_BRANCH_LINES and _arguments_only(lines, b) for b in branches):
            continue
        out = _blanked(out if out is not None else bytearray(source), lines, starts,
                       marks + [k for b in branches[:-1] for k in b])
    return source if out is None else bytes(out)


def _arguments_only(lines: list[bytes], branch: list[int]) -> bool:
    """Whether a branch's lines are arguments: no directive, `;`, `{` or `}`, parentheses balanced."""
    code = [_without_literals(lines[k]).split(b"//", 1)[0] for k in branch]
    return not any(c.lstrip().startswith(b"#") or b";" in c or b"{" in c or b"}" in c for c in code) and \
        sum(c.count(b"(") - c.count(b")") for c in code) == 0


def _first_code_line(lines: list[bytes], branch: list[int]) -> int | None:
    """The first line of a branch that holds code (not blank, not a comment or a directive)."""
    for k in branch:
        code = lines[k].strip()
        if code and not code.startswith((b"//", b"/*", b"*", b"#")):
            return k
    return None


_NAMESPACE_WORD = re.compile(rb"\bnamespace\b")


def _block_heads(lines: list[bytes], branches: list[list[int]]) -> bool:
    """Whether every branch opens the same number of blocks, more than it closes: alternative heads of one block
    (2.6.0 quantized/cpu/kernels/QuantizedOpKernels.cpp:1702-1706 `#ifdef CPU_CAPABILITY_AVX2` / `if (vec_width ==
    8) {` / `#else` / `if (vec_width == 16) {` / `#endif`). tree-sitter reads both heads, one block too many, and
    the rest of the file becomes one ERROR node. Not namespace heads: tree-sitter nests the second namespace in
    the first and the definitions keep the first's name, which a build that defines the tested macro compiles
    (TopKImpl.h:7-11 `#ifdef CPU_CAPABILITY` / `inline namespace CPU_CAPABILITY {` / `#else` / `inline namespace
    DEFAULT {`)."""
    if any(_NAMESPACE_WORD.search(lines[k]) for b in branches for k in b):
        return False
    opened = {sum(_braces(lines[k]) for k in b) for b in branches}
    return len(opened) == 1 and opened.pop() > 0


def _code_lines(lines: list[bytes], branch: list[int]) -> int:
    """How many of a branch's lines hold code (not blank, not only a `//` comment)."""
    return sum(1 for k in branch if lines[k].strip() and not lines[k].lstrip().startswith(b"//"))


def _braces(line: bytes) -> int:
    """How many more `{` than `}` a line opens, outside string and character literals and a `//` comment."""
    code = _without_literals(line).split(b"//", 1)[0]
    return code.count(b"{") - code.count(b"}")


def _if_group(lines: list[bytes], i: int) -> tuple[list[int], list[list[int]]] | None:
    """(the directive lines, the branches' lines) of the #if, #ifdef or #ifndef group starting at line i, when it
    has at least two branches of 1 to _BLOCK_HEAD_LINES lines each and no other directive inside; else None."""
    m = CONDITIONAL.match(lines[i])
    if m is None or m.group(1) not in (b"if", b"ifdef", b"ifndef"):
        return None
    branches: list[list[int]] = [[]]
    marks = [i]
    for j in range(i + 1, min(len(lines), i + 1 + 4 * _BLOCK_HEAD_LINES)):
        d = CONDITIONAL.match(lines[j])
        if d is None:
            if lines[j].lstrip().startswith(b"#"):
                return None  # another directive (#define, #include): not such a group
            branches[-1].append(j)
        elif d.group(1) in (b"elif", b"else"):
            branches.append([])
            marks.append(j)
        elif d.group(1) == b"endif":
            marks.append(j)
            ok = len(branches) >= 2 and all(0 < len(b) <= _BLOCK_HEAD_LINES for b in branches)
            return (marks, branches) if ok else None
        else:
            return None  # a nested #if
    return None


_LONG_RAW = re.compile(rb'R"([^()\\\s"]{16})\(')


def _short_raw_delimiters(source: bytes) -> bytes:
    """Raw strings with a 16-character delimiter: the delimiters dropped and the text blanked, lengths kept."""
    out, done = [], 0
    for m in _LONG_RAW.finditer(source):
        if m.start() < done:
            continue
        end = source.find(b")" + m.group(1) + b'"', m.end())
        if end < 0:
            continue
        close = end + len(m.group(1)) + 2  # just after the closing quote
        out += [source[done:m.start()], b'R"(', source[m.start() + 3:close - 2].translate(_BLANK), b')"']
        done = close
    return b"".join(out) + source[done:] if out else source


def _blank_define_comments(source: bytes, spans: list[tuple[int, int, int]]) -> bytes:
    """A `/* ... */` comment on a function-like #define's continuation lines is blanked (newlines kept): tree-sitter
    ends the directive at it, and parses the rest of the macro's body as the code around it (TensorTopK.cu's
    `#define RUN_K` inside launch_gather_topk_kernel cut the function short at its first comment)."""
    out = bytearray(source)
    for _name, after, end in spans:
        i = source.find(b"/*", after, end)
        while i >= 0:
            j = source.find(b"*/", i + 2, end)
            if j < 0:
                break
            out[i:j + 2] = source[i:j + 2].translate(_BLANK)
            i = source.find(b"/*", j + 2, end)
    return bytes(out)


# Objective-C's fast enumeration, `for (NSNumber* elem in shape)` (mps/OperationUtils.mm), is a C++
# parse error that costs tree-sitter the rest of the file's definitions; its `in` becomes `: ` (a range
# for, of the same length). A declaration then `in` is never C++, so no C++ loop is rewritten.
_FAST_ENUMERATION = re.compile(rb"\bfor\s*\(\s*[A-Za-z_][\w:<>]*[\s*&]+[A-Za-z_]\w*\s+(in)\s+[^;{}()]*"
                               rb"(?:\([^;{}()]*\)[^;{}()]*)*\)")


def _range_for(m: re.Match) -> bytes:
    start, end = m.span(1)
    whole = m.group(0)
    return whole[:start - m.start()] + b": " + whole[end - m.start():]


# A brace initializer of 16 KB or more holding only numbers (SobolEngineOpsUtils.cpp's 2 MB of
# direction numbers, crc_alt.h's tables) holds no facts, and as numbers it costs tree-sitter
# more than a tenth of all parsing; as one comment, of the same length, it costs next to nothing.
# A table is `{`, then 16384 or more bytes of the class, then `}`, all inside one maximal run of the
# class: the run's first `{` and its last `}`. Runs are found by mapping the class to `a` and every
# other byte to `b` and searching for 16386 `a`s: C-speed passes over the bytes, each once.
_TABLE_MIN = 16384
_TABLE_CLASS = frozenset(b" \t\n\r\x0b\x0c0123456789,xXabcdefABCDEFuUlL.+-{}")
_TABLE_MAP = bytes(0x61 if c in _TABLE_CLASS else 0x62 for c in range(256))
_TABLE_NEEDLE = b"a" * (_TABLE_MIN + 2)


def comment_out_tables(source: bytes) -> bytes:
    """Number tables (see above) turned into a comment inside their braces; offsets and lines kept."""
    if len(source) < _TABLE_MIN:
        return source
    mapped = source.translate(_TABLE_MAP)
    out: bytearray | None = None
    pos = 0
    while True:
        start = mapped.find(_TABLE_NEEDLE, pos)
        if start < 0:
            break
        end = mapped.find(b"b", start)
        pos = end = len(source) if end < 0 else end
        i = source.find(b"{", start, end)
        j = source.rfind(b"}", i + 1, end) if i >= 0 else -1
        if i < 0 or j - (i + 1) < _TABLE_MIN:
            continue
        blank = source[i + 1 : j].translate(_BLANK)
        a, b = blank.find(b"  "), blank.rfind(b"  ")
        if a < 0 or b <= a + 2:
            continue
        if out is None:
            out = bytearray(source)
        out[i + 1 : j] = blank[:a] + b"/*" + blank[a + 2 : b] + b"*/" + blank[b + 2 :]
    return source if out is None else bytes(out)


def blank_attributes(source: bytes) -> bytes:
    out: bytearray | None = None
    scanner = None
    directive_lines: dict[int, bool] = {}
    for hint, rx in _ATTRIBUTE_MACROS:
        if hint not in source:
            continue
        for m in rx.finditer(source):
            a, b = m.start(), m.end()
            if a > 0 and (source[a - 1] == 0x5F or chr(source[a - 1]).isalnum()):
                continue
            scanner = scanner or Scanner(source)
            line = scanner.line_start(a)
            if line not in directive_lines:
                directive_lines[line] = source[skip_blanks(source, line, a) : a][:1] == b"#"
            if directive_lines[line]:
                continue  # a preprocessor line
            if m.lastindex:  # takes arguments: C10_LAUNCH_BOUNDS_1(128)
                j = skip_space(source, b)
                parsed = scanner.args(j) if j < len(source) and source[j] == 0x28 else None
                if parsed is not None:
                    b = parsed[1]
            if out is None:
                out = bytearray(source)
            out[a:b] = source[a:b].translate(_BLANK)
    return source if out is None else bytes(out)


def skip_blanks(source: bytes, i: int, end: int) -> int:
    """The first offset in [i, end) that is not whitespace (end if none)."""
    while i < end and source[i] in b" \t\r\n\x0b\x0c":
        i += 1
    return i


# `[&] GPU_LAMBDA (scalar_t a) {...}`: the qualifier macro hides the lambda from tree-sitter.
_LAMBDA_QUALIFIERS = re.compile(rb"\]([ \t]*(?:GPU_LAMBDA|C10_HOST_DEVICE|C10_DEVICE|__host__|__device__)(?:\s+(?:__host__|__device__))*\b)")


def _blank_lambda_qualifier(m: re.Match[bytes]) -> bytes:
    return b"]" + m.group(1).translate(_BLANK)


# builtin type names, as tree-sitter's grammar has them (primitive_type)
_BUILTIN_TYPE = (
    rb"(?:unsigned|signed|short|long|int|char|float|double|bool|void|size_t|ssize_t|ptrdiff_t|intptr_t|uintptr_t|"
    rb"u?int(?:8|16|32|64)_t|char(?:8|16|32)_t|wchar_t|nullptr_t|max_align_t)"
)
_TYPE_ARGUMENT_HINT = re.compile(rb",\s*(?:" + _BUILTIN_TYPE + rb"\b\s*)+[,)]|\(\s*(?:" + _BUILTIN_TYPE + rb"\b\s*)+,")
_TYPE_ARGUMENT = re.compile(rb"\s*(?:" + _BUILTIN_TYPE + rb"\b\s*)+")


def _blank_type_arguments(source: bytes, spans: list[tuple[int, int, int]]) -> bytes:
    """`SMALL_INDEX(scalar_t, index_t, unsigned int, 1, 1, -2);` in a body: a
    builtin type as an argument of one of the file's own macros breaks the
    whole function for tree-sitter. Such an argument becomes `_` and blanks
    (offsets kept)."""
    if not _TYPE_ARGUMENT_HINT.search(source):
        return source
    names = {source[a : source.index(b"(", a)] for a, _, _ in spans}
    ends = [e for _, _, e in spans]
    out = None
    scanner = Scanner(source)
    for m in re.finditer(rb"\b(?:" + b"|".join(re.escape(n) for n in names) + rb")\s*\(", source):
        open_paren = m.end() - 1
        if source[m.start() - 1 : m.start()] in (b".", b">", b":"):
            continue
        k = bisect.bisect_right(ends, m.start())
        if k < len(spans) and spans[k][0] <= m.start():
            continue  # in a #define: tree-sitter does not parse it
        parsed = scanner.args(open_paren)
        if parsed is None:
            continue
        pos = open_paren + 1
        for arg in (a.encode() for a in parsed[0]):
            start = source.find(arg, pos) if arg else -1
            if start < 0:
                break
            pos = start + len(arg)
            if _TYPE_ARGUMENT.fullmatch(arg):
                if out is None:
                    out = bytearray(source)
                out[start:pos] = b"_" + b" " * (len(arg) - 1)
    return source if out is None else bytes(out)
