"""DuckDuckGo: the recorded html, lite, empty and anomaly pages of the offline web's data."""

from __future__ import annotations

import pytest

from netsift.config import ProviderSettings
from netsift.errors import InvalidInput, ProviderUnavailable, RateLimited
from netsift.search.providers.duckduckgo import DuckDuckGo, is_anomaly_page, unwrap_link
from tests.unit.search.providers.contracts import (
    PROVIDERS,
    query,
    recorded,
    recorded_request,
    reply,
)

EXPECTED_URLS = [
    "https://tokio.rs/",
    "https://rust-lang.github.io/async-book/",
    "https://blog.example.dev/posts/choosing-an-async-runtime-2026",
]


@pytest.fixture
def ddg() -> DuckDuckGo:
    return DuckDuckGo(ProviderSettings(name="duckduckgo"))


def _form(request) -> dict[str, str]:
    from urllib.parse import parse_qsl

    return dict(parse_qsl(request.content.decode(), keep_blank_values=True))


def test_request_is_the_sites_own_form(ddg: DuckDuckGo) -> None:
    request = ddg.build_request(query(region="us-en"))
    expected = recorded_request("duckduckgo", "html_ok_post")
    assert request.method == "POST"
    assert str(request.url) == expected["url"]
    assert _form(request) == expected["form"]
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert request.headers["Referer"] == "https://html.duckduckgo.com/"
    assert request.headers["User-Agent"].startswith("Mozilla/5.0")


def test_request_maps_time_range_safesearch_and_regions(ddg: DuckDuckGo) -> None:
    form = _form(ddg.build_request(query(time_range="m", safesearch="strict", region="en-GB")))
    assert form == {"q": "rust async runtime", "b": "", "kl": "uk-en", "df": "m", "kp": "1"}
    assert _form(ddg.build_request(query(safesearch="off")))["kp"] == "-2"
    assert "kl" not in _form(ddg.build_request(query(region="wt-wt")))


def test_later_pages_are_refused_without_sending(ddg: DuckDuckGo) -> None:
    with pytest.raises(InvalidInput, match="vqd"):
        ddg.build_request(query(page=2))
    assert ddg.fallback_request(query(page=2), RateLimited("x")) is None


def test_fallback_is_the_lite_form(ddg: DuckDuckGo) -> None:
    request = ddg.fallback_request(query(region="us-en"), RateLimited("blocked"))
    assert request is not None
    expected = recorded_request("duckduckgo", "lite_ok_post")
    assert str(request.url) == expected["url"]
    assert _form(request) == expected["form"]
    assert request.headers["Referer"] == "https://lite.duckduckgo.com/"


def test_base_url_override_serves_both_pages_from_one_origin() -> None:
    ddg = DuckDuckGo(ProviderSettings(name="duckduckgo", base_url="http://ddg.test:8"))
    assert str(ddg.build_request(query()).url) == "http://ddg.test:8/html/"
    lite = ddg.fallback_request(query(), RateLimited("blocked"))
    assert lite is not None and str(lite.url) == "http://ddg.test:8/lite/"


def test_html_page_without_ads(ddg: DuckDuckGo) -> None:
    results = ddg.parse_response(recorded("duckduckgo", "html_ok_post"), query())
    assert [r.url for r in results] == EXPECTED_URLS
    tokio, book, blog = results
    assert book.title == "Asynchronous Programming in Rust"
    assert tokio.title == "Tokio - An asynchronous Rust runtime"
    assert tokio.snippet == (
        "Tokio is an asynchronous runtime for the Rust programming language. It provides the"
        " building blocks needed for writing network applications & services."
    )
    assert tokio.favicon == "https://external-content.duckduckgo.com/ip3/tokio.rs.ico"
    assert tokio.published is None
    assert blog.published == "2026-08-19"
    assert all("Learn Async Rust" not in r.title for r in results)
    assert {r.source for r in results} == {"duckduckgo"}


def test_wrapped_links_are_decoded(ddg: DuckDuckGo) -> None:
    results = ddg.parse_response(recorded("duckduckgo", "html_ok_get_wrapped_links"), query())
    assert [r.url for r in results] == [
        "https://tokio.rs/",
        "https://docs.rs/tokio/latest/tokio/runtime/index.html?search=builder&x=1",
    ]
    assert results[1].published == "2026-09-02"


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("//duckduckgo.com/l/?uddg=https%3A%2F%2Ftokio.rs%2F&rut=0a1b", "https://tokio.rs/"),
        (
            "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2F%3Fq%3D1%26r%3D2",
            "https://a.example/?q=1&r=2",
        ),
        ("https://tokio.rs/", "https://tokio.rs/"),
        ("https://duckduckgo.com/y.js?ad_domain=x.example&u3=https%3A%2F%2Fbing.com", None),
        ("//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad%3D1&rut=9f", None),
        ("javascript:alert(1)", None),
        ("", None),
    ],
)
def test_unwrap_link(href: str, expected: str | None) -> None:
    assert unwrap_link(href) == expected


def test_lite_page_without_sponsored_rows(ddg: DuckDuckGo) -> None:
    results = ddg.parse_response(recorded("duckduckgo", "lite_ok_post"), query())
    assert [r.url for r in results] == EXPECTED_URLS
    assert results[0].snippet.startswith("Tokio is an asynchronous runtime for the Rust")
    assert results[1].title == "Asynchronous Programming in Rust"
    assert results[2].published == "2026-08-19"
    assert results[0].published is None


def test_no_results_pages_are_honest_empty_answers(ddg: DuckDuckGo) -> None:
    assert ddg.parse_response(recorded("duckduckgo", "html_no_results"), query()) == []
    assert ddg.parse_response(recorded("duckduckgo", "lite_no_more_results"), query()) == []


@pytest.mark.parametrize("scenario", ["blocked_anomaly_202", "blocked_anomaly_200"])
def test_anomaly_page_is_a_captcha_block_not_no_results(ddg: DuckDuckGo, scenario: str) -> None:
    with pytest.raises(RateLimited) as caught:
        ddg.parse_response(recorded("duckduckgo", scenario), query())
    assert caught.value.details["captcha"] is True


def test_bare_202_is_a_block_too(ddg: DuckDuckGo) -> None:
    with pytest.raises(RateLimited) as caught:
        ddg.parse_response(reply(202, "<html><body></body></html>"), query())
    assert caught.value.details["captcha"] is True


@pytest.mark.parametrize("status", [403, 418, 429])
def test_block_statuses_are_rate_limits(ddg: DuckDuckGo, status: int) -> None:
    with pytest.raises(RateLimited) as caught:
        ddg.parse_response(reply(status, "", retry_after="7"), query())
    assert caught.value.retry_after == 7.0
    assert "captcha" not in caught.value.details


def test_recorded_403_block(ddg: DuckDuckGo) -> None:
    with pytest.raises(RateLimited):
        ddg.parse_response(recorded("duckduckgo", "blocked_other_status"), query())


def test_anomaly_detection_reads_markers() -> None:
    page = (PROVIDERS / "duckduckgo-anomaly.html").read_text("utf-8")
    assert is_anomaly_page(page)
    assert not is_anomaly_page((PROVIDERS / "duckduckgo-html.html").read_text("utf-8"))


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"<html><body><p>Service maintenance</p></body></html>",
        b"<html><body><div id='links' class='results'></div></body></html>",
        (PROVIDERS / "duckduckgo-html.html").read_bytes()[:3000],
    ],
)
def test_unusable_pages_are_failures(ddg: DuckDuckGo, body: bytes) -> None:
    with pytest.raises(ProviderUnavailable):
        ddg.parse_response(reply(200, body), query())


def test_server_error(ddg: DuckDuckGo) -> None:
    with pytest.raises(ProviderUnavailable):
        ddg.parse_response(reply(503, "down"), query())


def test_needs_no_key(ddg: DuckDuckGo) -> None:
    assert ddg.configured()
