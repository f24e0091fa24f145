"""Wayback lookups: the snapshot of a URL nearest a date, a fresh save, the snapshot read back.

Three public Internet Archive interfaces, each through the guarded HTTP client:
- the availability API (`archive.org/wayback/available?url=&timestamp=`) names the closest
  capture: `{"archived_snapshots": {"closest": {url, timestamp, status, available}}}`;
- the CDX index (`web.archive.org/cdx/search/cdx?output=json`) lists captures as rows under a
  header row (urlkey, timestamp, original, mimetype, statuscode, digest, length); asked with
  `closest=&sort=closest` it lists the nearest first, with the type and digest the
  availability API leaves out, and answers when that API has nothing (it often lags);
- Save Page Now (`web.archive.org/save/<url>`) captures the page and redirects to it.
A snapshot is read unchanged at `web.archive.org/web/<timestamp>id_/<url>` (the `id_` form
serves the archived bytes without the Wayback toolbar or rewritten links).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

import httpx
from pydantic import BaseModel, Field

from ..errors import HTTPError, InvalidInput, NetsiftError
from ..models import Page

if TYPE_CHECKING:
    from ..net.http import HttpClient

__all__ = [
    "ARCHIVE_ORG",
    "WEB_ARCHIVE_ORG",
    "Capture",
    "Wayback",
    "WaybackResult",
    "snapshot_url",
    "wayback_timestamp",
]

ARCHIVE_ORG = "https://archive.org"
WEB_ARCHIVE_ORG = "https://web.archive.org"
# Nearby captures listed beside the closest: enough to pick another day, short for a model.
NEARBY_CAPTURES = 5
# An API answer is a few kilobytes; a larger one is not the API.
API_MAX_BYTES = 1024 * 1024
# Save Page Now captures the page with a browser before it answers: often 10-40 s.
SAVE_DEADLINE = 60.0
_EARLIEST = "00000101000000"  # what a partial timestamp's missing digits are (Jan 1, 00:00:00)
_CDX_FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
_DIGITS = re.compile(r"\d{4,14}")
_SNAPSHOT = re.compile(r"/web/(\d{4,14})(?:[a-z]{2}_)?/(.+)$")


class Capture(BaseModel):
    """One archived copy of a URL."""

    url: str  # the copy in the Wayback Machine (web.archive.org/web/<timestamp>/<original>)
    original: str  # the URL as it was captured
    timestamp: str  # YYYYMMDDhhmmss, the Wayback Machine's key
    captured_at: datetime
    status: int | None = None  # the HTTP status the page answered the archive with
    mimetype: str | None = None
    digest: str | None = None  # SHA-1 of the archived body, base32 (the CDX index's)


class WaybackResult(BaseModel):
    """The snapshot nearest the date asked for, others near it, and what a save did."""

    url: str
    at: str | None = None  # the date asked for, as a Wayback timestamp
    snapshot: Capture | None = None  # None: the archive holds no copy
    captures: list[Capture] = Field(default_factory=list)  # nearest first (the CDX index)
    saved: bool = False  # a save was asked for and the archive made the snapshot above
    page: Page | None = None  # the snapshot read as a Page, when asked (`read`)
    warnings: list[str] = Field(default_factory=list)


def wayback_timestamp(at: str) -> str:
    """`at` (YYYY[MM[DD[hh[mm[ss]]]]] or an ISO date or date-time) as a Wayback timestamp;
    InvalidInput when it names no date."""
    if _DIGITS.fullmatch(at):
        return at
    try:
        moment = datetime.fromisoformat(at.replace("Z", "+00:00").replace(" ", "T"))
    except ValueError:
        try:  # YYYY-MM
            moment = datetime.strptime(at, "%Y-%m")
        except ValueError:
            raise InvalidInput(
                f"at: {at!r} is not a date (YYYYMMDDhhmmss or an ISO date)",
                details={"field": "at"},
            ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y%m%d%H%M%S")


def _captured_at(timestamp: str) -> datetime:
    padded = (timestamp + _EARLIEST[len(timestamp) :])[:14]  # a partial one: its first moment
    try:
        return datetime.strptime(padded, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError as exc:
        raise HTTPError(
            f"the Wayback Machine answered a capture time that is no date ({timestamp!r})",
            status_code=200,
        ) from exc


def _status(value: Any) -> int | None:
    return int(value) if isinstance(value, str | int) and str(value).isdigit() else None


class Wayback:
    """The Wayback Machine's interfaces, spoken through one guarded HTTP client."""

    def __init__(self, http: HttpClient, *, base_url: str | None = None) -> None:
        self._http = http
        self._availability = (base_url or ARCHIVE_ORG).rstrip("/")
        self._web = (base_url or WEB_ARCHIVE_ORG).rstrip("/")

    def snapshot_url(self, timestamp: str, original: str, *, raw: bool = False) -> str:
        """The copy's address; `raw`: the archived bytes as captured (`id_`)."""
        return snapshot_url(self._web, timestamp, original, raw=raw)

    async def lookup(self, url: str, *, at: str | None = None, save: bool = False) -> WaybackResult:
        """The capture of `url` nearest `at` (default: the newest), the captures around it,
        and with `save` a new capture made first (which is then the one nearest now)."""
        timestamp = wayback_timestamp(at) if at else None
        warnings: list[str] = []
        saved: Capture | None = None
        if save:
            saved = await self._save(url)
            if saved is None:
                warnings.append("the Internet Archive did not say where it saved the page")
        closest: Capture | None = None
        try:
            closest = await self._available(url, timestamp)
        except NetsiftError as exc:  # the CDX index below may still answer
            warnings.append(f"the availability API failed ({exc.code}): {exc.message}")
        captures = await self._cdx(url, timestamp)
        if saved is not None and timestamp is None:
            closest = saved
        elif closest is None and captures:
            closest = captures[0]
        elif closest is not None:
            closest = _enriched(closest, captures)
        return WaybackResult(
            url=url,
            at=timestamp,
            snapshot=closest,
            captures=captures,
            saved=saved is not None,
            warnings=warnings,
        )

    async def _get(self, url: str, *, deadline: float | None = None) -> httpx.Response:
        request = httpx.Request("GET", url, headers={"Accept": "application/json"})
        return await self._http.send(
            request, kind="wayback", max_bytes=API_MAX_BYTES, deadline=deadline
        )

    async def _json(self, url: str, what: str) -> Any:
        response = await self._get(url)
        if response.status_code != 200:
            raise HTTPError(
                f"the Wayback Machine's {what} answered HTTP {response.status_code}",
                status_code=response.status_code,
                details={"url": url},
            )
        try:
            return response.json()
        except ValueError as exc:
            raise HTTPError(
                f"the Wayback Machine's {what} answered something that is not JSON",
                status_code=response.status_code,
                details={"url": url},
            ) from exc

    async def _available(self, url: str, timestamp: str | None) -> Capture | None:
        query = {"url": url, **({"timestamp": timestamp} if timestamp else {})}
        body = await self._json(
            f"{self._availability}/wayback/available?{urlencode(query)}", "availability API"
        )
        snapshots = body.get("archived_snapshots") if isinstance(body, dict) else None
        closest = snapshots.get("closest") if isinstance(snapshots, dict) else None
        if not isinstance(closest, dict) or not closest.get("available", True):
            return None
        stamp, link = str(closest.get("timestamp", "")), str(closest.get("url", ""))
        found = _SNAPSHOT.search(link)
        if not _DIGITS.fullmatch(stamp) or found is None:
            return None
        return Capture(
            url=self.snapshot_url(stamp, found.group(2)),
            original=found.group(2),
            timestamp=stamp,
            captured_at=_captured_at(stamp),
            status=_status(closest.get("status")),
        )

    async def _cdx(self, url: str, timestamp: str | None) -> list[Capture]:
        query: dict[str, Any] = {"url": url, "output": "json", "limit": NEARBY_CAPTURES}
        if timestamp:
            query.update(closest=timestamp, sort="closest")
        else:
            query["limit"] = -NEARBY_CAPTURES  # the last N: the newest
        rows = await self._json(f"{self._web}/cdx/search/cdx?{urlencode(query)}", "CDX index")
        if not isinstance(rows, list) or not rows:
            return []
        header = rows[0] if isinstance(rows[0], list) else list(_CDX_FIELDS)
        captures = []
        for row in rows[1:]:
            if not isinstance(row, list) or len(row) != len(header):
                continue
            item = dict(zip(header, row, strict=True))
            stamp, original = str(item.get("timestamp", "")), str(item.get("original", ""))
            if not _DIGITS.fullmatch(stamp) or not original:
                continue
            captures.append(
                Capture(
                    url=self.snapshot_url(stamp, original),
                    original=original,
                    timestamp=stamp,
                    captured_at=_captured_at(stamp),
                    status=_status(item.get("statuscode")),
                    mimetype=item.get("mimetype") or None,
                    digest=item.get("digest") or None,
                )
            )
        if not timestamp:
            captures.reverse()  # newest first
        return captures

    async def _save(self, url: str) -> Capture | None:
        """Save Page Now; the capture it made, read from where it sends us."""
        request = httpx.Request("GET", f"{self._web}/save/{url}")
        response = await self._http.send(
            request,
            kind="wayback",
            max_bytes=API_MAX_BYTES,
            deadline=SAVE_DEADLINE,
            follow_redirects=False,
            retries=0,
        )
        location = response.headers.get("content-location") or response.headers.get("location")
        if response.status_code >= 400 or not location:
            if response.status_code >= 400:
                raise HTTPError(
                    f"the Internet Archive refused to save {url} (HTTP {response.status_code})",
                    status_code=response.status_code,
                    details={"url": url},
                )
            return None
        found = _SNAPSHOT.search(location)
        if found is None:
            return None
        stamp, original = found.group(1), found.group(2)
        return Capture(
            url=self.snapshot_url(stamp, original),
            original=original,
            timestamp=stamp,
            captured_at=_captured_at(stamp),
        )


def snapshot_url(web: str, timestamp: str, original: str, *, raw: bool = False) -> str:
    flag = "id_" if raw else ""
    return f"{web.rstrip('/')}/web/{timestamp}{flag}/{quote(original, safe=':/?#[]@!$&()*+,;=%~')}"


def _enriched(closest: Capture, captures: list[Capture]) -> Capture:
    """The availability API's capture with what the CDX index says of the same one."""
    for capture in captures:
        if capture.timestamp == closest.timestamp:
            return closest.model_copy(
                update={"mimetype": capture.mimetype, "digest": capture.digest}
            )
    return closest
