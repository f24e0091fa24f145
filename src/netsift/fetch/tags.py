"""HTML element names the readers share, written once."""

from __future__ import annotations

from typing import Final

__all__ = ["HEADING_LEVELS", "HEADING_TAGS"]

HEADING_TAGS: Final[tuple[str, ...]] = ("h1", "h2", "h3", "h4", "h5", "h6")
HEADING_LEVELS: Final[dict[str, int]] = {tag: int(tag[1]) for tag in HEADING_TAGS}  # h2 → 2
