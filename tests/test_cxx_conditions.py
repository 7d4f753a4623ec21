"""#if expressions, evaluated three-valued (indexer/cxx/conditions.py), and how the DispatchStub
model uses them: a line under an unknown condition is kept, as if the #if were not there."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx
from tg_index.indexer.cxx.conditions import Env, evaluate
from tg_index.indexer.cxx.preprocessor import Holds, conditional_items
from tg_index.indexer.vocab import StubKind

ENV = Env({"X": 1, "FIVE": 5})


@pytest.mark.parametrize(
    "expr, expected",
    [
        # the two that eval() read as false
        ("(1u << 3) > 4", True),
        ("__cplusplus >= 201703L", None),
        # integer literals: bases, suffixes, separators
        ("0x10 == 16", True),
        ("0X1f == 31", True),
        ("010 == 8", True),
        ("0b101 == 5", True),
        ("1'000 == 1000", True),
        ("1ul + 2LL == 3", True),
        ("201703L", True),
        ("0", False),
        # unsigned arithmetic, as uintmax_t
        ("-1 < 0", True),
        ("-1 < 0u", False),
        ("0u - 1 == 18446744073709551615u", True),
        # char literals
        ("'A' == 65", True),
        ("'\\n' == 10", True),
        ("'\\x41' == 65", True),
        ("'\\0'", False),
        # defined, both spellings
        ("defined(X)", True),
        ("defined X", True),
        ("defined(Y)", False),
        ("!defined(Y)", True),
        ("defined(X) && !defined Y", True),
        # every operator
        ("~0 == -1", True),
        ("-(3) == -3 && +3 == 3", True),
        ("7 / 2 == 3 && -7 / 2 == -3 && -7 % 2 == -1 && 7 % 3 == 1", True),
        ("2 * 3 - 6", False),
        ("1 + 2 * 3 == 7", True),
        ("(1 + 2) * 3 == 9", True),
        ("16 >> 2 == 4 && 1 << 4 == 16", True),
        ("1 < 2 && 2 > 1 && 2 <= 2 && 3 >= 4", False),
        ("1 == 1 && 1 != 2", True),
        ("(6 & 3) == 2 && (6 ^ 3) == 5 && (6 | 3) == 7", True),
        ("6 & 3 == 2", False),  # == binds tighter than &: 6 & (3 == 2)
        ("0 || 0", False),
        ("0 || 2", True),
        ("1 ? 2 : 0", True),
        ("0 ? 1 : 0", False),
        ("1 ? 0 ? 1 : 0 : 1", False),
        # names: the model's values, C's 0, the compiler's unknown
        ("FIVE > 3", True),
        ("FIVE == 5 && X", True),
        ("NOT_A_MACRO", False),
        ("NOT_A_MACRO == 0", True),
        ("true && !false", True),
        ("_MSC_VER", None),
        ("__GNUC__ > 4", None),
        # a function-like macro call: its value is not the file's to know
        ("AT_MKLDNN_ENABLED()", None),
        ("__has_include(<cuda.h>)", None),
        ("FOO(1, (2))", None),
        # unknown propagates, except where C's rules decide without it
        ("__GNUC__ && 0", False),
        ("0 && __GNUC__", False),
        ("__GNUC__ || 1", True),
        ("__GNUC__ && 1", None),
        ("__GNUC__ * 0", False),
        ("!__GNUC__", None),
        ("__GNUC__ ? 1 : 1", True),
        ("__GNUC__ ? 1 : 0", None),
        ("defined(Y) && FOO(1)", False),
        ("defined(X) || FOO(1)", True),
        # what the preprocessor could not evaluate is unknown, never false
        ("1 +", None),
        ("(1", None),
        ("1)", None),
        ("", None),
        ("1.5 > 1", None),
        ("1 / 0", None),
        ("1 % 0", None),
        ('"abc"', None),
        ("1 << 64", None),
        ("1 << -1", None),
        ("defined(", None),
        ("(" * 5000 + "1" + ")" * 5000, None),  # deeper than the evaluator goes: unknown
    ],
)
def test_evaluate(expr, expected):
    assert evaluate(expr, ENV) is expected


def test_holds_keeps_both_branches_of_an_unknown_condition():
    text = (
        "#if __cplusplus >= 201703L\nA\n#else\nB\n#endif\n"
        "#if 0\nC\n#elif (1u << 3) > 4\nD\n#else\nE\n#endif\n"
        "#ifdef X\n#ifndef X\nF\n#endif\nG\n#endif\n"
    )
    holds = Holds(ENV)
    assert [(line, holds(branch)) for kind, branch, line in conditional_items(text)] == [
        ("A", None), ("B", None), ("C", False), ("D", True), ("E", False), ("F", False), ("G", True),
    ]


def test_stub_macros_keep_defines_under_conditions_eval_read_as_false():
    header = b"""
#if (1u << 3) > 4
#define DECLARE_DISPATCH(fn, name) struct name##_T : DispatchStub<fn, name##_T> {}; extern struct name##_T name;
#endif
#if __cplusplus >= 201703L
#define DEFINE_DISPATCH(name) struct name##_T name
#endif
#if 0
#define REGISTER_CUDA_DISPATCH(name, fn) static RegisterCUDADispatch<struct name##_T> name##__register(name, fn);
#endif
"""
    macros = cxx.stub_macros(header)
    assert macros.expansions("plain", "DECLARE_DISPATCH") == (cxx.StubExpansion(StubKind.DECLARE, 1, type_arg=0),)
    assert macros.expansions("plain", "DEFINE_DISPATCH") == (cxx.StubExpansion(StubKind.DEFINE, 0),)
    assert macros.expansions("cuda", "REGISTER_CUDA_DISPATCH") == ()
    facts = cxx.extract(b"DECLARE_DISPATCH(fn_t, add_stub);\nDEFINE_DISPATCH(add_stub);\n", "a.h", macros)
    assert [(s.kind, s.stub, s.fn_type, s.line) for s in facts.stubs] == [
        ("declare", "add_stub", "fn_t", 1), ("define", "add_stub", None, 2)]


def test_stub_macros_under_deeply_nested_conditions():
    depth = 5000
    header = (
        "".join(f"#if defined(HAVE_AVX2_CPU_DEFINITION) || {k}\n" for k in range(depth))
        + "#define DEFINE_DISPATCH(name) struct name##_T name\n"
        + "#endif\n" * depth
    ).encode()
    assert cxx.stub_macros(header).expansions("cpu", "DEFINE_DISPATCH") == (cxx.StubExpansion(StubKind.DEFINE, 0),)
