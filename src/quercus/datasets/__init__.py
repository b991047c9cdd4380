"""Small data sets shipped with quercus: the lectures' tables and a few UCI classics.

- ``playtennis``: 14 days, Outlook, Temperature, Humidity, Wind -> PlayTennis (Quinlan 1986,
  Mitchell 1997).
- ``weekend``: 10 weekends, Weather, Parents, Money -> Decision.
- ``restaurant``: 12 examples, Alt, Bar, Fri, Hun, Pat, Price, Rain, Res, Type, Est ->
  WillWait (Russell and Norvig), row for row as the lectures print it.
- ``car``: the UCI Car Evaluation data set, 1,728 cars, buying, maint, doors, persons,
  lug_boot, safety -> class (unacc 1210, acc 384, good 69, vgood 65). Created by Marko
  Bohanec (donors: Marko Bohanec and Blaz Zupan).
- ``iris``: UCI's Iris, 150 flowers, four measurements in cm -> class (three species, 50
  each). Created by R. A. Fisher (donor: Michael Marshall).
- ``abalone``: UCI's Abalone, 4,177 shells, Sex and seven measurements -> Class_Rings (the
  number of rings, 1 to 29: a regression target). Created by Warwick Nash and others
  (donor: Sam Waugh).

The three UCI sets come from the UCI Machine Learning Repository (car: dataset 19, iris: 53,
abalone: 1), licensed under Creative Commons Attribution 4.0 (CC BY 4.0); they are converted
to CSV, values unchanged, from the ARFF copies of Weka's UCI collection (GitHub repository
renatopp/arff-datasets). The lectures' tables are nominal (``car``'s ``doors`` and
``persons`` mix numbers and words: ``2``, ``5more``); the class is always the last column.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pandas as pd

from .._files import write_file

__all__ = ["load", "names", "path", "copy"]


@dataclass(frozen=True)
class _Shipped:
    description: str
    nominal: bool  # every column is a category (read as text)


_SHIPPED = {
    "playtennis": _Shipped("14 days: Outlook, Temperature, Humidity, Wind -> PlayTennis", True),
    "weekend": _Shipped("10 weekends: Weather, Parents, Money -> Decision", True),
    "restaurant": _Shipped(
        "12 examples: Alt, Bar, Fri, Hun, Pat, Price, Rain, Res, Type, Est -> WillWait", True
    ),
    "car": _Shipped("1,728 cars: buying, maint, doors, persons, lug_boot, safety -> class", True),
    "iris": _Shipped("150 irises: four measurements (cm) -> class (3 species)", False),
    "abalone": _Shipped(
        "4,177 abalones: Sex, seven measurements -> Class_Rings (regression)", False
    ),
}


def names() -> dict[str, str]:
    """The shipped data sets, with a one-line description of each."""
    return {name: shipped.description for name, shipped in _SHIPPED.items()}


def _key(name: str) -> str:
    key = str(name).lower().removesuffix(".csv").replace("-", "").replace("_", "")
    if key not in _SHIPPED:
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(_SHIPPED)}")
    return key


def path(name: str) -> Path:
    """The path of the shipped CSV file of data set ``name`` (for ``quercus.read_table``
    and the command line), e.g. ``quercus.read_table(quercus.datasets.path("car"))``."""
    with resources.as_file(resources.files(__name__) / "data" / f"{_key(name)}.csv") as file:
        return Path(file)


def load(name: str) -> pd.DataFrame:
    """One shipped data set as a DataFrame, the class in the last column. The lectures'
    tables and ``car`` hold strings; ``iris`` and ``abalone`` hold numbers (and Sex)."""
    key = _key(name)
    if _SHIPPED[key].nominal:
        # keep_default_na=False: 'None' is a value here (restaurant's Pat), not a missing cell.
        return pd.read_csv(path(key), dtype=str, keep_default_na=False)
    return pd.read_csv(path(key))


def copy(directory, names: list[str] | None = None) -> list[Path]:
    """Copy the CSV files of the data sets ``names`` (default: all) into ``directory``
    (created if needed), each written whole or not at all as every file quercus writes
    (:func:`quercus._files.write_file`); returns the files written."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names or list(_SHIPPED):
        source = path(name)
        data = source.read_bytes()
        written.append(
            Path(write_file(target / source.name, lambda out, data=data: out.write(data)))
        )
    return written
