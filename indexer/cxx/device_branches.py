"""Device branches: the lines of a function body that run only for some devices.

A kernel shared by several dispatch keys often picks its path by the tensors' device:
`if (self.device().type() == at::kMPS || src.device().type() == at::kMPS) return mps_copy_(...);`
(Copy.cpp's copy_impl), `if (self.is_cuda()) {...} else {...}`. A C++ reader walking the chain
for one key follows only the branch that key's tensors take. This phase finds every `if` whose
condition tests a device, and writes, for its then-branch, its else-branch, and (when the
then-branch always returns or throws and there is no else) the statements after it, the lines
they span and the devices on which they never run.

A condition is evaluated three-valued once per device D of DEVICES, assuming every tensor (and
every device value) it tests is on D, the device of the key the chain is walked for:
`x.is_D()` / `x.device().is_D()` and `<device-ish> == kD` / `DeviceType::D` (`!=` negated) are
true exactly on D; `!`, `&&`, `||` and parentheses combine as C++ does; anything else is
unknown, so `is_mps() && n > 0` rules out the then-branch on every device but MPS and rules
nothing out for its else-branch. A device-ish side is a call whose text names a device or ends
in `.type()` (`self.device().type()`, `iter.device_type(1)`), or a variable named like one.
A CPU scalar tensor in a CUDA kernel's `if (other.is_cpu())` is the assumption's known miss:
the walk says which calls it did not follow, and why. Where a condition holds only if two tensors are both
on a device other than the CPU (`dst_device.is_cuda() && src_device.is_cuda()`), it is unknown there: the
dispatcher picks the key of one argument's device, and a copy between CPU and CUDA runs CUDA's kernel.

A layout test (`x.is_quantized()`, `is_sparse()`, `is_sparse_csr()`, `is_nested()`, `is_mkldnn()`,
`at::sparse_csr::is_sparse_compressed(x)`, and a comparison of `x.layout()` with a layout constant: `== kStrided` is
true, `== kSparseCsr` false) is false for the tensors of a dense key (CPU, CUDA, MPS: the dispatcher sends a
quantized or sparse argument to its own key), and unknown under any other key, whose tensors mix layouts
(`self.is_quantized() && !src.is_quantized()` is copy_'s float-to-quantized branch). So a branch is
evaluated twice per device: as above, giving the label D; and with layout tests false, giving
`Dense` + D (`DenseCUDA`) where only that evaluation rules D out. A dense key's walk honours both.
"""

from __future__ import annotations

import re

from ..vocab import BRANCH_DEVICES, DENSE
from .definitions import parameter_defaults, parameter_names
from .facts import DeviceBranchFact
from .scan import dec
from .scopes import function_declarator
from .sourcefile import SourceFile
from .trees import uncommented

DEVICES = BRANCH_DEVICES
# The devices a walk never asks about have tests too: on every device of DEVICES they are false
# (Dropout.cpp:13's `input.is_privateuseone()`).
_OTHERS = {"is_privateuseone": "PrivateUse1", "is_ipu": "IPU", "is_ve": "VE", "is_maia": "MAIA"}
_BY_METHOD = {**{f"is_{d.lower()}": d for d in DEVICES}, **_OTHERS}
_OTHER_DEVICES = re.compile(rb"\b(?:" + b"|".join(k.encode() for k in _OTHERS) + rb")\s*\(")
LAYOUT_TESTS = frozenset(("is_quantized", "is_sparse", "is_sparse_csr", "is_nested", "is_mkldnn"))
_CONSTANT = re.compile(r"(?:(?:at|c10)::)*(?:k(\w+)|(?:DeviceType::)(\w+))$")
# A layout constant (c10/core/Layout.h), and the tests of a layout: `x.layout()` (a tensor's or its options'; a
# variable holding a layout may be a conversion's target, `layout_to == kSparse`), is_sparse_compressed(x) of a tensor.
_LAYOUT = re.compile(r"(?:(?:at|c10)::)*(?:k|Layout::)(Strided|Sparse|SparseCsr|SparseCsc|SparseBsr|SparseBsc|Mkldnn|"
                     r"Jagged)$")
_LAYOUT_OF = re.compile(r"(?:\.|->)layout\(\)$")
LAYOUT_FUNCTIONS = frozenset(("is_sparse_compressed",))
_SEARCH = re.compile(rb"\bis_(?:" + b"|".join(d.lower().encode() for d in DEVICES) + rb"|quantized|sparse|sparse_csr|nested|mkldnn)\s*\(\s*\)|\b(?:k|DeviceType::)(?:"
                     + b"|".join(d.encode() for d in DEVICES) + rb")\b|"
                     rb"\b(?:k|Layout::)(?:Strided|Sparse\w*|Mkldnn|Jagged)\b|\bis_sparse_compressed\s*\(")
_DEVICEISH = re.compile(r"device|\.type\(\)$|->type\(\)$", re.IGNORECASE)
_STOP = frozenset(("compound_statement", "expression_statement", "declaration", "return_statement",
                   "function_definition", "translation_unit", "lambda_expression", "field_declaration_list"))
_EXITS = frozenset(("return_statement", "throw_statement"))
CONDITION_CAP = 200  # the characters of a condition kept as written

Truth = bool | None


def device_branches(f: SourceFile) -> None:
    """Phase: a DeviceBranchFact per branch of an `if` that tests a device and rules some device out."""
    seen: set[int] = set()
    found = [(m.start(), m.end()) for m in _SEARCH.finditer(f.src)]
    # a predicate returns a device test: a file with none that _SEARCH or _OTHER_DEVICES finds has none
    preds = _predicates(f) if found or _OTHER_DEVICES.search(f.src) else {}
    if preds:  # an `if` whose condition calls one of them tests a device too
        found += [(m.start(), m.end()) for m in re.finditer(
            rb"\b(?:" + b"|".join(re.escape(k.encode()) for k in preds) + rb")\s*\(", f.src)]
        found.sort()
    for start, end in found:
        node = _if_of(f.root.descendant_for_byte_range(start, end), start)
        if node is None or node.start_byte in seen:
            continue
        seen.add(node.start_byte)
        cond = node.child_by_field_name("condition")
        expr = cond.named_children[-1] if cond is not None and cond.named_children else None
        if expr is None:
            continue
        truth = {d: _one_device(expr, d, _truth(expr, d, False, preds)) for d in DEVICES}
        for d in DEVICES:  # where layout tests decide what the device tests alone leave open
            if truth[d] is None and (dense := _one_device(expr, d, _truth(expr, d, True, preds))) is not None:
                truth[DENSE + d] = dense
        if all(t is None for t in truth.values()):
            continue
        text = " ".join(dec(f.orig[cond.start_byte:cond.end_byte]).split())[:CONDITION_CAP]
        line = node.start_point[0] + 1
        by_default = _defaulted_parameter(node, expr, preds)
        then, other = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        _add(f, then, [d for d, t in truth.items() if t is False], line, "then", text, by_default)
        if other is not None:
            inner = other.named_children[-1] if other.type == "else_clause" and other.named_children else other
            _add(f, inner, [d for d, t in truth.items() if t is True], line, "else", text, by_default)
        elif then is not None and _exits(then):
            _add_after(f, node, [d for d, t in truth.items() if t is True], line, text, by_default)


def _predicates(f: SourceFile) -> dict[str, object]:
    """The file's functions that return a device test and nothing else, by name: `bool name(...) { return EXPR; }`
    with EXPR a test _truth reads (2.6.0 Dropout.cpp:12, `is_fused_kernel_acceptable(input, p)` returns
    `(input.is_cuda() || input.is_xpu() || input.is_lazy() || input.is_privateuseone()) && p > 0 && ...`) -> EXPR. A
    condition that calls one is read with EXPR in its place; a name defined twice in the file is none."""
    if b"return" not in f.src or b"bool" not in f.src:
        return {}
    found: dict[str, object] = {}
    twice: set[str] = set()
    for node in f.get("definition"):
        kind, body = node.child_by_field_name("type"), node.child_by_field_name("body")
        if kind is None or body is None or dec(kind.text) != "bool":
            continue
        fd = function_declarator(node.child_by_field_name("declarator"))
        head = fd.child_by_field_name("declarator") if fd is not None else None
        stmts = uncommented(body)
        if head is None or head.type != "identifier" or len(stmts) != 1 or stmts[0].type != "return_statement" or \
                not stmts[0].named_children:
            continue
        name = dec(head.text)
        if name in found:
            twice.add(name)
        found[name] = stmts[0].named_children[0]
    return {k: e for k, e in found.items()
            if k not in twice and any(_truth(e, d, False) is not None for d in DEVICES)}


def _defaulted_parameter(node, expr, preds: dict | None = None) -> tuple[int, str] | None:
    """(position, device) when everything the condition tests is one parameter of the function around the `if`
    whose default value is a device constant (2.6.0 ScalarOps.h:35, `if (device == at::kCPU)` in
    `scalar_to_tensor(const Scalar& s, const Device device = at::kCPU)`): a call that leaves it to its default
    decides the branch, not the key's device. None otherwise."""
    tested = _tested(expr, preds or {})
    if len(tested) != 1:
        return None
    fn = node.parent
    while fn is not None and fn.type not in ("function_definition", "lambda_expression"):
        fn = fn.parent
    if fn is None or fn.type != "function_definition":
        return None
    fd = function_declarator(fn.child_by_field_name("declarator"))
    if fd is None:
        return None
    names = parameter_names(fd)
    [name] = tested
    if name not in names:
        return None
    place = names.index(name)
    default = parameter_defaults(fd).get(place)
    m = _CONSTANT.match(default or "")
    device = m and (m.group(1) or m.group(2))
    return (place, device) if device in DEVICES else None


def _tested(node, preds: dict) -> set[str]:
    """What the device tests of a condition test, as _object writes it (`device`, `self`); a name that is no device
    test's (`n > 0`) is not counted."""
    kind = node.type
    if kind in ("parenthesized_expression", "condition_clause"):
        return _tested(node.named_children[-1], preds) if node.named_children else set()
    if kind == "unary_expression":
        arg = node.child_by_field_name("argument")
        return _tested(arg, preds) if arg is not None else set()
    if kind == "call_expression":
        if _device_test(node, DEVICES[0], False) is None:
            return {"(predicate)"} if _predicate(node, preds) is not None else set()
        fn = node.child_by_field_name("function")
        return {_object(fn.child_by_field_name("argument"))} if fn is not None and fn.type == "field_expression" \
            else {"(layout)"}
    if (parts := _binary(node)) is None:
        return set()
    op, left, right = parts
    if op in ("&&", "||"):
        return _tested(left, preds) | _tested(right, preds)
    if op in ("==", "!="):
        for constant, other in ((left, right), (right, left)):
            if _compared(constant, other, DEVICES[0]) is not None:
                return {_object(other)}
            if _layout_compared(constant, other) is not None:
                return {"(layout)"}
    return set()


def _if_of(node, offset: int):
    """The if_statement whose condition holds `offset`, going up from its innermost node; None: not in one."""
    while node is not None and node.type not in _STOP:
        if node.type == "if_statement":
            cond = node.child_by_field_name("condition")
            return node if cond is not None and cond.start_byte <= offset < cond.end_byte else None
        node = node.parent
    return None


def _truth(node, device: str, dense: bool, preds: dict | None = None) -> Truth:
    """The condition's value when everything it tests is on `device` (and, if `dense`, is a dense tensor):
    True, False, or None (unknown). preds: the file's predicates (_predicates), a call of which is its expression."""
    kind = node.type
    if kind in ("parenthesized_expression", "condition_clause"):
        return _truth(node.named_children[-1], device, dense, preds) if node.named_children else None
    if kind == "unary_expression":
        op = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if op is None or arg is None or op.type != "!":
            return None
        value = _truth(arg, device, dense, preds)
        return None if value is None else not value
    if kind == "call_expression":
        value = _device_test(node, device, dense)
        if value is None and (expr := _predicate(node, preds)) is not None:
            return _truth(expr, device, dense)  # a predicate's own calls of predicates are not read
        return value
    if (parts := _binary(node)) is None:
        return None
    op, left, right = parts
    if op in ("&&", "||"):
        a, b = _truth(left, device, dense, preds), _truth(right, device, dense, preds)
        if op == "&&":
            return False if a is False or b is False else (True if a and b else None)
        return True if a is True or b is True else (False if a is False and b is False else None)
    if op in ("==", "!="):
        value = _compared(left, right, device)
        if value is None:
            value = _compared(right, left, device)
        if value is None and dense:
            value = _layout_compared(left, right)
            if value is None:
                value = _layout_compared(right, left)
        return None if value is None else (value if op == "==" else not value)
    return None


def _predicate(call, preds: dict | None):
    """The expression a call of one of the file's predicates returns (_predicates), else None."""
    if not preds:
        return None
    fn = call.child_by_field_name("function")
    return preds.get(dec(fn.text)) if fn is not None and fn.type == "identifier" else None


def _binary(node) -> tuple[str, object, object] | None:
    """A binary expression's operator and operands; None for any other node, or one tree-sitter left incomplete."""
    if node.type != "binary_expression":
        return None
    op = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    return None if op is None or left is None or right is None else (op.type, left, right)


def _one_device(expr, device: str, value: Truth) -> Truth:
    """The condition's value on `device`, unknown where it holds only if two tensors (or device values) are both on
    that device and it is not the CPU: the dispatcher picks a key of one argument's device, so the others may be on
    the CPU (a copy between CPU and CUDA runs CUDA's kernel: 2.6.0 cuda/Copy.cu:357 `dst_device.is_cuda() &&
    src_device.is_cuda()` is false for it). A CPU key's tensors are all on the CPU."""
    if value is not True or device == "CPU":
        return value
    return None if len(_required(expr, device)) > 1 else value


def _required(node, device: str) -> frozenset[str]:
    """The objects (as written: `self`, `iter.device_type(1)`) the condition requires on `device` to be true there:
    the tested object of a device test of that device; both sides' for `&&`, those every true side requires for
    `||`; none under `!` (a test negated holds off the device too)."""
    kind = node.type
    if kind in ("parenthesized_expression", "condition_clause"):
        return _required(node.named_children[-1], device) if node.named_children else frozenset()
    if kind == "call_expression":
        if _device_test(node, device, False) is not True:
            return frozenset()
        return frozenset((_object(node.child_by_field_name("function").child_by_field_name("argument")),))
    if (parts := _binary(node)) is None:
        return frozenset()
    op, left, right = parts
    if op == "&&":
        return _required(left, device) | _required(right, device)
    if op == "||":
        sides = [_required(n, device) for n in (left, right) if _truth(n, device, False) is True]
        return frozenset.intersection(*sides) if sides else frozenset()
    if op == "==":
        for constant, other in ((left, right), (right, left)):
            if _compared(constant, other, device) is True:
                return frozenset((_object(other),))
    return frozenset()


def _object(node) -> str:
    """What a device test tests, as written: `self.device().type()` and `self.device()` are `self`."""
    text = "".join(dec(node.text).split()) if node is not None else ""
    for suffix in (".type()", "->type()", ".device()", "->device()"):
        text = text.removesuffix(suffix)
    return text


def _device_test(call, device: str, dense: bool) -> Truth:
    """`x.is_mps()`, `x.device().is_cuda()`: True on that device, False on the others; a layout test
    (`x.is_quantized()`): False for dense tensors, else unknown; None: no such test."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is not None and fn.type in ("identifier", "qualified_identifier") and args is not None and \
            args.named_child_count == 1 and dec(fn.text).rsplit("::", 1)[-1] in LAYOUT_FUNCTIONS:
        tested = "".join(dec(args.named_children[0].text).split())
        return False if dense and (_LAYOUT_OF.search(tested) or "layout" not in tested.lower()) else None
    if fn is None or fn.type != "field_expression" or args is None or args.named_child_count:
        return None
    field = fn.child_by_field_name("field")
    name = dec(field.text) if field is not None else ""
    if name in LAYOUT_TESTS:
        return False if dense else None
    tested = _BY_METHOD.get(name)
    return None if tested is None else tested == device


def _compared(constant, other, device: str) -> Truth:
    """`kMPS == <device-ish>`: True on MPS, False elsewhere; None when the sides are not that."""
    m = _CONSTANT.match(dec(constant.text).replace(" ", ""))
    if m is None:
        return None
    tested = m.group(1) or m.group(2)
    if tested not in DEVICES or not _DEVICEISH.search(dec(other.text).replace(" ", "")):
        return None
    return tested == device


def _layout_compared(constant, other) -> Truth:
    """`x.layout() == kStrided` for a dense key's tensors: True for kStrided, False for another layout; None when the
    sides are not that (the dispatcher sends a sparse, mkldnn or jagged tensor to its own key, and a factory's
    options' layout picks the key too)."""
    m = _LAYOUT.match(dec(constant.text).replace(" ", ""))
    if m is None or not _LAYOUT_OF.search("".join(dec(other.text).split())):
        return None
    return m.group(1) == "Strided"


def _exits(stmt) -> bool:
    """The statement always leaves the function: a return or throw, a block that ends with one, or an `if` with an
    else whose branches all do (1.13.1 ScalarOps.h:38-47, `if (s.isFloatingPoint()) return ...; else if ... else
    {...; return ...;}`)."""
    if stmt.type in _EXITS:
        return True
    if stmt.type == "compound_statement":
        body = uncommented(stmt)
        return bool(body) and _exits(body[-1])
    if stmt.type == "if_statement":
        then, other = stmt.child_by_field_name("consequence"), stmt.child_by_field_name("alternative")
        if then is None or other is None or not _exits(then):
            return False
        inner = other.named_children[-1] if other.type == "else_clause" and other.named_children else other
        return _exits(inner)
    return False


def _span(stmt) -> tuple[int, int] | None:
    """The lines a branch's statements are written on (a block: its statements, not its braces)."""
    if stmt.type == "compound_statement":
        body = uncommented(stmt)
        if not body:
            return None
        return body[0].start_point[0] + 1, body[-1].end_point[0] + 1
    return stmt.start_point[0] + 1, stmt.end_point[0] + 1


def _add(f: SourceFile, stmt, not_on: list[str], line: int, branch: str, text: str,
         by_default: tuple[int, str] | None = None) -> None:
    span = _span(stmt) if stmt is not None and not_on else None
    if span is not None:
        f.device_branches.append(DeviceBranchFact(span[0], span[1], ",".join(not_on), line, branch, text,
                                                  *(by_default or (None, None))))


def _add_after(f: SourceFile, node, not_on: list[str], line: int, text: str,
               by_default: tuple[int, str] | None = None) -> None:
    """The lines after an `if` that returns, to the end of the block it is in (an `#ifdef` around the `if` is
    looked through): they run only when its condition is false."""
    block = node.parent
    while block is not None and block.type.startswith("preproc_"):
        block = block.parent
    if block is None or block.type != "compound_statement" or not not_on:
        return
    body = uncommented(block)
    first, last = node.end_point[0] + 2, body[-1].end_point[0] + 1 if body else 0
    if first <= last:
        f.device_branches.append(DeviceBranchFact(first, last, ",".join(not_on), line, "after", text,
                                                  *(by_default or (None, None))))
