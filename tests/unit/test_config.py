import pytest
from pydantic import ValidationError

from netsift import Settings


def test_ecosystem_aliases_and_comma_lists(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "b-key")
    monkeypatch.setenv("SEARX_HOST", "http://searx.internal:8888")
    monkeypatch.setenv("NETSIFT_PROVIDERS", "Brave, searxng ,duckduckgo")
    monkeypatch.setenv("NETSIFT_ALLOW_NETWORKS", "10.0.0.0/8,fd00::/8")
    settings = Settings()
    assert settings.providers == ["brave", "searxng", "duckduckgo"]
    assert settings.provider_settings("brave").key() == "b-key"
    assert settings.provider_settings("searxng").base_url == "http://searx.internal:8888"
    assert settings.allow_networks == ["10.0.0.0/8", "fd00::/8"]
    assert "b-key" not in repr(settings)


def test_arguments_beat_environment(monkeypatch):
    monkeypatch.setenv("NETSIFT_MAX_BYTES", "100")
    assert Settings().max_bytes == 100
    assert Settings(max_bytes=5).max_bytes == 5


def test_resolve_pins_parse_hosts_and_ipv6():
    settings = Settings(resolve=["news.test:127.0.0.1", "v6.test:[::1]", "News.Test.:127.0.0.2"])
    assert settings.resolve_map() == {"news.test": ["127.0.0.1", "127.0.0.2"], "v6.test": ["::1"]}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"allow_networks": ["not-a-cidr"]},
        {"capabilities": ["search", "teleport"]},
        {"resolve": ["no-address"]},
        {"max_bytes": 0},
        {"max_redirects": -1},
        {"https_proxy": "socks5://127.0.0.1:1080"},  # the transport speaks HTTP to proxies
    ],
)
def test_bad_values_are_refused(kwargs):
    with pytest.raises(ValidationError):
        Settings(**kwargs)


def test_capabilities_switch_off(tmp_path):
    settings = Settings(capabilities="search", data_dir=tmp_path)
    assert settings.enabled("search") and not settings.enabled("fetch")
    assert settings.effective_cache_url() == f"sqlite:///{tmp_path / 'cache.sqlite3'}"


def test_redis_url_shares_cache_and_jobs_unless_each_is_set(tmp_path):
    """Scaled out, one REDIS_URL is enough for replicas to share the cache, limits and jobs."""
    shared = Settings(redis_url="redis://cache.internal:6379/0", data_dir=tmp_path)
    assert shared.effective_cache_url() == "redis://cache.internal:6379/0"
    assert shared.effective_jobs_url() == "redis://cache.internal:6379/0"
    own = Settings(redis_url="redis://r:6379/0", cache_url="memory://", data_dir=tmp_path)
    assert own.effective_cache_url() == "memory://"


def test_netsift_toml_is_read_below_environment(tmp_path, monkeypatch):
    (tmp_path / "netsift.toml").write_text('timeout = 12.5\nproviders = ["wikipedia"]\n')
    monkeypatch.chdir(tmp_path)
    assert Settings().timeout == 12.5
    assert Settings().providers == ["wikipedia"]
    monkeypatch.setenv("NETSIFT_TIMEOUT", "3")
    assert Settings().timeout == 3


def test_the_default_rate_limits_are_valid_limits_notation():
    """Settings skips parsing its own default limits (that would import `limits` into every
    process): this keeps those defaults honest, and a user's value is still parsed."""
    from limits import parse_many

    for field in ("search_rate_limit", "server_rate_limit", "server_search_quota"):
        default = Settings.model_fields[field].default
        assert default is None or parse_many(default)
    with pytest.raises(ValidationError, match="limits` notation"):
        Settings(server_rate_limit="600 a minute")
