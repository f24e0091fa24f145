"""GitHub: repository search over the REST API.

Official API: https://docs.github.com/en/rest/search/search#search-repositories and
https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api. Contract and
recorded payloads: shared/providers/README.md#github, shared/providers/github.json.

- `GET /search/repositories?q=&per_page=&page=` with `Accept: application/vnd.github+json` and
  `X-GitHub-Api-Version: 2022-11-28`; a token (`GITHUB_TOKEN`) is optional and sent as
  `Authorization: Bearer`. Search allows 10 requests a minute without a token, 30 with one;
  only the first 1,000 results are reachable and `q` is at most 256 characters.
- Primary limit: 403 or 429 with `x-ratelimit-remaining: 0`, wait until `x-ratelimit-reset`
  (epoch seconds, measured against the response's `Date`). Secondary limit: 403/429 with
  `retry-after`. Otherwise 401 "Bad credentials" and 403 are auth, 422 a refused query.
- Results carry stars, language, topics and forks in `extra`; the snippet is the description
  and the date the last push.
"""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from ...errors import InvalidInput, ProviderUnavailable, RateLimited
from ...models import Query, SearchResult
from ..provider import About, Provider
from .dates import iso_date
from .status import raise_for_status, read_json, retry_after_from
from .text import plain_text

__all__ = ["GitHub"]

MAX_QUERY = 256
MAX_REACHABLE = 1000
SECONDARY_WAIT = 60.0


class GitHub(Provider):
    name = "github"
    about = About(
        website="https://github.com",
        docs="https://docs.github.com/en/rest/search/search#search-repositories",
        base_url="https://api.github.com",
        requires_key=False,
        key_env=("GITHUB_TOKEN",),
        results="JSON",
        kind="code",
        rate_limit="10/minute",  # anonymous search; 30/minute with a token
        max_count=100,
    )

    def build_request(self, query: Query) -> httpx.Request:
        if len(query.text) > MAX_QUERY:
            raise InvalidInput(f"github searches at most {MAX_QUERY} characters")
        per_page = min(query.count, self.about.max_count)
        if query.page * per_page > MAX_REACHABLE:
            raise InvalidInput(f"github serves only the first {MAX_REACHABLE} search results")
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": self.settings.user_agent,
        }
        if token := self.settings.key():
            headers["Authorization"] = f"Bearer {token}"
        params = {"q": query.text, "per_page": str(per_page), "page": str(query.page)}
        return httpx.Request(
            "GET", f"{self.base_url}/search/repositories", params=params, headers=headers
        )

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status != 200:
            detail = _error_text(response)
            if status in (403, 429) and (wait := _limit_wait(response)) is not None:
                raise RateLimited(
                    f"github's search rate limit is reached: {detail}",
                    retry_after=wait,
                    details={"status": status},
                )
            raise_for_status(response, self.name, detail=detail)
        data = read_json(response, self.name)
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise ProviderUnavailable("github sent JSON without an items list")
        return [
            _result(repo)
            for repo in data["items"]
            if isinstance(repo, dict) and repo.get("html_url")
        ]


def _result(repo: dict[str, Any]) -> SearchResult:
    extra: dict[str, Any] = {
        "stars": repo.get("stargazers_count"),
        "forks": repo.get("forks_count"),
        "language": repo.get("language"),
        "topics": repo.get("topics") or None,
        "license": (repo.get("license") or {}).get("spdx_id"),
        "archived": repo.get("archived"),
        "homepage": repo.get("homepage") or None,
        "updated_at": repo.get("updated_at"),
    }
    return SearchResult(
        title=str(repo.get("full_name") or repo["html_url"]),
        url=repo["html_url"],
        snippet=plain_text(repo.get("description")),
        source="github",
        published=iso_date(repo.get("pushed_at") or repo.get("updated_at")),
        thumbnail=(repo.get("owner") or {}).get("avatar_url"),
        extra={key: value for key, value in extra.items() if value is not None},
    )


def _limit_wait(response: httpx.Response) -> float | None:
    """Seconds until GitHub accepts searches again, or None when this is not a rate limit."""
    if (after := retry_after_from(response)) is not None:
        return after
    if response.headers.get("x-ratelimit-remaining") != "0":
        text = response.text.lower()
        return SECONDARY_WAIT if "secondary rate limit" in text else None
    try:
        reset = float(response.headers["x-ratelimit-reset"])
    except (KeyError, ValueError):
        return SECONDARY_WAIT
    return max(0.0, reset - _now(response))


def _now(response: httpx.Response) -> float:
    """The server's clock from `Date` (so the wait is right whatever ours says), else ours."""
    try:
        return parsedate_to_datetime(response.headers["date"]).timestamp()
    except (KeyError, TypeError, ValueError, IndexError):
        return time.time()


def _error_text(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return str(data["message"]) if isinstance(data, dict) and data.get("message") else None
