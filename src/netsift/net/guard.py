"""The SSRF guard's pure half: which URLs are acceptable and which addresses are public.

`check_url` parses with httpx's own parser (no parser differential with the client that
connects), allows only http/https, refuses credentials in URLs, control characters,
`localhost`/`*.localhost`/`.onion` names, and rewrites odd IPv4 spellings (`2130706433`,
`0x7f.1`, `0177.0.0.1`, `127.1`, fullwidth digits) to the dotted quad that `getaddrinfo`
would have connected to, so the connect-time check sees the real address.

`is_public_ip` does not trust `ipaddress.is_global` (it calls NAT64/6to4 forms of loopback
global and CGNAT neither private nor global): it uses explicit tables built from the IANA
special-purpose registries and unwraps IPv6 forms that embed an IPv4 address (mapped,
NAT64, 6to4, Teredo) before judging. IPv6 outside 2000::/3 is never public. Decisions:
an IPv4-mapped address (`::ffff:8.8.8.8`) is judged by the IPv4 it carries (a dual-stack
socket reaches exactly that address); the deprecated IPv4-compatible form (`::a.b.c.d`) and
local-use NAT64 (`64:ff9b:1::/48`) are always refused.

`AddressPolicy` adds the operator's exemptions (`NETSIFT_ALLOW_NETWORKS`) and raises
`BlockedAddress`; the transport calls it on every address it is about to connect to.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Iterable

import httpx
import idna
from httpx._urlparse import AUTHORITY_REGEX, URL_REGEX

from ..errors import BlockedAddress, InvalidURL, UnsupportedScheme

__all__ = [
    "AddressPolicy",
    "IPAddress",
    "check_url",
    "classify_ip",
    "embedded_ipv4",
    "is_public_ip",
    "parse_inet_aton",
    "safe_url",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

SCHEMES = ("http", "https")

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# IANA IPv4 Special-Purpose Address Registry (+ multicast and class E): never public.
_BLOCKED_V4: tuple[tuple[_V4, str], ...] = tuple(
    (ipaddress.IPv4Network(net), why)
    for net, why in (
        ("0.0.0.0/8", "'this network' (0.0.0.0/8)"),
        ("10.0.0.0/8", "private (RFC 1918)"),
        ("100.64.0.0/10", "shared address space / CGNAT (RFC 6598)"),
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local / cloud metadata"),
        ("172.16.0.0/12", "private (RFC 1918)"),
        ("192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)"),
        ("192.0.2.0/24", "documentation (TEST-NET-1)"),
        ("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
        ("192.168.0.0/16", "private (RFC 1918)"),
        ("198.18.0.0/15", "benchmarking (RFC 2544)"),
        ("198.51.100.0/24", "documentation (TEST-NET-2)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3)"),
        ("224.0.0.0/4", "multicast"),
        ("240.0.0.0/4", "reserved (240.0.0.0/4) / broadcast"),
    )
)

_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_COMPATIBLE = ipaddress.IPv6Network("::/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_TEREDO = ipaddress.IPv6Network("2001::/32")

# Inside 2000::/3, still not public (IANA IPv6 Special-Purpose Address Registry).
_BLOCKED_V6: tuple[tuple[_V6, str], ...] = tuple(
    (ipaddress.IPv6Network(net), why)
    for net, why in (
        ("2001::/23", "IETF protocol assignments (2001::/23)"),
        ("2001:db8::/32", "documentation (2001:db8::/32)"),
        ("3fff::/20", "documentation (3fff::/20)"),
    )
)

# Outside 2000::/3, named for better messages (all refused anyway).
_NAMED_V6: tuple[tuple[_V6, str], ...] = tuple(
    (ipaddress.IPv6Network(net), why)
    for net, why in (
        ("::1/128", "loopback"),
        ("::/128", "unspecified"),
        ("64:ff9b:1::/48", "local-use NAT64 (64:ff9b:1::/48)"),
        ("100::/64", "discard-only (100::/64)"),
        ("fc00::/7", "unique local (RFC 4193)"),
        ("fe80::/10", "link-local"),
        ("fec0::/10", "site-local (deprecated)"),
        ("ff00::/8", "multicast"),
        ("::/96", "IPv4-compatible (deprecated)"),
    )
)

_LOCAL_NAMES = ("localhost", "localhost.localdomain")
_HOST_CHARS = re.compile(r"^[a-z0-9_.-]+$")
_NUMERIC_LABEL = re.compile(r"^(?:0[x][0-9a-f]*|[0-9]+)$")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form carries (mapped, NAT64, 6to4, Teredo client), if any."""
    if ip in _MAPPED:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _SIX_TO_FOUR:
        return ip.sixtofour
    if ip in _TEREDO:
        teredo = ip.teredo
        return teredo[1] if teredo else None  # client = inverted last 32 bits
    return None


def classify_ip(ip: IPAddress) -> str | None:
    """Why `ip` is not a public address, or None when it is globally routable."""
    if isinstance(ip, ipaddress.IPv4Address):
        for net, why in _BLOCKED_V4:
            if ip in net:
                return why
        return None
    if ip.scope_id:
        return "scoped IPv6 address"
    inner = embedded_ipv4(ip)
    if inner is not None:
        if ip in _TEREDO:
            teredo = ip.teredo
            server = teredo[0] if teredo else inner
            reason = classify_ip(server) or classify_ip(inner)
        else:
            reason = classify_ip(inner)
        return f"embeds {inner}: {reason}" if reason else None
    for net6, why6 in _NAMED_V6:
        if ip in net6:
            return why6
    if ip not in _GLOBAL_UNICAST:
        return "outside IPv6 global unicast (2000::/3)"
    for blocked6, reason6 in _BLOCKED_V6:
        if ip in blocked6:
            return reason6
    return None


def is_public_ip(ip: IPAddress | str) -> bool:
    """True only for globally routable unicast addresses (embedded IPv4 unwrapped)."""
    address = ipaddress.ip_address(ip) if isinstance(ip, str) else ip
    return classify_ip(address) is None


class AddressPolicy:
    """Public addresses, plus the operator's exempt networks (`NETSIFT_ALLOW_NETWORKS`)."""

    def __init__(self, allow_networks: Iterable[str | Network] = ()) -> None:
        self.allow_networks: tuple[Network, ...] = tuple(
            ipaddress.ip_network(n.strip(), strict=False) if isinstance(n, str) else n
            for n in allow_networks
        )

    @classmethod
    def from_cidrs(cls, cidrs: Iterable[str]) -> AddressPolicy:
        return cls(cidrs)

    def __repr__(self) -> str:
        return f"AddressPolicy({[str(n) for n in self.allow_networks]})"

    def allowed_by_exemption(self, ip: IPAddress) -> bool:
        candidates: list[IPAddress] = [ip]
        if isinstance(ip, ipaddress.IPv6Address) and ip in _MAPPED and ip.ipv4_mapped:
            candidates.append(ip.ipv4_mapped)
        return any(
            c.version == net.version and c in net for c in candidates for net in self.allow_networks
        )

    def check(self, ip: IPAddress, *, host: str | None = None) -> None:
        """Raise BlockedAddress unless `ip` is public or inside an allowed network."""
        if self.allowed_by_exemption(ip):
            return
        reason = classify_ip(ip)
        if reason is None:
            return
        name = f"{host} ({ip})" if host and host != str(ip) else str(ip)
        raise BlockedAddress(
            f"refusing to connect to {name}: {reason}, not a public address "
            "(operators can exempt networks with NETSIFT_ALLOW_NETWORKS)",
            details={"host": host or str(ip), "address": str(ip), "reason": reason},
        )


def parse_inet_aton(text: str) -> ipaddress.IPv4Address | None:
    """IPv4 with inet_aton's rules (1-4 parts, octal `0..`, hex `0x..`), or None."""
    parts = text.lower().split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        if part.startswith("0x"):
            digits, base = part[2:], 16
            if not digits:
                digits = "0"  # glibc reads a bare "0x" as zero
        elif len(part) > 1 and part.startswith("0"):
            digits, base = part[1:], 8
        else:
            digits, base = part, 10
        if not digits or not all(c in "0123456789abcdef"[:base] for c in digits):
            return None
        values.append(int(digits, base))
    *head, last = values
    if any(v > 0xFF for v in head) or last >= 1 << (8 * (4 - len(head))):
        return None
    number = 0
    for v in head:
        number = number << 8 | v
    number = number << (8 * (4 - len(head))) | last
    return ipaddress.IPv4Address(number)


def safe_url(url: httpx.URL | str) -> str:
    """The URL for messages and logs: no credentials, query string or fragment.

    A URL without `@`, `?` or `#` has none to drop and is shown as it is: the copy without them
    re-parses it (0.2 ms), and a fetch prepares its messages three times before it knows
    whether it will need one."""
    try:
        parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
        shown = str(parsed)
        if not any(mark in shown for mark in "@?#"):
            return shown
        return str(parsed.copy_with(username=None, password=None, query=None, fragment=None))
    except Exception:  # a message must never fail: fall back to cutting by hand
        text = str(url)
        return re.split(r"[?#]", text, maxsplit=1)[0].rsplit("@", 1)[-1]


def _parse(url: str) -> httpx.URL:
    try:
        return httpx.URL(url)
    except httpx.InvalidURL:
        pass
    # httpx refuses two spellings getaddrinfo would still resolve: fullwidth/enclosed digits
    # (IDNA maps them with NFKC) and dotted octal/decimal quads with leading zeros. Rewrite
    # the host with the same rules, using httpx's own URL splitting, then parse again.
    normalized = unicodedata.normalize("NFKC", url)
    match = URL_REGEX.match(normalized)
    authority = (match.group("authority") or "") if match else ""
    amatch = AUTHORITY_REGEX.match(authority)
    host = (amatch.group("host") or "") if amatch else ""
    address = parse_inet_aton(host.rstrip("."))
    if match and amatch and address is not None:
        start, end = amatch.span("host")
        new_authority = authority[:start] + str(address) + authority[end:]
        a_start, a_end = match.span("authority")
        normalized = normalized[:a_start] + new_authority + normalized[a_end:]
    try:
        return httpx.URL(normalized)
    except httpx.InvalidURL as exc:
        raise InvalidURL(f"not a valid URL: {exc}", details={"url": safe_url(url)}) from exc


def check_url(url: str | httpx.URL) -> httpx.URL:
    """Validate `url` and return it with the host netsift will really resolve (pure)."""
    if isinstance(url, str):
        text = url.strip()
        if any(ord(c) < 0x21 or 0x7F <= ord(c) < 0xA0 for c in text):
            raise InvalidURL("the URL contains whitespace or control characters")
        parsed = _parse(text)
    else:
        parsed = url
    if not parsed.scheme:
        raise InvalidURL(
            "the URL needs a scheme and a host, like https://example.org/",
            details={"url": safe_url(parsed)},
        )
    if parsed.scheme not in SCHEMES:
        raise UnsupportedScheme(
            f"the {parsed.scheme}: scheme is not supported; netsift fetches http and https only",
            details={"scheme": parsed.scheme},
        )
    if parsed.userinfo:
        raise InvalidURL(
            "URLs with credentials (user@host) are not fetched", details={"url": safe_url(parsed)}
        )
    host = parsed.raw_host.decode("ascii", errors="replace").lower()
    if not host:
        raise InvalidURL("the URL has no host", details={"url": safe_url(parsed)})
    if "%" in host:  # percent-escapes and IPv6 zone ids: nothing legitimate needs them
        raise InvalidURL(f"not a valid host name: {host!r}", details={"host": host})
    if ":" in host:  # IPv6 literal (httpx has removed the brackets)
        try:
            ipaddress.IPv6Address(host)
        except ValueError as exc:
            raise InvalidURL(f"not a valid IPv6 address: {host}") from exc
        return parsed
    if not _HOST_CHARS.match(host) or ".." in host or host.startswith("."):
        raise InvalidURL(f"not a valid host name: {host!r}", details={"host": host})
    bare = host[:-1] if host.endswith(".") else host
    if "xn--" in bare:  # an A-label that does not decode would fail later, inside httpx
        try:
            idna.decode(bare)
        except (idna.IDNAError, UnicodeError) as exc:
            raise InvalidURL(
                f"not a valid internationalized host name: {host!r}", details={"host": host}
            ) from exc
    if bare in _LOCAL_NAMES or bare.endswith((".localhost", ".onion")) or bare == "onion":
        raise BlockedAddress(
            f"refusing to connect to {bare}: local and onion names are never fetched",
            details={"host": bare, "reason": "local name"},
        )
    if _NUMERIC_LABEL.match(bare.rsplit(".", 1)[-1]):
        address = parse_inet_aton(bare)
        if address is None:
            raise InvalidURL(f"not a valid IPv4 address: {host!r}", details={"host": host})
        if str(address) != host:
            parsed = parsed.copy_with(host=str(address))
    return parsed
