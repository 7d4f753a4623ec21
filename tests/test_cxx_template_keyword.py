"""The `template` that tells a dependent member template apart (`l.template launch<T, 1>(...)`, as 2.6.0's
cuda/SortingCommon.cuh:151 and cpu/UpSampleKernel.cpp:1001 `weights_f64.template data_ptr<double>()`) is no
part of the callee's name (scan.nospace): glued to it, it made `l.templatelaunch<T,1>`, a name nothing has."""

from __future__ import annotations

from pathlib import Path

from tg_index.indexer import cxx
from tg_index.indexer.cxx.scan import nospace

from .conftest import built_tree, calls_by_line

N = "aten/src/ATen/native/"
YAML = """- func: fill(Tensor self) -> Tensor
  dispatch:
    CPU: fill_cpu
"""


def test_nospace_drops_the_keyword_only_after_a_member_or_scope_operator():
    assert nospace("l.template launch<scalar_t, index_t, 1>") == "l.launch<scalar_t,index_t,1>"
    assert nospace("p ->  template data_ptr<T>") == "p->data_ptr<T>"
    assert nospace("vinner_type::template blend<mask>") == "vinner_type::blend<mask>"
    assert nospace("template <typename T> void f()") == "template<typenameT>voidf()"  # a declaration's stays
    assert nospace("a.templated_x + templates::y") == "a.templated_x+templates::y"  # other names stay


def test_the_callees_written_with_the_keyword():
    src = (b"template <typename T, typename L> void run(const Holder& h, Holder* p, L l) {\n"
           b"  h.template data_ptr<T>();\n"
           b"  p->template data_ptr<T>();\n"
           b"  l.template launch<T, 1>(h);\n"
           b"  Traits<T>::template cast<float>(h);\n"
           b"}\n")
    facts = cxx.extract(src, N + "X.cpp")
    assert [(c.callee, c.line) for c in facts.calls] == [
        ("h.data_ptr<T>", 2), ("p->data_ptr<T>", 3), ("l.launch<T,1>", 4), ("Traits<T>::cast<float>", 5)]


HOLDER_H = """\
namespace at {
struct Holder {
  template <typename T> T* data_ptr() const { return nullptr; }
  void* data_ptr() const { return nullptr; }
};
} // namespace at
"""
USE_CPP = """\
#include "Holder.h"
namespace at::native {
template <typename T> void fill(const Holder& h) {
  h.template data_ptr<T>();
}
} // namespace at::native
"""


def test_a_member_template_called_with_the_keyword_is_the_member(tmp_path: Path):
    # Use.cpp:4 reaches the member template data_ptr<T> (Holder.h:3), not the non-template overload (:4)
    got = calls_by_line(built_tree(tmp_path, {N + "native_functions.yaml": YAML, N + "Holder.h": HOLDER_H, N + "Use.cpp": USE_CPP}), "Use.cpp")
    assert {line for _how, line in got[4]} == {3}
