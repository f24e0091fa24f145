"""Answers a compatible API hands out at once but whose clients poll for them by id
(Firecrawl v1's extract, Tavily's research with an output schema): kept a while in the
serving process, bounded in count and age. With several server workers a poll may reach
another process, which answers not found (docs/compat-firecrawl.md, docs/compat-tavily.md)."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

__all__ = ["KEPT_RESULTS", "KEPT_SECONDS", "Kept"]

# A client polls within seconds of its request; Firecrawl says results expire in 24 hours.
# Ten minutes and 256 answers bound the memory a burst of requests can hold.
KEPT_RESULTS = 256
KEPT_SECONDS = 600.0


class Kept:
    """The most recent answers by id, each for KEPT_SECONDS."""

    def __init__(self, *, size: int = KEPT_RESULTS, seconds: float = KEPT_SECONDS) -> None:
        self.size = size
        self.seconds = seconds
        self._answers: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()

    def keep(self, key: str, answer: dict[str, Any]) -> None:
        now = time.monotonic()
        self._answers[key] = (now, answer)
        self._answers.move_to_end(key)
        while self._answers:
            oldest = next(iter(self._answers.values()))[0]
            if len(self._answers) <= self.size and now - oldest <= self.seconds:
                break
            self._answers.popitem(last=False)

    def get(self, key: str) -> dict[str, Any] | None:
        found = self._answers.get(key)
        if found is None or time.monotonic() - found[0] > self.seconds:
            return None
        return found[1]
