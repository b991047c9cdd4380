"""What the report's tests share (besides ``tests/conftest.py``'s PlayTennis fixtures): a
headless Chromium (the distribution's package) driven by Playwright, skipped, saying why, where
Playwright or Chromium is missing (``make test`` installs Playwright with the test extra;
``.ci/run`` installs Chromium with apt-get)."""

from __future__ import annotations

import pytest
from _browser import browser_path


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module's tests."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
    )
    path = browser_path()
    if path is None:
        pytest.skip(
            "no Chromium found (apt-get install chromium, or set QUERCUS_CHROMIUM=/path/to/it)"
        )
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: Chromium refuses its sandbox when run as root (CI containers).
        launched = playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield launched
        launched.close()
