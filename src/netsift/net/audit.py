"""The audit log: one NDJSON line per request netsift sends, so an operator can answer
"what did the agent touch?" after the fact (`NETSIFT_AUDIT_LOG`).

Each line is written with a single `write` on a file opened with O_APPEND, so lines from
concurrent writers (tasks, threads, processes) never interleave; nothing is buffered.
URLs lose their query string and credentials before they are written. HttpClient writes
its lines itself; `AuditedTransport` does the same for clients an SDK drives (openai).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from .guard import safe_url
from .proxy import TARGET_ADDRESS
from .request_id import request_id_var

__all__ = [
    "AuditLog",
    "AuditedTransport",
    "build_audit_entry",
    "outcome_of",
    "request_id_var",
    "server_ip",
]


def build_audit_entry(
    *,
    kind: str,
    method: str,
    url: str,
    resolved_ip: str | None,
    status: int | None,
    size: int,
    elapsed_ms: float,
    outcome: str,
    at: datetime | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """One line's fields, in a stable order (pure)."""
    return {
        "at": (at or datetime.now(UTC)).isoformat(timespec="milliseconds"),
        "kind": kind,
        "method": method,
        "url": safe_url(url),
        "resolved_ip": resolved_ip,
        "status": status,
        "bytes": size,
        "elapsed_ms": round(elapsed_ms, 1),
        "outcome": outcome,
        "request_id": request_id if request_id is not None else request_id_var.get(),
    }


class AuditLog:
    """Appends NDJSON lines to `path` (created with mode 0600 when missing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def write(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def record(self, **fields: Any) -> None:
        """Build one entry (see `build_audit_entry`) and append it."""
        self.write(build_audit_entry(**fields))


class _CountingStream(httpx.AsyncByteStream):
    """Counts the body as the caller reads it and writes the audit line when it closes."""

    def __init__(self, inner: httpx.AsyncByteStream, done: Callable[[int, str], None]) -> None:
        self._inner = inner
        self._done = done
        self._size = 0
        self._outcome = "ok"
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._size += len(chunk)
                yield chunk
        except Exception as exc:
            self._outcome = outcome_of(exc)
            raise

    async def aclose(self) -> None:
        try:
            await self._inner.aclose()
        finally:
            if not self._closed:
                self._closed = True
                self._done(self._size, self._outcome)


def outcome_of(exc: BaseException) -> str:
    """The audit outcome for an exception: a NetsiftError's code, or the nearest one."""
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        return code
    if isinstance(exc, httpx.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx.TransportError):
        return "http_error"
    return "internal"


class AuditedTransport(httpx.AsyncBaseTransport):
    """Wraps a transport so every request through it is audited (for SDK-owned clients,
    such as the openai SDK's, which send without HttpClient)."""

    def __init__(self, inner: httpx.AsyncBaseTransport, audit: AuditLog, *, kind: str) -> None:
        self._inner = inner
        self._audit = audit
        self._kind = kind

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        request_id = request_id_var.get()

        def done(status: int | None, resolved_ip: str | None, size: int, outcome: str) -> None:
            self._audit.record(
                kind=self._kind,
                method=request.method,
                url=str(request.url),
                resolved_ip=resolved_ip,
                status=status,
                size=size,
                elapsed_ms=(time.perf_counter() - started) * 1000,
                outcome=outcome,
                request_id=request_id,
            )

        try:
            response = await self._inner.handle_async_request(request)
        except Exception as exc:
            done(None, None, 0, outcome_of(exc))
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        status, address = response.status_code, server_ip(response)
        response.stream = _CountingStream(
            response.stream, lambda size, outcome: done(status, address, size, outcome)
        )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def server_ip(response: httpx.Response) -> str | None:
    """The address the connection really went to: the checked address a proxy was asked
    for, else the peer of httpcore's network stream."""
    pinned = response.extensions.get(TARGET_ADDRESS)
    if isinstance(pinned, str):
        return pinned
    stream = response.extensions.get("network_stream")
    if stream is None:
        return None
    try:
        address = stream.get_extra_info("server_addr")
    except Exception:  # some backends cannot say; the audit line then has no address
        return None
    if isinstance(address, tuple) and address:
        return str(address[0])
    return None
