"""The link stage: all facts -> the graph tables `nodes` and `edges` (stage.py runs it; kinds.py names
the kinds of nodes, edges and how an edge was resolved).

The read side imports only kinds.py from here (a query process must not load the extractor and the
resolver that the stage imports), so the stage's names are imported when first asked for.
"""

from __future__ import annotations

from typing import Any

from .kinds import EdgeKind, How, NodeKind

__all__ = ["GRAPH_TABLES", "link_hash", "EdgeKind", "How", "NodeKind", "LinkSummary", "link"]
_STAGE = frozenset(("GRAPH_TABLES", "link_hash", "LinkSummary", "link"))


def __getattr__(name: str) -> Any:
    if name in _STAGE:
        from . import stage

        return getattr(stage, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
