"""The link stage on tests/fixtures/link: one construct of C++ name resolution per file, each edge
pinned with its target and how it was found (read in the fixture's sources, line by line)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from tg_index.indexer.build import build

from .conftest import FIXTURES

LINK = FIXTURES / "link"
N = "aten/src/ATen/native/"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("link") / "ix.db"
    build(LINK, out, jobs=1)
    return out


def edges(db: Path, src: str, kind: str) -> list[tuple]:
    """(target as written, how, the target node's name, where the edge is written, detail) of src's edges."""
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT e.target, e.how, d.name, e.file || ':' || e.line, e.detail FROM edges e JOIN nodes s ON s.id = e.src "
            "LEFT JOIN nodes d ON d.id = e.dst WHERE s.name = ? AND e.kind = ? ORDER BY e.id", (src, kind)).fetchall()


def test_a_static_function_is_seen_only_from_its_own_file(db: Path):
    assert ("helper", "same-namespace", "at::native::helper", f"{N}Scale.cpp:12", None) in \
        edges(db, "at::native::scale_cpu", "calls")
    assert ("helper", "same-namespace", "at::native::helper", f"{N}Other.cpp:11", None) in \
        edges(db, "at::native::other_user", "calls")
    with sqlite3.connect(db) as conn:  # each call reaches the static helper of its own file (Scale.cpp:7, Other.cpp:6)
        got = conn.execute("SELECT e.file, d.file, d.line FROM edges e JOIN nodes d ON d.id = e.dst "
                           "WHERE e.target = 'helper' ORDER BY e.file").fetchall()
    assert got == [(f"{N}Other.cpp", f"{N}Other.cpp", 6), (f"{N}Scale.cpp", f"{N}Scale.cpp", 7)]


def test_overloads_are_told_apart_by_argument_count(db: Path):
    with sqlite3.connect(db) as conn:  # pick(int) is Scale.h:9, pick(int, int) Scale.h:10
        got = conn.execute("SELECT e.file, e.line, e.how, d.line FROM edges e JOIN nodes d ON d.id = e.dst "
                           "WHERE e.target = 'pick' ORDER BY e.file").fetchall()
    assert got == [(f"{N}Other.cpp", 12, "overload", 9), (f"{N}Scale.cpp", 13, "overload", 10)]


def test_explicit_specialisations(db: Path):
    calls = edges(db, "at::native::gemmish_cuda", "calls")
    where = f"{N}cuda/ScaleKernel.cu"
    assert calls == [  # a dependent call reaches every specialisation; gemm<float> names one
        ("blas::gemm<scalar_t>", "specialisations", "at::native::blas::gemm<float>", f"{where}:37", "2"),
        ("blas::gemm<scalar_t>", "specialisations", "at::native::blas::gemm<double>", f"{where}:37", "2"),
        ("blas::gemm<float>", "same-namespace", "at::native::blas::gemm<float>", f"{where}:38", None)]
    assert edges(db, "at::native::gemmish_cuda", "calls-library") == [
        ("cublasSgemm", "vendor", "cublasSgemm", f"{where}:39", "cublas")]


def test_a_using_directive_brings_a_namespace_in(db: Path):
    assert edges(db, "other_user2", "calls") == [
        ("gemm<float>", "using", "at::native::blas::gemm<float>", f"{N}Other.cpp:20", None)]


def test_the_include_chain_picks_between_same_named_definitions(db: Path):
    # launch_config is defined in cuda/Helpers.cuh:3 and mps/Helpers.h:3; ScaleKernel.cu includes the first.
    calls = edges(db, "at::native::pick_kernel", "calls")
    assert ("launch_config", "include", "at::native::launch_config", f"{N}cuda/ScaleKernel.cu:53", None) in calls
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT d.file FROM edges e JOIN nodes d ON d.id = e.dst WHERE e.target = 'launch_config'"
                            ).fetchall() == [(f"{N}cuda/Helpers.cuh",)]


def test_a_kernel_chosen_by_a_conditional_is_launched_through_its_variable(db: Path):
    where = f"{N}cuda/ScaleKernel.cu:53"
    assert edges(db, "at::native::pick_kernel", "launches") == [
        ("big_kernel", "same-namespace", "at::native::big_kernel", where, "<<<1, launch_config()>>> through kernel"),
        ("small_kernel", "same-namespace", "at::native::small_kernel", where, "<<<1, launch_config()>>> through kernel")]


def test_helper_layers_down_to_the_global_kernel(db: Path):
    where = f"{N}cuda/ScaleKernel.cu"
    assert edges(db, "at::native::scale_kernel_cuda", "runs-functor") == [
        ("ScaleFunctor<float>", "type", "at::native::ScaleFunctor::operator()", f"{where}:28", "constructed")]
    assert ("my_gpu_kernel", "same-namespace", "at::native::my_gpu_kernel", f"{where}:28", None) in \
        edges(db, "at::native::scale_kernel_cuda", "calls")
    assert edges(db, "at::native::launch_it", "launches") == [
        ("elementwise", "same-namespace", "at::native::elementwise", f"{where}:18", "<<<1, 128, 0, 0>>>")]
    assert ("f", "virtual", None, f"{where}:19", "a call through a parameter (a functor, lambda or function pointer)") \
        in edges(db, "at::native::launch_it", "calls")


def test_stubs_registrations_and_redispatch(db: Path):
    assert edges(db, "scale_stub", "declared-at") == [("scale_stub", "exact", None, f"{N}Scale.h:6", None)]
    assert edges(db, "scale_stub", "defined-at") == [("scale_stub", "exact", None, f"{N}Scale.cpp:5", None)]
    assert edges(db, "scale_stub", "registers") == [
        ("scale_kernel_cuda", "registered", "at::native::scale_kernel_cuda", f"{N}cuda/ScaleKernel.cu:56", "CUDA"),
        ("scale_kernel", "registered", "at::native::(anonymous)::scale_kernel", f"{N}cpu/ScaleKernel.cpp:18",
         "CPU DEFAULT"),
        ("scale_kernel", "registered", "at::native::(anonymous)::scale_kernel", f"{N}cpu/ScaleKernel.cpp:18",
         "CPU AVX2"),
        ("nullptr", "exact", None, f"{N}cpu/ScaleKernel.cpp:18", "CPU AVX512")]
    assert edges(db, "at::native::scale_cpu", "uses-stub") == [
        ("scale_stub", "exact", "scale_stub", f"{N}Scale.cpp:14", "call")]
    assert edges(db, "at::native::twice", "redispatches-to-op") == [
        ("at::scale", "op", "scale", f"{N}Scale.cpp:19", None)]
    assert edges(db, "twice CompositeImplicitAutograd", "implements") == [
        ("twice", "exact", "at::native::twice", f"{N}Scale.cpp:18", None)]


def test_kernels_for_walks_the_graph_to_the_global_kernel(db: Path):
    from tg_index.queries.api import Index

    [answer] = Index.open(db).kernels_for("scale", ("CUDA",))
    [cuda] = answer.keys
    got = [(str(s.kind), s.name, f"{s.file}:{s.line}", s.depth) for s in cuda.chain]
    where = f"{N}cuda/ScaleKernel.cu"
    assert got == [
        ("stub", "scale_stub", f"{where}:32", 0),
        ("declared", "scale_stub", f"{N}Scale.h:6", 0),
        ("defined", "scale_stub", f"{N}Scale.cpp:5", 0),
        ("registered", "scale_kernel_cuda", f"{where}:56", 0),
        ("definition", "at::native::scale_kernel_cuda", f"{where}:27", 0),
        # definitions at the line of their name (my_gpu_kernel: 23, under `template <...>` on 22)
        ("call", "at::native::my_gpu_kernel", f"{where}:23", 1),
        ("functor", "at::native::ScaleFunctor::operator()", f"{where}:8", 1),
        ("call", "at::native::launch_it", f"{where}:17", 2),
        ("launch", "elementwise", f"{where}:18", 3),
        ("global_kernel", "at::native::elementwise", f"{where}:12", 3),
    ]


def test_doctor_counts_every_call_site_once(db: Path):
    from tg_index.queries.api import Index
    from tg_index.queries.graph_health import NAMED_CLASS, ONE_DEFINITION, SEVERAL, UNRESOLVED

    calls = Index.open(db).doctor().calls
    by_how = dict(calls.by_how)
    assert calls.sites == sum(by_how.values())
    assert calls.sites == calls.one_definition + calls.named_class + calls.several + calls.unresolved
    assert set(by_how) <= set(ONE_DEFINITION) | set(NAMED_CLASS) | set(SEVERAL) | set(UNRESOLVED)
    # `f(n)` in elementwise (ScaleKernel.cu:13), launch_it (:19) and run_32bit (Handed.h:7) calls a parameter;
    # the dependent blas::gemm<scalar_t> (:37) is the one template call; the two specialisations are one site
    assert ("virtual", "f", 3) in calls.top_unresolved
    assert by_how["specialisations"] == 1


LINK_LIBRARIES = 4  # the fixture's distinct library_calls (the real trees add vendor calls the resolver names)


def test_parts_cover_the_calls_in_order():
    from tg_index.indexer.link import parallel

    assert parallel.parts(10, 3) == [(0, 10)]  # under MIN_PART items per process: no fork
    assert parallel.parts(2 * parallel.MIN_PART + 1, 2) == [(0, 20_001), (20_001, 40_001)]
    assert parallel.parts(3 * parallel.MIN_PART, 8) == [(0, 20_000), (20_000, 40_000), (40_000, 60_000)]


def test_forked_parts_come_back_in_order(monkeypatch: pytest.MonkeyPatch):
    import os

    from tg_index.indexer.link import parallel

    monkeypatch.setattr(parallel, "MIN_PART", 1)
    got = parallel.map_parts(lambda part: [(x, os.getpid()) for x in part], list(range(7)), 3)
    assert [[x for x, _pid in part] for part in got] == [[0, 1, 2], [3, 4], [5, 6]]
    pids = [{pid for _x, pid in part} for part in got]
    assert pids[-1] == {os.getpid()} and os.getpid() not in pids[0] | pids[1]  # the last part: this process


@pytest.mark.parametrize("fixture, libraries", [("link", LINK_LIBRARIES), ("mini", 0)])
def test_the_graph_is_the_same_with_any_number_of_processes(fixture: str, libraries: int, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    from tg_index.indexer import link
    from tg_index.indexer.link import parallel

    monkeypatch.setattr(parallel, "MIN_PART", 1)  # the fixtures' few calls split over the processes too
    built = tmp_path / "ix.db"
    build(FIXTURES / fixture, built, jobs=1)
    graphs = []
    for jobs in (1, 2, 5):
        with sqlite3.connect(built) as conn:
            link.link(conn, jobs)
            graphs.append([conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in ("nodes", "edges")])
    assert sum(r[1] == "calls" for r in graphs[0][1]) > 10
    assert sum(r[1] == "library" for r in graphs[0][0]) == libraries  # vendor entry points: numbered by the main process
    assert graphs[1] == graphs[0] and graphs[2] == graphs[0]


def test_a_checkout_that_writes_no_call_links_in_two_processes(tmp_path: Path):
    """The calls are read per process from the database; with none, each part is empty (it raised IndexError)."""
    native = tmp_path / "aten/src/ATen/native"
    native.mkdir(parents=True)
    (native / "Empty.h").write_text("namespace at::native {\nstruct Nothing {};\n}\n")
    (native / "native_functions.yaml").write_text("- func: nothing(Tensor self) -> Tensor\n")
    summary = build(tmp_path, tmp_path / "ix.db", jobs=2)
    assert (summary.ops, summary.files) == (1, 2)
    with sqlite3.connect(tmp_path / "ix.db") as conn:
        assert conn.execute("SELECT count(*) FROM edges WHERE kind = 'calls'").fetchone() == (0,)


@pytest.mark.parametrize("written, how", [
    ("MTLSizeMake", "vendor"), ("dispatch_sync", "vendor"), ("vkCmdCopyImage", "vendor"),
    ("vmaGetAllocatorInfo", "vendor"), ("cutlassGetStatusString", "vendor"),
    ("vget_low_s16", "standard"), ("lrintf", "standard"), ("nearbyintf", "standard"),
    ("dispatchKey", None), ("vkernel", None), ("MTLx", None)])
def test_vendor_and_standard_names_called_unqualified(written, how):
    # Apple's Metal (MTL*) and libdispatch (dispatch_*), Vulkan (vk*) and its memory allocator (vma*), CUTLASS's
    # C functions, an Arm NEON intrinsic and C's rounding functions; names that only start alike are none
    from tg_index.indexer.link.classify import named_class

    got = named_class("", written, None, set(), set())
    assert (got.value if got is not None else None) == how
