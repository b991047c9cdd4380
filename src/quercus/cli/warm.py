"""``quercus warm``: compile the Numba kernels now rather than at the first fit."""

from __future__ import annotations

from typing import TextIO

from ..warm import compile_kernels


def run_warm(args, out: TextIO) -> int:
    """Compile every kernel (:func:`quercus.warm.compile_kernels`), one line per step."""

    def report(step: str, seconds: float) -> None:
        out.write(f"{step}: {seconds:.1f} s\n")
        out.flush()

    total = compile_kernels(report=report)
    out.write(f"kernels ready in {total:.1f} s\n")
    return 0
