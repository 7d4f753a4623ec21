"""tree-sitter plumbing: the language of a file, the parsers and the combined query (cached per process).

The query is built from the .scm files of indexer/scm/ (scm/cpp/*.scm, plus
scm/cuda/*.scm for CUDA): patterns are data, with a fixed capture-name
convention that the extractor reads (definition, call.fn, define.name, launch ...).
Every pattern in a query costs a walk over every node, so the combined query
holds only what most files need.
"""

from __future__ import annotations

import functools
import operator
import re
from pathlib import Path

SCM = Path(__file__).parent.parent / "scm"
_CUDA_MARKERS = re.compile(rb"__global__|__device__|<<<")

position = operator.attrgetter("start_byte", "end_byte")  # a node's place in the file, for sorting
# Captures read by offset (arity.argument_lists) or sorted by their reader only when it needs
# them (receivers.py): left as the query gives them.
UNORDERED = frozenset(("call.args", "decl", "decl.name"))


def uncommented(node) -> list:
    """A node's named children without its comments: a block's statements, an argument list's arguments."""
    return [c for c in node.named_children if c.type != "comment"]


def language_for(path: str, source: bytes = b"") -> str:
    """"cuda" for .cu/.cuh and for headers that use CUDA syntax, else "cpp"."""
    low = path.lower()
    if low.endswith((".cu", ".cuh")):
        return "cuda"
    if low.endswith((".h", ".hpp", ".hxx", ".inl")) and _CUDA_MARKERS.search(source):
        return "cuda"
    return "cpp"


@functools.lru_cache(maxsize=None)
def language(name: str):
    import tree_sitter as ts

    if name == "cuda":
        import tree_sitter_cuda

        return ts.Language(tree_sitter_cuda.language())
    import tree_sitter_cpp

    return ts.Language(tree_sitter_cpp.language())


def query_source(name: str) -> str:
    dirs = ["cpp"] + (["cuda"] if name == "cuda" else [])
    return "\n".join(p.read_text() for d in dirs for p in sorted((SCM / d).glob("*.scm")))


@functools.lru_cache(maxsize=None)
def tools(name: str):
    """(parser, combined query) of a language."""
    import tree_sitter as ts

    lang = language(name)
    return ts.Parser(lang), ts.Query(lang, query_source(name))


def parse(source: bytes, language: str):
    """Bare parse (for benchmarks): the tree."""
    return tools(language)[0].parse(source)


_WIDE = 256  # an ERROR node with more children than this is queried child by child


def captures(tree, language: str, errors: list) -> dict[str, list]:
    """The combined query's captures by name, each list in document order (errors: the
    tree's ERROR nodes, see damage).

    tree-sitter does not return captures in document order; sorted (but the UNORDERED ones),
    the facts do not depend on it (a macro #defined twice: the later one wins, as in the preprocessor)."""
    import tree_sitter as ts

    query = tools(language)[1]
    root = tree.root_node
    if not any(e.child_count > _WIDE for e in errors):
        return {k: v if k in UNORDERED else sorted(v, key=position)
                for k, v in ts.QueryCursor(query).captures(root).items()}
    got: dict[str, list] = {}
    for part in _damaged_parts(root, query, ts):
        for k, v in part.items():
            got.setdefault(k, []).extend(v)
    return {k: v if k in UNORDERED else sorted(v, key=position) for k, v in got.items()}


def _damaged_parts(root, query, ts):
    """The captures of a damaged tree, node by node along the damage.

    tree-sitter's query cursor is quadratic in the number of children of an ERROR node
    (100,000 `{` cost it 25 s, and walking the same tree 10 ms). So where an ERROR node
    is wide, a node that holds damage is queried for the patterns that start at it alone (max_start_depth 0), and
    each of its children on its own: a child without damage in one query, a damaged one
    in the same way. No pattern of ours relates a node to its siblings, so the captures
    are the same as one query's over the root."""
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.has_error:
            yield ts.QueryCursor(query).captures(node)
            continue
        top = ts.QueryCursor(query)
        top.set_max_start_depth(0)
        yield top.captures(node)
        stack.extend(node.children)


def damage(root) -> tuple[list, list]:
    """The ERROR and MISSING nodes of a tree, in document order.

    Walks only the nodes that hold parse damage (has_error), which is far
    cheaper than an (ERROR)/(MISSING) query over every node; an ERROR nested
    in an ERROR may not say has_error itself, so ERROR nodes are entered too."""
    errors: list = []
    missing: list = []
    if not root.has_error:
        return errors, missing
    stack = [root]
    while stack:
        n = stack.pop()
        if n.is_missing:
            missing.append(n)
        elif n.is_error:
            errors.append(n)
        stack.extend(c for c in reversed(n.children) if c.has_error or c.is_error)
    return errors, missing
