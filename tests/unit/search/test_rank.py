"""rank.py: canonical URLs, off-topic detection, BM25, near-duplicates and merging."""

from __future__ import annotations

import pytest

from netsift.models import SearchResult
from netsift.search.rank import (
    bm25_scores,
    canonical_url,
    dedupe_near,
    is_off_topic,
    merge_results,
    query_terms,
)


def result(url: str, title: str, snippet: str = "", source: str = "x") -> SearchResult:
    return SearchResult(title=title, url=url, snippet=snippet, source=source)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTPS://WWW.Example.COM/Path/", "https://example.com/Path"),
        ("https://example.com:443/a#section", "https://example.com/a"),
        ("http://example.com:80/", "http://example.com"),
        ("http://example.com:8080/a", "http://example.com:8080/a"),
        ("https://example.com/a?utm_source=x&b=2&a=1&fbclid=z", "https://example.com/a?a=1&b=2"),
        (
            "https://example.com/a?gclid=1&mc_cid=2&mc_eid=3&ref=hn&ref_src=tw",
            "https://example.com/a",
        ),
        ("https://example.com/a?UTM_Medium=x&q=rust", "https://example.com/a?q=rust"),
        ("https://user:pw@example.com/a", "https://example.com/a"),
        ("https://[2001:db8::1]:8443/x/", "https://[2001:db8::1]:8443/x"),
        ("https://example.com/a?empty=", "https://example.com/a?empty="),
        ("http://example.com/a", "http://example.com/a"),  # the scheme is kept
    ],
)
def test_canonical_url(url: str, expected: str) -> None:
    assert canonical_url(url) == expected


def test_canonical_url_of_garbage_is_the_garbage() -> None:
    assert canonical_url("http://[broken") == "http://[broken"


def test_query_terms_drop_stopwords_short_words_and_numbers() -> None:
    assert query_terms("What is the best Rust async runtime in 2026 for IO") == [
        "rust",
        "async",
        "runtime",
    ]


def test_off_topic_when_no_term_appears_anywhere() -> None:
    decoy = [result("https://a.test/", "Cheap flights to Paris", "Book now and save")]
    assert is_off_topic("rust async runtimes", decoy)


def test_on_topic_when_one_term_appears_in_one_snippet() -> None:
    results = [
        result("https://a.test/", "Cheap flights", "Book now"),
        result("https://b.test/", "Tokio", "An ASYNC runtime for Rust"),
    ]
    assert not is_off_topic("rust async runtimes", results)


@pytest.mark.parametrize("query", ["AI", "C++ vs Go", "what is it"])
def test_queries_without_checkable_terms_are_never_off_topic(query: str) -> None:
    assert not is_off_topic(query, [result("https://a.test/", "Flights", "Paris")])


def test_empty_results_are_not_off_topic() -> None:
    assert not is_off_topic("rust async", [])


def test_bm25_prefers_the_document_about_the_query() -> None:
    scores = bm25_scores(
        "tokio runtime",
        [
            "Cooking pasta at home",
            "Tokio: an asynchronous runtime for Rust, the tokio way",
            "A runtime for Java",
        ],
    )
    assert scores[1] > scores[2] > scores[0] == 0.0


def test_bm25_of_nothing() -> None:
    assert bm25_scores("rust", []) == []


def test_near_duplicates_fold_into_the_first_with_engines_merged() -> None:
    first = result(
        "https://a.test/1",
        "Tokio 1.40 released with new scheduler",
        "The Tokio team announced version 1.40 today, featuring a new work-stealing scheduler.",
    ).model_copy(update={"engines": ["brave"]})
    copy = result(
        "https://mirror.test/1",
        "Tokio 1.40 released with new scheduler!",
        "The Tokio team announced version 1.40 today, featuring a new work-stealing scheduler",
    ).model_copy(update={"engines": ["duckduckgo"]})
    other = result("https://b.test/", "async-std is discontinued", "Use smol instead.")
    kept = dedupe_near([first, copy, other])
    assert [r.url for r in kept] == ["https://a.test/1", "https://b.test/"]
    assert kept[0].engines == ["brave", "duckduckgo"]


def test_different_texts_are_not_folded() -> None:
    a = result("https://a.test/", "Rust async book", "Learn async programming in Rust")
    b = result("https://b.test/", "Python asyncio docs", "Event loops, tasks and coroutines")
    assert len(dedupe_near([a, b])) == 2


def test_merge_groups_by_canonical_url_and_ranks_agreement_first() -> None:
    brave = [
        result("https://solo.test/", "Rust web frameworks", "Axum, Actix", "brave"),
        result(
            "https://www.shared.test/page/?utm_source=x", "Tokio runtime", "Async Rust", "brave"
        ),
    ]
    ddg = [
        result("https://shared.test/page", "Tokio", "The async runtime", "duckduckgo"),
        result("https://other.test/", "Unrelated cooking blog", "Pasta", "duckduckgo"),
    ]
    merged = merge_results("tokio async runtime", {"brave": brave, "duckduckgo": ddg}, count=10)
    assert merged[0].url == "https://www.shared.test/page/?utm_source=x"
    assert merged[0].engines == ["brave", "duckduckgo"]
    assert merged[0].source == "brave"  # the higher-priority provider's copy is shown
    assert [r.rank for r in merged] == [1, 2, 3]
    assert all(r.score is not None for r in merged)
    scores = [r.score or 0.0 for r in merged]
    assert scores == sorted(scores, reverse=True)
    assert merged[-1].url == "https://other.test/"  # no query term: no BM25 vote


def test_merge_cuts_to_count() -> None:
    many = [result(f"https://s{i}.test/", f"rust crate {i}", f"number {i}") for i in range(8)]
    merged = merge_results("rust", {"brave": many}, count=3)
    assert [r.rank for r in merged] == [1, 2, 3]
    assert len(merged) == 3
