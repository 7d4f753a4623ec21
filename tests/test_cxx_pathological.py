"""Hostile C++ text: every pass is linear, so each of these gives its facts (asserted here) in
about the time of its parse. Times are not asserted; tests/bench.py and the report measure them.
The facts before the junk are what a well-formed file would give."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx
from tg_index.indexer.cxx.prepare import comment_out_tables, prepare
from tg_index.indexer.cxx.scan import Scanner, balanced_args, skip_literal, strip_comments

HEAD = b"namespace at {\nvoid before(int x) { helper(x); }\n}\n"
BEFORE = [("at::before", 2, 2)]
BEFORE_CALLS = [("at::before", "helper", 2)]


def summary(f: cxx.CxxFacts) -> tuple:
    assert f.failure is None
    return ([(d.qualified_name, d.line, d.end_line) for d in f.definitions],
            [(c.caller, c.callee, c.line) for c in f.calls], f.parse_errors)


@pytest.mark.parametrize("path", ["aten/src/ATen/native/a.cpp", "aten/src/ATen/native/cuda/a.cu"])
@pytest.mark.parametrize(
    "junk, errors",
    [
        (b"{" * 100_000, 1),
        (b"(" * 100_000, 1),
        (b"[" * 100_000, 1),
        (b"<" * 100_000, 1),
        (b'"' * 100_001, 1),  # unbalanced: the last string never closes
        (b"1234567890," * 100_000, 1),  # a 1.1 MB line of digits and commas, no braces
        (b"/*" * 50_000, 3),  # one comment that never closes
        (b'R"(' * 50_000, 1),  # one raw string that never closes
        (b"x_stub(" * 20_000, 1),
        (b"REGISTER_DISPATCH(" * 10_000, 1),
        (b"TORCH_LIBRARY_IMPL(" * 10_000, 1),
    ],
)
def test_junk_after_a_definition(junk, errors, path):
    assert summary(cxx.extract(HEAD + junk, path)) == (BEFORE, BEFORE_CALLS, errors)


def test_structured_macro_sites_without_bodies():
    f = cxx.extract(HEAD + b"TORCH_IMPL_FUNC(x)" * 20_000, "a.cpp")
    defs, calls, _errors = summary(f)
    assert (defs, calls[:1], set(calls[1:]), len(calls)) == (BEFORE, BEFORE_CALLS, {(None, "TORCH_IMPL_FUNC", 4)}, 20_001)


def test_a_megabyte_number_table_on_one_line():
    src = HEAD + b"static const int table[] = {" + b"1234567," * 131_072 + b"};\nint after() { return helper2(); }\n"
    assert len(src) > 1_000_000
    assert summary(cxx.extract(src, "a.cpp")) == (BEFORE + [("after", 5, 5)], BEFORE_CALLS + [("after", "helper2", 5)], 0)


def test_deeply_nested_if():
    depth = 10_000
    src = HEAD + b"".join(b"#if A%d\n" % k for k in range(depth)) + b"void inner() { g(); }\n" + b"#endif\n" * depth
    assert summary(cxx.extract(src, "a.cpp")) == (BEFORE + [("inner", 4 + depth, 4 + depth)],
                                                  BEFORE_CALLS + [("inner", "g", 4 + depth)], 0)


def test_deeply_nested_namespaces():
    depth = 5_000
    src = b"namespace a {\n" * depth + b"void inner() { g(); }\n" + b"}\n" * depth
    name = "::".join(["a"] * depth) + "::inner"
    assert summary(cxx.extract(src, "a.cpp")) == ([(name, depth + 1, depth + 1)], [(name, "g", depth + 1)], 0)


def test_a_define_continued_over_fifty_thousand_lines_is_one_define():
    src = HEAD + b"#define X(a) \\\n" * 50_000 + b"\nvoid after() {}\n"
    assert summary(cxx.extract(src, "a.cpp")) == (BEFORE + [("after", 50_005, 50_005)], BEFORE_CALLS, 0)


def test_many_launches_in_a_define_and_chevrons_without_an_end():
    body = b"k<<<g, b>>>(x); " * 20_000
    f = cxx.extract(HEAD + b"#define L(k) " + body + b"\n", "a.cu")
    assert len(f.launches) == 20_000
    assert {(x.kind, x.kernel, x.config, x.macro, x.line) for x in f.launches} == {
        ("triple_chevron", "k", ("g", "b"), "L", 4)}
    f = cxx.extract(HEAD + b"#define L(k) " + b"k<<<" * 25_000 + b"g, b>>>(x);\n", "a.cu")
    assert [(x.kernel, x.config) for x in f.launches] == [("k", ("g", "b"))]  # only the last `<<<` has a config


def test_scanner_literals():
    src = b'a = "x(y"; b = \'(\'; c = R"d(")d"; // ( \n/* ( */ f(1, 2\'000, "a,b", g(3, 4)) + 1\'0;'
    s = Scanner(src)
    open_f = src.index(b"f(") + 1
    assert s.args(open_f) == (["1", "2'000", '"a,b"', "g(3, 4)"], src.index(b") + 1") + 1)
    assert s.args(open_f) == balanced_args(src, open_f)
    assert s.in_literal(src.index(b"x(y")) and s.in_literal(src.index(b"d(")) and s.in_literal(src.index(b"( */"))
    assert not s.in_literal(src.index(b"f(")) and not s.in_literal(src.index(b"2'000"))
    assert skip_literal(b'R"(never closed', 1) == len(b'R"(never closed')
    assert skip_literal(b'"open\nnext', 0) == 6
    assert strip_comments("a /* x\ny */ b // c\nd") == "a \n b  \nd"


def test_scanner_bodies_and_preprocessor_lines():
    src = b"#define M { \\\n }\nint f() ; int g() { if (x) { '}'; } }\n#if 1\n"
    s = Scanner(src)
    assert s.body_end(src.index(b"int f")) is None  # a ';' comes before the next '{'
    assert s.body_end(src.index(b"int g")) == src.index(b"}\n#if") + 1
    assert s.in_directive(src.index(b" }\nint")) and s.in_directive(src.index(b"1\n"))
    assert not s.in_directive(src.index(b"int g"))


def test_two_number_tables_and_a_short_one():
    row = b"0x1f, 2, 3,\n" * 2_000
    src = b"int a[] = {" + row + b"};\nint f();\nint b[] = {" + row + b"};\nint c[] = {1, 2};\n"
    out = comment_out_tables(src)
    assert len(out) == len(src) and out.count(b"\n") == src.count(b"\n")
    assert out.count(b"/*") == 2 and out.count(b"*/") == 2
    assert out.index(b"/*") > out.index(b"{") and b"int f();" in out and out.endswith(b"int c[] = {1, 2};\n")


@pytest.mark.parametrize("loop, prepared", [
    (b"for (NSNumber* elem in shape) {", b"for (NSNumber* elem :  shape) {"),
    (b"for (MPSGraphTensor* t in getTensors(a, b)) {", b"for (MPSGraphTensor* t :  getTensors(a, b)) {"),
    (b"for (int in = 0; in < n; in++) {", b"for (int in = 0; in < n; in++) {"),  # a C++ loop over a variable `in`
    (b"for (auto x : in) {", b"for (auto x : in) {"),
])
def test_objective_c_fast_enumeration_is_read_as_a_range_for(loop, prepared):
    assert prepare(loop)[0] == prepared


def test_definitions_after_a_fast_enumeration_are_found():
    src = (b"std::string shape_string(MPSShape* shape) {\n  std::string str;\n  for (NSNumber* elem in shape) {\n"
           b"    str += std::to_string(elem.unsignedLongValue);\n  }\n  return str;\n}\n"
           b"Tensor after(const Tensor& self) {\n  return helper(self);\n}\n")
    facts = cxx.extract(src, "aten/src/ATen/native/mps/X.mm")
    assert [(d.name, d.line) for d in facts.definitions] == [("shape_string", 1), ("after", 8)]
    assert facts.parse_errors == 0


def test_a_comment_in_a_define_inside_a_body_does_not_end_the_function():
    # TensorTopK.cu's launch_gather_topk_kernel: tree-sitter ended `#define RUN_K` at its first `/* */`,
    # parsed the rest of the macro as statements and closed the function before its last lines
    src = (b"void launch(int n) {\n"
           b"#define RUN_K(T)          \\\n"
           b"  go<T>(n,                 \\\n"
           b"      /* the count */      \\\n"
           b"      n);\n"
           b"  RUN_K(int);\n"
           b"  after(n);\n"
           b"}\n"
           b"void next() {}\n")
    prepared = prepare(src)[0]
    assert len(prepared) == len(src) and prepared.count(b"\n") == src.count(b"\n")
    assert b"/* the count */" not in prepared and b"go<T>(n," in prepared
    facts = cxx.extract(src, "aten/src/ATen/native/cuda/X.cu")
    assert [(d.name, d.line, d.end_line) for d in facts.definitions] == [("launch", 1, 8), ("next", 9, 9)]
    assert ("after", 7, "launch") in {(c.callee, c.line, c.caller) for c in facts.calls}
    assert ("go<int>", 6, "launch") in {(c.callee, c.line, c.caller) for c in facts.calls}


def test_a_nested_objective_c_message_in_an_argument_is_no_attribute():
    # OperationUtils.mm:302: `[[` read as a C++ attribute that never closes lost the file's next definitions
    src = (b"std::string key(const Tensor& t) {\n"
           b"  return std::string([[getMPSShape(t) valueForKey:@\"description\"] componentsJoinedByString:@\",\"].UTF8String);\n"
           b"}\n"
           b"MPSShape* getMPSShape(const Tensor& t) {\n  return shape(t);\n}\n"
           b"[[maybe_unused]] static int unused() { return 0; }\n")
    prepared = prepare(src)[0]
    # the messages are comma expressions (cxx/objc.py), the attribute stays
    assert b'std::string(((getMPSShape(t),valueForKey, "description"),componentsJoinedByString, ",").UTF8String)' in prepared
    assert b"[[maybe_unused]]" in prepared and len(prepared) == len(src)
    facts = cxx.extract(src, "aten/src/ATen/native/mps/X.mm")
    assert [(d.name, d.line) for d in facts.definitions] == [("key", 1), ("getMPSShape", 4), ("unused", 7)]


@pytest.mark.parametrize("delimiter", [b"PT_METAL_SHADERS", b"ABCDEFGHIJKLMNO"])
def test_a_raw_string_with_the_longest_delimiter_ends(delimiter):
    # native/metal/MetalShaders.h:4 R"PT_METAL_SHADERS(...)PT_METAL_SHADERS": 16 characters, the most C++
    # allows; tree-sitter-cpp ends raw strings of at most 15, so it read the shader source as C++
    src = (b'static const char* SHADERS = R"' + delimiter + b'(\n'
           b"kernel void k(texture2d<half> in) { half4 v = in.read(max(1, 2)); }\n"
           b")" + delimiter + b'";\n'
           b"int after(int x) { return helper(x); }\n")
    prepared = prepare(src)[0]
    assert len(prepared) == len(src) and prepared.count(b"\n") == src.count(b"\n")
    facts = cxx.extract(src, "aten/src/ATen/native/metal/Shaders.h")
    assert summary(facts) == ([("after", 4, 4)], [("after", "helper", 4)], 0)


def test_a_comment_in_a_chain_is_not_part_of_its_callee():
    # native/TensorShape.cpp:664 `.set_check_mem_overlap(false)  // Already checked above` then `.resize_outputs`
    src = (b"void f(const Tensor& out) {\n"
           b"  auto iter = TensorIteratorConfig()\n"
           b"    .set_check_mem_overlap(false)  // Already checked above\n"
           b"    .resize_outputs(/*resize=*/false)\n"
           b"    .build();\n}\n")
    facts = cxx.extract(src, "aten/src/ATen/native/X.cpp")
    assert [c.callee for c in facts.calls if c.callee_name == "build"] == [
        "TensorIteratorConfig().set_check_mem_overlap(false).resize_outputs(false).build"]
