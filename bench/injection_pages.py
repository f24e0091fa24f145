"""Injection judged on whole pages: how many planted pages research would still publish from,
and how many ordinary pages it would wrongly set aside (issue 30).

    .venv/bin/python bench/injection_pages.py

Three sets of pages (tests/integration/research/injection_pages.py): the first 30 + 30, whose
misses (23/30 caught before) the rules were widened on; a second 12 + 12 written after, which
nobody tuned on until its misses were named (issue 30); and a third 15 + 14 written after the
rules were rebuilt as a model (who is addressed, what is asked, about what) and measured
before any tuning on it. Each page is served on 127.0.0.1, read by the real fetcher as
research reads it (text, hidden text dropped) and judged sentence by sentence
(research/injection.find_instruction). Not a test.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import HTMLResponse, PlainTextResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402
from tests.integration.research.injection_pages import (  # noqa: E402
    FOURTH_INJECTED,
    FOURTH_ORDINARY,
    FRESH_INJECTED,
    FRESH_ORDINARY,
    INJECTED,
    ORDINARY,
    THIRD_INJECTED,
    THIRD_ORDINARY,
    page_html,
)
from tests.integration.research.test_injection_pages import PAGES, judge  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402


def main() -> None:
    async def route(request: Request) -> Response:
        page = PAGES.get(request.path_params["slug"])
        if page is None:
            return PlainTextResponse("not found", status_code=404)
        return HTMLResponse(page_html(page))

    with (
        serve(Starlette(routes=[Route("/{slug}", route)])) as site,
        tempfile.TemporaryDirectory() as tmp,
    ):
        for label, planted, plain in (
            ("tuned-on set (30 + 30)", INJECTED, ORDINARY),
            ("fresh set (12 + 12), written after the rules", FRESH_INJECTED, FRESH_ORDINARY),
            ("third set (15 + 14), written after the model", THIRD_INJECTED, THIRD_ORDINARY),
            (
                "fourth set (13 + 12), written after the third's fixes",
                FOURTH_INJECTED,
                FOURTH_ORDINARY,
            ),
        ):
            print(label)
            missed, flags = anyio.run(judge, site, Path(tmp), planted, plain)
            for line in (*missed, *flags):
                print(f"    {line}")


if __name__ == "__main__":
    main()
