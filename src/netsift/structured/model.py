"""What structured extraction and a page summary answer: the data, and what each field
stands on."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models import Citation

__all__ = ["Evidence", "ExtractDataResult", "Origin", "Summary"]

# Where a value was read: the page's text (by a model), its structured data and layout, or
# its head (`<title>`, `<meta name=description|author>`).
Origin = Literal["text", "json_ld", "microdata", "opengraph", "table", "definition_list", "head"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Model):
    """The passage a field's value came from, as the page has it, and where."""

    url: str
    quote: str
    origin: Origin
    verified: bool = True  # found verbatim in what was fetched (always, for a kept value)


class ExtractDataResult(_Model):
    """`data` follows the schema, except that a field without verified evidence is null;
    `missing` says why for each null field. `evidence` holds each filled field's passages."""

    data: dict[str, Any] = Field(default_factory=dict)
    evidence: dict[str, list[Evidence]] = Field(default_factory=dict)
    missing: dict[str, str] = Field(default_factory=dict)
    sources: list[str] = Field(default_factory=list)  # the pages read, in order
    mode: Literal["llm", "extractive"] = "extractive"
    pages_read: int = 0
    searches: int = 0
    tokens: int = 0
    elapsed_ms: float = 0.0
    # done, max_pages, max_tokens or deadline: why reading stopped (every budget stops it)
    stopped_because: str = "done"
    notes: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)  # source sentences read as instructions


class Summary(_Model):
    """A page's summary: sentences with `[n]` markers, each `n` a verified citation."""

    url: str
    summary: str
    citations: list[Citation] = Field(default_factory=list)
    mode: Literal["llm", "extractive"] = "extractive"
    tokens: int = 0
