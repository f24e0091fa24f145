"""How deep a request body may nest, judged on its bytes before any parser reads it.

JSON parsers recurse once per level: Python's `json` raises `RecursionError` (a 500 if it
escapes) near its frame limit, jiter stops at 200 levels. So every body the server reads (REST
routes, the compatible APIs, WebSocket messages) is measured here first, without recursion and
in linear time, and one nested deeper than MAX_DEPTH is `invalid_input` before it is parsed.
"""

from __future__ import annotations

import re
from itertools import accumulate

from ..errors import InvalidInput

__all__ = ["MAX_DEPTH", "check_depth", "nesting_depth"]

# 4x the deepest body a real client sends (an OpenAI tool's JSON schema nests about 16 levels),
# well below where the parsers give up (jiter 200, Python's json about 1,000 frames).
MAX_DEPTH = 64

# Brackets summed at a time: a deep body is refused after its first window, not its last byte
# (1 MiB of `[`: 92 CPU ms counted whole, 2.9 ms in windows of this size; bench command in
# the commit that set it).
WINDOW = 1 << 12
# A JSON string, or an unterminated one running to the end: brackets inside it do not nest.
# Possessive loops and the end-of-input branch keep the scan linear on any input (a body of
# escaped quotes with no closing one cannot make it restart at each of them).
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))


def nesting_depth(body: bytes, *, limit: int | None = None) -> int:
    """The deepest the arrays and objects of a JSON text nest (brackets inside strings don't
    count); for text that is not JSON, a depth no parser of it would exceed. With `limit`, the
    count stops at the first window that passes it and answers a depth above `limit`."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKET)
    depth = deepest = 0
    for start in range(0, len(brackets), WINDOW):
        window = brackets[start : start + WINDOW]
        sums = list(accumulate(map(_STEP.__getitem__, window), initial=depth))
        deepest, depth = max(deepest, *sums), sums[-1]
        if limit is not None and deepest > limit:
            break
    return deepest


def check_depth(body: bytes, *, subject: str = "the request body") -> None:
    """Raise `invalid_input` when `body` nests deeper than MAX_DEPTH."""
    if body.count(b"[") + body.count(b"{") <= MAX_DEPTH:
        return  # cannot nest deeper than it has brackets: most bodies stop here
    if nesting_depth(body, limit=MAX_DEPTH) > MAX_DEPTH:
        raise InvalidInput(
            f"{subject} is nested too deeply to read (more than {MAX_DEPTH} levels)",
            details={"limit": MAX_DEPTH},
        )
