"""Sphinx configuration of the quercus documentation (``make docs``).

The site is built from the docstrings (numpydoc), the pages in this folder (reStructuredText,
and Markdown through MyST for the pages that also read well on their own), the scripts in
``examples/`` (sphinx-gallery runs them) and the command-line parser itself (sphinx-argparse).
Nothing is fetched from the network at build time.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import quercus

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

# Examples draw with matplotlib's non-interactive backend.
os.environ.setdefault("MPLBACKEND", "Agg")

project = "quercus"
author = "the quercus developers"
copyright = "the quercus developers"  # noqa: A001 (Sphinx's name)
release = quercus.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
    "quercus_docs",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "design/*",  # developers' notes on algorithms being built, not the user's documentation
]
templates_path = ["_templates"]
default_role = "code"  # `text` in a docstring is code, as numpydoc writers mean it
pygments_style = "sphinx"
# Quotes and ellipses only: "--" stays two hyphens, as command-line options are written.
smartquotes_action = "qe"

# -- API reference ---------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = False  # a module page lists the names in its __all__
autodoc_typehints = "none"  # the numpydoc sections say the types
autodoc_member_order = "groupwise"
numpydoc_show_class_members = False  # members are listed by the autosummary class template
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# scikit-learn's metadata-routing helpers (get_metadata_routing, set_fit_request, ...) repeat
# on every estimator and say nothing about quercus: they are left out of the class pages.
_SKIPPED = re.compile(r"^(set_\w+_request|get_metadata_routing)$")
# Members inherited from scikit-learn (score, get_params, ...) keep their docstrings, whose
# :ref: roles point into scikit-learn's own user guide: they become plain text here.
_REF = re.compile(r":ref:`([^`<]*?)\s*(?:<([^>`]*)>)?`")


def _skip_member(app, what, name, obj, skip, options):
    if _SKIPPED.match(name):
        return True
    return skip


def _sklearn_refs_as_text(app, what, name, obj, options, lines):
    if getattr(obj, "__module__", "") and obj.__module__.startswith("sklearn."):
        lines[:] = [_REF.sub(lambda m: m.group(1) or m.group(2), line) for line in lines]


# -- Markdown (MyST) ---------------------------------------------------------------------------
myst_heading_anchors = 3  # [What loading checks](#what-loading-checks) in model-format.md
myst_enable_extensions = ["colon_fence"]

# -- Gallery --------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # run every example (all are named plot_*.py)
    "image_scrapers": ("matplotlib",),
    "doc_module": ("quercus",),
    "backreferences_dir": "generated/backreferences",
    "within_subsection_order": "quercus_docs.ExampleOrder",
    "download_all_examples": False,
    "write_computation_times": False,
    "remove_config_comments": True,
    "show_memory": False,
    "capture_repr": (),  # the examples print what they show; no stray reprs of return values
}

# -- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"quercus {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": True,
}
html_show_sourcelink = False


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    app.connect("autodoc-process-docstring", _sklearn_refs_as_text)
