"""HttpClient.openai_http_client: the openai SDK's own requests, guarded and audited."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai
import pytest

from netsift.errors import BlockedAddress

from .conftest import MakeHttp, Site, read_audit


async def test_the_configured_llm_host_is_trusted_and_nothing_else(
    make_http: MakeHttp, site: Site, audit_path: Path
) -> None:
    base_url = site.url("/v1", host="other.test")
    http = make_http(allow=False, openai_base_url=base_url, llm_model="m")
    client = http.openai_http_client()
    # openai 3.x types `http_client` as httpx2's client and accepts httpx's at runtime
    llm = openai.AsyncOpenAI(
        api_key="sk-SECRET",
        base_url=base_url,
        http_client=client,  # type: ignore[arg-type]
        max_retries=0,
    )
    answer = await llm.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "ping"}]
    )
    assert answer.choices[0].message.content == "pong"
    with pytest.raises(BlockedAddress):  # another loopback host through the same client
        await client.get(site.url("/echo"))
    assert site.state.hits == {"/v1/chat/completions": 1}
    lines = read_audit(audit_path)
    assert [(line["kind"], line["status"], line["outcome"]) for line in lines] == [
        ("llm", 200, "ok"),
        ("llm", None, "blocked_address"),
    ]
    assert lines[0]["resolved_ip"] == "127.0.0.1" and lines[0]["bytes"] > 0
    assert "SECRET" not in str(lines)


async def test_sdk_client_is_closed_with_the_http_client(make_http: MakeHttp) -> None:
    http = make_http()
    client = http.openai_http_client()
    await http.aclose()
    assert client.is_closed


async def test_given_transport_is_used_for_the_sdk_client_too(make_settings) -> None:
    from netsift.net.http import HttpClient

    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"ok": True})

    http = HttpClient(make_settings(), transport=httpx.MockTransport(handler))
    response = await http.openai_http_client().get("https://llm.example/v1/models")
    assert response.json() == {"ok": True} and seen == ["https://llm.example/v1/models"]
    await http.aclose()
