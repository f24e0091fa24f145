"""LLM access through the `openai` SDK, against any OpenAI-compatible endpoint.

Ollama, vLLM, llama.cpp's server and OpenAI all speak this protocol; the differences that
matter (JSON-schema output support, usage reporting) are handled here so the research loop
never sees them. The endpoint is configured by the operator, so it is not subject to the SSRF
guard (it is usually on localhost).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import json
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import LLMError
from ..net.http import HttpClient
from ..net.retry import retry_after_of
from ..usage import charge_tokens

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = [
    "JSON_MODES",
    "LLM",
    "Completion",
    "build_response_format",
    "llm_configured",
    "parse_json_object",
    "refuses_output_mode",
]

log = logging.getLogger(__name__)

Message = dict[str, str]


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def build_request_options(body: dict[str, Any]) -> dict[str, Any]:
    """A chat body as `create()` keyword arguments: fields the SDK does not know (a server's own
    extensions) travel in `extra_body`, so the proxy forwards the body untouched."""
    from openai.resources.chat.completions import AsyncCompletions

    known = set(inspect.signature(AsyncCompletions.create).parameters) - {"self", "stream"}
    options = {key: value for key, value in body.items() if key in known}
    extra = {key: value for key, value in body.items() if key not in known and key != "stream"}
    if extra:
        options["extra_body"] = {**(options.get("extra_body") or {}), **extra}
    return options


@contextmanager
def _mapped_errors() -> Iterator[None]:
    """The openai SDK's exceptions as LLMError; the SDK has already retried 429/5xx/timeouts
    (`max_retries`), so what arrives here is final. Messages never hold the endpoint's URL
    (it may carry credentials)."""
    import openai

    try:
        yield
    except openai.APITimeoutError as exc:
        raise LLMError("the language model did not answer in time", retryable=True) from exc
    except openai.APIStatusError as exc:
        status = exc.status_code
        upstream = upstream_message(exc.body, str(exc.message))
        details: dict[str, Any] = {"status": status, "upstream_message": upstream}
        if (retry_after := retry_after_of(exc.response.headers)) is not None:
            details["retry_after"] = retry_after
        if names_output_mode(upstream):
            details["refused"] = "response_format"
        what = "is rate limiting us" if status == 429 else f"answered HTTP {status}"
        raise LLMError(
            f"the language model endpoint {what}: {upstream}",
            details=details,
            retryable=status in RETRYABLE_STATUSES or status >= 500,
        ) from exc
    except openai.APIConnectionError as exc:
        raise LLMError("could not reach the language model endpoint", retryable=True) from exc
    except openai.APIError as exc:
        raise LLMError(f"the language model endpoint failed: {type(exc).__name__}") from exc


def llm_configured(settings: Settings) -> bool:
    """A model name, somewhere to send it and the client package to send with: otherwise
    research runs in extractive mode (docs/research.md). A model configured on an install
    without the `llm` extra is a warning naming the extra, once, not a failed run."""
    if not (settings.llm_model and (settings.openai_base_url or settings.openai_api_key)):
        return False
    if not _client_installed():
        _warn_client_missing(settings.llm_model)
        return False
    return True


@functools.cache
def _client_installed() -> bool:
    return importlib.util.find_spec("openai") is not None


@functools.cache
def _warn_client_missing(model: str) -> None:
    log.warning(
        "warning: NETSIFT_LLM_MODEL is %s, but the openai package is missing: research runs "
        "extractively; pip install 'netsift[llm]' to use the model",
        model,
    )


LLM_RETRIES = 2  # the SDK retries 429 (honouring Retry-After), 5xx, timeouts and resets
JSON_MODES = ("json_schema", "json_object", "text")
# Statuses with which servers refuse an output mode they lack: 400/422 most; llama-cpp-python
# answers 500 with a validation message naming the field, so a 500 counts only if it does.
FORMAT_REFUSALS = frozenset({400, 415, 422, 501})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object")


# What an upstream may be asked again: rate limits, timeouts, conflicts (as OpenAI's SDK
# retries them); any other 4xx is the request's own fault and is final.
RETRYABLE_STATUSES = frozenset({408, 409, 429})
UPSTREAM_MESSAGE_CHARS = 500  # an upstream's error text, passed on, is capped


def names_output_mode(message: str) -> bool:
    """Whether an error message is about the response_format (json_schema/json_object)."""
    return any(word in message.lower() for word in _FORMAT_WORDS)


def refuses_output_mode(status: int, message: str) -> bool:
    """Whether an error answer may mean "I do not support this response_format" (pure): any
    400/415/422/501 may (servers word it every way, or not at all), a 500 only if it says so.
    Used to step down an output mode; the error's label (`refused`) is given only when the
    message names the format, so a proxied 400 is never mislabelled."""
    if status in FORMAT_REFUSALS:
        return True
    return status == 500 and names_output_mode(message)


def upstream_message(body: object, fallback: str) -> str:
    """The upstream's own error message (OpenAI's `{"error": {"message"}}`), capped."""
    message = fallback
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
        elif isinstance(error, str):
            message = error
    return " ".join(message.split())[:UPSTREAM_MESSAGE_CHARS]


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a model's answer, tolerating fences and chatter around it."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            try:
                value, _ = json.JSONDecoder().raw_decode(candidate[start:])
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    return None


class LLM:
    """One model behind one endpoint, with token accounting across calls."""

    def __init__(
        self,
        settings: Settings,
        *,
        client: AsyncOpenAI | None = None,
        http: HttpClient | None = None,
    ) -> None:
        """With `http`, the SDK sends through netsift's transport (the audit log records
        every model call; redirects pass the address guard), not an HTTP client of its own."""
        if not settings.llm_model:
            raise LLMError("no model configured (set NETSIFT_LLM_MODEL)", retryable=False)
        self.model = settings.llm_model
        self.tokens_used = 0
        self._format_index = 0  # into JSON_MODES: the strongest mode not refused yet
        if client is None:
            try:
                from openai import AsyncOpenAI
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise LLMError(
                    "the openai package is missing: pip install 'netsift[llm]'", retryable=False
                ) from exc
            key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
            client = AsyncOpenAI(
                api_key=key or "not-needed",
                base_url=settings.openai_base_url,
                timeout=settings.llm_timeout,
                max_retries=LLM_RETRIES,
                # typed as the SDK's bundled httpx2; an httpx client works the same way
                http_client=http.openai_http_client() if http else None,  # type: ignore[arg-type]
            )
        self._client = client

    async def aclose(self) -> None:
        await self._client.close()

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
        temperature: float = 0.0,
    ) -> Completion:
        options: dict[str, Any] = {"temperature": temperature}
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        if response_format is not None:
            options["response_format"] = response_format
        with _mapped_errors():
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                **options,
            )
        if not response.choices:
            raise LLMError("the language model returned no choices")
        text = response.choices[0].message.content or ""
        usage = response.usage
        completion = Completion(
            text=text,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        )
        self.tokens_used += completion.tokens
        await charge_tokens(completion.tokens)
        return completion

    def _proxy(self) -> AsyncOpenAI:
        """The client without its own retries: behind the chat proxy the caller's SDK retries
        (told by `x-should-retry`), so one 429 is not asked 3 x 3 times."""
        return self._client.with_options(max_retries=0)

    async def forward(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send an OpenAI chat request body as it is (the chat proxy); returns the response."""
        request = build_request_options({**body, "model": body.get("model") or self.model})
        with _mapped_errors():
            response = await self._proxy().chat.completions.create(**request, stream=False)
        if response.usage:
            self.tokens_used += response.usage.total_tokens
            await charge_tokens(response.usage.total_tokens)
        dumped: dict[str, Any] = response.model_dump(mode="json", exclude_none=True)
        return dumped

    async def forward_stream(self, body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The streaming form of `forward`: each chunk as a dict, in order."""
        request = build_request_options({**body, "model": body.get("model") or self.model})
        with _mapped_errors():
            stream = await self._proxy().chat.completions.create(**request, stream=True)
            async for chunk in stream:
                yield chunk.model_dump(mode="json", exclude_none=True)

    async def json(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any],
        name: str,
        max_tokens: int | None = None,
    ) -> tuple[dict[str, Any], int]:
        """A JSON object answer: schema-constrained where the server supports it, else parsed
        tolerantly; a malformed answer is re-asked once. Returns the object and tokens spent."""
        spent = 0
        attempt_messages = list(messages)
        for attempt in range(2):
            completion = await self._complete_json(attempt_messages, schema, name, max_tokens)
            spent += completion.tokens
            value = parse_json_object(completion.text)
            if value is not None:
                return value, spent
            if attempt == 0:
                attempt_messages = [
                    *messages,
                    {"role": "assistant", "content": completion.text[:2000]},
                    {
                        "role": "user",
                        "content": "That was not a valid JSON object. Reply with only the JSON "
                        f"object matching this schema: {json.dumps(schema)}",
                    },
                ]
        raise LLMError(
            f"the language model did not return a valid {name} JSON object",
            details={"tokens": spent},
        )

    async def _complete_json(
        self, messages: list[Message], schema: dict[str, Any], name: str, max_tokens: int | None
    ) -> Completion:
        """Ask in the strongest output mode the server takes, stepping down once per mode.

        OpenAI, vLLM, llama.cpp's server and Ollama take `json_schema`; llama-cpp-python
        refuses it (HTTP 500) but takes `json_object` with a `schema`; some take neither. A
        refusal is remembered, so later calls go straight to the mode that works.
        """
        while self._format_index < len(JSON_MODES):
            mode = JSON_MODES[self._format_index]
            fmt = build_response_format(mode, schema, name)
            asked = messages if fmt is not None else [*messages, _schema_instruction(schema)]
            try:
                return await self.complete(asked, max_tokens=max_tokens, response_format=fmt)
            except LLMError as exc:
                status = exc.details.get("status")
                message = str(exc.details.get("upstream_message", ""))
                if fmt is None or not isinstance(status, int):
                    raise
                if not refuses_output_mode(status, message):
                    raise
                self._format_index += 1
        raise AssertionError("the plain-text mode never steps down")  # pragma: no cover


def _schema_instruction(schema: dict[str, Any]) -> Message:
    return {
        "role": "system",
        "content": "Reply with a single JSON object matching this schema: " + json.dumps(schema),
    }


def build_response_format(mode: str, schema: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The `response_format` of one output mode (None: plain text, schema in the prompt)."""
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None
