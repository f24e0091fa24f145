"""`POST /v1/chat/completions`: an OpenAI-compatible chat endpoint with optional web search.

Point any OpenAI SDK at netsift's `/v1` and add `"web_search": true` (plus `max_searches`,
`search_queries`) to a request: the answer comes back with `netsift.sources` and
`netsift.searches_performed`. Without `web_search` the request passes through to the
configured model untouched; `"stream": true` streams chunks as `data:` lines, as OpenAI does.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import Field

from ...errors import Disabled, LLMError, NetsiftError
from ...research.chat import ChatRequest, chat, chat_stream
from ...research.llm import LLM
from ..deps import CallerDep, StateDep
from ..responses import BODY, GUARDED, SSE_CHUNKS, errors_for

__all__ = ["router"]

router = APIRouter(prefix="/v1/chat", tags=["chat"], responses=errors_for(*GUARDED))


class ChatBody(ChatRequest):
    """A chat completions body: OpenAI's fields pass on; netsift's own are checked strictly,
    so `"web_search": 0` or `"stream": "yes"` is refused (422) rather than guessed at."""

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
    client = state.require_client()
    settings = client.settings
    if not settings.enabled("chat"):
        raise Disabled(
            "the chat capability is switched off on this host", details={"capability": "chat"}
        )
    llm: LLM | None = client.llm
    if llm is None:
        raise Disabled(
            "chat needs a language model: set NETSIFT_LLM_MODEL and OPENAI_BASE_URL "
            "(or OPENAI_API_KEY)",
            details={"capability": "chat"},
        )
    search = client.search_service if settings.enabled("search") else None
    if not body.stream:
        return JSONResponse(await chat(llm, search, body))
    chunks = chat_stream(llm, search, body)
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
