"""Digests of the arrays of many fitted models, to show that a change of the code leaves
every model the same, bit for bit.

Run it with two checkouts and compare the outputs:

    PYTHONPATH=OLD/src .venv/bin/python scripts/model_digests.py > old.json
    PYTHONPATH=NEW/src .venv/bin/python scripts/model_digests.py > new.json
    diff old.json new.json && echo same

Each model (single trees with their options and prunings, forests, a model tree, C4.5
rules, and with ``--dask`` the Dask trees and forests on a local cluster of 2 workers) is
fitted on shipped data sets with fixed seeds; its line holds a SHA-256 of every array of
its trees (the stacked arrays of a forest) and of its predictions on the training rows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import quercus

DATA = Path(__file__).resolve().parents[1] / "tests" / "datasets"

#: (data set, classification?) of the shipped sets the models learn.
SETS = [
    ("credit-a.csv", True),
    ("breast-cancer.csv", True),
    ("hepatitis.csv", True),
    ("car.csv", True),
    ("boston.csv", False),
]


def tree_arrays(model) -> list[np.ndarray]:
    """Every array of ``model``'s tree(s), in a fixed order."""
    if hasattr(model, "trees_"):
        merged = model.trees_.merged
        offsets = [model.trees_.node_offsets, model.trees_.child_offsets]
        return offsets + [np.asarray(getattr(merged, k)) for k in sorted(vars(merged))]
    tree = model.tree_
    return [np.asarray(getattr(tree, k)) for k in sorted(vars(tree))]


def digest(model, X) -> str:
    h = hashlib.sha256()
    for array in tree_arrays(model):
        if array.dtype == object or array.ndim == 0 and array.dtype.kind not in "biuf":
            h.update(repr(array.tolist()).encode())
        else:
            h.update(np.ascontiguousarray(array).tobytes())
    predict = getattr(model, "predict_proba", None) or model.predict
    h.update(np.ascontiguousarray(predict(X), dtype=np.float64).tobytes())
    return h.hexdigest()


def local_models(classification: bool) -> dict:
    q = quercus
    if classification:
        return {
            "cart": q.CARTClassifier(random_state=0),
            "cart_ccp_cv": q.CARTClassifier(ccp_alpha="cv", random_state=0),
            "id3": q.ID3Classifier(),
            "c45": q.C45Classifier(),
            "c45_release8": q.C45Classifier(c45_variant="release8"),
            "c45rules": q.C45RulesClassifier(),
            "reduced_error": q.DecisionTreeClassifier(pruning="reduced_error", random_state=1),
            "significance": q.ID3Classifier(significance=0.05),
            "best_first": q.DecisionTreeClassifier(
                max_leaf_nodes=12, max_features=0.5, random_state=2
            ),
            "lookahead": q.DecisionTreeClassifier(lookahead=1, max_depth=3),
            "oblique": q.DecisionTreeClassifier(split="oblique", max_depth=4, random_state=3),
            "forest": q.RandomForestClassifier(20, random_state=0, oob_score=True),
            "forest_tree_features": q.RandomForestClassifier(
                10, feature_sampling="tree", max_features=0.5, random_state=1
            ),
            "forest_balanced_subsample": q.RandomForestClassifier(
                10, class_weight="balanced_subsample", random_state=2
            ),
            "forest_poisson": q.RandomForestClassifier(
                10, bootstrap="poisson", max_samples=0.7, random_state=3
            ),
            "forest_fractional": q.RandomForestClassifier(10, missing="fractional", random_state=4),
        }
    return {
        "cart": q.CARTRegressor(random_state=0),
        "cart_ccp_cv": q.CARTRegressor(ccp_alpha="cv", random_state=0),
        "absolute": q.DecisionTreeRegressor(criterion="absolute_error", max_depth=5),
        "linear_leaves": q.DecisionTreeRegressor(leaf_model="linear", max_depth=3),
        "m5": q.ModelTreeRegressor(),
        "forest": q.RandomForestRegressor(20, random_state=0, oob_score=True),
        "forest_poisson": q.RandomForestRegressor(10, bootstrap="poisson", random_state=3),
    }


def dask_models(classification: bool) -> dict:
    from quercus import dask as qd

    if classification:
        return {
            "dask_cart": qd.DaskCARTClassifier(max_depth=6, random_state=0),
            "dask_id3": qd.DaskID3Classifier(max_depth=4),
            "dask_forest": qd.DaskRandomForestClassifier(n_estimators=8, random_state=0),
        }
    return {
        "dask_cart": qd.DaskCARTRegressor(max_depth=6, ccp_alpha=0.01, random_state=0),
        "dask_forest": qd.DaskRandomForestRegressor(
            n_estimators=8, random_state=0, subtree_bytes=0
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dask", action="store_true", help="also the Dask models")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    client = None
    if args.dask:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True))
    out = {}
    for name, classification in SETS:
        frame = pd.read_csv(DATA / (name + ".gz") if not (DATA / name).exists() else DATA / name)
        X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
        if classification:
            y = y.astype(str)
        for key, model in local_models(classification).items():
            try:
                out[f"{name} {key}"] = digest(model.fit(X, y), X)
            except (ValueError, TypeError) as error:
                out[f"{name} {key}"] = f"error: {error}"
            print(name, key, file=sys.stderr)
        if client is not None:
            import dask.dataframe as dd

            dX, dy = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)
            for key, model in dask_models(classification).items():
                model.fit(dX, dy)
                out[f"{name} {key}"] = digest(model.to_local(), X)
                print(name, key, file=sys.stderr)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
