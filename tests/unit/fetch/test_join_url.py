"""`join_url`'s fast path gives exactly what `urljoin` gives."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest
from hypothesis import given
from hypothesis import strategies as st

from netsift.fetch.links import join_url

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
