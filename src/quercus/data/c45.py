"""C4.5's own file format: a ``.names`` file of declarations beside ``.data``/``.test`` files.

``.names``: ``|`` starts a comment; the first entry lists the class labels; then one entry
per attribute, ``name: continuous``, ``name: v1, v2, ...`` (discrete, in declared order),
``name: discrete N`` (values taken from the data) or ``name: ignore``. Entries end with a
period that is followed by white space or the end of the file; ``\\`` escapes a delimiter.
Data files hold one case per line, comma-separated, the class last, ``?`` for unknown.
"""

from __future__ import annotations

import os

import pandas as pd

from .errors import DataError


def _strip_comments(text: str) -> str:
    lines = []
    for line in text.splitlines():
        out, escaped = [], False
        for ch in line:
            if escaped:
                out.append("\\" + ch)
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "|":
                break
            else:
                out.append(ch)
        lines.append("".join(out))
    return "\n".join(lines)


def _entries(text: str) -> list[str]:
    """Declarations split at their terminating periods (a period before white space)."""
    entries, current, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if ch == "." and (i + 1 == len(text) or text[i + 1].isspace()):
            entries.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    if "".join(current).strip():
        entries.append("".join(current).strip())
    return [e for e in entries if e]


def _split(text: str, sep: str) -> list[str]:
    """Split at unescaped ``sep``; unescape and strip the parts."""
    parts, current, i = [], [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            current.append(text[i + 1])
            i += 2
            continue
        if text[i] == sep:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(text[i])
        i += 1
    parts.append("".join(current).strip())
    return parts


def _first_unescaped(text: str, sep: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == sep:
            return i
        i += 1
    return -1


def parse_names(path: str) -> tuple[list[str], list[tuple[str, str, list[str] | None]]]:
    """Class labels and ``(name, kind, values)`` per attribute of a ``.names`` file."""
    with open(path, encoding="utf-8") as fh:
        entries = _entries(_strip_comments(fh.read()))
    if not entries:
        raise DataError(f"{path}: no class labels declared", source=path)
    classes = _split(entries[0], ",")
    attributes = []
    for entry in entries[1:]:
        cut = _first_unescaped(entry, ":")
        if cut < 0:
            raise DataError(f"{path}: cannot read the declaration {entry!r}", source=path)
        name = _split(entry[:cut], "\x00")[0]  # unescaped
        spec = entry[cut + 1 :].strip()  # still escaped: the value list is split below
        lowered = spec.lower()
        if lowered == "continuous":
            attributes.append((name, "continuous", None))
        elif lowered == "ignore":
            attributes.append((name, "ignore", None))
        elif lowered.startswith("discrete"):
            attributes.append((name, "discrete", None))
        else:
            attributes.append((name, "discrete", _split(spec, ",")))
    return classes, attributes


def read_c45(path: str) -> tuple[pd.DataFrame, list[str], dict[str, list]]:
    """A ``.data``/``.test`` file (or the ``.data`` beside a ``.names``) as a raw frame.

    Returns the frame (class in a last column named ``class``), the nominal columns, and the
    declared categories of each nominal column (the class labels in declared order).
    """
    stem, ext = os.path.splitext(path)
    names_path = stem + ".names"
    data_path = stem + ".data" if ext == ".names" else path
    for needed in (names_path, data_path):
        if not os.path.exists(needed):
            raise DataError(
                f"{needed}: no such file (C4.5 data needs .names and .data)", source=needed
            )
    classes, attributes = parse_names(names_path)
    columns = [name for name, _, _ in attributes] + ["class"]
    frame = pd.read_csv(
        data_path,
        header=None,
        names=columns,
        dtype=str,
        keep_default_na=False,
        na_values=["?"],
        skipinitialspace=True,
        comment="|",
        skip_blank_lines=True,
        escapechar="\\",
    )
    frame = frame.apply(lambda col: col.str.strip())  # every column is read as text
    declared: dict[str, list] = {"class": classes}
    nominal = ["class"]
    for name, kind, values in attributes:
        if kind == "ignore":
            frame = frame.drop(columns=[name])
        elif kind == "continuous":
            numbers = pd.to_numeric(frame[name], errors="coerce")
            bad = frame[name].notna() & numbers.isna()
            if bad.any():
                raise DataError(
                    f"{data_path}: attribute {name!r} is declared continuous but holds "
                    f"{frame[name][bad].iloc[0]!r}",
                    column=name,
                    source=data_path,
                )
            frame[name] = numbers
        else:
            nominal.append(name)
            if values is not None:
                declared[name] = values
    for name, values in declared.items():
        present = set(frame[name].dropna())
        unknown = present - set(values)
        if unknown:
            raise DataError(
                f"{data_path}: {name!r} holds {sorted(unknown)[0]!r}, not among its declared "
                f"values {values}",
                column=name,
                source=data_path,
            )
        frame[name] = pd.Categorical(frame[name], categories=values)
    return frame, nominal, declared
