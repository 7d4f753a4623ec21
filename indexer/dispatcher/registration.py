"""GeneratedRegistration: one m.impl the checkout's codegen writes, and the generators' vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..facts import Location


class Generator(StrEnum):
    """The code generator that writes a registration (its module in the checkout)."""

    REGISTER_DISPATCH_KEY = "torchgen.dest.register_dispatch_key"
    FUNCTIONALIZATION = "torchgen.gen_functionalization_type"
    BACKEND_SELECT = "torchgen.gen.ComputeBackendSelect"
    VARIABLE_TYPE = "tools.autograd.gen_variable_type"
    INPLACE_OR_VIEW = "tools.autograd.gen_inplace_or_view_type"
    TRACE_TYPE = "tools.autograd.gen_trace_type"


# The template each generator fills (relative to the checkout; the generated file is named in `file`).
TEMPLATES = {
    Generator.REGISTER_DISPATCH_KEY: "aten/src/ATen/templates/RegisterDispatchKey.cpp",
    Generator.FUNCTIONALIZATION: "aten/src/ATen/templates/RegisterFunctionalization.cpp",
    Generator.BACKEND_SELECT: "aten/src/ATen/templates/RegisterBackendSelect.cpp",
    Generator.VARIABLE_TYPE: "tools/autograd/templates/VariableType.cpp",
    Generator.INPLACE_OR_VIEW: "tools/autograd/templates/ADInplaceOrViewType.cpp",
    Generator.TRACE_TYPE: "tools/autograd/templates/TraceType.cpp",
}

# The kernel gen_variable_type registers for an op whose autograd it does not implement.
NOT_IMPLEMENTED_KERNEL = "torch::autograd::autogradNotImplementedFallback()"


@dataclass(frozen=True)
class GeneratedRegistration:
    op: str  # "aten::add.Tensor"
    key: str  # as registered: "CPU", "CompositeExplicitAutograd", "Autograd", "AutogradNestedTensor", ...
    kernel: str  # the C++ function the generated code registers: "wrapper_CPU_add_Tensor", "VariableType::add_Tensor"
    generator: Generator
    template: str  # the template file the registration is generated from
    file: str  # the generated file that holds it: "RegisterCPU.cpp", "VariableType.cpp" (sharded in a build)
    yaml: Location  # the op's native_functions.yaml line
    derivative: Location | None = None  # Autograd keys: the derivatives.yaml entry the kernel uses
    not_implemented: bool = False  # Autograd: the not-implemented kernel instead of a VariableType one
