"""When no provider answers, the error says whether waiting can help: configuration problems
(a missing or refused key) are `config_error`, exit 5 and never retryable; as soon as one
provider failed for a passing reason, `all_providers_failed` is retryable."""

from __future__ import annotations

import pytest

from netsift.errors import AllProvidersFailed, ConfigError
from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import ClientFactory


async def test_requested_provider_without_its_key_is_a_config_error(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    client = await open_client(providers=["brave"], brave_api_key=None)
    with pytest.raises(ConfigError) as caught:
        await client.search("rust async runtime", providers=["brave"])
    error = caught.value
    assert (error.code, error.retryable, error.exit_code) == ("config_error", False, 5)
    assert "BRAVE_API_KEY" in error.message  # says which key to set
    assert sims["brave"].count == 0


async def test_one_transient_failure_makes_the_whole_retryable(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["tavily"].set("server_error")
    client = await open_client(providers=["brave", "tavily"], brave_api_key=None)
    with pytest.raises(AllProvidersFailed) as caught:
        await client.search("rust async runtime")
    attempts = caught.value.details["attempts"]
    assert [(a["error_code"], a["retryable"]) for a in attempts] == [
        ("provider_auth", False),
        ("provider_unavailable", True),
    ]
    assert caught.value.retryable and caught.value.exit_code == 4


async def test_lasting_failures_are_not_retryable(
    sims: ProviderSims, open_client: ClientFactory
) -> None:
    sims["brave"].set("auth")
    sims["tavily"].set("server_error")
    client = await open_client(providers=["brave", "tavily"])
    with pytest.raises(AllProvidersFailed):
        await client.search("rust async runtime")
    sims["tavily"].set("auth")
    with pytest.raises(ConfigError) as caught:
        await client.search("rust async runtime tokio")
    assert not caught.value.retryable
