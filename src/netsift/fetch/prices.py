"""What a price looks like in a page's text: the one pattern the classifier (priced cards,
priced blocks) and the product reader (the buy box, other products' cards) search with."""

from __future__ import annotations

import re

__all__ = ["PRICE"]

# Searched only (never spans taken): a currency symbol before a digit, or a number a currency
# follows. The number is tried once per run of digits and separators, from the run's start and
# taken whole (possessive): trying it at every digit of a long run, each backtracking through
# the rest, was quadratic (a 120 KB page of digit runs took 24 s).
PRICE = re.compile(
    r"(?:[$€£¥₹]\s?\d|(?<![\d,.])[,.]*+\d[\d,.]*+\s?(?:€|\$|USD|EUR|GBP|CHF|kr|zł))",
    re.IGNORECASE,
)
