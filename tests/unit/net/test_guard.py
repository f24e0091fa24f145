"""guard.py: every refused range and embedding, every odd spelling, schemes and URL tricks.

The tables come from the anchors in security-anchors.md: Advocate's per-kind tables,
safeurl's TestBlockedIP, ssrf-req-filter's blockedUrls and PayloadsAllTheThings.
"""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from netsift.errors import BlockedAddress, InvalidURL, UnsupportedScheme
from netsift.net.guard import (
    AddressPolicy,
    check_url,
    classify_ip,
    embedded_ipv4,
    is_public_ip,
    parse_inet_aton,
    safe_url,
)

# -- addresses ---------------------------------------------------------------------------------

REFUSED = [
    # IPv4 special-purpose registry, multicast, class E
    "0.0.0.0",
    "0.1.1.1",
    "0.255.255.255",
    "10.0.0.1",
    "10.255.255.255",
    "100.64.0.0",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.127.127.127",
    "127.255.255.254",
    "169.254.1.1",
    "169.254.169.254",  # cloud metadata
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.0.170",
    "192.0.2.1",
    "192.88.99.0",
    "192.88.99.1",
    "192.168.0.1",
    "192.168.2.1",
    "198.18.0.1",
    "198.19.255.255",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.1",
    "227.1.1.1",
    "239.255.255.255",
    "240.0.0.1",
    "255.255.255.255",
    # IPv6 outside 2000::/3 and special ranges inside it
    "::",
    "::1",
    "0000::1",
    "::ffff:0:0",
    "100::1",
    "fc00::1",
    "fd00::1",
    "fd00:ec2::254",  # AWS metadata over IPv6
    "fe80::1",
    "febf::1",
    "fec0::1",
    "FEC0:CCCC::",
    "ff00::1",
    "ff02::1",
    "5f00::1",
    "4000::1",
    "2001:db8::1",
    "2001:2::1",
    "2001:10::1",
    "3fff::1",
    "3fff:fff::1",
    "64:ff9b:1::1",
    "64:ff9b:1::8.8.8.8",  # local-use NAT64 is never public, whatever it embeds
    # IPv4-mapped / compatible / translated forms of refused addresses
    "::ffff:127.0.0.1",
    "::ffff:192.168.2.1",
    "::ffff:192.0.2.1",
    "::ffff:169.254.169.254",
    "::ffff:100.64.0.1",
    "::ffff:7f00:1",
    "::127.0.0.1",
    "::10.0.0.1",
    "::8.8.8.8",  # deprecated IPv4-compatible form: refused outright
    "::ffff:0:127.0.0.1",  # SIIT IPv4-translated
    # NAT64 (64:ff9b::/96) embedding refused addresses
    "64:ff9b::7f00:1",
    "64:ff9b::127.0.0.1",
    "64:ff9b::192.168.2.1",
    "64:ff9b::169.254.169.254",
    "64:ff9b::a00:1",
    # 6to4 (2002::/16) embedding refused addresses
    "2002:7f00:1::",
    "2002:C0A8:FFFF::",
    "2002:a9fe:a9fe::1",
    "2002::1",  # embeds 0.0.0.0
    # Teredo (2001::/32): client = inverted last 32 bits
    "2001:0:4136:e378:8000:63bf:3f57:fdf2",  # client 192.168.2.13
    "2001:0:1::1",
    "2001::1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # client 127.0.0.1
]

PUBLIC = [
    "8.8.8.8",
    "1.1.1.1",
    "9.9.9.9",
    "93.184.215.14",
    "100.63.255.255",  # just below CGNAT
    "100.128.0.0",  # just above CGNAT
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.255",
    "192.31.196.1",  # AS112: globally reachable
    "198.17.255.255",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2a00:1450:4001::1",
    "::ffff:8.8.8.8",  # decision: judged by the IPv4 it carries
    "64:ff9b::8.8.8.8",  # NAT64 of a public address
    "2002:0808:0808::1",  # 6to4 of 8.8.8.8
    "2001:0:4136:e378:8000:63bf:f7f7:f7f7",  # Teredo: server 65.54.227.120, client 8.8.8.8
]


@pytest.mark.parametrize("address", REFUSED)
def test_refused_addresses(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert not is_public_ip(ip)
    assert classify_ip(ip)
    with pytest.raises(BlockedAddress) as caught:
        AddressPolicy().check(ip, host="victim.test")
    assert caught.value.code == "blocked_address"
    assert caught.value.details["address"] == str(ip)


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert is_public_ip(ip), classify_ip(ip)
    AddressPolicy().check(ip)


def test_is_public_ip_accepts_text() -> None:
    assert is_public_ip("8.8.8.8")
    assert not is_public_ip("127.0.0.1")


def test_is_global_would_be_wrong_here() -> None:
    """The reason for explicit tables: Python's opinion differs on these addresses."""
    for text in ("64:ff9b::7f00:1", "2002:7f00:1::", "192.88.99.1"):
        assert not is_public_ip(text)
    assert not ipaddress.ip_address("100.64.0.1").is_private
    assert not is_public_ip("100.64.0.1")


def test_every_refused_ipv4_range_in_mapped_compatible_and_nat64_form() -> None:
    """ssrf_filter's rule: each refused IPv4 range is refused in every IPv6 wrapper."""
    samples = [a for a in REFUSED if ipaddress.ip_address(a).version == 4]
    for text in samples:
        v4 = int(ipaddress.IPv4Address(text))
        for wrapper in (0xFFFF << 32, 0, int(ipaddress.IPv6Address("64:ff9b::"))):
            assert not is_public_ip(ipaddress.IPv6Address(wrapper | v4)), (text, hex(wrapper))
        six_to_four = ipaddress.IPv6Address((0x2002 << 112) | (v4 << 80))
        assert not is_public_ip(six_to_four), text


@pytest.mark.parametrize(
    ("address", "inner"),
    [
        ("::ffff:10.1.2.3", "10.1.2.3"),
        ("64:ff9b::c0a8:201", "192.168.2.1"),
        ("2002:c0a8:ffff::", "192.168.255.255"),
        ("2001:0:4136:e378:8000:63bf:3f57:fdf2", "192.168.2.13"),
        ("2606:4700::1", None),
    ],
)
def test_embedded_ipv4_unwraps(address: str, inner: str | None) -> None:
    found = embedded_ipv4(ipaddress.IPv6Address(address))
    assert (str(found) if found else None) == inner


def test_scoped_ipv6_is_refused() -> None:
    assert not is_public_ip(ipaddress.IPv6Address("2606:4700::1%eth0"))


# -- allow_networks ---------------------------------------------------------------------------


def test_allow_networks_exempts_only_what_it_names() -> None:
    policy = AddressPolicy.from_cidrs(["127.0.0.0/8", "fd00::/8"])
    policy.check(ipaddress.ip_address("127.0.0.1"))
    policy.check(ipaddress.ip_address("127.5.6.7"))
    policy.check(ipaddress.ip_address("fd12::1"))
    policy.check(ipaddress.ip_address("::ffff:127.0.0.1"))  # the same address, mapped
    for other in ("10.0.0.1", "::1", "169.254.169.254", "fe80::1"):
        with pytest.raises(BlockedAddress):
            policy.check(ipaddress.ip_address(other))


def test_allow_single_address() -> None:
    policy = AddressPolicy.from_cidrs(["10.1.2.3"])
    policy.check(ipaddress.ip_address("10.1.2.3"))
    with pytest.raises(BlockedAddress):
        policy.check(ipaddress.ip_address("10.1.2.4"))


def test_blocked_message_names_host_reason_and_the_way_out() -> None:
    with pytest.raises(BlockedAddress) as caught:
        AddressPolicy().check(ipaddress.ip_address("169.254.169.254"), host="meta.test")
    message = caught.value.message
    assert "meta.test" in message and "169.254.169.254" in message
    assert "link-local" in message and "NETSIFT_ALLOW_NETWORKS" in message


# -- inet_aton -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("3232235777", "192.168.1.1"),
        ("017700000001", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F000001", "127.0.0.1"),
        ("0x7f.0.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0177.0x0.0x0.0x1", "127.0.0.1"),
        ("0x7f.0x0.0x00000000.0x01", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("012.0.0.1", "10.0.0.1"),
        ("169.254.43518", "169.254.169.254"),
        ("8.8.8.8", "8.8.8.8"),
    ],
)
def test_parse_inet_aton(text: str, expected: str) -> None:
    assert str(parse_inet_aton(text)) == expected


@pytest.mark.parametrize(
    "text", ["256.1.1.1", "1.2.3.4.5", "08.0.0.1", "0x1g.0.0.1", "4294967296", "1..1", "", "a.b"]
)
def test_parse_inet_aton_rejects(text: str) -> None:
    assert parse_inet_aton(text) is None


# -- URLs ------------------------------------------------------------------------------------

ODD_LOOPBACK = [
    "http://2130706433/",
    "http://017700000001/",
    "http://0x7f000001/",
    "http://0x7f.0.0.1/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://0177.0x0.0x0.0x1/",
    "http://0x7f.0x0.0x00000000.0x01/",
    "http://127.1/",
    "http://127.0.1/",
    "http://127。0。0。1/",
    "http://１２７.０.０.１/",
    "http://①②⑦.⓪.⓪.①/",
    "http://127.0.0.1./",
]


@pytest.mark.parametrize("url", ODD_LOOPBACK)
def test_odd_ipv4_spellings_become_the_address_getaddrinfo_would_use(url: str) -> None:
    checked = check_url(url)
    assert checked.host == "127.0.0.1" or checked.host == "127.0.0.1."
    assert not is_public_ip(checked.host.rstrip("."))


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://0/", "0.0.0.0"),
        ("http://⑯⑨。②⑤④。⑯⑨｡②⑤④/latest/meta-data/", "169.254.169.254"),
        ("http://3232235777/", "192.168.1.1"),
        ("http://012.0.0.1/", "10.0.0.1"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),
        ("http://[0000::1]/", "0000::1"),
        ("http://[::]/", "::"),
    ],
)
def test_hosts_judged_by_the_address_they_reach(url: str, host: str) -> None:
    checked = check_url(url)
    assert checked.host == host
    assert not is_public_ip(checked.host.rstrip("."))


def test_normalization_keeps_port_path_and_query() -> None:
    checked = check_url("http://0x7f.1:8080/a/b?c=d#e")
    assert str(checked) == "http://127.0.0.1:8080/a/b?c=d#e"


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/_INFO",
        "ftp://example.org/",
        "javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "jar:http://example.org/a.jar!/",
        "dict://127.0.0.1:11211/",
        "ldap://127.0.0.1/",
        "tftp://127.0.0.1/x",
        "sftp://example.org/",
        "netdoc:///etc/passwd",
        "ws://example.org/",
    ],
)
def test_only_http_and_https(url: str) -> None:
    with pytest.raises(UnsupportedScheme) as caught:
        check_url(url)
    assert caught.value.code == "unsupported_scheme"


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "example.org",
        "/just/a/path",
        "http://",
        "http:///path",
        "http://a\x00b.example/",
        "http://exa mple.org/",
        "http://12\t7.0.0.1/",
        "http://example.org\r\n/",
        "http://ex%41mple.org/",
        "http://127.0.0.1%2f@x/",
        "http://256.1.1.1/",
        "http://1.2.3.4.5/",
        "http://[fe80::1%25eth0]/",
        "http://user:password@example.org/",
        "http://token@example.org/",
    ],
)
def test_invalid_urls(url: str) -> None:
    with pytest.raises(InvalidURL) as caught:
        check_url(url)
    assert caught.value.code == "invalid_url"


@pytest.mark.parametrize(
    ("url", "httpx_host"),
    [
        ("http://example.com\\@127.0.0.1/", "127.0.0.1"),
        ("http://1.1.1.1 &@2.2.2.2# @3.3.3.3/", "2.2.2.2"),
        ("http://example.org@127.0.0.1/", "127.0.0.1"),
        ("http://127.0.0.1:80@example.org/", "example.org"),
    ],
)
def test_credential_tricks_are_refused(url: str, httpx_host: str) -> None:
    """Judged by what httpx would connect to — and refused before it can."""
    assert httpx.URL(url).host == httpx_host
    with pytest.raises(InvalidURL):
        check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/",
        "http://LOCALHOST/",
        "http://localhost./",
        "http://foo.localhost/",
        "http://a.b.localhost:8080/",
        "http://localhost.localdomain/",
        "http://duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion/",
        "http://x.onion./",
    ],
)
def test_local_and_onion_names(url: str) -> None:
    with pytest.raises(BlockedAddress) as caught:
        check_url(url)
    assert caught.value.code == "blocked_address"


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/",
        "http://example.org:8080/path?q=1",
        "https://EXAMPLE.org/",
        "http://news.test:1234/article",
        "http://8.8.8.8/",
        "http://[2606:4700:4700::1111]/",
        "https://xn--nxasmq6b.example/",
        "https://bücher.example/",
        "http://localhost.example.org/",
        "http://onion.example.org/",
        "http://under_score.example/",
    ],
)
def test_good_urls_pass(url: str) -> None:
    checked = check_url(url)
    assert checked.scheme in ("http", "https")


def test_check_url_accepts_httpx_urls() -> None:
    assert check_url(httpx.URL("http://127.1/")).host == "127.0.0.1"
    with pytest.raises(UnsupportedScheme):
        check_url(httpx.URL("ftp://example.org/"))


def test_safe_url_drops_secrets() -> None:
    shown = safe_url("https://user:pw@api.example/v1/search?key=SECRET&q=x#frag")
    assert shown == "https://api.example/v1/search"
    assert "SECRET" not in safe_url("not a url ?key=SECRET")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/page-0001.html",
        "https://Example.ORG:443/a b/%7Euser/",
        "http://bücher.example/straße",
        "http://[::1]:8080/x",
        "https://example.org./",
        "https://example.org",
        "https://example.org/@handle/post",  # the shortcut is not taken: shown the long way
        "https://example.org/search?",
        "https://example.org/page#",
    ],
)
def test_safe_url_shows_a_url_with_nothing_to_drop_as_the_full_copy_would(url: str) -> None:
    """A URL without `@`, `?` or `#` is shown without the copy that drops them (a re-parse):
    it must read the same as that copy."""
    parsed = httpx.URL(url)
    copy = str(parsed.copy_with(username=None, password=None, query=None, fragment=None))
    assert safe_url(url) == safe_url(parsed) == copy


def test_policy_takes_cidr_text_or_networks() -> None:
    by_text = AddressPolicy(["10.0.0.0/8", " fd00::/8 "])
    by_network = AddressPolicy([ipaddress.ip_network("10.0.0.0/8")])
    by_text.check(ipaddress.ip_address("10.1.1.1"))
    by_text.check(ipaddress.ip_address("fd00::1"))
    by_network.check(ipaddress.ip_address("10.1.1.1"))
    with pytest.raises(BlockedAddress):
        AddressPolicy().check(ipaddress.ip_address("10.1.1.1"))
    assert "10.0.0.0/8" in repr(by_text)
