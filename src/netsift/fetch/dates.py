"""Dates as pages and providers write them, read once into ISO 8601.

Machine dates (`2025-03-03`, `2025-03-03T09:14:51+01:00`, `20250303`, `2025/3/3`, an RFC 2822
`Mon, 03 Mar 2025 09:14:51 GMT`) keep what they say (a date stays a date, a time its time);
dates as people write them ("3 March 2025", "Mar 3, 2025") are read by one list of formats, for a
page's byline and a search provider's result alike. Years outside 1900-2200 are a template's
placeholder or a typo, not a date.
"""

from __future__ import annotations

import email.utils
import re
from datetime import date, datetime

__all__ = ["WRITTEN_DAYS", "parse_date", "read_date", "written_date"]

# a day as people write it, day first or month first, the month named in full or short
WRITTEN_DAYS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y")
_FIRST_YEAR, _LAST_YEAR = 1900, 2200  # outside: a placeholder ("0001-01-01") or a typo
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_BASIC_DAY = re.compile(r"^\d{8}$")
_ISO_MONTH = re.compile(r"^\d{4}-\d{2}$")
_SLASHED = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})")


def parse_date(value: str) -> str | None:
    """Normalize a date or date-time to ISO 8601 (date only stays date only); None if unclear."""
    value = value.strip()[:64]
    if not value:
        return None
    if slashed := _SLASHED.match(value):
        year, month, day = (int(part) for part in slashed.groups())
        value = f"{year:04d}-{month:02d}-{day:02d}{value[slashed.end() :]}"
    if _ISO_MONTH.match(value):
        return value if 1 <= int(value[5:]) <= 12 else None
    try:
        if _ISO_DAY.match(value) or _BASIC_DAY.match(value):
            return _sane(date.fromisoformat(value))
        parsed = datetime.fromisoformat(value.replace(" ", "T", 1))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
    return _sane(parsed)


def written_date(value: str, formats: tuple[str, ...] = WRITTEN_DAYS) -> date | None:
    """A date as people write it ("3 March 2025", "Mar 3, 2025"), whitespace collapsed."""
    text = " ".join(value.split())
    for pattern in formats:
        try:
            return datetime.strptime(text, pattern).date()
        except ValueError:
            continue
    return None


def read_date(value: str) -> str | None:
    """Any date a page shows, machine or written ("3 March 2025"), as ISO 8601."""
    if found := parse_date(value):
        return found
    written = written_date(value)
    return _sane(written) if written is not None else None


def _sane(value: date) -> str | None:
    if not _FIRST_YEAR <= value.year <= _LAST_YEAR:
        return None
    if isinstance(value, datetime):
        return value.isoformat(timespec="seconds")
    return value.isoformat()
