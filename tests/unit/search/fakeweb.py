"""A tiny provider and a scripted web for the service's unit tests (no simulators needed).

`FakeWeb` answers through `httpx.MockTransport`, injected into the real HttpClient by its
`transport=` seam; each provider host has a mode, as the real simulators do.
"""

from __future__ import annotations

import json

import anyio
import httpx

from netsift.config import ProviderSettings
from netsift.errors import NetsiftError, ProviderAuth, ProviderUnavailable, RateLimited
from netsift.models import Query, SearchResult
from netsift.search.provider import About, Provider


class FakeProvider(Provider):
    """Speaks FakeWeb's JSON; classifies failures the way real parsers do."""

    name = "fake"
    about = About(website="https://fake.test", docs="", base_url="https://fake.test")
    has_fallback = False

    def build_request(self, query: Query) -> httpx.Request:
        return httpx.Request(
            "GET", f"{self.base_url}/search", params={"q": query.text, "n": query.count}
        )

    def fallback_request(self, query: Query, error: NetsiftError) -> httpx.Request | None:
        if not self.has_fallback:
            return None
        return httpx.Request("GET", f"{self.base_url}/lite", params={"q": query.text})

    def parse_response(self, response: httpx.Response, query: Query) -> list[SearchResult]:
        status = response.status_code
        if status == 401:
            raise ProviderAuth(f"{self.name} refused the key")
        if status == 429:
            retry = response.headers.get("retry-after")
            raise RateLimited(
                f"{self.name} says too many requests", retry_after=float(retry) if retry else None
            )
        if status == 202:
            raise RateLimited(f"{self.name} showed an anomaly page", details={"captcha": True})
        if status >= 400:
            raise ProviderUnavailable(f"{self.name} answered HTTP {status}")
        data = response.json()
        return [
            SearchResult(title=r["title"], url=r["url"], snippet=r["snippet"], source=self.name)
            for r in data["results"]
        ]


def fake(
    name: str,
    *,
    requires_key: bool = False,
    key: str | None = None,
    rate_limit: str = "1000/second",
    fallback: bool = False,
    kind: str = "web",
) -> Provider:
    about = About(
        website=f"https://{name}.test",
        docs="",
        base_url=f"https://{name}.test",
        requires_key=requires_key,
        key_env=(f"{name.upper()}_API_KEY",),
        rate_limit=rate_limit,
        kind=kind,
    )
    cls = type(
        name.title(), (FakeProvider,), {"name": name, "about": about, "has_fallback": fallback}
    )
    settings = ProviderSettings(name=name, api_key=key)
    provider: Provider = cls(settings)
    return provider


PAGES = [
    ("a tutorial", "Step by step from installing the toolchain to a first program."),
    ("benchmarks", "Throughput and latency measured on eight machines, with charts."),
    ("history", "How the project started in 2015 and who maintained it since."),
    ("comparison", "Side by side against the three best-known alternatives."),
    ("reference", "Every function and option, generated from the source code."),
]


class FakeWeb:
    """Per-host modes: ok, empty, decoy, auth, rate_limit, anomaly, server_error, timeout, crash."""

    def __init__(self, latency: float = 0.0) -> None:
        self.modes: dict[str, str] = {}
        self.lite_modes: dict[str, str] = {}
        self.latency: dict[str, float] = {}
        self.default_latency = latency
        self.calls: list[str] = []
        self.version = 1

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def requests_to(self, name: str) -> int:
        return sum(1 for call in self.calls if call.startswith(f"{name}:"))

    async def handle(self, request: httpx.Request) -> httpx.Response:
        name = request.url.host.removesuffix(".test")
        lite = request.url.path == "/lite"
        self.calls.append(f"{name}:{request.url.path}")
        await anyio.sleep(self.latency.get(name, self.default_latency))
        mode = (self.lite_modes if lite else self.modes).get(name, "ok")
        query = request.url.params.get("q", "")
        count = int(request.url.params.get("n", "10"))
        if mode == "auth":
            return httpx.Response(401, json={"error": "bad key"})
        if mode == "rate_limit":
            return httpx.Response(429, headers={"Retry-After": "30"}, text="slow down")
        if mode == "anomaly":
            return httpx.Response(202, text="<form id='challenge-form'>")
        if mode == "server_error":
            return httpx.Response(500, text="oops")
        if mode == "timeout":
            raise httpx.ReadTimeout("read timed out", request=request)
        if mode == "crash":
            return httpx.Response(200, text="<html>not json</html>")
        if mode == "empty":
            return httpx.Response(200, json={"results": []})
        if mode == "decoy":
            results = [
                {
                    "title": "Cheap flights to Lisbon",
                    "url": f"https://{name}.test/ad",
                    "snippet": "",
                }
            ]
            return httpx.Response(200, json={"results": results})
        results = [
            {
                "title": f"{query}: {title}",
                "url": f"https://site{i}.test/{query.replace(' ', '-')}",
                "snippet": f"{snippet} (v{self.version})",
            }
            for i, (title, snippet) in enumerate(PAGES[: min(count, len(PAGES))], start=1)
        ]
        return httpx.Response(200, content=json.dumps({"results": results}).encode())


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now
