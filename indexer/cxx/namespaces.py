"""Inline namespaces: `inline namespace CPU_CAPABILITY {`. Their members are visible in the enclosing
namespace, so name lookup (indexer/link/) treats them as transparent; this phase records where they are,
with the qualified name they have in definitions' qualified names (at::native::CPU_CAPABILITY)."""

from __future__ import annotations

import re

from .facts import InlineNamespaceFact
from .scan import dec
from .sourcefile import SourceFile

_INLINE = re.compile(rb"\binline\s+namespace\s+([A-Za-z_]\w*)\s*\{")


def inline_namespaces(f: SourceFile) -> None:
    """Phase: every inline namespace outside comments, literals and preprocessor lines."""
    if b"inline" not in f.src:
        return
    for m in _INLINE.finditer(f.src):
        if f.in_skip(m.start()):
            continue
        outer = f.namespaces_at(m.start())
        name = dec(m.group(1))
        f.inline_namespaces.append(InlineNamespaceFact("::".join([*outer, name]), f.line_of(m.start())))
