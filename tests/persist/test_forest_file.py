"""Forest files: the ensemble file (a zip of JSON metadata and NumPy arrays) of a forest,
loaded by quercus.load; and the forest files of the format before it."""

import contextlib
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import quercus
from quercus.persist.ensemble_file import FORMAT_VERSION, metadata_entry
from quercus.splitting.category_sets import pack_sides, table_sides


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X, y = make_classification(800, 6, n_informative=4, random_state=0)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    frame["colour"] = rng.choice(["red", "green", "blue"], len(frame))
    frame.loc[rng.random(len(frame)) < 0.1, "f0"] = np.nan
    frame.loc[rng.random(len(frame)) < 0.1, "colour"] = None
    return frame, np.where(y == 1, "yes", "no")


@pytest.mark.parametrize(
    "make",
    [
        lambda: quercus.RandomForestClassifier(8, oob_score=True, random_state=0),
        lambda: quercus.RandomForestClassifier(
            6, missing="fractional", nominal_split="multiway", voting="hard", random_state=1
        ),
        lambda: quercus.RandomForestClassifier(6, feature_sampling="tree", random_state=2),
        lambda: quercus.RandomForestRegressor(5, criterion="absolute_error", random_state=0),
    ],
)
def test_round_trip(make, data, tmp_path):
    X, y = data
    forest = make()
    target = X["f1"].to_numpy() if forest.regression else y
    with oob_warning(forest):
        forest.fit(X, target)
    path = forest.save(tmp_path / "forest.qf")
    loaded = quercus.load(path)
    assert type(loaded) is type(forest) and loaded.get_params() == forest.get_params()
    if forest.regression:
        assert np.array_equal(loaded.predict(X), forest.predict(X))
    else:
        assert np.array_equal(loaded.predict_proba(X), forest.predict_proba(X))
        assert np.array_equal(loaded.predict(X), forest.predict(X))
        assert loaded.predict(X).dtype == forest.predict(X).dtype
    assert np.allclose(loaded.feature_importances_, forest.feature_importances_)
    for a, b in zip(loaded.estimators_, forest.estimators_, strict=True):
        assert a.export_text() == b.export_text()
    if hasattr(forest, "oob_score_"):
        assert loaded.oob_score_ == forest.oob_score_
    # warm_start goes on from a loaded forest as from the original one
    more = quercus.load(path).set_params(warm_start=True, n_estimators=len(forest.estimators_) + 2)
    again = forest.set_params(warm_start=True, n_estimators=len(forest.estimators_) + 2)
    for grown in (more, again):
        with oob_warning(grown):
            grown.fit(X, target)
    assert np.array_equal(more.predict(X), again.predict(X))


def oob_warning(forest):
    """With oob_score and a handful of trees, a few rows are in every bootstrap sample, and
    the forest says so."""
    if not getattr(forest, "oob_score", False):
        return contextlib.nullcontext()
    return pytest.warns(UserWarning, match="rows were in every bootstrap sample")


def _rewrite(path, edit):
    """Rewrite the ensemble file at ``path`` with ``edit(meta, arrays)`` applied (written as
    a forest file of the format before when the edit makes its metadata one)."""
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read(metadata_entry(archive.namelist())))
        arrays = {
            n[len("arrays/") : -4]: np.load(io.BytesIO(archive.read(n)))
            for n in archive.namelist()
            if n.startswith("arrays/")
        }
    edit(meta, arrays)
    meta["arrays"] = {k: [str(a.dtype), list(a.shape)] for k, a in arrays.items()}
    entry = "forest.json" if meta["format"] == "quercus-forest" else "ensemble.json"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(entry, json.dumps(meta))
        for key, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array)
            archive.writestr(f"arrays/{key}.npy", buffer.getvalue())


def _backwards_child(meta, arrays):
    arrays["children"][0] = 0  # the root's first child is the root: a cycle


def _newer(meta, arrays):
    meta["format_version"] = FORMAT_VERSION + 1


def _object_array(meta, arrays):
    arrays["threshold"] = arrays["threshold"].astype(object)


def _offsets(meta, arrays):
    arrays["node_offsets"][-1] -= 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_backwards_child, "not a later node"),
        (_newer, f"format version {FORMAT_VERSION + 1} is not supported"),
        (_object_array, "field arrays.threshold: dtype .object., expected float64"),
        (_offsets, "field arrays.node_offsets: does not cut"),
    ],
)
def test_broken_files_are_refused(edit, message, data, tmp_path):
    X, y = data
    path = quercus.RandomForestClassifier(3, random_state=0).fit(X, y).save(tmp_path / "f.qf")
    _rewrite(path, edit)
    with pytest.raises(quercus.ModelError, match=message) as info:
        quercus.load(path)
    assert "f.qf" in str(info.value)


def test_truncated_file(data, tmp_path):
    X, y = data
    path = quercus.RandomForestClassifier(3, random_state=0).fit(X, y).save(tmp_path / "f.qf")
    content = path.read_bytes()
    path.write_bytes(content[: len(content) // 2])
    with pytest.raises(quercus.ModelError, match="f.qf"):
        quercus.load(path)


def as_forest_format(meta, arrays, version=3):
    """An ensemble file's metadata and arrays as the forest format ``version`` wrote them:
    ``forest.json``, the forest's fields in ``training`` and the out-of-bag score beside it,
    no tree weights."""
    fields = meta.pop("ensemble")
    if "oob_score" in fields:
        meta["oob_score"] = fields.pop("oob_score")
    meta["training"].update(fields)
    meta.update(format="quercus-forest", format_version=version)
    del arrays["tree_weights"]


def _old_tables(version: int, n_categories: int):
    """An edit that rewrites a forest's category tables as forest format ``version`` wrote
    them (1: a branch per category of every nominal split; 2: a bare bitset per subset
    split), one tree at a time, all of whose nominal splits test one feature of
    ``n_categories``."""

    def edit(meta, arrays):
        as_forest_format(meta, arrays, version)
        kind, cat_start, table = arrays["kind"], arrays["cat_start"], arrays["cat_table"]
        new_table, new_start, offsets = [], np.full_like(cat_start, -1), [0]
        for t in range(len(arrays["node_offsets"]) - 1):
            lo, hi = arrays["node_offsets"][t : t + 2]
            k_lo = arrays["cat_offsets"][t]
            for node in range(lo, hi):
                if kind[node] not in (2, 3):  # MULTIWAY_SPLIT, SUBSET_SPLIT
                    continue
                if kind[node] == 2:
                    if version == 2:
                        continue
                    part = list(range(n_categories))
                else:
                    sides = table_sides(table, k_lo + cat_start[node], n_categories)
                    part = sides.tolist() if version == 1 else pack_sides(sides).tolist()
                new_start[node] = len(new_table) - offsets[-1]
                new_table.extend(part)
            offsets.append(len(new_table))
        arrays["cat_table"] = np.array(new_table, dtype=np.int32)
        arrays["cat_start"] = new_start
        arrays["cat_offsets"] = np.array(offsets, dtype=np.int64)

    return edit


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("nominal_split", ["binary", "multiway"])
def test_files_of_older_versions_load(version, nominal_split, tmp_path):
    """Forest files of version 2 (bare bitsets) and 1 (a branch per category of every
    nominal split) load as they were written: the same predictions, their tables
    converted."""
    rng = np.random.default_rng(3)
    levels = [f"c{k}" for k in range(40)]
    code = rng.integers(0, 40, 600)
    X = pd.DataFrame({"code": pd.Categorical(np.array(levels)[code], categories=levels)})
    X["x"] = rng.normal(size=600)
    y = np.where((code % 3 == 0) ^ (X["x"] > 0.5), "a", "b")
    forest = quercus.RandomForestClassifier(
        4, nominal_split=nominal_split, max_features=None, random_state=0
    ).fit(X, y)
    assert (forest.trees_.merged.kind == (3 if nominal_split == "binary" else 2)).any()
    path = forest.save(tmp_path / "f.qf")
    _rewrite(path, _old_tables(version, 40))
    loaded = quercus.load(path)
    assert np.array_equal(loaded.predict_proba(X), forest.predict_proba(X))
    assert loaded.trees_.merged.cat_table.size >= forest.trees_.merged.cat_table.size


@pytest.mark.parametrize("oob", [False, True])
def test_forest_files_of_the_format_before_load(oob, data, tmp_path):
    """A forest file of the last forest format (3: ``forest.json``, the seeds in
    ``training``) loads as the forest it was: the same predictions, seeds and score."""
    X, y = data
    forest = quercus.RandomForestClassifier(6, oob_score=oob, random_state=2)
    with oob_warning(forest):
        forest.fit(X, y)
    path = forest.save(tmp_path / "f.qf")
    _rewrite(path, as_forest_format)
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist()[0] == "forest.json"
    loaded = quercus.load(path)
    assert np.array_equal(loaded.predict_proba(X), forest.predict_proba(X))
    assert loaded.tree_seeds_ == forest.tree_seeds_ and loaded.base_seed_ == forest.base_seed_
    assert getattr(loaded, "oob_score_", None) == getattr(forest, "oob_score_", None)


def test_tree_weights_of_a_forest_are_ones(data, tmp_path):
    X, y = data
    path = quercus.RandomForestClassifier(3, random_state=0).fit(X, y).save(tmp_path / "f.qf")

    def heavier(meta, arrays):
        arrays["tree_weights"][1] = 2.0

    _rewrite(path, heavier)
    with pytest.raises(quercus.ModelError, match="tree_weights: a forest's trees weigh 1"):
        quercus.load(path)
