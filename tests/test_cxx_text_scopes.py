"""Namespaces read from the braces where the tree is damaged (scopes.text_namespaces) are those of one
configuration, as a compiler sees the file: each branch of an #if starts from the braces open at the #if,
and the first branch's braces are kept after #endif. 2.6.0's cudnn/RNN.cpp opens a function's brace in both
branches of `#ifndef USE_CUDNN_RNN_V8_API` (lines 238-268), which put every later function (the real
_cudnn_rnn at :1384) in an unnamed namespace that had closed at :285."""

from __future__ import annotations

from tg_index.indexer import cxx
from tg_index.indexer.cxx.scan import Scanner
from tg_index.indexer.cxx.scopes import text_namespaces


def spans(src: bytes) -> list[tuple[str, int, int]]:
    return [(name, src[:s].count(b"\n") + 1, src[:e].count(b"\n") + 1) for s, e, name in text_namespaces(Scanner(src))]


def test_each_branch_starts_from_the_braces_open_at_its_if():
    src = (b"namespace at {\n"          # 1
           b"namespace {\n"             # 2
           b"#ifndef V8\n"              # 3
           b"void g(int a) {\n"         # 4
           b"#else\n"                   # 5
           b"void g(long a) {\n"        # 6
           b"#endif\n"                  # 7
           b"  return;\n"               # 8
           b"}\n"                       # 9
           b"}; // namespace\n"         # 10
           b"void h() {}\n"             # 11
           b"}\n")                      # 12
    assert spans(src) == [("at", 1, 12), ("", 2, 10)]


def test_a_namespace_only_a_later_branch_opens_ends_with_that_branch():
    src = (b"#ifdef CPU_CAPABILITY\n"   # 1  (TopKImpl.h:7-11)
           b"inline namespace CPU_CAPABILITY {\n"
           b"#else\n"
           b"inline namespace DEFAULT {\n"
           b"#endif\n"                  # 5
           b"void loop() {}\n"
           b"}\n")                      # 7
    assert spans(src) == [("CPU_CAPABILITY", 2, 7), ("DEFAULT", 4, 5)]


def test_branches_that_each_close_a_brace_close_it_once():
    src = (b"namespace p {\n"           # 1  (torch/csrc/profiler/collection.cpp:800-850)
           b"namespace {\n"             # 2
           b"void f() {\n"              # 3
           b"#ifndef USE_KINETO\n"      # 4
           b"}\n"                       # 5
           b"#else\n"                   # 6
           b"  g();\n"                  # 7
           b"}\n"                       # 8
           b"#endif\n"                  # 9
           b"void k() {}\n"             # 10
           b"} // namespace\n"          # 11
           b"}\n")                      # 12
    assert spans(src) == [("p", 1, 12), ("", 2, 11)]


RNN = b"""\
#if !AT_CUDNN_ENABLED()
namespace at {
namespace native {
Tensor _cudnn_rnn(const Tensor& x) {
  AT_ERROR("_cudnn_rnn: ATen not compiled with cuDNN support");
}
} // namespace native
} // namespace at
#else
namespace at {
namespace native {
namespace {
#ifndef USE_CUDNN_RNN_V8_API
Descriptor descriptor(int a) {
#else
Descriptor descriptor(long a) {
#endif
  return Descriptor();
}
}; // namespace
Tensor _cudnn_rnn(const Tensor& x) {
  return descriptor(1).run(x);
}
} // namespace native
} // namespace at
#endif
"""


def test_the_real_kernel_after_a_branched_signature_is_in_its_namespace():
    facts = cxx.extract(RNN, "aten/src/ATen/native/cudnn/RNN.cpp")
    assert [(d.qualified_name, d.line) for d in facts.definitions if d.name == "_cudnn_rnn"] == [
        ("at::native::_cudnn_rnn", 4), ("at::native::_cudnn_rnn", 21)]
