"""``quercus demo``: the lectures' worked numbers, computed."""

from __future__ import annotations

from typing import TextIO

import pandas as pd

from .. import datasets
from ..criteria import entropy, gain_table


def _print_table(out: TextIO, table: pd.DataFrame) -> None:
    shown = table.drop(columns=["threshold"]) if table["threshold"].isna().all() else table
    out.write(shown.to_string(float_format=lambda v: f"{v:.3f}") + "\n\n")


def run_demo(out: TextIO) -> int:
    for name in ("playtennis", "weekend", "restaurant"):
        frame = datasets.load(name)
        target = frame.columns[-1]
        out.write(f"== {name}: {datasets.names()[name]}\n")
        out.write(f"Entropy({target}) = {entropy(frame[target]):.3f} bits\n")
        _print_table(out, gain_table(frame, target))
        if name == "playtennis":
            sunny = frame[frame["Outlook"] == "Sunny"].drop(columns=["Outlook"])
            out.write("-- the Sunny days (Outlook = Sunny), one level down\n")
            out.write(f"Entropy({target}) = {entropy(sunny[target]):.3f} bits\n")
            _print_table(out, gain_table(sunny, target))
    return 0
