"""service.py (+ failover.py, validate.py, batch.py) over the real HttpClient and a scripted web.

The web is `httpx.MockTransport` given to HttpClient through its `transport=` seam; the
providers are tiny in-test subclasses of Provider. Behaviour against the real provider
formats and simulators is in tests/integration/search/.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from netsift.config import Settings
from netsift.errors import AllProvidersFailed, BudgetExhausted, InvalidInput
from netsift.models import SearchResponse
from netsift.net.http import HttpClient
from netsift.search.batch import BatchItem
from netsift.search.provider import Provider
from netsift.search.service import SearchService

from .fakeweb import FakeClock, FakeWeb, fake

Build = Callable[..., SearchService]


@pytest.fixture
def web() -> FakeWeb:
    return FakeWeb()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def build(web: FakeWeb, clock: FakeClock) -> AsyncIterator[Build]:
    opened: list[tuple[SearchService, HttpClient]] = []

    def factory(*providers: Provider, **overrides: Any) -> SearchService:
        overrides.setdefault("cache_url", "memory://")
        overrides.setdefault("providers", [p.name for p in providers])
        settings = Settings(**overrides)
        http = HttpClient(settings, transport=web.transport())
        service = SearchService(
            settings, http, providers={p.name: p for p in providers}, clock=clock
        )
        opened.append((service, http))
        return service

    yield factory
    for service, http in opened:
        await service.aclose()
        await http.aclose()


def codes(response: SearchResponse) -> list[str | None]:
    return [attempt.error_code for attempt in response.attempts]


# -- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": ""}, "query is empty"),
        ({"query": " \t\n "}, "query is empty"),
        ({"query": "x" * 401}, "at most 400"),
        ({"query": "rust", "count": 0}, "from 1 to 50"),
        ({"query": "rust", "count": 51}, "from 1 to 50"),
        ({"query": "rust", "count": True}, "from 1 to 50"),
        ({"query": "rust", "time_range": "decade"}, "d, w, m, y"),
        ({"query": "rust", "safesearch": "maybe"}, "off, moderate or strict"),
        ({"query": "rust", "providers": ["bing", "nope"]}, "unknown providers bing, nope"),
        ({"query": "rust", "providers": []}, "providers is empty"),
    ],
)
async def test_bad_input_is_refused_before_any_request(
    build: Build, web: FakeWeb, kwargs: dict[str, Any], message: str
) -> None:
    service = build(fake("alpha"), fake("beta"))
    with pytest.raises(InvalidInput, match=message) as caught:
        await service.search(**kwargs)
    assert web.calls == []
    if "providers" in kwargs:
        assert "known: alpha, beta" in caught.value.message, caught.value.message


async def test_400_characters_and_50_results_are_allowed(build: Build) -> None:
    service = build(fake("alpha"))
    response = await service.search("rust " + "x" * 395, count=50)
    assert response.provider == "alpha"


async def test_provider_names_are_case_insensitive_and_deduplicated(
    build: Build, web: FakeWeb
) -> None:
    web.modes["beta"] = "server_error"
    service = build(fake("alpha"), fake("beta"))
    response = await service.search("rust", providers=["BETA", "beta", "Alpha"])
    assert [a.provider for a in response.attempts] == ["beta", "alpha"]


# -- failover ---------------------------------------------------------------------------------


async def test_failover_walks_the_priority_order(build: Build, web: FakeWeb) -> None:
    web.modes.update(alpha="auth", beta="server_error")
    service = build(fake("alpha"), fake("beta"), fake("gamma"), fake("delta"))
    response = await service.search("rust async", count=3)
    assert response.provider == "gamma"
    assert codes(response) == ["provider_auth", "provider_unavailable", None]
    assert [a.ok for a in response.attempts] == [False, False, True]
    assert response.attempts[2].result_count == 3 == response.result_count
    assert [r.rank for r in response.results] == [1, 2, 3]
    assert all(r.source == "gamma" and r.engines == ["gamma"] for r in response.results)
    assert web.requests_to("delta") == 0
    assert all(a.latency_ms >= 0 for a in response.attempts)


async def test_unconfigured_provider_is_skipped_with_the_variable_to_set(
    build: Build, web: FakeWeb
) -> None:
    service = build(fake("brave", requires_key=True), fake("alpha"))
    response = await service.search("rust")
    first = response.attempts[0]
    assert (first.provider, first.ok, first.error_code) == ("brave", False, "provider_auth")
    assert "BRAVE_API_KEY" in (first.message or "")
    assert web.requests_to("brave") == 0


async def test_empty_page_moves_on_and_is_reported_ok(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "empty"
    service = build(fake("alpha"), fake("beta"))
    response = await service.search("rust")
    assert response.provider == "beta"
    assert response.attempts[0].ok is True
    assert response.attempts[0].result_count == 0


async def test_all_empty_is_an_honest_empty_response(build: Build, web: FakeWeb) -> None:
    web.modes.update(alpha="empty", beta="empty")
    service = build(fake("alpha"), fake("beta"))
    response = await service.search("zxqv nothing matches")
    assert response.results == []
    assert response.provider is None
    assert [(a.ok, a.result_count) for a in response.attempts] == [(True, 0), (True, 0)]


async def test_empty_beside_failures_is_still_empty_not_failed(build: Build, web: FakeWeb) -> None:
    web.modes.update(alpha="server_error", beta="empty")
    response = await build(fake("alpha"), fake("beta")).search("zxqv")
    assert response.results == []
    assert codes(response) == ["provider_unavailable", None]


async def test_off_topic_page_is_a_failed_attempt(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "decoy"
    service = build(fake("alpha"), fake("beta"))
    response = await service.search("rust async runtimes")
    assert response.provider == "beta"
    assert codes(response)[0] == "provider_unavailable"
    assert "off-topic results" in (response.attempts[0].message or "")


async def test_parser_crash_fails_over(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "crash"
    response = await build(fake("alpha"), fake("beta")).search("rust")
    assert response.provider == "beta"
    assert "could not read" in (response.attempts[0].message or "")


async def test_fallback_endpoint_is_tried_once(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "server_error"
    response = await build(fake("alpha", fallback=True), fake("beta")).search("rust")
    assert response.provider == "alpha"
    assert web.calls == ["alpha:/search", "alpha:/lite"]


async def test_failed_fallback_reports_both_endpoints(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "server_error"
    web.lite_modes["alpha"] = "decoy"
    response = await build(fake("alpha", fallback=True), fake("beta")).search("rust async")
    message = response.attempts[0].message or ""
    assert "off-topic" in message
    assert "HTTP 500" in message
    assert response.provider == "beta"


async def test_all_failed_carries_every_attempt(build: Build, web: FakeWeb) -> None:
    web.modes.update(alpha="rate_limit", beta="timeout")
    service = build(fake("alpha"), fake("beta"), fake("gamma", requires_key=True))
    with pytest.raises(AllProvidersFailed) as caught:
        await service.search("rust")
    error = caught.value
    attempts = error.details["attempts"]
    assert [a["provider"] for a in attempts] == ["alpha", "beta", "gamma"]
    assert [a["error_code"] for a in attempts] == ["rate_limited", "timeout", "provider_auth"]
    assert attempts[0]["retry_after"] == 30.0
    assert error.details["retry_after"] == 30.0
    for name in ("alpha: rate_limited", "beta: timeout", "gamma: provider_auth"):
        assert name in error.message
    json.dumps(error.to_dict())  # the error object crosses every door as JSON


async def test_search_deadline_turns_into_timeout_attempts(build: Build, web: FakeWeb) -> None:
    web.latency.update(alpha=0.5, beta=0.5)
    service = build(fake("alpha"), fake("beta"), timeout=0.2)
    started = time.monotonic()
    with pytest.raises(AllProvidersFailed) as caught:
        await service.search("rust")
    assert time.monotonic() - started < 0.45
    assert [a["error_code"] for a in caught.value.details["attempts"]] == ["timeout", "timeout"]


async def test_a_hanging_provider_leaves_the_next_one_its_share_of_the_deadline(
    build: Build, web: FakeWeb
) -> None:
    web.latency["alpha"] = 5.0
    service = build(fake("alpha"), fake("beta"), timeout=0.4)
    started = time.monotonic()
    found = await service.search("rust")
    assert time.monotonic() - started < 0.45
    assert codes(found) == ["timeout", None]
    assert found.provider == "beta"
    assert 150 <= found.attempts[0].latency_ms <= 300  # half of the deadline, not all of it


# -- breaker ----------------------------------------------------------------------------------


async def test_rate_limited_provider_is_suspended_then_recovers(
    build: Build, web: FakeWeb, clock: FakeClock
) -> None:
    web.modes["alpha"] = "rate_limit"
    service = build(fake("alpha"), fake("beta"))
    first = await service.search("rust", no_cache=True)
    assert codes(first) == ["rate_limited", None]
    second = await service.search("rust", no_cache=True)
    assert web.requests_to("alpha") == 1  # suspended: not asked again
    skipped = second.attempts[0]
    assert (skipped.error_code, skipped.retry_after) == ("rate_limited", 30.0)
    assert "suspended for 30s" in (skipped.message or "")
    state = service.provider_status()[0]["breaker"]
    assert state["error_code"] == "rate_limited" and state["failures"] == 1

    web.modes["alpha"] = "ok"
    clock.now += 31
    third = await service.search("rust", no_cache=True)
    assert third.provider == "alpha"
    assert service.breaker.state("alpha")["failures"] == 0


async def test_anomaly_page_suspends_for_an_hour(
    build: Build, web: FakeWeb, clock: FakeClock
) -> None:
    web.modes["alpha"] = "anomaly"
    service = build(fake("alpha"), fake("beta"))
    await service.search("rust", no_cache=True)
    clock.now += 3_599
    assert service.breaker.check("alpha") is not None
    clock.now += 2
    assert service.breaker.check("alpha") is None


async def test_auth_failure_suspends_for_a_day(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "auth"
    service = build(fake("alpha"), fake("beta"))
    await service.search("rust", no_cache=True)
    assert service.breaker.state("alpha")["retry_after"] == 86_400.0


async def test_repeated_server_errors_suspend_after_three(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "server_error"
    service = build(fake("alpha"), fake("beta"))
    for _ in range(4):
        await service.search("rust", no_cache=True)
    assert web.requests_to("alpha") == 3


# -- rate limits ------------------------------------------------------------------------------


async def test_over_the_limit_fails_over_without_a_request(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha", rate_limit="1/minute"), fake("beta"))
    assert (await service.search("rust", no_cache=True)).provider == "alpha"
    started = time.monotonic()
    second = await service.search("rust", no_cache=True)
    assert time.monotonic() - started < 0.5
    assert second.provider == "beta"
    assert second.attempts[0].error_code == "rate_limited"
    assert 55 < (second.attempts[0].retry_after or 0) <= 60
    assert web.requests_to("alpha") == 1
    assert service.breaker.state("alpha")["failures"] == 0  # our limit is not its failure


async def test_a_short_wait_is_waited_instead(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha", rate_limit="1/second"), fake("beta"))
    await service.search("rust", no_cache=True)
    started = time.monotonic()
    second = await service.search("rust", no_cache=True)
    assert 0.3 < time.monotonic() - started < 1.5
    assert second.provider == "alpha"
    assert web.requests_to("beta") == 0


# -- cache ------------------------------------------------------------------------------------


async def test_second_search_is_a_cache_hit(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha"))
    first = await service.search("Rust  Async")
    second = await service.search("rust async")
    assert (first.cached, second.cached) == (False, True)
    assert second.results == first.results
    assert second.attempts == first.attempts  # how the answer was found, still reported
    assert len(web.calls) == 1
    stats = await service.cache_stats()
    assert (stats["hits"], stats["misses"], stats["entries"]) == (1, 1, 1)


async def test_options_and_providers_are_part_of_the_key(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha"), fake("beta"))
    await service.search("rust")
    await service.search("rust", count=3)
    await service.search("rust", providers=["beta"])
    await service.search("rust", time_range="w")
    assert len(web.calls) == 4


async def test_no_cache_skips_reading_but_still_writes(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha"))
    await service.search("rust")
    web.version = 2
    fresh = await service.search("rust", no_cache=True)
    assert not fresh.cached and "(v2)" in fresh.results[0].snippet
    again = await service.search("rust")
    assert again.cached and "(v2)" in again.results[0].snippet


async def test_failures_are_not_cached(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "server_error"
    service = build(fake("alpha"))
    with pytest.raises(AllProvidersFailed):
        await service.search("rust")
    web.modes["alpha"] = "ok"
    service.breaker.reset()
    assert not (await service.search("rust")).cached


async def test_cache_expires_with_the_clock(build: Build, web: FakeWeb, clock: FakeClock) -> None:
    service = build(fake("alpha"), cache_ttl=60)
    await service.search("rust")
    clock.now += 61
    assert not (await service.search("rust")).cached
    assert len(web.calls) == 2


# -- merge ------------------------------------------------------------------------------------


async def test_merge_asks_all_at_once_and_fuses(build: Build, web: FakeWeb) -> None:
    web.latency.update(alpha=0.3, beta=0.3)
    web.modes["gamma"] = "server_error"
    service = build(fake("alpha"), fake("beta"), fake("gamma"), fake("delta", requires_key=True))
    started = time.monotonic()
    response = await service.search("rust async", merge=True, count=4)
    assert time.monotonic() - started < 0.55
    assert response.provider == "alpha,beta"
    assert codes(response) == [None, None, "provider_unavailable", "provider_auth"]
    assert len(response.results) == 4
    assert [r.rank for r in response.results] == [1, 2, 3, 4]
    assert all(r.engines == ["alpha", "beta"] for r in response.results)
    scores = [r.score or 0 for r in response.results]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0


async def test_merge_with_nobody_answering_fails(build: Build, web: FakeWeb) -> None:
    web.modes.update(alpha="auth", beta="anomaly")
    with pytest.raises(AllProvidersFailed):
        await build(fake("alpha"), fake("beta")).search("rust", merge=True)


# -- batch ------------------------------------------------------------------------------------


async def test_batch_runs_concurrently_in_input_order(build: Build, web: FakeWeb) -> None:
    web.default_latency = 0.2
    service = build(fake("alpha"))
    queries = [f"topic number {i}" for i in range(10)]
    started = time.monotonic()
    items = await service.batch_search(queries)
    assert time.monotonic() - started < 0.6  # ten searches, about one latency
    assert [item.query for item in items] == queries
    assert all(item.ok for item in items)
    assert [item.raise_for_error().query for item in items] == queries


async def test_batch_reports_errors_inline(build: Build, web: FakeWeb) -> None:
    web.modes["alpha"] = "decoy"
    service = build(fake("alpha"))
    items = await service.batch_search(["", "rust async", "AI"])
    assert items[0].error is not None and items[0].error["code"] == "invalid_input"
    assert items[1].error is not None and items[1].error["code"] == "all_providers_failed"
    assert items[2].ok  # too short to judge as off-topic
    with pytest.raises(AllProvidersFailed):
        items[1].raise_for_error()
    roundtrip = [BatchItem.model_validate_json(item.model_dump_json()) for item in items]
    assert roundtrip == items


async def test_batch_over_the_request_cap_is_refused_whole(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha"), max_searches_per_request=3)
    with pytest.raises(BudgetExhausted, match="at most 3"):
        await service.batch_search(["a", "b", "c", "d"])
    assert web.calls == []
    assert service.searches == 0


async def test_session_cap_counts_every_search(build: Build, web: FakeWeb) -> None:
    service = build(fake("alpha"), max_searches_per_session=4)
    await service.search("rust")
    await service.batch_search(["go", "zig"])
    with pytest.raises(BudgetExhausted) as caught:
        await service.batch_search(["ada", "nim"])
    assert caught.value.details == {"limit": 4, "used": 3, "requested": 2}
    await service.search("rust")  # the last one fits (and is a cache hit)
    with pytest.raises(BudgetExhausted):
        await service.search("rust")


def test_batch_item_holds_one_of_response_or_error() -> None:
    with pytest.raises(ValueError, match="not both or neither"):
        BatchItem(query="x")


# -- status -----------------------------------------------------------------------------------


async def test_provider_status_rows(build: Build) -> None:
    extra = fake("zeta", requires_key=True, kind="scholarly")
    service = build(
        fake("beta"), fake("alpha", rate_limit="2/second"), extra, providers=["beta", "alpha"]
    )
    rows = service.provider_status()
    assert [row["name"] for row in rows] == ["beta", "alpha", "zeta"]
    assert [row["priority"] for row in rows] == [1, 2, None]
    assert [row["enabled"] for row in rows] == [True, True, False]
    assert rows[1]["rate_limit"] == "2/second"
    assert rows[2]["configured"] is False and rows[2]["needs"] == "ZETA_API_KEY"
    assert rows[2]["kind"] == "scholarly"
    assert rows[0]["breaker"]["suspended_until"] is None
    json.dumps(rows)
