"""BatchItem: one query's outcome in a batch search, a response or an error, never both.

A batch reports each query's failure inline (so one bad query does not hide nine answers)
as the same error object every door shows, `{code, message, retryable, details}`; a plain
`SearchResponse | NetsiftError` list would not serialize to JSON.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from ..errors import NetsiftError, error_from_dict
from ..models import SearchResponse

__all__ = ["BatchItem"]


class BatchItem(BaseModel):
    """`{query, response, error}`: exactly one of `response` and `error` is set."""

    model_config = ConfigDict(extra="forbid")

    query: str
    response: SearchResponse | None = None
    error: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_of(self) -> BatchItem:
        if (self.response is None) == (self.error is None):
            raise ValueError("a BatchItem holds a response or an error, not both or neither")
        return self

    @classmethod
    def failed(cls, query: str, error: NetsiftError) -> BatchItem:
        return cls(query=query, error=error.to_dict())

    @property
    def ok(self) -> bool:
        return self.response is not None

    def raise_for_error(self) -> SearchResponse:
        """The response, or the error raised again as its NetsiftError class."""
        if self.response is None:
            raise error_from_dict(self.error or {})
        return self.response
