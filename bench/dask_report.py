"""What bench/dask_fit.py says as it runs: progress lines on stderr, and the units and short
texts its tables and progress lines are made of (the tables themselves are printed by each
part, with cells.markdown_table)."""

import sys
import time


def progress(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def mib(kb):
    return kb / 1024


def fmt_bytes(n):
    if n is None:
        return ""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"


def fmt_int(n):
    return "" if n is None else f"{n:,}"


def cluster_levels(levels):
    """Levels split on the cluster, largest histogram bytes of a level, their sum."""
    on_cluster = [lv for lv in levels if lv.nodes > 0]
    largest = max((lv.histogram_bytes for lv in levels), default=0)
    return len(on_cluster), largest, sum(lv.histogram_bytes for lv in levels)


def outcome(result):
    """One row's result (a local cell's or a Dask fit's) as a progress line's text."""
    if "error" in result:
        return "failed: " + result["error"]
    text = f"fit {result['fit_s']:.2f} s"
    if "accuracy" in result:
        text += f", accuracy {result['accuracy']:.4f}"
    if result.get("worker_mib"):
        text += ", worker peaks " + "/".join(f"{v:.0f}" for v in result["worker_mib"].values())
        text += f" MiB, client {result['client_mib']:.0f} MiB"
    elif "fit_rise_mib" in result:
        text += f", peak {result['fit_rise_mib']:.0f} MiB"
    if result.get("leaves") is not None:
        text += f", {result['leaves']:,} leaves"
    return text
