"""A network failure is named by its cause, through the whole fetch path with robots on:
a name that does not resolve is `dns_error` (never `blocked_by_robots`), a closed port
`connect_error`, an untrusted certificate `tls_error` — each with its exit code and
retryability, mapped once in net/http.py."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from netsift.client import Client
from netsift.errors import ConnectError, DNSError, TLSError
from tests.offline_web.server import LiveServer, serve

from .apps import SiteState, free_port, site_app

pytest.importorskip("cryptography", reason="the TLS case needs a throwaway certificate")

from .test_tls import make_certificate

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class FailingResolver:
    """The resolver seam answering as getaddrinfo does for an unknown or unreachable name."""

    def __init__(self, errno: int) -> None:
        self.errno = errno
        self.asked: list[str] = []

    async def resolve(self, host: str, port: int) -> list[Address]:
        self.asked.append(host)
        raise socket.gaierror(self.errno, "Name or service not known")


async def test_unresolvable_host_is_dns_error_not_robots(make_settings) -> None:
    resolver = FailingResolver(socket.EAI_NONAME)
    settings = make_settings(respect_robots=True, retries=2)
    async with Client(settings, resolver=resolver) as client:
        with pytest.raises(DNSError) as caught:
            await client.fetch("http://nowhere.example/page")
    error = caught.value
    assert (error.code, error.exit_code, error.status, error.retryable) == (
        "dns_error",
        4,
        502,
        False,
    )
    assert "does not resolve" in error.message and "disallowed" not in error.message
    assert resolver.asked == ["nowhere.example"]  # no retry of a name that does not exist


async def test_temporary_resolver_failure_is_retryable(make_settings) -> None:
    settings = make_settings(respect_robots=False, retries=0)
    async with Client(settings, resolver=FailingResolver(socket.EAI_AGAIN)) as client:
        with pytest.raises(DNSError) as caught:
            await client.fetch("http://flaky.example/")
    assert caught.value.retryable


async def test_closed_port_is_connect_error(make_settings) -> None:
    port = free_port()
    settings = make_settings(
        allow_networks=["127.0.0.1/32"], resolve=["down.test:127.0.0.1"], retries=0
    )
    async with Client(settings) as client:
        with pytest.raises(ConnectError) as caught:
            await client.fetch(f"http://down.test:{port}/page")
    assert caught.value.code == "connect_error" and caught.value.retryable
    assert caught.value.exit_code == 4


@pytest.fixture(scope="module")
def untrusted_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    cert, key = make_certificate(Path(tmp_path_factory.mktemp("tls")), "selfsigned.test")
    state = SiteState()
    with serve(site_app(state), ssl_certfile=str(cert), ssl_keyfile=str(key)) as server:
        yield server
        state.stopping.set()


async def test_untrusted_certificate_is_tls_error(untrusted_tls: LiveServer, make_settings) -> None:
    settings = make_settings(
        allow_networks=["127.0.0.1/32"], resolve=["selfsigned.test:127.0.0.1"], retries=0
    )
    async with Client(settings) as client:
        with pytest.raises(TLSError) as caught:
            await client.fetch(f"https://selfsigned.test:{untrusted_tls.port}/echo")
    error = caught.value
    assert error.code == "tls_error" and not error.retryable
    assert "certificate" in error.message
