"""The recorded provider exchanges of tests/offline_web/providers/data/, as httpx objects.

The parser tests read the same files the simulators replay, so a contract change shows up in both.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import httpx

from netsift.models import Query
from tests.paths import PROVIDER_DATA

PROVIDERS = PROVIDER_DATA


@cache
def examples(provider: str) -> dict[str, Any]:
    data = json.loads((PROVIDERS / f"{provider}.json").read_text("utf-8"))
    found: dict[str, Any] = data["examples"]
    return found


def body_of(provider: str, scenario: str) -> bytes:
    response = examples(provider)[scenario]["response"]
    if "body_same_as" in response:
        return body_of(provider, str(response["body_same_as"]))
    if "body_file" in response:
        return (PROVIDERS / str(response["body_file"])).read_bytes()
    if "body_text" in response:
        return str(response["body_text"]).encode("utf-8")
    return json.dumps(response["body"]).encode("utf-8")


def recorded(provider: str, scenario: str) -> httpx.Response:
    """The scenario's response (status, headers, body) tied to its recorded request."""
    example = examples(provider)[scenario]
    request = httpx.Request(example["request"]["method"], example["request"]["url"])
    return httpx.Response(
        example["response"]["status"],
        headers=example["response"].get("headers", {}),
        content=body_of(provider, scenario),
        request=request,
    )


def recorded_request(provider: str, scenario: str) -> dict[str, Any]:
    request: dict[str, Any] = examples(provider)[scenario]["request"]
    return request


def reply(status: int, content: bytes | str = b"", **headers: str) -> httpx.Response:
    """A hand-made response for failure modes the contracts describe but do not record."""
    body = content.encode("utf-8") if isinstance(content, str) else content
    return httpx.Response(
        status,
        headers={key.replace("_", "-"): value for key, value in headers.items()},
        content=body,
        request=httpx.Request("GET", "https://provider.test/"),
    )


def query(text: str = "rust async runtime", **options: Any) -> Query:
    return Query(text=text, **options)


def same_url(actual: httpx.URL | str, expected: str) -> bool:
    """Same endpoint and the same query parameters, in any order."""
    left, right = httpx.URL(str(actual)), httpx.URL(expected)
    return left.copy_with(query=None) == right.copy_with(query=None) and sorted(
        left.params.multi_items()
    ) == sorted(right.params.multi_items())
