"""The sync conveniences (`netsift.fetch`, `netsift.extract`) used the way a script uses them."""

from __future__ import annotations

import pytest

import netsift
from netsift.errors import NetsiftError
from tests.offline_web import documents as docs
from tests.offline_web.fixtures import OfflineWeb, WebSettingsFactory
from tests.offline_web.site import PAGES


def test_fetch_returns_a_page(web_settings: WebSettingsFactory, offline_web: OfflineWeb) -> None:
    page = netsift.fetch(offline_web.url("news.test", "/article"), settings=web_settings())
    assert isinstance(page, netsift.Page)
    assert page.title == "Harbour town switches its ferries to batteries"
    assert "## How the crossing changed" in page.content
    assert page.metadata.site_name == "The Coastal Courier"


def test_fetch_passes_options(web_settings: WebSettingsFactory, offline_web: OfflineWeb) -> None:
    page = netsift.fetch(
        offline_web.url("files.test", "/long.txt"),
        settings=web_settings(),
        max_length=100,
        start_index=50,
    )
    assert page.content == docs.LONG_TEXT[50:150]
    assert page.next_start_index == 150
    secret = netsift.fetch(
        offline_web.url("docs.test", "/private/secret"),
        settings=web_settings(),
        respect_robots=False,
        format="text",
    )
    assert "rotates its credentials" in secret.content


def test_fetch_takes_render_like_every_door(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
) -> None:
    url = offline_web.url("news.test", "/article")
    page = netsift.fetch(url, settings=web_settings(), render="never")
    assert page.rendered is False and page.render_reason is None
    with pytest.raises(netsift.InvalidInput, match="render"):
        netsift.fetch(url, settings=web_settings(), render="sometimes")  # type: ignore[arg-type]


def test_fetch_raises_typed_errors(web_settings: WebSettingsFactory, offline_web: OfflineWeb):
    with pytest.raises(NetsiftError) as caught:
        netsift.fetch(
            offline_web.url("news.test", "/article"), settings=web_settings(allow_networks=[])
        )
    assert caught.value.code == "blocked_address"
    with pytest.raises(NetsiftError) as caught:
        netsift.fetch(offline_web.url("docs.test", "/private/secret"), settings=web_settings())
    assert caught.value.code == "blocked_by_robots"
    assert offline_web.state.hits("news.test") == 0


def test_fetch_works_twice_in_one_process(
    web_settings: WebSettingsFactory, offline_web: OfflineWeb
):
    """Each call opens and closes its own Client and event loop."""
    for _ in range(2):
        page = netsift.fetch(offline_web.url("files.test", "/notes.txt"), settings=web_settings())
        assert page.content == docs.NOTES_TXT
    assert offline_web.state.hits("files.test", "/notes.txt") == 2


def test_extract_needs_no_network(offline_web: OfflineWeb) -> None:
    html = (PAGES / "article.html").read_text("utf-8")
    page = netsift.extract(html, url="https://news.example/2024/05/14/kelby-electric-ferries")
    assert page.title == "Harbour town switches its ferries to batteries"
    assert "[harbour development plan](https://news.example/kelby/harbour-plan)" in page.content
    assert "We use cookies" not in page.content
    assert page.metadata.favicon == "https://news.example/static/favicon-32.png"
    assert page.metadata.json_ld[0]["@type"] == "NewsArticle"
    assert offline_web.state.total() == 0


def test_extract_bytes_and_formats() -> None:
    body, _ = docs.build_charset_page("latin1")
    page = netsift.extract(body, url="https://news.example/latin1", format="text")
    assert docs.CHARSET_TEXT["latin1"] in page.content
    html = netsift.extract((PAGES / "docs-guide.html").read_bytes(), format="html")
    assert "<table" in html.content
