"""Model files: estimator.save(path) / quercus.load(path), versioned JSON read without running
code (docs/model-format.md)."""

from __future__ import annotations

import copy
import json
import logging
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError

import quercus
from quercus.persist import document, model_file
from quercus.persist.loader import model_from_dict
from quercus.persist.model_file import (
    FORMAT,
    FORMAT_VERSION,
    ModelError,
    model_to_dict,
    save_model,
)
from quercus.splitting.category_sets import BITSET, pack_sides, table_sides, table_sizes

LEVELS = ["low", "mid", "high"]  # declared order, not the sorted one
ORDINAL = {"grade": LEVELS}


# -- data ------------------------------------------------------------------------------------


def mixed_data(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """Nominal strings, numbers, an ordinal column and integer counts, all with gaps."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "color": rng.choice(np.array(["red", "green", "blue"], dtype=object), n),
            "size": rng.normal(size=n).round(2),
            "grade": rng.choice(np.array(LEVELS, dtype=object), n),
            "count": rng.integers(0, 6, n).astype(float),
        }
    )
    X.loc[rng.random(n) < 0.1, "color"] = None
    X.loc[rng.random(n) < 0.1, "size"] = np.nan
    X.loc[rng.random(n) < 0.1, "grade"] = None
    X.loc[rng.random(n) < 0.05, "count"] = np.nan
    return X


def mixed_target(X: pd.DataFrame, kind: str, seed: int = 1):
    rng = np.random.default_rng(seed)
    score = (
        X["size"].fillna(0).to_numpy()
        + (X["color"] == "red").to_numpy() * 1.2
        + X["grade"].map({"low": 0, "mid": 0.5, "high": 1.0}).fillna(0.5).to_numpy()
        + rng.normal(scale=0.5, size=len(X))
    )
    if kind == "regression":
        return score * 10
    positive = score > 0.8
    if kind == "str":
        return np.where(positive, "yes", "no").astype(object)
    if kind == "int":
        return np.where(positive, 3, 0) + (X["count"].to_numpy() > 4)  # four classes
    if kind == "bool":
        return positive
    raise ValueError(kind)


def data(name: str):
    if name == "playtennis":
        df = quercus.datasets.load("playtennis")
        return df.iloc[:, :-1], df["PlayTennis"]
    if name == "car":
        table = quercus.read_table(quercus.datasets.path("car"))
        return table.X, table.y
    if name == "iris":
        iris = load_iris(as_frame=True)
        return iris.data, iris.target
    if name == "iris-names":
        iris = load_iris(as_frame=True)
        return iris.data, iris.target_names[iris.target]
    if name == "iris-array":
        iris = load_iris()
        return iris.data, iris.target
    X = mixed_data()
    return X, mixed_target(X, name.removeprefix("mixed-"))


Q = quercus
CASES = {
    "tree-str": (lambda: Q.DecisionTreeClassifier(ordinal_features=ORDINAL), "mixed-str"),
    "tree-binary-max-leaves-int": (
        lambda: Q.DecisionTreeClassifier(
            nominal_split="binary", max_leaf_nodes=6, ordinal_features=ORDINAL
        ),
        "mixed-int",
    ),
    "tree-multiway-fractional-bool": (
        lambda: Q.DecisionTreeClassifier(
            criterion="entropy", nominal_split="multiway", missing="fractional"
        ),
        "mixed-bool",
    ),
    "tree-tagged-params": (
        lambda: Q.DecisionTreeClassifier(
            class_weight={"yes": 2.0, "no": 1.0},
            nominal_features=["count"],
            ordinal_features={"grade": tuple(LEVELS)},
            max_depth=4,
        ),
        "mixed-str",
    ),
    "tree-reduced-error": (
        lambda: Q.DecisionTreeClassifier(pruning="reduced_error", random_state=0),
        "mixed-str",
    ),
    "id3-playtennis": (lambda: Q.ID3Classifier(), "playtennis"),
    "id3-int": (lambda: Q.ID3Classifier(ordinal_features=ORDINAL), "mixed-int"),
    "c45-fractional-pessimistic": (lambda: Q.C45Classifier(ordinal_features=ORDINAL), "mixed-str"),
    "c45-unpruned-bool": (lambda: Q.C45Classifier(pruning=None), "mixed-bool"),
    "c45-binary-int": (lambda: Q.C45Classifier(nominal_split="binary"), "mixed-int"),
    "c45-iris": (lambda: Q.C45Classifier(), "iris-names"),
    "cart-ccp-bool": (lambda: Q.CARTClassifier(ccp_alpha=0.01), "mixed-bool"),
    "cart-ccp-cv-iris": (lambda: Q.CARTClassifier(ccp_alpha="cv", random_state=0), "iris"),
    "cart-max-leaves-iris": (lambda: Q.CARTClassifier(max_leaf_nodes=4), "iris-names"),
    "cart-array-input": (lambda: Q.CARTClassifier(max_depth=3), "iris-array"),
    "rules-str": (lambda: Q.C45RulesClassifier(ordinal_features=ORDINAL), "mixed-str"),
    "rules-iris": (lambda: Q.C45RulesClassifier(), "iris-names"),
    "regressor-absolute-error": (
        lambda: Q.DecisionTreeRegressor(criterion="absolute_error", ordinal_features=ORDINAL),
        "mixed-regression",
    ),
    "regressor-absolute-error-ccp": (
        lambda: Q.DecisionTreeRegressor(criterion="absolute_error", ccp_alpha=0.5, max_depth=6),
        "mixed-regression",
    ),
    "cart-regressor-max-leaves": (
        lambda: Q.CARTRegressor(max_leaf_nodes=8, ordinal_features=ORDINAL),
        "mixed-regression",
    ),
    "cart-regressor-ccp-cv": (
        lambda: Q.CARTRegressor(ccp_alpha="cv", max_depth=3, random_state=0),
        "mixed-regression",
    ),
    "model-tree": (lambda: Q.ModelTreeRegressor(ordinal_features=ORDINAL), "mixed-regression"),
    "model-tree-unsmoothed": (lambda: Q.ModelTreeRegressor(smoothing=False), "mixed-regression"),
    "regressor-linear-leaves": (
        lambda: Q.DecisionTreeRegressor(leaf_model="linear", max_depth=2, ordinal_features=ORDINAL),
        "mixed-regression",
    ),
}


# -- helpers ---------------------------------------------------------------------------------


def round_trip(estimator, tmp_path):
    path = estimator.save(tmp_path / "model.json")
    assert path == tmp_path / "model.json"
    return quercus.load(path)


def assert_same_model(a, b, X) -> None:
    """``b`` (loaded) behaves exactly as ``a`` (fitted) on ``X``."""
    assert type(b) is type(a)
    assert b.get_params() == a.get_params()
    assert b.schema_ == a.schema_
    assert b.n_features_in_ == a.n_features_in_
    assert hasattr(b, "feature_names_in_") == hasattr(a, "feature_names_in_")
    if hasattr(a, "feature_names_in_"):
        assert np.array_equal(b.feature_names_in_, a.feature_names_in_)
    pa, pb = a.predict(X), b.predict(X)
    assert pb.dtype == pa.dtype
    assert np.array_equal(pb, pa)
    assert np.array_equal(b.apply(X), a.apply(X))
    da, db = a.decision_path(X), b.decision_path(X)
    assert da.shape == db.shape and (da != db).nnz == 0
    assert b.export_text() == a.export_text()
    assert np.array_equal(b.feature_importances_, a.feature_importances_)
    assert (b.get_depth(), b.get_n_leaves()) == (a.get_depth(), a.get_n_leaves())
    if hasattr(a, "classes_"):
        assert b.classes_.dtype == a.classes_.dtype
        assert np.array_equal(b.classes_, a.classes_)
        assert np.array_equal(b.predict_proba(X), a.predict_proba(X))
    if hasattr(a, "rules_"):
        assert b.rules_ == a.rules_
        for ra, rb in zip(a.rules_, b.rules_, strict=True):
            assert np.array_equal(rb.distribution, ra.distribution)
        assert b.default_class_ == a.default_class_
        assert np.array_equal(b.rule_proba_, a.rule_proba_)
        assert b.export_rules() == a.export_rules()
        assert np.array_equal(b.apply_rules(X), a.apply_rules(X))
    for key in ("max_features_", "ccp_alpha_"):
        assert getattr(b, key, None) == getattr(a, key, None)


@pytest.fixture(scope="module")
def id3_doc():
    X, y = data("playtennis")
    return model_to_dict(quercus.ID3Classifier().fit(X, y))


@pytest.fixture(scope="module")
def c45_mixed():
    X = mixed_data()
    return quercus.C45Classifier(ordinal_features=ORDINAL).fit(X, mixed_target(X, "str")), X


def write(path, doc) -> str:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def rejects(path, match: str) -> ModelError:
    """``quercus.load(path)`` raises a ModelError naming the file and matching ``match``."""
    with pytest.raises(ModelError, match=match) as info:
        quercus.load(path)
    assert str(path) in str(info.value)
    return info.value


# -- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(CASES))
def test_round_trip_is_exact(case, tmp_path):
    factory, data_name = CASES[case]
    X, y = data(data_name)
    fitted = factory().fit(X, y)
    loaded = round_trip(fitted, tmp_path)
    assert_same_model(fitted, loaded, X)
    if data_name.startswith("mixed"):
        assert X.isna().any().all()  # every column has gaps: the missing-value routes count
        # and on new rows, with other gaps
        assert_same_model(fitted, loaded, mixed_data(60, seed=7))


def test_round_trips_cover_every_estimator_class():
    fitted = {type(factory()) for factory, _ in CASES.values()}
    assert {c.__name__ for c in fitted} == set(quercus.estimators.__all__)


def test_round_trip_keeps_what_makes_the_case_special(tmp_path):
    X, y = data("mixed-str")
    c45 = round_trip(quercus.C45Classifier(ordinal_features=ORDINAL).fit(X, y), tmp_path)
    assert c45.tree_.fractional and c45.missing == "fractional"
    assert c45.schema_["grade"].kind == "ordinal"
    assert c45.schema_["grade"].categories == tuple(LEVELS)
    median = round_trip(
        quercus.DecisionTreeRegressor(criterion="absolute_error").fit(
            X, mixed_target(X, "regression")
        ),
        tmp_path,
    )
    assert median.tree_.leaf_params is not None
    leaves = median.apply(X)
    assert np.array_equal(median.predict(X), median.tree_.leaf_params[leaves, 0])
    binary = round_trip(quercus.CARTClassifier(max_leaf_nodes=5).fit(X, y), tmp_path)
    assert binary.get_n_leaves() == 5
    tagged = round_trip(
        quercus.DecisionTreeClassifier(ordinal_features={"grade": tuple(LEVELS)}).fit(X, y),
        tmp_path,
    )
    assert tagged.ordinal_features == {"grade": tuple(LEVELS)}  # a dict of a tuple, as given


def test_round_trip_of_a_single_leaf(tmp_path):
    X = mixed_data(10)
    fitted = quercus.ID3Classifier().fit(X, ["same"] * 10)
    loaded = round_trip(fitted, tmp_path)
    assert loaded.tree_.node_count == 1
    assert_same_model(fitted, loaded, X)


def test_round_trip_on_credit_a(shared, tmp_path):
    X, y = quercus.read_table(shared("credit-a.csv"))
    assert X.isna().any().any()
    for estimator in (quercus.C45Classifier(), quercus.C45RulesClassifier()):
        fitted = estimator.fit(X, y)
        assert_same_model(fitted, round_trip(fitted, tmp_path), X)


def test_a_loaded_model_can_be_refitted(tmp_path):
    X, y = data("mixed-str")
    fitted = quercus.C45Classifier(ordinal_features=ORDINAL).fit(X, y)
    refitted = round_trip(fitted, tmp_path).fit(X, y)
    assert_same_model(fitted, refitted, X)


def test_model_to_dict_and_back_without_a_file():
    X, y = data("iris-names")
    fitted = quercus.C45RulesClassifier().fit(X, y)
    assert_same_model(fitted, model_from_dict(model_to_dict(fitted)), X)


def test_tagged_values_come_back_as_they_were():
    value = {
        "t": (1, 2.5, None),
        1: [float("nan"), float("inf"), -float("inf")],
        (0, "a"): np.array([1, 2], dtype=np.int16),
        "b": True,
    }
    plain = document.plain(value, "x")
    text = json.dumps(plain, allow_nan=False)  # strict JSON
    back = document.unplain(json.loads(text))
    assert set(back) == {"t", 1, (0, "a"), "b"} and back["b"] is True
    assert back["t"] == (1, 2.5, None)
    assert np.isnan(back[1][0]) and back[1][1:] == [float("inf"), -float("inf")]
    assert back[(0, "a")].dtype == np.int16 and back[(0, "a")].tolist() == [1, 2]
    with pytest.raises(TypeError, match="cannot store a object"):
        document.plain(object(), "x")


# -- the file --------------------------------------------------------------------------------


def test_the_file_is_readable_json(tmp_path):
    X, y = data("playtennis")
    path = quercus.ID3Classifier().fit(X, y).save(tmp_path / "tennis.json")

    def no_constants(name):
        raise AssertionError(f"{name} is not JSON")

    text = path.read_text(encoding="utf-8")
    doc = json.loads(text, parse_constant=no_constants)
    assert list(doc)[:5] == ["format", "format_version", "quercus_version", "created", "estimator"]
    assert doc["format"] == FORMAT == "quercus-model"
    assert doc["format_version"] == FORMAT_VERSION == 5
    assert doc["quercus_version"] == quercus.__version__
    created = datetime.fromisoformat(doc["created"])
    assert created.tzinfo is not None
    assert abs(datetime.now(timezone.utc) - created) < timedelta(minutes=5)
    assert doc["estimator"] == "ID3Classifier"
    assert doc["params"]["criterion"] == "entropy" and doc["params"]["max_depth"] is None
    assert doc["training"] == {
        "n_samples": 14,
        "sum_of_weights": 14.0,
        "n_features": 4,
        "feature_names_in": ["Outlook", "Temperature", "Humidity", "Wind"],
    }
    features = doc["schema"]["features"]
    assert features[0] == {
        "name": "Outlook",
        "kind": "nominal",
        "categories": ["Overcast", "Rain", "Sunny"],
    }
    assert doc["classes"] == {"dtype": "O", "values": ["No", "Yes"]}
    tree = doc["tree"]
    n = tree["n_nodes"]
    assert n == 8 and tree["regression"] is False and tree["fractional"] is False
    for key in ("kind", "feature", "threshold", "child_start", "n_children", "cat_start"):
        assert len(tree[key]) == n
    assert tree["kind"][0] == 2 and tree["feature"][0] == 0  # multiway split on Outlook
    assert tree["threshold"] == [None] * n  # NaN is written as null
    assert tree["value"][0] == [5.0, 9.0]
    assert tree["median"] is None
    assert "rules" not in doc


def test_the_file_keeps_categories_in_declared_order_and_label_dtypes(tmp_path):
    X, y = data("mixed-int")
    path = quercus.CARTClassifier(ordinal_features=ORDINAL).fit(X, y).save(tmp_path / "m.json")
    doc = json.loads(path.read_text())
    kinds = {f["name"]: (f["kind"], f["categories"]) for f in doc["schema"]["features"]}
    assert kinds == {
        "color": ("nominal", ["blue", "green", "red"]),
        "size": ("numeric", None),
        "grade": ("ordinal", LEVELS),
        "count": ("numeric", None),
    }
    assert doc["classes"] == {"dtype": np.dtype(np.int64).str, "values": [0, 1, 3, 4]}
    X, y = data("mixed-bool")
    doc = model_to_dict(quercus.CARTClassifier().fit(X, y))
    assert doc["classes"] == {"dtype": "|b1", "values": [False, True]}
    doc = model_to_dict(quercus.CARTRegressor().fit(X, mixed_target(X, "regression")))
    assert "classes" not in doc and len(doc["tree"]["value"][0]) == 3


def test_the_rules_section(tmp_path):
    X, y = data("iris-names")
    fitted = quercus.C45RulesClassifier().fit(X, y)
    doc = json.loads(fitted.save(tmp_path / "rules.json").read_text())
    rules = doc["rules"]
    assert len(rules["rules"]) == len(fitted.rules_)
    assert rules["default_class"] == fitted.default_class_
    assert np.array_equal(rules["rule_proba"], fitted.rule_proba_)
    first, rule = rules["rules"][0], fitted.rules_[0]
    assert first["class_index"] == rule.class_index
    assert [c["text"] for c in first["conditions"]] == [c.text for c in rule.conditions]


# -- rejected files --------------------------------------------------------------------------


def test_a_missing_file(tmp_path):
    rejects(tmp_path / "nowhere.json", "not found")


def test_a_directory(tmp_path):
    rejects(tmp_path, "cannot be read")


def test_a_truncated_file(tmp_path):
    X, y = data("playtennis")
    path = quercus.ID3Classifier().fit(X, y).save(tmp_path / "m.json")
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    rejects(path, "not valid JSON")


@pytest.mark.parametrize(
    "content, match",
    [
        (b"\x80\x93\xff binary \x00", "not UTF-8"),
        (b"\x80\x04\x95pickle", "not UTF-8"),
        (b"format: quercus-model", "not valid JSON"),
        (b"", "not valid JSON"),
        (b"[" * 100_000, "nests its JSON too deeply"),
    ],
)
def test_bytes_that_are_not_json(tmp_path, content, match):
    path = tmp_path / "m.json"
    path.write_bytes(content)
    rejects(path, match)


@pytest.mark.parametrize(
    "doc",
    [
        [1, 2, 3],
        "quercus-model",
        {"format": "sklearn-model", "format_version": 1},
        {"type": "FeatureCollection", "features": []},
    ],
)
def test_json_of_another_format(tmp_path, doc):
    rejects(write(tmp_path / "m.json", doc), "not a quercus model")


def test_a_newer_format_version(tmp_path, id3_doc):
    doc = {**id3_doc, "format_version": FORMAT_VERSION + 1, "quercus_version": "9.0"}
    error = rejects(write(tmp_path / "m.json", doc), "format version 6 is not supported")
    assert "reads versions 1 to 5" in str(error) and "newer quercus (9.0)" in str(error)


def with_full_tables(doc: dict) -> dict:
    """``doc`` as format version 3 and older wrote it: every nominal split's table names
    the branch of each category of its feature (written out here bit by bit)."""
    doc = copy.deepcopy(doc)
    tree, features = doc["tree"], doc["schema"]["features"]
    out, starts, table = [], [], np.array(tree["cat_table"])
    for node, kind in enumerate(tree["kind"]):
        if kind not in (2, 3):  # MULTIWAY_SPLIT, SUBSET_SPLIT
            starts.append(-1)
            continue
        n = len(features[tree["feature"][node]]["categories"])
        branch = list(range(n)) if kind == 2 else table_sides(table, tree["cat_start"][node], n)
        starts.append(len(out))
        out.extend(int(b) for b in branch)
    tree["cat_start"], tree["cat_table"] = starts, out
    return doc


def test_a_version_1_file_still_loads(tmp_path, id3_doc):
    """Version 2 added model trees; a file of version 1 (no model tree, a category table
    per nominal split) reads as it did."""
    doc = {**with_full_tables(id3_doc), "format_version": 1}
    loaded = quercus.load(write(tmp_path / "m.json", doc))
    X, y = data("playtennis")
    assert list(loaded.predict(X)) == list(quercus.ID3Classifier().fit(X, y).predict(X))


def with_bare_bitsets(doc: dict) -> dict:
    """``doc`` as format version 4 wrote it: each subset split's bitset without a header."""
    doc = copy.deepcopy(doc)
    tree, features = doc["tree"], doc["schema"]["features"]
    table, starts = [], []
    for node, kind in enumerate(tree["kind"]):
        if kind != 3:  # SUBSET_SPLIT
            starts.append(-1)
            continue
        n = len(features[tree["feature"][node]]["categories"])
        starts.append(len(table))
        table.extend(
            pack_sides(table_sides(np.array(tree["cat_table"]), tree["cat_start"][node], n))
        )
    tree["cat_start"], tree["cat_table"] = starts, [int(w) for w in table]
    return {**doc, "format_version": 4}


def test_a_version_4_file_gets_headers_on_its_bitsets(tmp_path):
    """Version 5 starts each subset split's table with a header (a bitset, or a list of
    codes); the bare bitsets of version 4 are given theirs as they are read."""
    X, y = data("car")
    model = quercus.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    doc = model_to_dict(model)
    old = with_bare_bitsets(doc)
    assert old["tree"]["cat_table"] != doc["tree"]["cat_table"]
    loaded = quercus.load(write(tmp_path / "m.json", old))
    subset = np.flatnonzero(model.tree_.kind == 3)
    assert (loaded.tree_.cat_table[loaded.tree_.cat_start[subset]] == BITSET).all()
    for node in subset:
        n = model.schema_.features[model.tree_.feature[node]].n_categories
        np.testing.assert_array_equal(
            table_sides(loaded.tree_.cat_table, loaded.tree_.cat_start[node], n),
            table_sides(model.tree_.cat_table, model.tree_.cat_start[node], n),
        )
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    old["tree"]["cat_table"] = old["tree"]["cat_table"][:-1]  # the last bitset cut short
    rejects(write(tmp_path / "b.json", old), "a category split on .* out of range")


@pytest.mark.parametrize("version", [1, 2, 3])
def test_files_with_full_category_tables_load_as_bitsets(tmp_path, version):
    """Version 4 keeps a subset split's categories as a bitset and a multiway split's as
    nothing, version 5 the smaller of a headed bitset and a list; the tables of older
    files are converted as they are read."""
    X, y = data("car")
    model = quercus.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    doc = model_to_dict(model)
    assert 3 in doc["tree"]["kind"]  # subset splits, each with its bitset
    old = {**with_full_tables(doc), "format_version": version}
    assert len(old["tree"]["cat_table"]) > len(doc["tree"]["cat_table"])
    loaded = quercus.load(write(tmp_path / "m.json", old))
    np.testing.assert_array_equal(loaded.tree_.cat_table, model.tree_.cat_table)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    broken = copy.deepcopy(old)
    multiway = {**with_full_tables(model_to_dict(quercus.ID3Classifier().fit(X, y)))}
    multiway["format_version"] = version
    first = multiway["tree"]["cat_start"][0]
    table = multiway["tree"]["cat_table"]
    table[first], table[first + 1] = table[first + 1], table[first]  # two branches swapped
    rejects(write(tmp_path / "w.json", multiway), "not to its own")
    broken["tree"]["cat_table"][0] = 2  # a subset split's branch 2
    rejects(write(tmp_path / "b.json", broken), "maps a category to no branch")


def test_a_subset_split_lists_its_codes_in_order(tmp_path):
    """A subset split whose table lists codes (version 5): they are categories of its
    feature, in increasing order (routing searches them), and as many as the header says."""
    X, y = data("car")
    doc = model_to_dict(quercus.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y))
    tree = doc["tree"]
    node = tree["kind"].index(3)
    start = tree["cat_start"][node]
    n = len(doc["schema"]["features"][tree["feature"][node]]["categories"])
    sides = table_sides(np.array(tree["cat_table"]), start, n)
    side = int(sides.sum() * 2 >= n)  # list the branch of more categories
    listed = np.flatnonzero(sides == side).tolist()
    assert 2 <= len(listed) < n
    loaded = None
    for codes, message in [
        (listed, None),
        (listed[::-1], "lists categories out of range or out of order"),
        ([*listed[:-1], n], "lists categories out of range or out of order"),
        ([listed[0], listed[0]], "lists categories out of range or out of order"),
    ]:
        changed = copy.deepcopy(doc)
        table = changed["tree"]["cat_table"]
        size = int(table_sizes(np.array(table), [start], [n])[0])
        table[start : start + size] = [2 * len(codes) + side, *codes]
        changed["tree"]["cat_start"] = [
            s if s < start + 1 else s - size + 1 + len(codes) for s in changed["tree"]["cat_start"]
        ]
        if message is None:
            loaded = quercus.load(write(tmp_path / "m.json", changed))
        else:
            rejects(write(tmp_path / "m.json", changed), message)
    model = quercus.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    header = copy.deepcopy(doc)
    header["tree"]["cat_table"][start] = -2
    rejects(write(tmp_path / "h.json", header), "a category split on .* out of range")


@pytest.mark.parametrize("where", ["beyond the table", "none", "too few words"])
def test_a_subset_split_needs_its_whole_bitset(tmp_path, where):
    X, y = data("car")
    doc = model_to_dict(quercus.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y))
    tree = doc["tree"]
    node = tree["kind"].index(3)  # the first subset split
    if where == "beyond the table":
        tree["cat_start"][node] = len(tree["cat_table"])
    elif where == "none":
        tree["cat_start"][node] = -1
    else:
        tree["cat_table"] = tree["cat_table"][: tree["cat_start"][-1 - tree["kind"][::-1].index(3)]]
    rejects(write(tmp_path / "m.json", doc), "a category split on .* out of range")


@pytest.mark.parametrize("version", [0, None, "1", 1.5, True])
def test_other_format_versions(tmp_path, id3_doc, version):
    doc = {**id3_doc, "format_version": version}
    if version is None:
        del doc["format_version"]
    rejects(write(tmp_path / "m.json", doc), "is not supported")


@pytest.mark.parametrize(
    "name",
    [
        "os.system",
        "builtins.eval",
        "quercus.estimators.trees.DecisionTreeClassifier",
        "BaseDecisionTree",
        "RandomForestClassifier",
        ["ID3Classifier"],
    ],
)
def test_an_unknown_estimator_is_refused_and_nothing_runs(tmp_path, id3_doc, monkeypatch, name):
    calls = []
    monkeypatch.setattr(os, "system", lambda *args: calls.append(args) or 0)
    monkeypatch.setattr(os, "popen", lambda *args: calls.append(args))
    doc = copy.deepcopy(id3_doc)
    doc["estimator"] = name
    doc["params"] = {"command": "touch " + str(tmp_path / "pwned")}
    rejects(write(tmp_path / "m.json", doc), "field estimator: (unknown estimator|.* not of type)")
    assert calls == []
    assert not (tmp_path / "pwned").exists()


def test_a_parameter_the_class_does_not_have(tmp_path, id3_doc):
    doc = copy.deepcopy(id3_doc)
    doc["params"]["n_estimators"] = 100
    rejects(write(tmp_path / "m.json", doc), r"\['n_estimators'\] are not parameters of ID3")


def mutate(doc, change):
    doc = copy.deepcopy(doc)
    change(doc)
    return doc


def _set(*keys_and_value):
    *keys, last, value = keys_and_value

    def change(doc):
        for key in keys:
            doc = doc[key]
        doc[last] = value

    return change


# Edits of the playtennis ID3 model (nodes: 0 Outlook -> 1 leaf, 2 Wind -> 3, 4; 5 Humidity
# -> 6, 7; children = [1, 2, 5, 3, 4, 6, 7]) that loading must refuse.
BROKEN = {
    "array too short": (
        lambda d: d["tree"]["kind"].pop(),
        "field tree.kind: 7 entries for 8 nodes",
    ),
    "array too long": (
        lambda d: d["tree"]["impurity"].append(0.0),
        "field tree.impurity: 9 entries",
    ),
    "array missing": (
        lambda d: d["tree"].pop("depth"),
        "field tree: 'depth' is a required property",
    ),
    "child pointing back (cycle)": (_set("tree", "children", 3, 0), "not a later node"),
    "child pointing to itself": (_set("tree", "children", 3, 2), "not a later node"),
    "child out of range": (_set("tree", "children", 6, 8), "not a later node"),
    "child negative": (_set("tree", "children", 6, -1), "not a later node"),
    "two parents": (_set("tree", "children", 4, 6), "do not form one tree"),
    "children slice out of range": (_set("tree", "child_start", 5, 6), "children out of range"),
    "category table on a multiway split": (_set("tree", "cat_start", 0, 0), "out of range"),
    "feature out of range": (_set("tree", "feature", 0, 4), "tests feature 4, which does not"),
    "feature negative": (_set("tree", "feature", 2, -1), "tests feature -1"),
    "leaf with a feature": (_set("tree", "feature", 1, 2), "a leaf has a feature"),
    "leaf with children": (_set("tree", "n_children", 1, 2), "a leaf has a feature or children"),
    "wrong depths": (_set("tree", "depth", [0] * 8), "depth is not one more"),
    "unknown node kind": (_set("tree", "kind", 1, 7), "unknown kind"),
    "threshold split on a nominal feature": (_set("tree", "kind", 0, 1), "threshold split"),
    "missing values to no branch": (_set("tree", "missing_child", 0, 3), "to no branch"),
    "integer out of range": (_set("tree", "children", 0, 2**40), "out of range for int32"),
    "index not an integer": (_set("tree", "children", 0, 1.5), "list of integers"),
    "index as text": (_set("tree", "feature", 0, "0"), "list of integers"),
    "no nodes": (_set("tree", "n_nodes", 0), "field tree.n_nodes: 0 is less than the minimum of 1"),
    "value rows of the wrong length": (
        lambda d: d["tree"]["value"][0].append(1.0),
        "field tree.value: not 8 rows of 2 numbers",
    ),
    "value columns for three classes": (
        _set("tree", "value", [[1.0, 2.0, 3.0]] * 8),
        "field tree.value: not 8 rows of 2 numbers",
    ),
    "an extra class label": (
        _set("classes", "values", ["No", "Yes", "Maybe"]),
        "tree.value: not 8 rows of 3",
    ),
    "class labels not a list": (
        _set("classes", "values", "NY"),
        "field classes.values: 'NY' is not of type 'array'",
    ),
    "class labels repeated": (
        _set("classes", "values", ["No", "No"]),
        "field classes.values: labels must be distinct",
    ),
    "class labels nested": (
        _set("classes", "values", [["No"], ["Yes"]]),
        r"field classes.values\[[01]\]: \[.(No|Yes).\] is not of type",
    ),
    "class labels of another dtype": (_set("classes", "dtype", "<i8"), "inconsistent contents"),
    "classes missing": (lambda d: d.pop("classes"), "field classes: missing from ID3Classifier"),
    "statistics not finite": (_set("tree", "value", 0, [None, 9.0]), "must be finite"),
    "median in a classifier": (
        _set("tree", "median", [0.0] * 8),
        "field tree.median: must be finite, one per node, in a regression",
    ),
    "regression tree in a classifier": (_set("tree", "regression", True), "regression tree in"),
    "feature kind unknown": (
        _set("schema", "features", 0, "kind", "date"),
        r"field schema.features\[0\].kind: 'date' is not one of",
    ),
    "category repeated": (
        _set("schema", "features", 0, "categories", ["Rain", "Rain", "Sunny"]),
        r"field schema.features\[0\] \('Outlook'\): a category is repeated",
    ),
    "categories on a numeric feature": (
        _set("schema", "features", 0, "kind", "numeric"),
        "categories do not match its kind",
    ),
    "n_features disagrees": (
        _set("training", "n_features", 5),
        "field training.n_features: 5, but the schema has 4",
    ),
    "feature names disagree": (
        _set("training", "feature_names_in", ["a", "b", "c", "d"]),
        "not the schema's feature names",
    ),
    "params not an object": (_set("params", []), "field params: \\[\\] is not of type 'object'"),
    "unknown fitted attribute": (
        _set("fitted", "__class__", "x"),
        "field fitted: Additional properties are not allowed",
    ),
    "unknown tagged value": (
        _set("params", "max_depth", {"code": "1"}),
        "field params.max_depth: .* is not valid under any",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_inconsistent_contents_are_refused(tmp_path, id3_doc, case):
    change, match = BROKEN[case]
    doc = mutate(id3_doc, change)
    rejects(write(tmp_path / "m.json", doc), match)
    with pytest.raises(ModelError, match=match):
        model_from_dict(doc)  # the same check without a file


def test_the_unchanged_document_loads(tmp_path, id3_doc):
    X, y = data("playtennis")
    loaded = quercus.load(write(tmp_path / "m.json", id3_doc))
    assert np.array_equal(loaded.predict(X), y.to_numpy())


@pytest.fixture(scope="module")
def rules_doc():
    X, y = data("iris-names")
    return model_to_dict(quercus.C45RulesClassifier().fit(X, y))


BROKEN_RULES = {
    "no rules section": (lambda d: d.pop("rules"), "without rules"),
    "unknown class": (
        _set("rules", "rules", 0, "class_index", 3),
        "field rules.rules\\[0\\].class_index: class 3 does not exist",
    ),
    "unknown default": (
        _set("rules", "default_class", -1),
        "field rules.default_class: -1 is less than the minimum of 0",
    ),
    "unknown test": (
        _set("rules", "rules", 0, "conditions", 0, "op", "=="),
        r"field rules.rules\[0\].conditions\[0\].op: '==' is not one of",
    ),
    "no feature": (_set("rules", "rules", 0, "conditions", 0, "feature", 4), "does not exist"),
    "threshold missing": (
        _set("rules", "rules", 0, "conditions", 0, "threshold", None),
        r"field rules.rules\[0\].conditions\[0\]: a comparison needs a finite threshold",
    ),
    "probabilities short": (
        lambda d: d["rules"]["rule_proba"].pop(),
        "field rules.rule_proba: not 6 rows of 3",
    ),
    "distribution short": (
        _set("rules", "rules", 0, "distribution", [1.0]),
        r"field rules.rules\[0\].distribution: not 3 class weights",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN_RULES))
def test_inconsistent_rules_are_refused(tmp_path, rules_doc, case):
    change, match = BROKEN_RULES[case]
    rejects(write(tmp_path / "m.json", mutate(rules_doc, change)), match)


def test_rules_in_a_model_without_rules(tmp_path, id3_doc, rules_doc):
    doc = {**id3_doc, "rules": rules_doc["rules"]}
    rejects(write(tmp_path / "m.json", doc), "ID3Classifier with rules")


# -- saving ----------------------------------------------------------------------------------


def test_a_failed_save_leaves_the_old_file(tmp_path, monkeypatch):
    X, y = data("playtennis")
    path = quercus.ID3Classifier().fit(X, y).save(tmp_path / "m.json")
    before = path.read_bytes()
    other = quercus.ID3Classifier(max_depth=1).fit(X, y)

    def broken_dumps(*args, **kwargs):
        raise RuntimeError("disk on fire")

    with monkeypatch.context() as patch:
        patch.setattr(model_file.json, "dumps", broken_dumps)
        with pytest.raises(RuntimeError, match="disk on fire"):
            other.save(path)
    assert path.read_bytes() == before

    def broken_replace(src, dst):
        raise OSError("no space left on device")

    with monkeypatch.context() as patch:  # fails after the new text is written
        patch.setattr(os, "replace", broken_replace)
        with pytest.raises(OSError, match="no space"):
            other.save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]  # no temporary file left
    other.save(path)
    assert quercus.load(path).max_depth == 1


def test_a_saved_file_has_the_usual_permissions(tmp_path):
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    umask = os.umask(0o022)
    os.umask(umask)
    X, y = data("playtennis")
    path = quercus.ID3Classifier().fit(X, y).save(tmp_path / "m.json")
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_saving_an_unfitted_estimator(tmp_path):
    with pytest.raises(NotFittedError, match="not fitted yet: call fit before save"):
        quercus.C45Classifier().save(tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


def test_saving_something_else(tmp_path):
    from sklearn.tree import DecisionTreeClassifier

    X, y = data("iris-array")
    with pytest.raises(TypeError, match="only quercus tree estimators"):
        save_model(DecisionTreeClassifier().fit(X, y), tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


def test_a_subclass_with_a_quercus_name_is_not_saved(tmp_path):
    """A file records the class by name only: a user's class of the same name would load as
    quercus's own, so it is refused."""
    ID3Classifier = type("ID3Classifier", (quercus.ID3Classifier,), {"__module__": "mine"})
    X, y = data("playtennis")
    with pytest.raises(TypeError, match="only quercus tree estimators"):
        save_model(ID3Classifier().fit(X, y), tmp_path / "m.json")


def test_the_saved_classes_are_the_public_ones():
    """The names a file may hold are every public estimator and forest, and only those."""
    from quercus import ensemble, estimators
    from quercus.persist.booster_file import BOOSTER_ESTIMATORS
    from quercus.persist.forest_file import FOREST_ESTIMATORS
    from quercus.persist.model_file import MODEL_ESTIMATORS

    assert sorted(MODEL_ESTIMATORS) == sorted(estimators.__all__)
    assert sorted(FOREST_ESTIMATORS + BOOSTER_ESTIMATORS) == sorted(ensemble.__all__)


def test_a_random_state_object_is_saved_as_none(tmp_path):
    X, y = data("iris")
    fitted = quercus.CARTClassifier(max_features=2, random_state=np.random.RandomState(0))
    fitted.fit(X, y)
    with pytest.warns(UserWarning, match=r"\['random_state'\] hold a RandomState"):
        path = fitted.save(tmp_path / "m.json")
    loaded = quercus.load(path)
    assert loaded.random_state is None
    assert {**fitted.get_params(), "random_state": None} == loaded.get_params()
    assert loaded.max_features_ == fitted.max_features_ == 2
    assert np.array_equal(loaded.predict_proba(X), fitted.predict_proba(X))


# -- prediction data matched by name ---------------------------------------------------------


def test_columns_in_another_order(c45_mixed, tmp_path):
    fitted, X = c45_mixed
    loaded = round_trip(fitted, tmp_path)
    shuffled = X[["count", "grade", "size", "color"]]
    assert np.array_equal(loaded.predict_proba(shuffled), fitted.predict_proba(X))
    assert np.array_equal(loaded.predict(shuffled), fitted.predict(X))
    assert np.array_equal(loaded.apply(shuffled), fitted.apply(X))


def test_an_extra_column_is_ignored_with_a_notice(c45_mixed, tmp_path, caplog):
    fitted, X = c45_mixed
    loaded = round_trip(fitted, tmp_path)
    extra = X.assign(comment="hello", row=np.arange(len(X)))
    with caplog.at_level(logging.INFO, logger="quercus"):
        predicted = loaded.predict_proba(extra)
    assert np.array_equal(predicted, fitted.predict_proba(X))
    assert "ignoring columns not used by the model: ['comment', 'row']" in caplog.text


def test_a_missing_column_is_an_error_naming_it(c45_mixed, tmp_path):
    fitted, X = c45_mixed
    loaded = round_trip(fitted, tmp_path)
    with pytest.raises(quercus.DataError, match="column 'size' is missing") as info:
        loaded.predict(X.drop(columns="size"))
    assert info.value.column == "size"


def test_an_unseen_category_predicts_as_a_missing_value(c45_mixed, tmp_path, caplog):
    fitted, X = c45_mixed
    loaded = round_trip(fitted, tmp_path)
    rows = X.iloc[:30].copy()
    unseen, missing = rows.copy(), rows.copy()
    unseen["color"], missing["color"] = "purple", None
    unseen["grade"], missing["grade"] = "top", None
    with caplog.at_level(logging.INFO, logger="quercus"):
        proba = loaded.predict_proba(unseen)
    assert np.array_equal(proba, loaded.predict_proba(missing))
    assert np.array_equal(loaded.predict(unseen), loaded.predict(missing))
    assert np.array_equal(proba, fitted.predict_proba(missing))
    assert "'color': 30 value(s) of categories not seen in training" in caplog.text
    # the test has teeth: the tree reads color, and a known color predicts otherwise
    assert "color" in loaded.export_text()
    known = rows.assign(color="red", grade=None)
    assert not np.array_equal(loaded.predict_proba(known), proba)


def test_an_unseen_category_in_a_tree_without_fractional_routes(tmp_path):
    X, y = data("playtennis")
    loaded = round_trip(quercus.ID3Classifier().fit(X, y), tmp_path)
    unseen = X.assign(Outlook="Foggy")
    missing = X.assign(Outlook=None)
    assert np.array_equal(loaded.apply(unseen), loaded.apply(missing))
    assert np.array_equal(loaded.predict(unseen), loaded.predict(missing))


def test_the_documented_example_loads():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "model-format.md").read_text()
    example = doc.split("## Example", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    loaded = model_from_dict(json.loads(example))
    X, y = data("playtennis")
    fitted = quercus.ID3Classifier().fit(X, y)
    assert_same_model(fitted, loaded, X)
    assert np.array_equal(loaded.predict(X), y.to_numpy())
