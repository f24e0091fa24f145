"""canonical_url and Scope: the crawl's seen-set key and its bounds."""

from __future__ import annotations

import pytest

from netsift.crawl.scope import MAX_PATTERNS, Scope, canonical_url, site_host
from netsift.errors import InvalidInput


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("HTTP://Example.COM:80/a/../b/?b=2&a=1#frag", "http://example.com/b/?a=1&b=2"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("https://example.com/x?utm_source=n&id=3&fbclid=z", "https://example.com/x?id=3"),
        ("https://example.com/?", "https://example.com/"),
        ("https://example.com/a/./b//c/", "https://example.com/a/b/c/"),
        ("https://Bücher.example/", "https://xn--bcher-kva.example/"),
        ("https://example.com./x", "https://example.com/x"),
    ],
)
def test_spellings_of_one_page_share_a_key(url: str, key: str) -> None:
    assert canonical_url(url) == key


def test_different_pages_keep_different_keys() -> None:
    keys = {
        canonical_url(u)
        for u in (
            "https://example.com/a",
            "https://example.com/a/",
            "https://example.com/a?x=1",
            "http://example.com/a",
            "https://example.com:8080/a",
        )
    }
    assert len(keys) == 5


@pytest.mark.parametrize("url", ["ftp://example.com/", "mailto:a@b.c", "/relative", "http://[::1"])
def test_a_url_without_an_http_host_is_invalid_input(url: str) -> None:
    with pytest.raises(InvalidInput):
        canonical_url(url)


def test_www_and_the_bare_host_are_one_site() -> None:
    assert site_host("https://WWW.Example.com/x") == "example.com"
    scope = Scope.of("https://www.example.com/")
    assert scope.allows("https://example.com/a")
    assert scope.allows("http://www.example.com/b")


def test_other_sites_and_subdomains_are_out_unless_asked() -> None:
    scope = Scope.of("https://example.com/")
    assert scope.refusal("https://docs.example.com/") == (
        "docs.example.com is another site than example.com"
    )
    assert not scope.allows("https://example.com.evil.test/")
    assert not scope.allows("https://notexample.com/")
    wide = Scope.of("https://example.com/", subdomains=True)
    assert wide.allows("https://docs.example.com/")
    assert not wide.allows("https://notexample.com/")


def test_patterns_search_the_path_and_query_exclude_first() -> None:
    scope = Scope.of("https://example.com/", include=[r"^/docs/"], exclude=[r"\.pdf$", "print=1"])
    assert scope.allows("https://example.com/docs/intro")
    assert scope.refusal("https://example.com/blog/") == "the path matches no include pattern"
    assert "exclude pattern" in (scope.refusal("https://example.com/docs/a.pdf") or "")
    assert "exclude pattern" in (scope.refusal("https://example.com/docs/a?print=1") or "")


def test_an_unreadable_url_is_refused_with_its_reason() -> None:
    assert "http(s)" in (Scope.of("https://example.com/").refusal("javascript:alert(1)") or "")


@pytest.mark.parametrize(
    ("include", "field"),
    [(["("], "include"), ([""], "include"), (["x" * 501], "include")],
)
def test_bad_patterns_are_invalid_input_naming_the_field(include: list[str], field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        Scope.of("https://example.com/", include=include)
    assert caught.value.details == {"field": field}


def test_too_many_patterns_are_refused() -> None:
    with pytest.raises(InvalidInput):
        Scope.of("https://example.com/", exclude=["a"] * (MAX_PATTERNS + 1))


def test_a_start_url_without_a_host_is_refused() -> None:
    with pytest.raises(InvalidInput):
        Scope.of("file:///etc/passwd")


def test_a_backtracking_pattern_costs_one_refusal_not_a_stall() -> None:
    # alternatives that overlap backtrack exponentially on a run that finally fails
    scope = Scope.of("https://example.com/", exclude=[r"(a|aa)+$"])
    slow = "https://example.com/" + "a" * 5000 + "!"
    assert "exclude pattern" in (scope.refusal(slow) or "")
