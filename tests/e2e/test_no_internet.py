"""The backstop: the test run itself cannot reach the internet, whatever the code under test does.

pytest-socket (`--allow-hosts=127.0.0.1,::1,localhost` in pyproject) replaces
`socket.connect` for every test; these tests prove it is active, so a green suite can never
have quietly depended on the network. pytest-socket warns as it raises, and this suite turns
warnings into errors, so the refusal surfaces as its `SocketConnectBlockedError` or as the
warning it emits — either way carrying pytest-socket's message and the address refused.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from pytest_socket import SocketConnectBlockedError

from netsift.client import Client
from tests.offline_web.fixtures import OfflineWeb

# TEST-NET-1 (RFC 5737), a public address and a private one: none may be reached from a test.
TEST_NET = "192.0.2.1"
PUBLIC = "93.184.215.14"
PRIVATE = "10.0.0.1"
MESSAGE = "A test tried to use socket.socket.connect()"


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error
        if error.__cause__ is not None:
            yield from _leaves(error.__cause__)


@contextmanager
def refused_by_backstop(address: str) -> Iterator[None]:
    with pytest.raises((SocketConnectBlockedError, UserWarning, ExceptionGroup)) as caught:
        yield
    blocked = [
        leaf
        for leaf in _leaves(caught.value)
        if isinstance(leaf, SocketConnectBlockedError | UserWarning) and MESSAGE in str(leaf)
    ]
    assert blocked, f"not pytest-socket's refusal: {caught.value!r}"
    assert f'host "{address}"' in str(blocked[0])


@pytest.mark.parametrize("address", [TEST_NET, PUBLIC, PRIVATE])
def test_raw_socket_to_a_non_loopback_address_is_refused_at_once(address: str) -> None:
    started = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        with refused_by_backstop(address):
            sock.connect((address, 80))
    assert time.monotonic() - started < 1


async def test_httpx_cannot_reach_the_internet() -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        with refused_by_backstop(TEST_NET):
            await client.get(f"http://{TEST_NET}/")


def test_loopback_is_still_reachable(offline_web: OfflineWeb) -> None:
    with socket.create_connection(("127.0.0.1", offline_web.port), timeout=5):
        pass


class PublicResolver:
    async def resolve(
        self, host: str, port: int
    ) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        return [ipaddress.IPv4Address(PUBLIC)]


async def test_netsift_pointed_at_a_public_address_fails_loudly(make_settings) -> None:
    """The guard rightly allows a public address: only the backstop stands in the way."""
    settings = make_settings(respect_robots=False, retries=0)
    async with Client(settings, resolver=PublicResolver()) as client:
        started = time.monotonic()
        with refused_by_backstop(PUBLIC):
            await client.fetch("http://example.org/")
    assert time.monotonic() - started < 5
