"""Paging answers to a byte budget: the window, the cut of one over-long unit, and what the note says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tg_index.queries import mcp, paging


def test_fit_takes_the_largest_window_within_the_budget():
    units = [10, 20, 30, 40]  # each unit's bytes: a page renders to their sum
    assert paging.fit(units, 0, None, sum, budget=100) == paging.Page(0, 4, 4, None, 100)
    page = paging.fit(units, 0, None, sum, budget=59)
    assert (page.end, page.truncated, page.next_offset) == (2, True, 2)
    assert page.note("rows", "ask less") == ("truncated (cut at 59 bytes): rows 0-1 of 4 shown; call again with "
                                            "offset=2 for the rest, or ask less")
    page = paging.fit(units, 2, 1, sum, budget=1000)
    assert (page.offset, page.end, page.next_offset) == (2, 3, 3)
    assert page.note("rows", "ask less") == ("truncated (limit 1): rows 2-2 of 4 shown; call again with offset=3 "
                                            "for the rest, or ask less")
    # one unit over the budget is still taken: the caller shrinks it
    assert paging.fit([500, 1], 0, None, sum, budget=100).end == 1
    assert paging.fit(units, 9, None, sum).note("rows", "x") == (
        "truncated (cut at 32000 bytes): no rows from offset 4 of 4")
    assert paging.shrink(10, lambda n: 25 * n, budget=100) == 4
    assert paging.shrink(10, lambda n: 1000, budget=100) == 0


def test_one_key_too_long_for_the_budget_has_its_chain_cut(mini_db: Path, monkeypatch: pytest.MonkeyPatch):
    tools = mcp.Tools(mini_db)
    first = tools.kernels_for("sub.out", ["CPU"], 3, False, 0, None)
    whole = first.structured_content
    chain = whole["answers"][0]["keys"][0]["chain"]
    assert len(chain) > 2 and whole["truncated"] is False
    size = mcp._size(whole, first.content[0].text)
    monkeypatch.setattr(paging, "BUDGET", 2 * mcp.ENVELOPE + size - 300)
    result = tools.kernels_for("sub.out", ["CPU"], 3, False, 0, None)
    data = result.structured_content
    kept = data["answers"][0]["keys"][0]["chain"]
    assert 0 < len(kept) < len(chain) and kept == chain[:len(kept)]
    assert (data["truncated"], data["returned"], data["total"], data["next_offset"]) == (True, 1, 1, None)
    assert data["note"] == (f"truncated (cut at {paging.BUDGET} bytes): keys 0-0 of 1 shown; the key shown was "
                            "itself cut to fit; ask brief=true, fewer keys or a smaller depth")
    assert result.content[0].text.endswith(f"[{data['note']}]\n")
