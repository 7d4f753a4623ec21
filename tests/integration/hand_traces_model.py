"""The shape of a hand-verified kernels-for trace: an op, a dispatch key, and the expert's chain as
file:line steps read in the PyTorch sources (the data lives in hand_traces_Y*.py)."""

from __future__ import annotations

from dataclasses import dataclass

TREES = ("2.6.0", "1.13.1")


@dataclass(frozen=True)
class Expect:
    """One step of the expert's chain: `name` is a fragment the step's name (or detail) must contain,
    `at` is "path:line" relative to the tree root (1-based), `what` a short word for the reader."""

    name: str
    at: str
    what: str

    def __post_init__(self) -> None:
        path, _, line = self.at.rpartition(":")
        if not path or not line.isdigit() or int(line) < 1:
            raise ValueError(f"Expect({self.name!r}): at={self.at!r} is not 'path:line'")
        if not self.name:
            raise ValueError(f"Expect at {self.at}: empty name")

    @property
    def file(self) -> str:
        return self.at.rpartition(":")[0]

    @property
    def line(self) -> int:
        return int(self.at.rpartition(":")[2])


@dataclass(frozen=True)
class Trace:
    """An op's chain for one dispatch key in one tree, as a kernel engineer reads it."""

    tree: str
    op: str
    key: str
    why: str
    steps: tuple[Expect, ...]

    def __post_init__(self) -> None:
        if self.tree not in TREES:
            raise ValueError(f"Trace({self.op}, {self.key}): unknown tree {self.tree!r}")
        if not self.steps:
            raise ValueError(f"Trace({self.op}, {self.key}): no steps")

    @property
    def id(self) -> str:
        return f"{self.op}-{self.key}" + ("" if self.tree == "2.6.0" else f"-{self.tree}")
