"""ratelimit.py: moving windows per provider and global; wait briefly or fail fast."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from netsift.config import Settings
from netsift.errors import InvalidInput, RateLimited
from netsift.search.ratelimit import RateLimiter


async def test_under_the_limit_there_is_no_wait() -> None:
    limiter = RateLimiter(global_limit=None)
    for _ in range(5):
        assert await limiter.acquire("brave", "5/second") < 0.05


async def test_a_short_wait_is_waited() -> None:
    limiter = RateLimiter(global_limit=None, max_wait=1.5)
    await limiter.acquire("brave", "1/second")
    started = time.monotonic()
    waited = await limiter.acquire("brave", "1/second")
    elapsed = time.monotonic() - started
    assert 0.5 < waited <= 1.5
    assert elapsed == pytest.approx(waited, abs=0.05)


async def test_a_long_wait_fails_fast_with_retry_after() -> None:
    limiter = RateLimiter(global_limit=None)
    await limiter.acquire("arxiv", "1/10 seconds")
    started = time.monotonic()
    with pytest.raises(RateLimited) as caught:
        await limiter.acquire("arxiv", "1/10 seconds")
    assert time.monotonic() - started < 0.1
    assert caught.value.retry_after is not None
    assert 9.0 < caught.value.retry_after <= 10.0
    assert caught.value.details["local"] is True
    assert "arxiv" in caught.value.message
    assert "(1/10 seconds)" in caught.value.message


async def test_the_request_budget_bounds_the_wait() -> None:
    limiter = RateLimiter(global_limit=None, max_wait=1.5)
    await limiter.acquire("brave", "1/second")
    with pytest.raises(RateLimited):
        await limiter.acquire("brave", "1/second", max_wait=0.2)


async def test_providers_have_separate_windows() -> None:
    limiter = RateLimiter(global_limit=None)
    await limiter.acquire("arxiv", "1/minute")
    assert await limiter.acquire("crossref", "1/minute") < 0.05


async def test_the_global_limit_covers_all_providers() -> None:
    limiter = RateLimiter(global_limit="2/minute")
    await limiter.acquire("a", "10/second")
    await limiter.acquire("b", "10/second")
    with pytest.raises(RateLimited) as caught:
        await limiter.acquire("c", "10/second")
    assert "all providers together" in caught.value.message


async def test_overrides_replace_the_published_limit() -> None:
    limiter = RateLimiter(global_limit=None, overrides={"arxiv": "100/second"})
    assert limiter.limit_for("arxiv", "1/3 seconds") == "100/second"
    assert limiter.limit_for("brave", "1/second") == "1/second"
    for _ in range(10):
        await limiter.acquire("arxiv", "1/3 seconds")


async def test_from_settings_reads_the_global_limit_and_overrides() -> None:
    settings = Settings(
        cache_url="memory://",
        search_rate_limit="1/minute",
        provider_rate_limits="arxiv=50/second, brave=2/second",
    )
    limiter = RateLimiter.from_settings(settings)
    assert limiter.limit_for("brave", "1/second") == "2/second"
    await limiter.acquire("arxiv", "1/3 seconds")
    with pytest.raises(RateLimited):
        await limiter.acquire("arxiv", "1/3 seconds")  # the global 1/minute


def test_bad_override_says_the_expected_shape() -> None:
    with pytest.raises(ValidationError, match="name=1/second"):  # refused by Settings itself
        Settings(provider_rate_limits="arxiv")


def test_bad_storage_url() -> None:
    with pytest.raises(InvalidInput, match="memory:// or redis://"):
        RateLimiter("sqlite:///x.db")


def test_bad_limit_notation_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="limits` notation"):
        RateLimiter(global_limit="lots")


@pytest.mark.redis
async def test_redis_windows_are_shared_between_replicas(redis_url: str) -> None:
    one = RateLimiter(redis_url, global_limit=None)
    two = RateLimiter(redis_url, global_limit=None)
    await one.reset()
    await one.acquire("brave", "2/minute")
    await two.acquire("brave", "2/minute")
    with pytest.raises(RateLimited):
        await one.acquire("brave", "2/minute")
    await one.reset()
    await one.aclose()
    await two.aclose()


@pytest.mark.redis
def test_from_settings_shares_through_redis(redis_url: str) -> None:
    shared = RateLimiter.from_settings(Settings(cache_url=redis_url))
    local = RateLimiter.from_settings(Settings(cache_url="memory://"))
    assert shared._store is None and local._store is None  # storage opens at the first check
    shared._strategy(), local._strategy()
    assert shared._pool is not None
    assert local._pool is None


def test_a_limiter_opens_no_storage_until_a_limit_is_checked(tmp_path: Path) -> None:
    """A cached search builds the limiter but checks no limit: `limits` stays unloaded (the
    default settings' limits are netsift's own strings; one a user sets is parsed at once)."""
    code = (
        "import sys\nfrom netsift.config import Settings\n"
        "from netsift.search.ratelimit import RateLimiter\n"
        "RateLimiter.from_settings(Settings())\n"
        "assert 'limits' not in sys.modules, 'limits was imported'\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NETSIFT_")}
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=tmp_path, env=env)


async def test_settings_limits_apply_when_first_checked() -> None:
    settings = Settings(search_rate_limit="1/minute", provider_rate_limits=["brave=100/second"])
    limiter = RateLimiter.from_settings(settings)
    assert await limiter.acquire("brave", "1/hour") < 0.1
    with pytest.raises(RateLimited, match="all providers together"):
        await limiter.acquire("brave", "1/hour", max_wait=0)
    await limiter.aclose()


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nothing listens there once the socket is closed


async def test_an_unreachable_redis_degrades_to_in_process_limits() -> None:
    limiter = RateLimiter(f"redis://127.0.0.1:{_closed_port()}", global_limit=None)
    assert await limiter.acquire("brave", "1/minute") < 0.1
    assert limiter.degraded
    with pytest.raises(RateLimited):  # the in-process window still limits
        await limiter.acquire("brave", "1/minute", max_wait=0)
    await limiter.aclose()
