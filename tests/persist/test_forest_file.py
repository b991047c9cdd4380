"""Forest files: a zip of JSON metadata and NumPy arrays, loaded by quercus.load."""

import contextlib
import io
import json
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

import quercus


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
    target = X["f1"].to_numpy() if forest._regression else y
    with oob_warning(forest):
        forest.fit(X, target)
    path = forest.save(tmp_path / "forest.qf")
    loaded = quercus.load(path)
    assert type(loaded) is type(forest) and loaded.get_params() == forest.get_params()
    if forest._regression:
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
    """Rewrite the forest file at ``path`` with ``edit(meta, arrays)`` applied."""
    with zipfile.ZipFile(path) as archive:
        meta = json.loads(archive.read("forest.json"))
        arrays = {
            n[len("arrays/") : -4]: np.load(io.BytesIO(archive.read(n)))
            for n in archive.namelist()
            if n.startswith("arrays/")
        }
    edit(meta, arrays)
    meta["arrays"] = {k: [str(a.dtype), list(a.shape)] for k, a in arrays.items()}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("forest.json", json.dumps(meta))
        for key, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array)
            archive.writestr(f"arrays/{key}.npy", buffer.getvalue())


def _backwards_child(meta, arrays):
    arrays["children"][0] = 0  # the root's first child is the root: a cycle


def _newer(meta, arrays):
    meta["format_version"] = 3


def _object_array(meta, arrays):
    arrays["threshold"] = arrays["threshold"].astype(object)


def _offsets(meta, arrays):
    arrays["node_offsets"][-1] -= 1


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_backwards_child, "not a later node"),
        (_newer, "format version 3 is not supported"),
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
