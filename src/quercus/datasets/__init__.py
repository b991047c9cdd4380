"""The small data sets of the decision-tree lectures, shipped with quercus.

- ``playtennis``: 14 days, Outlook, Temperature, Humidity, Wind -> PlayTennis (Quinlan 1986,
  Mitchell 1997).
- ``weekend``: 10 weekends, Weather, Parents, Money -> Decision.
- ``restaurant``: 12 examples, Alt, Bar, Fri, Hun, Pat, Price, Rain, Res, Type, Est ->
  WillWait (Russell and Norvig).
- ``car``: the UCI Car Evaluation data set, 1,728 cars, buying, maint, doors, persons,
  lug_boot, safety -> class (unacc 1210, acc 384, good 69, vgood 65). Created by Marko
  Bohanec (donors: Marko Bohanec and Blaz Zupan), from the UCI Machine Learning Repository
  (https://archive.ics.uci.edu/dataset/19/car+evaluation), licensed under Creative Commons
  Attribution 4.0 (CC BY 4.0); converted to CSV, values unchanged, from the ARFF copy of
  Weka's UCI collection (GitHub repository renatopp/arff-datasets).

Every table is nominal (``car``'s ``doors`` and ``persons`` mix numbers and words: ``2``,
``5more``); the class is the last column.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load", "names"]

_DESCRIPTIONS = {
    "playtennis": "14 days: Outlook, Temperature, Humidity, Wind -> PlayTennis",
    "weekend": "10 weekends: Weather, Parents, Money -> Decision",
    "restaurant": "12 examples: Alt, Bar, Fri, Hun, Pat, Price, Rain, Res, Type, Est -> WillWait",
    "car": "1,728 cars: buying, maint, doors, persons, lug_boot, safety -> class",
}


def names() -> dict[str, str]:
    """The shipped data sets, with a one-line description of each."""
    return dict(_DESCRIPTIONS)


def load(name: str) -> pd.DataFrame:
    """One shipped data set as a DataFrame of strings, the class in the last column."""
    key = name.lower().replace("-", "").replace("_", "")
    if key not in _DESCRIPTIONS:
        raise ValueError(f"unknown data set {name!r}; available: {sorted(_DESCRIPTIONS)}")
    with resources.files(__name__).joinpath(f"data/{key}.csv").open(encoding="utf-8") as fh:
        # keep_default_na=False: 'None' is a value here (restaurant's Pat), not a missing cell.
        return pd.read_csv(fh, dtype=str, keep_default_na=False)
