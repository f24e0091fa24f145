"""An upstream 429's Retry-After reaches every door, parsed once (net/retry.py): the error's
`details.retry_after` in seconds, the HTTP API's `Retry-After` header, the CLI's JSON and its
one-line message."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from netsift.client import Client
from netsift.errors import HTTPError
from netsift.server import create_app
from tests.e2e.cli import CliCall, in_process
from tests.offline_web.fixtures import OfflineWeb, WebSettingsFactory


@pytest.fixture
def invoke(offline_web: OfflineWeb, tmp_path: Path) -> CliCall:
    return in_process(
        {
            **offline_web.env(),
            "NETSIFT_DATA_DIR": str(tmp_path / "data"),
            "NETSIFT_RETRIES": "0",
        }
    )


async def test_python_error_carries_seconds(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    async with Client(web_settings(retries=0)) as client:
        with pytest.raises(HTTPError) as caught:
            await client.fetch(offline_web.url("status.test", "/429"))
    assert caught.value.details["retry_after"] == 1.0  # a number, not the raw header text
    assert caught.value.retryable


async def test_http_api_answers_with_the_header(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    async with Client(web_settings(retries=0)) as client:
        transport = httpx.ASGITransport(app=create_app(client=client))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            response = await http.post(
                "/v1/fetch", json={"url": offline_web.url("status.test", "/429")}
            )
    assert response.status_code == 502
    assert response.headers["retry-after"] == "1"
    assert response.json()["error"]["details"]["retry_after"] == 1.0


def test_cli_json_and_message(invoke: CliCall, offline_web: OfflineWeb) -> None:
    url = offline_web.url("status.test", "/429")
    as_json = invoke("fetch", "--json", url)
    assert as_json.code == 4
    assert as_json.json()["error"]["details"]["retry_after"] == 1.0
    human = invoke("fetch", url)
    assert human.code == 4 and "retry after 1s" in human.stderr
