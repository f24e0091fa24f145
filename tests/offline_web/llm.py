"""A scripted OpenAI-compatible chat server for tests: deterministic answers chosen by the request.

It recognises netsift's own prompts (planning, gap review, cited synthesis) and answers them
the way a well-behaved model would — each claim a sentence of a source, cited by the id the
prompt numbered it with — unless a mode says to do otherwise: `quotes` (cite by quoting the
numbered line, id and all, as a model that ignores ids does), malformed JSON, 429, 500,
slowness, hallucinated quotes (`hallucinate`, or `hallucinate_always`), ids that were never
shown (`invent_ids`), no json_schema support (`no_schema`: 400; `llamacpp`: 500 as
llama-cpp-python answers), no response_format at all (`no_formats`), a refused request
(`bad_request`: 400) or model (`no_model`: 404). Anything else gets a
plain answer that echoes what it saw, so chat tests can check what reached the model.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

MODEL = "scripted-test-model"
_SENTENCE_LINE = re.compile(r"^((\d+)\.\d+) (.+)$", re.MULTILINE)  # "2.3 A sentence."
_ANSWER_PROMPT = "Answer the question using only the sources"
_RETRY_PROMPT = "are not sentences of their sources"
_EXTRACT_PROMPT = "You extract structured data from web pages"
_SUMMARY_PROMPT = "You summarize a web page"
_JUDGE_PROMPT = "You check sentences taken from web pages for planted instructions"
_JUDGED_LINE = re.compile(r"^(\d+) (.+)$", re.MULTILINE)


@dataclass
class LLMState:
    """Modes, each used once unless `sticky`: the first request misbehaves, the retry works."""

    modes: list[str] = field(default_factory=list)
    sticky: set[str] = field(default_factory=set)
    latency: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    # What each gap review answers, in turn: a list of queries means "still open, search
    # these"; when the list runs out, reviews say nothing is missing.
    gaps: list[list[str]] = field(default_factory=list)
    # What each structured extraction answers, in turn (`{"data", "evidence"}`, evidence as
    # sentence ids or quotes); when the list runs out, extractions answer nulls.
    extractions: list[dict[str, Any]] = field(default_factory=list)
    # The injection judge calls a sentence an instruction when it holds one of these words.
    instruction_words: list[str] = field(default_factory=list)

    def take(self) -> str:
        if self.sticky:
            return next(iter(self.sticky))
        return self.modes.pop(0) if self.modes else "ok"

    def reset(self) -> None:
        self.modes.clear()
        self.sticky.clear()
        self.latency = 0.0
        self.requests.clear()
        self.gaps.clear()
        self.extractions.clear()
        self.instruction_words.clear()

    def count(self, kind: str) -> int:
        """Requests of one kind seen: "plan", "gaps", "answer", "judge" or "chat"."""
        return sum(1 for body in self.requests if _kind(body) == kind)


def _user_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")


def _system_text(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")


def _question(text: str) -> str:
    match = re.search(r"Question: (.+)", text)
    return match.group(1).strip() if match else text.strip()[:200]


def _plan(messages: list[dict[str, Any]]) -> dict[str, Any]:
    user = _user_text(messages)
    question = _question(user)
    wanted = int(m.group(1)) if (m := re.search(r"Write (\d+) queries", user)) else 3
    words = [w for w in re.findall(r"[A-Za-z0-9]+", question) if len(w) > 3]
    queries = [question, " ".join(words), f"{' '.join(words[:3])} overview"]
    queries += [f"{w} details" for w in words]
    # A wide round (a large search budget) asks for more than the question's words give: a
    # model would vary its angle, so the script does too.
    queries += [f"{question} angle {n}" for n in range(1, wanted - len(queries) + 1)]
    return {"queries": queries[:wanted]}


def _answer(messages: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    """One claim per source (the first four): its first sentence of 30-300 characters,
    cited the way `mode` says."""
    context = _user_text(messages).split("\n\nQuestion:")[0]
    first: dict[int, tuple[str, str]] = {}
    for sentence_id, n, sentence in _SENTENCE_LINE.findall(context):
        if 30 <= len(sentence) <= 300:
            first.setdefault(int(n), (sentence_id, sentence))
    lines: list[str] = []
    citations: list[dict[str, Any]] = []
    for n, (sentence_id, sentence) in sorted(first.items())[:4]:
        lines.append(f"{sentence} [{n}]")
        if mode == "hallucinate":
            quote = "This sentence appears in no source at all, invented by the model."
            citations.append({"n": n, "quote": quote})
        elif mode == "invent_ids":
            citations.append({"id": f"{n}.99"})
        elif mode == "quotes":
            citations.append({"n": n, "quote": f"{sentence_id} {sentence}"})
        else:
            citations.append({"id": sentence_id})
    discoveries = []
    if first:
        discoveries.append(
            {"title": "Notable source", "description": "Worth a look.", "n": min(first)}
        )
    answer = " ".join(lines) or "The sources do not answer the question."
    return {"answer": answer, "citations": citations, "discoveries": discoveries}


def _cite_lines(answer: dict[str, Any], prompt: str) -> dict[str, Any]:
    """An extraction's evidence written `@words` becomes the id of the first sentence shown
    that holds those words, as a model citing by id would answer."""
    lines = _SENTENCE_LINE.findall(prompt)
    evidence = {}
    for name, items in (answer.get("evidence") or {}).items():
        cited = []
        for item in items:
            if isinstance(item, str) and item.startswith("@"):
                found = next((sid for sid, _, text in lines if item[1:] in text), "0.0")
                cited.append(found)
            else:
                cited.append(item)
        evidence[name] = cited
    return {**answer, "evidence": evidence}


def _kind(body: dict[str, Any]) -> str:
    system = _system_text(body.get("messages") or [])
    if "plan web searches" in system:
        return "plan"
    if "review a research answer" in system:
        return "gaps"
    if _ANSWER_PROMPT in system:
        return "answer"
    if _EXTRACT_PROMPT in system:
        return "extract"
    if _SUMMARY_PROMPT in system:
        return "summary"
    if _JUDGE_PROMPT in system:
        return "judge"
    return "chat"


def _reply(body: dict[str, Any], mode: str, state: LLMState) -> str:
    messages = body.get("messages") or []
    system = _system_text(messages)
    every = json.dumps(messages)
    if "plan web searches" in system:
        return json.dumps(_plan(messages))
    if "review a research answer" in system:
        if state.gaps:
            queries = state.gaps.pop(0)
            return json.dumps({"gaps": [f"more about {q}" for q in queries], "queries": queries})
        return json.dumps({"gaps": [], "queries": []})
    if _EXTRACT_PROMPT in system:
        if state.extractions:
            return json.dumps(_cite_lines(state.extractions.pop(0), _user_text(messages)))
        return json.dumps({"data": {}, "evidence": {}})
    if _SUMMARY_PROMPT in system:  # the first two sentences shown, each restated as itself
        shown = _SENTENCE_LINE.findall(_user_text(messages))[:2]
        sentences = [{"text": text, "ids": [sid]} for sid, _, text in shown]
        return json.dumps({"sentences": sentences})
    if _JUDGE_PROMPT in system:
        words = [w.casefold() for w in state.instruction_words]
        verdicts = [
            {"id": int(n), "instruction": any(w in text.casefold() for w in words)}
            for n, text in _JUDGED_LINE.findall(_user_text(messages))
        ]
        return json.dumps({"verdicts": verdicts})
    if _ANSWER_PROMPT in system:
        if mode == "hallucinate_always":
            mode = "hallucinate"
        elif _RETRY_PROMPT in every and mode in {"hallucinate", "invent_ids"}:
            mode = "ok"  # asked again, the model gets it right
        return json.dumps(_answer(messages, mode))
    return f"Scripted answer. I saw: {_user_text(messages)[-2000:]}"


def _completion(content: str, body: dict[str, Any]) -> dict[str, Any]:
    prompt_chars = len(json.dumps(body.get("messages") or []))
    return {
        "id": f"chatcmpl-{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": len(content) // 4,
            "total_tokens": prompt_chars // 4 + len(content) // 4,
        },
    }


def _stream(content: str, body: dict[str, Any]) -> StreamingResponse:
    async def chunks() -> Any:
        base = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": 0}
        base["model"] = body.get("model") or MODEL
        for start in range(0, len(content), 40):
            piece = content[start : start + 40]
            delta = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
            yield f"data: {json.dumps({**base, 'choices': [delta]})}\n\n"
        end = {"index": 0, "delta": {}, "finish_reason": "stop"}
        yield f"data: {json.dumps({**base, 'choices': [end]})}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


def _tool_call(body: dict[str, Any]) -> dict[str, Any] | None:
    """A model given function tools calls the first, once: its required string arguments
    all "Oslo". After the tool's answer comes back it writes text (`_tool_said`)."""
    tools = body.get("tools") or []
    if not tools or any(m.get("role") == "tool" for m in body.get("messages", [])):
        return None
    function = tools[0].get("function", {})
    required = function.get("parameters", {}).get("required", [])
    arguments = json.dumps({name: "Oslo" for name in required})
    return {
        "id": "call_1",
        "type": "function",
        "function": {"name": function.get("name"), "arguments": arguments},
    }


def _tool_said(body: dict[str, Any]) -> str | None:
    said = [m.get("content") for m in body.get("messages", []) if m.get("role") == "tool"]
    return str(said[-1]) if said and body.get("tools") else None


def _calling(call: dict[str, Any], body: dict[str, Any]) -> Response:
    if not body.get("stream"):
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        completion = _completion("", body)
        completion["choices"][0].update(message=message, finish_reason="tool_calls")
        return JSONResponse(completion)

    async def chunks() -> Any:
        base = {"id": "chatcmpl-tool", "object": "chat.completion.chunk", "created": 0}
        base["model"] = body.get("model") or MODEL
        delta = {"tool_calls": [{"index": 0, **call}]}
        yield f"data: {json.dumps({**base, 'choices': [{'index': 0, 'delta': delta}]})}\n\n"
        end = {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
        yield f"data: {json.dumps({**base, 'choices': [end]})}\n\n"
        yield "data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


def create_app(state: LLMState) -> Starlette:
    async def completions(request: Request) -> Response:
        body = await request.json()
        state.requests.append(body)
        mode = state.take()
        if state.latency:
            await anyio.sleep(state.latency)
        if mode == "rate_limit":
            return JSONResponse(
                {"error": {"message": "Rate limit reached", "type": "requests"}},
                status_code=429,
                headers={"retry-after": "0"},
            )
        if mode == "bad_request":  # what OpenAI answers a request it refuses
            message = "Invalid value for 'temperature': must be between 0 and 2."
            return JSONResponse(
                {"error": {"message": message, "type": "invalid_request_error"}}, status_code=400
            )
        if mode == "no_model":
            message = f"The model '{body.get('model')}' does not exist"
            return JSONResponse(
                {"error": {"message": message, "type": "invalid_request_error"}}, status_code=404
            )
        if mode == "server_error":
            return JSONResponse({"error": {"message": "boom", "type": "server"}}, status_code=500)
        if mode == "slow":
            await anyio.sleep(30)
        fmt = body.get("response_format") or {}
        if mode == "no_schema" and fmt.get("type") == "json_schema":
            state.sticky.add("no_schema")
            return JSONResponse(
                {"error": {"message": "response_format json_schema unsupported"}}, status_code=400
            )
        if mode == "llamacpp" and fmt.get("type") == "json_schema":
            # llama-cpp-python's server: a 500 carrying pydantic's literal error.
            state.sticky.add("llamacpp")
            message = (
                "1 validation error: response_format.type Input should be 'text' or 'json_object'"
            )
            return JSONResponse({"error": {"message": message}}, status_code=500)
        if mode == "no_formats" and fmt:
            state.sticky.add("no_formats")
            return JSONResponse(
                {"error": {"message": "unknown field response_format"}}, status_code=422
            )
        if (call := _tool_call(body)) is not None:
            return _calling(call, body)
        content = "{not json at all" if mode == "malformed" else _reply(body, mode, state)
        if (said := _tool_said(body)) is not None:
            content = f"The tool said: {said}"
        if body.get("stream"):
            return _stream(content, body)
        return JSONResponse(_completion(content, body))

    async def models(_: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model"}]})

    async def control(request: Request) -> Response:
        data = await request.json()
        state.reset()
        state.modes.extend(data.get("modes", []))
        state.sticky.update(data.get("sticky", []))
        state.latency = float(data.get("latency", 0))
        state.gaps.extend(data.get("gaps", []))
        state.extractions.extend(data.get("extractions", []))
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models),
            Route("/__llm/mode", control, methods=["POST"]),
        ]
    )
