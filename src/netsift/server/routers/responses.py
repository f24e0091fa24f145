"""`POST /v1/responses`: OpenAI's Responses API, over the same chat as `/v1/chat/completions`.

openai-agents' default model class and apps written for the newer API call it. A request is
read as a chat completions request (its `input` and `instructions` as messages, its function
tools as chat tools, a `web_search` tool as netsift's web search), run through `Client.chat`
(or `chat_stream`), and answered as a Response: a `web_search_call` item when it searched
(with `action.sources` when `include` asks for `web_search_call.action.sources`), then the
message, whose `output_text` carries `url_citation` annotations, or the model's
`function_call` items. `stream: true` sends Responses' events as the model writes.

netsift keeps no response state: `previous_response_id` is refused (send the conversation in
`input`), and `store` is always false.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...errors import InvalidInput, LLMError, NetsiftError
from ...research.chat import ChatRequest
from ..deps import CallerDep, StateDep
from ..responses import BODY, GUARDED, SSE, errors_for
from .chat import upstream_error

__all__ = ["ResponsesBody", "router"]

router = APIRouter(prefix="/v1", tags=["chat"], responses=errors_for(*GUARDED))

# The tool types OpenAI names its hosted web search by, over the API's versions.
WEB_SEARCH_TOOLS = frozenset(
    {"web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11"}
)
SOURCES_INCLUDE = "web_search_call.action.sources"
ROLES = frozenset({"user", "assistant", "system", "developer"})


class ResponsesBody(BaseModel):
    """A Responses API request. OpenAI's fields netsift does not act on (`metadata`, `user`,
    `reasoning`…) are accepted and left alone; the ones that would change the answer and
    that netsift cannot honour are refused by name."""

    model_config = ConfigDict(extra="allow", strict=True)

    model: str | None = None
    input: str | list[dict[str, Any]] = Field(min_length=1)
    instructions: str | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list, max_length=128)
    tool_choice: str | dict[str, Any] | None = None
    include: list[str] = Field(default_factory=list)
    stream: bool = False
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = None
    top_p: float | None = None
    parallel_tool_calls: bool | None = None
    text: dict[str, Any] | None = None
    previous_response_id: str | None = None

    @field_validator("previous_response_id")
    @classmethod
    def _stateless(cls, value: str | None) -> str | None:
        if value is not None:
            raise ValueError(
                "netsift keeps no response state; send the whole conversation in `input`"
            )
        return value


@dataclass
class _Call:
    """A chat request made of a Responses request, and what the answer needs of it."""

    chat: ChatRequest
    searching: bool
    query: str
    sources_wanted: bool
    echo: dict[str, Any] = field(default_factory=dict)


def _chat_request(body: ResponsesBody) -> _Call:
    messages: list[dict[str, Any]] = []
    if body.instructions:
        messages.append({"role": "system", "content": body.instructions})
    if isinstance(body.input, str):
        messages.append({"role": "user", "content": body.input})
    else:
        for item in body.input:
            _add_item(messages, item)
    tools, search = [], None
    for tool in body.tools:
        kind = tool.get("type")
        if kind == "function":
            function = {
                k: tool[k] for k in ("name", "description", "parameters", "strict") if k in tool
            }
            tools.append({"type": "function", "function": function})
        elif kind in WEB_SEARCH_TOOLS:
            search = tool
        else:
            raise InvalidInput(
                f"tools: {kind!r} is not a tool netsift runs (function and web_search are)",
                details={"tool": kind},
            )
    upstream: dict[str, Any] = {"model": body.model, "messages": messages}
    if tools:
        upstream["tools"] = tools
        if (choice := _tool_choice(body.tool_choice)) is not None:
            upstream["tool_choice"] = choice
        if body.parallel_tool_calls is not None:
            upstream["parallel_tool_calls"] = body.parallel_tool_calls
    for ours, theirs in (
        ("max_output_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
    ):
        if (value := getattr(body, ours)) is not None:
            upstream[theirs] = value
    if (format := _response_format(body.text)) is not None:
        upstream["response_format"] = format
    if search is not None:
        size = search.get("search_context_size", "medium")
        upstream["web_search_options"] = {"search_context_size": size}
    chat = ChatRequest.model_validate({k: v for k, v in upstream.items() if v is not None})
    question = next(
        (m["content"] for m in reversed(messages) if m["role"] == "user" and m.get("content")), ""
    )
    echo = {
        "tools": body.tools,
        "tool_choice": body.tool_choice or "auto",
        "parallel_tool_calls": True
        if body.parallel_tool_calls is None
        else body.parallel_tool_calls,
        "instructions": body.instructions,
        "temperature": body.temperature,
        "top_p": body.top_p,
        "max_output_tokens": body.max_output_tokens,
        "text": body.text or {"format": {"type": "text"}},
    }
    return _Call(
        chat,
        search is not None,
        question if isinstance(question, str) else "",
        SOURCES_INCLUDE in body.include,
        echo,
    )


def _add_item(messages: list[dict[str, Any]], item: dict[str, Any]) -> None:
    """One input item as chat messages: a message, a function call (the assistant's), or its
    output (a tool message). Earlier searches and reasoning items carry nothing to resend."""
    kind = item.get("type", "message")
    if kind == "message" or (kind is None and "role" in item):
        role = item.get("role")
        if role not in ROLES:
            raise InvalidInput(
                f"input: a message's role must be one of {sorted(ROLES)}, not {role!r}"
            )
        messages.append(
            {
                "role": "system" if role == "developer" else role,
                "content": _text(item.get("content")),
            }
        )
    elif kind == "function_call":
        call = {
            "id": item.get("call_id"),
            "type": "function",
            "function": {"name": item.get("name"), "arguments": item.get("arguments", "")},
        }
        last = messages[-1] if messages else None
        if last is not None and last["role"] == "assistant" and "tool_calls" in last:
            last["tool_calls"].append(call)
        else:
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    elif kind == "function_call_output":
        output = item.get("output")
        content = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": content})
    elif kind not in ("web_search_call", "reasoning"):
        raise InvalidInput(f"input: an item of type {kind!r} is not one netsift reads")


def _text(content: Any) -> str:
    """A message's text: a string, or its text parts (`input_text`, `output_text`) joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text")
        )
    raise InvalidInput("input: a message's content must be text or a list of text parts")


def _tool_choice(choice: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
    if isinstance(choice, dict):
        if choice.get("type") == "function":
            return {"type": "function", "function": {"name": choice.get("name")}}
        return None  # a hosted tool's choice (web_search): netsift searches when asked
    return choice


def _response_format(text: dict[str, Any] | None) -> dict[str, Any] | None:
    format = (text or {}).get("format") or {}
    if format.get("type") == "json_schema":
        schema = {k: format[k] for k in ("name", "schema", "strict", "description") if k in format}
        return {"type": "json_schema", "json_schema": schema}
    if format.get("type") == "json_object":
        return {"type": "json_object"}
    return None


def _id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def _search_item(call: _Call, meta: dict[str, Any] | None, status: str) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "search", "query": call.query}
    if call.sources_wanted and meta is not None:
        action["sources"] = [{"type": "url", "url": s["url"]} for s in meta.get("sources", [])]
    return {"type": "web_search_call", "id": _id("ws"), "status": status, "action": action}


def _annotations(chat_annotations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat's `url_citation` annotations in the Responses form (flat, not nested)."""
    out = []
    for note in chat_annotations:
        cited = note.get("url_citation") or {}
        out.append(
            {
                "type": "url_citation",
                "start_index": cited.get("start_index", 0),
                "end_index": cited.get("end_index", 0),
                "url": cited.get("url", ""),
                "title": cited.get("title", ""),
            }
        )
    return out


def _message_item(text: str, annotations: list[dict[str, Any]], item_id: str) -> dict[str, Any]:
    part = {"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}
    return {
        "type": "message",
        "id": item_id,
        "status": "completed",
        "role": "assistant",
        "content": [part],
    }


def _call_item(call_id: str, name: str, arguments: str, item_id: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": item_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def _usage(usage: dict[str, Any] | None) -> dict[str, Any]:
    given = usage or {}
    prompt, completion = int(given.get("prompt_tokens", 0)), int(given.get("completion_tokens", 0))
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": int(given.get("total_tokens", prompt + completion)),
    }


def _response(
    call: _Call,
    response_id: str,
    model: str,
    output: list[dict[str, Any]],
    *,
    status: Literal["in_progress", "completed", "incomplete"],
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
        "usage": _usage(usage) if status != "in_progress" else None,
        "store": False,
        "previous_response_id": None,
        "metadata": {},
        "truncation": "disabled",
        **call.echo,
    }


def _answer(call: _Call, completion: dict[str, Any]) -> dict[str, Any]:
    """A chat completion as a Response."""
    meta = completion.get("netsift")
    output: list[dict[str, Any]] = []
    if call.searching:
        output.append(_search_item(call, meta, "completed"))
    choices = completion.get("choices") or [{}]
    message = choices[0].get("message") or {}
    for tool_call in message.get("tool_calls") or []:
        function = tool_call.get("function") or {}
        output.append(
            _call_item(
                str(tool_call.get("id")),
                str(function.get("name")),
                str(function.get("arguments") or ""),
                _id("fc"),
            )
        )
    if isinstance(message.get("content"), str) and message["content"]:
        notes = _annotations(message.get("annotations") or [])
        output.append(_message_item(message["content"], notes, _id("msg")))
    status: Literal["completed", "incomplete"] = (
        "incomplete" if choices[0].get("finish_reason") == "length" else "completed"
    )
    model = str(completion.get("model") or call.chat.model or "")
    return _response(call, _id("resp"), model, output, status=status, usage=completion.get("usage"))


class _Events:
    """Responses' stream events, numbered in the order they are sent."""

    def __init__(self) -> None:
        self.sequence = 0

    def __call__(self, kind: str, **data: Any) -> bytes:
        event = {"type": kind, "sequence_number": self.sequence, **data}
        self.sequence += 1
        return f"event: {kind}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n".encode()


async def _stream(
    call: _Call, first: dict[str, Any], rest: AsyncIterator[dict[str, Any]]
) -> AsyncIterator[bytes]:
    """A chat stream as Responses' events: the search, then the text as it comes (or the
    function calls), each item opened and closed, and the whole Response at the end."""
    send = _Events()
    response_id = _id("resp")
    model = str(first.get("model") or call.chat.model or "")
    output: list[dict[str, Any]] = []
    yield send(
        "response.created", response=_response(call, response_id, model, [], status="in_progress")
    )
    yield send(
        "response.in_progress",
        response=_response(call, response_id, model, [], status="in_progress"),
    )
    meta = first.get("netsift")
    if call.searching:
        item = _search_item(call, meta, "completed")
        yield send(
            "response.output_item.added", output_index=0, item={**item, "status": "in_progress"}
        )
        for stage in ("in_progress", "searching", "completed"):
            yield send(f"response.web_search_call.{stage}", output_index=0, item_id=item["id"])
        yield send("response.output_item.done", output_index=0, item=item)
        output.append(item)
    message_id, text, annotations = _id("msg"), [], []
    opened = False
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    usage = None
    try:
        async for chunk in _chain(first, rest):
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                finish = choice.get("finish_reason") or finish
                annotations.extend(_annotations(delta.get("annotations") or []))
                piece = delta.get("content")
                if isinstance(piece, str) and piece:
                    if not opened:
                        opened = True
                        yield send(
                            "response.output_item.added",
                            output_index=len(output),
                            item={
                                **_message_item("", [], message_id),
                                "status": "in_progress",
                                "content": [],
                            },
                        )
                        yield send(
                            "response.content_part.added",
                            item_id=message_id,
                            output_index=len(output),
                            content_index=0,
                            part={
                                "type": "output_text",
                                "text": "",
                                "annotations": [],
                                "logprobs": [],
                            },
                        )
                    text.append(piece)
                    yield send(
                        "response.output_text.delta",
                        item_id=message_id,
                        output_index=len(output),
                        content_index=0,
                        delta=piece,
                        logprobs=[],
                    )
                for tool_call in delta.get("tool_calls") or []:
                    slot = calls.setdefault(
                        int(tool_call.get("index", 0)), {"id": "", "name": "", "arguments": ""}
                    )
                    function = tool_call.get("function") or {}
                    slot["id"] = tool_call.get("id") or slot["id"]
                    slot["name"] = function.get("name") or slot["name"]
                    slot["arguments"] += function.get("arguments") or ""
    except NetsiftError as exc:
        yield send("error", code=exc.code, message=exc.message, param=None)
        return
    if opened:
        whole = "".join(text)
        item = _message_item(whole, annotations, message_id)
        part = item["content"][0]
        index = len(output)
        yield send(
            "response.output_text.done",
            item_id=message_id,
            output_index=index,
            content_index=0,
            text=whole,
            logprobs=[],
        )
        yield send(
            "response.content_part.done",
            item_id=message_id,
            output_index=index,
            content_index=0,
            part=part,
        )
        yield send("response.output_item.done", output_index=index, item=item)
        output.append(item)
    for slot in calls.values():
        item = _call_item(slot["id"], slot["name"], slot["arguments"], _id("fc"))
        index = len(output)
        yield send(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "arguments": ""},
        )
        yield send(
            "response.function_call_arguments.delta",
            item_id=item["id"],
            output_index=index,
            delta=slot["arguments"],
        )
        yield send(
            "response.function_call_arguments.done",
            item_id=item["id"],
            output_index=index,
            arguments=slot["arguments"],
            name=slot["name"],
        )
        yield send("response.output_item.done", output_index=index, item=item)
        output.append(item)
    status: Literal["completed", "incomplete"] = "incomplete" if finish == "length" else "completed"
    final = _response(call, response_id, model, output, status=status, usage=usage)
    yield send(f"response.{status}", response=final)


async def _chain(
    first: dict[str, Any], rest: AsyncIterator[dict[str, Any]]
) -> AsyncIterator[dict[str, Any]]:
    yield first
    async for chunk in rest:
        yield chunk


@router.post(
    "/responses",
    summary="OpenAI's Responses API over netsift's chat, with web search as a tool",
    responses={
        200: {
            "description": "The Response; with `stream: true` its events",
            "content": {"application/json": {"schema": {"type": "object"}}, **SSE},
        },
        **errors_for(*BODY, 502, 504),
    },
)
async def create_response(body: ResponsesBody, state: StateDep, _: CallerDep) -> Response:
    try:
        call = _chat_request(body)
        client = state.require_client()
        if not body.stream:
            return JSONResponse(_answer(call, await client.chat(call.chat)))
        chunks = client.chat_stream(call.chat)
        try:  # the first chunk is awaited here: a model that refuses is an HTTP error
            first = await anext(chunks)
        except StopAsyncIteration:
            raise LLMError("the language model sent an empty stream") from None
    except NetsiftError as exc:
        return upstream_error(exc)
    return StreamingResponse(
        _stream(call, first, chunks),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
