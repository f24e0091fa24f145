"""Firecrawl's rule for a URL without a scheme (its validateUrl.ts `protocolIncluded`): a
`scheme://` before the first dot is a scheme; anything else is read as http://."""

from __future__ import annotations

import pytest

from netsift.server.compat.firecrawl.url import with_scheme


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ("docs.firecrawl.dev", "http://docs.firecrawl.dev"),
        ("docs.firecrawl.dev/blog?x=1", "http://docs.firecrawl.dev/blog?x=1"),
        ("localhost:3002/admin", "http://localhost:3002/admin"),
        (" example.com ", "http://example.com"),
        ("https://example.com", "https://example.com"),
        ("HTTP://example.com", "HTTP://example.com"),
        ("ftp://example.com/file", "ftp://example.com/file"),  # kept: the fetch refuses it
        ("example.com/redirect?to=https://x.test", "http://example.com/redirect?to=https://x.test"),
        ("", ""),
        (42, 42),  # not a string: the model's own validation says so
    ],
)
def test_a_url_without_a_scheme_is_read_as_http(given: object, read: object) -> None:
    assert with_scheme(given) == read
