"""The code on the docs pages prints what the pages say, and the API page lists every name.

Pages hold ``>>>`` examples with their output; the standard library's doctest runs them
(Sphinx only shows them). A number on a page is thus checked against quercus on every run.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import quercus

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES_WITH_CODE = sorted(
    p
    for p in DOCS.rglob("*.rst")
    if not set(p.relative_to(DOCS).parts) & {"_build", "auto_examples", "generated", "_templates"}
    and ">>> " in p.read_text(encoding="utf-8")
)


def test_getting_started_has_code():
    assert DOCS / "getting_started.rst" in PAGES_WITH_CODE


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_code_prints_what_the_page_shows(page):
    result = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        report=False,
        verbose=False,
        raise_on_error=False,
    )
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples differ in {page}"


def test_api_page_lists_every_public_name():
    # The top-level names are grouped by hand on docs/api.rst; the modules' pages document
    # their __all__ through automodule, so they cannot miss a name.
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   (\w+)$", text, flags=re.MULTILINE))
    modules = {"datasets", "export"}
    missing = [
        name
        for name in quercus.__all__
        if name not in listed and name not in modules and not name.startswith("__")
    ]
    assert not missing, f"public names missing from docs/api.rst: {missing}"
    for module in ("datasets", "export", "plot", "model_selection"):
        assert f"   api/{module}" in text, module
        page = (DOCS / "api" / f"{module}.rst").read_text(encoding="utf-8")
        assert f"automodule:: quercus.{module}\n   :members:" in page
