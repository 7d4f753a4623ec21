"""The receiver type of a member call: `x.f(...)` / `x->f(...)` where x is a parameter of the
enclosing function, a local variable (also one made by its constructor, `std::vector<int64_t> v(n);`, which
tree-sitter reads as a function declaration) or a range-for variable declared in it before the call, or a
field of the class whose body holds the call (`x_.f()`, `this->x_.f()`).

The type is the declared one without cv-qualifiers, `&`, `*` and the `at::` / `c10::` qualifiers
(template arguments kept, spaces dropped): "Tensor", "TensorIteratorBase", "Vectorized<scalar_t>",
"optional<Tensor>". The latest declaration of the name in the function before the call is the one
used (blocks are not tracked). For a chain (`x.options().dtype(...)`) it is the type of x, the
identifier the receiver starts with; the link stage follows the chain from there by return types.

A structured binding's name is the element of its place in the initializer's type, written
`decltype(std::get<N>(...))` (`auto [a0, a1] = convert_to_float<T>(a)` -> a1 is
"decltype(std::get<1>(convert_to_float<T>(a)))"); the link stage reads a tuple's, a pair's or an array's element.
An `auto` declaration takes its type from the initializer: `new T(...)`, `T{...}` and `static_cast<T>(...)`
give T, another variable its type; anything else is written `decltype(<initializer>)`, spaces dropped,
with a typed variable it starts with written `std::declval<T>()`
(`auto iter = build_iter(a)` -> "decltype(build_iter(a))", `auto o = self.options()` ->
"decltype(std::declval<Tensor>().options())"): the link stage types it from return types. A call
longer than 300 characters (a lambda among its arguments) is written with each argument `_`:
`decltype(LookUpOrCreateCachedGraph<CachedGraph>(_,_))`; a dereference `*e` as `decltype(*e)` with e written so
(`auto& a = *get();` -> "decltype(*get())"); a long chain of member calls the same way, step
by step (`decltype(TensorIteratorConfig().add_output(_).build())`). An `auto` range-for variable is an
element of its range: `for (auto& t : tensors)` -> "decltype(std::declval<TensorList>()[_])".
An arithmetic or bitwise operator expression is the call of its operator function with each operand's type as
an argument's is written (`a0 - b0` -> "decltype(operator-(std::declval<Vectorized<float>&>(),std::declval<...>()))"),
or, with built-in operands only, the usual arithmetic conversions' type ("int64_t" for `n - 1`). A member call on a
parenthesised expression (`(a0 - b0).abs()`) gets that expression's type as its receiver_type. A conditional
`c ? a : b` has its branches' type: the one branch read, or of two written differently the one that is no
standard library call's (`std::make_tuple(...)` beside `load2f(...)`). `v[0]` is an element of v's type
(`decltype(std::declval<T>()[_])`), and a name the function does not declare is written `decltype(name)` (a
field of the caller's class or a namespace's constant, which the link stage looks up).
"""

from __future__ import annotations

import bisect
import operator
import re

from .argument_types import ARITHMETIC, arithmetic_result, encoded, literal_type
from .scan import dec, nospace
from .sourcefile import SourceFile

_MEMBER = re.compile(r"(this->)?([A-Za-z_]\w*)(?:\[[^\[\]]*\])*(?:\.|->)(?!\Z)")  # the identifier a receiver starts with
_UNKNOWN_TYPES = ("placeholder_type_specifier", "decltype", "auto")
_LIBRARY_NAMESPACES = re.compile(r"(?<![\w:])(?:at|c10)::")
_CV = re.compile(r"(?<![\w:])(?:const|volatile|typename)\s+|\s+(?:const|volatile)\b")
_SPACE_AROUND = re.compile(r"\s*([<>,*&:()\[\]])\s*")

_START = operator.attrgetter("start_byte")
MEMBER_OBJECTS: dict[str, str | None] = {}  # callee as written -> the identifier before . or -> (memo across files)


def member_object(callee: str) -> str | None:
    """"x" of the callee "x.f" / "x->f" / "x.g().f" / "x[0].f", "this->x_" of "this->x_.f" (a field, never a local);
    None for other callees and for this->f."""
    got = MEMBER_OBJECTS.get(callee, "")
    if got == "":
        m = _MEMBER.match(callee)
        got = None
        if m is not None and m.group(2) != "this" and _has_receiver(callee, m.end()):
            got = (m.group(1) or "") + m.group(2)
        if len(MEMBER_OBJECTS) < 200_000:
            MEMBER_OBJECTS[callee] = got
    return got


def _has_receiver(callee: str, at: int) -> bool:
    """Whether the callee is a member call (`x.f`, `x.g(a).f`, `x.field.f`, `x.template operator()<T, F>`, which
    calls.py writes `x.operator()<T,F>`) and not a longer expression."""
    rest = callee[at:]
    return bool(re.fullmatch(r"(?:~?[A-Za-z_]\w*|operator\(\))(?:<.*>)?", rest)) or (
        ("(" in rest or "." in rest or "->" in rest) and re.search(r"(?:\.|->)~?[A-Za-z_]\w*(?:<[^()]*>)?\Z", rest) is not None
        and re.fullmatch(r"[\w:<>,.\->()\[\]*&+ ]*", rest) is not None and rest.count("(") == rest.count(")"))


def receiver_types(f: SourceFile, pending: list[tuple[int, str, int]]) -> "Declarations | None":
    """Phase (after calls): pending holds (index in f.calls, object name, offset of the call);
    each call whose object has a typed declaration in its function, or is a field of the class
    around the call, gets that receiver_type. Gives the file's declarations if it read them."""
    if not pending:
        return None
    types = Declarations(f)
    for index, name, offset in pending:
        call = f.calls[index]
        got, const = (types.field(name[6:], offset), None) if name.startswith("this->") else \
            types.receiver(name, offset, call.callee[len(name):])
        if got is not None:
            f.calls[index] = call._replace(receiver_type=got, receiver_const=const)
    return types


def parenthesized_receivers(f: SourceFile, found: list[tuple[int, object]],
                            types: "Declarations | None") -> "Declarations | None":
    """Phase (after receiver_types): found holds (index in f.calls, the callee node) of member calls on a
    parenthesised expression (`(a0 - b0).abs()`); each whose expression is typed (an operator's, a call's) gets
    that receiver_type: the link stage follows the chain from it as from a variable's type. Gives the file's
    declarations if read."""
    for index, fn in found:
        root = chain_root(fn)
        if root.type != "parenthesized_expression":
            continue
        types = types or Declarations(f)
        got = types.expression(root)
        if got is not None:
            f.calls[index] = f.calls[index]._replace(receiver_type=got)
    return types


def local_lambdas(f: SourceFile, plain: list[tuple[int, str, int]],
                  types: "Declarations | None") -> "Declarations | None":
    """Phase (after receiver_types): plain holds (index in f.calls, the name called, offset) of calls of a bare
    name; each that names a variable of the calling function initialised with a lambda (`auto get_counts =
    [&](...) {...}; get_counts(x);`) gets the lambda's line; one that names another variable of the function, a
    parameter or a local of a written type (`func_t& f` ... `f(a, b)`, `Loop loop_func;` ... `loop_func(x)`), gets
    that type as its receiver_type: the object is called through its operator(). Gives the file's declarations if
    read."""
    for index, name, offset in plain:
        if types is None:
            types = Declarations(f)
        if name.encode() not in types.names:
            continue
        if (line := types.lambda_line(name, offset)) is not None:
            f.calls[index] = f.calls[index]._replace(lambda_line=line)
        elif (typed := types.local(name, offset)) is not None and not typed.startswith("decltype(") and \
                not typed.endswith("*") and "(" not in typed:
            f.calls[index] = f.calls[index]._replace(receiver_type=typed)
    return types


def argument_types(f: SourceFile, typed: list[tuple[int, list, list[tuple[int, str, int]], list]],
                   types: "Declarations | None") -> None:
    """Phase (after receiver_types): typed holds (index in f.calls, the literal arguments' types, the
    identifier arguments as (position, name, offset), the call and member-chain arguments as (position,
    node)); each identifier declared in the calling function with a written type gets it, an `auto` one and
    an expression the `decltype(...)` text the link stage types (argument_types.py), and the call its arg_types."""
    if not typed:
        return
    for index, known, names, expressions in typed:
        if names or expressions:
            types = types or Declarations(f)
            for i, name, offset in names:
                known[i] = types.variable(name, offset)
            for i, node in expressions:
                known[i] = types.expression(node)
        value = encoded(known)
        if value is not None:
            f.calls[index] = f.calls[index]._replace(arg_types=value)


_CASTS = frozenset(("static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"))
_INIT_LIMIT = 300  # an initializer longer than this is not written out as decltype(...)
_OPERATOR_LIMIT = 1500  # the longest operator expression's text (its operands' types written in full)


class Declarations:
    """The typed declarations of one file, looked up by name before an offset (memoised per declaration)."""

    def __init__(self, f: SourceFile):
        self.f = f
        self.names: dict[bytes, list[int]] = {}
        for n in f.get("decl.name"):  # in the query's order (trees.UNORDERED): sorted below
            self.names.setdefault(n.text, []).append(n.start_byte)
        for offsets in self.names.values():
            offsets.sort()
        self.decls = sorted(f.get("decl"), key=_START)
        self.starts = [d.start_byte for d in self.decls]
        self.fields: dict[bytes, list] = {}
        for n in f.get("field.name"):
            self.fields.setdefault(n.text, []).append(n)
        self.types: dict[int, str | None] = {}
        self._pointers: set[int] | None = None  # the offsets of the names a pointer declarator declares

    def local(self, name: str, offset: int) -> str | None:
        """The written type of a variable declared in the function before offset (`*` added for a pointer
        declarator), the `decltype(...)` of an `auto` one's initializer; None for a field, an `auto` one
        whose initializer is not read, or a name not declared there."""
        at = self._latest(name, offset)
        if at is None:
            return None
        t = self.of(name, offset)
        if t is None or "auto" in t:
            return None
        if t.startswith("decltype("):
            return t
        return t + "*" if self._pointer(at) else t

    def of(self, name: str, offset: int, depth: int = 0) -> str | None:
        """The type of the variable `name` seen at offset: the latest declaration in its function, else a field."""
        at = self._latest(name, offset)
        if at is None:
            return self.field(name, offset)
        if at not in self.types:
            self.types[at] = None  # an initializer naming its own variable stops here
            self.types[at] = self._declared(at, depth)
        return self.types[at]

    def constness(self, name: str, offset: int, path: str) -> bool | None:
        """Whether the object a member call reaches from the variable `name` by `path` (`.f`, `.idesc.desc`,
        `->f`) is const: the variable's declaration says so for the variable itself and its data members
        (`const Args& args`: args.idesc is const), and for what a pointer variable points to with `->`
        (`const T* p`); None when a step is a call or a subscript, for an `auto&` or `auto&&` variable (it may
        bind a const object) and for a field of the class (its constness is the method's)."""
        steps = re.findall(r"(\.|->)(~?[A-Za-z_]\w*)", path)
        if not steps or "".join(sep + step for sep, step in steps) != path.split("<", 1)[0] or \
                any(sep == "->" for sep, _ in steps[:-1]):
            return None
        at = self._latest(name, offset)
        decl = self._decl_at(at) if at is not None else None
        if decl is None:
            return None
        pointer = self._pointer(at)
        if pointer != (steps[-1][0] == "->") or (pointer and len(steps) > 1):
            return None  # `p->f()` through a pointer only, as its only step; `x->f()` on a class is its operator->
        const = any(c.type == "type_qualifier" and c.text == b"const" for c in decl.children)
        t = decl.child_by_field_name("type")
        if t is not None and t.type in _UNKNOWN_TYPES and not const and not pointer:
            declarator = next((c for c in decl.children_by_field_name("declarator")
                               if c.start_byte <= at < c.end_byte), None)
            if declarator is not None and declarator.type in ("reference_declarator", "init_declarator") and \
                    b"&" in declarator.text.split(b"=", 1)[0]:
                return None  # auto& x = ...: const if what it binds is
        return const

    def lambda_line(self, name: str, offset: int) -> int | None:
        """The line of the lambda the variable `name` of the function around offset is initialised with, or None."""
        at = self._latest(name, offset)
        decl = self._decl_at(at) if at is not None else None
        value = _initializer(decl, at) if decl is not None and decl.type == "declaration" else None
        return value.start_point[0] + 1 if value is not None and value.type == "lambda_expression" else None

    def declared(self, name: str, offset: int) -> bool:
        """Whether the function around offset declares `name` before it (a parameter, a local)."""
        return self._latest(name, offset) is not None

    def _latest(self, name: str, offset: int) -> int | None:
        """The offset of the latest declaration of `name` before offset in the function around offset, or None."""
        got = self.names.get(name.encode())
        k = bisect.bisect_left(got, offset) - 1 if got else -1
        return got[k] if k >= 0 and got[k] >= self.f.function_start_at(offset) else None

    def _pointer(self, at: int) -> bool:
        """Whether the name declared at offset `at` is declared by a pointer declarator."""
        if self._pointers is None:
            self._pointers = {n.start_byte for n in self.f.get("decl.name") if n.parent.type == "pointer_declarator"}
        return at in self._pointers

    def receiver(self, name: str, offset: int, path: str) -> tuple[str | None, bool | None]:
        """(type, constness) of the variable `name` a member call `name` + path at offset is made on; a name the
        function does not declare, nor its class as a field, is `decltype(name)`: a namespace's variable, which the
        link stage looks up (the constants table)."""
        found = self.of(name, offset)
        if found is None and not self.declared(name, offset):
            return f"decltype({name})", None
        return found, self.constness(name, offset, path) if found is not None else None

    def _decl_at(self, at: int):
        """The innermost declaration around the name at offset `at`."""
        k = bisect.bisect_right(self.starts, at) - 1
        while k >= 0 and self.decls[k].end_byte <= at:
            k -= 1
        return self.decls[k] if k >= 0 else None

    def field(self, name: str, offset: int) -> str | None:
        """The declared type of the field `name` of the class whose body holds offset (the innermost)."""
        best = None
        for n in self.fields.get(name.encode(), ()):
            body = n.parent
            while body is not None and body.type != "field_declaration_list":
                body = body.parent
            if body is not None and body.start_byte <= offset < body.end_byte and \
                    (best is None or body.start_byte > best[0]):
                best = (body.start_byte, n)
        if best is None:
            return None
        decl = best[1].parent
        while decl is not None and decl.type != "field_declaration":
            decl = decl.parent
        t = decl.child_by_field_name("type") if decl is not None else None
        return normalised_type(t.text) if t is not None and t.type not in _UNKNOWN_TYPES else None

    def _declared(self, at: int, depth: int) -> str | None:
        decl = self._decl_at(at)
        if decl is None:
            return None
        t = decl.child_by_field_name("type")
        if t is None:
            return None
        if t.type not in _UNKNOWN_TYPES:
            return normalised_type(t.text)
        if t.type == "decltype" or depth > 3:
            return None
        if decl.type == "for_range_loop":  # `for (auto& t : tensors)`: an element of the range, `tensors[_]`
            value = decl.child_by_field_name("right")
            whole = self._typed(value, depth) if value is not None else None
            if whole is None:
                return None
            return f"decltype({_value(whole)}[_])"
        value = _initializer(decl, at)
        whole = self._typed(value, depth) if value is not None else None
        place = _binding_place(decl, at)
        if place is None or whole is None:
            return whole
        return f"decltype(std::get<{place}>({_value(whole)}))"

    def _either(self, value, depth: int) -> str | None:
        """`c ? a : b`: the type of both branches (a program that compiles converts them to one). When they are
        written differently, the one the link stage can type: not a standard library call's (`std::make_tuple(...)`
        beside `load2f(...)`, layer_norm_kernel.cpp), else the first; one branch not read gives the other's."""
        branches = [value.child_by_field_name(f) for f in ("consequence", "alternative")]
        typed = [self._typed(b, depth + 1) if b is not None else None for b in branches]
        known = [t for t in typed if t is not None]
        if len(known) < 2 or known[0] == known[1]:
            return known[0] if known else None
        return next((t for t in known if not t.startswith(("decltype(std::", "std::"))), known[0])

    def _operator(self, value, depth: int) -> str | None:
        """An arithmetic or bitwise operator expression (`a0 - b0`, `x * 2.0f`, `-v`) as the call of the operator
        function it names, `decltype(operator-(std::declval<A>(),std::declval<B>()))`, each operand's type written as a
        call's argument's is (argument_types; `_` for one not known): the link stage resolves it as it resolves the
        operator calls of calls.py and takes the type of what it calls, or the built-in result. None when no operand's
        type is known, or for another operator (a comparison, a logical one, a shift, an assignment)."""
        op = value.child_by_field_name("operator")
        operands = [value.child_by_field_name(f) for f in (("left", "right") if value.type == "binary_expression"
                                                            else ("argument",))]
        if op is None or op.type not in _OVERLOADABLE or None in operands or depth > 8:
            return None
        written = [self.operand(o, depth + 1) for o in operands]
        if all(w is None for w in written):
            return None
        if None not in written and all(w.rstrip("&") in ARITHMETIC for w in written):  # built-in operands: no call
            return arithmetic_result(op.type, [w.rstrip("&") for w in written])
        text = f"decltype(operator{op.type}({','.join(f'std::declval<{w}>()' if w else '_' for w in written)}))"
        return text if len(text) <= _OPERATOR_LIMIT else None

    def variable(self, name: str, offset: int) -> str | None:
        """The type of a name used as an argument or operand, as calls.arg_types writes it: a variable's with `&` (an
        lvalue: it never binds a `T&&` parameter), `decltype(name)` for a name the function does not declare (a
        field or a namespace's constant: the link stage looks it up); None for one declared without a known type."""
        t = self.local(name, offset)
        if t is not None:
            return t + "&"
        return None if self.declared(name, offset) else f"decltype({name})"

    def operand(self, node, depth: int = 0) -> str | None:
        """The type of an operand or argument as calls.arg_types writes it: a literal's, a variable's with `&` (an
        lvalue), `decltype(name)` for a name the function does not declare, `decltype(...)` for an expression."""
        kind = node.type
        if kind == "identifier":
            return self.variable(dec(node.text), node.start_byte)
        if kind == "qualified_identifier" and QUALIFIED_NAME.fullmatch(text := nospace(dec(node.text))):
            return f"decltype({text})"
        return literal_type(node) or self._typed(node, depth)

    def expression(self, node) -> str | None:
        """An argument that is a call or a member chain, as an `auto` variable's initializer is written
        (_typed): a cast's or new's type, else `decltype(...)` for the link stage; None when not read."""
        return self._typed(node, 0)

    def _typed(self, value, depth: int) -> str | None:
        """The type an `auto` variable gets from its initializer (see the module docstring)."""
        kind = value.type
        if kind in ("new_expression", "compound_literal_expression"):  # `new T(...)`, `T{...}`: T
            t = value.child_by_field_name("type")
            return normalised_type(t.text) if t is not None else None
        if kind == "identifier":
            name = dec(value.text)
            got = self.of(name, value.start_byte, depth + 1)
            if got is None and not self.declared(name, value.start_byte):  # a field of the caller's class or a
                return f"decltype({name})"  # namespace's constant: the link stage looks it up (as for arguments)
            return got
        if kind == "subscript_expression":  # `w_i_rzn[0]`: an element of what the subscripted expression is
            inner = value.child_by_field_name("argument")
            whole = self._typed(inner, depth + 1) if inner is not None else None
            if whole is None:
                return None
            return f"decltype({_value(whole)}[_])"
        if kind == "pointer_expression" and value.child_count == 2 and value.children[0].type == "*":
            inner = self._typed(value.children[1], depth + 1)  # `*get()`, `*ptr`: what it points to
            if inner is None:
                return None
            return f"decltype(*{_value(inner)})"
        if kind == "call_expression":
            fn = value.child_by_field_name("function")
            name = fn.child_by_field_name("name") if fn is not None and fn.type == "template_function" else None
            if name is not None and dec(name.text) in _CASTS:
                args = fn.child_by_field_name("arguments")
                return normalised_type(args.named_children[0].text.rstrip(b"*& ")) \
                    if args is not None and args.named_children else None
        if kind == "parenthesized_expression":
            inner = [c for c in value.named_children if c.type != "comment"]
            return self._typed(inner[0], depth) if len(inner) == 1 else None
        if kind in ("binary_expression", "unary_expression"):
            return self._operator(value, depth)
        if kind == "conditional_expression":
            return self._either(value, depth)
        if kind not in ("call_expression", "field_expression"):
            return None
        if value.end_byte - value.start_byte <= _INIT_LIMIT:
            text = nospace(dec(value.text))
        elif kind != "call_expression":
            return None
        else:  # a long chain of member calls as its steps with each argument `_` (a builder's .build())
            fn = value.child_by_field_name("function")
            if fn is None or fn.type != "field_expression":
                return _long_call(value)
            text = chain_steps(value, _INIT_LIMIT)
            if text is None:
                return None
        if text.startswith("("):  # `(a0 - b0).abs()`: the chain on what the parenthesised expression gives
            inner = chain_root(value)
            typed = self._typed(inner, depth + 1) if inner.type == "parenthesized_expression" else None
            written = nospace(dec(inner.text))
            if typed is None or not text.startswith(written):
                return None
            return f"decltype(std::declval<decltype({_value(typed)})>(){text[len(written):]})"
        root = _MEMBER.match(text)
        if root is not None and not root.group(1) and root.group(2) != "this":
            typed = self.of(root.group(2), value.start_byte, depth + 1)
            if typed is None:
                return None
            text = f"std::declval<{typed}>()" + text[len(root.group(2)):]
        return f"decltype({text})"


def _value(typed: str) -> str:
    """An expression of the type written `typed`: what its decltype(...) holds, else `std::declval<T>()`."""
    return typed[9:-1] if typed.startswith("decltype(") else f"std::declval<{typed}>()"


_OVERLOADABLE = frozenset("+-*/%&|^~")  # the operators whose expressions are typed as calls (_operator)
QUALIFIED_NAME = re.compile(r"(?:::)?\w+(?:::\w+)+")  # `at::kLong`, `ScalarType::Long`: written decltype(...)


def chain_root(node):
    """What a chain of member calls, fields and subscripts starts from: `(a - b)` of `(a - b).abs().neg`."""
    while True:
        if node.type == "call_expression":
            nxt = node.child_by_field_name("function")
        elif node.type in ("field_expression", "subscript_expression"):
            nxt = node.child_by_field_name("argument")
        else:
            return node
        if nxt is None:
            return node
        node = nxt


_CALLED = ("identifier", "qualified_identifier", "template_function")
_CALLED_LIMIT = 80  # the longest function name a long initializer's call is written out with


def _long_call(value) -> str | None:
    """A call too long to write out (a lambda among its arguments) as `decltype(f<T>(_,_))`: the function as
    written and each argument `_`, what typing it by the return type needs (`auto g =
    LookUpOrCreateCachedGraph<CachedGraph>(key, [&](...) {...})`); None for a call of anything but a name."""
    fn = value.child_by_field_name("function")
    args = value.child_by_field_name("arguments")
    if fn is None or args is None or fn.type not in _CALLED or fn.end_byte - fn.start_byte > _CALLED_LIMIT:
        return None
    count = sum(c.type != "comment" for c in args.named_children)
    return f"decltype({nospace(dec(fn.text))}({','.join('_' * count)}))"


def _init_declarator(decl, at: int):
    """The init_declarator of a declaration that declares the name at offset `at`, or None."""
    return next((c for c in decl.children_by_field_name("declarator")
                 if c.start_byte <= at < c.end_byte and c.type == "init_declarator"), None)


def _binding_place(decl, at: int) -> int | None:
    """The place of the name at offset `at` among a structured binding's names (`auto [a0, a1] = ...`: a1 is 1), or
    None when the name is not declared by one."""
    c = _init_declarator(decl, at)
    binding = c.child_by_field_name("declarator") if c is not None else None
    if binding is not None and binding.type == "reference_declarator":
        binding = next((n for n in binding.named_children if n.type == "structured_binding_declarator"), None)
    if binding is None or binding.type != "structured_binding_declarator":
        return None
    names = [n.start_byte for n in binding.named_children if n.type == "identifier"]
    return names.index(at) if at in names else None


def _initializer(decl, at: int):
    """The initializer of the declarator that declares the name at offset `at` (`= v`, `(v)` or `{v}`), or None."""
    c = _init_declarator(decl, at)
    value = c.child_by_field_name("value") if c is not None else None
    if value is not None and value.type in ("argument_list", "initializer_list"):
        return value.named_children[0] if value.named_child_count == 1 else None
    return value


def normalised_type(type_text: bytes) -> str | None:
    """A type as written -> the form receiver types and return types are stored in (module docstring)."""
    text = _SPACE_AROUND.sub(r"\1", " ".join(dec(type_text).split()))
    text = _CV.sub("", text)
    return _LIBRARY_NAMESPACES.sub("", text) or None


CHAIN_ROOT = 80  # the longest start of a chain chain_steps writes out (a variable, a class made in place)


def chain_steps(node, budget: int = 200) -> str | None:
    """A long chain of member calls with each argument written `_`: `TensorIteratorConfig().add_output(_)
    .add_const_input(_).build` (the link stage types it step by step, and counts each step's arguments);
    None when it is longer than budget or does not start with a name or a call of one."""
    steps: list[str] = []
    while node.type in ("field_expression", "call_expression"):
        if node.type == "call_expression":
            args = node.child_by_field_name("arguments")
            count = sum(c.type != "comment" for c in args.named_children) if args is not None else 0
            steps.append("(" + ",".join("_" * count) + ")")
            node = node.child_by_field_name("function")
        else:
            field = node.child_by_field_name("field")
            op = next((c.type for c in node.children if c.type in (".", "->")), None)
            if field is None or op is None:
                return None
            steps.append(op + dec(field.text))
            node = node.child_by_field_name("argument")
        if node is None:
            return None
    root = nospace(dec(node.text))
    if len(root) > CHAIN_ROOT or node.type not in ("identifier", "qualified_identifier", "template_function",
                                                   "this", "field_identifier"):
        return None
    text = root + "".join(reversed(steps))
    return text if len(text) <= budget else None
