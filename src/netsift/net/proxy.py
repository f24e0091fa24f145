"""Through the operator's proxy to the address the guard checked, never to a name.

A proxy resolves the names it is given. Checking a name and then handing that name to the
proxy leaves a window: a rebinding DNS server answers netsift with a public address and the
proxy with 127.0.0.1 or the cloud metadata address. So netsift asks the proxy for the
*address* it checked:

- `http://` in absolute form with the address, `GET http://93.184.215.14:80/path`, and the
  URL's own `Host` header;
- `https://` (and a relayed WebSocket) with `CONNECT 93.184.215.14:443`, then TLS inside the
  tunnel with the URL's name for SNI and the certificate check.

`PinnedProxy` is httpcore's `AsyncHTTPProxy` with its two connection kinds taught this; the
pool stays keyed by the URL's origin (the name), and a connection takes its address from the
request that opens it (the `PIN` extension GuardedTransport puts on every proxied request
after the check), so a tunnel verified for one name never carries another name's requests.
One address is asked for (IPv4 first: a proxy's IPv6 reach is unknown); the proxy does the
connecting, and when it cannot, the failure is a retryable `connect_error`.

A proxy that will not go to an address (its policy wants names) answers CONNECT with a
non-2xx status, or a forwarded request with 407 or an RFC 9209 `Proxy-Status` error: that is
`proxy_refused`, never a retry by name. An operator whose proxy is itself the SSRF filter
(Smokescreen and the like) declares it with `NETSIFT_PROXY_ENFORCES_EGRESS=true`, and names
are then sent as they are (GuardedTransport).

The connection classes override one method each of httpcore 1.0's proxy connections and read
their attributes (`_proxy_origin`, `_connection`…): the HTTP itself stays httpcore's.
"""

from __future__ import annotations

import asyncio
import base64
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass

import h11
import httpcore
import httpx
from httpcore._async.http_proxy import (
    AsyncForwardHTTPConnection,
    AsyncTunnelHTTPConnection,
    merge_headers,
)
from httpcore._ssl import default_ssl_context as httpcore_ssl_context

from .. import errors
from ..errors import NetsiftError

__all__ = [
    "PIN",
    "TARGET_ADDRESS",
    "Pin",
    "PinnedProxy",
    "choose_address",
    "proxy_failure",
    "tunnel_socket",
]

PIN = "netsift.pin"  # request extension: the checked Pin a proxied request must go to
TARGET_ADDRESS = "netsift.target_address"  # response extension: the address asked for
# RFC 9209 error types that say the proxy could not reach the address (worth a retry), as
# opposed to would not (its policy): those are `proxy_refused`.
_UNREACHABLE = frozenset(
    {
        "destination_unavailable",
        "destination_ip_unroutable",
        "connection_refused",
        "connection_terminated",
        "connection_timeout",
        "connection_read_timeout",
        "connection_write_timeout",
        "connection_limit_reached",
    }
)
# Statuses a proxy gives when it could not reach the target (Squid: 503, others 502/504).
_GATEWAY_FAILURES = frozenset({502, 503, 504})
_ERROR_PARAM = re.compile(r";\s*error\s*=\s*([A-Za-z0-9_.\-]+)")
# A proxy's answer to CONNECT is a status line and a few headers; more is not a proxy.
_MAX_CONNECT_ANSWER = 64 * 1024


@dataclass(frozen=True)
class Pin:
    """Where a proxied request goes: the URL's `host`, at the checked `address`, on `port`."""

    host: str
    address: str
    port: int

    @property
    def url_host(self) -> bytes:
        """The address as a URL writes it (IPv6 in brackets)."""
        return f"[{self.address}]".encode() if ":" in self.address else self.address.encode()

    @property
    def authority(self) -> str:
        """`address:port`, what CONNECT asks for."""
        return f"{self.url_host.decode()}:{self.port}"


def choose_address(addresses: Sequence[str]) -> str:
    """The checked address to ask the proxy for: the first IPv4 one, else the first (pure)."""
    return next((a for a in addresses if ":" not in a), addresses[0])


def proxy_failure(
    status: int,
    reason: str,
    proxy_status: str,
    *,
    target: str,
    host: str,
    tunnel: bool,
) -> NetsiftError | None:
    """What a proxy's own answer means (pure): None when it is not a failure of the proxy.

    A CONNECT answered with anything but 2xx is the proxy's; a forwarded request's answer
    is the origin's unless it is 407 or carries a `Proxy-Status` error (RFC 9209)."""
    found = _ERROR_PARAM.findall(proxy_status)
    error = found[-1].lower() if found else None  # the last member is the nearest proxy
    if tunnel and 200 <= status < 300:
        return None
    if not tunnel and status != 407 and error is None:
        return None
    said = f"{status} {reason}".strip()
    details = {"proxy_status": status, "proxy_error": error, "host": host, "target": target}
    pinned = not target.startswith(f"{host}:")  # else the name went (an egress filter)
    asked = f"{target} (the checked address of {host})" if pinned else target
    if error in _UNREACHABLE or (error is None and status in _GATEWAY_FAILURES):
        return errors.ConnectError(
            f"the proxy could not connect to {asked}: {said}",
            details={"stage": "connect", **details},
        )
    why = (
        ". netsift asks a proxy for the address its guard checked, never the name, so the"
        " proxy cannot resolve the name somewhere else; if the proxy is itself an egress"
        " filter, set NETSIFT_PROXY_ENFORCES_EGRESS=true"
    )
    return errors.ProxyRefused(
        f"the proxy refused {asked}: {said}"
        + (f" ({error})" if error else "")
        + (why if pinned else ""),
        details=details,
    )


def _pin_of(request: httpcore.Request) -> Pin:
    pin = request.extensions.get(PIN)
    if not isinstance(pin, Pin):  # GuardedTransport pins every request it proxies
        raise RuntimeError("a request reached the pinned proxy without a checked address")
    return pin


def _header(headers: Sequence[tuple[bytes, bytes]], name: bytes) -> str:
    return ", ".join(v.decode("latin-1") for k, v in headers if k.lower() == name)


def _reason(response: httpcore.Response) -> str:
    reason = response.extensions.get("reason_phrase", b"")
    return reason.decode("ascii", errors="replace") if isinstance(reason, bytes) else ""


class _PinnedForward(AsyncForwardHTTPConnection):
    """`GET http://<address>:<port>/path` with the URL's `Host` header."""

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        pin = _pin_of(request)
        pinned = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.scheme,
                host=pin.url_host,
                port=pin.port,
                target=request.url.target,
            ),
            headers=request.headers,  # Host: the name, as httpx wrote it
            content=request.stream,
            extensions=request.extensions,
        )
        response = await super().handle_async_request(pinned)
        failure = proxy_failure(
            response.status,
            _reason(response),
            _header(response.headers, b"proxy-status"),
            target=pin.authority,
            host=pin.host,
            tunnel=False,
        )
        if failure is not None:
            await response.aclose()
            raise failure
        response.extensions[TARGET_ADDRESS] = pin.address
        return response


class _PinnedTunnel(AsyncTunnelHTTPConnection):
    """`CONNECT <address>:<port>`, then TLS with the URL's name; HTTP/1.1 inside."""

    _address: str | None = None

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        async with self._connect_lock:
            if not self._connected:
                self._connection = await self._open(request)
                self._connected = True
        response = await self._connection.handle_async_request(request)
        response.extensions[TARGET_ADDRESS] = self._address
        return response

    async def _open(self, request: httpcore.Request) -> httpcore.AsyncHTTP11Connection:
        pin = _pin_of(request)
        target = pin.authority.encode()
        connect = httpcore.Request(
            method=b"CONNECT",
            url=httpcore.URL(
                scheme=self._proxy_origin.scheme,
                host=self._proxy_origin.host,
                port=self._proxy_origin.port,
                target=target,
            ),
            headers=merge_headers([(b"Host", target), (b"Accept", b"*/*")], self._proxy_headers),
            extensions=request.extensions,
        )
        answer = await self._connection.handle_async_request(connect)
        failure = proxy_failure(
            answer.status,
            _reason(answer),
            _header(answer.headers, b"proxy-status"),
            target=pin.authority,
            host=pin.host,
            tunnel=True,
        )
        if failure is not None:
            await self._connection.aclose()
            raise failure
        context = self._ssl_context or httpcore_ssl_context()
        context.set_alpn_protocols(["http/1.1"])  # netsift speaks no HTTP/2
        timeout = request.extensions.get("timeout", {}).get("connect")
        stream = answer.extensions["network_stream"]
        stream = await stream.start_tls(context, server_hostname=pin.host, timeout=timeout)
        self._address = pin.address
        return httpcore.AsyncHTTP11Connection(
            origin=self._remote_origin, stream=stream, keepalive_expiry=self._keepalive_expiry
        )


class PinnedProxy(httpcore.AsyncHTTPProxy):
    """httpcore's HTTP proxy pool whose connections go to each request's `PIN`."""

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        if origin.scheme == b"http":
            return _PinnedForward(
                proxy_origin=self._proxy_url.origin,
                proxy_headers=self._proxy_headers,
                remote_origin=origin,
                keepalive_expiry=self._keepalive_expiry,
                network_backend=self._network_backend,
                proxy_ssl_context=self._proxy_ssl_context,
            )
        return _PinnedTunnel(
            proxy_origin=self._proxy_url.origin,
            proxy_headers=self._proxy_headers,
            remote_origin=origin,
            ssl_context=self._ssl_context,
            proxy_ssl_context=self._proxy_ssl_context,
            keepalive_expiry=self._keepalive_expiry,
            network_backend=self._network_backend,
        )


async def tunnel_socket(proxy_url: str, target: str, *, host: str) -> socket.socket:
    """A TCP socket through an http:// proxy's tunnel to `target` (`address:port`), for the
    WebSocket relay, which runs its handshake over a plain socket. h11 speaks the CONNECT;
    raises ProxyRefused/ConnectError as the HTTP path does, OSError when the proxy is down."""
    proxy = httpx.URL(proxy_url)
    headers = [("Host", target), ("Accept", "*/*")]
    if proxy.username:
        userpass = f"{proxy.username}:{proxy.password}".encode()
        headers.append(("Proxy-Authorization", "Basic " + base64.b64encode(userpass).decode()))
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(proxy.host, proxy.port or 80, type=socket.SOCK_STREAM)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setblocking(False)
    try:
        await loop.sock_connect(sock, address)
        wire = h11.Connection(h11.CLIENT)
        request = h11.Request(method="CONNECT", target=target, headers=headers)
        await loop.sock_sendall(
            sock, (wire.send(request) or b"") + (wire.send(h11.EndOfMessage()) or b"")
        )
        try:
            answer = await _connect_answer(wire, sock, loop)
        except h11.ProtocolError as exc:
            raise OSError(f"the proxy's answer to CONNECT is not HTTP: {exc}") from None
        failure = proxy_failure(
            answer.status_code,
            answer.reason.decode("ascii", errors="replace"),
            ", ".join(v.decode("latin-1") for k, v in answer.headers if k == b"proxy-status"),
            target=target,
            host=host,
            tunnel=True,
        )
        if failure is not None:
            raise failure
        if wire.trailing_data[0]:  # the target spoke before the client: not a clean tunnel
            raise OSError("the proxy sent bytes after its CONNECT answer")
    except BaseException:
        sock.close()
        raise
    return sock


async def _connect_answer(
    wire: h11.Connection, sock: socket.socket, loop: asyncio.AbstractEventLoop
) -> h11.Response:
    """The proxy's final answer to CONNECT (informational answers skipped)."""
    read = 0
    while True:
        event = wire.next_event()
        if event is h11.NEED_DATA:
            chunk = await loop.sock_recv(sock, 4096)
            read += len(chunk)
            if read > _MAX_CONNECT_ANSWER:
                raise OSError("the proxy's answer to CONNECT is too long")
            wire.receive_data(chunk)  # b"" is the end of the stream: h11 raises on it
            continue
        if isinstance(event, h11.Response):
            return event
        if not isinstance(event, h11.InformationalResponse):
            raise OSError(f"the proxy answered CONNECT with {type(event).__name__}")
