"""The simulators refuse what the real APIs refuse, so a provider cannot pass by sending junk.

Raw HTTP to the simulators' server with the Host header naming the provider (no netsift code
involved); the statuses and bodies are those recorded in tests/offline_web/providers/data/.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.offline_web.providers.fixtures import ProviderSims

UA = {"User-Agent": "netsift-test/1 (ops@example.org)"}


def ask(
    sims: ProviderSims,
    host: str,
    path: str,
    *,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    **kwargs: Any,
) -> httpx.Response:
    url = f"http://127.0.0.1:{sims.port}{path}"
    with httpx.Client(timeout=5) as client:
        return client.request(
            method, url, headers={"Host": host, **UA, **(headers or {})}, **kwargs
        )


@pytest.mark.parametrize(
    ("host", "path", "kwargs", "status", "marker"),
    [
        ("brave.test", "/res/v1/web/search", {"params": {"q": "x"}}, 422, "VALIDATION"),
        (
            "brave.test",
            "/res/v1/web/search",
            {"params": {"q": "x"}, "headers": {"X-Subscription-Token": "nope"}},
            422,
            "SUBSCRIPTION_TOKEN_INVALID",
        ),
        ("tavily.test", "/search", {"method": "POST", "json": {"query": "x"}}, 401, "Unauthorized"),
        ("serpapi.test", "/search.json", {"params": {"q": "x"}}, 401, "Invalid API key"),
        ("google.test", "/customsearch/v1", {"params": {"q": "x"}}, 403, "PERMISSION_DENIED"),
        (
            "google.test",
            "/customsearch/v1",
            {"params": {"q": "x", "key": "wrong", "cx": "y"}},
            400,
            "API_KEY_INVALID",
        ),
        (
            "github.test",
            "/search/repositories",
            {"params": {"q": "x"}, "headers": {"Authorization": "Bearer ghp_revoked"}},
            401,
            "Bad credentials",
        ),
        ("github.test", "/search/repositories", {"params": {"q": ""}}, 422, "Validation Failed"),
        (
            "openalex.test",
            "/works",
            {"params": {"search": "x", "per-page": "500"}},
            400,
            "per-page",
        ),
        ("crossref.test", "/works", {"params": {"query": "x", "rows": "abc"}}, 400, "validation"),
        ("arxiv.test", "/api/query", {"params": {"max_results": "-1"}}, 400, "<title>Error"),
        ("searxng.test", "/search", {"params": {"format": "json"}}, 400, "No query"),
        (
            "en.wikipedia.test",
            "/w/api.php",
            {"params": {"action": "query", "list": "search"}, "headers": {"User-Agent": "curl/8"}},
            403,
            "user-agent",
        ),
        (
            "duckduckgo.test",
            "/html/",
            {"method": "POST", "data": {"q": "x", "s": "10"}},
            202,
            "anomaly-modal",
        ),
    ],
)
def test_simulators_refuse_bad_requests_like_the_real_api(
    sims: ProviderSims,
    host: str,
    path: str,
    kwargs: dict[str, Any],
    status: int,
    marker: str,
) -> None:
    response = ask(sims, host, path, **kwargs)
    assert response.status_code == status
    assert marker in response.text


def test_wikipedia_api_errors_are_200_with_an_error_object(sims: ProviderSims) -> None:
    response = ask(
        sims, "en.wikipedia.test", "/w/api.php", params={"action": "query", "list": "search"}
    )
    assert response.status_code == 200
    assert response.headers["MediaWiki-API-Error"] == "missingparam"
    assert response.json()["error"]["code"] == "missingparam"


def test_searxng_limiter_refuses_bot_like_clients(sims: ProviderSims) -> None:
    sims["searxng"].set("limiter")
    params = {"q": "rust", "format": "json"}
    bot = ask(sims, "searxng.test", "/search", params=params, headers={"User-Agent": "curl/8"})
    assert (bot.status_code, bot.text) == (429, "Too Many Requests")
    browser = {
        "Accept": "text/html,application/json;q=0.9",
        "Accept-Encoding": "gzip",
        "Accept-Language": "en-US",
    }
    ok = ask(sims, "searxng.test", "/search", params=params, headers=browser)
    assert ok.status_code == 200 and ok.json()["results"]


def test_knobs_count_requests_and_expire_after_times(sims: ProviderSims) -> None:
    sims["crossref"].set("server_error", times=2)
    statuses = [ask(sims, "crossref.test", "/works", params={"query": "rust"}).status_code]
    statuses += [ask(sims, "crossref.test", "/works", params={"query": "rust"}).status_code]
    statuses += [ask(sims, "crossref.test", "/works", params={"query": "rust"}).status_code]
    assert statuses == [500, 500, 200]
    assert sims["crossref"].count == 3
    with pytest.raises(ValueError, match="no mode 'anomaly'"):
        sims["crossref"].set("anomaly")
