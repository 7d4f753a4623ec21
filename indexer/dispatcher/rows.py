"""DispatcherRow: one row of dispatcher_registrations, and the vocabulary of its source column."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from ..vocab import RegistrationKind
from .registration import GeneratedRegistration

# OperatorEntry.cpp (registerKernel): a kernel registered without a key goes to this alias key.
CATCH_ALL_KEY = "CompositeImplicitAutograd"
FALLBACK_OP = "_"  # the op column of a backend fallback (TORCH_LIBRARY_IMPL(_, Key, m))


class RegistrationSource(StrEnum):
    """dispatcher_registrations.source"""

    GENERATED = "generated"
    HANDWRITTEN = "handwritten"
    PYTHON = "python"


@dataclass(frozen=True)
class DispatcherRow:
    """One registration the dispatcher holds (the columns of dispatcher_registrations but id)."""

    op: str  # "aten::add.Tensor"; "_" for a fallback
    key: str | None  # as registered; None for a def without a kernel
    kind: RegistrationKind  # impl | fallback | def
    source: RegistrationSource
    generator: str  # generator module, macro written, or Python registrar
    kernel: str | None
    file: str
    line: int | None
    fallthrough: bool = False
    template: str | None = None
    yaml_line: int | None = None
    derivative_line: int | None = None
    not_implemented: bool = False

    def row(self) -> tuple:
        return tuple(int(v) if isinstance(v, bool) else v for v in dataclasses.astuple(self))


COLUMNS = tuple(f.name for f in dataclasses.fields(DispatcherRow))
INSERT = f"INSERT INTO dispatcher_registrations ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def generated_row(r: GeneratedRegistration) -> DispatcherRow:
    return DispatcherRow(r.op, r.key, RegistrationKind.IMPL, RegistrationSource.GENERATED, str(r.generator), r.kernel,
                         r.file, None, template=r.template, yaml_line=r.yaml.line,
                         derivative_line=r.derivative.line if r.derivative else None,
                         not_implemented=r.not_implemented)
