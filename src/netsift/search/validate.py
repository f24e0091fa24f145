"""Checks on what a caller asks the search service, before any cache or network work.

Every door (Python, CLI, HTTP, MCP, tools) reaches the service, and not all of them validate
with `params.py` first, so the service checks again and says what is allowed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..errors import InvalidInput
from ..models import Query
from ..params import MAX_QUERY_CHARS

__all__ = ["MAX_COUNT", "MAX_QUERY_CHARS", "build_query", "check_providers"]

MAX_COUNT = 50
_TIME_RANGES = ("d", "w", "m", "y")
_SAFESEARCH = ("off", "moderate", "strict")


def build_query(
    text: str,
    *,
    count: int,
    time_range: str | None,
    region: str | None,
    safesearch: str,
) -> Query:
    """The provider-facing Query, or InvalidInput naming the rule that was broken."""
    stripped = " ".join(text.split()) if isinstance(text, str) else ""
    if not stripped:
        raise InvalidInput("the query is empty; give 1 to 400 characters of search terms")
    if len(stripped) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is {len(stripped)} characters long; at most {MAX_QUERY_CHARS} are"
            " allowed (the limit of the strictest providers)",
            details={"max_length": MAX_QUERY_CHARS},
        )
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise InvalidInput(
            f"count must be a whole number from 1 to {MAX_COUNT}, not {count!r}",
            details={"min": 1, "max": MAX_COUNT},
        )
    if time_range is not None and time_range not in _TIME_RANGES:
        raise InvalidInput(
            f"time_range must be one of d, w, m, y (day, week, month, year), not {time_range!r}"
        )
    if safesearch not in _SAFESEARCH:
        raise InvalidInput(f"safesearch must be off, moderate or strict, not {safesearch!r}")
    return Query(
        text=stripped,
        count=count,
        time_range=time_range,
        region=region or None,
        safesearch=safesearch,
    )


def check_providers(names: Sequence[str] | None, known: Collection[str]) -> list[str] | None:
    """Lower-cased, de-duplicated provider names in the order given; None means the default."""
    if names is None:
        return None
    if isinstance(names, str):
        names = [part for part in names.split(",")]
    wanted = list(dict.fromkeys(name.strip().lower() for name in names if name.strip()))
    if not wanted:
        known_names = sorted(known)
        raise InvalidInput(
            f"providers is empty; give one or more of the known: {', '.join(known_names)}",
            details={"known": known_names},
        )
    # Listing every known name would load every provider (and scan for plugins): only an
    # error needs the list.
    unknown = [name for name in wanted if name not in known]
    if unknown:
        known_names = sorted(known)
        raise InvalidInput(
            f"unknown provider{'s' if len(unknown) > 1 else ''} {', '.join(unknown)};"
            f" known: {', '.join(known_names)}",
            details={"unknown": unknown, "known": known_names},
        )
    return wanted
