"""http.py: the error boundary, and HttpClient's logic above the transport seam.

`httpx.MockTransport` stands in for the network here (client logic above the transport);
everything that needs sockets, the guard, caps on streams or clocks is in
tests/integration/net/.
"""

from __future__ import annotations

import httpcore
import httpx
import pytest

from netsift import errors
from netsift.config import Settings
from netsift.errors import (
    BlockedAddress,
    DecodeError,
    HTTPError,
    InvalidURL,
    TooLarge,
    UnsupportedScheme,
)
from netsift.net.http import HttpClient, map_httpx_errors

# -- the error boundary ------------------------------------------------------------------------

REQUEST = httpx.Request("GET", "https://api.example/search?key=SECRET")


@pytest.mark.parametrize(
    ("raised", "expected", "code"),
    [
        (httpx.ConnectTimeout("t", request=REQUEST), errors.Timeout, "timeout"),
        (httpx.ReadTimeout("t", request=REQUEST), errors.Timeout, "timeout"),
        (httpx.PoolTimeout("t", request=REQUEST), errors.Timeout, "timeout"),
        (httpcore.ReadTimeout("t"), errors.Timeout, "timeout"),
        (httpx.ConnectError("refused", request=REQUEST), errors.ConnectError, "connect_error"),
        (httpcore.ConnectError("refused"), errors.ConnectError, "connect_error"),
        (httpx.ReadError("reset", request=REQUEST), HTTPError, "http_error"),
        (httpx.RemoteProtocolError("bad", request=REQUEST), HTTPError, "http_error"),
        (httpx.DecodingError("bad gzip", request=REQUEST), DecodeError, "decode_error"),
        (
            httpx.UnsupportedProtocol("ftp", request=REQUEST),
            UnsupportedScheme,
            "unsupported_scheme",
        ),
        (httpx.InvalidURL("bad"), InvalidURL, "invalid_url"),
    ],
)
def test_map_httpx_errors(
    raised: Exception, expected: type[errors.NetsiftError], code: str
) -> None:
    with pytest.raises(expected) as caught, map_httpx_errors(REQUEST.url):
        raise raised
    assert caught.value.code == code
    assert caught.value.__cause__ is raised
    assert "SECRET" not in caught.value.message and "SECRET" not in str(caught.value.details)


def test_connection_failures_are_retryable_connect_errors() -> None:
    with pytest.raises(errors.ConnectError) as caught, map_httpx_errors(REQUEST.url):
        raise httpx.ConnectError("refused", request=REQUEST)
    assert caught.value.retryable and caught.value.exit_code == 4
    assert caught.value.details["stage"] == "connect"


def test_query_strings_in_foreign_messages_are_scrubbed() -> None:
    with pytest.raises(HTTPError) as caught, map_httpx_errors():
        raise httpx.ReadError("failed reading https://x.example/a?api_key=SECRET now")
    assert "SECRET" not in caught.value.message


def test_other_exceptions_pass_through() -> None:
    with pytest.raises(KeyError), map_httpx_errors():
        raise KeyError("x")


# -- HttpClient above a MockTransport ----------------------------------------------------------


async def test_transport_seam_still_checks_urls() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, text="ok")

    http = HttpClient(Settings(), transport=httpx.MockTransport(handler))
    for url, error in [
        ("http://localhost/", BlockedAddress),
        ("http://x.onion/", BlockedAddress),
        ("http://u:p@example.org/", InvalidURL),
    ]:
        with pytest.raises(error):
            await http.send(httpx.Request("GET", url), kind="fetch")
    ok = await http.send(httpx.Request("GET", "http://0x7f.1/"), kind="fetch")
    assert ok.text == "ok"
    assert [str(r.url) for r in sent] == ["http://127.0.0.1/"]  # the normalized address
    assert sent[0].headers["host"] == "127.0.0.1"
    await http.aclose()


async def test_in_memory_response_is_still_capped() -> None:
    http = HttpClient(
        Settings(max_bytes=100),
        transport=httpx.MockTransport(lambda r: httpx.Response(200, content=b"x" * 101)),
    )
    with pytest.raises(TooLarge):
        await http.send(httpx.Request("GET", "https://a.example/"), kind="fetch")
    small = await http.send(httpx.Request("GET", "https://a.example/"), kind="fetch", max_bytes=200)
    assert len(small.content) == 101
    await http.aclose()


async def test_mock_transport_timeout_becomes_netsift_timeout() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    http = HttpClient(Settings(), transport=httpx.MockTransport(handler))
    with pytest.raises(errors.Timeout):
        await http.send(httpx.Request("GET", "https://a.example/"), kind="search", retries=0)
    await http.aclose()


async def test_response_knows_its_request_and_elapsed() -> None:
    http = HttpClient(Settings(), transport=httpx.MockTransport(lambda r: httpx.Response(204)))
    response = await http.send(httpx.Request("GET", "https://a.example/x"), kind="fetch")
    assert response.request.url == "https://a.example/x"
    assert response.elapsed.total_seconds() >= 0
    assert response.request.headers["user-agent"] == http.settings.user_agent
    await http.aclose()
