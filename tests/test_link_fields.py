"""Data members (classes.fields) type receivers the function's own text does not declare: `pool_.flush()` in
a method defined outside its class (native/vulkan/api/Context.cpp's `command_pool_.flush()`), through
`this->`, a base class's member, and a member of a member (`args.idesc.desc()`, native/cudnn/Conv_v7.cpp).
And a type written without its `c10::` (`impl::GenericList`, as receiver types are stored) is the
checkout's, never a vendor's. The expected lines are the comments' `:N`."""

from __future__ import annotations

import pytest

from tg_index.indexer import cxx

from .conftest import built_tree, call_edges

N = "aten/src/ATen/native/"
YAML = """\
- func: submit_thing(Tensor self) -> Tensor
  dispatch:
    CPU: submit_thing_cpu
"""
CTX_H = """\
namespace at::native::vk {
struct Pool { void flush() {} };                                   // :2
struct Descriptor { int desc() const { return 0; } };              // :3
struct Args { Descriptor idesc; Pool* pool; };
struct Base { Pool base_pool_; };
class Context : public Base {
 public:
  void submit(const Args& args);
 private:
  Pool pool_;
#ifdef USE_SECOND
  Pool second_;
#endif
};
}
namespace c10::impl { struct GenericList { void push() {} }; }    // :16
"""
CTX_CPP = """\
#include "Ctx.h"
namespace at::native::vk {
void Context::submit(const Args& args) {
  pool_.flush();
  this->pool_.flush();
  base_pool_.flush();
  second_.flush();
  int d = args.idesc.desc();
  args.pool->flush();
}
void free_function(const c10::impl::GenericList& l) {
  l.missing();
  l.push();
}
}
"""


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, str], set[tuple]]:
    db = built_tree(tmp_path_factory.mktemp("fields"), {
        N + "native_functions.yaml": YAML, N + "vulkan/Ctx.h": CTX_H, N + "vulkan/Ctx.cpp": CTX_CPP})
    out: dict[tuple[int, str], set[tuple]] = {}
    for _file, line, target, how, _detail, name, at in call_edges(db, "Ctx.cpp"):
        out.setdefault((line, target), set()).add((how, name, at))
    return out


def test_a_class_s_data_members_are_facts():
    f = cxx.extract(CTX_H.encode(), N + "vulkan/Ctx.h")
    F = cxx.FieldFact
    assert {c.name: c.fields for c in f.classes} == {
        "Pool": (), "Descriptor": (), "Args": (F("idesc", "Descriptor"), F("pool", "Pool*")),
        "Base": (F("base_pool_", "Pool"),), "Context": (F("pool_", "Pool"), F("second_", "Pool")),
        "GenericList": ()}


@pytest.mark.parametrize("line, target", [(4, "pool_.flush"), (5, "this->pool_.flush"), (6, "base_pool_.flush"),
                                          (7, "second_.flush"), (9, "args.pool->flush")])
def test_a_member_of_the_caller_s_class_or_of_a_member_types_the_call(calls, line, target):
    # Ctx.cpp:4-7: members of Context (Ctx.h:10, :12 under #ifdef) and of its base (Ctx.h:5); :9 Args::pool,
    # a Pool* reached with ->; each is Pool::flush, Ctx.h:2
    assert calls[(line, target)] == {("receiver-type", "at::native::vk::Pool::flush", 2)}


def test_a_member_of_a_member_is_typed_step_by_step(calls):
    # Ctx.cpp:8 args.idesc.desc(): args is an Args, its idesc a Descriptor (Ctx.h:4), desc Ctx.h:3
    assert calls[(8, "args.idesc.desc")] == {("receiver-type", "at::native::vk::Descriptor::desc", 3)}


def test_a_type_written_without_c10_is_the_checkout_s(calls):
    # Ctx.cpp:12 l.missing(): impl::GenericList is c10::impl's (Ctx.h:16), which has no `missing`: not in
    # the checkout, not a vendor library's; :13 l.push() is Ctx.h:16
    assert calls[(12, "l.missing")] == {("not-in-checkout", None, None)}
    assert calls[(13, "l.push")] == {("receiver-type", "c10::impl::GenericList::push", 16)}
