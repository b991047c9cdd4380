"""A tree's model file read for showing it: the checked contents, without the estimator.

``quercus show MODEL`` prints a tree as text, rules or a picture. Building the estimator
for that would import scikit-learn (with SciPy, about a second), which the exporters never
use: they read ``tree_``, ``schema_`` and ``classes_``. A view is built by the same reader
as :func:`quercus.load`, with the same checks (format, version, JSON Schema, parameters,
tree, classes and rules), so a file shows only if it loads; it cannot predict.
"""

from __future__ import annotations

from .model_document import MODEL_ESTIMATORS
from .model_file import read_model

# The parameters of the tree estimators, by task. tests/persist checks them against the
# estimator classes, whose signatures they come from.
_TREE_PARAMS = (
    "ccp_alpha",
    "criterion",
    "lookahead",
    "max_bins",
    "max_depth",
    "max_features",
    "max_leaf_nodes",
    "min_impurity_decrease",
    "min_samples_leaf",
    "min_samples_split",
    "missing",
    "n_jobs",
    "nominal_features",
    "nominal_split",
    "ordinal_features",
    "random_state",
    "split",
)
_REGRESSOR_PARAMS = (*_TREE_PARAMS, "leaf_model")
_CLASSIFIER_PARAMS = (
    *_TREE_PARAMS,
    "c45_thresholds",
    "c45_variant",
    "class_weight",
    "collapse",
    "confidence",
    "pruning",
    "significance",
    "subtree_raising",
    "validation_fraction",
)
_MODEL_TREE_PARAMS = (
    "leaf_model",
    "max_depth",
    "min_samples_split",
    "n_jobs",
    "nominal_features",
    "ordinal_features",
    "pruning",
    "smoothing",
)
_MODEL_TREES = ("ModelTreeRegressor",)
_REGRESSORS = ("CARTRegressor", "DecisionTreeRegressor", *_MODEL_TREES)
_RULE_MODELS = ("C45RulesClassifier",)


class ModelView:
    """A tree model as its file describes it: the fitted attributes the exporters read
    (``tree_``, ``schema_``, ``classes_``; a rules model's ``rules_``, ``default_class_``)
    and the parameters (as attributes, and from :meth:`get_params`)."""

    estimator: str = ""  # the estimator class the file names
    regression = False
    _has_rules = False
    _param_names: tuple[str, ...] = ()

    def __init__(self, **params):
        self.__dict__.update(params)
        self._params = params

    @classmethod
    def _get_param_names(cls) -> list[str]:
        return sorted(cls._param_names)

    def get_params(self, deep: bool = False) -> dict:
        """The parameters the file holds (``deep`` is accepted for scikit-learn's
        signature; a tree has no nested estimator)."""
        return dict(self._params)

    def export_rules(self) -> str:
        """A rules model's rules in firing order, as ``C45RulesClassifier.export_rules``."""
        if not self._has_rules:
            raise TypeError(f"a {self.estimator} holds no rule list")
        from ..pruning.c45rules import rules_text  # loaded already: the rules were read

        return rules_text(self.rules_, self.classes_[self.default_class_])


def _view_class(name: str) -> type:
    regression = name in _REGRESSORS
    params = _REGRESSOR_PARAMS if regression else _CLASSIFIER_PARAMS
    attributes = {
        "estimator": name,
        "regression": regression,
        "_has_rules": name in _RULE_MODELS,
        "_param_names": _MODEL_TREE_PARAMS if name in _MODEL_TREES else params,
    }
    if name in _MODEL_TREES:
        attributes["_m5"] = True  # the file holds its terms
    return type(f"{name}View", (ModelView,), attributes)


VIEW_CLASSES = {name: _view_class(name) for name in MODEL_ESTIMATORS}


def read_model_view(path) -> ModelView:
    """The tree model file ``path`` as a :class:`ModelView`, checked as
    :func:`quercus.load` checks it (a :class:`~quercus.persist.errors.ModelError`
    naming the file otherwise)."""
    return read_model(path, VIEW_CLASSES)
