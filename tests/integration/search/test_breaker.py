"""The breaker over real HTTP: blocks suspend a provider, for as long as the block says.

The service's wall clock is injected (`clock=`), so a day-long suspension passes in no time;
the simulators count requests, so "suspended" is proven by a request that never arrived.
"""

from __future__ import annotations

import pytest

from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import QUERY, FakeClock, ServiceFactory, codes


@pytest.mark.parametrize(
    ("name", "mode", "code", "seconds"),
    [
        ("brave", "auth", "provider_auth", 86_400),  # a bad key will not heal by itself
        ("duckduckgo", "anomaly", "rate_limited", 3_600),  # a CAPTCHA: an hour
        ("tavily", "rate_limit", "rate_limited", 60),  # a 429 with no Retry-After: a minute
    ],
)
async def test_a_block_suspends_the_provider_then_it_comes_back(
    name: str,
    mode: str,
    code: str,
    seconds: float,
    sims: ProviderSims,
    open_service: ServiceFactory,
    clock: FakeClock,
) -> None:
    backup = "github"
    service = open_service(providers=[name, backup])
    sims[name].set(mode)
    first = await service.search(QUERY, no_cache=True)
    assert codes(first) == [(name, code), (backup, None)]
    asked = sims[name].count

    clock.advance(seconds - 1)
    second = await service.search(QUERY, no_cache=True)
    assert codes(second) == [(name, code), (backup, None)]
    assert sims[name].count == asked  # skipped, not asked
    assert "suspended" in (second.attempts[0].message or "")
    assert second.attempts[0].retry_after == pytest.approx(1, abs=0.01)
    state = {row["name"]: row for row in service.provider_status()}[name]["breaker"]
    assert state["error_code"] == code and state["suspended_until"]

    sims[name].set("ok")
    clock.advance(2)
    third = await service.search(QUERY, no_cache=True)
    assert codes(third) == [(name, None)]
    assert sims[name].count == asked + 1
    assert service.breaker.state(name)["suspended_until"] is None


async def test_retry_after_sets_the_suspension(
    sims: ProviderSims, open_service: ServiceFactory, clock: FakeClock
) -> None:
    service = open_service(providers=["openalex", "brave"])
    sims["openalex"].set("rate_limit", retry_after=7, times=1)
    first = await service.search(QUERY, no_cache=True)
    assert codes(first) == [("openalex", "rate_limited"), ("brave", None)]
    assert first.attempts[0].retry_after == 7.0

    clock.advance(6)
    second = await service.search(QUERY, no_cache=True)
    assert second.attempts[0].error_code == "rate_limited"
    assert sims["openalex"].count == 1

    clock.advance(1.5)
    third = await service.search(QUERY, no_cache=True)
    assert codes(third) == [("openalex", None)]
    assert sims["openalex"].count == 2


async def test_a_captcha_outlasts_a_rate_limit(
    sims: ProviderSims, open_service: ServiceFactory, clock: FakeClock
) -> None:
    service = open_service(providers=["duckduckgo", "tavily", "brave"])
    sims["duckduckgo"].set("anomaly")
    sims["tavily"].set("rate_limit")
    await service.search(QUERY, no_cache=True)
    clock.advance(61)
    later = await service.search(QUERY, no_cache=True)
    assert codes(later) == [
        ("duckduckgo", "rate_limited"),
        ("tavily", "rate_limited"),
        ("brave", None),
    ]
    assert sims["duckduckgo"].count == 2  # html + lite, once: still suspended
    assert sims["tavily"].count == 2  # back after its minute, and still limited


async def test_server_errors_suspend_only_after_several_in_a_row(
    sims: ProviderSims, open_service: ServiceFactory
) -> None:
    service = open_service(providers=["brave", "tavily"])
    sims["brave"].set("server_error")
    for _ in range(3):
        await service.search(QUERY, no_cache=True)
    assert sims["brave"].count == 3
    fourth = await service.search(QUERY, no_cache=True)
    assert sims["brave"].count == 3
    assert "suspended" in (fourth.attempts[0].message or "")
