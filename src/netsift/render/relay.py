"""A page's WebSockets, relayed through the guard: the browser never opens one itself.

Playwright hands every WebSocket the page opens to `Interceptor.websocket` (a mocked socket,
as far as Chromium knows). `open_guarded` checks the URL with the same rules as HTTP
(`check_url` on its http/https twin), resolves the host once and checks every address with
the address policy (`GuardedBackend.check_host`, as the HTTP transport does), connects a TCP
socket to the checked address itself and runs the WebSocket handshake over that socket
(`websockets`, redirects impossible on a given socket, no proxy from the environment, the
host name kept for TLS). Only then does the page's socket open. `relay` then copies messages
both ways until either side closes, the socket has carried `WS_MAX_BYTES` (or what is left of
the render's byte budget) or `WS_MAX_SECONDS` have passed, and writes one audit line per
socket. robots.txt does not apply: it governs crawling URLs, not a page's own sockets.

Through an http:// proxy (`NETSIFT_HTTP_PROXY` for ws://, `NETSIFT_HTTPS_PROXY` for wss://)
the socket is a `CONNECT` tunnel to the checked address, as for HTTP (`net/proxy.py`), with the
name kept for TLS; a proxy that refuses the address is `proxy_refused`. With
`proxy_enforces_egress` the tunnel asks for the name. A proxy spoken to over TLS or SOCKS
cannot hand over the plain socket the handshake runs on: WebSockets are refused then.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream
from playwright.async_api import WebSocketRoute
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.typing import Subprotocol

from ..errors import InvalidURL, NetsiftError
from ..net.guard import AddressPolicy, check_url
from ..net.proxy import tunnel_socket
from ..net.resolver import Resolver
from ..net.transport import GuardedBackend, ResolveError

__all__ = [
    "WS_MAX_BYTES",
    "WS_MAX_SECONDS",
    "Refused",
    "Relayed",
    "http_twin",
    "open_guarded",
    "relay",
]

# Bytes one socket may carry, both directions together: a page's live text (chat, a feed's
# updates) is a few KB a message; more is a stream a reader has no use for.
WS_MAX_BYTES = 1024 * 1024
# Seconds one socket may stay open (the render's own deadline ends it sooner).
WS_MAX_SECONDS = 15.0
_SCHEMES = {"ws": "http", "wss": "https"}


class Refused(Exception):
    """The socket was not opened; `outcome` is the audit line's (an error code)."""

    def __init__(self, outcome: str, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome


def http_twin(url: str) -> httpx.URL:
    """The http(s) URL a ws(s) URL stands for, checked like any URL netsift fetches (pure)."""
    scheme, sep, rest = url.partition("://")
    twin = _SCHEMES.get(scheme.lower())
    if not sep or twin is None:
        raise InvalidURL(f"not a WebSocket URL: {url[:200]}", details={"url": url[:200]})
    return check_url(f"{twin}://{rest}")


async def open_guarded(
    url: str,
    *,
    resolver: Resolver,
    policy: AddressPolicy,
    origin: str,
    user_agent: str,
    subprotocols: list[str],
    timeout: float,
    http_proxy: str | None = None,
    https_proxy: str | None = None,
    names_to_proxy: bool = False,
) -> tuple[ClientConnection, str | None]:
    """The server's side of the page's socket, connected to a checked address (directly or
    through the proxy for its scheme); raises Refused. Also returns the address, for audit."""
    try:
        target = http_twin(url)
    except NetsiftError as exc:  # the guard's refusals (schemes, names, credentials)
        raise Refused(exc.code, exc.message) from None
    secure = target.scheme == "https"
    port = target.port or (443 if secure else 80)
    proxy = https_proxy if secure else http_proxy
    if proxy and httpx.URL(proxy).scheme != "http":
        raise Refused("websocket_refused", "WebSockets are relayed through an http:// proxy only")
    backend = GuardedBackend(resolver, policy)
    try:
        with anyio.fail_after(timeout):
            if proxy:
                pin = await backend.pin(target.host, port, timeout, names_to_proxy=names_to_proxy)
                address = pin.address if pin else None
                authority = pin.authority if pin else f"{target.host}:{port}"
                sock = await tunnel_socket(proxy, authority, host=target.host)
            else:
                addresses = await backend.check_host(target.host, port, timeout)
                sock = await _connect_first(addresses, port)
                address = str(sock.getpeername()[0])
    except TimeoutError:
        raise Refused("timeout", f"connecting to {target.host} timed out") from None
    except ResolveError as exc:
        raise Refused("dns_error", str(exc)) from None
    except Exception as exc:  # BlockedAddress, ProxyRefused (their codes), or nothing answered
        code = getattr(exc, "code", None)
        raise Refused(code if isinstance(code, str) else "connect_error", str(exc)) from None
    ws_url = str(target.copy_with(scheme="wss" if secure else "ws"))
    try:
        connection = await connect(
            ws_url,
            sock=sock,
            proxy=None,
            ssl=httpx.create_ssl_context() if secure else None,
            server_hostname=target.host if secure else None,
            origin=origin,  # type: ignore[arg-type]
            subprotocols=[Subprotocol(p) for p in subprotocols] or None,
            user_agent_header=user_agent,
            open_timeout=timeout,
            max_size=WS_MAX_BYTES,
            compression=None,  # no deflate: a small frame cannot inflate past the byte cap
        )
    except (OSError, TimeoutError, WebSocketException, ssl.SSLError) as exc:
        sock.close()
        raise Refused("websocket_handshake", f"the WebSocket handshake failed: {exc}") from None
    return connection, address


async def _connect_first(addresses: list[str], port: int) -> socket.socket:
    """A TCP socket connected to the first of the checked addresses that answers."""
    failure: OSError | None = None
    for address in addresses:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (address, port))
            return sock
        except OSError as exc:
            sock.close()
            failure = exc
        except BaseException:  # cancelled (the open's time cap): the socket must not leak
            sock.close()
            raise
    assert failure is not None
    raise failure


@dataclass
class Relayed:
    """What one relayed socket carried, for its audit line."""

    size: int = 0
    outcome: str = "ok"


async def relay(
    page: WebSocketRoute,
    server: ClientConnection,
    *,
    max_bytes: int,
    max_seconds: float,
    spent: Callable[[int], None],
    done: Relayed,
) -> Relayed:
    """Copy messages both ways until a side closes or a cap is reached; closes both sides.
    `done` counts as it goes (a relay cancelled with its render still has its size)."""
    send, receive = anyio.create_memory_object_stream[str | bytes](max_buffer_size=float("inf"))

    def count(message: str | bytes) -> bool:
        size = len(message.encode() if isinstance(message, str) else message)
        done.size += size
        spent(size)
        if done.size > max_bytes:
            done.outcome = "websocket_byte_cap"
            return False
        return True

    def from_page(message: str | bytes) -> None:
        if done.outcome != "ok":
            return
        if not count(message):  # counted as it arrives: the cap bounds the queue too
            send.close()
            return
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            send.send_nowait(message)

    def page_closed(code: int | None, reason: str | None) -> None:
        send.close()

    page.on_message(from_page)
    page.on_close(page_closed)

    async def to_server(messages: MemoryObjectReceiveStream[str | bytes]) -> None:
        async with messages:
            async for message in messages:
                await server.send(message)

    async def to_page() -> None:
        async for message in server:
            if not count(message):
                return
            page.send(message)

    with anyio.move_on_after(max_seconds) as timer:
        async with anyio.create_task_group() as group:

            async def first(work: Callable[[], object]) -> None:
                try:
                    await work()  # type: ignore[misc]
                except (ConnectionClosed, OSError, anyio.ClosedResourceError):
                    pass
                group.cancel_scope.cancel()  # one direction ended: so does the other

            group.start_soon(first, lambda: to_server(receive))
            group.start_soon(first, to_page)
    if timer.cancelled_caught:
        done.outcome = "websocket_time_cap"
    send.close()
    with anyio.move_on_after(1, shield=True):
        await server.close()
        code = 1000 if done.outcome == "ok" else 1008
        await page.close(code=code, reason="" if code == 1000 else done.outcome)
    return done
