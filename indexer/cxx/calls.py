"""Calls: every call edge by name, and what the few special callees add (AT_DISPATCH uses,
stub calls, launch helpers, vendor library calls, m.impl / m.def / m.fallback), plus stubs
used by a name that does not say so (a device as the first argument) or passed as arguments.

Calls at namespace scope (static initialisers, TORCH_LIBRARY blocks) have `caller=None`;
stub uses are recorded only inside function bodies.
"""

from __future__ import annotations

import json

from ..vocab import StubUseHow
from .argument_types import TEMPLATE_NAME, literal_type
from .arity import argument_lists, call_argc, call_arguments
from .body_macros import chain_macros, expanded_chain
from .callees import DEVICE_ARG, MEMBER_FIELDS, WRITTEN_CALLEES, callee_info, last_component
from .definitions import in_block
from .dtypes import dtype_dispatch
from .facts import CallFact, LibraryCallFact, StubUseFact
from .launches import helper_launch
from .receivers import (QUALIFIED_NAME, argument_types, chain_steps, local_lambdas, member_object,
                        parenthesized_receivers, receiver_types)
from .scan import dec, nospace
from .sites import identifier_nodes, stub_name_spans
from .sourcefile import SourceFile
from .trees import uncommented

# A callee written as a name: kept whole up to 2,000 characters (2.6.0 sparse/cuda/SparseSemiStructuredOps.cu:638
# `spgemm_cutlass_dispatch_layouts_tensor_c<ElementInputA, ... 11 arguments>(...)`, cut at 200, named nothing).
_NAMES = frozenset(("identifier", "qualified_identifier", "template_function"))
# A long chain of member calls is written by its steps up to this many characters (2.6.0 TensorShape.cpp:664, cat's
# TensorIteratorConfig() with seven steps before .build(), is 221); a longer one (pybind11's `.def(...)` lists) is cut.
CHAIN_BUDGET = 400


def calls(f: SourceFile) -> None:
    """Phase: one CallFact per call; the few whose callee says more (an AT_DISPATCH macro, a
    stub, a launch helper, a library, m.impl ...) are looked at again through their call node."""
    wrappers = {k: d for k, d in f.local.items() if "AT_DISPATCH" in d.body}
    declared_stubs = {s.stub for s in f.stubs}
    # Names that make a callee special in this file only: its AT_DISPATCH wrappers and the stubs it declares.
    own_names = wrappers.keys() | declared_stubs
    written = WRITTEN_CALLEES.get(f.language)
    if written is None or len(written) > 200_000:
        written = WRITTEN_CALLEES[f.language] = {}
    orig, language, caller_at, out = f.orig, f.language, f.caller_at, f.calls
    pending: list[tuple[int, str, int]] = []  # member calls on a plain name: (index in out, the name, offset)
    parenthesized: list[tuple[int, object]] = []  # member calls on a parenthesised expression: (index, callee node)
    plain: list[tuple[int, str, int]] = []  # calls of a bare name (a function, or a local holding a lambda)
    lists = argument_lists(f)
    macro_roots = chain_macros(f) if f.local else frozenset()
    typed: list[tuple[int, list, list[tuple[int, str, int]], list]] = []  # calls with an argument's type to set
    for fn in f.get("call.fn"):
        fs, fe = fn.start_byte, fn.end_byte
        if fe - fs > (200 if fn.type not in _NAMES else 2000):  # a long chain (`TensorIteratorConfig().add_output(out)
            # ...`, `py::class_<...>(...).def(...)...`), not a name with long template arguments (its name would be cut)
            fld = fn.child_by_field_name("field") if fn.type == "field_expression" else None
            callee = nospace(dec(orig[fs:fe]))[:200] if fld is None else \
                chain_steps(fn, CHAIN_BUDGET) or f"(...).{dec(fld.text)}"
            info = callee_info(callee, language, wrappers, declared_stubs)
        else:
            raw = orig[fs:fe]
            info = written.get(raw)
            if info is None:
                info = written[raw] = callee_info(nospace(dec(raw)), language)
            if own_names and info[1] in own_names:
                info = callee_info(info[0], language, wrappers, declared_stubs)
        if macro_roots and fn.type == "field_expression" and (use := _macro_root(fn, macro_roots)) is not None and \
                (expanded := expanded_chain(f, info[0], use, CHAIN_BUDGET)) is not None:
            info = callee_info(expanded, language, wrappers, declared_stubs)
        line = fn.start_point[0] + 1
        caller = caller_at(fs)
        args = call_arguments(f, fn, lists)
        argc = call_argc(f, args)
        out.append(CallFact(caller, info[0], info[1], line, argc))
        if (after := fn.next_sibling) is not None and after.type == "ERROR":
            f.damaged_calls.add(len(out) - 1)
        if argc and caller is not None:
            _argument_types(args, len(out) - 1, typed)
        if caller is not None and (obj := member_object(info[0])) is not None:
            pending.append((len(out) - 1, obj, fs))
        elif caller is not None and info[0].startswith("(") and fn.type == "field_expression":
            parenthesized.append((len(out) - 1, fn))
        elif caller is not None and info[0] == info[1] and info[0].isidentifier():
            plain.append((len(out) - 1, info[0], fs))
        if info[6]:  # special
            _special_call(f, fn, info, caller, line, wrappers)
    _vexing_calls(f)
    _block_definition_calls(f)
    operators = _operator_calls(f, typed)
    declarations = receiver_types(f, pending)
    declarations = parenthesized_receivers(f, parenthesized, declarations) if parenthesized else declarations
    declarations = local_lambdas(f, plain, declarations)
    argument_types(f, typed, declarations)
    f.call_names = {index: [(i, name) for i, name, _offset in names] for index, _types, names, _ex in typed if names}
    if operators:
        _keep_class_operands(f, operators)


def _macro_root(fn, names: frozenset[str]):
    """The call that starts a chain of member calls (fn: a field expression) when it calls one of names (the
    file's own macros that may start one), else None."""
    node = fn
    while node is not None and node.type in ("field_expression", "call_expression"):
        inner = node.child_by_field_name("argument" if node.type == "field_expression" else "function")
        if node.type == "call_expression" and inner is not None and inner.type == "identifier":
            return node if dec(inner.text) in names else None
        node = inner
    return None


_EXPRESSIONS = ("call_expression", "field_expression", "compound_literal_expression", "parenthesized_expression",
                "binary_expression")  # arguments the link stage may type (receivers.py); `Ops<T>{}` is an object of
# the type it names; an arithmetic operator expression is its operator function's call


def _argument_types(args, index: int, typed: list) -> None:
    """Note the call's literal arguments' types, its identifiers, to be typed by their declarations, and its
    calls and member chains (`self.dim()`, `static_cast<int64_t>(n)`), to be written out for the link stage."""
    _operand_types(uncommented(args), index, typed)


_TEMPLATE_NAMES = ("template_function", "qualified_identifier")  # tree-sitter's nodes of a name with template arguments


def _operand_types(nodes: list, index: int, typed: list) -> None:
    """_argument_types of a list of argument nodes (a call's arguments, an operator expression's operands)."""
    types, names, expressions = [], [], []
    for i, a in enumerate(nodes):
        kind = a.type
        if kind == "identifier":
            names.append((i, dec(a.text), a.start_byte))
            types.append(None)
        elif kind in _EXPRESSIONS or (kind == "unary_expression" and literal_type(a) is None):
            expressions.append((i, a))
            types.append(None)
        elif kind == "qualified_identifier" and QUALIFIED_NAME.fullmatch(text := nospace(dec(a.text))):
            types.append(f"decltype({text})")  # `at::kLong`, `ScalarType::Long`: the link stage looks it up
        elif kind in _TEMPLATE_NAMES and TEMPLATE_NAME.fullmatch(text := nospace(dec(a.text))):
            types.append(f"decltype({text})")  # `helper<scalar_t, Op>`: a function template's specialisation named
        else:
            types.append(literal_type(a))
    if names or expressions or any(t is not None for t in types):
        typed.append((index, types, names, expressions))


# What an operand whose type is one of these cannot call: the built-in operator applies (the fixed-width and
# size types are typedefs of them). A type the extractor does not know, or one of a class, may call a function.
_BUILT_IN = frozenset(("bool", "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned",
                       "unsigned int", "long", "unsigned long", "long long", "unsigned long long", "float", "double",
                       "long double", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t",
                       "uint64_t", "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "std::nullptr_t",
                       "const char*", "char*", "auto"))


def _operator_calls(f: SourceFile, typed: list) -> list[int]:
    """An operator expression in a function body whose operands are not all literals, as the call of the operator
    function it names (`a * b` -> `operator*` with the two operands as arguments, `a += b` -> `operator+=`, `-a`
    -> `operator-` with one): C++ calls such a function when an operand is of a class type ([over.match.oper]),
    which only the operands' types tell. Their types are noted as a call's arguments' are (_argument_types);
    _keep_class_operands drops those whose operands all have built-in types. Gives their indexes in f.calls."""
    out: list[int] = []
    caller_at, calls = f.caller_at, f.calls
    for sign in f.get("call.operator"):
        node = sign.parent
        if node is None:
            continue
        caller = caller_at(node.start_byte)
        if caller is None:
            continue
        if node.type == "unary_expression":
            operands = [node.child_by_field_name("argument")]
        else:
            operands = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        if any(o is None for o in operands):
            continue
        operands = [_unparenthesized(o) for o in operands]
        if all(literal_type(o) is not None for o in operands):
            continue
        name = "operator" + dec(sign.text)
        calls.append(CallFact(caller, name, name, node.start_point[0] + 1, len(operands)))
        out.append(len(calls) - 1)
        _operand_types(operands, len(calls) - 1, typed)
    return out


def _unparenthesized(node):
    """The expression inside parentheses (`(x.sum())` -> `x.sum()`)."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _keep_class_operands(f: SourceFile, operators: list[int]) -> None:
    """Drop the operator calls (_operator_calls) none of whose operands may be of a class type: the type of each is
    built in (a literal, `int64_t n`, `double scale`) or not written at all (`(a + b) * 2`: an operator expression's
    type is nothing the extractor reads), so nothing says a function is called. An operand that is a call, a member
    chain or a name the caller does not declare (`decltype(...)`) keeps the row: the link stage types it."""
    drop = set()
    for index in operators:
        types = f.calls[index].arg_types
        known = json.loads(types) if types is not None else []
        if not any(t is not None and t.rstrip("&") not in _BUILT_IN for t in known):
            drop.add(index)
    if drop:
        kept = [i for i in range(len(f.calls)) if i not in drop]
        f.calls[:] = [f.calls[i] for i in kept]
        place = {old: new for new, old in enumerate(kept)}  # call_names is by index in calls: renumbered
        f.call_names = {place[i]: names for i, names in f.call_names.items() if i in place}


_DECLARATORS = ("function_declarator", "identifier", "call_expression")


def _vexing_calls(f: SourceFile) -> None:
    """`tmpl<T>(MACRO(T));` in a function body: the declaration tree-sitter reads is a call of the
    template (no one declares a variable through a parenthesized function declarator), with one argument."""
    for declarator in f.get("call.vexing"):
        inner = declarator.named_children[0] if declarator.named_children else None
        decl = declarator.parent
        kind = decl.child_by_field_name("type") if decl is not None else None
        if inner is None or inner.type not in _DECLARATORS or kind is None or b"<" not in kind.text:
            continue
        caller = f.caller_at(decl.start_byte)
        if caller is None:
            continue
        callee, last = callee_info(nospace(f.text(kind)), f.language)[:2]
        f.calls.append(CallFact(caller, callee, last, kind.start_point[0] + 1, 1))


def _block_definition_calls(f: SourceFile) -> None:
    """A function_definition in a block that definitions.in_block finds misread is the call of its declarator's
    name (`gpu_reduce_kernel<scalar_t, out_t, 2>`, a macro loop's name), one argument per parameter read."""
    for node in f.get("definition"):
        if not in_block(node):
            continue
        fd = node.child_by_field_name("declarator")  # in_block: a function_declarator with parameters
        name, params = fd.child_by_field_name("declarator"), fd.child_by_field_name("parameters")
        caller = f.caller_at(node.start_byte)
        if caller is None:
            continue
        callee, last = callee_info(nospace(f.text(name)), f.language)[:2]
        argc = sum(1 for c in params.named_children if c.type != "comment")
        f.calls.append(CallFact(caller, callee, last, name.start_point[0] + 1, argc))


def _special_call(f: SourceFile, fn, info: tuple, caller: str | None, line: int, wrappers) -> None:
    callee, last, dispatchy, stubby, helper, family, _special = info
    node = fn.parent
    fn_type = fn.type
    if last in MEMBER_FIELDS and fn_type == "field_expression":  # the field is the last component
        fld = fn.child_by_field_name("field")
        obj = fn.child_by_field_name("argument")
        if fld is not None and obj is not None and obj.type == "identifier" and dec(fld.text) in MEMBER_FIELDS:
            f.member_calls.append((fn.start_byte, node, nospace(f.text(obj)), dec(fld.text)))
    if dispatchy:
        d = dtype_dispatch(f, node, last, caller, line, wrappers)
        if d is not None:
            f.dtypes.append(d)
        return
    if stubby and caller is not None and (fn_type == "identifier" or fn_type == "qualified_identifier"):
        f.stub_uses.append(StubUseFact(last, caller, line, StubUseHow.CALL))
    if helper:
        args_node = node.child_by_field_name("arguments")
        launch = helper_launch(f, fn, last, args_node, caller, line) if args_node is not None else None
        if launch is not None and (fn_type != "field_expression" or launch.kernel or launch.lambda_line):
            f.launches.append(launch)  # `iter.for_each(...)` only with the lambda or functor it runs named
    if family is not None:
        f.libcalls.append(LibraryCallFact(family, callee, caller, line))


def device_stub_calls(f: SourceFile) -> None:
    """Phase: stub calls by a name that does not say so: a device as the first argument."""
    wrappers = {k: d for k, d in f.local.items() if "AT_DISPATCH" in d.body}
    declared_stubs = {s.stub for s in f.stubs}
    for first in f.get("call.device_arg"):
        node = first.parent.parent
        fn = node.child_by_field_name("function")
        _callee, last, dispatchy, stubby, _helper, _family, _special = callee_info(
            nospace(f.text(fn)), f.language, wrappers, declared_stubs)
        if dispatchy or stubby or not last[:1].islower() or first.type == "comment":
            continue
        caller = f.caller_at(node.start_byte)
        if caller is not None and DEVICE_ARG.fullmatch(nospace(f.text(first))):
            f.stub_uses.append(StubUseFact(last, caller, node.start_point[0] + 1, StubUseHow.CALL))


def stub_arguments(f: SourceFile) -> None:
    """Phase: a stub passed as an argument inside a function body."""
    for n, ancestors in identifier_nodes(f.root, stub_name_spans(f.src)):
        p = ancestors[0] if ancestors else None
        if p is not None and p.type == "qualified_identifier":
            n, p = p, (ancestors[1] if len(ancestors) > 1 else None)
        if p is None or p.type != "argument_list":
            continue
        caller = f.caller_at(n.start_byte)
        if caller is not None:
            f.stub_uses.append(StubUseFact(last_component(nospace(dec(n.text))), caller, n.start_point[0] + 1,
                                           StubUseHow.ARGUMENT))
