"""Answers sized for a context window: a window of an answer's units that fits a byte budget.

An answer is a sequence of units (the keys of kernels-for, the rows of sql, the
hops and ops of trace ...). `fit` takes the units from `offset` on, at most
`limit` of them, as many as render within `budget` bytes, and says what was
left out. Rendering is the caller's: it returns the bytes of the whole page
(structured JSON plus text), so the bound holds for what is really sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

BUDGET = 32_000  # bytes of one answer (structured JSON + text): about 8k tokens

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    offset: int  # the first unit shown
    end: int  # one past the last unit shown
    total: int  # units in the whole answer
    limit: int | None  # the limit asked for
    budget: int
    shrunk: bool = False  # the one unit shown was cut to fit the budget

    @property
    def truncated(self) -> bool:
        return self.shrunk or self.offset > 0 or self.end < self.total

    @property
    def next_offset(self) -> int | None:
        return self.end if self.end < self.total else None

    def envelope(self, unit: str, narrower: str) -> dict[str, object]:
        """The fields every paged answer carries; `note` says how to get the rest."""
        return {"offset": self.offset, "returned": self.end - self.offset, "total": self.total,
                "truncated": self.truncated, "next_offset": self.next_offset, "note": self.note(unit, narrower)}

    def note(self, unit: str, narrower: str) -> str | None:
        if not self.truncated:
            return None
        shown = f"{unit} {self.offset}-{self.end - 1} of {self.total} shown" if self.end > self.offset else \
            f"no {unit} from offset {self.offset} of {self.total}"
        why = f"cut at {self.budget} bytes" if self.limit is None or self.end - self.offset < self.limit else \
            f"limit {self.limit}"
        parts = [f"truncated ({why}): {shown}"]
        if self.shrunk:
            parts.append(f"the {unit.rstrip('s')} shown was itself cut to fit; {narrower}")
        if self.next_offset is not None:
            parts.append(f"call again with offset={self.next_offset} for the rest, or {narrower}")
        return "; ".join(parts)


def fit(units: Sequence[T], offset: int, limit: int | None, render: Callable[[Sequence[T]], int],
        budget: int = BUDGET) -> Page:
    """The largest window units[offset:end] (at most limit units) whose page renders within budget.

    At least one unit is taken when any is left, even if it alone is over the budget: the caller
    then shrinks it (Page.shrunk) with `shrink`."""
    total = len(units)
    offset = max(0, min(offset, total))
    top = total if limit is None else min(total, offset + max(limit, 0))
    if top <= offset:
        return Page(offset, offset, total, limit, budget)
    if render(units[offset:top]) <= budget:  # the common case: everything asked for fits
        return Page(offset, top, total, limit, budget)
    low, high = offset + 1, top - 1  # the answer lies in [low, high]
    while low < high:
        mid = (low + high + 1) // 2
        if render(units[offset:mid]) <= budget:
            low = mid
        else:
            high = mid - 1
    return Page(offset, low, total, limit, budget)


def shrink(count: int, render: Callable[[int], int], budget: int = BUDGET) -> int:
    """The largest n <= count (at least 0) for which render(n) fits the budget: how much of one
    over-long unit (its chain, its cells) to keep."""
    low, high = 0, count
    while low < high:
        mid = (low + high + 1) // 2
        if render(mid) <= budget:
            low = mid
        else:
            high = mid - 1
    return low
