"""Schema inference: which columns are numeric, nominal or ordinal, and their categories.

A *typed frame* is the shape every later stage reads: numeric columns as float64 with NaN for
missing, nominal columns as unordered pandas ``Categorical`` and ordinal columns as ordered
``Categorical`` (categories in their declared order, missing as NaN).

The module's public names are the entry to column typing. Beside :func:`type_column` and
:func:`type_frame`, the rules they read values by are public, for the code that reads
values as typing does (matching data to a schema, the information measures, the typing of a
Dask collection partition by partition): what is missing (:func:`is_missing_value`,
:func:`clean_object_column`), what is a number (:func:`as_number`, :func:`is_real`), what
is no value at all (:func:`check_values`), the checks of a numeric column
(:func:`check_finite`, :func:`warn_if_all_missing`), and column names and selections
(:func:`check_column_names`, :func:`normalise_selection` ...).
"""

from __future__ import annotations

import datetime
import decimal
import functools
import math
import numbers
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._config import FEATURE_KIND_NAMES, MISSING_STRINGS, NOMINAL, NUMERIC, ORDINAL
from .errors import DataError, DataWarning

__all__ = [
    "LABEL_NUMBERS_MAX",
    "NOMINAL_KIND",
    "NUMERIC_KIND",
    "ORDINAL_KIND",
    "Feature",
    "Schema",
    # Typing
    "category_dtype",
    "reads_as_labels",
    "type_column",
    "type_frame",
    # Values, as typing reads them
    "as_number",
    "check_finite",
    "check_values",
    "clean_object_column",
    "is_missing_value",
    "is_real",
    "warn_if_all_missing",
    # Column names and selections
    "check_column_names",
    "column_at",
    "column_selection",
    "is_position",
    "normalise_selection",
    "ordinal_selection",
]

#: The kinds of :attr:`Feature.kind`, by name ("numeric", "nominal", "ordinal").
NUMERIC_KIND = FEATURE_KIND_NAMES[NUMERIC]
NOMINAL_KIND = FEATURE_KIND_NAMES[NOMINAL]
ORDINAL_KIND = FEATURE_KIND_NAMES[ORDINAL]


@dataclass(frozen=True)
class Feature:
    """One column of the schema: its name, kind and (for nominal/ordinal) categories in order."""

    name: str
    kind: str
    categories: tuple | None = None

    @property
    def n_categories(self) -> int:
        return 0 if self.categories is None else len(self.categories)


@dataclass(frozen=True)
class Schema:
    """Feature names and kinds, the categories of each nominal/ordinal feature, and the target.

    ``classes`` holds the class labels in order for a nominal target (declared order where the
    data declares one, sorted otherwise); it is ``None`` for a numeric target or no target.
    """

    features: tuple[Feature, ...]
    target: str | None = None
    target_kind: str | None = None
    classes: tuple | None = None

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.features]

    @property
    def kinds(self) -> list[str]:
        return [f.kind for f in self.features]

    def __getitem__(self, name: str) -> Feature:
        for feature in self.features:
            if feature.name == name:
                return feature
        raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# Columns


def check_column_names(names: Sequence, source: str | None = None, place: str = "") -> list[str]:
    """Column names as strings; a blank name or a duplicate is an error that names it.

    ``source`` (a file name) starts the message, and ``place`` says where the names come from
    (e.g. ``"in the header"``).
    """
    names = [str(n) for n in names]
    prefix = f"{source}: " if source else ""
    blank = [i for i, n in enumerate(names) if not n.strip()]
    if blank:
        raise DataError(prefix + _blank_name_message(names, blank[0], place), source=source)
    seen, dups = set(), []
    for n in names:
        if n in seen and n not in dups:
            dups.append(n)
        seen.add(n)
    if dups:
        raise DataError(
            prefix
            + "duplicate column names: "
            + ", ".join(repr(d) for d in dups)
            + " (every column needs its own name)",
            column=dups[0],
            source=source,
        )
    return names


def _blank_name_message(names: list[str], i: int, place: str) -> str:
    """'column 2 has no name in the header (between 'a' and 'b')': the position (1-based)
    and the named columns on either side, as the user sees them in a spreadsheet."""
    what = "no name" if names[i] == "" else f"a blank name ({names[i]!r})"
    before = next((n for n in reversed(names[:i]) if n.strip()), None)
    after = next((n for n in names[i + 1 :] if n.strip()), None)
    if before is not None and after is not None:
        where = f"between {before!r} and {after!r}"
    elif after is not None:
        where = f"before {after!r}"
    elif before is not None:
        where = f"after {before!r}"
    else:
        where = "no column has a name"
    message = f"column {i + 1} has {what}{' ' + place if place else ''} ({where})"
    if i == 0 and after is not None:
        # pandas' to_csv writes the index there with an empty header cell.
        message += "; a file written by pandas' to_csv holds the row index there: write it "
        message += "with index=False, or name the column"
    else:
        message += "; give every column a name"
    return message


def _is_missing_scalar(v) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    return isinstance(v, str) and v.strip() in MISSING_STRINGS


def is_missing_value(v) -> bool:
    """Whether one cell's value reads as missing: None, NaN, pandas' NA or NaT, or a text
    of ``MISSING_STRINGS`` (white space around it aside)."""
    return _is_missing_scalar(v)


#: Integers above this in size round to infinity as floats: half a unit in the last place
#: above the largest float64 (integers up to it round down to that float).
_LARGEST_INTEGER = 2**1024 - 2**970 - 1


def as_number(v):
    """``v`` as a float when it is a number or a string that reads as one, else ``None``. An
    integer beyond the float range is infinite, as ``float`` reads such a number written as
    text (:func:`check_finite` names it)."""
    if isinstance(v, bool | np.bool_):
        return None
    if isinstance(v, numbers.Integral) and abs(v) > _LARGEST_INTEGER:
        return math.inf if v > 0 else -math.inf  # float() would raise OverflowError
    if isinstance(v, numbers.Real | decimal.Decimal):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def is_real(v) -> bool:
    """Whether ``v`` is a real number (not a boolean): a column of them is numeric. Decimals
    (Parquet's and databases' exact numbers) are numbers too."""
    return isinstance(v, numbers.Real | decimal.Decimal) and not isinstance(v, bool)


def _category_sort_key(v):
    # Numbers before strings, each in natural order: a stable order for mixed categories.
    return (0, v, "") if isinstance(v, numbers.Real) and not isinstance(v, bool) else (1, 0, str(v))


def _sorted_categories(values: Iterable) -> list:
    return sorted(set(values), key=_category_sort_key)


def _nominal(name: str, values: pd.Series, categories=None, ordered=False) -> pd.Categorical:
    """``values`` as a Categorical over ``categories`` (inferred and sorted when None)."""
    present = values[~values.isna()]
    if categories is None:
        categories = _sorted_categories(present.tolist())
    categories = list(categories)
    if len(set(categories)) != len(categories):
        raise DataError(f"column {name!r}: categories are not unique: {categories}", column=name)
    unknown = present[~present.isin(categories)]
    if len(unknown):
        raise DataError(
            f"column {name!r}: value {unknown.iloc[0]!r} is not one of its declared "
            f"{'levels' if ordered else 'categories'} {categories}",
            column=name,
        )
    return pd.Categorical(values, categories=categories, ordered=ordered)


#: What ``pandas.api.types.infer_dtype`` (missing values skipped) calls a column of real
#: numbers only, booleans aside (a number column held as objects).
_REAL_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "decimal"})


def _all_strings(values: pd.Series) -> bool:
    """Whether every value of ``values`` is a string or missing (one scan in C): their
    checks can then be made once per distinct string."""
    return pd.api.types.infer_dtype(values, skipna=True) == "string"


def _missing_mask(values: pd.Series) -> np.ndarray:
    """:func:`_is_missing_scalar` of every value, as a boolean array. In a column of
    strings, once per distinct string (the markers) and once per missing-like value."""
    if not _all_strings(values):
        return values.map(_is_missing_scalar).to_numpy(dtype=bool)
    mask = values.isna().to_numpy().copy()  # (a read-only view for some inputs)
    if mask.any():
        mask[mask] = [_is_missing_scalar(v) for v in values[mask]]
    markers = [v for v in pd.unique(values[values.notna()]) if _is_missing_scalar(v)]
    if markers:
        mask |= values.isin(markers).to_numpy()
    return mask


def clean_object_column(values: pd.Series) -> pd.Series:
    """Object/string column with every missing marker ('' , '?', None, NaN) made NaN."""
    values = values.astype(object)
    mask = _missing_mask(values)
    if mask.any():
        values = values.where(~mask, np.nan)
    return values


def type_column(
    name: str, values: pd.Series, *, force_nominal: bool = False, levels: Sequence | None = None
) -> tuple[pd.Series | pd.Categorical, Feature]:
    """Infer the kind of one column and return it typed, with its :class:`Feature`.

    Numbers are numeric; strings, booleans and unordered categoricals are nominal; ordered
    categoricals, or a column given ``levels``, are ordinal. ``force_nominal`` makes any column
    nominal. A column that mixes numbers and words becomes nominal, with a warning unless
    it :func:`reads_as_labels` (car's doors: 2, 3, 4, 5more).
    """
    dtype = values.dtype
    # What an object column holds, in one scan in C.
    objects = pd.api.types.is_object_dtype(dtype)
    inferred = pd.api.types.infer_dtype(values, skipna=True) if objects else None
    # Strings only (pandas' strings, or objects all strings or missing): each distinct
    # string read once, none of the checks below.
    strings = isinstance(dtype, pd.StringDtype) or inferred == "string"
    if strings and levels is None:
        typed = _typed_strings(name, values, warn_mixed=not force_nominal)
        if typed is not None:
            return typed
    if objects and not strings:
        check_values(name, values)
    if levels is not None:
        if isinstance(dtype, pd.CategoricalDtype):
            values = values.astype(object)
        cat = _nominal(name, clean_object_column(values), list(levels), ordered=True)
        return cat, Feature(name, ORDINAL_KIND, tuple(cat.categories))

    if (
        pd.api.types.is_datetime64_any_dtype(dtype)
        or pd.api.types.is_timedelta64_dtype(dtype)
        or isinstance(dtype, pd.PeriodDtype)
    ):
        raise DataError(_DATES.format(name=name), column=name)
    if pd.api.types.is_complex_dtype(dtype):
        raise DataError(
            f"column {name!r} holds complex numbers: quercus reads real numbers and categories",
            column=name,
        )

    if isinstance(dtype, pd.CategoricalDtype):
        categories = list(dtype.categories)
        if dtype.ordered and not force_nominal:
            cat = pd.Categorical(values, categories=categories, ordered=True)
            return cat, Feature(name, ORDINAL_KIND, tuple(categories))
        cat = pd.Categorical(values, categories=categories, ordered=False)
        return cat, Feature(name, NOMINAL_KIND, tuple(categories))

    if pd.api.types.is_bool_dtype(dtype):
        cat = _nominal(name, values.astype(object), _sorted_categories(values.dropna().tolist()))
        return cat, Feature(name, NOMINAL_KIND, tuple(cat.categories))

    if pd.api.types.is_numeric_dtype(dtype) and not force_nominal:
        numeric = values.astype(np.float64)
        check_finite(name, numeric)
        warn_if_all_missing(name, numeric)
        return numeric, Feature(name, NUMERIC_KIND)

    if inferred is None:  # a forced-nominal column of another dtype: what it holds
        inferred = pd.api.types.infer_dtype(values, skipna=True)
    if not force_nominal and inferred in _REAL_KINDS:
        numeric = _real_numbers(values)
        check_finite(name, numeric, values)
        return numeric, Feature(name, NUMERIC_KIND)
    cleaned = clean_object_column(values)
    present = cleaned.dropna()
    if force_nominal:
        cat = _nominal(name, cleaned)
        warn_if_all_missing(name, cleaned)
        return cat, Feature(name, NOMINAL_KIND, tuple(cat.categories))
    if present.empty:
        warn_if_all_missing(name, cleaned)
        return cleaned.astype(np.float64), Feature(name, NUMERIC_KIND)
    if present.map(lambda v: isinstance(v, bool | np.bool_)).all():
        cat = _nominal(name, cleaned.map(lambda v: v if pd.isna(v) else bool(v)))
        return cat, Feature(name, NOMINAL_KIND, tuple(cat.categories))
    if present.map(is_real).all():
        numeric = _real_numbers(cleaned)
        check_finite(name, numeric, cleaned)
        return numeric, Feature(name, NUMERIC_KIND)
    numberlike = present.map(as_number).notna()
    if numberlike.any() and not numberlike.all():
        _warn_mixed(name, present, numberlike)
        cleaned = cleaned.map(lambda v: v if pd.isna(v) else str(v))
    cat = _nominal(name, cleaned)
    return cat, Feature(name, NOMINAL_KIND, tuple(cat.categories))


def _distinct_strings(values: pd.Series):
    """A column of strings (:func:`_all_strings`) as ``(codes, strings, numberlike)``: its
    distinct strings that are not missing markers, the index of each value among them (-1:
    missing) and whether each string reads as a number; None when every value is missing.
    What :func:`type_column` checks of every value, checked once per distinct string."""
    # As an array of objects: pandas factorizes it twice as fast as its string columns.
    codes, uniques = pd.factorize(values.to_numpy(dtype=object))
    uniques = np.asarray(uniques, dtype=object)
    missing = np.array([_is_missing_scalar(v) for v in uniques], dtype=bool)
    if missing.all():
        return None
    index = np.full(len(uniques) + 1, -1, dtype=np.int64)  # index[-1]: a missing value
    index[np.flatnonzero(~missing)] = np.arange(int((~missing).sum()))
    strings = uniques[~missing]
    numberlike = np.array([pd.notna(as_number(v)) for v in strings], dtype=bool)
    return index[codes], strings, numberlike


def _typed_strings(
    name: str, values: pd.Series, warn_mixed: bool = True
) -> tuple[pd.Categorical, Feature] | None:
    """A column of strings (:func:`_all_strings`) typed as nominal, each distinct string
    read once; None when every value is missing (the general path says what to do). With
    ``warn_mixed``, strings of which some read as numbers and some not are warned of (not
    for a column the user named nominal)."""
    distinct = _distinct_strings(values)
    if distinct is None:
        return None
    codes, strings, numberlike = distinct
    if warn_mixed and numberlike.any() and not numberlike.all():
        _warn_mixed(name, pd.Series(strings), pd.Series(numberlike))
        strings = np.array([str(v) for v in strings], dtype=object)
    categories = tuple(_sorted_categories(strings.tolist()))
    position = {c: i for i, c in enumerate(categories)}
    order = np.array([position[v] for v in strings] + [-1], dtype=np.int64)
    cat = pd.Categorical.from_codes(order[codes], dtype=category_dtype(categories))
    return cat, Feature(name, NOMINAL_KIND, categories)


@functools.lru_cache(maxsize=1024)
def category_dtype(categories: tuple, ordered: bool = False) -> pd.CategoricalDtype:
    """The pandas dtype of ``categories`` (hashable values, in order), made once per
    process: checking the categories took most of typing a small column, and a
    cross-validation or a boosting loop types the same columns again and again. (Dtypes
    are immutable, so sharing one is safe.)"""
    return pd.CategoricalDtype(list(categories), ordered=ordered)


_DATES = "column {name!r} holds dates or times: convert it to numbers or categories first"


def check_values(name: str, values: pd.Series) -> None:
    """Refuse values of an object column that are neither numbers nor categories: lists,
    dicts and arrays (Parquet's nested columns), complex numbers, dates and times."""
    odd = {t for t in set(map(type, values)) if not _is_plain(t)}
    if not odd:
        return
    row, value = next((i, v) for i, v in enumerate(values) if type(v) in odd)
    if isinstance(value, _TIMES):
        raise DataError(_DATES.format(name=name), column=name)
    if isinstance(value, list | tuple | np.ndarray):
        what = "lists"
    elif isinstance(value, complex | np.complexfloating):
        what = "complex numbers"
    else:
        what = f"{type(value).__name__}s"
    text = repr(value)
    text = text if len(text) <= 40 else text[:37] + "..."
    raise DataError(
        f"column {name!r} holds {what} (row {row}: {text}): each cell must be one number "
        "or one category",
        column=name,
    )


_TIMES = (datetime.date, datetime.time, datetime.timedelta, np.datetime64, np.timedelta64)
_NOT_VALUES = (complex, np.complexfloating, list, dict, set, np.ndarray, *_TIMES)


def _is_plain(kind: type) -> bool:
    """Whether a value of type ``kind`` can be a number or a category."""
    return not issubclass(kind, _NOT_VALUES) and kind.__hash__ is not None


# Mixed columns already warned about, by column name and distinct values: an ensemble or a
# cross-validation fits the same data many times, and one warning per data set is enough.
# (Python's own once-per-location filter does not hold: scikit-learn's parallel helpers
# reset the filters around every fit.)
_MIXED_WARNED: set[tuple[str, int]] = set()
_MIXED_WARNED_MAX = 10_000

#: A column of numbers and words whose numbers are at most this many distinct whole numbers
#: reads as category labels (the bound by which the command line takes a numeric target of
#: integers for classes).
LABEL_NUMBERS_MAX = 20
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
# What a number written by hand may carry that float() refuses: white space of any kind
# (control characters too) and thousands separators.
_NUMBER_NOISE = re.compile(r"[\s,]")


def reads_as_labels(numbers: Iterable[str], words: Iterable[str]) -> bool:
    """Whether a column whose distinct values are ``numbers`` and ``words`` (as text) is a
    column of category labels, as car's ``doors`` (2, 3, 4, 5more) and ``persons`` (2, 4,
    more): its numbers are at most :data:`LABEL_NUMBERS_MAX` whole numbers, and no word is
    a number garbled by white space or a thousands separator.

    Such a column is read as nominal without a warning: that reading is the only one its
    values allow, declaring it nominal would change nothing, and a split on its categories
    can separate any of its values. A column whose numbers are measurements (not whole, or
    many) is warned about: read as nominal, each value is a category of its own and their
    order is lost, which its author fixes by making the words numbers or empty cells.
    """
    numbers = [n.strip() for n in numbers]
    if len(numbers) > LABEL_NUMBERS_MAX or not all(map(_WHOLE_NUMBER.fullmatch, numbers)):
        return False
    return not any(as_number(_NUMBER_NOISE.sub("", w)) is not None for w in words)


def _warn_mixed(name: str, present: pd.Series, numberlike: pd.Series) -> None:
    """Warn that column ``name`` mixes numbers and words, once per column and set of
    values in this process, unless it :func:`reads_as_labels`."""
    words = sorted({str(v) for v in present[~numberlike].unique()})
    numbers = sorted({str(v) for v in present[numberlike].unique()})
    if reads_as_labels(numbers, words):
        return
    key = (name, hash((tuple(words), tuple(numbers))))
    if key in _MIXED_WARNED:
        return
    if len(_MIXED_WARNED) >= _MIXED_WARNED_MAX:
        _MIXED_WARNED.clear()
    _MIXED_WARNED.add(key)
    warnings.warn(
        f"column {name!r} mixes numbers and words (e.g. {numbers[0]!r} and {words[0]!r}); "
        "it is treated as nominal, each value a category (if it holds numbers, make the "
        "words numbers or empty cells; declare it nominal to silence this)",
        DataWarning,
        stacklevel=4,
    )


def _real_numbers(values: pd.Series) -> pd.Series:
    """A column of real numbers held as objects (missing values aside) as float64. An
    integer beyond the float range (Python's integers have no bound; pandas reads a CSV
    column of them so) becomes infinite, as :func:`as_number` reads it, for
    :func:`check_finite` to name."""
    try:
        array = values.to_numpy(dtype=np.float64, na_value=np.nan)
    except OverflowError:
        array = np.array(
            [np.nan if _is_missing_scalar(v) else as_number(v) for v in values], dtype=np.float64
        )
    return pd.Series(array, index=values.index, name=values.name)


def _beyond_float_range(value) -> bool:
    """Whether ``value``, as written before it was read as a float, is a finite number too
    large for one (an integer of 309 digits or more, a text like ``1e400``), not infinity."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_):
        return True
    if isinstance(value, decimal.Decimal):
        return value.is_finite()
    return isinstance(value, str) and "inf" not in value.lower()


def _abbreviated(value) -> str:
    """``value`` as text, its middle left out when it is long (a number of 400 digits)."""
    text = str(value).strip()
    if len(text) <= 24:
        return text
    digits = sum(c.isdigit() for c in text)
    return f"{text[:12]}...{text[-4:]} ({digits} digits)"


def check_finite(name: str, numeric: pd.Series, written: pd.Series | None = None) -> None:
    """A DataError naming the first infinite value of the float column ``numeric``;
    ``written``: the column before it was read as floats, whose finite numbers too large
    for a float are named as they were written."""
    arr = numeric.to_numpy()
    bad = np.isinf(arr)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        if written is not None and _beyond_float_range(written.iloc[row]):
            raise DataError(
                f"column {name!r} holds {_abbreviated(written.iloc[row])} in row {row}, a "
                f"number beyond the float range (about {np.finfo(np.float64).max:.2g} in "
                "size) that quercus computes in: write it in a larger unit or leave the "
                "cell empty (missing); if the column holds labels, declare it nominal",
                column=name,
            )
        raise DataError(
            f"column {name!r} has an infinite value ({arr[row]}) in row {row}: "
            "replace it with a finite number or leave the cell empty (missing)",
            column=name,
        )


def warn_if_all_missing(name: str, values: pd.Series) -> None:
    """A :class:`DataWarning` that column ``name`` is entirely missing (``values`` has rows,
    none of them present)."""
    if len(values) and values.isna().all():
        warnings.warn(
            f"column {name!r} is entirely missing; no split can use it",
            DataWarning,
            stacklevel=4,
        )


# ---------------------------------------------------------------------------------------------
# Frames


def is_position(key) -> bool:
    """Whether the column key ``key`` is a position: an integer (of Python or NumPy), not
    a boolean."""
    return isinstance(key, numbers.Integral) and not isinstance(key, bool | np.bool_)


def column_selection(selection, what: str) -> list:
    """The columns that ``selection`` (as ``nominal`` or ``nominal_features`` take them)
    selects, as a list of names and positions: None selects none, a string one column
    (``"ab"`` is the column ``ab``, not ``a`` and ``b``), an integer one position, any
    other collection each of its items. ``what`` names the selection in the error for
    anything else."""
    if selection is None:
        return []
    if isinstance(selection, str) or is_position(selection):
        return [selection]
    if isinstance(selection, Iterable) and not isinstance(selection, Mapping | bytes):
        return list(selection)
    raise DataError(
        f"{what} must be a column name, a position or a list of them, got "
        f"{_abbreviated(repr(selection))}"
    )


def ordinal_selection(ordinal) -> dict:
    """``ordinal`` (as ``ordinal`` or ``ordinal_features`` take it) as a dict of column ->
    list of levels; anything but None or a mapping of columns to lists is an error."""
    if ordinal is None:
        return {}
    if not isinstance(ordinal, Mapping):
        raise DataError(
            "ordinal columns must be a mapping of column -> list of levels from lowest to "
            f"highest, got {_abbreviated(repr(ordinal))}"
        )
    selection = {}
    for column, levels in ordinal.items():
        # A string would give one level per character: "sml" is no list of levels.
        if isinstance(levels, str) or not isinstance(levels, Iterable):
            raise DataError(
                f"ordinal column {column!r}: its levels must be a list from lowest to "
                f"highest, got {_abbreviated(repr(levels))}",
                column=str(column),
            )
        selection[column] = list(levels)
    return selection


def column_at(names: Sequence[str], position: int, what: str) -> str:
    """The name of the column at ``position`` among ``names`` (a negative one counts from
    the end); a position beyond them is an error naming it and the number of columns."""
    n = len(names)
    if not -n <= position < n:
        raise DataError(
            f"{what} column position {position} is out of range: the table has {n} "
            f"column{'' if n == 1 else 's'} (positions 0 to {n - 1}, or -{n} to -1 from the end)"
        )
    return names[int(position)]


def normalise_selection(
    names: list[str], nominal: Iterable | None, ordinal: Mapping | None
) -> tuple[set[str], dict[str, list]]:
    """Column selections by name or position, checked against ``names``: the columns
    forced nominal, and the levels of each ordinal column, by name."""

    def resolve(key, what):
        if is_position(key) and str(key) not in names:
            return column_at(names, key, what)
        key = str(key)
        if key not in names:
            raise DataError(f"{what} column {key!r} not found; columns are {names}", column=key)
        return key

    forced = {resolve(k, "nominal") for k in column_selection(nominal, "nominal")}
    levels = {resolve(k, "ordinal"): v for k, v in ordinal_selection(ordinal).items()}
    both = forced & set(levels)
    if both:
        raise DataError(f"column {sorted(both)[0]!r} is given as both nominal and ordinal")
    return forced, levels


def type_frame(
    frame: pd.DataFrame, nominal: Iterable | None = None, ordinal: Mapping | None = None
) -> tuple[pd.DataFrame, list[Feature]]:
    """Type every column of ``frame`` (see :func:`type_column`); names become strings."""
    names = check_column_names(frame.columns)
    forced, levels = normalise_selection(names, nominal, ordinal)
    columns, features = {}, []
    for name, (_, values) in zip(names, frame.items(), strict=True):
        typed, feature = type_column(
            name, values, force_nominal=name in forced, levels=levels.get(name)
        )
        columns[name] = typed
        features.append(feature)
    typed_frame = pd.DataFrame(columns, index=frame.index)
    return typed_frame, features
