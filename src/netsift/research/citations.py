"""Citation checks: a quote counts only if it really occurs in the source's fetched text.

Normalisation is deliberately narrow (whitespace, quote and dash styles, case): enough that a
faithful quote matches across Markdown/text renderings, not so loose that a paraphrase does.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize", "quote_occurs", "split_sentences"]

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_MARKDOWN = re.compile(r"[*_`#>\[\]]|\]\([^)]*\)")
_SPACE = re.compile(r"\s+")
# A sentence ends at . ! or ? before a capital or a digit, but not after an initial ("I. M.
# Pei", "J. R. R. Tolkien") nor a common abbreviation.
_SENTENCE = re.compile(
    r"(?<=[.!?])(?<!\b[A-Z]\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bNo\.)"
    r"[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])"
)
MIN_QUOTE_CHARS = 12


def normalize(text: str) -> str:
    """Fold the renderings a faithful quote may differ in; keep the words."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = re.sub(r"\]\([^)]*\)", "", text)  # Markdown link targets
    text = _MARKDOWN.sub("", text)
    return _SPACE.sub(" ", text).strip().casefold()


def quote_occurs(quote: str, source_text: str) -> bool:
    """True if `quote` (trimmed of ellipses) occurs in the source after normalisation; a
    quote under `MIN_QUOTE_CHARS` only as a whole line of it."""
    needle = normalize(quote).strip(" .…\"'")
    if len(needle) < MIN_QUOTE_CHARS:
        # Too short to be found by chance only when it is a whole line: a table row
        # ("Steel 5,960") is a unit of the page, a fragment ("in 1914") is not.
        return bool(needle) and any(
            normalize(line).strip(" .…\"'") == needle for line in source_text.splitlines()
        )
    haystack = normalize(source_text)
    if needle in haystack:
        return True
    # A quote with an ellipsis: every part must occur, in order.
    parts = [p.strip(" .\"'") for p in re.split(r"\s*(?:\.\.\.|…)\s*", needle) if p.strip(" .")]
    if len(parts) < 2 or any(len(p) < MIN_QUOTE_CHARS for p in parts):
        return False
    position = 0
    for part in parts:
        found = haystack.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


def split_sentences(text: str) -> list[str]:
    """Sentences of plain text, for extractive answers and quote candidates; a line break
    ends a sentence too (headings, list items and table rows have no full stop)."""
    sentences: list[str] = []
    for line in text.splitlines():
        flat = _SPACE.sub(" ", line).strip()
        sentences.extend(s.strip() for s in _SENTENCE.split(flat) if s.strip())
    return sentences
