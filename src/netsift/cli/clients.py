"""The Client a one-shot command (search, fetch, meta) uses: built, used, closed; not entered.

Entering a Client (`async with`) starts its job runtime, for the research and crawl jobs it may
run in the background; building that runtime imports the job kinds (research's and crawl's,
the job executor), ~30 ms of CPU that a command running no job pays for nothing. The
commands that start jobs (research, crawl, serve, worker, mcp) enter their Client as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..client import Client
    from ..config import Settings

__all__ = ["jobless_client"]


@asynccontextmanager
async def jobless_client(settings: Settings) -> AsyncIterator[Client]:
    """A Client for a command that starts no job; closed (browser, pool, caches) on the way out."""
    from ..client import Client

    client = Client(settings)
    try:
        yield client
    finally:
        await client.aclose()
