"""breaker.py: which failures suspend a provider, for how long, and recovery."""

from __future__ import annotations

import pytest

from netsift.errors import (
    HTTPError,
    NetsiftError,
    ProviderAuth,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
    Timeout,
)
from netsift.search.breaker import Breaker, BreakerPolicy


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def breaker(clock: FakeClock) -> Breaker:
    return Breaker(clock=clock)


@pytest.mark.parametrize(
    ("error", "seconds"),
    [
        (ProviderAuth("bad key"), 86_400.0),
        (RateLimited("slow down", retry_after=12.5), 12.5),
        (RateLimited("slow down"), 60.0),
        (RateLimited("anomaly page", details={"captcha": True}), 3_600.0),
        (ProviderUnavailable("challenge form", details={"captcha": True}), 3_600.0),
        (QuotaExceeded("plan used up"), 3_600.0),
        (QuotaExceeded("plan used up", details={"retry_after": 120}), 120.0),
    ],
)
def test_blocks_suspend_at_once(
    breaker: Breaker, clock: FakeClock, error: NetsiftError, seconds: float
) -> None:
    assert breaker.record_failure("brave", error) == seconds
    suspension = breaker.check("brave")
    assert suspension is not None
    assert suspension.error_code == error.code
    assert suspension.reason == error.message
    assert suspension.remaining == pytest.approx(seconds)
    clock.now += seconds - 0.001
    assert breaker.check("brave") is not None
    clock.now += 0.002
    assert breaker.check("brave") is None


def test_transient_failures_suspend_only_after_the_threshold_and_grow(
    breaker: Breaker, clock: FakeClock
) -> None:
    errors = [Timeout("slow"), HTTPError("503", status_code=503), ProviderUnavailable("junk")]
    assert breaker.record_failure("ddg", errors[0]) is None
    assert breaker.record_failure("ddg", errors[1]) is None
    assert breaker.check("ddg") is None
    assert breaker.record_failure("ddg", errors[2]) == 30.0
    assert breaker.check("ddg") is not None
    clock.now += 30.01
    assert breaker.check("ddg") is None  # half-open: one probe allowed
    assert breaker.record_failure("ddg", Timeout("still slow")) == 60.0  # grows at once


def test_growth_is_capped(clock: FakeClock) -> None:
    breaker = Breaker(clock=clock, policy=BreakerPolicy(failure_threshold=1, failure_max=45.0))
    suspensions = [breaker.record_failure("x", Timeout("t")) for _ in range(5)]
    assert suspensions == [30.0, 45.0, 45.0, 45.0, 45.0]


def test_success_clears_the_count(breaker: Breaker) -> None:
    breaker.record_failure("ddg", Timeout("t"))
    breaker.record_failure("ddg", Timeout("t"))
    breaker.record_success("ddg")
    assert breaker.record_failure("ddg", Timeout("t")) is None
    assert breaker.state("ddg")["failures"] == 1


def test_providers_are_independent(breaker: Breaker) -> None:
    breaker.record_failure("brave", ProviderAuth("bad key"))
    assert breaker.check("brave") is not None
    assert breaker.check("duckduckgo") is None


def test_state_reports_suspension_for_listings(breaker: Breaker, clock: FakeClock) -> None:
    assert breaker.state("brave") == {
        "suspended_until": None,
        "retry_after": None,
        "error_code": None,
        "reason": None,
        "failures": 0,
    }
    clock.now = 1_700_000_000.0
    breaker.record_failure("brave", RateLimited("429 from brave", retry_after=90))
    state = breaker.state("brave")
    assert state["suspended_until"] == "2023-11-14T22:14:50+00:00"
    assert state["retry_after"] == 90.0
    assert state["error_code"] == "rate_limited"
    assert state["reason"] == "429 from brave"
    assert state["failures"] == 1


def test_reset(breaker: Breaker) -> None:
    breaker.record_failure("a", ProviderAuth("x"))
    breaker.record_failure("b", ProviderAuth("x"))
    breaker.reset("a")
    assert breaker.check("a") is None
    assert breaker.check("b") is not None
    breaker.reset()
    assert breaker.check("b") is None
