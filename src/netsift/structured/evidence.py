"""Whether a passage holds a value: a quote counts only if it occurs verbatim in what was
fetched (research/citations.py's normalisation), and it supports a value only if it states
it: every string of the value in it, every number among its numbers.

A boolean cannot be quoted; its evidence is the verified passage the model named for it.
"""

from __future__ import annotations

import html
import re
from typing import Any

from ..research.citations import normalize

__all__ = ["found_in", "leaves", "number_of", "states"]

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
# A JSON-LD string as the page's source spells it: `\/` and `\"` escapes undone.
_JSON_ESCAPES = str.maketrans({"\\": ""})


def found_in(quote: str, text: str) -> bool:
    """`quote` occurs in `text` after the narrow normalisation (whitespace, quote and dash
    styles, case, Markdown marks); HTML entities in `text` are read as their characters."""
    needle = normalize(quote)
    if not needle:
        return False
    haystack = normalize(html.unescape(text))
    return needle in haystack or needle in haystack.translate(_JSON_ESCAPES)


def leaves(value: Any) -> list[Any]:
    """The scalars a value is made of, nulls left out."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in leaves(v)]
    return [] if value is None else [value]


def number_of(text: str) -> float | None:
    """The first number written in `text` ("$1,299.00" → 1299.0), or None."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    try:
        return float(match.group().replace(",", ""))
    except ValueError:
        return None


def _numbers(text: str) -> set[float]:
    found = set()
    for raw in _NUMBER.findall(text):
        try:
            found.add(float(raw.replace(",", "")))
        except ValueError:
            continue
    return found


def states(value: Any, passage: str) -> str | None:
    """None if `passage` states `value`, else what it does not state (the null's reason)."""
    text = normalize(passage)
    numbers = _numbers(passage)
    for leaf in leaves(value):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, int | float):
            if float(leaf) not in numbers:
                return f"the evidence does not state the number {leaf}"
        elif normalize(str(leaf)) not in text:
            return f"the evidence does not state {str(leaf)[:80]!r}"
    return None
