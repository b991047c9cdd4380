"""Data whose trees are hard to draw, made here (imported as ``_wide_data``: pytest puts this
folder on the path), so that no data file is needed.

- :func:`soybean_like`: 19 classes with soybean's disease names (UCI's soybean data, which
  the pictures of ``quercus show`` were unreadable on) and nominal attributes of 2 to 7
  values, each class a noisy prototype: a C4.5 tree of dozens of leaves, every class in it.
- :func:`ames_like`: a sale price (regression) of house sales with the Ames data's 25
  neighbourhoods and 15 exterior coverings, and two numeric attributes: a CART tree's
  binary splits on the neighbourhood test sets of a dozen names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SOYBEAN_CLASSES = (
    "diaporthe-stem-canker",
    "charcoal-rot",
    "rhizoctonia-root-rot",
    "phytophthora-rot",
    "brown-stem-rot",
    "powdery-mildew",
    "downy-mildew",
    "brown-spot",
    "bacterial-blight",
    "bacterial-pustule",
    "purple-seed-stain",
    "anthracnose",
    "phyllosticta-leaf-spot",
    "alternarialeaf-spot",
    "frog-eye-leaf-spot",
    "diaporthe-pod-&-stem-blight",
    "cyst-nematode",
    "2-4-d-injury",
    "herbicide-injury",
)

_SOYBEAN_ATTRIBUTES = {
    "date": ("april", "may", "june", "july", "august", "september", "october"),
    "precip": ("lt-norm", "norm", "gt-norm"),
    "temp": ("lt-norm", "norm", "gt-norm"),
    "area-damaged": ("scattered", "low-areas", "upper-areas", "whole-field"),
    "leafspot-size": ("lt-1/8", "gt-1/8", "dna"),
    "stem-cankers": ("absent", "below-soil", "above-soil", "above-sec-nde"),
    "canker-lesion": ("dna", "brown", "dk-brown-blk", "tan"),
    "fruiting-bodies": ("absent", "present"),
    "external-decay": ("absent", "firm-and-dry", "watery"),
    "int-discolor": ("none", "brown", "black"),
    "roots": ("norm", "rotted", "galls-cysts"),
}

AMES_NEIGHBORHOODS = (
    "NAmes", "CollgCr", "OldTown", "Edwards", "Somerst", "Gilbert", "NridgHt", "Sawyer",
    "NWAmes", "SawyerW", "BrkSide", "Crawfor", "Mitchel", "NoRidge", "Timber", "IDOTRR",
    "ClearCr", "StoneBr", "SWISU", "Blmngtn", "MeadowV", "BrDale", "Veenker", "NPkVill",
    "Blueste",
)  # fmt: skip
_AMES_EXTERIORS = (
    "VinylSd", "MetalSd", "HdBoard", "Wd Sdng", "Plywood", "CemntBd", "BrkFace", "WdShing",
    "Stucco", "AsbShng", "BrkComm", "Stone", "AsphShn", "ImStucc", "CBlock",
)  # fmt: skip


def soybean_like(rows_per_class: int = 20, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Nominal attributes and a class of 19 values (each row its class's prototype, 15% of
    its values drawn at random)."""
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for name in SOYBEAN_CLASSES:
        prototype = {a: rng.integers(len(v)) for a, v in _SOYBEAN_ATTRIBUTES.items()}
        for _ in range(rows_per_class):
            rows.append(
                {
                    a: values[prototype[a] if rng.random() < 0.85 else rng.integers(len(values))]
                    for a, values in _SOYBEAN_ATTRIBUTES.items()
                }
            )
            labels.append(name)
    return pd.DataFrame(rows), pd.Series(labels, name="class")


def ames_like(n: int = 800, seed: int = 0) -> tuple[pd.DataFrame, pd.Series]:
    """Neighbourhood, exterior, living area and quality, and a sale price that depends on
    all four."""
    rng = np.random.default_rng(seed)
    hood = rng.integers(len(AMES_NEIGHBORHOODS), size=n)
    exterior = rng.integers(len(_AMES_EXTERIORS), size=n)
    area = rng.uniform(600, 3500, n).round()
    quality = rng.integers(1, 11, n)
    price = (
        50_000
        + 60 * area
        + 12_000 * quality
        + rng.normal(0, 40_000, len(AMES_NEIGHBORHOODS))[hood]
        + rng.normal(0, 15_000, len(_AMES_EXTERIORS))[exterior]
        + rng.normal(0, 15_000, n)
    )
    X = pd.DataFrame(
        {
            "Neighborhood": np.array(AMES_NEIGHBORHOODS)[hood],
            "Exterior1st": np.array(_AMES_EXTERIORS)[exterior],
            "GrLivArea": area,
            "OverallQual": quality,
        }
    )
    return X, pd.Series(price.round(), name="SalePrice")
