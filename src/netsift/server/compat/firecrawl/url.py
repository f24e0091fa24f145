"""Firecrawl's URLs: its API reads a URL without a scheme (`docs.firecrawl.dev`) as http://,
and its clients and their users count on it. Only Firecrawl's doors do: netsift's own API
asks for an http(s) URL and says so rather than guess a scheme (an `http://` guess sends in
clear text what may have been meant for https). The URL made is then checked as any other:
parsed by the fetch, and the SSRF guard decides whether it may be read."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field

__all__ = ["FirecrawlUrl", "with_scheme"]

# Firecrawl's own test (apps/api/src/lib/validateUrl.ts, protocolIncluded): a `scheme://`
# before any dot; `docs.firecrawl.dev` and `localhost:3002` have none.
_SCHEME = re.compile(r"^[^.:]+://")


def with_scheme(url: object) -> object:
    """`url` with `http://` in front when it names no scheme, as Firecrawl reads it."""
    if isinstance(url, str) and url.strip() and not _SCHEME.match(url.strip()):
        return "http://" + url.strip()
    return url


FirecrawlUrl = Annotated[str, BeforeValidator(with_scheme), Field(min_length=1)]
