"""The colours of classes, shared by every picture of a tree (Graphviz, matplotlib, the HTML
report), so that a class has the same colour in all of them.

Class ``k`` has colour ``class_colour(k)`` whatever the number of classes: the first ten are
ColorBrewer's "Paired" colours (light ones first), the next ten more of Paired and of
matplotlib's "tab20", and beyond twenty the colours are generated, each distinct from every
colour before it. A legend of twenty classes therefore never shows one colour twice.
"""

from __future__ import annotations

import colorsys

__all__ = ["CLASS_COLOURS", "class_colour", "class_colours", "text_colour"]

#: The first twenty class colours.
CLASS_COLOURS = (
    "#a6cee3",
    "#b2df8a",
    "#fb9a99",
    "#fdbf6f",
    "#cab2d6",
    "#ffff99",
    "#1f78b4",
    "#33a02c",
    "#e31a1c",
    "#ff7f00",
    "#6a3d9a",
    "#b15928",
    "#17becf",
    "#bcbd22",
    "#e377c2",
    "#9edae5",
    "#dbdb8d",
    "#f7b6d2",
    "#7f7f7f",
    "#c7c7c7",
)

_GOLDEN = 0.618033988749895  # hue step beyond the fixed colours: hues never repeat
_LIGHTNESS = (0.45, 0.7, 0.58)


def _generated(k: int) -> str:
    """Colour ``k`` (0-based) beyond :data:`CLASS_COLOURS`: hues a golden-ratio turn apart,
    at three lightnesses in turn."""
    hue = (0.11 + k * _GOLDEN) % 1.0
    r, g, b = colorsys.hls_to_rgb(hue, _LIGHTNESS[k % len(_LIGHTNESS)], 0.65)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def class_colours(n_classes: int) -> list[str]:
    """The colours of classes ``0 .. n_classes - 1``, all distinct."""
    colours = list(CLASS_COLOURS[:n_classes])
    seen = set(colours)
    k = 0
    while len(colours) < n_classes:
        colour = _generated(k)
        k += 1
        if colour not in seen:  # rounding to 8 bits could repeat a colour: skip it
            seen.add(colour)
            colours.append(colour)
    return colours


def class_colour(k: int) -> str:
    """The colour of class ``k``."""
    if k < len(CLASS_COLOURS):
        return CLASS_COLOURS[k]
    return class_colours(k + 1)[k]


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (``#rrggbb``; black on anything
    else, such as ``white``): white on dark fills by their relative luminance (WCAG's)."""
    if len(fill) != 7 or not fill.startswith("#"):
        return "black"

    def linear(channel: str) -> float:
        c = int(channel, 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(fill[i : i + 2]) for i in (1, 3, 5))
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    # The luminance at which black and white text have the same contrast ratio.
    return "black" if luminance > 0.179 else "white"
