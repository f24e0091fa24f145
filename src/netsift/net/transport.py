"""Connect only to addresses the guard accepted: the check runs at connect time.

`GuardedBackend` is an httpcore network backend: for each new connection it resolves the
host once, checks every address (one refused address refuses the connection: a name that
mixes public and private answers is hostile), then connects to that exact address through
httpcore's own anyio backend. TLS still verifies the host name, because httpcore passes
the URL's host as SNI. There is no second lookup for a rebinding DNS server to win, and
every connection is checked, so redirects, robots.txt, providers and LLM calls are covered.

`GuardedTransport` is an `httpx.AsyncBaseTransport` over an httpcore connection pool using
that backend, mapping requests, streams and exceptions exactly as httpx's own transport does.

Proxies (`http_proxy`/`https_proxy`): the connection goes to the proxy, which the operator
configured and which may sit on a private network, so the proxy itself is not checked. The
target's name is resolved and every address checked first, and the proxy is then asked for
the checked address, not the name (`proxy.py`): a rebinding name cannot send the proxy
elsewhere. With `proxy_enforces_egress` (the operator's proxy is itself an SSRF filter) names
are sent as they are; an IP literal is still checked.

TLS: the verifying context (httpx's: certifi's CA bundle, or `SSL_CERT_FILE`/`SSL_CERT_DIR`)
is built at the first https connection, once per process, and shared by every transport: a
cached search or an http:// page never loads the CA bundle (~16 ms of CPU per process).
"""

from __future__ import annotations

import os
import ssl
import threading
import typing
from collections.abc import Iterable
from types import TracebackType

import anyio
import httpcore
import httpx
from httpcore._backends.anyio import AnyIOBackend
from httpx._transports.default import AsyncResponseStream, map_httpcore_exceptions

from ..errors import BlockedAddress
from .guard import AddressPolicy
from .proxy import PIN, Pin, PinnedProxy, choose_address
from .resolver import Resolver, parse_ip

__all__ = ["GuardedBackend", "GuardedTransport", "ResolveError", "default_ssl_context"]

_contexts: dict[tuple[str, str], ssl.SSLContext] = {}
_contexts_lock = threading.Lock()


def default_ssl_context() -> ssl.SSLContext:
    """httpx's verifying context for `verify=True`, built once per process (per CA setting).

    One context is safe to share: httpcore only sets ALPN on it per connection, always to
    http/1.1 here (netsift speaks no HTTP/2). Keyed by the CA environment variables httpx
    reads, so changing them still takes effect exactly as when every transport built its own.
    """
    key = (os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
    with _contexts_lock:
        context = _contexts.get(key)
        if context is None:
            context = _contexts[key] = httpx.create_ssl_context(verify=True)
        return context


class ResolveError(httpcore.ConnectError):
    """The name did not resolve: a ConnectError to httpcore, `dns_error` to net/http.py."""


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """resolve → check every address → connect to a checked address."""

    def __init__(
        self,
        resolver: Resolver,
        policy: AddressPolicy,
        *,
        inner: httpcore.AsyncNetworkBackend | None = None,
        trusted_hosts: Iterable[str] = (),
    ) -> None:
        self._resolver = resolver
        self._policy = policy
        self._inner = inner or AnyIOBackend()
        self._trusted = frozenset(h.lower().rstrip(".") for h in trusted_hosts)

    async def check_host(self, host: str, port: int, timeout: float | None = None) -> list[str]:
        """The addresses `host` may be reached at; raises BlockedAddress or ConnectError."""
        try:
            with anyio.fail_after(timeout):
                addresses = await self._resolver.resolve(host, port)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from exc
        except OSError as exc:
            raise ResolveError(f"could not resolve {host}: {exc}") from exc
        if not addresses:
            raise ResolveError(f"could not resolve {host}: no addresses")
        if host.lower().rstrip(".") not in self._trusted:
            for address in addresses:
                self._policy.check(address, host=host)
        return [str(a) for a in addresses]

    async def pin(
        self, host: str, port: int, timeout: float | None, *, names_to_proxy: bool
    ) -> Pin | None:
        """What a proxy is asked for: the checked address `host` is reached at (the first IPv4
        one, see `proxy.py`), or None to send the name itself (`names_to_proxy`, the
        operator's proxy filters egress: only an IP literal is still checked here)."""
        if names_to_proxy and parse_ip(host) is None:
            return None
        addresses = await self.check_host(host, port, timeout)
        return Pin(host=host, address=choose_address(addresses), port=port)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self.check_host(host, port, timeout)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise BlockedAddress(
            "unix sockets are never connected to", details={"reason": "unix socket"}
        )

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _LazyTLSPool(httpcore.AsyncConnectionPool):
    """A connection pool that takes the shared verifying context at its first https origin."""

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        if origin.scheme == b"https" and self._ssl_context is None:
            self._ssl_context = default_ssl_context()
        return super().create_connection(origin)


class _LazyTLSProxy(_LazyTLSPool, PinnedProxy):
    """The same for a proxy asked for checked addresses: the context verifies the target at
    the end of the tunnel."""


class _LazyTLSNamedProxy(_LazyTLSPool, httpcore.AsyncHTTPProxy):
    """The same for a proxy that is sent names (`proxy_enforces_egress`)."""


def _core_url(url: httpx.URL) -> httpcore.URL:
    return httpcore.URL(
        scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
    )


class GuardedTransport(httpx.AsyncBaseTransport):
    """httpx transport whose every connection passes the guard (see module docstring)."""

    def __init__(
        self,
        resolver: Resolver,
        policy: AddressPolicy,
        *,
        http_proxy: str | None = None,
        https_proxy: str | None = None,
        proxy_enforces_egress: bool = False,
        trusted_hosts: Iterable[str] = (),
        verify: ssl.SSLContext | bool = True,
        max_connections: int = 100,
        max_keepalive_connections: int = 20,
        keepalive_expiry: float = 5.0,
    ) -> None:
        self.backend = GuardedBackend(resolver, policy, trusted_hosts=trusted_hosts)
        # verify=True: None here, the shared default at the first https connection.
        ssl_context = None if verify is True else httpx.create_ssl_context(verify=verify)
        self._pool = _LazyTLSPool(
            ssl_context=ssl_context,
            network_backend=self.backend,
            max_connections=max_connections,
            max_keepalive_connections=max_keepalive_connections,
            keepalive_expiry=keepalive_expiry,
        )
        self._names_to_proxy = proxy_enforces_egress
        proxy_pool = _LazyTLSNamedProxy if proxy_enforces_egress else _LazyTLSProxy
        self._proxies: dict[str, httpcore.AsyncHTTPProxy] = {}
        for scheme, proxy in (("http", http_proxy), ("https", https_proxy)):
            if proxy:
                proxy_url = httpx.URL(proxy)
                self._proxies[scheme] = proxy_pool(
                    proxy_url=_core_url(proxy_url),
                    proxy_auth=(
                        (proxy_url.username.encode(), proxy_url.password.encode())
                        if proxy_url.username
                        else None
                    ),
                    ssl_context=ssl_context,
                    max_connections=max_connections,
                    max_keepalive_connections=max_keepalive_connections,
                    keepalive_expiry=keepalive_expiry,
                )

    async def __aenter__(self) -> GuardedTransport:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        await self.aclose()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        pool: httpcore.AsyncConnectionPool = self._pool
        extensions = request.extensions
        proxy = self._proxies.get(request.url.scheme)
        if proxy is not None:
            pin = await self._pin(request)
            if pin is not None:
                extensions = {**extensions, PIN: pin}
            pool = proxy
        core_request = httpcore.Request(
            method=request.method,
            url=_core_url(request.url),
            headers=request.headers.raw,
            content=request.stream,
            extensions=extensions,
        )
        with map_httpcore_exceptions():
            response = await pool.handle_async_request(core_request)
        assert isinstance(response.stream, typing.AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=AsyncResponseStream(response.stream),
            extensions=response.extensions,
        )

    async def _pin(self, request: httpx.Request) -> Pin | None:
        url = request.url
        port = url.port or (443 if url.scheme == "https" else 80)
        timeout = request.extensions.get("timeout", {}).get("connect")
        with map_httpcore_exceptions():
            return await self.backend.pin(
                url.host, port, timeout, names_to_proxy=self._names_to_proxy
            )

    async def aclose(self) -> None:
        await self._pool.aclose()
        for proxy in self._proxies.values():
            await proxy.aclose()
