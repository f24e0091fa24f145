"""What the API answers besides the library's models: the error body and the request bodies.

Every failure is `{"error": {code, message, retryable, details}}` (design.md §4) with the
status its class names; `error_response` is the one place that renders it, `Retry-After`
included. The request models add only what HTTP needs (`request_id`) to the shared params.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import HTTPError, NetsiftError
from ..operations import operation
from ..params import (
    BatchSearchParams,
    CitationPackParams,
    ContextParams,
    DedupeRankParams,
    ExtractDataParams,
    ExtractParams,
    FetchParams,
    MapParams,
    MetaParams,
    RobotsCheckParams,
    SearchParams,
    WaybackParams,
)
from ..search.batch import BatchItem

__all__ = [
    "BODY",
    "GUARDED",
    "SSE",
    "SSE_CHUNKS",
    "BatchRequest",
    "BatchResponse",
    "ContextRequest",
    "ErrorBody",
    "ErrorObject",
    "ExtractDataRequest",
    "FetchRequest",
    "MapRequest",
    "MetaRequest",
    "SearchRequest",
    "describe_validation",
    "error_response",
    "errors_for",
    "operation_errors",
    "request_model",
    "status_of",
]

REQUEST_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"


class ErrorObject(BaseModel):
    code: str = Field(description="Stable error code, e.g. invalid_input or blocked_address.")
    message: str = Field(description="What went wrong, for the person or agent reading it.")
    retryable: bool = Field(description="Whether the same request may succeed later.")
    details: dict[str, Any] = Field(description="Machine-readable context (retry_after, ...).")


class ErrorBody(BaseModel):
    """The body of every error answer."""

    error: ErrorObject


class _RequestId(BaseModel):
    # Lengths are checked on the text as sent, so the document's maxLength is exact; the
    # library trims whitespace itself (queries are normalized, URLs stripped).
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    request_id: str | None = Field(
        default=None,
        pattern=REQUEST_ID_PATTERN,
        description="Your id for this request; echoed in the answer and the audit log.",
    )


class SearchRequest(SearchParams, _RequestId):
    """Search the web; `Accept: text/event-stream` streams the attempts as they happen."""


class BatchRequest(BatchSearchParams, _RequestId):
    """Several searches at once; each query's answer or error, in order."""


class FetchRequest(FetchParams, _RequestId):
    """Fetch a page and read its main content."""


class MetaRequest(MetaParams, _RequestId):
    """Read a page's link-preview card."""


class ExtractRequest(ExtractParams, _RequestId):
    """Read HTML the caller already has (the body's size cap bounds it), as fetch reads a page."""

    html: str = Field(
        min_length=1, description="The HTML to read (the request body's cap bounds it)."
    )


class ExtractDataRequest(ExtractDataParams, _RequestId):
    """Extract a JSON Schema's fields from pages, each with its evidence."""


class MapRequest(MapParams, _RequestId):
    """List a site's URLs: its sitemaps, feeds and the start page's links."""


class ContextRequest(ContextParams, _RequestId):
    """The passages most relevant to a query across the pages a search finds, in a budget."""


class RobotsCheckRequest(RobotsCheckParams, _RequestId):
    """May a user agent fetch a URL (robots.txt)?"""


class WaybackRequest(WaybackParams, _RequestId):
    """The Internet Archive snapshot of a URL nearest a date."""


class CitationPackRequest(CitationPackParams, _RequestId):
    """A citation bundle of URLs, a report or a research job's report."""


class DedupeRankRequest(DedupeRankParams, _RequestId):
    """A result list folded and ranked against a query."""


# The request body of each operation that answers at once (a job's start lives with its router).
_REQUESTS: dict[type[BaseModel], type[BaseModel]] = {
    SearchParams: SearchRequest,
    BatchSearchParams: BatchRequest,
    FetchParams: FetchRequest,
    MetaParams: MetaRequest,
    ExtractParams: ExtractRequest,
    MapParams: MapRequest,
    ContextParams: ContextRequest,
    ExtractDataParams: ExtractDataRequest,
    RobotsCheckParams: RobotsCheckRequest,
    WaybackParams: WaybackRequest,
    CitationPackParams: CitationPackRequest,
    DedupeRankParams: DedupeRankRequest,
}


def request_model(params: type[BaseModel]) -> type[BaseModel]:
    """The HTTP and WebSocket body of an operation with these params: them plus request_id."""
    return _REQUESTS[params]


class BatchResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    results: list[BatchItem]
    request_id: str | None = None


def describe_validation(exc: ValidationError | RequestValidationError) -> str:
    """`field: problem; ...` for a 422 message, without echoing the input back."""
    problems = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        problems.append(f"{'.'.join(loc) or 'body'}: {err.get('msg', 'invalid')}")
    return "invalid request: " + "; ".join(problems[:10])


def status_of(error: NetsiftError) -> int:
    return error.http_status if isinstance(error, HTTPError) else error.status


def retry_after_of(error: NetsiftError) -> int | None:
    """Whole seconds for the `Retry-After` header, when the error knows when to retry."""
    value = error.details.get("retry_after")
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return max(1, math.ceil(value))
    return None


def error_response(
    error: NetsiftError, *, status: int | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The one rendering of an error: its status (or `status`), body and Retry-After."""
    extra = dict(headers or {})
    if (wait := retry_after_of(error)) is not None:
        extra["Retry-After"] = str(wait)
    if error.status == 401:
        extra["WWW-Authenticate"] = "Bearer"
    return JSONResponse(
        {"error": error.to_dict()}, status_code=status or status_of(error), headers=extra
    )


_DESCRIPTIONS = {
    400: "Invalid input (bad URL, unknown provider, malformed JSON)",
    401: "Missing or unknown API key",
    403: "Blocked: the SSRF guard or robots.txt refused the URL",
    404: "Not found (the page answered 404 or 410, or no such job or sleep)",
    409: "Already finished: the job ended before it could be cancelled",
    413: "Too large: the request body or the fetched page is over its cap",
    415: "The page's content type is not readable",
    422: "Validation failed (a field has the wrong type or is out of range)",
    429: "Rate limited, quota or budget used up; see Retry-After",
    500: "Internal error",
    502: "The upstream (page, provider or language model) failed, or could not be reached "
    "(dns_error, connect_error, tls_error)",
    503: "Disabled or misconfigured: the capability is switched off on this host, a setting it "
    "needs is missing (config_error), or the server is starting",
    504: "Timed out",
}

# An answer streamed as server-sent events (`Accept: text/event-stream`, or chat's
# `stream: true`), for a 200's `content` beside its JSON. Before OpenAPI 3.2's `itemSchema`,
# a `text/event-stream` schema describes one event: netsift's carry their JSON as `data`
# (`{type, job_id, seq, at, data}`), chat's carry OpenAI's chunks and a final `[DONE]`.
_EVENT_FIELDS: dict[str, Any] = {
    "event": {"type": "string"},
    "id": {"type": "string"},
    "retry": {"type": "integer"},
}
SSE: dict[str, Any] = {
    "text/event-stream": {
        "schema": {
            "type": "object",
            "required": ["event", "data"],
            "properties": {
                **_EVENT_FIELDS,
                "data": {"type": "string", "contentMediaType": "application/json"},
            },
        },
        "example": 'event: done\nid: 5\ndata: {"type": "done", "seq": 5, ...}\n\n',
    }
}
SSE_CHUNKS: dict[str, Any] = {
    "text/event-stream": {
        "schema": {
            "type": "object",
            "required": ["data"],
            "properties": {**_EVENT_FIELDS, "data": {"type": "string"}},
        },
        "example": 'data: {"object": "chat.completion.chunk", ...}\n\ndata: [DONE]\n\n',
    }
}

# What every route behind the API key may answer, whatever it does: no or an unknown key
# (401; dropped from the document of a server without keys), the client's rate limit (429),
# the server starting or the capability switched off (503), and `internal` (500).
GUARDED = (401, 429, 500, 503)
# What a route with a JSON body may answer before it runs: malformed JSON or not JSON (400),
# a body over NETSIFT_SERVER_MAX_BODY (413), a field out of its schema (422).
BODY = (400, 413, 422)


def operation_errors(name: str) -> dict[int | str, dict[str, Any]]:
    """`errors_for` the statuses operation `name` may answer (operations.py) and a JSON body's,
    but those every guarded route declares already (GUARDED, on the router)."""
    statuses = {*BODY, *operation(name).statuses()} - set(GUARDED)
    return errors_for(*sorted(statuses))


def errors_for(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries declaring the error body for each status."""
    return {
        status: {"model": ErrorBody, "description": _DESCRIPTIONS[status]} for status in statuses
    }
