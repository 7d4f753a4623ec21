"""A chain is walked breadth-first, and its steps' `parent` indices make it a tree: text prints each step right
below the step it was found under, and dot and mermaid draw each edge from that step.

The chain below has the shape of 2.6.0's elementwise CUDA helpers (aten/src/ATen/native/cuda/CUDALoops.cuh:
gpu_kernel_impl calls gpu_kernel_impl_nocast at :323 and launch_unrolled_kernel at :361; gpu_kernel_impl_nocast
calls launch_vectorized_kernel at :309; each launch helper launches its __global__), in the order the walk makes
it: both of gpu_kernel_impl's calls before anything below either.
"""

from __future__ import annotations

from tg_index.indexer.facts import Location
from tg_index.indexer.vocab import StepKind
from tg_index.queries.render import chain_lines, kernels_for_dot, kernels_for_mermaid, kernels_for_text, tree_order
from tg_index.queries.results import KernelsFor, KeyKernel, Step

F = "CUDALoops.cuh"


def _chain() -> tuple[Step, ...]:
    at = lambda line: Location(F, line)  # noqa: E731
    return (
        Step(StepKind.CALL, "gpu_kernel_impl", at(321), depth=0),  # 0
        Step(StepKind.CALL, "gpu_kernel_impl_nocast", at(289), depth=1, site=at(323), parent=0),  # 1
        Step(StepKind.CALL, "launch_unrolled_kernel", at(190), depth=1, site=at(361), parent=0),  # 2
        Step(StepKind.CALL, "launch_vectorized_kernel", at(145), depth=2, site=at(309), parent=1),  # 3
        Step(StepKind.LAUNCH, "unrolled_elementwise_kernel", at(202), depth=2, detail="<<<g, b>>>", parent=2),  # 4
        Step(StepKind.GLOBAL_KERNEL, "unrolled_elementwise_kernel", at(128), depth=2, parent=2),  # 5
        Step(StepKind.LAUNCH, "vectorized_elementwise_kernel", at(159), depth=3, detail="<<<g, b>>>", parent=3),  # 6
        Step(StepKind.GLOBAL_KERNEL, "vectorized_elementwise_kernel", at(92), depth=3, parent=3),  # 7
        Step(StepKind.DTYPES, "add", at(10), depth=0, detail="float, double"),  # 8
    )


def _answer(chain: tuple[Step, ...]) -> KernelsFor:
    key = KeyKernel("CUDA", "add_kernel", "yaml", "at::native", None, Location("native_functions.yaml", 1),
                    Location(F, 1), "at::native::add_kernel", chain=chain)
    return KernelsFor("add", "add(Tensor self) -> Tensor", Location("native_functions.yaml", 1), False, None, (key,))


def test_tree_order_puts_each_subtree_right_after_its_step():
    assert tree_order(_chain()) == [0, 1, 3, 6, 7, 2, 4, 5, 8]


def test_a_parent_that_does_not_come_before_its_step_makes_a_root():
    chain = (Step(StepKind.CALL, "a", None, parent=1), Step(StepKind.CALL, "b", None, parent=-1),
             Step(StepKind.CALL, "c", None, depth=1, parent=0))
    assert tree_order(chain) == [0, 2, 1]
    assert tree_order(()) == []


def test_text_prints_each_step_below_its_parent_indented_by_depth():
    assert chain_lines(_chain(), indent="") == [
        f"calls gpu_kernel_impl  {F}:321",
        f"  calls gpu_kernel_impl_nocast  {F}:289  (at {F}:323)",
        f"    calls launch_vectorized_kernel  {F}:145  (at {F}:309)",
        f"      launch vectorized_elementwise_kernel (<<<g, b>>>)  {F}:159",
        f"      __global__ vectorized_elementwise_kernel  {F}:92",
        f"  calls launch_unrolled_kernel  {F}:190  (at {F}:361)",
        f"    launch unrolled_elementwise_kernel (<<<g, b>>>)  {F}:202",
        f"    __global__ unrolled_elementwise_kernel  {F}:128",
        f"dtypes add float, double  {F}:10",
    ]
    text = kernels_for_text([_answer(_chain())])
    assert f"\n          calls launch_vectorized_kernel  {F}:145" in text  # the key's indent, then the depth's


def test_dot_and_mermaid_draw_each_step_from_its_parent():
    dot = kernels_for_dot([_answer(_chain())])
    assert '"gpu_kernel_impl_nocast" -> "launch_vectorized_kernel" [label="call"]' in dot
    assert '"launch_unrolled_kernel" -> "launch_vectorized_kernel"' not in dot  # the last call one level up
    assert '"launch_unrolled_kernel" -> "unrolled_elementwise_kernel" [label="launch"]' in dot
    # a __global__ hangs from its launch; a step of the kernel's own body from the kernel
    assert '"vectorized_elementwise_kernel" -> "vectorized_elementwise_kernel" [label="global_kernel"]' in dot
    assert '"at::native::add_kernel" -> "gpu_kernel_impl" [label="call"]' in dot
    assert '"at::native::add_kernel" -> "add: float, double" [label="dtypes"]' in dot
    mermaid = kernels_for_mermaid([_answer(_chain())])
    assert any('["gpu_kernel_impl_nocast"] -->|call| ' in line and line.endswith('["launch_vectorized_kernel"]')
               for line in mermaid.splitlines())


def test_a_definition_hangs_from_its_registration_and_a_registration_from_its_stub():
    at = lambda line: Location("Unary.cpp", line)  # noqa: E731
    chain = (Step(StepKind.STUB, "abs_stub", at(5)), Step(StepKind.REGISTERED, "CPU_CAPABILITY::abs_kernel", at(9),
                                                          device="CPU"),
             Step(StepKind.DEFINITION, "at::native::CPU_CAPABILITY::abs_kernel", at(7)),
             Step(StepKind.REGISTERED, "nullptr", at(9), device="CPU", detail="AVX512"),
             Step(StepKind.CALL, "cpu_kernel", at(3), depth=1, parent=2))
    dot = kernels_for_dot([_answer(chain)])
    assert '"abs_stub" -> "CPU_CAPABILITY::abs_kernel" [label="registered"]' in dot
    assert '"CPU_CAPABILITY::abs_kernel" -> "at::native::CPU_CAPABILITY::abs_kernel" [label="definition"]' in dot
    # the call below the definition is drawn from it, not from the last registration (nullptr)
    assert '"at::native::CPU_CAPABILITY::abs_kernel" -> "cpu_kernel" [label="call"]' in dot
    assert '"nullptr" -> "cpu_kernel"' not in dot
    # a redispatched op's kernel hangs from the redispatch, as the brief reads it (results.block_parents)
    chain = (Step(StepKind.REDISPATCH, "copy_", at(12)), Step(StepKind.DEFINITION, "at::native::copy_", at(30)))
    assert '"copy_" -> "at::native::copy_" [label="definition"]' in kernels_for_dot([_answer(chain)])
