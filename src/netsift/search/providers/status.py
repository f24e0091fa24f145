"""Failure classification every provider shares: HTTP status → typed error, one place.

A provider first checks what only it knows (Brave's `error.code`, DuckDuckGo's anomaly page,
GitHub's exhausted primary limit), then hands the rest here. The mapping follows SearXNG's
`raise_for_httperror`: 401/403 → ProviderAuth, 402 → QuotaExceeded, 429 → RateLimited with the
server's Retry-After, 5xx → ProviderUnavailable. Messages quote the provider's own explanation
(which is written for humans) but never the request, whose URL may carry a key.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ...errors import ProviderAuth, ProviderUnavailable, QuotaExceeded, RateLimited
from ...net.retry import retry_after_of

__all__ = ["raise_for_status", "read_json", "retry_after_from"]

MAX_DETAIL = 300  # characters of the provider's own message quoted in ours


def retry_after_from(response: httpx.Response) -> float | None:
    """Seconds to wait from `Retry-After` (delta-seconds or an HTTP date), else None."""
    return retry_after_of(response.headers)


def read_json(response: httpx.Response, provider: str) -> Any:
    """The decoded JSON body, or ProviderUnavailable when the body is not JSON."""
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProviderUnavailable(
            f"{provider} sent a body that is not valid JSON (HTTP {response.status_code})",
            details={"status": response.status_code},
        ) from exc


def raise_for_status(
    response: httpx.Response,
    provider: str,
    *,
    detail: str | None = None,
    retry_after: float | None = None,
) -> None:
    """Raise the typed error for an unsuccessful response; return for 2xx.

    `detail` is the provider's own explanation (quoted, trimmed); `retry_after` overrides the
    Retry-After header for providers that signal the wait elsewhere.
    """
    status = response.status_code
    if 200 <= status < 300:
        return
    said = f": {_trim(detail)}" if detail else ""
    details: dict[str, Any] = {"status": status}
    if status in (401, 403):
        raise ProviderAuth(f"{provider} refused the request (HTTP {status}){said}", details=details)
    if status == 402:
        raise QuotaExceeded(f"{provider}'s plan or credit is used up{said}", details=details)
    if status == 429:
        wait = retry_after if retry_after is not None else retry_after_from(response)
        raise RateLimited(
            f"{provider} says too many requests{said}", retry_after=wait, details=details
        )
    if status >= 500:
        raise ProviderUnavailable(f"{provider} failed with HTTP {status}{said}", details=details)
    raise ProviderUnavailable(
        f"{provider} rejected the request with HTTP {status}{said}",
        details=details,
        retryable=False,
    )


def _trim(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_DETAIL else flat[: MAX_DETAIL - 1] + "…"
