import pytest

from netsift.backends import parse_store_url
from netsift.errors import InvalidInput


@pytest.mark.parametrize(
    ("url", "kind", "path"),
    [
        ("sqlite:////var/lib/x.db", "sqlite", "/var/lib/x.db"),
        ("sqlite:///rel/x.db", "sqlite", "rel/x.db"),
        ("sqlite://", "sqlite", ":memory:"),
        ("sqlite:///:memory:", "sqlite", ":memory:"),
        ("memory://", "memory", ":memory:"),
        ("redis://localhost:6379/0", "redis", ":memory:"),
        ("rediss://cache.internal/1", "redis", ":memory:"),
        ("unix:///run/redis.sock", "redis", ":memory:"),
    ],
)
def test_a_store_url_names_its_backend_and_file(url: str, kind: str, path: str) -> None:
    store = parse_store_url(url, what="the test store")
    assert (store.kind, store.path, store.url) == (kind, path, url)


@pytest.mark.parametrize("url", ["postgres://db/x", "", "file:///tmp/x.db", "SQLITE:///x"])
def test_an_unknown_backend_is_invalid_input_naming_the_setting(url: str) -> None:
    with pytest.raises(InvalidInput, match="the test store must be memory://"):
        parse_store_url(url, what="the test store")
