"""The HTTP API's REST doors over the offline web: pages, cards, errors in one shape, the page."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from netsift.client import Client
from netsift.server import create_app


@pytest.fixture
async def api(web_client):
    app = create_app(client=web_client)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        yield http


def assert_error(response: httpx.Response, status: int, code: str) -> Any:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) == {"code", "message", "retryable", "details"}
    assert error["code"] == code
    assert error["message"]
    assert "Traceback" not in response.text
    return error


async def test_fetch_returns_the_page_with_pagination(api, offline_web):
    url = offline_web.url("news.test", "/article")
    response = await api.post("/v1/fetch", json={"url": url, "max_length": 300})
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["url"] == url
    assert page["title"] == "Harbour town switches its ferries to batteries"
    assert page["truncated"] is True
    assert len(page["content"]) <= 300
    assert page["next_start_index"] > 0
    rest = await api.post(
        "/v1/fetch", json={"url": url, "max_length": 300, "start_index": page["next_start_index"]}
    )
    assert rest.json()["start_index"] == page["next_start_index"]


async def test_meta_is_the_link_card(api, offline_web):
    response = await api.post("/v1/meta", json={"url": offline_web.url("news.test", "/article")})
    assert response.status_code == 200
    card = response.json()
    assert card["site_name"] == "The Coastal Courier"
    assert card["author"] == "Marta Lindqvist"
    assert card["description"].startswith("Kelby")


async def test_robots_refusal_is_403(api, offline_web):
    response = await api.post(
        "/v1/fetch", json={"url": offline_web.url("docs.test", "/private/secret")}
    )
    assert_error(response, 403, "blocked_by_robots")


async def test_ssrf_guard_applies_to_client_urls(web_settings, offline_web):
    async with Client(web_settings(allow_networks=[])) as guarded:
        app = create_app(client=guarded)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            response = await http.post(
                "/v1/fetch", json={"url": offline_web.url("news.test", "/article")}
            )
            assert_error(response, 403, "blocked_address")
            metrics = (await http.get("/metrics")).text
    assert 'netsift_blocked_fetches_total{reason="blocked_address"} 1.0' in metrics
    assert offline_web.state.hits("news.test", "/article") == 0


async def test_upstream_404_stays_404(api, offline_web):
    response = await api.post("/v1/fetch", json={"url": offline_web.url("status.test", "/404")})
    error = assert_error(response, 404, "http_error")
    assert error["details"]["status"] == 404


async def test_bad_url_is_400(api):
    assert_error(await api.post("/v1/fetch", json={"url": "not a url"}), 400, "invalid_url")
    response = await api.post("/v1/fetch", json={"url": "file:///etc/passwd"})
    assert_error(response, 400, "unsupported_scheme")


async def test_malformed_json_is_400(api):
    response = await api.post(
        "/v1/fetch", content=b'{"url": ', headers={"content-type": "application/json"}
    )
    error = assert_error(response, 400, "invalid_input")
    assert "not valid JSON" in error["message"]


async def test_body_without_json_content_type_is_400(api):
    response = await api.post("/v1/fetch", content=b"url=http://x", headers={})
    error = assert_error(response, 400, "invalid_input")
    assert "Content-Type: application/json" in error["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": 5}, "url"),
        ({"url": "http://news.test/", "max_length": 0}, "max_length"),
        ({"url": "http://news.test/", "format": "pdf"}, "format"),
        ({"url": "http://news.test/", "surprise": True}, "surprise"),
        ({}, "url"),
    ],
)
async def test_wrong_fields_are_422_naming_the_field(api, body, field):
    error = assert_error(await api.post("/v1/fetch", json=body), 422, "invalid_input")
    assert field in error["message"]


async def test_oversized_body_is_413(web_settings, web_client):
    app = create_app(web_settings(server_max_body=1000), client=web_client)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        big = {"url": "http://news.test/" + "a" * 2000}
        assert_error(await http.post("/v1/fetch", json=big), 413, "too_large")

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the cap still holds
            for _ in range(5):
                yield b"x" * 400

        response = await http.post(
            "/v1/fetch", content=chunks(), headers={"content-type": "application/json"}
        )
        assert_error(response, 413, "too_large")
        small = await http.post("/v1/fetch", json={"url": "file:///x"})
        assert_error(small, 400, "unsupported_scheme")


async def test_unknown_route_and_method_use_the_error_shape(api):
    assert_error(await api.get("/v1/nothing-here"), 404, "not_found")
    response = await api.get("/v1/fetch")
    assert_error(response, 405, "invalid_input")
    assert "POST" in response.headers["allow"]


async def test_request_id_is_echoed(api):
    response = await api.get("/healthz", headers={"x-request-id": "abc-123"})
    assert response.headers["x-request-id"] == "abc-123"
    made_up = await api.get("/healthz", headers={"x-request-id": "bad id with spaces"})
    assert re.fullmatch(r"[0-9a-f]{32}", made_up.headers["x-request-id"])


async def test_disabled_capability_is_503_and_reported_off(web_settings):
    async with Client(web_settings(capabilities=["search"])) as client:
        app = create_app(client=client)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            response = await http.post("/v1/fetch", json={"url": "http://news.test/"})
            error = assert_error(response, 503, "disabled")
            assert error["details"]["capability"] == "fetch"
            assert_error(
                await http.post("/v1/meta", json={"url": "http://news.test/"}), 503, "disabled"
            )
            info = (await http.get("/v1/info")).json()
    assert info["capabilities"] == {
        "search": True,
        "fetch": False,
        "research": False,
        "chat": False,
        "robots": False,
        "wayback": False,
        "citations": False,
    }


async def test_info_reports_version_limits_and_cache(api):
    response = await api.get("/v1/info")
    assert response.status_code == 200, response.text
    info = response.json()
    from netsift import __version__

    assert info["version"] == __version__
    assert info["capabilities"]["fetch"] is True
    assert info["auth_required"] is False
    assert info["limits"]["rate_limit"] == "600/minute"
    assert info["limits"]["max_body"] == 1024 * 1024
    assert info["cache"]["backend"]
    names = [row["name"] for row in info["providers"]]
    assert names[:2] == ["duckduckgo", "wikipedia"]
    assert {"configured", "breaker", "rate_limit"} <= set(info["providers"][0])


async def test_health_and_readiness(api):
    assert (await api.get("/healthz")).json() == {"status": "ok"}
    ready = await api.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"client": "ok", "cache": "ok"}


async def test_readiness_fails_while_the_client_is_not_up(make_settings):
    app = create_app(make_settings())  # lifespan not run: no Client yet
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
        ready = await http.get("/readyz")
        assert ready.status_code == 503
        assert ready.json()["status"] == "not_ready"
        assert_error(await http.post("/v1/fetch", json={"url": "http://x.test/"}), 503, "disabled")


class ExplodingClient(Client):
    """A Client whose fetch fails with a bug (a plain exception carrying a secret)."""

    async def fetch(self, url, **options):
        raise RuntimeError("secret-token-do-not-show at /home/someone/app.py line 3")


async def test_unexpected_failure_is_internal_without_traceback(web_settings):
    async with ExplodingClient(web_settings()) as client:
        app = create_app(client=client)
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as http:
            response = await http.post("/v1/fetch", json={"url": "http://news.test/"})
            error = assert_error(response, 500, "internal")
            assert "secret" not in response.text and "app.py" not in response.text
            assert error["retryable"] is False


async def test_web_page_is_self_contained(api):
    page = await api.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    html = page.text
    assert 'id="search-form"' in html and 'id="read-form"' in html
    assert '<label for="q"' in html and '<label for="read-url"' in html
    assert "<script>" not in html and not re.search(r"(src|href)=\"(https?:)?//", html)
    # the page's files, and the modules they import, all from this server
    todo = re.findall(r"(?:src|href)=\"(/static/[^\"]+)\"", html)
    seen: set[str] = set()
    while todo:
        asset = todo.pop()
        if asset in seen:
            continue
        seen.add(asset)
        served = await api.get(asset)
        assert served.status_code == 200, asset
        assert served.headers["content-security-policy"] == policy, asset
        if not asset.endswith(".svg"):  # (an SVG names its XML namespace by a URL)
            assert "http://" not in served.text and "https://" not in served.text
        assert "innerHTML" not in served.text and "insertAdjacentHTML" not in served.text
        folder = asset.rsplit("/", 1)[0]
        for module in re.findall(r"from \"\./([\w/.-]+\.js)\"", served.text):
            todo.append(f"{folder}/{module}")
    assert "/static/js/reader.js" in seen and "/static/js/markdown.js" in seen


async def test_docs_load_only_from_this_server(api):
    page = await api.get("/docs")
    assert page.status_code == 200
    html = page.text
    assert "SwaggerUIBundle" in html
    assert "cdn" not in html.lower() and "http://" not in html and "https://" not in html
    assets = re.findall(r"(?:src|href)=\"([^\"]+)\"", html)
    assert {a.rsplit("/", 1)[-1] for a in assets} == {
        "swagger-ui-bundle.js",
        "swagger-ui.css",
        "favicon.png",
    }
    kinds = {".js": "javascript", ".css": "text/css", ".png": "image/png"}
    for asset in assets:
        assert asset.startswith("/docs/assets/"), asset
        served = await api.get(asset)
        assert served.status_code == 200, asset
        assert kinds[asset[asset.rindex(".") :]] in served.headers["content-type"]
    bundle = (await api.get("/docs/assets/swagger-ui-bundle.js")).text
    assert "SwaggerUIBundle" in bundle and len(bundle) > 500_000  # the real Swagger UI
    assert re.search(r"url: '/openapi.json'", html)
    assert (await api.get("/openapi.json")).status_code == 200
    redirect = await api.get("/docs/oauth2-redirect")
    assert redirect.status_code == 200 and "oauth2" in redirect.text.lower()
