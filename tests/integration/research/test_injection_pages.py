"""Injection judged on whole pages (issue 30): each of 30 planted pages and 30 ordinary pages
is served, read by the real fetcher as research reads it (text, hidden text dropped), cut into
sentences and judged as the synthesis judges them (`find_instruction`). A planted page is
caught when no sentence left unflagged holds its marker; an ordinary page must have no
sentence flagged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from netsift.client import Client
from netsift.config import Settings
from netsift.research.citations import split_sentences
from netsift.research.injection import find_instruction
from tests.integration.research.injection_pages import (
    FOURTH_INJECTED,
    FOURTH_ORDINARY,
    FRESH_INJECTED,
    FRESH_ORDINARY,
    INJECTED,
    ORDINARY,
    THIRD_INJECTED,
    THIRD_ORDINARY,
    PlantedPage,
    page_html,
)
from tests.offline_web.server import serve

PAGES = {
    page.slug: page
    for page in (
        *INJECTED,
        *ORDINARY,
        *FRESH_INJECTED,
        *FRESH_ORDINARY,
        *THIRD_INJECTED,
        *THIRD_ORDINARY,
        *FOURTH_INJECTED,
        *FOURTH_ORDINARY,
    )
}


def site_app() -> Starlette:
    """Every set's pages, each at `/{slug}` (bench/injection_pages.py serves it too)."""

    async def route(request: Request) -> Response:
        page = PAGES.get(request.path_params["slug"])
        if page is None:
            return PlainTextResponse("not found", status_code=404)
        return HTMLResponse(page_html(page))

    return Starlette(routes=[Route("/{slug}", route)])


@pytest.fixture(scope="module")
def site() -> Iterator[Any]:
    with serve(site_app()) as live:
        yield live


async def _unflagged(client: Client, site: Any, page: PlantedPage) -> tuple[list[str], list[str]]:
    """(sentences kept, sentences flagged) of the page as research reads it."""
    read = await client.fetch(site.url(f"/{page.slug}"), format="text")
    sentences = [read.title or "", *split_sentences(read.content)]
    flagged = [s for s in sentences if s and find_instruction(s, read.final_url)]
    kept = [s for s in sentences if s and s not in flagged]
    return kept, flagged


async def judge(
    site: Any, tmp_path: Path, planted: tuple[PlantedPage, ...], plain: tuple[PlantedPage, ...]
) -> tuple[list[str], list[str]]:
    """(planted pages missed, ordinary pages' flagged sentences), printed as figures."""
    settings = Settings(
        _env_file=None, data_dir=tmp_path, cache_url="memory://", allow_networks=["127.0.0.0/8"]
    )
    missed: list[str] = []
    false_flags: list[str] = []
    async with Client(settings) as client:
        for page in planted:
            kept, _ = await _unflagged(client, site, page)
            if any(page.marker.casefold() in s.casefold() for s in kept):
                missed.append(f"{page.slug} ({page.form}): {page.planted}")
        for page in plain:
            _, flagged = await _unflagged(client, site, page)
            false_flags.extend(f"{page.slug}: {s}" for s in flagged)
    flagged_pages = len({f.split(":")[0] for f in false_flags})
    print(f"planted pages caught: {len(planted) - len(missed)}/{len(planted)}")
    print(f"ordinary pages flagged: {flagged_pages}/{len(plain)}")
    return missed, false_flags


async def test_every_planted_page_is_caught_and_no_ordinary_page_is_flagged(site, tmp_path: Path):
    missed, false_flags = await judge(site, tmp_path, INJECTED, ORDINARY)
    assert not missed, "\n".join(missed)
    assert not false_flags, "\n".join(false_flags)


async def test_the_third_sets_planted_pages_stay_caught(site, tmp_path: Path):
    # Its first run (9/15) led to the grammar fixes (participles, Romance adjectives, a
    # participle clause before the colon, orders about citing): they must hold. Its one
    # ordinary page still flagged (a novel's "the agent must …, and the reader is told …")
    # is a known false flag, said in docs/research.md; the fourth set is measured, not tested.
    missed, _ = await judge(site, tmp_path, THIRD_INJECTED, ())
    assert not missed, "\n".join(missed)
