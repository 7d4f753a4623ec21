"""The file object every extraction phase works on: the source, its tree and the facts so far.

Per-call state only (no module globals): a test is one call of extract().
"""

from __future__ import annotations

import bisect
import re

from .preprocessor import Define
from .scan import Scanner, dec


class SourceFile:
    """One file being extracted. `src` is what tree-sitter parsed (prepare.py's rewrites),
    `orig` the file as written; both have the same offsets."""

    def __init__(self, source: bytes, original: bytes, path: str, macros, language: str, context: str):
        self.src = source
        self.orig = original
        self.path = path
        self.macros = macros  # stubs.StubMacros
        self.language = language
        self.context = context  # stubs.compile_context(path)
        self.scan = Scanner(source)  # literals, brackets, preprocessor lines of src
        self.orig_scan = Scanner(original) if original is not source else self.scan
        self.root = None  # the tree's root node
        self.caps: dict[str, list] = {}  # the combined query's captures
        self.errors: list = []  # ERROR nodes
        self.parse_errors = 0
        self.damaged = False  # the tree has ERROR or MISSING nodes at namespace level
        self.spans: list[tuple[int, int, int]] = []  # function-like #defines read from the text
        self.local: dict[str, Define] = {}  # the file's own function-like macros
        self.local_at: dict[str, list[tuple[int, Define]]] = {}  # name -> each #define of it, by offset (a name may be defined again)
        self.define_names: set[int] = set()  # offsets of #define names
        self.defines: list[tuple[int, int]] = []  # (name, end of body) of every function-like #define
        self.scopes: dict = {}  # scopes.scope_prefix's walks, by node id
        self._namespaces: list[tuple[int, int, str]] | None = None
        self._newlines: list[int] | None = None
        # enclosing-function lookup
        self.ranges: list[tuple[int, int, str]] = []
        self._starts: list[int] = []
        self._parents: list[int] = []
        # the facts so far
        self.definitions: list = []
        self.parameters: dict[tuple[str, int], tuple[str | None, ...]] = {}  # a definition's parameter names, in order
        self.defaults: dict[tuple[str, int], dict[int, str]] = {}  # a definition's parameters' default values
        self.stubs: list = []
        self.stub_uses: list = []
        self.calls: list = []
        self.call_names: dict[int, list[tuple[int, str]]] = {}  # index in calls -> (position, name) of its arguments
        # that are a name alone (definitions.called_parameters: a parameter handed on)
        self.damaged_calls: set[int] = set()  # indexes in calls of those whose callee tree-sitter cut at an ERROR
        # (`x.operator const char*()` read as a call of x)
        self.launches: list = []
        self.dtypes: list = []
        self.libcalls: list = []
        self.device_branches: list = []
        self.registrations: list = []
        self.registration_macro_uses: list = []  # RegistrationMacroUseFact: macros of other files in library blocks
        self.definition_macro_uses: list = []  # DefinitionMacroUseFact: other files' X-macro lists and body macros
        self.includes: list = []
        self.macro_facts: list = []  # MacroFact of every #define (self.local holds the function-like ones as Define)
        self.usings: list = []
        self.classes: list = []
        self.kernel_aliases: list = []
        self.inline_namespaces: list = []
        self.constants: list = []
        self.guards: tuple[list[int], list, dict] = ([1], [None], {})  # (first line of each stretch, its guard): directives.py
        self.library_blocks: list = []  # (node, its ancestors, macro, args, after, line) of TORCH_LIBRARY* sites
        self.member_calls: list = []  # (offset, call node, object, field) of m.impl / m.def / m.fallback

    def get(self, capture: str):
        return self.caps.get(capture, ())

    def line_of(self, offset: int) -> int:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer(rb"\n", self.src)]
        return bisect.bisect_left(self._newlines, offset) + 1

    def text(self, node) -> str:
        return dec(self.orig[node.start_byte : node.end_byte])

    # ---- enclosing function
    def set_ranges(self, ranges: list[tuple[int, int, str]]) -> None:
        ranges.sort(key=lambda r: (r[0], -r[1]))
        self.ranges = ranges
        self._starts = [r[0] for r in ranges]
        parents: list[int] = []
        stack: list[int] = []
        for k, (s, e, _) in enumerate(ranges):
            while stack and ranges[stack[-1]][1] <= s:
                stack.pop()
            parents.append(stack[-1] if stack else -1)
            stack.append(k)
        self._parents = parents

    def caller_at(self, offset: int) -> str | None:
        k = bisect.bisect_right(self._starts, offset) - 1
        while k >= 0:
            s, e, name = self.ranges[k]
            if s <= offset < e:
                return name
            k = self._parents[k]
        return None

    def function_start_at(self, offset: int) -> int:
        """Where the innermost function around offset starts (len(src) outside every function)."""
        k = bisect.bisect_right(self._starts, offset) - 1
        while k >= 0:
            s, e, _ = self.ranges[k]
            if s <= offset < e:
                return s
            k = self._parents[k]
        return len(self.src)

    def namespaces_at(self, offset: int) -> list[str]:
        """The namespaces around offset by the file's braces (comments, strings and preprocessor lines skipped)."""
        from .scopes import split_scope, text_namespaces

        if self._namespaces is None:
            self._namespaces = text_namespaces(self.scan)
        out: list[str] = []
        for start, end, name in self._namespaces:  # outermost first
            if start > offset:
                break
            if offset < end:
                out.extend(split_scope(name) if name else ["(anonymous)"])
        return out

    def in_define(self, offset: int) -> bool:
        k = bisect.bisect_right(self.defines, (offset, 1 << 62)) - 1
        return k >= 0 and self.defines[k][0] <= offset < self.defines[k][1]

    def in_skip(self, offset: int) -> bool:
        """Whether offset is in a comment, a string or char literal or on a preprocessor line."""
        return self.scan.skip(offset)
