"""Overloads of one name told apart by the argument types the call's text gives (calls.arg_types,
cxx/argument_types.py), the way C++ overload resolution does for the cases that can be decided here:

- a candidate is not viable when an argument of known type cannot bind its parameter: a Tensor never binds
  a built-in arithmetic type, a pointer or a list of numbers (IntArrayRef, SymIntArrayRef, std::vector<int64_t>);
  an arithmetic value, a pointer or a list of numbers never binds a Tensor (at::Tensor has no such constructor
  or conversion); a list of SymInt (SymIntArrayRef) never binds a list of integers (IntArrayRef) nor the other
  way round (only asIntArrayRefSlow / fromIntArrayRefSlow convert them); a variable (an lvalue, its type
  written `T&` in calls.arg_types) never binds an rvalue reference `T&&` that is no forwarding reference
  (add_output(const TensorBase&) and add_output(TensorBase&&)); a Tensor never binds, and is never made from,
  SymInt, Scalar, ScalarType, Layout, MemoryFormat, Device, Dimname(List), a string, or a std::vector,
  optional, ArrayRef or SmallVector of any of those or of numbers (none has a constructor from a Tensor, nor
  Tensor one from them: maybe_wrap_dim(int64_t, TensorList) for `maybe_wrap_dim(dim, self)`); a list of
  numbers never binds a number (`infer_size(a.sizes(), b.sizes())`); nothing else is ruled out (an integer binds IntArrayRef, Scalar,
  optional<int64_t> or a pointer as written `0`; a Tensor binds TensorList: each by an implicit constructor);
- the one viable candidate left, when another was ruled out, is the call's;
- with some argument types unknown, the one non-template whose parameters are the known ones exactly, when
  all viable candidates take the same type at every unknown argument;
- of two non-templates whose parameter types are the same and differ only where the argument is a call's
  prvalue result (calls.arg_types written `T&&` by the link stage: its function returns by value), one
  taking it as `T&&` and the other as `const T&`, the `T&&` one ([over.ics.rank]);
- else, with every argument's type known, the one candidate whose parameters are those types exactly (cv and
  references stripped) is the call's, when no other may match exactly too: every other one has its parameter
  types written out and different, or is a template while the exact one is not (C++ prefers the non-template).
With the checkout's classes known (ClassTypes, from resolve.py): a parameter naming a class template of the
candidate's template parameters is never deduced from an argument of another class that is none of its bases
(`const Vectorized<T>&` from a Vec2); and a candidate that takes an argument of a class of the checkout only by
converting it to another class loses to one that takes every argument exactly (`operator-(const Vec2&, const
Vec2&)` against the Vectorized<T> template for two Vectorized<float>).
Never a pick when two stay viable and none is exact. The set is what lookup found, with what a
using-declaration brings in beside a scope's own overloads (`using c10::maybe_wrap_dim;` in namespace at:
c10's and at's maybe_wrap_dim are one set there). Resolver.resolve also makes no pick for a
callee written `::f` (the global one, which lookup from the caller does not stand for), for a set with a
member that cannot take that many arguments (lookup kept every member, so the name may be no function's:
`normal(gen)` calls a local distribution object), nor one in a header the caller's file does not include
(overloads of one qualified name all defined in source files are picked among: the caller sees their
declarations). Parameters written by a macro, or a variadic one at an argument's place, leave the
candidate unknown: then nothing is picked.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Protocol

from .symbols import Symbol, _declared_name, _params, normalise_type, split_top_level, untemplated

ARITHMETIC = frozenset(("bool", "char", "signed char", "unsigned char", "wchar_t", "char16_t", "char32_t", "short",
                        "unsigned short", "int", "unsigned", "unsigned int", "long", "unsigned long", "long long",
                        "unsigned long long", "float", "double", "long double", "int8_t", "int16_t", "int32_t", "int64_t",
                        "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "ssize_t", "ptrdiff_t", "intptr_t",
                        "uintptr_t"))
# The <cstdint> types as glibc declares them for LP64 targets (Linux on x86-64 and aarch64): a template
# specialised for `int` is the one `f<int32_t>` names.
FIXED_WIDTH = {"int8_t": "signed char", "int16_t": "short", "int32_t": "int", "int64_t": "long",
               "uint8_t": "unsigned char", "uint16_t": "unsigned short", "uint32_t": "unsigned int",
               "uint64_t": "unsigned long", "std::int8_t": "signed char", "std::int16_t": "short",
               "std::int32_t": "int", "std::int64_t": "long", "std::uint8_t": "unsigned char",
               "std::uint16_t": "unsigned short", "std::uint32_t": "unsigned int", "std::uint64_t": "unsigned long",
               "unsigned": "unsigned int", "signed": "int", "long int": "long", "short int": "short"}
TENSORS = frozenset(("Tensor", "TensorBase"))
_QUALIFIERS = re.compile(r"\b(?:const|volatile|typename|struct|class)\b")
_NAMELESS = frozenset(("", "const", "volatile", "unsigned", "signed", "long", "short", "struct", "class", "typename"))
_UNKNOWN = object()  # a parameter list that cannot be read


_AROUND_PUNCTUATION = re.compile(r"\s*([*<>,:])\s*")


@functools.lru_cache(maxsize=1 << 16)
def plain_type(written: str) -> str:
    """A type compared as C++ binds arguments: no cv, no reference, no at::/c10::, one space between words
    (`const at::Tensor &` -> Tensor, `const char *` -> char*, `unsigned  long` -> unsigned long). Memoised: the
    same argument and parameter types are compared again and again."""
    text = _QUALIFIERS.sub(" ", written).replace("&", " ")
    text = _AROUND_PUNCTUATION.sub(r"\1", " ".join(text.split()))
    return normalise_type(text) if "::" in text else text


def parameter_types(signature: str) -> list[str] | None:
    """Each parameter's type, plain; None when a macro writes them or one is variadic."""
    found = _parameters(signature)
    return list(found) if found is not None else None


@functools.lru_cache(maxsize=1 << 15)
def _parameters(signature: str) -> tuple[str, ...] | None:
    """parameter_types, memoised: pick and its tie-breaks read each candidate's parameters, and an overload set
    is met again and again."""
    params = _params(signature)
    if params is None:
        return None
    out = []
    for p in params:
        if "..." in p:
            return None
        declared = _without_default(p)
        name = _declared_name(declared)
        head = declared[:len(declared) - len(name)] if name and declared.endswith(name) else declared
        out.append(plain_type(declared if head.strip() in _NAMELESS and not _named_integer(head, name) else head))
    return tuple(out)


_INTEGER_WORDS = frozenset(("unsigned", "signed", "long", "short"))
_TYPE_WORDS = frozenset(("int", "long", "short", "char", "double", "float", "bool", "unsigned", "signed", "wchar_t"))


def _named_integer(head: str, name: str) -> bool:
    """Whether `head name` is an integer type and a parameter's name (`long dtype`, `unsigned n`), not a type
    written without a name (`unsigned long`, `const Tensor&`)."""
    words = set(head.split())
    return bool(words & _INTEGER_WORDS) and words <= _INTEGER_WORDS | {"const", "volatile"} and name not in _TYPE_WORDS


def _without_default(parameter: str) -> str:
    """A parameter as declared, its default argument dropped (`bool wrap = true` -> `bool wrap`)."""
    return (split_top_level(parameter.replace("=", ",=", 1))[0] if "=" in parameter else parameter).strip()


# Lists of numbers: a Tensor makes none of them (ArrayRef<int64_t>'s constructor from a container needs its
# data() to be an int64_t*; Tensor's data() is a Tensor), and none of them makes a Tensor.
_NUMBER_LISTS = frozenset(("IntArrayRef", "SymIntArrayRef", "OptionalIntArrayRef", "OptionalSymIntArrayRef",
                           "DimVector", "SymDimVector"))
_LISTS = frozenset(("ArrayRef", "OptionalArrayRef", "SmallVector", "vector", "array", "initializer_list"))


def _number_list(t: str) -> bool:
    """Whether a plain type is a list of numbers (IntArrayRef, std::vector<int64_t>, SmallVector<SymInt, 5>)."""
    return _list_of(t) is not None


def _list_of(t: str) -> str | None:
    """What a list of numbers holds: "SymInt" (SymIntArrayRef, SymDimVector, ArrayRef<SymInt>) or "int" (any
    arithmetic element: IntArrayRef, std::vector<int64_t>); None for any other type."""
    if t in _NUMBER_LISTS:
        return "SymInt" if "Sym" in t else "int"
    head, _, rest = t.partition("<")
    if head.rsplit("::", 1)[-1] not in _LISTS or not rest.endswith(">"):
        return None
    element = split_top_level(rest[:-1])[0]
    return "SymInt" if element == "SymInt" else "int" if element in ARITHMETIC else None


# Classes of the checkout and the standard library with no constructor from a Tensor, that a Tensor has no
# conversion to, and that make no Tensor either (c10/core/SymInt.h, Scalar.h, ScalarType.h, Layout.h, ...)
_NOT_TENSORS = frozenset(("SymInt", "SymFloat", "SymBool", "Scalar", "ScalarType", "Layout", "MemoryFormat",
                          "Device", "DeviceType", "Dimname", "DimnameList", "QScheme", "std::string", "string_view",
                          "std::string_view"))
_HOLDERS = frozenset(("std::vector", "optional", "std::optional", "ArrayRef", "OptionalArrayRef", "SmallVector"))


def _never_tensor(t: str) -> bool:
    """Whether a plain type is one no Tensor binds and that binds no Tensor: an arithmetic type, a pointer, a list
    of numbers, one of _NOT_TENSORS, or a std::vector or optional of such (`std::vector<std::vector<int64_t>>`)."""
    if t in ARITHMETIC or t.endswith("*") or t == "std::nullptr_t" or t in _NOT_TENSORS or _number_list(t):
        return True
    head, _, rest = t.partition("<")
    held = split_top_level(rest[:-1]) if head in _HOLDERS and rest.endswith(">") else []
    return bool(held) and _never_tensor(held[0].strip())  # SmallVector<int64_t, 5>: its element


def _binds(arg: str, param: str) -> bool:
    """Whether an argument of the plain type arg may bind the plain parameter type param (module docstring)."""
    if arg in TENSORS:
        return not _never_tensor(param)
    if _never_tensor(arg) and param in TENSORS:
        return False
    held, wanted = _list_of(arg), _list_of(param)
    if held and param in ARITHMETIC:  # a list converts to no number (infer_size(IntArrayRef, int64_t))
        return False
    return not (held and wanted and held != wanted)  # SymIntArrayRef and IntArrayRef never convert implicitly


PARAMETER_LIKE = _PARAMETER_LIKE = re.compile(r"[A-Z]\w?|\w+_t")  # T, Op, scalar_t, accscalar_t: a template parameter, maybe the class's


def _dependent(param: str, s: Symbol) -> bool:
    """Whether a parameter type may name a template parameter: the candidate's own, or one of its class
    template's, which the definition does not list (`T`, `scalar_t` that is no standard typedef)."""
    bare = param.rstrip("*")
    if bare not in ARITHMETIC and _PARAMETER_LIKE.fullmatch(bare):
        return True
    return bool(s.template_params) and any(_word(t).search(param) for t in s.template_params)


@functools.lru_cache(maxsize=1 << 12)
def _word(name: str) -> re.Pattern[str]:
    """A template parameter's name as a whole word."""
    return re.compile(rf"\b{re.escape(name)}\b")


def _rvalue_references(signature: str) -> list[bool]:
    """For each parameter, whether it is declared an rvalue reference (`TensorBase&& output`)."""
    return [k == "&&" for k in _reference_kinds(signature)]


class ClassTypes(Protocol):
    """What the link stage knows of the checkout's classes, for arguments of class type (resolve.py)."""

    def is_class(self, plain: str) -> bool:
        """Whether a plain type names a class of the checkout (no enum, no type alias, no standard type)."""

    def bases(self, plain: str) -> set[str]:
        """The last names of the class and of all its bases."""


def _head(plain: str) -> str:
    return untemplated(plain).rsplit("::", 1)[-1]


def _deduction_fails(arg: str, param: str, s: Symbol, classes: ClassTypes) -> bool:
    """Whether a parameter naming a class template of the candidate's template parameters (`const Vectorized<T>&`)
    cannot be deduced from an argument of a class of the checkout: deduction considers no conversion, only the
    class itself and its bases ([temp.deduct.call]), so `Vec2` never gives a `Vectorized<T>`."""
    if "<" not in param or param.endswith("*") or not classes.is_class(arg):
        return False
    head = _head(param)
    if (s.template_params and head in s.template_params) or _PARAMETER_LIKE.fullmatch(head):
        return False
    return head not in classes.bases(arg)


def _converted(arg: str, param: str, classes: ClassTypes) -> bool:
    """Whether an argument of a class of the checkout reaches a parameter of another class only by a conversion (a
    constructor, a conversion function, or from a derived class to its base): never as well as an exact match."""
    return classes.is_class(arg) and classes.is_class(param) and _head(arg) != _head(param)


def _exact_beats(viable: list[Symbol], exact: list[tuple[Symbol, bool]], args: list[str | None],
                 classes: ClassTypes) -> list[Symbol]:
    """The viable candidates left once those that an exact match beats are dropped: one whose parameter takes an
    argument of a class of the checkout only by converting it to another class ranks below a candidate that takes
    every argument as it is ([over.ics.rank]: an identity conversion is better than any user-defined one or a
    derived-to-base one), whatever the rest. `operator-(const Vec2&, const Vec2&)` for two Vectorized<float>,
    beside `template <class T> operator-(const Vectorized<T>&, const Vectorized<T>&)`."""
    if not exact or None in args:
        return viable
    kept = []
    for s in viable:
        params = _parameters(s.signature)
        if any(t is s for t, _ in exact) or params is None or not any(
                not _dependent(p, s) and _converted(a, p, classes) for a, p in zip(args, params)):
            kept.append(s)
    return kept


_RULED_OUT, _INEXACT = object(), object()  # what _fits says besides an exact match's dependence


def _fits(s: Symbol, args: list[str | None], lvalues: list[bool], classes: ClassTypes | None):
    """How a candidate takes the arguments (plain types, None where unknown): _RULED_OUT (an argument cannot bind
    its parameter, a variable an rvalue reference, or a class template's parameter is not deduced from another
    class), _INEXACT (viable), or an exact match: whether one of its parameters is dependent (a bool); None when its
    parameters cannot be read."""
    params = _parameters(s.signature)
    if params is None or len(params) < len(args):
        return None
    deps = [_dependent(p, s) for p in params[:len(args)]]
    pairs = [(a, p, d) for a, p, d in zip(args, params, deps) if a is not None]
    moved = any(r and lvalue and not d for r, lvalue, d in zip(_rvalue_references(s.signature), lvalues, deps))
    if any(not d and not _binds(a, p) for a, p, d in pairs) or moved or (classes is not None and any(
            d and _deduction_fails(a, p, s, classes) for a, p, d in pairs)):
        return _RULED_OUT
    if len(pairs) == len(args) and all(dependent or a == p for a, p, dependent in pairs):
        return any(dependent for _a, _p, dependent in pairs)
    return _INEXACT


class Resolution:
    """How each candidate takes the arguments (_fits), read once: the one candidate they choose (pick) and the
    candidates left to tell apart (narrowed)."""

    def __init__(self, candidates: list[Symbol], arg_types: str, classes: ClassTypes | None = None):
        written = json.loads(arg_types)
        self.candidates, self.classes = candidates, classes
        self.args = args = [plain_type(a) if a is not None else None for a in written]
        # a variable is written `T&` (cxx/receivers.py argument_types), a call's prvalue result `T&&` (resolve.py)
        lvalues = [a is not None and a.endswith("&") and not a.endswith("&&") for a in written]
        self.rvalues = [a is not None and a.endswith("&&") for a in written]
        self.viable: list[Symbol] = []
        self.exact: list[tuple[Symbol, bool]] = []  # with whether a parameter is dependent
        self.unreadable = self.ruled_out = False
        self.forwarding = [s for s in candidates if _forwarding(s, len(args))]
        for s in candidates:
            if s in self.forwarding:  # takes any argument as it is: an exact match, dependent
                self.viable.append(s)
                self.exact.append((s, True))
                continue
            fits = _fits(s, args, lvalues, classes)
            if fits is _RULED_OUT:
                self.ruled_out = True
                continue
            self.unreadable = self.unreadable or fits is None
            self.viable.append(s)
            if fits is not None and fits is not _INEXACT:
                self.exact.append((s, fits))

    def narrowed(self) -> list[Symbol]:
        """The candidates that stay viable, without those an exact match beats (_exact_beats); all of them when a
        parameter list cannot be read or one takes forwarding references."""
        if self.unreadable or self.forwarding or self.classes is None:
            return self.candidates
        return _exact_beats(self.viable, self.exact, self.args, self.classes)

    def pick(self) -> Symbol | None:
        """The one candidate the argument types choose (module docstring), or None."""
        return _picked(self.viable, self.exact, self.args, self.rvalues, self.unreadable, self.ruled_out,
                       self.forwarding, self.classes)


def pick(candidates: list[Symbol], arg_types: str, classes: ClassTypes | None = None) -> Symbol | None:
    """The one candidate the argument types choose (module docstring), or None. With classes, a parameter
    naming a class template is not deduced from an argument of an unrelated class (_deduction_fails), and an
    exact match beats a candidate that converts an argument to another class (_exact_beats)."""
    return Resolution(candidates, arg_types, classes).pick()


def _picked(viable: list[Symbol], exact: list[tuple[Symbol, bool]], args: list[str | None], rvalues: list[bool],
            unreadable: bool, ruled_out: bool, forwarding: list[Symbol], classes: ClassTypes | None) -> Symbol | None:
    if len(viable) == 1 and ruled_out:
        return viable[0]
    if unreadable:
        return None
    if classes is not None and len(exact) == 1 and len(viable) > 1 and \
            _exact_beats(viable, exact, args, classes) == [exact[0][0]]:
        return exact[0][0]
    plain = [s for s, dependent in exact if not dependent]
    if forwarding:
        # a non-template exact match taking its arguments by value ties with `T&&` and wins as the non-template;
        # by reference it may lose (a non-const lvalue binds T& better than const T&). The forwarding template
        # is the call's when no other candidate is exact and none is a template.
        if len(plain) == 1 and plain[0].template_params is None and \
                all(k == "" for k in _reference_kinds(plain[0].signature)[:len(args)]):
            return plain[0]
        others = [s for s in viable if s not in forwarding]
        return forwarding[0] if len(forwarding) == 1 and not plain and None not in args and \
            all(s.template_params is None for s in others) else None
    if len(plain) == 1 and not (plain[0].template_params and len(exact) > 1):
        return plain[0]
    if len(viable) == 2 and any(rvalues) and (moved_to := _by_value_category(viable, len(args), rvalues)):
        return moved_to
    if not exact and None in args and (known := _exact_where_known(viable, args)) is not None:
        return known
    return _through_optional(viable, args) if not exact and None not in args else None


def _reference_kinds(signature: str) -> list[str]:
    """For each parameter: "&&" (an rvalue reference), "const&", "&" or "" (by value)."""
    out = []
    for p in _params(signature) or ():
        declared = _without_default(p)
        out.append("&&" if "&&" in declared else ("const&" if re.search(r"\bconst\b", declared) else "&")
                   if "&" in declared else "")
    return out


def _by_value_category(two: list[Symbol], n: int, rvalues: list[bool]) -> Symbol | None:
    """Of two non-template candidates whose parameters have the same types and differ only where the argument
    is a call's prvalue result, one taking it as `T&&` and the other as `const T&`: the `T&&` one, which binds
    an rvalue better ([over.ics.rank]: add_output(TensorBase&&) for `add_output(at::empty_like(self))`)."""
    if any(s.template_params is not None for s in two):
        return None
    params = [_parameters(s.signature) for s in two]
    kinds = [_reference_kinds(s.signature) for s in two]
    if any(p is None or len(p) < n for p in params) or any(len(k) < n for k in kinds) or params[0][:n] != params[1][:n]:
        return None
    better = set()
    for i in range(n):
        pair = (kinds[0][i], kinds[1][i])
        if pair[0] == pair[1]:
            continue
        if not rvalues[i] or set(pair) != {"&&", "const&"}:
            return None
        better.add(pair.index("&&"))
    return two[better.pop()] if len(better) == 1 else None


def _exact_where_known(viable: list[Symbol], args: list[str | None]) -> Symbol | None:
    """With some arguments of unknown type: the one non-template candidate whose parameters are the known
    arguments' types exactly, when at every unknown argument all the viable candidates take the same type
    (those arguments convert alike for each, so the known ones decide, as with every type known):
    `castMPSTensor(graph, tensor, dtype)` with dtype a ScalarType, of (..., MPSDataType) and (..., ScalarType)."""
    typed = [(s, _parameters(s.signature)) for s in viable]
    if len(typed) < 2 or any(s.template_params is not None or p is None or len(p) < len(args) for s, p in typed):
        return None
    for i, a in enumerate(args):
        if a is None and (len({p[i] for _s, p in typed}) != 1 or _dependent(typed[0][1][i], typed[0][0])):
            return None
    hits = [s for s, p in typed if all(a is None or (a == p[i] and not _dependent(p[i], s)) for i, a in enumerate(args))]
    return hits[0] if len(hits) == 1 else None


_FORWARDING = re.compile(r"\s*(\w+)\s*&&\s*(\.\.\.)?\s*\w*\s*")


def _forwarding(s: Symbol, n: int) -> bool:
    """Whether the candidate takes exactly the n arguments, each by a forwarding reference: a function
    template, defined in its class or outside every class (a member defined outside its class template lists
    the class's parameters, and `T&&` of those is no forwarding reference), not constrained (SFINAE may drop
    it), whose every parameter is `T&& x` of its own type parameters or a last pack `Args&&... args`
    (TensorOptions::device(Args&&... args) const)."""
    if not s.template_params or s.constrained or n == 0 or "::" in s.signature.split("(", 1)[0]:
        return False
    params = _params(s.signature)
    if not params:
        return False
    found = [_FORWARDING.fullmatch(_without_default(p)) for p in params]
    if any(m is None or s.template_params.get(m.group(1)) != "type" for m in found):
        return False
    packs = [m.group(2) is not None for m in found]
    if any(packs[:-1]):
        return False
    return len(params) == n or (packs[-1] and len(params) - 1 <= n)


def _optional_of(t: str) -> str | None:
    """What a plain optional type holds (`std::optional<ScalarType>` -> ScalarType), or None."""
    head, _, rest = t.partition("<")
    return rest[:-1] if head in ("optional", "std::optional") and rest.endswith(">") else None


def _through_optional(viable: list[Symbol], args: list[str]) -> Symbol | None:
    """The one candidate that takes each argument as its own type or as an optional of it, when every other
    candidate takes each argument the same way or as an optional of another type (`dtype(ScalarType)` of
    `dtype(optional<TypeMeta>)` and `dtype(optional<ScalarType>)`). Every argument's type is known and none
    matched a candidate exactly. An argument reaches an optional parameter only through a user-defined
    conversion (optional's converting constructor), so two such candidates that differ only there could not
    be told apart: the call would be ill-formed. The other candidate is then not viable, and the one that
    holds the argument's own type is the call's."""
    typed = [(s, _parameters(s.signature)) for s in viable]
    if any(params is None or any(_dependent(p, s) for p in params[:len(args)]) for s, params in typed):
        return None
    fits = [(s, params) for s, params in typed
            if all(p == a or _optional_of(p) == a for a, p in zip(args, params))]
    if len(fits) != 1 or len(viable) < 2:
        return None
    chosen, mine = fits[0]
    for s, params in typed:
        if s is not chosen and not all(p == m or (_optional_of(m) == a and _optional_of(p) not in (None, a))
                                       for a, p, m in zip(args, params, mine)):
            return None
    return chosen
