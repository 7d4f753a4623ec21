"""Objective-C++ written as C++ before tree-sitter parses it (indexer/cxx/objc.py): each construct, what
C++ must keep, and the facts of a file that mixes them."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx
from tg_index.indexer.cxx.objc import objective_c


def rewritten(src: bytes, objc_file: bool = True) -> bytes:
    out = objective_c(src, objc_file)
    assert len(out) == len(src) and out.count(b"\n") == src.count(b"\n")  # offsets and lines kept
    return out


@pytest.mark.parametrize("src, expected", [
    # a keyword message: brackets, the blank before each keyword and each keyword's colon
    (b"x = [mpsGraph meanOfTensor:t axes:axes name:nil];", b"x = (mpsGraph,meanOfTensor,t,axes,axes,name,nil);"),
    # a unary message, and one sent to a message's result at a statement's start
    (b"a = [[NSNumber alloc] init];", b"a = ((NSNumber,alloc),init);"),
    # the receiver a call through a pointer, an argument a call
    (b"return [cachedGraph->graph() cast:f(t) name:nil];", b"return (cachedGraph->graph(),cast,f(t),name,nil);"),
    # a keyword on its own line after a newline-only blank: the comma takes the keyword's first letter
    (b"y = [g foo:a\nbar:b];", b"y = (g,foo,a\n,ar,b);"),
    # a keyword right after a parenthesis (ReduceOps.mm: `axis:((NSUInteger)(int)0)name:nil`)
    (b"s = [g sort:t axis:((NSUInteger)0)name:nil];", b"s = (g,sort,t,axis,((NSUInteger)0),ame,nil);"),
    # a selector C++ reserves
    (b"d = [[NSMutableDictionary new] autorelease];", b"d = ((NSMutableDictionary,_  ),autorelease);"),
    # after a comment line and after a preprocessor line
    (b"{\n  // inverse order\n  [arr insertObject:w atIndex:0];\n}", b"{\n  // inverse order\n  (arr,insertObject,w,atIndex,0);\n}"),
    (b"{\n#endif\n  [t printNDArray];\n}", b"{\n#endif\n  (t,printNDArray);\n}"),
    # a template receiver
    (b"a = [NSMutableArray<NSNumber*> arrayWithCapacity:n];", b"a = (NSMutableArray<NSNumber*>,arrayWithCapacity,n);"),
])
def test_a_message_is_a_comma_expression(src, expected):
    assert rewritten(src) == expected


@pytest.mark.parametrize("src, expected", [
    (b'f(@"text", @(n), @1, @-1, @YES);', b'f( "text",  (n),  1,  -1,  YES);'),
    (b"g(@[ @1, @2, ]);", b"g( (  1,  2  ));"),  # an array: a comma expression, its trailing comma gone
    (b"h(@{ k : v, at::x : y });", b"h( ( k , v, at::x , y ));"),  # a dictionary; `::` stays
    (b"@autoreleasepool {\n  f();\n}", b"                 {\n  f();\n}"),
    (b"if (@available(macOS 13.0, *)) {}", b"if (1                        ) {}"),
    (b"s = @selector(foo:);", b"s = 0              ;"),
])
def test_at_literals_and_statements(src, expected):
    assert rewritten(src) == expected


@pytest.mark.parametrize("src, expected", [
    (b"dispatch_sync(q, ^() {\n  f();\n});", b"dispatch_sync(q,[]() {\n  f();\n});"),  # the blank before ^
    (b"h(^(id<MTLCommandBuffer> cb) {\n});", b"h([](id<MTLCommandBuffer> cb){\n});"),  # the blank before {
    (b"run(^MPSGraphTensor*(MPSGraph* g) {\n});", b"run([]              (MPSGraph* g) {\n});"),  # a return type
    (b"b = ^BinaryOpFn(c, p, s) {\n};", b"b = []         (c, p, s) {\n};"),  # a macro writing type and parameters
    (b"q(x, ^{\n});", b"q(x,[]{\n});"),
    (b"typedef T* (^Block)(A*);\nvoid run(void (^block)());", b"typedef T* (*Block)(A*);\nvoid run(void (*block)());"),
    (b"int y = a ^ (b);\nint z = a ^ f(b);", b"int y = a ^ (b);\nint z = a ^ f(b);"),  # exclusive or
])
def test_a_block_is_a_lambda(src, expected):
    assert rewritten(src) == expected


def test_classes_are_blanked_and_qualifiers_dropped():
    src = (b"@protocol Fwd;\n@implementation Fake\n- (id)copyWithZone:(NSZone*)zone {\n  return self;\n}\n@end\n"
           b"__block bool done = false;\nid b = (__bridge id)p;\n")
    out = rewritten(src)
    assert out.startswith(b"@protocol Fwd;\n" + b" " * 20 + b"\n")  # a forward declaration stays
    assert b"copyWithZone" not in out and b"@end" not in out
    assert b"        bool done = false;\nid b = (         id)p;\n" in out


@pytest.mark.parametrize("src", [
    b"auto f = [&](int x) { return v[x + 1]; };",
    b"auto g = [this, &y] { return y; };",
    b"auto h = [p = std::move(q)](int) {};",
    b"[[nodiscard]] int f();\n[[using gnu : const]] int g();\n[[deprecated(\"use [x y]\")]] int h();",
    b"delete [] p;\nauto [a, b] = pair();\nreturn [&] { return 1; }();",
    b"for (auto x: xs) { m[x] = [x]() { return x; }; }",
    b'const char* s = "[x foo:y]"; // [x bar]\n/* [x baz:1] */',
    b"#define SEND [x foo:y]\nint n = a[i] ? b[j] : c[k];",
])
def test_cpp_is_untouched(src):
    assert objective_c(src, False) is src  # no message: nothing else runs in a C++ file
    assert objective_c(src, True) == src  # and in a .mm file none of it is Objective-C


def test_a_header_that_sends_a_message_is_objective_c():
    src = b"inline id<MTLDevice> device() {\n  return [_queue device];\n}\nvoid f(void (^block)());\n"
    assert rewritten(src, objc_file=False) == (b"inline id<MTLDevice> device() {\n  return (_queue,device);\n}\n"
                                               b"void f(void (*block)());\n")


# LossOps.mm's shape (2.6.0): a dictionary literal and blocks in a function, and functions after it.
# Before objc.py, tree-sitter's damage ran from the first message to the end of the file.
MIXED = b"""\
namespace at::native {
namespace mps {
static void loss_impl(const Tensor& input, Tensor& out) {
  @autoreleasepool {
    auto cachedGraph = LookUpOrCreateCachedGraph<CachedGraph>(key, [&](auto mpsGraph, auto newCachedGraph) {
      MPSGraphTensor* t = [mpsGraph reductionSumWithTensor:newCachedGraph->inputTensor
                                                      axes:@[ @0, @1 ]
                                                      name:nil];
      newCachedGraph->outputTensor = [mpsGraph castTensor:t toType:getMPSDataType(out) name:@"cast"];
    });
    NSDictionary* feeds = @{
      inputPlaceholder.getMPSGraphTensor() : inputPlaceholder.getMPSGraphTensorData(),
    };
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), feeds, results);
  }
}
} // namespace mps

Tensor& loss_out_mps(const Tensor& input, Tensor& out) {
  dispatch_sync(stream->queue(), ^() {
    mps::loss_impl(input, out);
  });
  return out;
}
} // namespace at::native
"""


def test_the_facts_of_a_mixed_file():
    facts = cxx.extract(MIXED, "aten/src/ATen/native/mps/operations/Loss.mm")
    assert facts.parse_errors == 0
    assert [(d.qualified_name, d.line, d.end_line) for d in facts.definitions] == [
        ("at::native::mps::loss_impl", 3, 16),
        ("at::native::loss_out_mps", 19, 24),
    ]
    calls = {(c.callee, c.line, c.caller) for c in facts.calls}
    assert {("LookUpOrCreateCachedGraph<CachedGraph>", 5, "at::native::mps::loss_impl"),
            ("getMPSDataType", 9, "at::native::mps::loss_impl"),  # inside a message's argument
            ("inputPlaceholder.getMPSGraphTensor", 12, "at::native::mps::loss_impl"),  # inside a dictionary
            ("cachedGraph->graph", 14, "at::native::mps::loss_impl"),
            ("mps::loss_impl", 21, "at::native::loss_out_mps"),  # inside a block
            } <= calls
