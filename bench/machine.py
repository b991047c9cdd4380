"""What the benchmark scripts say of the machine and the versions they ran with, and the
peak-memory readings they take (Linux's /proc/self/status)."""

import importlib.metadata
import platform
import re
import subprocess
import time
from pathlib import Path


def proc_status_kb(field):
    with open("/proc/self/status") as f:
        match = re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.MULTILINE)
    return int(match.group(1))


def reset_peak_rss():
    """Reset the kernel's peak-RSS mark (Linux >= 4.0); False where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measured_step(call):
    """``(result, seconds, peak MiB)`` of ``call()``: its wall-clock time, and the peak RSS
    while it ran less the RSS before it (the kernel's peak mark reset first)."""
    base = proc_status_kb("VmRSS")
    reset_peak_rss()
    start = time.perf_counter()
    out = call()
    seconds = time.perf_counter() - start
    return out, seconds, (proc_status_kb("VmHWM") - base) / 1024


def version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def quercus_version():
    """Version of the quercus that is imported, and the git commit of its source tree."""
    try:
        import quercus
    except ImportError:
        return "not installed"
    src = Path(quercus.__file__).resolve().parents[2]
    proc = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    commit = f", commit {proc.stdout.strip()}" if proc.returncode == 0 else ""
    dirty = subprocess.run(
        ["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no", "src"],
        capture_output=True,
        text=True,
    )
    if dirty.returncode == 0 and dirty.stdout.strip():
        commit += " + uncommitted changes in src"
    return f"{quercus.__version__} ({src}{commit})"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            match = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.MULTILINE)
        return match.group(1).strip() if match else platform.processor()
    except OSError:
        return platform.processor()
