"""Which URLs belong to a crawl or a map, and when two URLs name the same page; pure.

A site's pages reach netsift under many spellings (`HTTP://Site:80/a/../b?y=2&x=1#top`,
tracking parameters, `www.`): `canonical_url` is the one spelling used as the key of the
seen-set, never the URL fetched. `Scope` says whether a URL is in bounds and, when it is not,
why — a crawler reports what it left out. Path patterns are the callers' regular
expressions (Firecrawl's `includePaths`, Tavily's `select_paths`), so they run on the `regex`
engine with a time limit: a catastrophic pattern costs one refused URL, not a stalled crawl.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit, urlunsplit

import httpx
import regex

from ..errors import InvalidInput

__all__ = ["Scope", "canonical_url", "check_patterns", "site_host"]

DEFAULT_PORTS = {"http": 80, "https": 443}
# Query parameters that only say where a visitor came from; they never change the page.
TRACKING_PARAMS = frozenset({"gclid", "fbclid", "msclkid", "mc_cid", "mc_eid", "_ga", "yclid"})
TRACKING_PREFIXES = ("utm_",)
# Bounds on caller patterns: enough for any real include/exclude list, small enough that
# compiling and matching them stays negligible beside fetching a page.
MAX_PATTERNS = 100
MAX_PATTERN_LENGTH = 500
# One pattern's match on one URL path; real patterns take microseconds, so 50 ms only ever
# stops a backtracking one.
PATTERN_TIMEOUT = 0.05


def canonical_url(url: str) -> str:
    """The key two spellings of one page share: scheme and host lowercased (IDNA as
    punycode), default port, fragment, tracking parameters and dot segments dropped, an empty
    path as `/`, query parameters sorted. Raises InvalidInput for a URL with no http(s) host."""
    parts = _split(url)
    host = _host(parts.hostname or "")
    port = parts.port
    netloc = host if port in (None, DEFAULT_PORTS[parts.scheme.lower()]) else f"{host}:{port}"
    path = _normalize_path(parts.path)
    query = "&".join(sorted(p for p in parts.query.split("&") if p and not _tracking(p)))
    return urlunsplit((parts.scheme.lower(), netloc, path, query, ""))


def site_host(url: str) -> str:
    """The host a site is known by: lowercased, punycode, without a leading `www.`."""
    return _strip_www(_host(_split(url).hostname or ""))


@dataclass(frozen=True)
class Scope:
    """The bounds of a crawl: the start URL's site (and its subdomains, if asked), then the
    path patterns. `www.example.org` and `example.org` are one site."""

    host: str
    subdomains: bool = False
    include: tuple[regex.Pattern[str], ...] = ()
    exclude: tuple[regex.Pattern[str], ...] = ()

    @classmethod
    def of(
        cls,
        start_url: str,
        *,
        subdomains: bool = False,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
    ) -> Scope:
        return cls(
            host=site_host(start_url),
            subdomains=subdomains,
            include=_compile(include, "include"),
            exclude=_compile(exclude, "exclude"),
        )

    def allows(self, url: str) -> bool:
        return self.refusal(url) is None

    def site_refusal(self, url: str) -> str | None:
        """None when `url` is on the crawl's site, else why not (the path patterns aside)."""
        return self._site(url)[1]

    def refusal(self, url: str) -> str | None:
        """None when `url` is in scope, else why not, in words a report can show."""
        parts, why = self._site(url)
        if parts is None or why is not None:
            return why
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        for pattern in self.exclude:
            if _matches(pattern, target) is not False:  # a pattern that timed out excludes
                return f"the path matches the exclude pattern {pattern.pattern!r}"
        if self.include and not any(_matches(p, target) for p in self.include):
            return "the path matches no include pattern"
        return None

    def _site(self, url: str) -> tuple[SplitResult | None, str | None]:
        """`url` split once (None when unusable), and why it is off the site (None: on it)."""
        try:
            parts = _split(url)
            host = _strip_www(_host(parts.hostname or ""))
        except InvalidInput as exc:
            return None, exc.message
        if host != self.host and not (self.subdomains and host.endswith("." + self.host)):
            return parts, f"{host} is another site than {self.host}"
        return parts, None


def check_patterns(patterns: Iterable[str], field: str) -> None:
    """Raise InvalidInput, naming `field`, unless `patterns` are usable path patterns (the
    request models check them before anything starts)."""
    _compile(patterns, field)


def _split(url: str) -> SplitResult:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise InvalidInput(f"not a usable URL: {exc}") from None
    if parts.scheme.lower() not in DEFAULT_PORTS or not parts.hostname:
        raise InvalidInput(f"not an http(s) URL with a host: {url[:200]!r}")
    return parts


def _host(host: str) -> str:
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        return httpx.URL(f"http://{host}/").raw_host.decode("ascii")
    except (httpx.InvalidURL, UnicodeError):
        raise InvalidInput(f"not a valid host name: {host[:200]!r}") from None


def _strip_www(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def _normalize_path(path: str) -> str:
    if not path:
        return "/"
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):  # normpath keeps a leading double slash (POSIX)
        normalized = "/" + normalized.lstrip("/")
    if path.endswith("/") and normalized != "/":
        normalized += "/"
    return normalized


def _tracking(pair: str) -> bool:
    name = pair.split("=", 1)[0].lower()
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PREFIXES)


def _compile(patterns: Iterable[str], field: str) -> tuple[regex.Pattern[str], ...]:
    patterns = list(patterns)
    if len(patterns) > MAX_PATTERNS:
        raise InvalidInput(f"{field}: at most {MAX_PATTERNS} patterns", details={"field": field})
    compiled = []
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_PATTERN_LENGTH:
            raise InvalidInput(
                f"{field}: each pattern is a regular expression of 1 to "
                f"{MAX_PATTERN_LENGTH} characters",
                details={"field": field},
            )
        try:
            compiled.append(regex.compile(pattern))
        except regex.error as exc:
            raise InvalidInput(
                f"{field}: {pattern[:100]!r} is not a regular expression ({exc})",
                details={"field": field},
            ) from None
    return tuple(compiled)


def _matches(pattern: regex.Pattern[str], target: str) -> bool | None:
    """True or False; None when the pattern ran out of time on this path."""
    try:
        return pattern.search(target, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        return None
