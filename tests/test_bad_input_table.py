"""The bad-input table (issue 14's standing guard).

Every row of :data:`CASES` is one input a user may get wrong (or get right in an odd way),
given once to the library and once to the command line. A bad input must be refused with a
message naming the culprit (the file, column, value or parameter at fault); through the
command line with exit status 2 for a bad command line (argparse's usage, then ``quercus
<cmd>: error: ...``), 1 for bad data or a bad model file (one line ``quercus: error: ...``),
never a traceback. A legitimate input must work, with exit status 0 and no warning but the
ones the row expects.

The command line runs in this process (``quercus.cli.main``); two rows also run as a real
``python -m quercus`` subprocess, to check that the process exits as ``main`` says.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score

import quercus
from quercus import DataError, DataWarning, InvalidParameterError, ModelError
from quercus.cli import main

PLAYTENNIS = quercus.datasets.path("playtennis")
FEATURES = ["Outlook", "Temperature", "Humidity", "Wind"]
HEADER = ",".join(FEATURES)


@dataclass(frozen=True)
class Case:
    """One bad (or odd but legitimate) input.

    ``make(t)`` writes the input files into the folder ``t``. ``api(t)`` gives the input to
    the library: it must raise ``raises`` (type, regex), else return a result for which
    ``check`` is true. ``cli`` is the command line (``{t}``: the folder, ``{playtennis}``:
    the shipped data set); it must exit with ``status`` and its error line (status 1 or 2)
    or its output (status 0) must match ``says``. ``warns``: a regex of the DataWarning both
    give (a ``quercus: warning:`` line on the command line). ``seconds``: a time limit of
    each. ``api_xfail`` / ``cli_xfail``: a known defect, the reason.
    """

    id: str
    make: Callable[[Path], None] | None = None
    api: Callable[[Path], object] | None = None
    raises: tuple[type[BaseException], str] | None = None
    check: Callable[[object], bool] | None = None
    cli: tuple[str, ...] | None = None
    status: int = 1
    says: str = ""
    warns: str | None = None
    seconds: float | None = None
    api_xfail: str | None = None
    cli_xfail: str | None = None


# -- building the inputs -------------------------------------------------------------------------


def playtennis():
    return quercus.read_table(PLAYTENNIS)


def playtennis_model():
    X, y = playtennis()
    return quercus.C45Classifier().fit(X, y)


def save_model(path: Path) -> None:
    playtennis_model().save(path)


def regression_frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.uniform(0, 10, 60), "y": rng.normal(size=60).round(3)})


def save_regression_model(path: Path) -> None:
    frame = regression_frame()
    quercus.CARTRegressor().fit(frame[["x"]], frame["y"]).save(path)


def save_numeric_model(path: Path) -> None:
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    quercus.C45Classifier().fit(X, ["p", "p", "q", "q"]).save(path)


def many_levels(path: Path) -> None:
    """20,000 rows, a nominal column of 10,000 levels and a numeric one."""
    rng = np.random.default_rng(0)
    code = np.array([f"L{i}" for i in range(10_000)])[rng.permutation(20_000) % 10_000]
    frame = pd.DataFrame(
        {"code": code, "num": rng.normal(size=20_000).round(4), "y": rng.choice(["p", "q"], 20_000)}
    )
    frame.to_csv(path, index=False)


def parquet(frame: pd.DataFrame) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        pytest.importorskip("pyarrow")
        frame.to_parquet(path)

    return write


def files(spec: dict[str, str | bytes | Callable[[Path], None] | None]):
    """A ``make`` writing each file of ``spec``: text, bytes, a writer, or None (a folder)."""

    def make(t: Path) -> None:
        for name, content in spec.items():
            path = t / name
            if content is None:
                path.mkdir()
            elif isinstance(content, bytes):
                path.write_bytes(content)
            elif isinstance(content, str):
                path.write_text(content, encoding="utf-8")
            else:
                content(path)

    return make


def fit_file(path: Path, cls=quercus.C45Classifier, **read):
    X, y = quercus.read_table(path, **read)
    return cls().fit(X, y)


def predict(model_path: Path, X: pd.DataFrame):
    return quercus.load(model_path).predict(X)


def named(name: str) -> Callable[[object], bool]:
    return lambda exc: exc.name == name


# -- the table -----------------------------------------------------------------------------------


CASES: list[Case] = [
    # -- files that hold no table, or a broken one
    Case(
        "fit-empty-file",
        files({"t.csv": ""}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: the file is empty"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: the file is empty",
    ),
    Case(
        "fit-header-only",
        files({"t.csv": "a,b,y\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: no rows"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: no rows \(the table has a header but no data\)",
    ),
    Case(
        "predict-header-only",
        files({"model.json": save_model, "t.csv": HEADER + ",PlayTennis\n"}),
        lambda t: predict(t / "model.json", pd.DataFrame(columns=FEATURES)),
        check=lambda predicted: isinstance(predicted, np.ndarray) and predicted.shape == (0,),
        cli=("predict", "{t}/model.json", "{t}/t.csv"),
        status=0,
        says=r"\Aprediction\n\Z",
    ),
    Case(
        "fit-duplicate-column-names",
        files({"t.csv": "a,b,a,y\n1,2,3,p\n2,3,4,q\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: duplicate column names: 'a'"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: duplicate column names: 'a'",
    ),
    Case(
        "fit-blank-column-name",
        files({"t.csv": "a,,y\n1,2,p\n2,3,q\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: column 2 has no name in the header \(between 'a' and 'y'\)"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: column 2 has no name in the header \(between 'a' and 'y'\)",
    ),
    Case(
        "fit-not-utf8",
        files({"t.csv": "a,y\n1,caf\xe9\n2,x\n".encode("latin-1")}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: not UTF-8 text \(byte 0xe9 at position \d+\)"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: not UTF-8 text \(byte 0xe9 at position \d+\)",
    ),
    Case(
        "fit-row-longer-than-header",
        files({"t.csv": "a,b,y\n1,2,p\n2,3,q,extra\n3,4,p\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: line 3 has 4 fields, but the header names 3 columns"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: line 3 has 4 fields, but the header names 3 columns",
    ),
    Case(
        # Legit: the absent trailing field is a missing value (pandas' and R's convention,
        # documented in read_table); C4.5 sends it down its branches fractionally.
        "fit-row-shorter-than-header",
        files({"t.csv": "y,a,b\np,1,2\nq,2\np,3,4\nq,4,5\n"}),
        lambda t: fit_file(t / "t.csv", target="y"),
        check=lambda model: model.tree_.n_node_samples[0] == 4,
        cli=("fit", "{t}/t.csv", "--target", "y"),
        status=0,
        says=r"4 rows x 2 attributes",
    ),
    Case(
        "fit-no-such-file",
        None,
        lambda t: fit_file(t / "absent.csv"),
        (DataError, r"absent\.csv: no such file"),
        cli=("fit", "{t}/absent.csv"),
        says=r"absent\.csv: no such file",
    ),
    Case(
        "fit-directory-as-data",
        files({"folder": None}),
        lambda t: fit_file(t / "folder"),
        (DataError, r"folder: is a directory, not a data file"),
        cli=("fit", "{t}/folder"),
        says=r"folder: is a directory, not a data file",
    ),
    Case(
        "fit-arff-undeclared-value",
        files(
            {"t.arff": "@relation r\n@attribute a {x, y}\n@attribute c {p, q}\n@data\nx,p\nz,q\n"}
        ),
        lambda t: fit_file(t / "t.arff"),
        (DataError, r"t\.arff: not a valid ARFF file \(Data value z not found .* at line 6"),
        cli=("fit", "{t}/t.arff"),
        says=r"t\.arff: not a valid ARFF file \(Data value z not found .* at line 6",
    ),
    Case(
        "fit-parquet-list-column",
        files({"t.parquet": parquet(pd.DataFrame({"l": [[1, 2], [3]], "y": ["p", "q"]}))}),
        lambda t: fit_file(t / "t.parquet"),
        (DataError, r"t\.parquet: column 'l' holds lists"),
        cli=("fit", "{t}/t.parquet"),
        says=r"t\.parquet: column 'l' holds lists \(row 0: .*\)",
    ),
    Case(
        "fit-parquet-dates",
        files(
            {
                "t.parquet": parquet(
                    pd.DataFrame(
                        {"when": pd.to_datetime(["2024-01-01", "2024-02-01"]), "y": ["p", "q"]}
                    )
                )
            }
        ),
        lambda t: fit_file(t / "t.parquet"),
        (DataError, r"t\.parquet: column 'when' holds dates or times"),
        cli=("fit", "{t}/t.parquet"),
        says=r"t\.parquet: column 'when' holds dates or times",
    ),
    # -- the values in a file
    Case(
        "fit-inf",
        files({"t.csv": "a,b,y\n1,2,p\n2,inf,q\n3,1,p\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: column 'b' has an infinite value \(inf\) in row 1"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: column 'b' has an infinite value \(inf\) in row 1",
    ),
    Case(
        "fit-minus-inf",
        files({"t.csv": "a,b,y\n1,2,p\n2,-inf,q\n3,1,p\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: column 'b' has an infinite value \(-inf\) in row 1"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: column 'b' has an infinite value \(-inf\) in row 1",
    ),
    Case(
        "predict-inf",
        files({"num.json": save_numeric_model, "new.csv": "a\n1\ninf\n"}),
        lambda t: predict(t / "num.json", pd.DataFrame({"a": [1.0, np.inf]})),
        (DataError, r"column 'a' has an infinite value \(inf\) in row 1"),
        cli=("predict", "{t}/num.json", "{t}/new.csv"),
        says=r"new\.csv: column 'a' has an infinite value \(inf\) in row 1",
    ),
    Case(
        "fit-1e308",
        files({"t.csv": "a,b,y\n" + "1e308,1,p\n-1e308,2,q\n" * 2}),
        lambda t: fit_file(t / "t.csv").predict(pd.DataFrame({"a": [1e308, -1e308], "b": 1.5})),
        check=lambda predicted: list(predicted) == ["p", "q"],
        cli=("fit", "{t}/t.csv"),
        status=0,
        says=r"training accuracy: 1\.000 \(4 of 4 rows\)",
    ),
    Case(
        "fit-1e308-threshold-shown-readably",
        files({"t.csv": "a,b,y\n" + "1e308,1,p\n-1e308,2,q\n" * 2}),
        lambda t: quercus.export.export_text(fit_file(t / "t.csv")),
        check=lambda text: re.search(r"a <= -1(\.0*)?e\+?308\b", text) is not None,
        cli=("fit", "{t}/t.csv"),
        status=0,
        says=r"\na <= -1(\.0*)?e\+?308\b",
    ),
    Case(
        "fit-mixed-numbers-and-words",
        files({"t.csv": "a,mixed,y\n1,3,p\n2,abc,q\n3,4.5,p\n"}),
        lambda t: fit_file(t / "t.csv").schema_["mixed"].kind,
        check=lambda kind: kind == "nominal",
        cli=("fit", "{t}/t.csv"),
        status=0,
        says=r"classification of 'y' into 2 classes",
        warns=r"column 'mixed' mixes numbers and words \(e\.g\. '3' and 'abc'\)",
    ),
    Case(
        "fit-one-class",
        files({"t.csv": "a,y\n1,p\n2,p\n3,p\n"}),
        lambda t: fit_file(t / "t.csv"),
        check=lambda tree: tree.tree_.node_count == 1 and list(tree.classes_) == ["p"],
        cli=("fit", "{t}/t.csv"),
        status=0,
        says=r"into 1 class \(p\)[\s\S]*\np \(3\)\ntraining accuracy: 1\.000 \(3 of 3 rows\)",
    ),
    Case(
        "cv-one-class",
        files({"t.csv": "a,y\n1,p\n2,p\n3,p\n4,p\n"}),
        lambda t: cross_val_score(quercus.C45Classifier(), *quercus.read_table(t / "t.csv"), cv=2),
        check=lambda scores: list(scores) == [1.0, 1.0],
        cli=("cv", "{t}/t.csv", "--folds", "2"),
        status=0,
        says=r"accuracy: mean 1\.000",
    ),
    Case(
        "fit-missing-target-values",
        files({"t.csv": "a,y\n1,p\n2,\n3,p\n4,q\n"}),
        lambda t: len(quercus.read_table(t / "t.csv")),
        check=lambda rows: rows == 3,
        cli=("fit", "{t}/t.csv"),
        status=0,
        says=r"3 rows x 1 attribute",
        warns=r"dropped 1 of 4 rows whose target 'y' is missing",
    ),
    Case(
        "fit-target-all-missing",
        files({"t.csv": "a,b,t\n1,2,\n3,4,?\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv: target column 't' is entirely missing"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv: target column 't' is entirely missing",
    ),
    Case(
        "fit-target-only",
        files({"t.csv": "y\np\nq\np\n"}),
        lambda t: fit_file(t / "t.csv"),
        (DataError, r"t\.csv has only the target column 'y': no attribute to learn from"),
        cli=("fit", "{t}/t.csv"),
        says=r"t\.csv has only the target column 'y': no attribute to learn from",
    ),
    Case(
        "fit-10000-level-nominal",
        files({"t.csv": many_levels}),
        lambda t: fit_file(t / "t.csv", quercus.ID3Classifier).tree_.node_count,
        check=lambda nodes: nodes > 10_000,  # a branch per level
        cli=("fit", "{t}/t.csv", "--algorithm", "id3"),
        status=0,
        says=r"20,000 rows x 2 attributes[\s\S]*\ncode = L9999",
        seconds=15,
    ),
    # -- the columns
    Case(
        "fit-unknown-target",
        None,
        lambda t: fit_file(PLAYTENNIS, target="Play"),
        (DataError, r"playtennis\.csv: target column 'Play' not found; columns are \["),
        cli=("fit", "{playtennis}", "--target", "Play"),
        says=r"playtennis\.csv: target column 'Play' not found; columns are \[",
    ),
    Case(
        "fit-unknown-nominal-column",
        None,
        lambda t: fit_file(PLAYTENNIS, nominal=["zz"]),
        (DataError, r"playtennis\.csv: nominal column 'zz' not found"),
        cli=("fit", "{playtennis}", "--nominal", "zz"),
        says=r"playtennis\.csv: nominal column 'zz' not found",
    ),
    Case(
        "fit-ordinal-undeclared-level",
        None,
        lambda t: fit_file(PLAYTENNIS, ordinal={"Outlook": ["Sunny", "Rain"]}),
        (DataError, r"column 'Outlook': value 'Overcast' is not one of its declared levels"),
        cli=("fit", "{playtennis}", "--ordinal", "Outlook=Sunny<Rain"),
        says=r"playtennis\.csv: column 'Outlook': value 'Overcast' is not one of its declared",
    ),
    Case(
        "fit-regression-target-with-id3",
        files({"t.csv": regression_frame().to_csv(index=False)}),
        lambda t: fit_file(t / "t.csv", quercus.ID3Classifier),
        (ValueError, r"Unknown label type: continuous"),  # scikit-learn's words
        cli=("fit", "{t}/t.csv", "--algorithm", "id3"),
        says=r"t\.csv: target 'y' is numeric .*: ID3 learns classes; use --algorithm cart",
    ),
    # -- predicting: the columns of new data
    Case(
        "predict-unseen-labels",
        files(
            {
                "model.json": save_model,
                "new.csv": HEADER + "\nFoggy,Hot,High,Weak\nSunny,Hot,Medium,Calm\n",
            }
        ),
        lambda t: predict(
            t / "model.json",
            pd.DataFrame(
                [["Foggy", "Hot", "High", "Weak"], ["Sunny", "Hot", "Medium", "Calm"]],
                columns=FEATURES,
            ),
        ),
        check=lambda predicted: list(predicted) == ["Yes", "No"],
        cli=("predict", "{t}/model.json", "{t}/new.csv"),
        status=0,
        says=r"\Aprediction\nYes\nNo\n\Z",
    ),
    Case(
        "predict-missing-column",
        files(
            {"model.json": save_model, "new.csv": "Outlook,Temperature,Humidity\nSunny,Hot,High\n"}
        ),
        lambda t: predict(t / "model.json", playtennis().X.drop(columns=["Wind"])),
        (DataError, r"column 'Wind' is missing from the data"),
        cli=("predict", "{t}/model.json", "{t}/new.csv"),
        says=r"new\.csv: column 'Wind' is missing from the data",
    ),
    Case(
        "predict-extra-column",
        files({"model.json": save_model, "new.csv": HEADER + ",Extra\nSunny,Hot,High,Weak,1\n"}),
        lambda t: predict(t / "model.json", playtennis().X.assign(Extra=1)),
        check=lambda predicted: list(predicted) == list(playtennis_model().predict(playtennis().X)),
        cli=("predict", "{t}/model.json", "{t}/new.csv"),
        status=0,
        says=r"\Aprediction\nNo\n\Z",
    ),
    Case(
        "predict-reordered-columns",
        files(
            {
                "model.json": save_model,
                "new.csv": "Wind,Humidity,Temperature,Outlook\nWeak,High,Hot,Sunny\n"
                "Strong,Normal,Cool,Overcast\n",
            }
        ),
        lambda t: predict(t / "model.json", playtennis().X[FEATURES[::-1]]),
        check=lambda predicted: list(predicted) == list(playtennis_model().predict(playtennis().X)),
        cli=("predict", "{t}/model.json", "{t}/new.csv"),
        status=0,
        says=r"\Aprediction\nNo\nYes\n\Z",
    ),
    Case(
        "evaluate-data-without-the-target",
        files({"model.json": save_model, "new.csv": HEADER + "\nSunny,Hot,High,Weak\n"}),
        lambda t: quercus.read_table(t / "new.csv", target="PlayTennis"),
        (DataError, r"new\.csv: target column 'PlayTennis' not found"),
        cli=("evaluate", "{t}/model.json", "{t}/new.csv"),
        says=r"new\.csv: target column 'PlayTennis' not found",
    ),
    # -- model files that are not models
    *(
        Case(
            f"{command}-model-file-{kind}",
            files({name: content}),
            lambda t, name=name: quercus.load(t / name),
            (ModelError, rf"model file '.*{re.escape(name)}' is not valid JSON"),
            cli=(command, f"{{t}}/{name}", *(["{playtennis}"] if command == "predict" else [])),
            says=rf"model file '.*{re.escape(name)}' is not valid JSON",
        )
        for kind, name, content in [
            ("text", "model.json", "this is not a model\n"),
            ("empty", "model.json", ""),
            ("csv", "data.csv", PLAYTENNIS.read_text()),
        ]
        for command in ("predict", "show")
    ),
    Case(
        "show-model-file-absent",
        None,
        lambda t: quercus.load(t / "absent.json"),
        (ModelError, r"model file '.*absent\.json' not found"),
        cli=("show", "{t}/absent.json"),
        says=r"model file '.*absent\.json' not found",
    ),
    # -- writing the model
    Case(
        "fit-output-in-a-missing-directory",
        None,
        lambda t: playtennis_model().save("/nonexistent/dir/m.json"),
        (OSError, r"cannot write /nonexistent/dir/m\.json: directory /nonexistent/dir does not"),
        cli=("fit", "{playtennis}", "-o", "/nonexistent/dir/m.json"),
        says=r"cannot write /nonexistent/dir/m\.json: directory /nonexistent/dir does not exist",
    ),
    Case(
        "fit-output-checked-before-reading-the-data",
        cli=("fit", "{t}/absent.csv", "-o", "/nonexistent/dir/m.json"),
        says=r"cannot write /nonexistent/dir/m\.json",
    ),
    Case(
        "fit-output-is-a-directory",
        files({"out": None}),
        lambda t: playtennis_model().save(t / "out"),
        (OSError, r"cannot write .*out: it is a directory"),
        cli=("fit", "{playtennis}", "-o", "{t}/out"),
        says=r"cannot write .*out: it is a directory",
    ),
    # -- sample weights (the library only)
    *(
        Case(
            f"api-sample-weight-{kind}",
            api=lambda t, weights=weights: quercus.C45Classifier().fit(
                *playtennis(), sample_weight=weights
            ),
            raises=(ValueError, pattern),
        )
        for kind, weights, pattern in [
            ("negative", -np.ones(14), r"Negative values in data passed to sample_weight"),
            ("nan", np.full(14, np.nan), r"sample_weight must be finite"),
            ("wrong-length", np.ones(13), r"sample_weight\.shape == \(13,\), expected \(14,\)"),
            ("all-zero", np.zeros(14), r"sample_weight is zero for every sample"),
        ]
    ),
    Case(
        "api-nan-label-in-a-list",
        api=lambda t: quercus.C45Classifier().fit(
            pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]}), ["p", np.nan, "p", "q"]
        ),
        raises=(ValueError, r"y contains NaN"),
    ),
    # -- parameters: the library raises InvalidParameterError at fit, --set is a usage error
    *(
        Case(
            f"param-{name}={text}",
            api=lambda t, cls=cls, name=name, value=value: cls(**{name: value}).fit(*playtennis()),
            raises=(InvalidParameterError, rf"^{name} must be .*, got {re.escape(repr(value))}$"),
            check=named(name),
            cli=("fit", "{playtennis}", "--algorithm", algorithm, "--set", f"{name}={text}"),
            status=2,
            says=rf"--set {name}: {name} must be .*, got {re.escape(repr(value))}$",
        )
        for algorithm, cls, name, value, text in [
            ("c45", quercus.C45Classifier, "max_depth", -1, "-1"),
            ("c45", quercus.C45Classifier, "max_depth", "abc", "abc"),
            ("c45", quercus.C45Classifier, "criterion", "foo", "foo"),
            ("c45", quercus.C45Classifier, "min_samples_leaf", 0, "0"),
            ("c45", quercus.C45Classifier, "min_samples_split", 1, "1"),
            ("c45", quercus.C45Classifier, "confidence", 0.9, "0.9"),
            ("id3", quercus.ID3Classifier, "significance", 2, "2"),
            ("forest", quercus.RandomForestClassifier, "n_estimators", 0, "0"),
            ("forest", quercus.RandomForestClassifier, "max_features", 0, "0"),
            ("cart", quercus.CARTClassifier, "max_bins", 1, "1"),
            ("cart", quercus.CARTClassifier, "ccp_alpha", -1, "-1"),
            ("c45", quercus.C45Classifier, "missing", "nope", "nope"),
            ("c45", quercus.C45Classifier, "pruning", "x", "x"),
            ("forest", quercus.RandomForestClassifier, "bootstrap", "yes", "yes"),
        ]
    ),
    Case(
        "param-confidence=0.9-with-release8",
        api=lambda t: quercus.C45Classifier(confidence=0.9, c45_variant="release8").fit(
            *playtennis()
        ),
        check=lambda tree: tree.tree_.node_count > 1,
        cli=("fit", "{playtennis}", "--set", "c45_variant=release8", "--set", "confidence=0.9"),
        status=0,
        says=r"training accuracy: ",
    ),
    Case(
        "param-unknown-name",
        api=lambda t: quercus.C45Classifier(max_dept=3),
        raises=(TypeError, r"unexpected keyword argument 'max_dept'"),
        cli=("fit", "{playtennis}", "--set", "max_dept=3"),
        status=2,
        says=r"unknown parameter 'max_dept' \(did you mean max_depth\?\)",
    ),
    # -- command lines that cannot mean anything
    Case(
        "fit-set-without-a-value",
        cli=("fit", "{playtennis}", "--set", "max_depth"),
        status=2,
        says=r"argument --set: expected name=value .*, got 'max_depth'",
    ),
    Case(
        "fit-unknown-algorithm",
        cli=("fit", "{playtennis}", "--algorithm", "c50"),
        status=2,
        says=r"argument --algorithm: invalid choice: 'c50'",
    ),
    Case(
        "predict-proba-of-a-regression-model",
        files({"reg.json": save_regression_model, "t.csv": regression_frame().to_csv(index=False)}),
        lambda t: quercus.load(t / "reg.json").predict_proba(regression_frame()[["x"]]),
        (AttributeError, r"'CARTRegressor' object has no attribute 'predict_proba'"),
        cli=("predict", "{t}/reg.json", "{t}/t.csv", "--proba"),
        status=2,
        says=r"--proba needs a classification model; .*reg\.json holds a regression model",
    ),
    Case(
        "show-tree-of-a-single-tree",
        files({"model.json": save_model}),
        cli=("show", "{t}/model.json", "--tree", "0"),
        status=2,
        says=r"--tree K picks a tree of a forest; .*model\.json holds a single tree",
    ),
    Case(
        "predict-id-column-absent",
        files({"model.json": save_model}),
        cli=("predict", "{t}/model.json", "{playtennis}", "--id", "nosuch"),
        says=r"playtennis\.csv: column 'nosuch' not found",
    ),
]

# Every case through the command line; most through the library too.
assert len({case.id for case in CASES}) == len(CASES)
assert sum(case.api is not None and case.cli is not None for case in CASES) >= 40


def params(route: str):
    """The cases that have ``route`` ("api" or "cli"), a known defect marked as such."""
    chosen = []
    for case in CASES:
        if getattr(case, route) is None:
            continue
        reason = getattr(case, f"{route}_xfail")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        chosen.append(pytest.param(case, id=case.id, marks=marks))
    return chosen


# -- the library ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", params("api"))
def test_api(case: Case, tmp_path):
    if case.make is not None:
        case.make(tmp_path)
    said = pytest.warns(DataWarning, match=case.warns) if case.warns else contextlib.nullcontext()
    start = time.perf_counter()
    if case.raises is not None:
        kind, pattern = case.raises
        with pytest.raises(kind, match=pattern) as caught, said:
            case.api(tmp_path)
        result = caught.value
    else:
        with said:
            result = case.api(tmp_path)
    elapsed = time.perf_counter() - start
    if case.seconds is not None:
        assert elapsed < case.seconds, f"{elapsed:.1f} s"
    if case.check is not None:
        assert case.check(result), result


# -- the command line ----------------------------------------------------------------------------


def argv(case: Case, tmp_path: Path) -> list[str]:
    return [part.format(t=tmp_path, playtennis=PLAYTENNIS) for part in case.cli]


def check_run(case: Case, status: int, out: str, err: str) -> None:
    """The exit status and what the command printed, as the case expects."""
    assert status == case.status, (status, out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    if case.status == 0:
        assert all(line.startswith("quercus: warning: ") for line in lines), err
        if case.warns is None:
            assert not lines, err
        else:
            assert any(re.search(case.warns, line) for line in lines), err
        assert re.search(case.says, out), out
        return
    assert out == "", out  # nothing done before the error
    if case.status == 1:
        assert len(lines) == 1, err
        assert lines[0].startswith("quercus: error: "), err
        assert not lines[0].startswith("quercus: error: unexpected "), err
    else:  # argparse's usage, then the error on one line
        command = case.cli[0]
        assert lines[0].startswith(f"usage: quercus {command} "), err
        assert lines[-1].startswith(f"quercus {command}: error: "), err
        assert all(line.startswith(" ") for line in lines[1:-1]), err
    assert re.search(case.says, lines[-1]), lines[-1]


@pytest.mark.parametrize("case", params("cli"))
def test_cli(case: Case, tmp_path, capsys):
    if case.make is not None:
        case.make(tmp_path)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # As a user's shell runs quercus: warnings printed (as 'quercus: warning: ...').
        warnings.simplefilter("always")
        try:
            status = main(argv(case, tmp_path))
        except SystemExit as exc:  # argparse's own usage errors
            status = exc.code
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    check_run(case, status, out, err)
    if case.seconds is not None:
        assert elapsed < case.seconds, f"{elapsed:.1f} s"


@pytest.mark.parametrize("name", ["fit-empty-file", "param-unknown-name"])
def test_cli_in_a_process(name, tmp_path):
    (case,) = [case for case in CASES if case.id == name]
    if case.make is not None:
        case.make(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "quercus", *argv(case, tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    check_run(case, result.returncode, result.stdout, result.stderr)
