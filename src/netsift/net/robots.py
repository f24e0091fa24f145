"""robots.txt, RFC 9309: one cached verdict per origin, fetched through the guarded client.

What the fetch of `/robots.txt` means (RFC 9309 §2.3.1):
- 2xx: parse it with protego (only the first 500 KiB count);
- 4xx ("unavailable"): everything is allowed — except 429, which, like Google, is treated
  as a server error;
- 5xx, or an answer netsift cannot use (redirect trouble, oversized, undecodable): everything
  is disallowed until the next try. Failures are cached for a shorter time than answers.
- unreachable (the name does not resolve, the connection is refused, the TLS handshake
  fails, the time runs out, the proxy refuses): nothing is fetched either, but the check
  raises that network error (`dns_error`, `connect_error`, `tls_error`, `timeout`,
  `proxy_refused`), and it is not cached (the
  error says whether to retry; a retry asks again): a host that is down is not a site that
  refuses netsift, and must not read as one.
Redirects are followed by HttpClient (settings.max_redirects, default 5) with every hop
guarded. If the page's own host is refused by the address guard, that refusal is raised as
it is (`blocked_address`), not disguised as a robots verdict.

Entries live `ttl` seconds (1 h), at most `max_entries` origins (least recently used go
first), and concurrent checks for one origin share one fetch.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import httpx
from protego import Protego
from pydantic import BaseModel

from ..errors import (
    BlockedAddress,
    BlockedByRobots,
    ConnectError,
    DNSError,
    HTTPError,
    NetsiftError,
    ProxyRefused,
    Timeout,
    TLSError,
    error_from_dict,
)
from .guard import check_url, safe_url
from .http import HttpClient

__all__ = ["ROBOTS_MAX_BYTES", "RobotsCache", "RobotsRules", "RobotsVerdict", "build_rules"]

ROBOTS_MAX_BYTES = 500 * 1024


@dataclass(frozen=True)
class RobotsRules:
    """The verdict for one origin: parsed rules, or allow-all / disallow-all."""

    parser: Protego | None = None
    allow_all: bool = False
    reason: str = ""
    unreachable: NetsiftError | None = None  # the network error to report instead of a verdict
    status: int | None = None  # robots.txt's HTTP status (None: no answer)

    def allows(self, url: str, user_agent: str) -> bool:
        if self.parser is not None:
            return bool(self.parser.can_fetch(url, user_agent))
        return self.allow_all

    def crawl_delay(self, user_agent: str) -> float | None:
        return self.parser.crawl_delay(user_agent) if self.parser is not None else None

    def deciding_rule(self, url: str, user_agent: str) -> tuple[str | None, str | None]:
        """(the user-agent group that applies, the Allow/Disallow rule that decided `url`),
        each None when there is none. Protego keeps these private, so this reads its rule
        sets with getattr and answers (None, None) if a release reshapes them: the verdict
        itself is always protego's `can_fetch`."""
        parser = self.parser
        if parser is None:
            return None, None
        match = getattr(parser, "_get_matching_rule_set", None)
        group = match(user_agent) if match is not None else None
        if group is None:
            return None, None
        agent = getattr(group, "user_agent", None)
        try:
            from protego._utils import _quote_path  # the path as protego's rules see it
        except ImportError:
            return agent, None
        path = str(_quote_path(url))
        for rule in getattr(group, "_rules", ()):  # in protego's precedence order
            pattern = getattr(rule, "value", None)
            if pattern is not None and pattern.match(path):
                return agent, f"{str(rule.field).capitalize()}: {pattern._pattern}"
        return agent, None

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """The `Sitemap:` lines of the robots.txt, as written (a map reads them)."""
        return tuple(self.parser.sitemaps) if self.parser is not None else ()


def build_rules(status: int, body: bytes) -> RobotsRules:
    """RFC 9309 semantics for one robots.txt response (pure)."""
    if 200 <= status < 300:
        text = body[:ROBOTS_MAX_BYTES].decode("utf-8", errors="replace")
        return RobotsRules(parser=Protego.parse(text), reason="robots.txt", status=status)
    answered = f"robots.txt answered HTTP {status}"
    if status == 429 or status >= 500:
        return RobotsRules(allow_all=False, reason=answered, status=status)
    if 400 <= status < 500:
        return RobotsRules(allow_all=True, reason=answered, status=status)
    return RobotsRules(allow_all=False, reason=answered, status=status)


class RobotsVerdict(BaseModel):
    """What robots.txt says about one URL for one user agent, and why."""

    url: str
    user_agent: str
    allowed: bool
    crawl_delay: float | None
    group: str | None  # the User-agent group that applies ("*" or a product token)
    rule: str | None  # the Allow/Disallow rule that decided, as protego reads it
    robots_url: str
    robots_status: int | None  # robots.txt's HTTP status; None when it gave no answer
    reason: str  # "robots.txt", or what its answer meant ("robots.txt answered HTTP 404")


def _origin(url: httpx.URL) -> str:
    """scheme://host[:port], with the host as it was written (its ASCII form): `url.host`
    would decode an IDNA name first, and a malformed one ("xn--localhost-") raise from
    inside idna instead of reaching the guard, which refuses it as invalid_url."""
    port = f":{url.port}" if url.port else ""
    raw = url.raw_host.decode("ascii")
    host = f"[{raw}]" if ":" in raw else raw
    return f"{url.scheme}://{host}{port}"


class RobotsCache:
    """Answers "may netsift fetch this URL?" per origin, caching each robots.txt."""

    def __init__(
        self,
        http: HttpClient,
        *,
        user_agent: str,
        timeout: float = 5.0,
        ttl: float = 3600.0,
        failure_ttl: float = 300.0,
        max_entries: int = 1024,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._http = http
        self._user_agent = user_agent
        self._timeout = timeout
        self._ttl = ttl
        self._failure_ttl = min(failure_ttl, ttl)
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, RobotsRules]] = OrderedDict()
        self._pending: dict[str, anyio.Event] = {}

    @property
    def user_agent(self) -> str:
        """The product token the rules are read for."""
        return self._user_agent

    async def check(self, url: str) -> None:
        """Raise BlockedByRobots when the origin's robots.txt disallows `url`."""
        target = check_url(url)
        rules = await self.rules_for(target)
        if rules.unreachable is not None:  # a fresh copy: one cached error, many raisers
            raise error_from_dict(rules.unreachable.to_dict())
        if not rules.allows(str(target), self._user_agent):
            shown = safe_url(target)
            raise BlockedByRobots(
                f"{shown} is disallowed for netsift by {_origin(target)}/robots.txt "
                f"({rules.reason}); pass --no-robots (respect_robots=false) to fetch it anyway",
                details={"url": shown, "reason": rules.reason},
            )

    async def verdict(self, url: str, user_agent: str | None = None) -> RobotsVerdict:
        """The rules' answer for `url` and `user_agent` (default: netsift's own), read from
        the same cached robots.txt a fetch obeys; a host that does not answer raises its
        network error, as `check` does."""
        target = check_url(url)
        rules = await self.rules_for(target)
        if rules.unreachable is not None:
            raise error_from_dict(rules.unreachable.to_dict())
        agent = user_agent or self._user_agent
        group, rule = rules.deciding_rule(str(target), agent)
        return RobotsVerdict(
            url=safe_url(target),
            user_agent=agent,
            allowed=rules.allows(str(target), agent),
            crawl_delay=rules.crawl_delay(agent),
            group=group,
            rule=rule,
            robots_url=f"{_origin(target)}/robots.txt",
            robots_status=rules.status,
            reason=rules.reason,
        )

    async def rules_for(self, url: httpx.URL) -> RobotsRules:
        url = check_url(url)  # a malformed name is invalid_url here, before anything decodes it
        origin = _origin(url)
        while True:
            cached = self._cached(origin)
            if cached is not None:
                return cached
            pending = self._pending.get(origin)
            if pending is None:
                break
            await pending.wait()  # another task is fetching this origin's robots.txt
        event = self._pending[origin] = anyio.Event()
        try:
            rules = await self._fetch(origin, url.raw_host.decode("ascii"))
            ttl = self._ttl if rules.parser is not None or rules.allow_all else self._failure_ttl
            if rules.unreachable is None:  # a host that is down is asked again next time
                self._store(origin, rules, ttl)
            return rules
        finally:
            del self._pending[origin]
            event.set()

    def _cached(self, origin: str) -> RobotsRules | None:
        entry = self._entries.get(origin)
        if entry is None:
            return None
        expires, rules = entry
        if self._clock() >= expires:
            del self._entries[origin]
            return None
        self._entries.move_to_end(origin)
        return rules

    def _store(self, origin: str, rules: RobotsRules, ttl: float) -> None:
        self._entries[origin] = (self._clock() + ttl, rules)
        self._entries.move_to_end(origin)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    async def _fetch(self, origin: str, host: str) -> RobotsRules:
        request = httpx.Request("GET", f"{origin}/robots.txt", headers={"Accept": "text/plain"})
        try:
            response = await self._http.send(
                request,
                kind="robots",
                retries=0,
                deadline=self._timeout,
                max_bytes=2 * ROBOTS_MAX_BYTES,
            )
        except BlockedAddress as exc:
            if str(exc.details.get("host", "")).lower().rstrip(".") == host.lower().rstrip("."):
                raise  # the page's own host is refused: say so, not "robots"
            return RobotsRules(allow_all=False, reason=f"robots.txt unreachable ({exc.code})")
        except NetsiftError as exc:
            reason = f"robots.txt unreachable ({exc.code})"
            if _is_unreachable(exc):
                return RobotsRules(allow_all=False, reason=reason, unreachable=exc)
            return RobotsRules(allow_all=False, reason=reason)
        return build_rules(response.status_code, response.content)


def _is_unreachable(error: NetsiftError) -> bool:
    """A network failure (no answer at all), as opposed to an answer that cannot be used."""
    if isinstance(error, HTTPError):
        return error.status_code is None
    return isinstance(error, DNSError | ConnectError | TLSError | Timeout | ProxyRefused)
