"""The dispatch keys read from a checkout's c10/core headers, the computed dispatch table
(OperatorEntry.cpp's rules) and the walk of `tg-query dispatch`, on the small headers of
tests/fixtures/dispatch_keys (three backends: CPU, CUDA, Meta; Meta is the "functional" one)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tg_index.indexer.dispatcher import keymodel, table_stage
from tg_index.indexer.dispatcher.keys import DispatchKeysError
from tg_index.indexer.dispatcher.table import Registration, compute
from tg_index.queries import dispatch

from .conftest import FIXTURES, MINI, run

KEYS_DIR = FIXTURES / "dispatch_keys"


def sources(root: Path = KEYS_DIR) -> dict[str, bytes]:
    return {p: (root / p).read_bytes() for p in keymodel.SOURCES}


@pytest.fixture(scope="module")
def keys() -> keymodel.DispatchKeys:
    return keymodel.read(sources())


def reg(op: str, key: str, kernel: str, source: str = "generated", fallthrough: bool = False,
        line: int | None = None, kind: str = "impl") -> Registration:
    return Registration(op, key, kernel, source, f"{source}.cpp", line, fallthrough, kind)


FALLBACKS = [
    reg("_", "ADInplaceOrView", "makeFallthrough", "handwritten", True, 1, "fallback"),
    reg("_", "BackendSelect", "makeFallthrough", "handwritten", True, 2, "fallback"),
    reg("_", "Autocast", "makeFallthrough", "handwritten", True, 3, "fallback"),  # Autocast = AutocastCUDA
    reg("_", "AutocastCPU", "makeFallthrough", "handwritten", True, 4, "fallback"),
    reg("_", "Conjugate", "conjugateFallback", "handwritten", False, 5, "fallback"),
    reg("_", "AutogradOther", "autogradOtherFallback", "handwritten", False, 6, "fallback"),
]
FALLBACK_ENTRIES = {"AutocastCUDA": ("backend fallback", "AutocastCUDA", "makeFallthrough"),
                    "AutocastCPU": ("backend fallback", "AutocastCPU", "makeFallthrough"),
                    "ADInplaceOrView": ("backend fallback", "ADInplaceOrView", "makeFallthrough"),
                    "Conjugate": ("backend fallback", "Conjugate", "conjugateFallback"),
                    "BackendSelect": ("backend fallback", "BackendSelect", "makeFallthrough")}
OTHER_FALLBACK = ("backend fallback", "AutogradOther", "autogradOtherFallback")
BACKENDS = ("SparseCPU", "SparseCUDA", "SparseMeta", "FPGA", "CPU", "CUDA", "Meta")
AUTOGRAD = ("AutogradNestedTensor", "AutogradCPU", "AutogradCUDA", "AutogradMeta", "AutogradOther")


def table(keys, regs) -> dict[str, tuple]:
    entries, unknown = compute(keys, [*FALLBACKS, *regs])
    assert unknown == []
    return {e.key: (e.kind, e.from_key, e.reg.kernel if e.reg else None) for e in entries if e.op == "aten::f"}


# ---- the keys


def test_enum_order_kinds_and_synonyms(keys):
    enum = keys.enum
    assert enum.backends == ("CPU", "CUDA", "Meta")
    assert [(k.name, k.priority) for k in enum.runtime()] == [
        ("FuncTorchDynamicLayerFrontMode", 17), ("FuncTorchVmapMode", 16), ("FuncTorchBatched", 15),
        ("AutocastCUDA", 14), ("AutocastCPU", 13), ("Tracer", 12), ("AutogradNestedTensor", 11),
        ("AutogradCPU", 10), ("AutogradCUDA", 10), ("AutogradMeta", 10), ("AutogradOther", 9),
        ("ADInplaceOrView", 8), ("Conjugate", 7), ("Functionalize", 6), ("Python", 5), ("BackendSelect", 4),
        ("SparseCPU", 3), ("SparseCUDA", 3), ("SparseMeta", 3), ("FPGA", 2), ("CPU", 1), ("CUDA", 1), ("Meta", 1)]
    assert {n for n, k in enum.keys.items() if k.kind == "alias"} == {
        "Autograd", "CompositeImplicitAutograd", "FuncTorchBatchedDecomposition",
        "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"}
    assert {n: k.same_as for n, k in enum.keys.items() if k.kind == "synonym"} == {
        "CPUTensorId": "CPU", "DefaultBackend": "CompositeExplicitAutograd", "Autocast": "AutocastCUDA"}
    cpu = enum.keys["AutogradCPU"]
    assert (cpu.kind, cpu.functionality, cpu.backend, cpu.line) == ("runtime", "AutogradFunctionality", "CPU", 12)
    assert enum.keys["Dense"].kind == "per_backend" and enum.keys["FPGA"].line == 29


def test_alias_coverage_from_runtime_dispatch_key_set_has(keys):
    assert keys.covers == {
        "Autograd": AUTOGRAD,
        "CompositeImplicitAutograd": AUTOGRAD + ("Functionalize",) + BACKENDS,
        "FuncTorchBatchedDecomposition": ("FuncTorchBatched",),
        "CompositeImplicitAutogradNestedTensor": ("AutogradNestedTensor",),
        "CompositeExplicitAutograd": BACKENDS,
        "CompositeExplicitAutogradNonFunctional": ("FPGA", "CPU", "CUDA"),  # no Sparse, no Meta
    }
    assert keys.covered_by("CPU") == ("CompositeImplicitAutograd", "CompositeExplicitAutograd",
                                      "CompositeExplicitAutogradNonFunctional")


def test_per_backend_switches(keys):
    assert keys.runtime_in(keys.autograd_related["CPU"]) == ["AutogradCPU", "ADInplaceOrView"]
    assert keys.runtime_in(keys.autograd_related["Meta"]) == ["AutogradOther", "ADInplaceOrView"]  # default:
    assert keys.runtime_in(keys.autocast_related["CUDA"]) == ["AutocastCUDA"]
    assert keys.runtime_in(keys.autocast_related["Meta"]) == []
    assert keys.runtime_in(keys.from_autograd["AutogradCUDA"]) == ["CUDA"]
    assert keys.runtime_in(keys.from_autograd["AutogradOther"]) == ["SparseCPU", "SparseCUDA", "SparseMeta", "FPGA"]
    assert keys.runtime_in(keys.sets["after_func_keyset"]) == [
        "Python", "BackendSelect", "SparseCPU", "SparseCUDA", "SparseMeta", "FPGA", "CPU", "CUDA", "Meta"]


@pytest.mark.parametrize("path, old, new, message", [
    ("c10/core/DispatchKey.h", "C10_FORALL_FUNCTIONALITY_KEYS(_)", "FUNCTIONALITIES(_)",
     "c10/core/DispatchKey.h: no #define C10_FORALL_FUNCTIONALITY_KEYS"),
    ("c10/core/DispatchKey.h", "enum class DispatchKey :", "enum class Key :",
     "c10/core/DispatchKey.h: no enum class DispatchKey with backends and functionality keys"),
    ("c10/core/DispatchKey.h", "  StartOfAliasKeys = Autograd,\n", "",
     "c10/core/DispatchKey.h: enum DispatchKey lacks StartOfAliasKeys/EndOfAliasKeys"),
    ("c10/core/DispatchKeySet.cpp", "bool runtimeDispatchKeySetHas(", "bool aliasHas(",
     "c10/core/DispatchKeySet.h: no switch in runtimeDispatchKeySetHas"),
    ("c10/core/DispatchKeySet.cpp", "math_dispatch_keyset.has(k)", "math_dispatch_keyset.contains(k)",
     "c10/core/DispatchKeySet.h: cannot read `math_dispatch_keyset.contains(k)`"),
    ("c10/core/DispatchKeySet.cpp", "return nested_dispatch_keyset.has(k);", "return nested_keys.has(k);",
     "c10/core/DispatchKeySet.h: unknown name nested_keys"),
])
def test_unknown_layout_is_one_line(path, old, new, message):
    src = sources()
    assert old.encode() in src[path]
    src[path] = src[path].replace(old.encode(), new.encode())
    with pytest.raises(DispatchKeysError) as err:
        keymodel.read(src)
    assert str(err.value) == message


def test_missing_header():
    src = sources()
    del src["c10/core/DispatchKeySet.cpp"]
    with pytest.raises(DispatchKeysError, match=r"^c10/core/DispatchKeySet.cpp missing$"):
        keymodel.read(src)


# ---- the rules of computeDispatchTableEntryWithDebug


def test_kernel_then_default_backend_kernel(keys):
    got = table(keys, [reg("aten::f", "CPU", "f_cpu"), reg("aten::f", "CompositeExplicitAutograd", "f_cea")])
    assert got == {**FALLBACK_ENTRIES, "CPU": ("kernel", "CPU", "f_cpu"), "AutogradOther": OTHER_FALLBACK,
                   **{k: ("default backend kernel", "CompositeExplicitAutograd", "f_cea") for k in BACKENDS if k != "CPU"}}


def test_non_functional_before_explicit(keys):
    got = table(keys, [reg("aten::f", "CompositeExplicitAutogradNonFunctional", "f_nf"),
                       reg("aten::f", "DefaultBackend", "f_cea")])  # DefaultBackend = CompositeExplicitAutograd
    nf = ("default backend kernel", "CompositeExplicitAutogradNonFunctional", "f_nf")
    cea = ("default backend kernel", "CompositeExplicitAutograd", "f_cea")
    assert {k: got[k] for k in BACKENDS} == {"SparseCPU": cea, "SparseCUDA": cea, "SparseMeta": cea,
                                            "FPGA": nf, "CPU": nf, "CUDA": nf, "Meta": cea}


def test_math_kernel_everywhere_it_covers(keys):
    got = table(keys, [reg("aten::f", "CompositeImplicitAutograd", "f_math")])
    math = ("math kernel", "CompositeImplicitAutograd", "f_math")
    assert got == {**FALLBACK_ENTRIES, **{k: math for k in AUTOGRAD + ("Functionalize",) + BACKENDS}}


def test_math_kernel_not_for_an_autograd_key_whose_backend_has_a_kernel(keys):
    got = table(keys, [reg("aten::f", "CompositeImplicitAutograd", "f_math"), reg("aten::f", "CPU", "f_cpu")])
    assert "AutogradCPU" not in got  # has_backend_kernel, no Autograd kernel, no fallback: missing
    assert got["AutogradCUDA"] == got["AutogradOther"] == ("math kernel", "CompositeImplicitAutograd", "f_math")
    assert got["CPU"] == ("kernel", "CPU", "f_cpu")


def test_ambiguous_autograd_other(keys):
    got = table(keys, [reg("aten::f", "CompositeImplicitAutograd", "f_math"), reg("aten::f", "SparseCPU", "f_sp")])
    assert got["AutogradOther"] == ("ambiguous autogradother", None, None)
    assert got["AutogradCPU"] == ("math kernel", "CompositeImplicitAutograd", "f_math")


def test_explicit_autograd_kernel_wins_over_math_for_autograd_keys(keys):
    got = table(keys, [reg("aten::f", "CompositeImplicitAutograd", "f_math"),
                       reg("aten::f", "CompositeExplicitAutograd", "f_cea"), reg("aten::f", "Autograd", "f_ag")])
    assert {k: got[k] for k in AUTOGRAD} == {k: ("autograd kernel", "Autograd", "f_ag") for k in AUTOGRAD}
    assert "Functionalize" not in got  # a CompositeExplicitAutograd kernel is a backend kernel for every key (:320)
    assert got["CPU"] == ("default backend kernel", "CompositeExplicitAutograd", "f_cea")


def test_nested_and_batched_kernels(keys):
    got = table(keys, [reg("aten::f", "CompositeImplicitAutogradNestedTensor", "f_nested"),
                       reg("aten::f", "FuncTorchBatchedDecomposition", "f_batched")])
    assert got == {**FALLBACK_ENTRIES,
                   "AutogradNestedTensor": ("nested kernel", "CompositeImplicitAutogradNestedTensor", "f_nested"),
                   "FuncTorchBatched": ("batched kernel", "FuncTorchBatchedDecomposition", "f_batched"),
                   "AutogradOther": OTHER_FALLBACK}


def test_latest_registration_wins_and_others_counted(keys):
    regs = [reg("aten::f", "CPU", "f_generated"), reg("aten::f", "CPU", "f_by_hand", "handwritten", line=9),
            reg("aten::f", "CPU", "f_python", "python", line=3)]
    entries, _ = compute(keys, regs)
    cpu = [e for e in entries if e.key == "CPU"]
    assert [(e.reg.kernel, e.others) for e in cpu] == [("f_python", 2)]
    entries, _ = compute(keys, regs[:2])
    assert [(e.reg.kernel, e.others) for e in entries if e.key == "CPU"] == [("f_by_hand", 1)]


def test_defs_ignored_and_unknown_keys_reported(keys):
    entries, unknown = compute(keys, [reg("aten::f", "XLA", "f_xla"), reg("aten::f", "Dense", "f_dense"),
                                      Registration("aten::f", None, None, "handwritten", "a.cpp", 1, False, "def")])
    assert entries == [] and unknown == ["XLA", "Dense"]


# ---- the stage and the walk


def staged(regs: list[Registration]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    from sqlalchemy import create_engine

    from tg_index.schema import Base

    engine = create_engine("sqlite://", creator=lambda: conn)
    Base.metadata.create_all(engine)
    conn.executemany("INSERT INTO dispatcher_registrations (op, key, kind, source, generator, kernel, file, line, "
                     "fallthrough, not_implemented) VALUES (?, ?, ?, ?, 'g', ?, ?, ?, ?, 0)",
                     [(r.op, r.key, r.kind, r.source, r.kernel, r.file, r.line, int(r.fallthrough)) for r in regs])
    assert table_stage.write(conn, sources()) is None
    return conn


REGS = [*FALLBACKS,
        reg("aten::f", "CPU", "f_cpu"), reg("aten::f", "CUDA", "f_cuda"), reg("aten::f", "Autograd", "VariableType::f"),
        reg("aten::f_", "CPU", "f__cpu"), reg("aten::f_", "Autograd", "VariableType::f_"),
        reg("aten::f_", "ADInplaceOrView", "ADInplaceOrView::f_"), reg("aten::f_", "AutocastCUDA", "autocast_f_", "handwritten", line=7),
        reg("aten::ones", "BackendSelect", "ones"), reg("aten::ones", "CompositeExplicitAutograd", "ones_cea"),
        reg("aten::v", "CompositeExplicitAutograd", "v_cea"), reg("aten::v", "Functionalize", "functionalization::v"),
        reg("aten::v", "ADInplaceOrView", "ADInplaceOrView::v"), reg("aten::v", "Autograd", "VariableType::v")]


def visits(conn, op, factory=False, **flags) -> list[tuple]:
    keys, got = dispatch.walk(conn, op, dispatch.Flags(**flags), factory)
    return [keys, [(v.key, v.action, v.kind, v.from_key) for v in got]]


def test_stage_writes_keys_sets_and_table():
    conn = staged(REGS)
    assert conn.execute("SELECT kind, priority, functionality, backend, covered_by, line FROM dispatch_keys "
                        "WHERE name = 'AutogradCUDA'").fetchone() == (
        "runtime", 10, "AutogradFunctionality", "CUDA", json.dumps(["Autograd", "CompositeImplicitAutograd"]), 12)
    assert conn.execute("SELECT kind, priority, same_as FROM dispatch_keys WHERE name = 'Autocast'").fetchone() == (
        "synonym", 14, "AutocastCUDA")
    assert conn.execute("SELECT functionality, backends FROM dispatch_keysets "
                        "WHERE name = 'getAutogradRelatedKeySetFromBackend(CUDA)'").fetchone() == (
        '["ADInplaceOrView", "AutogradFunctionality"]', '["CUDA"]')
    assert conn.execute("SELECT op, key, kind, fallthrough, from_key, kernel, file, line, others FROM dispatch_table "
                        "WHERE op = 'aten::f_' AND key IN ('AutocastCUDA', 'ADInplaceOrView', 'Meta') ORDER BY id").fetchall() == [
        ("aten::f_", "AutocastCUDA", "kernel", 0, "AutocastCUDA", "autocast_f_", "handwritten.cpp", 7, 0),
        ("aten::f_", "ADInplaceOrView", "kernel", 0, "ADInplaceOrView", "ADInplaceOrView::f_", "generated.cpp", None, 0)]


def test_walk_cpu_without_grad():
    assert visits(staged(REGS), "aten::f") == [
        ["AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU"],
        [("AutogradCPU", dispatch.NO_RECORD, "autograd kernel", "Autograd"),
         ("ADInplaceOrView", dispatch.FALLS, "backend fallback", "ADInplaceOrView"),
         ("BackendSelect", dispatch.FALLS, "backend fallback", "BackendSelect"),
         ("CPU", dispatch.HANDLES, "kernel", "CPU")]]


def test_walk_cuda_inplace_with_grad_under_autocast():
    assert visits(staged(REGS), "aten::f_", device="cuda", requires_grad=True, autocast=True) == [
        ["AutocastCUDA", "AutogradCUDA", "ADInplaceOrView", "BackendSelect", "CUDA"],
        [("AutocastCUDA", dispatch.RUNS, "kernel", "AutocastCUDA"),
         ("AutogradCUDA", dispatch.RECORDS, "autograd kernel", "Autograd"),
         ("ADInplaceOrView", dispatch.RUNS, "kernel", "ADInplaceOrView"),
         ("BackendSelect", dispatch.FALLS, "backend fallback", "BackendSelect"),
         ("CUDA", dispatch.FAILS, None, None)]]  # f_ has no CUDA kernel: the call fails there


def test_walk_factory_through_backend_select():
    assert visits(staged(REGS), "aten::ones", factory=True, device="meta") == [
        ["ADInplaceOrView", "BackendSelect"],
        [("ADInplaceOrView", dispatch.FALLS, "backend fallback", "ADInplaceOrView"),
         ("BackendSelect", dispatch.TO_BACKEND, "kernel", "BackendSelect"),
         ("Meta", dispatch.HANDLES, "default backend kernel", "CompositeExplicitAutograd")]]


def test_walk_view_under_functionalize_skips_ad_inplace_or_view():
    assert visits(staged(REGS), "aten::v", functionalize=True) == [
        ["AutogradCPU", "ADInplaceOrView", "Functionalize", "BackendSelect", "CPU"],
        [("AutogradCPU", dispatch.NO_RECORD, "autograd kernel", "Autograd"),
         ("ADInplaceOrView", dispatch.RUNS, "kernel", "ADInplaceOrView"),
         ("Functionalize", dispatch.RUNS, "kernel", "Functionalize"),
         ("BackendSelect", dispatch.FALLS, "backend fallback", "BackendSelect"),
         ("CPU", dispatch.HANDLES, "default backend kernel", "CompositeExplicitAutograd")]]


def test_walk_inference_mode_and_vmap_key_sets():
    conn = staged(REGS)
    assert visits(conn, "aten::f", inference_mode=True)[0] == ["BackendSelect", "CPU"]
    assert visits(conn, "aten::f", vmap=True, device="meta")[0] == [
        "FuncTorchDynamicLayerFrontMode", "FuncTorchVmapMode", "FuncTorchBatched", "AutogradOther",
        "ADInplaceOrView", "BackendSelect", "Meta"]


def test_walk_bad_device_and_no_keys():
    with pytest.raises(Exception, match=r"^unknown device 'xla'; one of: cpu, cuda, meta, mps$"):
        visits(staged(REGS), "aten::f", device="xla")
    conn = staged(REGS)
    conn.execute("DELETE FROM dispatch_keysets")
    with pytest.raises(Exception, match=r"^the index has no dispatch keys \(c10/core/DispatchKey.h was not read\); "
                                        r"rebuild it with `tg-index` from a whole checkout$"):
        visits(conn, "aten::f")


def test_is_factory():
    assert dispatch.is_factory("ones(SymInt[] size, *, ScalarType? dtype=None) -> Tensor")
    assert not dispatch.is_factory("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)")
    assert not dispatch.is_factory("cat(Tensor[] tensors, int dim=0) -> Tensor")


# ---- the commands, on the fixture checkout with the key headers


@pytest.fixture(scope="module")
def keyed_db(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("keyed") / "mini"
    shutil.copytree(MINI, root)
    shutil.copytree(KEYS_DIR / "c10", root / "c10")
    (root / "aten/src/ATen/core").mkdir(parents=True, exist_ok=True)
    (root / "aten/src/ATen/core/Fallbacks.cpp").write_text(
        "TORCH_LIBRARY_IMPL(_, ADInplaceOrView, m) {\n  m.fallback(torch::CppFunction::makeFallthrough());\n}\n"
        "TORCH_LIBRARY_IMPL(_, BackendSelect, m) {\n  m.fallback(torch::CppFunction::makeFallthrough());\n}\n")
    db = root.parent / "keyed.db"
    done = run("tg-index", str(root), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stderr
    return db


def test_dispatch_command_text_and_json(keyed_db):
    done = run("tg-query", "--db", str(keyed_db), "dispatch", "add.Tensor", "--depth", "0")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["aten::add.Tensor  (device cpu)", "  key set: AutogradCPU, ADInplaceOrView, BackendSelect, CPU"]
    assert lines[2].startswith("  AutogradCPU      runs (no input requires grad: records nothing) and redispatches "
                               "below itself  [autograd kernel <- Autograd] VariableType::add_Tensor  [generated VariableType_")
    assert lines[3:5] == [
        "  ADInplaceOrView  falls through  [backend fallback] torch::CppFunction::makeFallthrough()  aten/src/ATen/core/Fallbacks.cpp:2",
        "  BackendSelect    falls through  [backend fallback] torch::CppFunction::makeFallthrough()  aten/src/ATen/core/Fallbacks.cpp:5"]
    assert lines[5].startswith("  CPU              handles the call  [kernel] ")
    data = json.loads(run("tg-query", "--db", str(keyed_db), "dispatch", "add.Tensor", "--json", "--depth", "0").stdout)
    assert [v["key"] for v in data["visits"]] == ["AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU"]
    assert (data["op"], data["device"], data["factory"], data["handler"]["key"]) == ("aten::add.Tensor", "cpu", False, "CPU")


def test_dispatch_command_errors(keyed_db, mini_db):
    bad = run("tg-query", "--db", str(keyed_db), "dispatch", "add.Tensor", "--device", "tpu")
    assert (bad.returncode, bad.stdout, bad.stderr) == (1, "", "error: unknown device 'tpu'; one of: cpu, cuda, meta, mps\n")
    bad = run("tg-query", "--db", str(keyed_db), "dispatch", "add.Tensr")
    assert bad.returncode == 1 and bad.stderr.startswith("error: unknown op 'add.Tensr'; did you mean 'add.Tensor'")
    bad = run("tg-query", "--db", str(mini_db), "dispatch", "add.Tensor")
    assert bad.stderr == ("error: the index has no dispatch keys (c10/core/DispatchKey.h was not read); "
                          "rebuild it with `tg-index` from a whole checkout\n")


def test_export_dispatch_table(keyed_db):
    done = run("tg-query", "--db", str(keyed_db), "export", "dispatch-table")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert list(rows[0]) == ["op", "key", "kind", "fallthrough", "from_key", "kernel", "file", "line"]
    ad = [r for r in rows if r["op"] == "aten::relu" and r["key"] == "ADInplaceOrView"]
    assert ad == [{"op": "aten::relu", "key": "ADInplaceOrView", "kind": "backend fallback", "fallthrough": 1,
                   "from_key": "ADInplaceOrView", "kernel": "torch::CppFunction::makeFallthrough()",
                   "file": "aten/src/ATen/core/Fallbacks.cpp", "line": 2}]


def test_unknown_layout_is_a_warning_in_the_build_summary(tmp_path):
    from tg_index.indexer.build import build

    root = tmp_path / "mini"
    shutil.copytree(MINI, root)
    shutil.copytree(KEYS_DIR / "c10", root / "c10")
    header = root / "c10/core/DispatchKey.h"
    header.write_text(header.read_text().replace("enum class DispatchKey :", "enum class Key :"))
    warning = ("dispatch keys not read (c10/core/DispatchKey.h: no enum class DispatchKey with backends and "
               "functionality keys); no computed dispatch table")
    first = build(root, tmp_path / "i.db")
    assert first.warnings == (warning,)
    assert f", {warning} in " in str(first)
    again = build(root, tmp_path / "i.db")  # nothing changed: the summary comes from the index
    assert again.warnings == (warning,)
    with sqlite3.connect(tmp_path / "i.db") as conn:
        assert conn.execute("SELECT count(*) FROM dispatch_keys").fetchone() == (0,)
