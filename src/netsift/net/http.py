"""HttpClient: the one way netsift sends HTTP — guarded, capped, timed, retried, audited.

Every request goes through `HttpClient.send`. It validates the URL (`check_url`), follows
redirects itself so every hop is re-checked (URL, connect-time address guard, `on_hop` for
robots.txt), caps the body while it streams (raw and decompressed, so compression bombs stop
early with flat memory), enforces a total deadline around the whole exchange (redirects and
body included, so a slow-drip server cannot hold a fetch), retries idempotent requests on
connect errors, 5xx and 429-with-Retry-After with jittered exponential backoff, and writes
one audit line per request actually sent. `map_httpx_errors()` is the one place httpx and
httpcore exceptions become NetsiftErrors. 4xx/5xx responses are returned, not raised.
"""

from __future__ import annotations

import contextlib
import re
import socket
import ssl
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from datetime import timedelta
from typing import Any

import anyio
import anyio.lowlevel
import httpcore
import httpx

from .. import errors
from ..config import Settings
from ..errors import InvalidURL, NetsiftError, TooLarge, TooManyRedirects, UnsupportedScheme
from .audit import AuditedTransport, AuditLog, server_ip
from .decompress import build_decoder, decode_errors
from .guard import AddressPolicy, check_url, safe_url
from .resolver import Resolver, StaticResolver, SystemResolver
from .retry import IDEMPOTENT_METHODS, build_retry_wait
from .transport import GuardedTransport, ResolveError

__all__ = [
    "HttpClient",
    "StopBody",
    "make_client",
    "map_httpx_errors",
]

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Headers a request keeps when a redirect leaves its origin. Anything else may carry a
# secret under a vendor's own name (Brave's X-Subscription-Token, X-API-Key…), so an
# allow-list, not a deny-list, decides what crosses.
_CROSS_ORIGIN_HEADERS = frozenset(
    {"accept", "accept-encoding", "accept-language", "cache-control", "user-agent"}
    | {"content-type", "content-length", "transfer-encoding"}
)
_QUERY = re.compile(r"\?[^\s'\"<>]*")

OnHop = Callable[[httpx.URL], Awaitable[None]]
# Where a streamed body's decoded pieces go (`send(sink=...)`): a file being written, say.
Sink = Callable[[bytes], object]
# Bytes of a body read between two chances for the loop to answer: a local 18 MB sitemap
# arrives faster than it is read, and its chunks were read in one stretch of tens of ms.
READ_SLICE = 1 << 20


def _scrub(text: str) -> str:
    """Drop query strings from a message that may quote a URL (keys live there)."""
    return _QUERY.sub("", text)


@contextlib.contextmanager
def map_httpx_errors(url: httpx.URL | str | None = None) -> Iterator[None]:
    """Turn httpx/httpcore exceptions into NetsiftErrors, most specific first, `from exc`."""
    where = f" ({safe_url(url)})" if url is not None else ""
    try:
        yield
    except (httpx.TimeoutException, httpcore.TimeoutException) as exc:
        phase = {
            "ConnectTimeout": "connecting",
            "ReadTimeout": "waiting for data",
            "WriteTimeout": "sending the request",
            "PoolTimeout": "waiting for a free connection",
        }.get(type(exc).__name__, "waiting")
        raise errors.Timeout(
            f"timed out {phase}{where}", details={"stage": phase, **_where(url)}
        ) from exc
    except (httpx.ConnectError, httpcore.ConnectError) as exc:
        raise connect_failure(exc, where, _where(url)) from exc
    except (httpx.ProxyError, httpcore.ProxyError) as exc:
        raise errors.HTTPError(
            f"the proxy failed{where}: {_scrub(str(exc))}", status_code=None, details=_where(url)
        ) from exc
    except (
        httpx.NetworkError,
        httpx.ProtocolError,
        httpcore.NetworkError,
        httpcore.ProtocolError,
    ) as exc:
        raise errors.HTTPError(
            f"the connection failed{where}: {_scrub(str(exc)) or type(exc).__name__}",
            status_code=None,
            details={"stage": "read", **_where(url)},
        ) from exc
    except httpx.DecodingError as exc:
        raise errors.DecodeError(
            f"the response body could not be decoded{where}: {_scrub(str(exc))}",
            details=_where(url),
        ) from exc
    except (httpx.UnsupportedProtocol, httpcore.UnsupportedProtocol) as exc:
        raise UnsupportedScheme(
            f"unsupported scheme{where}; netsift fetches http and https only"
        ) from exc
    except httpx.InvalidURL as exc:
        raise InvalidURL(f"not a valid URL: {_scrub(str(exc))}") from exc


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc` and what it was raised from (httpx wraps httpcore wraps ssl/OSError)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def connect_failure(exc: BaseException, where: str, details: dict[str, Any]) -> NetsiftError:
    """A connection that could not be made, named by its cause: the name did not resolve
    (`dns_error`), the TLS handshake failed (`tls_error`), or the host did not take the
    connection (`connect_error`). `details.stage` is "connect" for all three: HttpClient
    retries that stage (a DNS "try again" and a refused port may both pass)."""
    chain = list(_causes(exc))
    said = _scrub(str(exc)) or type(exc).__name__
    details = {"stage": "connect", **details}
    if any(isinstance(cause, ResolveError) for cause in chain):
        transient = any(
            isinstance(cause, socket.gaierror) and cause.errno == socket.EAI_AGAIN
            for cause in chain
        )
        reason = next((c.strerror for c in chain if isinstance(c, OSError) and c.strerror), said)
        return errors.DNSError(
            f"the host name does not resolve{where}: {reason}",
            details=details,
            retryable=transient,
        )
    tls = next((cause for cause in chain if isinstance(cause, ssl.SSLError)), None)
    if tls is not None:
        reason = getattr(tls, "verify_message", None) or getattr(tls, "reason", None) or said
        return errors.TLSError(
            f"the TLS handshake failed{where}: {_scrub(str(reason))}", details=details
        )
    return errors.ConnectError(f"could not connect{where}: {said}", details=details)


def _where(url: httpx.URL | str | None) -> dict[str, Any]:
    return {"url": safe_url(url)} if url is not None else {}


class _OverCap(Exception):
    def __init__(self, what: str) -> None:
        self.what = what


class StopBody(Exception):
    """Raised by a `send(sink=...)` sink that has all it needs of a body: reading ends there,
    the connection is closed rather than drained, and `send` returns the response (the
    sitemap reader stops a download once it lists the URLs a map wants)."""


class _Exchange:
    """What one attempt produced, for the audit line."""

    resolved_ip: str | None = None
    status: int | None = None
    size: int = 0


class HttpClient:
    """The only HTTP client in netsift. See the module docstring for what `send` guarantees."""

    def __init__(
        self,
        settings: Settings,
        *,
        resolver: Resolver | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        audit: AuditLog | None = None,
    ) -> None:
        self.settings = settings
        self.policy = AddressPolicy.from_cidrs(settings.allow_networks)
        self.resolver: Resolver = resolver or StaticResolver(
            settings.resolve_map(), fallback=SystemResolver()
        )
        self._given_transport = transport
        self._sdk_clients: list[httpx.AsyncClient] = []
        self.transport: httpx.AsyncBaseTransport = transport or GuardedTransport(
            self.resolver,
            self.policy,
            http_proxy=settings.http_proxy,
            https_proxy=settings.https_proxy,
            proxy_enforces_egress=settings.proxy_enforces_egress,
        )
        self.audit = audit
        self._timeouts = {
            "connect": settings.connect_timeout,
            "read": settings.read_timeout,
            "write": settings.read_timeout,
            "pool": settings.connect_timeout,
        }

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.transport.aclose()
        for client in self._sdk_clients:
            await client.aclose()

    def openai_http_client(self, *, timeout: float | None = None) -> httpx.AsyncClient:
        """An `httpx.AsyncClient` for the openai SDK (`AsyncOpenAI(http_client=...)`).

        It sends through a guarded transport of its own, audited as kind "llm". The host of
        `settings.openai_base_url` is trusted (the operator chose it, and local servers such
        as Ollama live on the loopback, which must not be opened to fetches through
        NETSIFT_ALLOW_NETWORKS); any other host it is sent to passes the address guard.
        With a test `transport=`, that transport is used instead. Closed with this client.
        """
        trusted = []
        if self.settings.openai_base_url:
            trusted.append(httpx.URL(self.settings.openai_base_url).host)
        transport: httpx.AsyncBaseTransport = self._given_transport or GuardedTransport(
            self.resolver,
            self.policy,
            http_proxy=self.settings.http_proxy,
            https_proxy=self.settings.https_proxy,
            proxy_enforces_egress=self.settings.proxy_enforces_egress,
            trusted_hosts=trusted,
        )
        if self.audit is not None:
            transport = AuditedTransport(transport, self.audit, kind="llm")
        client = httpx.AsyncClient(
            transport=transport,
            timeout=self.settings.llm_timeout if timeout is None else timeout,
            headers={"User-Agent": self.settings.user_agent},
            follow_redirects=False,
        )
        self._sdk_clients.append(client)
        return client

    async def send(
        self,
        request: httpx.Request,
        *,
        kind: str,
        retries: int | None = None,
        deadline: float | None = None,
        max_bytes: int | None = None,
        on_hop: OnHop | None = None,
        follow_redirects: bool = True,
        sink: Sink | None = None,
    ) -> httpx.Response:
        """Send `request` (following redirects); the response's body is already read — or,
        with `sink`, a 2xx answer's body is handed to it piece by piece as it arrives
        (decoded, under the cap) and not kept (`content` is empty): a large document never
        sits whole in memory nor is joined in one piece on the loop. A sink that raises
        `StopBody` ends the read there."""
        total = self.settings.timeout if deadline is None else deadline
        cap = self.settings.max_bytes if max_bytes is None else max_bytes
        tries = self.settings.retries if retries is None else retries
        try:
            with anyio.fail_after(total) as scope:
                return await self._follow(
                    request,
                    kind=kind,
                    retries=tries,
                    cap=cap,
                    on_hop=on_hop,
                    follow=follow_redirects,
                    scope=scope,
                    sink=sink,
                )
        except TimeoutError as exc:
            raise errors.Timeout(
                f"{safe_url(request.url)} took longer than the {total:g}s deadline",
                details={"url": safe_url(request.url), "deadline": total},
            ) from exc

    async def _follow(
        self,
        request: httpx.Request,
        *,
        kind: str,
        retries: int,
        cap: int,
        on_hop: OnHop | None,
        follow: bool,
        scope: anyio.CancelScope,
        sink: Sink | None = None,
    ) -> httpx.Response:
        current = self._prepare(request, self._checked(request.url, request.method, kind))
        history: list[httpx.Response] = []
        seen = {(current.method, str(current.url))}
        while True:
            if on_hop is not None:
                await on_hop(current.url)
            response = await self._send_retrying(
                current, kind=kind, retries=retries, cap=cap, scope=scope, sink=sink
            )
            location = response.headers.get("location")
            if not follow or response.status_code not in REDIRECT_STATUSES or location is None:
                response.history = history
                return response
            if len(history) >= self.settings.max_redirects:
                raise TooManyRedirects(
                    f"{safe_url(request.url)} redirected more than "
                    f"{self.settings.max_redirects} times",
                    details={"url": safe_url(request.url), "max": self.settings.max_redirects},
                )
            target = self._checked(_join(current.url, location), current.method, kind)
            following = self._redirect_request(current, response, target)
            key = (following.method, str(following.url))
            if key in seen:
                raise TooManyRedirects(
                    f"{safe_url(request.url)} redirects in a loop (back to {safe_url(target)})",
                    details={"url": safe_url(request.url), "loop": True},
                )
            seen.add(key)
            history.append(response)
            current = following

    def _checked(self, url: httpx.URL | str, method: str, kind: str) -> httpx.URL:
        """check_url, with a refusal written to the audit log (nothing was sent)."""
        try:
            return check_url(url)
        except NetsiftError as exc:
            if self.audit is not None:
                self.audit.record(
                    kind=kind,
                    method=method,
                    url=str(url),
                    resolved_ip=None,
                    status=None,
                    size=0,
                    elapsed_ms=0.0,
                    outcome=exc.code,
                )
            raise

    def _prepare(self, request: httpx.Request, url: httpx.URL) -> httpx.Request:
        """The request as sent: checked URL, our User-Agent unless the caller set one."""
        if url != request.url:
            request.url = url
            request.headers["Host"] = url.netloc.decode("ascii")
        request.headers.setdefault("User-Agent", self.settings.user_agent)
        request.headers.setdefault("Accept", "*/*")
        request.headers.setdefault("Accept-Encoding", "gzip, deflate, br, zstd")
        request.extensions = {**request.extensions, "timeout": dict(self._timeouts)}
        return request

    def _redirect_request(
        self, request: httpx.Request, response: httpx.Response, url: httpx.URL
    ) -> httpx.Request:
        """The next hop: method rules of 301/302/303 vs 307/308; only safe headers cross origins."""
        method = request.method
        status = response.status_code
        if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
            method = "GET"
        headers = httpx.Headers(request.headers)
        del headers["Host"]
        if _origin(url) != _origin(request.url):
            headers = httpx.Headers(
                [(k, v) for k, v in headers.multi_items() if k.lower() in _CROSS_ORIGIN_HEADERS]
            )
        content: bytes | None = None
        if method == request.method and status in (307, 308):
            content = request.content
        else:
            for name in ("content-length", "content-type", "transfer-encoding"):
                headers.pop(name, None)
        following = httpx.Request(method, url, headers=headers, content=content)
        return self._prepare(following, url)

    async def _send_retrying(
        self,
        request: httpx.Request,
        *,
        kind: str,
        retries: int,
        cap: int,
        scope: anyio.CancelScope,
        sink: Sink | None = None,
    ) -> httpx.Response:
        retryable_method = request.method in IDEMPOTENT_METHODS
        attempt = 0
        while True:
            can_retry = retryable_method and attempt < retries
            try:
                response = await self._send_once(
                    request, kind=kind, cap=cap, scope=scope, sink=sink
                )
            except (errors.ConnectError, errors.DNSError) as exc:
                if not (can_retry and exc.retryable):
                    raise
                wait = build_retry_wait(None, None, attempt=attempt, max_wait=0)
                if wait is None or not self._fits(wait, scope):
                    raise
            else:
                if not can_retry:
                    return response
                wait = build_retry_wait(
                    response.status_code,
                    response.headers.get("retry-after"),
                    attempt=attempt,
                    max_wait=self.settings.retry_max_wait,
                )
                if wait is None or not self._fits(wait, scope):
                    return response
            attempt += 1
            await anyio.sleep(wait)

    @staticmethod
    def _fits(wait: float, scope: anyio.CancelScope) -> bool:
        """A retry is only worth it if the wait leaves time before the deadline."""
        return scope.deadline - anyio.current_time() > wait + 0.05

    async def _send_once(
        self,
        request: httpx.Request,
        *,
        kind: str,
        cap: int,
        scope: anyio.CancelScope,
        sink: Sink | None = None,
    ) -> httpx.Response:
        started = time.perf_counter()
        seen = _Exchange()
        outcome = "ok"
        try:
            with map_httpx_errors(request.url):
                response = await self.transport.handle_async_request(request)
            response.request = request
            seen.status = response.status_code
            seen.resolved_ip = server_ip(response)
            await self._read(response, cap, seen, sink if response.is_success else None)
            response.elapsed = timedelta(seconds=time.perf_counter() - started)
            return response
        except NetsiftError as exc:
            outcome = exc.code
            raise
        except anyio.get_cancelled_exc_class():
            outcome = "timeout" if scope.cancel_called else "cancelled"
            raise
        except Exception:
            outcome = "internal"
            raise
        finally:
            if self.audit is not None:
                self.audit.record(
                    kind=kind,
                    method=request.method,
                    url=str(request.url),
                    resolved_ip=seen.resolved_ip,
                    status=seen.status,
                    size=seen.size,
                    elapsed_ms=(time.perf_counter() - started) * 1000,
                    outcome=outcome,
                )

    async def _read(
        self, response: httpx.Response, cap: int, seen: _Exchange, sink: Sink | None = None
    ) -> None:
        """Read the body under the cap, raw and decoded, chunk by chunk (to `sink` when one is
        given), letting the loop answer every READ_SLICE bytes: a body that arrives faster
        than it is read would otherwise be read in one stretch."""
        where = safe_url(response.request.url)
        declared = response.headers.get("content-length", "")
        bodiless = response.request.method == "HEAD" or response.status_code in (204, 304)
        if not bodiless and declared.strip().isdigit() and int(declared) > cap:
            await response.aclose()
            raise TooLarge(
                f"{where} declares {int(declared)} bytes, over the {cap}-byte cap",
                details={"url": where, "max_bytes": cap, "declared": int(declared)},
            )
        try:  # a response built in memory (a test's MockTransport) arrives already read
            seen.size = len(response.content)
        except httpx.ResponseNotRead:
            pass
        else:
            if seen.size > cap:
                raise TooLarge(
                    f"the body of {where} is larger than the {cap}-byte cap",
                    details={"url": where, "max_bytes": cap},
                )
            return
        decoder = build_decoder(response.headers.get("content-encoding"))
        chunks: list[bytes] = []
        size = 0

        def keep(pieces: Iterable[bytes]) -> None:
            nonlocal size
            for piece in pieces:
                size += len(piece)
                if size > cap:
                    raise _OverCap("decompressed body")
                if sink is None:
                    chunks.append(piece)
                else:
                    sink(piece)

        finished = False
        try:
            with map_httpx_errors(response.request.url):
                answered = 0
                async for raw in response.aiter_raw():
                    seen.size += len(raw)
                    if seen.size > cap:
                        raise _OverCap("body")
                    keep(decoder.decode(raw))
                    if seen.size - answered >= READ_SLICE:
                        answered = seen.size
                        await anyio.lowlevel.checkpoint()
                keep(decoder.flush())
            finished = True
        except StopBody:
            pass  # not `finished`: the rest is left unread and the connection closed
        except _OverCap as over:
            raise TooLarge(
                f"the {over.what} of {where} is larger than the {cap}-byte cap",
                details={"url": where, "max_bytes": cap},
            ) from None
        except decode_errors() as exc:
            raise errors.DecodeError(
                f"the body of {where} is not valid "
                f"{response.headers.get('content-encoding', '')}: {exc}",
                details={"url": where},
            ) from exc
        finally:
            if not finished:  # give the connection back even when cancelled by the deadline
                with anyio.CancelScope(shield=True):
                    await response.aclose()
        response._content = b"".join(chunks)


def _join(base: httpx.URL, location: str) -> httpx.URL | str:
    """The redirect target. An absolute Location httpx cannot parse (a dotted-octal host,
    fullwidth digits) is returned as text, for check_url to normalize or refuse."""
    try:
        return base.join(location)
    except httpx.InvalidURL:
        if "://" in location:
            return location
        raise InvalidURL("a redirect pointed to an invalid URL") from None


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


def make_client(
    settings: Settings,
    *,
    resolver: Resolver | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> HttpClient:
    """The HttpClient for these settings, with the audit log on when NETSIFT_AUDIT_LOG is set."""
    audit = AuditLog(settings.audit_log) if settings.audit_log else None
    return HttpClient(settings, resolver=resolver, transport=transport, audit=audit)
