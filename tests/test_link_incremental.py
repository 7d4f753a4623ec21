"""The incremental link (indexer/link/incremental.py) on a copy of tests/fixtures/link: after each kind of
edit, a rebuild's graph equals, without its ids, the graph a whole link of the same facts gives, and the
graph of a cold build of the edited tree; it is updated in place where the edit allows, linked whole where
a checkout-wide input changed. The dispatcher stages are kept when their inputs are the same."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from tg_index.indexer.build import build
from tg_index.indexer.link import link
from tg_index.queries import chain_store
from tg_index.queries.api import Index

from .conftest import FIXTURES

N = "aten/src/ATen/native/"
DROPPED = object()  # an edit that deletes the file

# name -> (file, text replaced, its replacement (DROPPED: the file deleted), how the rebuild links)
EDITS = {
    "rename": (f"{N}cpu/ScaleKernel.cpp", "inner_loop", "inner_loop_renamed", "incremental"),
    "rename a registered kernel": (f"{N}cpu/ScaleKernel.cpp", "scale_kernel", "scale_kernel_renamed", "incremental"),
    "rename a launched kernel": (f"{N}cuda/ScaleKernel.cu", "small_kernel", "tiny_kernel", "incremental"),
    "add": (f"{N}Other.cpp", "}  // namespace at::native",
            "void added(const Tensor& t) {\n  other_user(t);\n  pick(1, 2);\n}\n\n}  // namespace at::native",
            "incremental"),
    "remove": (f"{N}Other.cpp", "void other_user2() {\n  gemm<float>(1.0f);\n}\n", "", "incremental"),
    "move lines": (f"{N}Other.cpp", "namespace at::native {", "\n\n\nnamespace at::native {", "incremental"),
    "move a header's lines": (f"{N}cuda/Helpers.cuh", "namespace at::native {", "\n// launch helpers\n"
                              "namespace at::native {", "incremental"),
    "arity": (f"{N}Scale.h", "inline int pick(int a) {", "inline int pick(int a, int b, int c) {", "incremental"),
    "become static": (f"{N}cuda/Helpers.cuh", "inline int launch_config()", "static inline int launch_config()",
                      "incremental"),
    "add an include": (f"{N}Other.cpp", "#include <ATen/native/Scale.h>",
                       "#include <ATen/native/Scale.h>\n#include <ATen/native/cuda/Helpers.cuh>", "incremental"),
    "add an include to a header others include": (f"{N}Scale.h", "}  // namespace at::native",
                                                   "}  // namespace at::native\n#include <ATen/native/cuda/Helpers.cuh>",
                                                   "whole"),
    "remove an include": (f"{N}cuda/ScaleKernel.cu", "#include <ATen/native/cuda/Helpers.cuh>\n", "", "incremental"),
    "add a using": (f"{N}Scale.cpp", "}  // namespace at::native", "}  // namespace at::native\n\n"
                    "using namespace at::native::blas;\n\nvoid blas_user() {\n  gemm<double>(2.0);\n}", "incremental"),
    "add a using in a header's namespace": (f"{N}Scale.h", "namespace blas {", "namespace blas {\n}\n"
                                            "using namespace blas;\nnamespace blas {", "whole"),
    "change a registration": (f"{N}cpu/ScaleKernel.cpp", "&scale_kernel", "&inner_loop", "incremental"),
    "change a stub's declaration": (f"{N}Scale.h", "DECLARE_DISPATCH(scale_fn, scale_stub);",
                                    "\nDECLARE_DISPATCH(scale_fn, scale_stub);", "whole"),
    "delete a file": (f"{N}Other.cpp", "", DROPPED, "incremental"),
    "delete a header": (f"{N}mps/Helpers.h", "", DROPPED, "incremental"),
    "a kernel takes the name another file registers": (f"{N}cuda/ScaleKernel.cu", "scale_kernel_cuda", "scale_kernel",
                                                        "incremental"),
    "rename an op's kernel": (f"{N}Scale.cpp", "Tensor scale_cpu(", "Tensor scale_cpu_renamed(", "incremental"),
    "add a kernel launch": (f"{N}Scale.cpp", "  helper(self);", "  helper(self);\n  pick_kernel(3);", "incremental"),
    # device_path changes in a file not resolved again: Other.cpp's other_user calls pick(int), and other_user2
    # calls gemm<float>
    "a header's function starts calling a library": (f"{N}Scale.h", "inline int pick(int a) { return a; }",
                                                     "inline int pick(int a) { cublasSgemm(a); return a; }",
                                                     "incremental"),
    "a header's function starts calling an op": (f"{N}Scale.h", "inline int pick(int a) { return a; }",
                                                 "inline int pick(int a) { at::scale(a, 2); return a; }",
                                                 "incremental"),
    "a callee stops calling the function it is handed": (f"{N}Handed.h", "  f(n);", "  (void)f;", "incremental"),
    "a specialisation stops calling a library": (f"{N}cuda/ScaleKernel.cu", "gemm<float>(float a) { cublasSgemm(a); }",
                                                 "gemm<float>(float a) { (void)a; }", "incremental"),
    # the only call of cublasDgemm: its library node goes
    "a library's last call goes": (f"{N}cuda/ScaleKernel.cu", "gemm<double>(double a) { cublasDgemm(a); }",
                                   "gemm<double>(double a) { (void)a; }", "incremental"),
}
# The device_path of Other.cpp's functions after those edits (before them: other_user 0, other_user2 1).
CALLERS_MOVE = {"a header's function starts calling a library": (1, 1),
                "a header's function starts calling an op": (3, 1),
                "a specialisation stops calling a library": (0, 0)}


def graph(db: Path) -> tuple[Counter, Counter]:
    """The graph without ids: nodes by (kind, name, file, line, end_line, detail, device_path), edges by
    (kind, src node, dst node, file, line, how, target, detail)."""
    with sqlite3.connect(db) as conn:
        nodes = {r[0]: r[1:] for r in conn.execute(
            "SELECT id, kind, name, file, line, end_line, detail, device_path FROM nodes")}
        edges = Counter((kind, nodes[src], nodes[dst] if dst is not None else None, *rest) for kind, src, dst, *rest
                        in conn.execute("SELECT kind, src, dst, file, line, how, target, detail FROM edges"))
    return Counter(nodes.values()), edges


def meta(db: Path, key: str) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The files the test has just copied count as settled: each update takes the unchanged ones as the build
    before read them, without reading them (test_build_file_stats.py), and must still give a cold build's graph."""
    from tg_index.indexer import build as build_module

    monkeypatch.setattr(build_module, "SETTLED_NS", 0)


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path]:
    """The fixture tree copied, and its index (an index is updated only for the checkout it was made of)."""
    tree, db = tmp_path / "tree", tmp_path / "ix.db"
    shutil.copytree(FIXTURES / "link", tree)
    build(tree, db, jobs=1)
    return tree, db


def _edit(tree: Path, path: str, old: str, new) -> None:
    target = tree / path
    if new is DROPPED:
        target.unlink()
        return
    text = target.read_text()
    assert text.count(old) >= 1, (path, old)
    target.write_text(text.replace(old, new))


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_rebuild_links_what_a_cold_link_gives(edit: str, indexed: tuple[Path, Path], tmp_path: Path):
    tree, db = indexed
    path, old, new, how = EDITS[edit]
    _edit(tree, path, old, new)
    build(tree, db, jobs=1)
    assert meta(db, "linked") == how
    whole = tmp_path / "whole.db"
    shutil.copyfile(db, whole)
    with sqlite3.connect(whole) as conn:
        link(conn, 1)
    assert graph(db) == graph(whole)
    cold = tmp_path / "cold.db"  # the same tree and facts, built in another order
    build(tree, cold, jobs=1)
    assert graph(db) == graph(cold)


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_rebuild_keeps_only_chains_a_walk_gives(edit: str, indexed: tuple[Path, Path], tmp_path: Path):
    """The chains the build keeps (indexer/chain_stage.py) are walked again where the edit reaches them: after
    the update, every row is what a walk of its node gives now, and every op's answer read from the rows is the
    answer of a walk and of a cold build of the edited tree (a stub's registrations, which the update gives new
    edge ids, in the same order: kinds.stub_edge_order)."""
    tree, db = indexed
    path, old, new, how = EDITS[edit]
    _edit(tree, path, old, new)
    build(tree, db, jobs=1)
    assert meta(db, "chains") == how  # a whole link walks every chain again; an incremental one, those it reaches
    cold = tmp_path / "cold.db"
    build(tree, cold, jobs=1)
    assert stale_chains(db) == []
    ops = [r[0] for r in Index.open(db).conn.execute("SELECT name FROM ops ORDER BY name")]
    for op in ops:
        walked = Index.open(db)
        walked.linker().stored_chains = False
        stored = Index.open(db).kernels_for(op)
        assert stored == walked.kernels_for(op), op
        assert stored == Index.open(cold).kernels_for(op), op


def stale_chains(db: Path) -> list[tuple]:
    """The rows of table chains that a walk of their node, key, depth and kernel gives otherwise."""
    ix = Index.open(db)
    linker = ix.linker()
    linker.stored_chains = False
    stale = []
    for node, key, depth, kernel, body in ix.conn.execute("SELECT node, key, depth, kernel, body FROM chains"):
        if chain_store.decode(body) != linker.chain_from(node, key, depth, bool(kernel)):
            stale.append((node, key, depth, kernel))
    return stale


def _other_users(db: Path) -> tuple[int, ...]:
    with sqlite3.connect(db) as conn:
        return tuple(r[0] for r in conn.execute("SELECT device_path FROM nodes WHERE file = ? AND name LIKE '%other_user%' "
                                                "ORDER BY name", (f"{N}Other.cpp",)))


@pytest.mark.parametrize("edit", sorted(CALLERS_MOVE))
def test_an_edit_moves_the_device_path_of_callers_in_files_not_resolved_again(edit: str, indexed: tuple[Path, Path]):
    tree, db = indexed
    assert _other_users(db) == (0, 1)
    _edit(tree, *EDITS[edit][:3])
    build(tree, db, jobs=1)
    assert (meta(db, "linked"), _other_users(db)) == ("incremental", CALLERS_MOVE[edit])


def test_a_file_that_only_registers_a_changed_name_has_its_registrations_alone_resolved_again(
        indexed: tuple[Path, Path]):
    tree, db = indexed
    cpu = f"{N}cpu/ScaleKernel.cpp"  # registers its own scale_kernel, which the .cu's kernel is renamed to

    def edges() -> tuple[list, list]:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT e.id, e.kind, n.name FROM edges e LEFT JOIN nodes n ON n.id = e.dst "
                                "WHERE e.file = ? ORDER BY e.id", (cpu,)).fetchall()
        return [r for r in rows if r[1] != "registers"], [r[1:] for r in rows if r[1] == "registers"]

    calls, registers = edges()
    assert calls and registers == [("registers", "at::native::(anonymous)::scale_kernel")] * 2 + [("registers", None)]
    _edit(tree, *EDITS["a kernel takes the name another file registers"][:3])
    build(tree, db, jobs=1)
    assert meta(db, "linked") == "incremental"
    assert edges() == (calls, registers)  # the same rows: its calls' edges kept (their ids too), its registration made again


def test_a_rename_resolves_the_callers_again(indexed: tuple[Path, Path]):
    tree, db = indexed
    _edit(tree, *EDITS["rename"][:3])
    build(tree, db, jobs=1)
    with sqlite3.connect(db) as conn:
        got = conn.execute("SELECT e.target, e.how, d.name, d.line FROM edges e JOIN nodes d ON d.id = e.dst "
                           "WHERE e.file = ? AND e.kind = 'calls'", (f"{N}cpu/ScaleKernel.cpp",)).fetchall()
    assert got == [("inner_loop_renamed", "same-namespace", "at::native::(anonymous)::inner_loop_renamed", 6)]
    assert meta(db, "kept_stages") == "dispatcher,dispatch_table"


def test_a_new_op_links_whole_and_runs_the_dispatcher_stages(indexed: tuple[Path, Path]):
    tree, db = indexed
    yaml = tree / f"{N}native_functions.yaml"
    yaml.write_text(yaml.read_text() + "\n- func: thrice(Tensor self) -> Tensor\n  dispatch:\n    CPU: scale_cpu\n")
    build(tree, db, jobs=1)
    assert (meta(db, "linked"), meta(db, "kept_stages")) == ("whole", "")


def test_a_yaml_file_that_gives_the_same_rows_keeps_the_graph(indexed: tuple[Path, Path]):
    tree, db = indexed
    yaml = tree / f"{N}native_functions.yaml"
    yaml.write_text(yaml.read_text() + "\n# a comment\n")
    build(tree, db, jobs=1)
    assert (meta(db, "linked"), meta(db, "kept_stages")) == ("incremental", "dispatch_table")


STRUCTURED_YAML = """
- func: shift.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
  structured: True
  dispatch:
    CPU: shift_out

- func: shift(Tensor self) -> Tensor
  structured_delegate: shift.out
"""
STRUCTURED_CPP = """#include <ATen/native/Scale.h>

namespace at::meta {

TORCH_META_FUNC(shift) (const Tensor& self) {
  set_output_raw_strided(0, self.sizes(), {}, self.options());
}

}  // namespace at::meta

namespace at::native {

TORCH_IMPL_FUNC(shift_out) (const Tensor& self, const Tensor& out) {
  (void)self;
  (void)out;
}

}  // namespace at::native
"""
# An edit of the file that writes a structured group's meta and impl functions: the op edges of the rows whose
# kernel they are (meta: the Meta rows of shift and shift.out, by the meta struct's qualified name; implements: the
# CPU row's TORCH_IMPL_FUNC) are made again, where the link looks up no other name of theirs.
STRUCTURED_EDITS = {
    "move the meta function's lines": ("namespace at::meta {", "\n\nnamespace at::meta {"),
    "move the impl function's lines": ("namespace at::native {", "\n\nnamespace at::native {"),
    "rename the meta function": ("TORCH_META_FUNC(shift)", "TORCH_META_FUNC(shifted)"),
    "rename the impl function": ("TORCH_IMPL_FUNC(shift_out)", "TORCH_IMPL_FUNC(shifted_out)"),
}


@pytest.mark.parametrize("edit", sorted(STRUCTURED_EDITS))
def test_an_edit_of_structured_functions_remakes_their_op_edges(edit: str, tmp_path: Path):
    tree, db = tmp_path / "tree", tmp_path / "ix.db"
    shutil.copytree(FIXTURES / "link", tree)
    yaml = tree / f"{N}native_functions.yaml"
    yaml.write_text(yaml.read_text() + STRUCTURED_YAML)
    (tree / f"{N}Shift.cpp").write_text(STRUCTURED_CPP)
    build(tree, db, jobs=1)
    with sqlite3.connect(db) as conn:
        before = conn.execute("SELECT e.kind, d.name, e.line FROM edges e JOIN nodes d ON d.id = e.dst "
                              "WHERE e.kind IN ('meta', 'implements') AND d.file = ?", (f"{N}Shift.cpp",)).fetchall()
    impl, meta_func = ("at::native::structured_shift_out::impl", 13), ("at::meta::structured_shift::meta", 5)
    # shift.out's and shift's CPU rows implemented by the impl function, their Meta rows by the meta function, and
    # each op's meta edge
    assert sorted(before) == sorted([("implements", *impl)] * 2 + [("implements", *meta_func)] * 2 +
                                    [("meta", *meta_func)] * 2)
    _edit(tree, f"{N}Shift.cpp", *STRUCTURED_EDITS[edit])
    build(tree, db, jobs=1)
    assert meta(db, "linked") == "incremental"
    cold = tmp_path / "cold.db"
    build(tree, cold, jobs=1)
    assert graph(db) == graph(cold)
