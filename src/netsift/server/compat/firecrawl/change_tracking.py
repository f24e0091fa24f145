"""Firecrawl's `changeTracking` format over netsift's change tracking (netsift/changes/): each
document compared with the caller's previous scrape of its URL (and tag), as Firecrawl's
`changeTracking: {previousScrapeAt, changeStatus, visibility, diff?, json?}`.

v2 asks `{"type": "changeTracking", "modes", "tag", "schema", "prompt"}` among the formats;
v1 `formats: ["markdown", "changeTracking"]` with `changeTrackingOptions`. Both need the
`markdown` format too (the readings compared are Markdown), a 400 otherwise, as Firecrawl's.
"Caller" is the API key: two keys keep two histories of the same page, as two Firecrawl teams.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ....changes.model import ChangeOptions, PageChange
from ....errors import InvalidInput
from ...operations import Operations

__all__ = ["CHANGE_TRACKING", "ChangeTrackingOptions", "change_fields", "change_options"]

CHANGE_TRACKING = "changeTracking"
VISIBLE = "visible"  # Firecrawl's `hidden` marks a page its crawl no longer links; none here


class ChangeTrackingOptions(BaseModel):
    """The scrape options the format reads (common.py's ScrapeOptions adds its own)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    change_tracking_options: dict[str, Any] | None = Field(
        default=None, alias="changeTrackingOptions"
    )
    formats: list[str | dict[str, Any]] = ["markdown"]


def change_options(options: ChangeTrackingOptions, formats: set[str]) -> ChangeOptions | None:
    """What the format asks, checked before anything is read (a crawl's or batch's before it
    starts): None when it is not asked."""
    if CHANGE_TRACKING not in formats:
        return None
    if "markdown" not in formats:
        raise InvalidInput(
            "formats: the changeTracking format requires the markdown format as well",
            details={"formats": [CHANGE_TRACKING]},
        )
    asked: dict[str, Any] = dict(options.change_tracking_options or {})
    for item in options.formats:
        if isinstance(item, dict) and item.get("type") == CHANGE_TRACKING:
            asked = {key: value for key, value in item.items() if key != "type"}
    try:
        parsed = ChangeOptions.model_validate(asked)
    except ValidationError as exc:
        raise InvalidInput.from_validation(
            exc, subject="changeTracking", lead="changeTracking: "
        ) from None
    if "json" in parsed.modes and parsed.schema_ is None and parsed.prompt is None:
        raise InvalidInput(
            "changeTracking: the json mode needs a schema (the fields compared) or a prompt",
            details={"format": CHANGE_TRACKING},
        )
    return parsed


def _rendered(change: PageChange) -> dict[str, Any]:
    body: dict[str, Any] = {
        "previousScrapeAt": change.previous_at.isoformat() if change.previous_at else None,
        "changeStatus": change.status,
        "visibility": VISIBLE,
    }
    if change.diff is not None:
        files = [item.model_dump(mode="json", by_alias=True) for item in change.diff.files]
        for item in files:
            for chunk in item["chunks"]:
                # parse-diff's flag beside each line's type (`add: true`), which Firecrawl keeps
                chunk["changes"] = [
                    {key: value for key, value in line.items() if value is not None}
                    | {line["type"]: True}
                    for line in chunk["changes"]
                ]
        body["diff"] = {"text": change.diff.text, "json": {"files": files}}
    if change.fields is not None:
        body["json"] = {
            name: field.model_dump(mode="json") for name, field in change.fields.items()
        }
    return body


async def change_fields(
    ops: Operations,
    owner: str,
    url: str,
    markdown: str,
    *,
    status_code: int,
    taken_at: datetime,
    options: ChangeOptions,
    reading: str | None = None,
) -> dict[str, Any]:
    """A document's `changeTracking`, and `warning` for what was asked and not done; a job's
    document names its `reading`, so making it again answers the same."""
    change = await ops.client.track_changes(
        owner,
        url,
        markdown,
        status_code=status_code,
        taken_at=taken_at,
        options=options,
        reading=reading,
    )
    fields: dict[str, Any] = {"changeTracking": _rendered(change)}
    if change.notes:
        fields["warning"] = "; ".join(change.notes)
    return fields
