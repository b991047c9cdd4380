"""The command line imports only what a command needs.

``quercus --help``, ``quercus COMMAND --help``, ``--version`` and a usage error need the
parser alone: they import neither pandas, scikit-learn, SciPy nor Numba. ``quercus show`` of
a tree's file reads it as a view: neither scikit-learn, Numba, the forests, the Dask modules
nor the other subcommands' modules (SciPy only for a rules model, whose rules use it).

Checked by the modules that ``python -m quercus ...`` has imported when it ends (not by
timing, which a shared machine blurs).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import quercus
from quercus.cli import build_parser

HEAVY = {"numba", "pandas", "scipy", "sklearn"}


# ``python -m quercus ARGS`` (runpy is what -m runs), then the modules it imported, as JSON in
# the file named first. (``python -X importtime`` would not do: it does not see the modules
# imported through importlib, as the command line imports a subcommand's module.)
_RUN = """
import json, runpy, sys
report = sys.argv.pop(1)
try:
    runpy.run_module("quercus", run_name="__main__", alter_sys=True)
    status = 0
except SystemExit as exc:
    status = exc.code
with open(report, "w") as out:
    json.dump({"status": status, "modules": sorted(sys.modules)}, out)
"""


def imported(tmp_path, *args: str, status: int = 0) -> set[str]:
    """The modules that ``python -m quercus ARGS`` imports, checking its exit status."""
    report = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", _RUN, str(report), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(report.read_text())
    assert found["status"] == status, (result.stdout, result.stderr)
    return set(found["modules"])


def top_level(modules: set[str]) -> set[str]:
    """The packages of ``modules`` (``pandas`` for ``pandas.core.api``)."""
    return {name.split(".")[0] for name in modules}


def subcommands() -> list[str]:
    """The subcommands of the parser."""
    action = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(action.choices)


# The modules of quercus that the parser is built from: all that help may import of quercus.
PARSER_MODULES = {
    "quercus",
    "quercus._version",
    "quercus._grids",
    "quercus.cli",
    "quercus.cli.options",
}


def test_the_subcommands_are_listed():
    assert {"fit", "show", "tune", "report", "demo"} <= set(subcommands())


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["show", "--help"]])
def test_help_and_version_import_no_heavy_dependency(tmp_path, args):
    assert not top_level(imported(tmp_path, *args)) & HEAVY


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommand_help_imports_no_heavy_dependency(tmp_path, command):
    modules = imported(tmp_path, command, "--help")
    assert not top_level(modules) & HEAVY
    assert {m for m in modules if top_level({m}) == {"quercus"}} <= PARSER_MODULES


@pytest.mark.parametrize(
    "args",
    [
        ["fit", "data.csv", "--set", "1x=3"],  # a type= check of the parser
        ["tune", "data.csv", "--grid", "max_depth=1,1"],
        ["fit", "data.csv", "--dask", "local:0"],
        ["cv", "data.csv", "--folds", "1"],
        ["nosuch"],
    ],
)
def test_a_usage_error_of_the_parser_imports_no_heavy_dependency(tmp_path, args):
    assert not top_level(imported(tmp_path, *args, status=2)) & HEAVY


def test_show_of_a_tree_imports_neither_the_forests_nor_other_commands(tmp_path):
    frame = quercus.datasets.load("playtennis")
    model = tmp_path / "tree.json"
    quercus.ID3Classifier().fit(frame.iloc[:, :-1], frame.iloc[:, -1]).save(model)
    modules = imported(tmp_path, "show", str(model))
    assert not top_level(modules) & {"sklearn", "numba", "scipy"}
    unneeded = {
        "dask",
        "distributed",
        "quercus.ensemble",
        "quercus.dask",
        "quercus.distributed",
        "quercus.model_selection",
        "quercus.report",
        "quercus.cli.cluster",
        "quercus.cli.commands",
        "quercus.cli.dask_fit",
        "quercus.cli.dask_read",
        "quercus.cli.source",
        "quercus.cli.tasks",
        "quercus.cli.tune",
        "quercus.cli.report",
    }
    assert not modules & unneeded


@pytest.mark.parametrize("fmt", ["text", "rules", "dot"])
def test_show_of_a_rules_model_imports_neither_scikit_learn_nor_numba(tmp_path, fmt):
    frame = quercus.datasets.load("playtennis")
    model = tmp_path / "rules.json"
    quercus.C45RulesClassifier().fit(frame.iloc[:, :-1], frame.iloc[:, -1]).save(model)
    assert not top_level(imported(tmp_path, "show", str(model), "--format", fmt)) & {
        "sklearn",
        "numba",
    }


@pytest.mark.parametrize("fmt", ["text", "weka"])
def test_show_of_a_model_tree_imports_neither_scikit_learn_nor_numba(tmp_path, fmt):
    frame = quercus.datasets.load("abalone").iloc[:400]
    model = tmp_path / "m5.json"
    quercus.ModelTreeRegressor().fit(frame.iloc[:, :-1], frame.iloc[:, -1]).save(model)
    modules = imported(tmp_path, "show", str(model), "--format", fmt)
    assert not top_level(modules) & {"sklearn", "numba", "scipy"}


def test_the_errors_main_reports_as_bad_input_are_value_errors():
    # main catches ValueError without importing DataError and ModelError (pandas and
    # scikit-learn would come with them): both must stay ValueErrors.
    assert issubclass(quercus.DataError, ValueError)
    assert issubclass(quercus.ModelError, ValueError)
