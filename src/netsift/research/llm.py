"""LLM access through the `openai` SDK, against any OpenAI-compatible endpoint.

Ollama, vLLM, llama.cpp's server and OpenAI all speak this protocol; the differences that
matter (JSON-schema output support, usage reporting) are handled here so the research loop
never sees them. The endpoint is configured by the operator, so it is not subject to the SSRF
guard (it is usually on localhost).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import LLMError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["LLM", "Completion", "llm_configured", "parse_json_object"]

Message = dict[str, str]


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def llm_configured(settings: Settings) -> bool:
    """A model name and somewhere to send it: otherwise research runs in extractive mode."""
    return bool(settings.llm_model and (settings.openai_base_url or settings.openai_api_key))


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

    def __init__(self, settings: Settings, *, client: AsyncOpenAI | None = None) -> None:
        if not settings.llm_model:
            raise LLMError("no model configured (set NETSIFT_LLM_MODEL)", retryable=False)
        self.model = settings.llm_model
        self.tokens_used = 0
        self._schema_supported: bool | None = None
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
                max_retries=2,
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
        import openai

        options: dict[str, Any] = {"temperature": temperature}
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        if response_format is not None:
            options["response_format"] = response_format
        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                **options,
            )
        except openai.APITimeoutError as exc:
            raise LLMError("the language model did not answer in time") from exc
        except openai.RateLimitError as exc:
            raise LLMError("the language model endpoint is rate limiting us") from exc
        except openai.APIStatusError as exc:
            raise LLMError(
                f"the language model endpoint answered HTTP {exc.status_code}",
                details={"status": exc.status_code},
                retryable=exc.status_code >= 500,
            ) from exc
        except openai.APIError as exc:
            raise LLMError(f"the language model endpoint failed: {type(exc).__name__}") from exc
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
        return completion

    async def forward(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send an OpenAI chat request body as it is (the chat proxy); returns the response."""
        import openai

        request = {**body, "model": body.get("model") or self.model, "stream": False}
        try:
            response = await self._client.chat.completions.create(**request)
        except openai.APIStatusError as exc:
            raise LLMError(
                f"the language model endpoint answered HTTP {exc.status_code}",
                details={"status": exc.status_code},
                retryable=exc.status_code >= 500 or exc.status_code == 429,
            ) from exc
        except openai.APIError as exc:
            raise LLMError(f"the language model endpoint failed: {type(exc).__name__}") from exc
        if response.usage:
            self.tokens_used += response.usage.total_tokens
        dumped: dict[str, Any] = response.model_dump(mode="json", exclude_none=True)
        return dumped

    async def forward_stream(self, body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """The streaming form of `forward`: each chunk as a dict, in order."""
        import openai

        request = {**body, "model": body.get("model") or self.model, "stream": True}
        try:
            stream = await self._client.chat.completions.create(**request)
            async for chunk in stream:
                yield chunk.model_dump(mode="json", exclude_none=True)
        except openai.APIStatusError as exc:
            raise LLMError(
                f"the language model endpoint answered HTTP {exc.status_code}",
                details={"status": exc.status_code},
            ) from exc
        except openai.APIError as exc:
            raise LLMError(f"the language model endpoint failed: {type(exc).__name__}") from exc

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
        raise LLMError(f"the language model did not return a valid {name} JSON object")

    async def _complete_json(
        self, messages: list[Message], schema: dict[str, Any], name: str, max_tokens: int | None
    ) -> Completion:
        if self._schema_supported is not False:
            fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
            try:
                completion = await self.complete(
                    messages, max_tokens=max_tokens, response_format=fmt
                )
                self._schema_supported = True
                return completion
            except LLMError as exc:
                # Servers without json_schema answer 400/422 (or 500, llama-cpp-python); remember
                # and fall back to plain completion with the schema in the prompt.
                if exc.details.get("status") not in (400, 404, 415, 422, 500, 501):
                    raise
                self._schema_supported = False
        instruction = {
            "role": "system",
            "content": "Reply with a single JSON object matching this schema: "
            + json.dumps(schema),
        }
        return await self.complete([*messages, instruction], max_tokens=max_tokens)
