"""Near-duplicate pages: a 64-bit simhash over word shingles, looked up by bands; pure.

Sites serve one text under many URLs (print views, session parameters, sort orders, a
"last updated" line that changes). An exact content hash catches the identical ones; the
sketch catches the rest. Simhash (Charikar 2002) is the sketch Google's crawler used for
this (Manku, Jain, Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007): 64
bits per page; pages whose sketches differ in at most k bits are near-duplicates. Their
lookup trick is kept too: split the 64 bits into k + 1 bands; two sketches within k bits
agree on at least one whole band (pigeonhole), so a store finds the candidates by band
equality instead of comparing against every page read.

A page's *text sample* says whether it adds text a crawl has not read: the hashes of a fixed
quarter of its six-word windows (those whose hash falls in one residue class, so a window is
sampled on every page it is on), taken outside its links, since a trap's pages differ in
their links and in little else. The frontier counts how many are new to the page's path
pattern (crawl/frontier/rules.py judges it).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "BANDS",
    "NEAR_DUPLICATE_BITS",
    "SHINGLE_WORDS",
    "TITLE_BITS",
    "PageDigest",
    "bands",
    "content_hash",
    "fingerprint",
    "hamming",
    "is_near_duplicate",
    "page_digest",
    "scoped",
    "simhash",
    "text_sample",
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
# Words per window of the text sample: long, so that text written from a template (a manual's
# "To <verb> the <thing> ..." pages, an API reference) is new wherever its words are new
# together, while one changed word (a month's name) makes at most seven new windows. On a
# templated 320-page manual, three-word windows found nothing new in most pages; six-word ones
# found 21 or more in every page but its near copies.
TEXT_WINDOW_WORDS = 6
# One window in SAMPLE_EVERY is sampled: a 300-word page gives about 75 hashes, enough to
# tell a sentence of new text from none, a quarter of the rows a full set would cost.
SAMPLE_EVERY = 4
# A long page's sample is its smallest hashes up to this many (a bottom-k sample, still the
# same shingles on every page that holds them), so one page never costs thousands of rows.
SAMPLE_MAX = 256
# Markdown links and images: a page's links are not its text.
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# A generated id: a whole run of hex digits, holding a digit, at least ID_HEX_CHARS long (a
# hash, a UUID's part). Shorter letter-digit runs (`p012`, `sec4`, `v2`) name things. An id
# is no text: in a text sample it is one placeholder word, so a generated page ("Recipe idea
# 0c51905797" over the same template) is not new text for its id (frontier/order.py masks
# the same ids in path patterns).
ID_HEX_CHARS = 8
GENERATED_ID = re.compile(
    rf"(?<![0-9a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{{{ID_HEX_CHARS},}}(?![0-9a-fA-F])"
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def content_hash(text: str) -> str:
    """The exact identity of a page's text, whitespace and case folded."""
    return _hash_words(_words(text))


def _hash_words(words: list[str]) -> str:
    return hashlib.sha256(" ".join(words).encode()).hexdigest()


def _spread_table() -> list[list[int]]:
    """For hash byte `position` and value `byte`: an int holding a 1 in the lane of each set
    bit, so one addition counts all eight bits of a byte at once."""
    table = []
    for position in range(8):
        row = []
        for byte in range(256):
            value = 0
            for bit in range(8):
                if byte >> bit & 1:
                    value |= 1 << ((position * 8 + bit) * LANE_BITS)
            row.append(value)
        table.append(row)
    return table


# The 64 per-bit counts are kept as lanes of one big int (LANE_BITS wide, so a lane holds up
# to 16 million shingles before it would carry into the next; longer texts are summed in
# chunks): eight additions a shingle instead of 64 counter increments, about 7x faster than
# counting each bit (0.27 ms instead of 1.9 ms for a 250-word page), the same sketch.
LANE_BITS = 24
_LANE_MAX = (1 << LANE_BITS) - 1
_SPREAD = _spread_table()


def _bit_counts(shingles: list[str]) -> list[int]:
    """How many of the shingles' 64-bit hashes have each bit set."""
    s0, s1, s2, s3, s4, s5, s6, s7 = _SPREAD
    hash_of = hashlib.blake2b
    counts = [0] * 64
    for start in range(0, len(shingles), _LANE_MAX):
        lanes = 0
        for shingle in shingles[start : start + _LANE_MAX]:
            d = hash_of(shingle.encode(), digest_size=8).digest()
            lanes += s0[d[0]] + s1[d[1]] + s2[d[2]] + s3[d[3]]
            lanes += s4[d[4]] + s5[d[5]] + s6[d[6]] + s7[d[7]]
        for bit in range(64):
            counts[bit] += lanes >> (bit * LANE_BITS) & _LANE_MAX
    return counts


def simhash(text: str) -> int | None:
    """The 64-bit simhash of `text`'s word shingles; None when the text is too short."""
    return _simhash_words(_words(text))


def _simhash_words(words: list[str]) -> int | None:
    if len(words) < MIN_WORDS:
        return None
    shingles = {" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - 2)}
    half = len(shingles) / 2
    sketch = 0
    for bit, ones in enumerate(_bit_counts(list(shingles))):
        if ones > half:
            sketch |= 1 << bit
    return sketch


def bands(sketch: int, title: str | None = None) -> list[int]:
    """The sketch's bands, each tagged with its position (band i of value v → i << 9 | v)
    and, when it is given, with the page's title (`TITLE_BITS` of its hash above them): a
    copy keeps its title, so only pages titled alike are compared. Pages whose text differs
    in a sentence under one long banner (a forum's one-post threads, 100 words of which 80
    are its rules and sidebar; a catalogue's bolts differing in size and price) come within
    the sketch's bits by chance, a few dozen pairs in a hundred pages; their titles differ."""
    mask = (1 << BAND_BITS) - 1
    tag = _title_tag(title) << _TITLE_SHIFT if title is not None else 0
    return [tag | (i << BAND_BITS) | (sketch >> (i * BAND_BITS) & mask) for i in range(BANDS)]


# Bits of a title's hash in a band's key: with 12 bits of position and value below, the key
# stays within SQLite's signed 64-bit INTEGER.
TITLE_BITS = 48
_TITLE_SHIFT = BAND_BITS + (BANDS - 1).bit_length()


def _title_tag(title: str) -> int:
    words = " ".join(_words(title))
    return int.from_bytes(hashlib.blake2b(words.encode(), digest_size=TITLE_BITS // 8).digest())


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def is_near_duplicate(a: int, b: int) -> bool:
    return hamming(a, b) <= NEAR_DUPLICATE_BITS


def text_sample(text: str, anchors: Sequence[str] = ()) -> list[int]:
    """The sampled window hashes of `text` outside its links (Markdown links, and the
    `anchors`: the texts of the page's links, which extraction may leave in its text),
    smallest first. CRC-32 of each window: half blake2b's cost, and 32 bits are plenty to
    tell a crawl's windows apart (a rare collision only makes one window look read)."""
    text = _LINK.sub(" ", text)
    for anchor in sorted({a.strip() for a in anchors if a.strip()}, key=len, reverse=True):
        text = text.replace(anchor, " ")
    words = _words(GENERATED_ID.sub(" id ", text))
    sample = set()
    for i in range(len(words) - TEXT_WINDOW_WORDS + 1):
        value = zlib.crc32(" ".join(words[i : i + TEXT_WINDOW_WORDS]).encode())
        if value % SAMPLE_EVERY == 0:
            sample.add(value)
    return sorted(sample)[:SAMPLE_MAX]


def scoped(sample: list[int], scope: str) -> list[int]:
    """The sample's hashes as one scope (a path pattern) keeps them: mixed with the scope's
    own hash, so one set holds every scope's and a window is new to each scope once."""
    key = int.from_bytes(hashlib.blake2b(scope.encode(), digest_size=6).digest(), "big")
    return [value ^ key for value in sample]


def fingerprint(text: str) -> tuple[str, int | None]:
    """The exact hash and the sketch of `text` together (about 0.3 ms for a 250-word page),
    from one pass over its words."""
    words = _words(text)
    return _hash_words(words), _simhash_words(words)


@dataclass(frozen=True)
class PageDigest:
    """What a crawl judges a page by: its exact hash and sketch (duplicates) and its text
    sample (what it adds to its path pattern)."""

    content_hash: str
    sketch: int | None
    sample: list[int]


def page_digest(text: str, anchors: Sequence[str] = ()) -> PageDigest:
    """A page's whole digest, computed where it is extracted (fetch's `Digest`, in the
    compute pool): `anchors` are its links' texts, left out of the sample. The exact hash
    reads the links' targets too (two galleries of untitled images are two pages); the
    sketch reads what a reader sees, the links' texts without their targets, so copies of a
    page whose every link carries a new session id are near copies."""
    words = _words(text)
    return PageDigest(
        _hash_words(words),
        _simhash_words(_words(_LINK.sub(r" \1 ", text))),
        text_sample(text, anchors),
    )
