"""Which files of a checkout the Python layer reads: the ones that carry the Python entry points."""

from __future__ import annotations

from pathlib import Path

# Relative to the checkout's root; globs follow pathlib.Path.glob ("**" is any depth of folders).
PY_SOURCES: tuple[str, ...] = (
    "torch/__init__.py",
    "torch/_VF.py",
    "torch/_tensor.py",
    "torch/functional.py",
    "torch/nn/__init__.py",
    "torch/nn/functional.py",
    "torch/nn/modules/**/*.py",
    "torch/nn/utils/**/*.py",  # clip_grad, weight_norm, parametrizations, rnn packing, ...
    "torch/nn/init.py",
    "torch/nn/attention/**/*.py",  # sdpa_kernel's backends (2.x; absent in 1.13.1)
    "torch/backends/cuda/__init__.py",  # the sdp flag setters sdpa_kernel calls (enable_flash_sdp ...)
    "torch/optim/**/*.py",  # the optimizers: for-loop, foreach and fused paths
    "torch/distributions/**/*.py",
    "torch/linalg/__init__.py",
    "torch/special/__init__.py",
    "torch/fft/__init__.py",
    "torch/sparse/__init__.py",
    "torch/nested/__init__.py",
    "torch/_decomp/**/*.py",
    "torch/_refs/**/*.py",
)


def py_source_files(checkout: str | Path) -> list[str]:
    """The PY_SOURCES of a checkout as sorted relative posix paths (symlinks are not followed out)."""
    root = Path(checkout).resolve()
    found: set[str] = set()
    for pattern in PY_SOURCES:
        for p in root.glob(pattern):
            if p.is_file() and p.suffix == ".py" and p.resolve().is_relative_to(root):
                found.add(p.relative_to(root).as_posix())
    return sorted(found)
