"""dispatcher_registrations: the dispatcher stage's rows on the fixture checkout, and the rules that
turn a hand-written registration fact into the dispatcher's registration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tg_index.indexer.dispatcher.handwritten import WrittenRegistration, handwritten_row
from tg_index.indexer.dispatcher.rows import COLUMNS, DispatcherRow, RegistrationSource
from tg_index.queries.api import Index
from tg_index.schema import Base

IMPL = "TORCH_LIBRARY_IMPL"


def _written(kind: str, op: str | None, function: str | None, key: str | None = "CPU", macro: str = IMPL,
             namespace: str = "aten", via: str | None = None) -> WrittenRegistration:
    return WrittenRegistration(kind, macro, namespace, key, op, function, "a.cpp", 7, via)


def test_the_stage_writes_every_column_but_the_row_id():
    assert set(COLUMNS) | {"id"} == {c.name for c in Base.metadata.tables["dispatcher_registrations"].columns}


def test_mini_rows(mini_db: Path):
    with sqlite3.connect(mini_db) as conn:
        counts = dict(conn.execute("SELECT source, count(*) FROM dispatcher_registrations GROUP BY source"))
        hand = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM dispatcher_registrations "
                            "WHERE source = 'handwritten'").fetchall()
        cpu = conn.execute(f"SELECT {', '.join(COLUMNS)} FROM dispatcher_registrations "
                           "WHERE op = 'aten::add.out' AND key = 'CPU'").fetchall()
    assert counts == {"generated": 57, "handwritten": 1}
    assert hand == [("aten::add.Tensor", "CUDA", "impl", "handwritten", IMPL, "add_kernel_cuda_impl",
                     "aten/src/ATen/native/cuda/AddKernel.cu", 19, 0, None, None, None, 0)]
    assert cpu == [("aten::add.out", "CPU", "impl", "generated", "torchgen.dest.register_dispatch_key",
                    "wrapper_CPU_add_out_out", "RegisterCPU.cpp", None, 0,
                    "aten/src/ATen/templates/RegisterDispatchKey.cpp", 15, None, 0)]


def test_export_dispatcher(mini_db: Path):
    rows = list(Index.open(mini_db).export("dispatcher"))
    assert len(rows) == 58
    assert rows[-1] == {"op": "aten::add.Tensor", "key": "CUDA", "kind": "impl", "source": "handwritten",
                        "generator": IMPL, "kernel": "add_kernel_cuda_impl",
                        "file": "aten/src/ATen/native/cuda/AddKernel.cu", "line": 19, "fallthrough": 0}


def _hand(**kw) -> DispatcherRow:
    return DispatcherRow(**{"kind": "impl", "source": RegistrationSource.HANDWRITTEN, "generator": IMPL,
                            "file": "a.cpp", "line": 7, **kw})


def test_an_impl_in_its_blocks_namespace_at_its_blocks_key():
    assert handwritten_row(_written("impl", "add.Tensor", "add_cpu")) == _hand(op="aten::add.Tensor", key="CPU",
                                                                             kernel="add_cpu")
    assert handwritten_row(_written("impl", "quantized::add", "qadd", namespace="_")) == _hand(
        op="quantized::add", key="CPU", kernel="qadd")


def test_a_fallthrough_is_flagged():
    assert handwritten_row(_written("impl", "copy_", "torch::CppFunction::makeFallthrough()", key="Conjugate")) == \
        _hand(op="aten::copy_", key="Conjugate", kernel="torch::CppFunction::makeFallthrough()", fallthrough=True)


def test_a_backend_fallback_is_op_underscore():
    row = handwritten_row(_written("fallback", None, "torch::CppFunction::makeFallthrough()", key="Named",
                                   namespace="_"))
    assert row == _hand(op="_", key="Named", kind="fallback", kernel="torch::CppFunction::makeFallthrough()",
                        fallthrough=True)
    assert handwritten_row(_written("fallback", None, "torch::CppFunction::makeFromBoxedFunction<&f>()",
                                    key="Conjugate", namespace="_")).fallthrough is False


def test_torch_dispatch_names_the_key():
    fn = "torch::dispatch( c10::DispatchKey::CompositeExplicitAutograd, ::all_reduce)"
    assert handwritten_row(_written("def", "all_reduce", fn, key=None, macro="TORCH_LIBRARY",
                                    namespace="_c10d_functional")) == _hand(
        op="_c10d_functional::all_reduce", key="CompositeExplicitAutograd", kind="def", kernel="::all_reduce",
        generator="TORCH_LIBRARY")
    assert handwritten_row(_written("impl", "f", "torch::dispatch(c10::kCUDA, TORCH_FN(&f_cuda))", key=None,
                                    macro="TORCH_LIBRARY")).key == "CUDA"


def test_a_kernel_without_a_key_is_composite_implicit_and_a_bare_def_has_no_key():
    assert handwritten_row(_written("def", "myop", None, key=None, macro="TORCH_LIBRARY")) \
        == _hand(op="aten::myop", key=None, kind="def", kernel=None, generator="TORCH_LIBRARY")
    assert handwritten_row(_written("impl", "myop", "myop_impl", key=None, macro="TORCH_LIBRARY_FRAGMENT")).key \
        == "CompositeImplicitAutograd"


def test_a_macro_use_names_the_macro_and_an_impl_without_a_kernel_is_none():
    assert handwritten_row(_written("impl", "sin", "native::sin", via="OP_DECOMPOSE")).generator == "OP_DECOMPOSE"
    assert handwritten_row(_written("impl", "sin", None)) is None
    assert handwritten_row(_written("impl", None, "f")) is None
