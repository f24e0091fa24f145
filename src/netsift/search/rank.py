"""Ranking for merged results: canonical URLs, near-duplicate removal, BM25 and rank fusion.

Everything here is pure: lists of results in, lists of results out. Merge mode asks several
providers at once; the same page comes back under slightly different URLs (tracking
parameters, `www.`, a trailing slash) and the same story under slightly different titles, so
results are first grouped by canonical URL, then near-duplicates are folded by the Jaccard
similarity of their character shingles (exact: a merged page holds at most a few hundred
results, where MinHash's estimate would cost more than it saves), and the survivors are
ordered by reciprocal rank fusion over each provider's order plus a BM25 order of
title+snippet against the query (BM25 is one more voter, so a provider's strong opinion and
the text's own relevance both count).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, Field

from ..models import SearchResult

__all__ = [
    "NEAR_DUPLICATE_THRESHOLD",
    "RankedResults",
    "bm25_scores",
    "canonical_url",
    "dedupe_near",
    "dedupe_rank",
    "is_off_topic",
    "jaccard",
    "merge_results",
    "query_terms",
    "shingles",
    "tokenize",
]

NEAR_DUPLICATE_THRESHOLD = 0.8
RRF_K = 60  # the constant of Cormack et al. (2009); damps the weight of the very top ranks

_TRACKING_EXACT = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "igshid",
        "mkt_tok",
        "ref",
        "ref_src",
        "ref_url",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "spm",
    }
)
_TRACKING_PREFIXES = ("utm_", "mc_", "pk_", "hsa_")
_DEFAULT_PORTS = {"http": 80, "https": 443}

# Words that say nothing about what a page is about, in the languages queries arrive in most.
# Used for the off-topic check and to keep BM25 from rewarding "the" and "how".
STOPWORDS = frozenset(
    """
    a about above after again all also an and any are as at be because been before being
    between both but by can could did do does doing down during each few for from further had
    has have having her here hers him his how i if in into is it its itself just me more most
    my no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their theirs them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would
    you your yours best top vs versus
    der die das und oder ist ein eine mit von für nicht auf den dem des wie was
    le la les un une des et ou est dans pour pas sur avec qui que
    el los las y o es en por con para una del
    """.split()
)

_WORD = re.compile(r"\w+", re.UNICODE)


def canonical_url(url: str) -> str:
    """The form two providers' URLs for one page share: the key results are merged by.

    Lower-cases scheme and host, drops `www.`, user info, default ports, the fragment,
    tracking parameters (utm_*, fbclid, gclid, mc_*, ref, …) and trailing slashes, and sorts
    the remaining query parameters. The scheme is kept: http and https may be different pages.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    host = host.removeprefix("www.")
    if ":" in host:  # IPv6 literal: keep its brackets
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    params = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not _is_tracking(key)
    ]
    query = urlencode(sorted(params))
    return urlunsplit((scheme, host, path, query, ""))


def _is_tracking(key: str) -> bool:
    lowered = key.lower()
    return lowered in _TRACKING_EXACT or lowered.startswith(_TRACKING_PREFIXES)


def tokenize(text: str) -> list[str]:
    """Casefolded word tokens, stopwords removed (for BM25)."""
    return [word for word in _WORD.findall(text.casefold()) if word not in STOPWORDS]


def query_terms(query: str) -> list[str]:
    """The words a relevant page must mention: casefolded, 3+ letters, no stopwords."""
    return [word for word in tokenize(query) if len(word) >= 3 and not word.isdigit()]


def is_off_topic(query: str, results: Sequence[SearchResult]) -> bool:
    """True when no result's title or snippet mentions any of the query's terms.

    Some engines answer a bot with a page of plausible but unrelated results (a decoy)
    rather than an error; reporting that as an answer would be worse than reporting nothing.
    A query with no term of 3+ letters (e.g. "AI", "C") cannot be checked and passes.
    """
    terms = query_terms(query)
    if not terms or not results:
        return False
    texts = [f"{result.title} {result.snippet}".casefold() for result in results]
    return not any(term in text for term in terms for text in texts)


def bm25_scores(
    query: str, documents: Sequence[str], *, k1: float = 1.2, b: float = 0.75
) -> list[float]:
    """Okapi BM25 of each document against the query, with the documents as the corpus.

    A result page is a tiny corpus, so idf uses the `+1` form that never goes negative.
    """
    docs = [tokenize(doc) for doc in documents]
    if not docs:
        return []
    terms = set(tokenize(query))
    avg_len = (sum(len(doc) for doc in docs) / len(docs)) or 1.0
    frequency = Counter(term for doc in docs for term in set(doc) if term in terms)
    idf = {
        term: math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
        for term in terms
    }
    scores = []
    for doc in docs:
        counts = Counter(doc)
        norm = k1 * (1 - b + b * len(doc) / avg_len)
        scores.append(
            sum(
                idf[term] * counts[term] * (k1 + 1) / (counts[term] + norm)
                for term in terms
                if counts[term]
            )
        )
    return scores


def shingles(text: str, size: int = 5) -> set[bytes]:
    """Character shingles: robust for short snippets where word shingles are too few."""
    flat = " ".join(_WORD.findall(text.casefold()))
    if len(flat) <= size:
        return {flat.encode()}
    return {flat[i : i + size].encode() for i in range(len(flat) - size + 1)}


def jaccard(first: set[bytes], second: set[bytes]) -> float:
    """Shared shingles over all shingles; two empty texts are the same text (1.0)."""
    if not first and not second:
        return 1.0
    return len(first & second) / len(first | second)


def dedupe_near(
    results: Sequence[SearchResult], *, threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> list[SearchResult]:
    """Fold results whose title+snippet are near-duplicates (shingle Jaccard ≥ threshold).

    Input is in preference order; the first of a group stays and takes over the others'
    `engines`, so the provenance of the folded copies is not lost.
    """
    kept: list[tuple[SearchResult, set[bytes]]] = []
    for result in results:
        marks = shingles(f"{result.title} {result.snippet}")
        for index, (winner, other) in enumerate(kept):
            if jaccard(marks, other) >= threshold:
                engines = _union(winner.engines, result.engines)
                kept[index] = (winner.model_copy(update={"engines": engines}), other)
                break
        else:
            kept.append((result, marks))
    return [result for result, _ in kept]


def _union(first: Iterable[str], second: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*first, *second]))


def merge_results(
    query: str, by_provider: dict[str, list[SearchResult]], *, count: int
) -> list[SearchResult]:
    """Merge providers' result lists into one ranked list of at most `count` results.

    `by_provider` is in provider priority order; on a tie the higher-priority provider's
    copy of a result is the one shown. `score` is the fused score; `rank` starts at 1.
    """
    groups: dict[str, SearchResult] = {}
    fused: defaultdict[str, float] = defaultdict(float)
    for provider, results in by_provider.items():
        for position, result in enumerate(results, start=1):
            key = canonical_url(result.url)
            fused[key] += 1.0 / (RRF_K + position)
            if key in groups:
                seen = groups[key]
                groups[key] = seen.model_copy(
                    update={"engines": _union(seen.engines, [provider, *result.engines])}
                )
            else:
                groups[key] = result.model_copy(
                    update={"engines": _union([provider], result.engines)}
                )
    keys = list(groups)
    relevance = bm25_scores(query, [f"{groups[k].title} {groups[k].snippet}" for k in keys])
    by_text = sorted(range(len(keys)), key=lambda i: -relevance[i])
    for position, index in enumerate(by_text, start=1):
        if relevance[index] > 0:
            fused[keys[index]] += 1.0 / (RRF_K + position)
    ordered = sorted(keys, key=lambda k: -fused[k])  # stable: priority order breaks ties
    unique = dedupe_near([groups[k].model_copy(update={"score": fused[k]}) for k in ordered])
    return [
        result.model_copy(update={"rank": rank, "score": round(result.score or 0.0, 6)})
        for rank, result in enumerate(unique[:count], start=1)
    ]


class RankedResults(BaseModel):
    """A result list folded and ranked (`dedupe_rank`): what was kept, and how many folded."""

    query: str
    results: list[SearchResult] = Field(default_factory=list)
    folded: int = 0  # results dropped as duplicates of one kept
    dropped: int = 0  # distinct results past `count`


def dedupe_rank(query: str, results: Sequence[SearchResult], *, count: int) -> RankedResults:
    """`merge_results` over a list someone already has: each result's `source` is the
    provider whose order it votes in (its position within that source), so a list gathered
    from several searches is fused as a merged search would fuse it."""
    by_source: dict[str, list[SearchResult]] = {}
    for result in results:
        by_source.setdefault(result.source, []).append(result)
    every = merge_results(query, by_source, count=len(results))
    kept = every[:count]
    return RankedResults(
        query=query,
        results=kept,
        folded=len(results) - len(every),
        dropped=len(every) - len(kept),
    )
