"""op_backward (indexer/dispatcher/backward_table.py): the entries each op's autograd kernel uses, built once,
kept with the dispatcher stage, and read by backward_of without the YAML layer."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tg_index.indexer.build import build
from tg_index.indexer.dispatcher import backward_table
from tg_index.schema.models import Base

NATIVE = """\
- func: neg(Tensor self) -> Tensor

- func: _foreach_neg(Tensor[] self) -> Tensor[]

- func: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
  variants: function, method

- func: transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor

- func: _fused_step_(Tensor(a!) self, float lr) -> ()
  dispatch:
    CPU: fused_step_cpu_
  autogen: _fused_step, _fused_step.out

- func: exp(Tensor self) -> Tensor

- func: exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)

- func: exp_(Tensor(a!) self) -> Tensor(a!)
"""

DERIVATIVES = """\
- name: neg(Tensor self) -> Tensor
  self: grad.neg()

- name: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
  self: grad.transpose(dim0, dim1)

- name: _fused_step_(Tensor(a!) self, float lr) -> ()
  self: grad * lr

- name: exp(Tensor self) -> Tensor
  self: grad * result

- name: exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  self: grad * result
"""

KERNEL = "namespace at { namespace native {\nvoid helper() {}\nvoid neg_kernel() { helper(); }\n}}\n"


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path]:
    tree, db = tmp_path / "tree", tmp_path / "ix.db"
    native = tree / "aten/src/ATen/native"
    native.mkdir(parents=True)
    (tree / "tools/autograd").mkdir(parents=True)
    (tree / "version.txt").write_text("2.6.0\n")
    (native / "native_functions.yaml").write_text(NATIVE)
    (native / "Neg.cpp").write_text(KERNEL)
    (tree / "tools/autograd/derivatives.yaml").write_text(DERIVATIVES)
    build(tree, db, jobs=1)
    return tree, db


def _rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT b.op, b.entry_op, b.use, d.line FROM op_backward b "
                            "JOIN derivatives d ON d.id = b.derivative_id ORDER BY b.id").fetchall()


def test_each_rule_of_the_matching(indexed: tuple[Path, Path]):
    """Own entries; the reference op's for a foreach op; the view op's for its _copy; the mutable form's for
    the autogen'd functional variant; the functional form's for in-place; none for an autogen'd out= variant."""
    assert _rows(indexed[1]) == [
        ("neg", "neg", "exact", 1),
        ("_foreach_neg", "neg", "foreach", 1),
        ("transpose.int", "transpose.int", "exact", 4),
        ("transpose_copy.int", "transpose.int", "view_copy", 4),
        ("_fused_step_", "_fused_step_", "exact", 7),
        ("exp", "exp", "exact", 10),
        ("exp.out", "exp.out", "exact", 13),
        ("exp_", "exp", "in-place", 10),
        ("_fused_step", "_fused_step_", "generated", 7),
    ]


def test_kept_with_the_dispatcher_stage(indexed: tuple[Path, Path]):
    tree, db = indexed
    before = _rows(db)
    kernel = tree / "aten/src/ATen/native/Neg.cpp"
    kernel.write_text(kernel.read_text().replace("helper(); }", "helper(); helper(); }"))
    build(tree, db, jobs=1)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'kept_stages'").fetchone() == ("dispatcher,dispatch_table",)
    assert _rows(db) == before


def test_a_changed_entry_is_written_again(indexed: tuple[Path, Path]):
    tree, db = indexed
    derivatives = tree / "tools/autograd/derivatives.yaml"
    derivatives.write_text(derivatives.read_text().replace("- name: exp.out", "- name: exp_"))
    build(tree, db, jobs=1)
    assert _rows(db)[-3:] == [("exp.out", "exp", "out=", 10), ("exp_", "exp_", "exact", 13),
                              ("_fused_step", "_fused_step_", "generated", 7)]


def test_the_insert_writes_every_column():
    assert set(backward_table.COLUMNS) | {"id"} == {c.name for c in Base.metadata.tables["op_backward"].columns}


def test_backward_of_reads_the_table_without_the_yaml_layer(indexed: tuple[Path, Path]):
    code = ("import sys; from tg_index.queries.api import Index; ix = Index.open(sys.argv[1]); "
            "print([(b.from_op, str(b.applies_as), b.note is None) for b in ix.backward_of('exp_')]); "
            "print(sorted(m for m in ('yaml', 'tg_index.indexer.dispatcher.model', 'tg_index.indexer.native_yaml') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(indexed[1])], capture_output=True, text=True, check=True)
    assert out.stdout == "[('exp', 'in-place', False)]\n[]\n"
