"""Chat with web search: an OpenAI-compatible chat call, augmented with numbered sources.

Without `web_search` the request goes to the model untouched (a transparent proxy). With it,
queries come from the conversation (or the caller), the results go into the context as
numbered sources, and the answer comes back with `netsift.sources` and
`netsift.searches_performed`. If search fails, the chat still answers and says search was
unavailable: a host augmenting inference must never lose the answer to a search outage.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidInput, NetsiftError
from ..models import SearchResult
from ..search.rank import canonical_url
from ..search.service import SearchService
from .llm import LLM
from .planner import derive_queries

__all__ = ["ChatRequest", "chat", "chat_stream"]

MAX_SOURCES = 8


class ChatRequest(BaseModel):
    """An OpenAI chat completions body plus netsift's search options; other fields pass on."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    messages: list[dict[str, Any]] = Field(min_length=1, max_length=500)
    stream: bool = False
    web_search: bool = False
    max_searches: int = Field(default=3, ge=1, le=10)
    search_queries: list[str] | None = Field(default=None, max_length=10)

    def upstream_body(self) -> dict[str, Any]:
        """The body the model sees: netsift's own fields removed."""
        body = self.model_dump(
            exclude_none=True, exclude={"web_search", "max_searches", "search_queries"}
        )
        body.pop("stream", None)
        return body


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):  # content parts
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


async def gather_sources(
    search: SearchService, request: ChatRequest
) -> tuple[list[SearchResult], int, str | None]:
    """Run the searches; returns sources, searches performed and an error note if all failed."""
    if request.search_queries:
        queries = request.search_queries[: request.max_searches]
    else:
        question = _last_user_text(request.messages)[:2000]
        if len(question.strip()) < 2:
            raise InvalidInput("web_search needs a user message to search for")
        queries = derive_queries(question[:400], limit=request.max_searches)
    found: list[SearchResult] = []
    failures: list[str] = []

    async def one(query: str) -> None:
        try:
            response = await search.search(query, count=MAX_SOURCES)
        except NetsiftError as exc:
            failures.append(exc.code)
            return
        found.extend(response.results)

    async with anyio.create_task_group() as group:
        for query in queries:
            group.start_soon(one, query)
    seen: set[str] = set()
    sources: list[SearchResult] = []
    for result in found:
        key = canonical_url(result.url)
        if key not in seen:
            seen.add(key)
            sources.append(result.model_copy(update={"rank": len(sources) + 1}))
        if len(sources) >= MAX_SOURCES:
            break
    error = None
    if failures and len(failures) == len(queries):
        error = f"web search was unavailable ({', '.join(sorted(set(failures)))})"
    return sources, len(queries), error


def _context_message(sources: list[SearchResult], error: str | None) -> dict[str, str]:
    if error:
        return {
            "role": "system",
            "content": f"Note: {error}. Answer from your own knowledge and say that web search "
            "could not be used.",
        }
    listing = (
        "\n".join(f"[{s.rank}] {s.title} — {s.url}\n{s.snippet}" for s in sources) or "(no results)"
    )
    return {
        "role": "system",
        "content": "Web search results for this conversation, numbered. Use them where they "
        "help and cite them with their numbers in brackets, like [1].\n\n" + listing,
    }


async def _augment(
    search: SearchService | None, request: ChatRequest
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    body = request.upstream_body()
    if not request.web_search:
        return body, None
    sources: list[SearchResult] = []
    performed, error = 0, None
    if search is None:
        error = "web search is disabled on this host"
    else:
        sources, performed, error = await gather_sources(search, request)
    body["messages"] = [_context_message(sources, error), *body["messages"]]
    meta: dict[str, Any] = {
        "sources": [s.model_dump(mode="json") for s in sources],
        "searches_performed": performed,
        "search_unavailable": error is not None,
    }
    if error:
        meta["search_error"] = error
    return body, meta


async def chat(llm: LLM, search: SearchService | None, request: ChatRequest) -> dict[str, Any]:
    body, meta = await _augment(search, request)
    response = await llm.forward(body)
    if meta is not None:
        response["netsift"] = meta
    return response


async def chat_stream(
    llm: LLM, search: SearchService | None, request: ChatRequest
) -> AsyncIterator[dict[str, Any]]:
    """Chunks as the model sends them; netsift's metadata rides on the first chunk."""
    body, meta = await _augment(search, request)
    first = True
    async for chunk in llm.forward_stream(body):
        if first and meta is not None:
            chunk["netsift"] = meta
        first = False
        yield chunk
