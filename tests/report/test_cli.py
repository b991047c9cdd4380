"""``quercus report``: the page of a model learned from a data file, and its one-line errors."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import quercus
from quercus.cli import main


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    path = tmp_path_factory.mktemp("report-cli")
    quercus.datasets.load("playtennis").to_csv(path / "playtennis.csv", index=False)
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, 60)
    y = np.where(x > 5, 20.0, 5.0) + rng.normal(0, 0.5, 60)
    pd.DataFrame({"x": x, "y": y.round(3)}).to_csv(path / "numeric.csv", index=False)
    return path


def page_data(path) -> dict:
    text = path.read_text(encoding="utf-8")
    found = re.search(r'id="report-data">(.*?)</script>', text, re.S)
    return json.loads(found.group(1))


def test_report_writes_the_page_and_says_where(work, capsys):
    out = work / "id3.html"
    status = main(["report", str(work / "playtennis.csv"), "--algorithm", "id3", "-o", str(out)])
    assert status == 0
    said = capsys.readouterr().out
    assert f"written to {out}" in said and "open it in a browser" in said
    data = page_data(out)
    root = data["tree"]["scores"][0]
    assert {data["features"][r[0]]: r[1] for r in root["rows"]}["Outlook"] == 0.247
    text = out.read_text(encoding="utf-8")
    assert "<title>ID3 on playtennis.csv</title>" in text


def test_report_options_of_fit_and_a_test_file(work, capsys):
    out = work / "cart.html"
    status = main(
        [
            "report",
            str(work / "playtennis.csv"),
            "--algorithm",
            "cart",
            "--set",
            "max_depth=1",
            # The command line's rpart settings would keep PlayTennis's 14 rows in one leaf,
            # and 14 rows are too few for 10 folds of cross-validated pruning.
            "--set",
            "min_samples_split=2",
            "--set",
            "min_samples_leaf=1",
            "--set",
            "ccp_alpha=0",
            "--test",
            str(work / "playtennis.csv"),
            "-o",
            str(out),
            "-q",
        ]
    )
    assert status == 0
    text = out.read_text(encoding="utf-8")
    assert "On the test data (14 rows)" in text
    data = page_data(out)
    assert data["gain_name"] == "Gini decrease"
    assert {s["stop"] for s in data["tree"]["scores"] if s["stop"]} >= {"max_depth"}


def test_report_of_a_regression_target(work, capsys):
    out = work / "numeric.html"
    assert main(["report", str(work / "numeric.csv"), "--algorithm", "cart", "-o", str(out)]) == 0
    assert page_data(out)["regression"]


def test_errors_are_one_line(work, capsys, tmp_path):
    data = str(work / "playtennis.csv")
    assert main(["report", data, "-o", str(tmp_path / "no" / "r.html")]) == 1
    err = capsys.readouterr().err.strip()
    missing = tmp_path / "no"
    assert err == (
        f"quercus: error: cannot write {missing}/r.html: directory {missing} does not exist"
    )
    assert main(["report", data, "-o", str(tmp_path / "r.html"), "--set", "max_dept=2"]) == 2
    assert "did you mean max_depth?" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", data])  # -o is required
    assert "-o/--output" in capsys.readouterr().err
    other = tmp_path / "other.csv"
    quercus.datasets.load("playtennis").drop(columns=["Wind"]).to_csv(other, index=False)
    assert main(["report", data, "--test", str(other), "-o", str(tmp_path / "r.html")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("quercus: error: ") and "Wind" in err and str(other) in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r.html").exists()


def test_report_of_a_gradient_booster(work, capsys):
    out = work / "boost.html"
    argv = ["report", str(work / "playtennis.csv"), "--algorithm", "boost", "-o", str(out)]
    # PlayTennis's 14 rows: leaves of one row at least (the booster's default is 20).
    settings = ["--set", "max_iter=3", "--set", "learning_rate=0.3", "--set", "min_samples_leaf=1"]
    assert main([*argv, *settings]) == 0
    assert "report of gradient boosting (GradientBoostingClassifier) written to" in (
        capsys.readouterr().out
    )
    text = out.read_text(encoding="utf-8")
    assert "<title>gradient boosting on playtennis.csv</title>" in text
    assert '<section id="booster">' in text and "Loss by iteration" in text
    X, y = quercus.read_table(work / "playtennis.csv")
    booster = quercus.GradientBoostingClassifier(
        max_iter=3, learning_rate=0.3, min_samples_leaf=1, random_state=0
    ).fit(X, y)
    data = page_data(out)
    trees = data["booster"]["trees"]
    assert [t["name"] for t in trees] == ["iteration 1", "iteration 2", "iteration 3"]
    first = booster.trees_.tree(0)
    assert trees[0]["total"] == first.node_count > 1
    assert trees[0]["newton"]["H"][0] == pytest.approx(first.value[0, 0], rel=1e-5)
    assert trees[0]["newton"]["gain"][0] == pytest.approx(first.impurity_decrease()[0], rel=1e-5)


def test_report_of_a_boosted_regression_with_a_test_file(work, capsys):
    out = work / "boost-numeric.html"
    data = str(work / "numeric.csv")
    argv = ["report", data, "--algorithm", "boost", "--set", "max_iter=4", "--test", data]
    assert main([*argv, "-o", str(out), "-q"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "On the test data (60 rows)" in text
    page = page_data(out)
    assert page["regression"] and page["value_name"] == "step"
    assert [t["name"] for t in page["booster"]["trees"]][:2] == ["iteration 1", "iteration 2"]
