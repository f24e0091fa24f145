"""The embedded default and the sync API, aimed at the simulators by settings alone."""

from __future__ import annotations

from pathlib import Path

import pytest

import netsift
from netsift.config import Settings
from netsift.errors import InvalidInput
from tests.offline_web.providers.fixtures import ProviderSims

from .conftest import QUERY


def embedded(sims: ProviderSims, tmp_path: Path, **overrides: object) -> Settings:
    """Nothing but the simulators' base URLs and host pins: no keys, no cache or providers."""
    values = sims.settings_values(keys=False)
    values.update(data_dir=tmp_path / "data", **overrides)
    return Settings(**values)


def test_the_embedded_default_is_duckduckgo_then_wikipedia_with_a_sqlite_cache(
    sims: ProviderSims, tmp_path: Path
) -> None:
    settings = embedded(sims, tmp_path)
    assert settings.providers == ["duckduckgo", "wikipedia"]
    found = netsift.search(QUERY, settings=settings)
    assert found.provider == "duckduckgo" and found.result_count == 10
    assert [a.provider for a in found.attempts] == ["duckduckgo"]
    assert (tmp_path / "data" / "cache.sqlite3").is_file()
    again = netsift.search(QUERY, settings=settings)  # a new Client, the same cache file
    assert again.cached and sims["duckduckgo"].count == 1


def test_the_embedded_default_fails_over_to_wikipedia(sims: ProviderSims, tmp_path: Path) -> None:
    sims["duckduckgo"].set("anomaly")
    found = netsift.search(QUERY, settings=embedded(sims, tmp_path), count=3)
    assert [(a.provider, a.error_code) for a in found.attempts] == [
        ("duckduckgo", "rate_limited"),
        ("wikipedia", None),
    ]
    assert found.result_count == 3


def test_sync_search_passes_options_and_raises_netsift_errors(
    sims: ProviderSims, tmp_path: Path
) -> None:
    settings = embedded(sims, tmp_path, cache_url="memory://")
    found = netsift.search(QUERY, settings=settings, count=2, region="de-de", time_range="w")
    assert found.result_count == 2
    form = sims["duckduckgo"].requests[0].form()
    assert form["kl"] == "de-de" and form["df"] == "w"
    with pytest.raises(InvalidInput):
        netsift.search("", settings=settings)
