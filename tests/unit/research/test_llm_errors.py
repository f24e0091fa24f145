"""The model endpoint's Retry-After reaches LLMError's details as seconds, through the same
parser as every other Retry-After (net/retry.py), not as the header's raw text."""

from __future__ import annotations

import httpx
import pytest

from netsift.errors import LLMError
from netsift.research.llm import _mapped_errors

openai = pytest.importorskip("openai", reason="the llm extra is not installed")


def test_retry_after_is_seconds() -> None:
    request = httpx.Request("POST", "http://llm.test/v1/chat/completions")
    response = httpx.Response(429, headers={"retry-after": "7"}, request=request)
    with pytest.raises(LLMError) as caught, _mapped_errors():
        raise openai.RateLimitError("slow down", response=response, body=None)
    assert caught.value.details["retry_after"] == 7.0 and caught.value.retryable
