"""`join_url`'s and `absolute_url`'s fast path gives exactly what `urljoin` gives."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netsift.fetch.links import MAX_URL, absolute_url, join_url

BASES = [
    "https://example.test/a/b/c.html?x=1#frag",
    "http://user:pw@example.test:8080/",
    "https://example.test",
    "https://example.test/dir/",
    "http://[::1]:8000/x",
]
HREFS = [
    "/", "/p", "/p/q?r=1#s", "/./p", "/a/../b", "/a/..", "#top", "#", "", "//other.test/x",
    "rel/path", "../up", "?q=1", "/p\\\\q", "/p q", "/%7Euser", "/a/.hidden", "/a/..b",
]  # fmt: skip


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("href", HREFS)
def test_known_cases_match_urljoin(base: str, href: str) -> None:
    assert join_url(base, href) == urljoin(base, href)


@given(
    base=st.sampled_from(BASES),
    href=st.text(alphabet="/.#?ab%\\ :@", max_size=12).map(lambda s: "/" + s),
)
def test_root_relative_paths_match_urljoin(base: str, href: str) -> None:
    assert join_url(base, href) == urljoin(base, href)


def _resolved_by_urljoin(href: str, base: str | None) -> str | None:
    """`absolute_url` without its fast path: urljoin, then the http(s)-with-a-host check."""
    href = href.replace("\t", "").replace("\n", "").replace("\r", "").strip()
    if not href or len(href) > MAX_URL:
        return None
    try:
        joined = urljoin(base, href) if base else href
        parts = urlsplit(joined)
    except ValueError:
        return None
    return joined if parts.scheme.lower() in ("http", "https") and parts.hostname else None


_PIECES = st.sampled_from(
    ["http://", "https://", "HTTP://", "//", "/", "#", "?", ";", ".", "..", "@", "[::1]", ":",
     "8080", "é", "\\", "a", "b.test", "mailto:", " ", "%20", "x=1"]
)  # fmt: skip
_ANY_BASE = st.sampled_from([None, *BASES, "https://h.test/p?", "https://h.test/a;p", "ftp://f/"])


@given(href=st.lists(_PIECES, max_size=8).map("".join), base=_ANY_BASE)
def test_absolute_url_gives_what_urljoin_gives(href: str, base: str | None) -> None:
    assert absolute_url(href, base) == _resolved_by_urljoin(href, base)


@given(
    href=st.sampled_from(["http://", "https://", "//", "/", "#"]).flatmap(
        lambda start: st.lists(_PIECES, max_size=6).map(lambda rest: start + "".join(rest))
    ),
    base=_ANY_BASE,
)
def test_absolute_url_gives_what_urljoin_gives_on_the_fast_path_shapes(
    href: str, base: str | None
) -> None:
    assert absolute_url(href, base) == _resolved_by_urljoin(href, base)


@pytest.mark.parametrize("base", [None, *BASES, "https://h.test/p?", "https://h.test/a;p"])
@pytest.mark.parametrize(
    "href",
    ["http://b.test/p;", "https://b.test/p?", "https://b.test/p#", "http://b.test/p?#f",
     "http://u@b.test/", "http://[::1]/x", "http://:80/", "http://é.test/", "https://b.test",
     "//b.test/x;", "/p;", "/p?", "#f", "#", "HTTPS://B.test/x", "http://b.test/./x"],
)  # fmt: skip
def test_absolute_url_known_cases_match_urljoin(href: str, base: str | None) -> None:
    assert absolute_url(href, base) == _resolved_by_urljoin(href, base)
