"""``quercus warm``: compile the Numba kernels now rather than at the first fit."""

from __future__ import annotations

import time
from typing import TextIO

from ..warm import compile_kernels


def run_warm(args, out: TextIO) -> int:
    """Compile every kernel (:func:`quercus.warm.compile_kernels`), one line per step; with
    ``--aot`` build the grower ahead of time first (:func:`quercus.aot_build.build`)."""

    def report(step: str, seconds: float) -> None:
        out.write(f"{step}: {seconds:.1f} s\n")
        out.flush()

    if getattr(args, "aot", False):
        from ..aot_build import AheadOfTimeUnavailable, build

        began = time.perf_counter()
        try:
            path = build(report=lambda text: out.write(f"{text}\n"))
        except AheadOfTimeUnavailable as exc:
            out.write(f"quercus: {exc}\n")
        else:
            report(f"grower built ahead of time into {path}", time.perf_counter() - began)
    total = compile_kernels(report=report)
    out.write(f"kernels ready in {total:.1f} s\n")
    return 0
