"""A tree's model file read as a view (what ``quercus show`` prints from): the same contents
and the same checks as ``quercus.load``, without the estimator."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

import quercus
from quercus.export import export_graphviz, export_rules, export_text
from quercus.persist.model_file import MODEL_ESTIMATORS, ModelError, model_to_dict
from quercus.persist.model_view import VIEW_CLASSES, ModelView, read_model_view


def playtennis():
    frame = quercus.datasets.load("playtennis")
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def abalone():
    frame = quercus.datasets.load("abalone").iloc[:400]
    return frame.iloc[:, :-1], frame.iloc[:, -1]


FITS = {
    "id3": (lambda: quercus.ID3Classifier(), playtennis),
    "c45": (lambda: quercus.C45Classifier(), playtennis),
    "rules": (lambda: quercus.C45RulesClassifier(), playtennis),
    "cart-binary": (lambda: quercus.CARTClassifier(max_depth=3), playtennis),
    "regression": (lambda: quercus.CARTRegressor(max_depth=3), abalone),
    "model-tree": (lambda: quercus.ModelTreeRegressor(), abalone),
    "regression-median": (
        lambda: quercus.DecisionTreeRegressor(criterion="absolute_error", max_depth=2),
        abalone,
    ),
}


@pytest.fixture(scope="module", params=list(FITS))
def saved(request, tmp_path_factory):
    make, data = FITS[request.param]
    X, y = data()
    path = make().fit(X, y).save(tmp_path_factory.mktemp("view") / "model.json")
    return path


def test_the_parameter_names_are_the_estimators():
    for name in MODEL_ESTIMATORS:
        assert VIEW_CLASSES[name]._get_param_names() == sorted(
            getattr(quercus, name)().get_params(deep=False)
        ), name
        assert VIEW_CLASSES[name].regression == getattr(quercus, name).regression


def test_a_view_shows_what_the_estimator_shows(saved):
    model, view = quercus.load(saved), read_model_view(saved)
    assert isinstance(view, ModelView) and view.estimator == type(model).__name__
    assert view.get_params() == model.get_params()
    assert export_text(view) == export_text(model)
    assert export_graphviz(view) == export_graphviz(model)
    assert export_rules(view) == export_rules(model)
    assert np.array_equal(view.tree_.value, model.tree_.value)
    if hasattr(model, "classes_"):
        assert view.classes_.tolist() == model.classes_.tolist()
    if hasattr(model, "rules_"):
        assert view.export_rules() == model.export_rules()
    else:
        with pytest.raises(TypeError, match="holds no rule list"):
            view.export_rules()


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d["params"].update(max_depth=-1), "field params.max_depth"),
        (lambda d: d["params"].update(n_estimators=10), "are not parameters of ID3Classifier"),
        (lambda d: d["params"].update(criterion="squared_error"), "field params.criterion"),
        (lambda d: d["tree"]["children"].pop(), "field tree"),
        (lambda d: d.update(rules={}), "field rules"),
    ],
)
def test_a_view_refuses_what_load_refuses(tmp_path, change, match):
    doc = copy.deepcopy(model_to_dict(quercus.ID3Classifier().fit(*playtennis())))
    change(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ModelError, match=match) as loaded:
        quercus.load(path)
    with pytest.raises(ModelError, match=match) as viewed:
        read_model_view(path)
    assert str(viewed.value) == str(loaded.value)
