"""The HTTP API renders the error tree's new codes with their status and retryability: a
provider asked for without its key is 503 `config_error` (not retryable), an unreachable host
is 502 `connect_error` (retryable), never a policy refusal."""

from __future__ import annotations

import socket

import httpx

from netsift.client import Client
from netsift.server import create_app


async def test_provider_without_its_key_is_503_config_error(sim_settings) -> None:
    settings = sim_settings(providers=["brave"], brave_api_key=None, capabilities=["search"])
    async with Client(settings) as client:
        transport = httpx.ASGITransport(app=create_app(client=client))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            response = await http.post("/v1/search", json={"query": "rust", "providers": ["brave"]})
    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert (error["code"], error["retryable"]) == ("config_error", False)
    assert "BRAVE_API_KEY" in error["message"]


async def test_unreachable_host_is_502_connect_error(make_settings) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = make_settings(
        allow_networks=["127.0.0.1/32"], resolve=["down.test:127.0.0.1"], retries=0
    )
    async with Client(settings) as client:
        transport = httpx.ASGITransport(app=create_app(client=client))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            response = await http.post("/v1/fetch", json={"url": f"http://down.test:{port}/"})
    assert response.status_code == 502, response.text
    error = response.json()["error"]
    assert (error["code"], error["retryable"]) == ("connect_error", True)
