"""The one exception tree of netsift: every failure a user can see, with its stable code.

    NetsiftError                      internal · 500 · exit 1
    ├── InvalidInput                  invalid_input · 400 · exit 2
    │   ├── InvalidURL                invalid_url
    │   └── UnsupportedScheme         unsupported_scheme
    ├── Blocked                       403 · exit 3          (group)
    │   ├── BlockedAddress            blocked_address
    │   ├── BlockedByRobots           blocked_by_robots
    │   ├── BlockedBySite             blocked_by_site (a wall: details.wall, details.reason)
    │   └── OutOfScope                out_of_scope (a crawl's link or redirect left its site)
    ├── FetchFailed                   502 · exit 4          (group)
    │   ├── Timeout                   timeout · 504 · retryable
    │   ├── TooManyRedirects          too_many_redirects
    │   ├── TooLarge                  too_large · 413
    │   ├── HTTPError                 http_error (details.status; None = no response)
    │   ├── UnsupportedContentType    unsupported_content_type · 415
    │   ├── DecodeError               decode_error
    │   ├── DNSError                  dns_error (retryable when the resolver said "try again")
    │   ├── ConnectError              connect_error · retryable (refused, reset, unreachable)
    │   ├── TLSError                  tls_error (bad certificate or handshake)
    │   ├── ProxyRefused              proxy_refused (the proxy would not go to the checked address)
    │   ├── RenderFailed              render_failed · retryable (the browser crashed or hung)
    │   └── TooComplex                too_complex · 422 (details.limit: cpu|time|memory|depth)
    ├── ProviderFailed                502 · exit 4          (group)
    │   ├── ProviderAuth              provider_auth
    │   ├── QuotaExceeded             quota_exceeded · 429
    │   ├── ProviderUnavailable       provider_unavailable · retryable
    │   ├── RateLimited               rate_limited · 429 · retry_after · retryable
    │   └── AllProvidersFailed        all_providers_failed · details.attempts
    ├── Disabled                      disabled · 503 · exit 5
    ├── ConfigError                   config_error · 503 · exit 5 (details.key: what to set)
    ├── Unauthorized                  unauthorized · 401 · exit 5 (no or an unknown API key)
    ├── BudgetExhausted               budget_exhausted · 429
    ├── LLMError                      llm_error · 502 · exit 4
    ├── NotFound                      not_found · 404
    └── AlreadyFinished               already_finished · 409 (cancelling a job that ended)

Each class knows its code, HTTP status and CLI exit code (click's habit), so interfaces render
errors without an if/elif ladder. The group classes have no code of their own: raising one
directly is a bug. Messages are written for the person or agent who reads them and never carry
secrets; `details` holds machine-readable context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # for a type only: `netsift --help` loads no pydantic
    from pydantic import ValidationError

__all__ = [
    "AllProvidersFailed",
    "AlreadyFinished",
    "Blocked",
    "BlockedAddress",
    "BlockedByRobots",
    "BlockedBySite",
    "BudgetExhausted",
    "ConfigError",
    "ConnectError",
    "DNSError",
    "DecodeError",
    "Disabled",
    "FetchFailed",
    "HTTPError",
    "InvalidInput",
    "InvalidURL",
    "LLMError",
    "NetsiftError",
    "NotFound",
    "OutOfScope",
    "ProviderAuth",
    "ProviderFailed",
    "ProviderUnavailable",
    "ProxyRefused",
    "QuotaExceeded",
    "RateLimited",
    "RenderFailed",
    "TLSError",
    "Timeout",
    "TooComplex",
    "TooLarge",
    "TooManyRedirects",
    "Unauthorized",
    "UnsupportedContentType",
    "UnsupportedScheme",
    "error_from_dict",
]


class NetsiftError(Exception):
    """Base of every error netsift reports; anything unexpected is reported as `internal`."""

    code: ClassVar[str] = "internal"
    status: ClassVar[int] = 500
    exit_code: ClassVar[int] = 1
    default_retryable: ClassVar[bool] = False

    def __init__(
        self,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.retryable = self.default_retryable if retryable is None else retryable

    def to_dict(self) -> dict[str, Any]:
        """The error object every interface shows: `{code, message, retryable, details}`."""
        return {
            "code": self.code,
            "message": self.message,
            "retryable": self.retryable,
            "details": self.details,
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r})"


class InvalidInput(NetsiftError):
    """The caller's input is not acceptable; the message says what is allowed."""

    code = "invalid_input"
    status = 400
    exit_code = 2

    @classmethod
    def from_validation(
        cls, exc: ValidationError, *, subject: str = "input", lead: str = ""
    ) -> InvalidInput:
        """`lead` then `field: problem; ...` from pydantic's verdict, without echoing the input
        back; a problem with the whole value is named `subject`."""
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or subject}: {err['msg']}"
            for err in exc.errors()
        )
        return cls(lead + problems)


class InvalidURL(InvalidInput):
    """The URL cannot be parsed or has no host."""

    code = "invalid_url"


class UnsupportedScheme(InvalidInput):
    """Only http and https are fetched."""

    code = "unsupported_scheme"


class Blocked(NetsiftError):
    """Group: the request was refused: by netsift before it was sent, or by the site."""

    status = 403
    exit_code = 3


class BlockedAddress(Blocked):
    """The destination resolves to an address that is not globally routable."""

    code = "blocked_address"


class BlockedByRobots(Blocked):
    """The site's robots.txt disallows this URL for netsift's user agent."""

    code = "blocked_by_robots"


class BlockedBySite(Blocked):
    """The site answered with a wall instead of the page: a bot challenge, a captcha, a login
    wall, a paywall stub, an "enable JavaScript" page or a bot block (`details.wall` names
    which, `details.reason` what gave it away). Not retryable: the same request meets the
    same wall."""

    code = "blocked_by_site"


class OutOfScope(Blocked):
    """A crawl refused a URL (a link, or a redirect hop) outside the site it was asked to read."""

    code = "out_of_scope"


class FetchFailed(NetsiftError):
    """Group: the request was sent but no usable page came back."""

    status = 502
    exit_code = 4


class Timeout(FetchFailed):
    """Connect, read or the whole fetch's deadline ran out."""

    code = "timeout"
    status = 504
    default_retryable = True


class TooManyRedirects(FetchFailed):
    """More redirects than allowed, or a redirect loop."""

    code = "too_many_redirects"


class TooLarge(FetchFailed):
    """The body (raw or decompressed) is larger than the configured cap."""

    code = "too_large"
    status = 413


class HTTPError(FetchFailed):
    """The server answered with an error status (kept in `details.status`)."""

    code = "http_error"

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
    ) -> None:
        merged = {"status": status_code, **(details or {})}
        if retryable is None:
            retryable = status_code is None or status_code == 429 or status_code >= 500
        super().__init__(message, details=merged, retryable=retryable)
        self.status_code = status_code

    @property
    def http_status(self) -> int:
        """404 stays 404 for API callers; any other upstream error is a 502."""
        return 404 if self.status_code in (404, 410) else self.status


class UnsupportedContentType(FetchFailed):
    """The page is an image or another binary netsift does not read."""

    code = "unsupported_content_type"
    status = 415


class DecodeError(FetchFailed):
    """The body could not be decoded or parsed as its content type."""

    code = "decode_error"


class DNSError(FetchFailed):
    """The host name does not resolve (no such name, or no resolver answering)."""

    code = "dns_error"


class ConnectError(FetchFailed):
    """The host resolved but no connection could be made (refused, reset, unreachable)."""

    code = "connect_error"
    default_retryable = True


class TLSError(FetchFailed):
    """The TLS handshake failed: an untrusted or mismatched certificate, or no common
    protocol. Not retryable: the same certificate will fail the same way."""

    code = "tls_error"


class ProxyRefused(FetchFailed):
    """The configured proxy refused the request netsift sent it: the checked address in place
    of the name (`details.proxy_status`, and `details.proxy_error` when the proxy said why).
    Not retryable: the proxy's policy will answer the same way."""

    code = "proxy_refused"


class RenderFailed(FetchFailed):
    """The headless browser crashed, hung or could not start while rendering a page."""

    code = "render_failed"
    default_retryable = True


class TooComplex(FetchFailed):
    """Reading the page needed more CPU time, memory or nesting than a page may use.

    422 (the content arrived but cannot be processed within the limits), not 413: the page may
    be small (a 120 KB page can be pathological); `details.limit` names what ran out."""

    code = "too_complex"
    status = 422


class ProviderFailed(NetsiftError):
    """Group: a search provider did not give a usable answer."""

    status = 502
    exit_code = 4


class ProviderAuth(ProviderFailed):
    """The provider refused the key, or no key is configured."""

    code = "provider_auth"


class QuotaExceeded(ProviderFailed):
    """The provider's plan or budget is used up."""

    code = "quota_exceeded"
    status = 429


class ProviderUnavailable(ProviderFailed):
    """The provider failed, blocked us (CAPTCHA, anomaly page) or sent an unusable page."""

    code = "provider_unavailable"
    default_retryable = True


class RateLimited(ProviderFailed):
    """Too many requests: wait `retry_after` seconds (when known) before trying again."""

    code = "rate_limited"
    status = 429
    default_retryable = True

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        details: dict[str, Any] | None = None,
        retryable: bool | None = None,
    ) -> None:
        merged = dict(details or {})
        if retry_after is not None:
            merged["retry_after"] = retry_after
        super().__init__(message, details=merged, retryable=retryable)
        self.retry_after = retry_after


class AllProvidersFailed(ProviderFailed):
    """Every provider tried failed; `details.attempts` says how each one did."""

    code = "all_providers_failed"
    default_retryable = True


class Disabled(NetsiftError):
    """The capability or provider is switched off by configuration."""

    code = "disabled"
    status = 503
    exit_code = 5


class ConfigError(NetsiftError):
    """A setting is missing or invalid (`details.key` names it): the fix is configuration,
    so trying again unchanged cannot help. Exit 5, like `disabled`."""

    code = "config_error"
    status = 503
    exit_code = 5


class Unauthorized(NetsiftError):
    """The request carries no API key, or one the server does not know (`NETSIFT_API_KEYS`).

    Exit 5 like `disabled`: the fix is configuration (the key to send), not the input."""

    code = "unauthorized"
    status = 401
    exit_code = 5


class BudgetExhausted(NetsiftError):
    """A per-request or per-session budget (searches, pages, tokens) is used up."""

    code = "budget_exhausted"
    status = 429


class LLMError(NetsiftError):
    """The language model endpoint failed or answered unusably."""

    code = "llm_error"
    status = 502
    exit_code = 4
    default_retryable = True


class NotFound(NetsiftError):
    """The job, sleep or other object asked for does not exist."""

    code = "not_found"
    status = 404


class AlreadyFinished(NetsiftError):
    """The job already ended (done, failed, cancelled or interrupted): there is nothing left
    to cancel. Asking again answers the same; the job and its result stay readable."""

    code = "already_finished"
    status = 409


def _leaves(cls: type[NetsiftError]) -> list[type[NetsiftError]]:
    found = [cls]
    for sub in cls.__subclasses__():
        found.extend(_leaves(sub))
    return found


_BY_CODE: dict[str, type[NetsiftError]] = {
    cls.code: cls
    for cls in _leaves(NetsiftError)
    if cls not in (Blocked, FetchFailed, ProviderFailed)
}


def error_from_dict(data: dict[str, Any]) -> NetsiftError:
    """Rebuild an error from its `to_dict()` form (errors crossing a process or a store)."""
    cls = _BY_CODE.get(str(data.get("code")), NetsiftError)
    details = dict(data.get("details") or {})
    message = str(data.get("message", ""))
    retryable = bool(data.get("retryable", cls.default_retryable))
    if cls is HTTPError:
        status = details.pop("status", None)
        status_code = int(status) if status is not None else None
        return HTTPError(message, status_code=status_code, details=details, retryable=retryable)
    if cls is RateLimited:
        retry_after = details.pop("retry_after", None)
        return RateLimited(message, retry_after=retry_after, details=details, retryable=retryable)
    return cls(message, details=details, retryable=retryable)
