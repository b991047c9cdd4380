"""Helpers of the report's browser tests (imported as ``_browser``: pytest puts this folder
on the path)."""

from __future__ import annotations

import os
import shutil

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def browser_path() -> str | None:
    """``$QUERCUS_CHROMIUM``, else the first Chromium or Chrome on the PATH, else None."""
    given = os.environ.get("QUERCUS_CHROMIUM")
    if given:
        return given
    return next((path for path in map(shutil.which, _BROWSERS) if path), None)


def record_problems(page, problems: list) -> None:
    """Append to ``problems`` every console error or warning and page error of ``page``."""
    page.on(
        "console",
        lambda m: (
            problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
