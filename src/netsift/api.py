"""Sync conveniences: open a Client, make one call, close it (httpx/_api.py's habit)."""

from __future__ import annotations

from typing import Any

import anyio

from .client import Client
from .config import Settings
from .fetch.extract import extract
from .models import Page, ResearchReport, SearchResponse

__all__ = ["extract", "fetch", "research", "search"]


def fetch(url: str, *, settings: Settings | None = None, **options: Any) -> Page:
    """Fetch one page synchronously; see `Client.fetch` for the options."""

    async def run() -> Page:
        async with Client(settings) as client:
            return await client.fetch(url, **options)

    return anyio.run(run)


def search(query: str, *, settings: Settings | None = None, **options: Any) -> SearchResponse:
    """Search synchronously; see `Client.search` for the options."""

    async def run() -> SearchResponse:
        async with Client(settings) as client:
            return await client.search(query, **options)

    return anyio.run(run)


def research(question: str, *, settings: Settings | None = None, **options: Any) -> ResearchReport:
    """Research a question to the end synchronously; see `Client.research` for the options."""

    async def run() -> ResearchReport:
        async with Client(settings) as client:
            return await client.research(question, **options)

    return anyio.run(run)
