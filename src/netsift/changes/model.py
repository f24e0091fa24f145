"""What a change comparison answers: the status, when the previous reading was taken, and
on request the diff of the two readings and a schema's fields compared."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "MAX_TAG_CHARS",
    "ChangeMode",
    "ChangeOptions",
    "ChangeStatus",
    "DiffChange",
    "DiffChunk",
    "DiffFile",
    "FieldChange",
    "PageChange",
    "TextDiff",
]

ChangeStatus = Literal["new", "same", "changed", "removed"]
ChangeMode = Literal["git-diff", "json"]
MAX_TAG_CHARS = 256  # a tag names a history ("daily", a monitor's id), not a document


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChangeOptions(_Model):
    """What a comparison is asked for: a unified diff (`git-diff`), a schema's fields compared
    (`json`, with `schema` and/or `prompt` for the model), and the history it belongs to."""

    modes: list[ChangeMode] = Field(default_factory=list)
    tag: str | None = Field(default=None, max_length=MAX_TAG_CHARS)
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    prompt: str | None = Field(default=None, min_length=1, max_length=2000)

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @field_validator("schema_")
    @classmethod
    def _schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        from ..structured.schema import check_schema

        return None if value is None else check_schema(value)


class DiffChange(_Model):
    """One line of a hunk, as parse-diff reads it: `normal` (both sides, `ln1` old and `ln2`
    new line number), `add` (`ln`: new line) or `del` (`ln`: old line); `content` keeps the
    line's leading ` `, `+` or `-`."""

    type: Literal["normal", "add", "del"]
    content: str
    ln: int | None = None
    ln1: int | None = None
    ln2: int | None = None


class DiffChunk(_Model):
    content: str  # the hunk's header, `@@ -1,3 +1,4 @@`
    changes: list[DiffChange]


class DiffFile(_Model):
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None
    chunks: list[DiffChunk]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class TextDiff(_Model):
    text: str  # the unified diff's hunks, as `git diff` prints them without file headers
    files: list[DiffFile]


class FieldChange(_Model):
    previous: Any = None
    current: Any = None


class PageChange(_Model):
    """A page against the caller's previous reading of it (same URL, same tag)."""

    status: ChangeStatus
    previous_at: datetime | None = None
    diff: TextDiff | None = None
    fields: dict[str, FieldChange] | None = None  # the schema's fields that differ
    notes: list[str] = Field(default_factory=list)  # what was asked and not done, and why
