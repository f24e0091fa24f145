"""What every provider simulator shares: per-provider knobs, recorded requests, replayed examples.

A simulator answers in its provider's exact wire format, replaying the recorded example
payloads of `providers/data/` (the repository's one copy, which the parser tests read too)
with result items rebuilt for the query asked. Each provider has a `Knob` the tests turn: a
failure `mode`, a `latency`, how long a `timeout` hangs, and the requests it received.

Modes every simulator understands (unsupported ones raise at `set()` time, so a test cannot
silently ask for something the simulator would ignore):

    ok          results for the query (terms of the query in every title and snippet)
    noresults   the provider's documented "nothing found" shape (an honest empty answer)
    empty       200 with an empty body (no results structure at all: a broken page)
    malformed   200 with a body cut off halfway (unparsable JSON / XML / HTML)
    decoy       well-formed results for another query (what some engines show bots)
    auth        the provider's "bad key" / access refused answer (401, 403 or 422 as the real one)
    rate_limit  the provider's 429 (with Retry-After / reset headers where the real one sends them)
    quota       the provider's "quota used up" answer, where it has one
    server_error  5xx
    timeout     hang past any deadline (until the client goes away)
    anomaly     DuckDuckGo's bot challenge (202); `anomaly200` the same markers with 200
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response

from tests.paths import PROVIDER_DATA

__all__ = [
    "COMMON_MODES",
    "DECOY_QUERY",
    "Knob",
    "Seen",
    "SimState",
    "example",
    "example_body",
    "hang",
    "highlight",
    "int_param",
    "json_response",
    "replay",
    "truncated",
]

PROVIDERS_DIR = PROVIDER_DATA
DECOY_QUERY = "cheap flights to lisbon"
COMMON_MODES = frozenset(
    {
        "ok",
        "noresults",
        "empty",
        "malformed",
        "decoy",
        "auth",
        "rate_limit",
        "server_error",
        "timeout",
    }
)


@dataclass(frozen=True)
class Seen:
    """One request as the simulator received it."""

    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, str]:
        from urllib.parse import parse_qsl

        return dict(parse_qsl(self.body.decode(), keep_blank_values=True))


@dataclass
class Knob:
    """How one provider's simulator behaves in the current test; reset between tests."""

    name: str
    modes: frozenset[str]
    mode: str = "ok"
    endpoint_modes: dict[str, str] = field(default_factory=dict)
    times: int | None = None  # the mode applies to this many requests, then back to "ok"
    latency: float = 0.0
    hang: float = 30.0
    retry_after: int = 1
    requests: list[Seen] = field(default_factory=list)
    # Set by the offline tour, kept across reset(): results link to pages served on this
    # loopback port (corpus.linked) instead of public-looking https hosts nobody serves here.
    link_port: int | None = None

    def set(
        self,
        mode: str,
        *,
        times: int | None = None,
        endpoint: str | None = None,
        retry_after: int | None = None,
    ) -> Knob:
        """Answer with `mode` (for `times` requests, or until reset); returns self."""
        if mode not in self.modes:
            raise ValueError(f"{self.name} simulator has no mode {mode!r}; it has {self.modes}")
        if endpoint is None:
            self.mode = mode
        else:
            self.endpoint_modes[endpoint] = mode
        self.times = times
        if retry_after is not None:
            self.retry_after = retry_after
        return self

    def take(self, endpoint: str | None = None) -> str:
        """The mode for this request (counting down `times`)."""
        mode = self.endpoint_modes.get(endpoint or "", self.mode)
        if mode != "ok" and self.times is not None:
            self.times -= 1
            if self.times <= 0:
                self.mode = "ok"
                self.endpoint_modes.clear()
                self.times = None
        return mode

    @property
    def count(self) -> int:
        return len(self.requests)

    def reset(self) -> None:
        self.mode = "ok"
        self.endpoint_modes.clear()
        self.times = None
        self.latency = 0.0
        self.hang = 30.0
        self.retry_after = 1
        self.requests.clear()


class SimState:
    """Every simulator's knob, by provider name."""

    def __init__(self, modes: dict[str, Iterable[str]], *, link_port: int | None = None) -> None:
        self.knobs = {
            name: Knob(name, frozenset(m), link_port=link_port) for name, m in modes.items()
        }

    def __getitem__(self, name: str) -> Knob:
        return self.knobs[name]

    def reset(self) -> None:
        for knob in self.knobs.values():
            knob.reset()

    def total_requests(self) -> int:
        return sum(knob.count for knob in self.knobs.values())


async def record(request: Request, knob: Knob) -> Seen:
    seen = Seen(
        method=request.method,
        path=request.url.path,
        params=dict(request.query_params),
        headers={k.lower(): v for k, v in request.headers.items()},
        body=await request.body(),
        at=time.monotonic(),
    )
    knob.requests.append(seen)
    return seen


async def hang(request: Request, seconds: float) -> Response:
    """Say nothing for `seconds`, or until the client gives up (then the handler ends too)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await request.is_disconnected():
            break
        await anyio.sleep(0.05)
    return Response(b"", status_code=504)


@cache
def _examples(provider: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PROVIDERS_DIR / f"{provider}.json").read_text())
    examples: dict[str, Any] = data["examples"]
    return examples


def example(provider: str, scenario: str) -> tuple[int, dict[str, str], bytes]:
    """A recorded scenario's status, headers and raw body bytes."""
    response = _examples(provider)[scenario]["response"]
    if "body_same_as" in response:
        _, _, body = example(provider, response["body_same_as"])
    elif "body_file" in response:
        body = (PROVIDERS_DIR / response["body_file"]).read_bytes()
    elif "body_text" in response:
        body = str(response["body_text"]).encode()
    else:
        body = json.dumps(response.get("body"), ensure_ascii=False).encode()
    return int(response["status"]), dict(response.get("headers") or {}), body


def example_body(provider: str, scenario: str) -> Any:
    """A fresh, mutable copy of a scenario's JSON body."""
    response = _examples(provider)[scenario]["response"]
    if "body_same_as" in response:
        return example_body(provider, response["body_same_as"])
    return copy.deepcopy(response["body"])


def replay(
    provider: str,
    scenario: str,
    *,
    headers: dict[str, str] | None = None,
    status: int | None = None,
) -> Response:
    """A recorded scenario exactly as recorded (status, headers, body), headers overridable."""
    code, recorded, body = example(provider, scenario)
    merged = {**recorded, **(headers or {})}
    return Response(body, status_code=status or code, headers=merged)


def json_response(
    body: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    merged = {"Content-Type": "application/json", **(headers or {})}
    return Response(json.dumps(body, ensure_ascii=False).encode(), status, headers=merged)


def truncated(response: Response) -> Response:
    """The same response with its body cut off halfway (a dropped connection's leftovers)."""
    body = bytes(response.body)
    cut = body[: max(1, len(body) // 2)]
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    return Response(cut, status_code=response.status_code, headers=headers)


def highlight(text: str, query: str, start: str, end: str) -> str:
    """`text` with each query word wrapped in `start`/`end` (engines mark matches this way)."""
    import re

    words = sorted({w for w in query.split() if len(w) > 1}, key=len, reverse=True)
    if not words:
        return text
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    return pattern.sub(lambda m: f"{start}{m.group(0)}{end}", text)


def int_param(value: str | None, default: int) -> int | None:
    """The integer in a query parameter; None when it is not one (the caller answers 4xx)."""
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        return None
