"""An answer only in a table cell, through the whole loop: the page is served, read by the
real fetcher in netsift's text rendering (cells separated by tabs), judged row by row, and
the row is cited as the page's own line — verbatim in a fresh fetch."""

from __future__ import annotations

from netsift.client import Client
from netsift.research.citations import quote_occurs
from tests.integration.research.web import Doc, WebState, build_app
from tests.offline_web.server import serve

_TIDES = """
<table>
<thead><tr><th>Harbour</th><th>High water</th><th>Low water</th><th>Range (m)</th></tr></thead>
<tbody>
<tr><td>Port Ellery</td><td>05:12</td><td>11:31</td><td>4.8</td></tr>
<tr><td>Brackwater</td><td>05:40</td><td>11:58</td><td>3.1</td></tr>
</tbody></table>
"""
PAGES = (
    Doc(
        "tides.test",
        "/saturday",
        "Tide table for Saturday",
        ("Times are local; allow for weather, which can shift the tide by minutes.",),
        html=_TIDES,
    ),
)


async def test_an_answer_only_in_a_table_cell_is_cited_as_its_row(research_settings):
    with serve(build_app(WebState(), PAGES)) as web:
        settings = research_settings(
            with_llm=False,
            resolve=[f"{host}:127.0.0.1" for host in ("search.test", "tides.test")],
            searxng_url=f"http://search.test:{web.port}",
        )
        async with Client(settings) as client:
            report = await client.research("When is high water at Brackwater?", depth="quick")
            unknown = await client.research("When is high water at Dunmore?", depth="quick")
            page = await client.fetch(report.citations[0].url, format="text", no_cache=True)
    assert report.answered
    assert [c.quote for c in report.citations] == ["Brackwater 05:40 11:58 3.1"]
    assert quote_occurs(report.citations[0].quote, page.content)
    assert not unknown.answered  # no row names it: said, not guessed from another row
