"""`POST /v1/chat/completions`: an OpenAI-compatible chat endpoint with optional web search.

Point any OpenAI SDK at netsift's `/v1` and add `"web_search": true` (plus `max_searches`,
`search_queries`) or OpenAI's own `web_search_options` to a request: the answer comes back with
`[n]` markers, `url_citation` annotations, `netsift.sources` and `netsift.searches_performed`.
Without them the request passes through to the configured model untouched; `"stream": true`
streams chunks as `data:` lines, as OpenAI does. `GET /v1/models` lists the configured model.

The model's errors come back with the model's own status and message (a 400 stays a 400, a
429 keeps its Retry-After), and every error says `x-should-retry: true|false` as netsift
judges it, which the OpenAI SDK obeys: netsift itself does not retry behind the proxy, so
one refusal is one upstream call, and the caller's SDK decides.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import ConfigDict, Field

from ...errors import LLMError, NetsiftError, NotFound
from ...research.chat import ChatRequest
from ..deps import CallerDep, StateDep
from ..responses import BODY, GUARDED, SSE_CHUNKS, error_response, errors_for

__all__ = ["models_router", "router"]

router = APIRouter(prefix="/v1/chat", tags=["chat"], responses=errors_for(*GUARDED))
models_router = APIRouter(prefix="/v1/models", tags=["chat"], responses=errors_for(*GUARDED))
# Upstream statuses passed through as they are: the caller's request was at fault (or is
# rate limited) and must see why; anything else from the model is netsift's 502.
PASSED_STATUSES = frozenset({400, 401, 403, 404, 408, 409, 413, 415, 422, 429})


def upstream_error(error: NetsiftError) -> Response:
    """An error as the OpenAI SDK reads it: the upstream's status where it is the caller's
    to see, `error.message`, and `x-should-retry` saying what netsift's `retryable` says
    (without it the SDK retries 408/409/429/5xx whatever netsift thinks)."""
    status = error.details.get("status") if isinstance(error, LLMError) else None
    passed = status if isinstance(status, int) and status in PASSED_STATUSES else None
    should = "true" if error.retryable else "false"
    return error_response(error, status=passed, headers={"x-should-retry": should})


class ChatBody(ChatRequest):
    """A chat completions body: OpenAI's fields pass on; netsift's own are checked strictly,
    so `"web_search": 0` or `"stream": "yes"` is refused (422) rather than guessed at; OpenAI's
    fields are strict too (`"model": 5` is no model name), their contents pass on."""

    model_config = ConfigDict(extra="allow", strict=True)

    stream: bool = Field(default=False, strict=True)
    web_search: bool = Field(default=False, strict=True)
    max_searches: int = Field(default=3, ge=1, le=10, strict=True)


def _sse(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return f"data: {data}\n\n".encode()


async def _relay(
    first: dict[str, Any], rest: AsyncIterator[dict[str, Any]]
) -> AsyncIterator[bytes]:
    """OpenAI's stream framing; a failure after the first chunk can only be told in-band."""
    yield _sse(first)
    try:
        async for chunk in rest:
            yield _sse(chunk)
    except NetsiftError as exc:
        yield _sse({"error": exc.to_dict()})
    yield _sse("[DONE]")


@router.post(
    "/completions",
    summary="Chat completion (OpenAI-compatible), optionally with web search",
    responses={
        200: {
            "description": "The completion; with `stream: true` its chunks as `data:` lines",
            "content": {"application/json": {"schema": {"type": "object"}}, **SSE_CHUNKS},
        },
        **errors_for(*BODY, 502, 504),
    },
)
async def chat_completions(body: ChatBody, state: StateDep, _: CallerDep) -> Response:
    try:
        return await _complete(body, state)
    except NetsiftError as exc:
        return upstream_error(exc)


async def _complete(body: ChatBody, state: StateDep) -> Response:
    client = state.require_client()
    if not body.stream:
        return JSONResponse(await client.chat(body))
    chunks = client.chat_stream(body)
    # The first chunk is awaited here, so a model that refuses the call is an HTTP error,
    # not a broken stream.
    try:
        first = await anext(chunks)
    except StopAsyncIteration:
        raise LLMError("the language model sent an empty stream") from None
    return StreamingResponse(
        _relay(first, chunks),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _model_entry(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "netsift"}


@models_router.get("", summary="The models chat answers with (OpenAI-compatible)")
async def list_models(state: StateDep, _: CallerDep) -> dict[str, Any]:
    """OpenAI's model list: the configured model, or none when chat has no model."""
    name = state.require_client().chat_model()
    return {"object": "list", "data": [_model_entry(name)] if name else []}


@models_router.get(
    "/{model:path}", summary="One model (OpenAI-compatible)", responses=errors_for(404, 422)
)
async def get_model(model: str, state: StateDep, _: CallerDep) -> Response:
    if model != state.require_client().chat_model():
        return upstream_error(
            NotFound(f"no model {model!r} is served here", details={"model": model})
        )
    return JSONResponse(_model_entry(model))
