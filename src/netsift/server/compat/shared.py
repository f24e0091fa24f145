"""What the compatible APIs share: a numeric score, time ranges, domain filters, reading results.

Each compatible API is a translation to the same `Operations` the native routes use, so quotas,
metrics, the SSRF guard and errors are netsift's own; these helpers only reshape.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from ...at_once import each
from ...crawl.scope import Scope
from ...errors import InvalidInput, NetsiftError
from ...models import TIME_RANGE_WORDS, ContentFormat, Page, TimeRange
from ..operations import Operations
from ..responses import FetchRequest, retry_after_of

__all__ = [
    "ROUTED_FROM",
    "build",
    "crawl_include",
    "error_reply",
    "in_domains",
    "parse_body",
    "rank_score",
    "read_pages",
    "time_range_of",
]

# The scope key routing.py sets when it moved a request to its API's prefix: the path the
# client sent. An API that hands out URLs (Firecrawl's crawl) points them where the client is.
ROUTED_FROM = "netsift.compat.routed_from"
# Clients sort by `score` (Open WebUI) or threshold it (LangChain retrievers), and a null breaks
# them. netsift's order is its ranking, so the score is the rank's: 1.0 first, decaying by this
# step per place (10th ≈ 0.53) — monotonic, always in (0, 1], the range Tavily's scores use.
RANK_DECAY = 0.1

_TIME_RANGES: dict[str, TimeRange] = {
    **TIME_RANGE_WORDS,
    "qdr:d": "d",  # Google's `tbs`, as Firecrawl passes it
    "qdr:w": "w",
    "qdr:m": "m",
    "qdr:y": "y",
}
ModelT = TypeVar("ModelT", bound=BaseModel)

# Tavily's `days` (news): the smallest range that covers them.
_DAY_SPANS: tuple[tuple[int, TimeRange], ...] = ((1, "d"), (7, "w"), (31, "m"), (366, "y"))


def rank_score(rank: int) -> float:
    """The relevance score every compatible API shows: numeric, from netsift's rank."""
    return round(1.0 / (1.0 + RANK_DECAY * (max(rank, 1) - 1)), 4)


def time_range_of(value: str | None, *, days: int | None = None) -> TimeRange | None:
    """netsift's time range for another API's spelling (`week`, `w`, `qdr:w`) or a day count;
    anything unrecognised (an empty string, as Open WebUI sends) means no limit."""
    if value:
        found = _TIME_RANGES.get(value.strip().lower())
        if found is not None:
            return found
    if days is not None and days > 0:
        return next((code for span, code in _DAY_SPANS if days <= span), None)
    return None


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def _covers(domain: str, host: str) -> bool:
    domain = domain.strip().lower().rstrip(".")
    if "://" in domain:
        domain = _host(domain)
    return bool(domain) and (host == domain or host.endswith("." + domain))


def in_domains(url: str, *, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> bool:
    """Whether a result's host passes `include_domains`/`exclude_domains` (subdomains count)."""
    host = _host(url)
    if any(_covers(domain, host) for domain in exclude):
        return False
    return not include or any(_covers(domain, host) for domain in include)


async def read_pages(
    ops: Operations,
    urls: Iterable[str],
    *,
    format: ContentFormat = "markdown",
    timeout: float | None = None,
    no_cache: bool = False,
) -> list[Page | NetsiftError]:
    """Fetch each URL through the one fetch operation (guard, robots, quota, metrics), a few
    at once (at_once.py); each slot holds the Page or the error that URL met, in order."""

    async def read(url: str) -> Page | NetsiftError:
        try:
            request = build(FetchRequest, url=url, format=format)
            return await ops.fetch(request, timeout=timeout, no_cache=no_cache)
        except NetsiftError as error:
            return error

    return await each(list(urls), read)


def crawl_include(url: str, include: list[str]) -> list[str]:
    """A crawl's include patterns when another API's start URL need not match them (Tavily's
    `select_paths`, Firecrawl's `includePaths` choose the pages beyond it): netsift's crawl
    starts only from a URL in its scope, so the start path itself is let in, exactly."""
    if not include or Scope.of(url, include=include).allows(url):
        return include
    return [*include, "^" + re.escape(urlsplit(url).path or "/") + "$"]


def parse_body(model: type[ModelT], body: bytes) -> ModelT:
    """A compatible API's request body: JSON, validated leniently (unknown fields ignored, as
    those APIs' clients send extras); anything else is `invalid_input` naming the field."""
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as exc:
        if any(err["type"] == "json_invalid" for err in exc.errors()):
            raise InvalidInput("the request body is not valid JSON") from None
        raise InvalidInput.from_validation(exc, subject="body") from None


def build(model: type[ModelT], **fields: Any) -> ModelT:
    """netsift's own request model from translated fields; a value it refuses is the caller's
    `invalid_input` (a region too long, a query too long), never a 500."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise InvalidInput.from_validation(exc) from None


def error_reply(body: dict[str, Any], error: NetsiftError, *, status: int) -> JSONResponse:
    """A compatible API's error body with netsift's own headers: `Retry-After` when the error
    knows when to retry, and the Bearer challenge on a 401."""
    headers = {}
    if (wait := retry_after_of(error)) is not None:
        headers["Retry-After"] = str(wait)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(body, status_code=status, headers=headers)
