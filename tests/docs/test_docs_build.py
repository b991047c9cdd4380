"""The documentation site builds with warnings as errors, and its key pages exist.

The build runs in a scratch copy of ``docs/`` (the gallery and the API pages are generated
into the source folder), beside links to the rest of the repository, so the working tree is
left as it was. sphinx-gallery runs every example during the build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("_build", "auto_examples", "generated")
pytestmark = pytest.mark.slow

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinxarg")
pytest.importorskip("furo")

KEY_PAGES = [
    "index.html",
    "install.html",
    "getting_started.html",
    "algorithms/index.html",
    "algorithms/id3.html",
    "algorithms/c45.html",
    "algorithms/c45rules.html",
    "algorithms/cart.html",
    "algorithms/pruning.html",
    "algorithms/missing.html",
    "algorithms/ensembles.html",
    "forests.html",
    "cli.html",
    "model-format.html",
    "benchmarks.html",
    "api.html",
    "generated/quercus.DecisionTreeClassifier.html",
    "generated/quercus.C45Classifier.html",
    "generated/quercus.RandomForestClassifier.html",
    "api/datasets.html",
    "api/export.html",
    "api/plot.html",
    "api/model_selection.html",
    "model-selection.html",
    "auto_examples/index.html",
]


def scratch_tree(where: Path) -> Path:
    """A copy of docs/ beside links to the repository's other top-level entries."""
    root = where / "repo"
    root.mkdir()
    for entry in ROOT.iterdir():
        if entry.name in ("docs", ".git", ".venv"):
            continue
        (root / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "docs", root / "docs", ignore=shutil.ignore_patterns(*GENERATED))
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = scratch_tree(tmp_path_factory.mktemp("docs"))
    out = root / "html"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            "-q",
            str(root / "docs"),
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, f"sphinx failed:\n{result.stdout}\n{result.stderr}"
    return out


def test_build_succeeds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()


def test_no_page_shows_a_markup_error(site):
    # docutils' inline error nodes, and the theme's own complaints, never reach a page.
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert 'class="system-message"' not in text, page
        assert "documentation is unnecessary" not in text, page


@pytest.mark.parametrize("page", KEY_PAGES)
def test_key_page_exists(site, page):
    assert (site / page).is_file(), page


def test_every_example_is_in_the_gallery(site):
    examples = sorted(p.stem for p in (ROOT / "examples").glob("*.py"))
    assert examples
    for name in examples:
        assert (site / "auto_examples" / f"{name}.html").is_file(), name


def test_api_pages_document_the_classes_and_functions(site):
    text = (site / "generated" / "quercus.DecisionTreeClassifier.html").read_text(encoding="utf-8")
    assert 'id="quercus.DecisionTreeClassifier"' in text
    assert 'id="quercus.DecisionTreeClassifier.fit"' in text
    assert 'id="quercus.plot.plot_tree"' in (site / "api" / "plot.html").read_text(encoding="utf-8")


def test_cli_page_is_generated_from_the_parser(site):
    from quercus.cli import build_parser

    text = (site / "cli.html").read_text(encoding="utf-8")
    subparsers = next(
        a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction"
    )
    for command in subparsers.choices:
        assert f'id="{command}"' in text or f">{command}<" in text, command


def test_j48_table_is_rendered_from_the_fixture(site):
    import json

    fixture = json.loads((ROOT / "tests/fixtures/j48_reference.json").read_text())
    text = (site / "algorithms" / "c45.html").read_text(encoding="utf-8")
    for name, entry in fixture["datasets"].items():
        assert name in text
        assert f"{entry['configs']['default']['accuracy']:.4f}" in text


def test_every_example_draws_a_figure(site):
    # A figure is the example's gallery thumbnail; an example that draws none gets
    # sphinx-gallery's placeholder picture.
    images = site.parent / "docs" / "auto_examples" / "images"
    for name in sorted(p.stem for p in (ROOT / "examples").glob("*.py")):
        assert list(images.glob(f"sphx_glr_{name}_0*.png")), f"{name} draws no figure"


def test_the_report_example_shows_a_tree_as_a_notebook_does(site):
    # The example's last block is a fitted tree, shown by its _repr_html_: the tree view.
    text = (site / "auto_examples" / "plot_html_report.html").read_text(encoding="utf-8")
    assert 'class="quercus-tree"' in text
    assert "shadow.innerHTML" in text
    assert "Outlook = Overcast: Yes (4)" in text
