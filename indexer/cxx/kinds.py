"""The closed vocabularies of the C++ link facts (usings.kind, classes.kind): plain strings in SQL.

Kept here, next to the facts that use them, until the lead moves them into indexer/vocab.py.
"""

from __future__ import annotations

from enum import StrEnum


class UsingKind(StrEnum):
    """usings.kind"""

    DIRECTIVE = "directive"  # using namespace at::native;
    DECLARATION = "declaration"  # using at::native::foo;
    ALIAS = "alias"  # namespace F = at::native;  using Foo = Bar<T>;


class ClassKind(StrEnum):
    """classes.kind"""

    CLASS = "class"
    STRUCT = "struct"
    UNION = "union"
    ENUM = "enum"  # enum or enum class with a body: `E::X` is of type E
