"""Provider dates → ISO 8601 calendar dates (`2026-08-19`), the one form results carry.

Providers say "2026-07-02T09:14:51" (Brave), "Thu, 20 Feb 2025 15:04:11 GMT" (Tavily news),
"Aug 19, 2026" (SerpAPI, Google snippets), `[[2025, 3, 14]]` (Crossref) or
"2026-08-19T00:00:00.0000000" (DuckDuckGo). Relative phrases ("3 days ago") have no date
without a clock, so they are dropped rather than guessed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from email.utils import parsedate_to_datetime

from ...fetch.dates import WRITTEN_DAYS, written_date

__all__ = ["iso_date", "iso_date_parts"]

_ISO = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})")
# a written day (the one list pages are read with), or a month alone ("Aug 2026": its first day)
_TEXT_FORMATS = (*WRITTEN_DAYS, "%b %Y", "%B %Y")


def iso_date(value: str | None) -> str | None:
    """`YYYY-MM-DD` for the date formats providers use, None when there is no date."""
    if not value or not isinstance(value, str):
        return None
    if match := _ISO.match(value):
        return _checked(int(match[1]), int(match[2]), int(match[3]))
    if written := written_date(value, _TEXT_FORMATS):
        return written.isoformat()
    text = " ".join(value.split())
    try:
        return parsedate_to_datetime(text).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return None


def iso_date_parts(parts: Sequence[int | None] | None) -> str | None:
    """Crossref-style `[year, month?, day?]` → `YYYY`, `YYYY-MM` or `YYYY-MM-DD`."""
    if not parts or not isinstance(parts[0], int):
        return None
    year = parts[0]
    fields = [f"{year:04d}"]
    for part in parts[1:3]:
        if not isinstance(part, int):
            break
        fields.append(f"{part:02d}")
    return "-".join(fields)


def _checked(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None
