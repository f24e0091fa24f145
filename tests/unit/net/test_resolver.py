"""resolver.py: pins first, then the fallback; literals answered as they are."""

from __future__ import annotations

import ipaddress

import pytest

from netsift.config import Settings
from netsift.net.resolver import StaticResolver, SystemResolver, parse_ip


class Recording:
    """A fallback resolver that says what it was asked."""

    def __init__(self, answer: str) -> None:
        self.asked: list[tuple[str, int]] = []
        self.answer = answer

    async def resolve(
        self, host: str, port: int
    ) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        self.asked.append((host, port))
        return [ipaddress.ip_address(self.answer)]


async def test_pins_answer_first_and_case_insensitively() -> None:
    fallback = Recording("8.8.8.8")
    resolver = StaticResolver({"news.test": ["127.0.0.1", "::1"]}, fallback=fallback)
    assert await resolver.resolve("NEWS.test.", 80) == [
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("::1"),
    ]
    assert fallback.asked == []


async def test_unpinned_names_go_to_the_fallback() -> None:
    fallback = Recording("93.184.215.14")
    resolver = StaticResolver({"news.test": ["127.0.0.1"]}, fallback=fallback)
    assert await resolver.resolve("example.org", 443) == [ipaddress.ip_address("93.184.215.14")]
    assert fallback.asked == [("example.org", 443)]


async def test_no_fallback_means_unknown_names_fail() -> None:
    with pytest.raises(OSError, match="not pinned"):
        await StaticResolver({}).resolve("example.org", 80)


async def test_literals_are_answered_without_asking_anyone() -> None:
    fallback = Recording("8.8.8.8")
    resolver = StaticResolver({}, fallback=fallback)
    assert await resolver.resolve("10.0.0.1", 80) == [ipaddress.ip_address("10.0.0.1")]
    assert await resolver.resolve("::1", 80) == [ipaddress.ip_address("::1")]
    assert fallback.asked == []
    assert await SystemResolver().resolve("192.0.2.1", 80) == [ipaddress.ip_address("192.0.2.1")]


async def test_duplicate_pins_collapse() -> None:
    resolver = StaticResolver({"a.test": ["127.0.0.1", "127.0.0.1"]})
    assert await resolver.resolve("a.test", 80) == [ipaddress.ip_address("127.0.0.1")]


def test_bad_pin_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="not an IP address"):
        StaticResolver({"a.test": ["not-an-ip"]})


async def test_settings_resolve_map_feeds_the_static_resolver() -> None:
    settings = Settings(resolve=["news.test:127.0.0.1", "v6.test:[::1]", "news.test:127.0.0.2"])
    resolver = StaticResolver(settings.resolve_map())
    assert [str(a) for a in await resolver.resolve("news.test", 80)] == ["127.0.0.1", "127.0.0.2"]
    assert [str(a) for a in await resolver.resolve("v6.test", 80)] == ["::1"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]", "::1"),
        ("2606:4700::1", "2606:4700::1"),
        ("a.test", None),
    ],
)
def test_parse_ip(text: str, expected: str | None) -> None:
    parsed = parse_ip(text)
    assert (str(parsed) if parsed else None) == expected
