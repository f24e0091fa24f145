"""What a proxy's own answer means, and which checked address a proxy is asked for (pure)."""

from __future__ import annotations

import pytest

from netsift.errors import ConnectError, NetsiftError, ProxyRefused
from netsift.net.proxy import Pin, choose_address, proxy_failure


def _failure(status: int, proxy_status: str = "", *, tunnel: bool) -> NetsiftError | None:
    return proxy_failure(
        status, "Reason", proxy_status, target="93.184.215.14:443", host="a.test", tunnel=tunnel
    )


@pytest.mark.parametrize("status", [200, 204])
def test_a_tunnel_that_opens_is_no_failure(status: int) -> None:
    assert _failure(status, tunnel=True) is None


@pytest.mark.parametrize("status", [200, 403, 404, 502])
def test_a_forwarded_answer_without_proxy_status_is_the_sites(status: int) -> None:
    assert _failure(status, tunnel=False) is None


@pytest.mark.parametrize(
    ("status", "proxy_status", "tunnel", "kind", "error"),
    [
        (403, "", True, ProxyRefused, None),
        (405, "", True, ProxyRefused, None),
        (407, "", True, ProxyRefused, None),
        (407, "", False, ProxyRefused, None),
        (502, "", True, ConnectError, None),
        (503, "", True, ConnectError, None),
        (
            403,
            "corp; error=destination_ip_prohibited",
            False,
            ProxyRefused,
            "destination_ip_prohibited",
        ),
        (
            502,
            'corp; error=connection_refused; details="no"',
            False,
            ConnectError,
            "connection_refused",
        ),
        (502, "cdn, corp; error=http_request_denied", True, ProxyRefused, "http_request_denied"),
        # the last member is the proxy nearest netsift: its word counts
        (
            502,
            "far; error=connection_timeout, near; error=destination_ip_prohibited",
            True,
            ProxyRefused,
            "destination_ip_prohibited",
        ),
    ],
)
def test_the_proxys_failures_are_named(
    status: int, proxy_status: str, tunnel: bool, kind: type[NetsiftError], error: str | None
) -> None:
    failure = _failure(status, proxy_status, tunnel=tunnel)
    assert isinstance(failure, kind)
    assert failure.details["proxy_status"] == status and failure.details["proxy_error"] == error
    assert "93.184.215.14:443" in failure.message and "a.test" in failure.message


def test_a_refusal_is_not_retryable_an_unreachable_address_is() -> None:
    refused, unreachable = _failure(403, tunnel=True), _failure(502, tunnel=True)
    assert isinstance(refused, ProxyRefused) and not refused.retryable
    assert refused.code == "proxy_refused" and "NETSIFT_PROXY_ENFORCES_EGRESS" in refused.message
    assert isinstance(unreachable, ConnectError) and unreachable.retryable


def test_the_proxy_is_asked_for_ipv4_first_and_ipv6_in_brackets() -> None:
    assert choose_address(["2606:2800::1", "93.184.215.14"]) == "93.184.215.14"
    assert choose_address(["2606:2800::1"]) == "2606:2800::1"
    assert Pin("a.test", "2606:2800::1", 443).authority == "[2606:2800::1]:443"
    assert Pin("a.test", "93.184.215.14", 80).url_host == b"93.184.215.14"


def test_a_refused_name_does_not_suggest_sending_names() -> None:
    """With NETSIFT_PROXY_ENFORCES_EGRESS the name is what was asked: the filter said no."""
    refused = proxy_failure(403, "Forbidden", "", target="a.test:443", host="a.test", tunnel=True)
    assert isinstance(refused, ProxyRefused)
    assert refused.message == "the proxy refused a.test:443: 403 Forbidden"
