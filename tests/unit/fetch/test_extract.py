"""extract(): the reading half of fetch for HTML already in hand, as str or as bytes."""

from __future__ import annotations

import hashlib

import pytest

from netsift import api
from netsift.errors import InvalidInput
from netsift.fetch.extract import extract

BODY = (
    "Le conseil municipal a voté la rénovation complète du pont médiéval, fermé depuis "
    "l'hiver dernier, et les travaux commenceront au printemps prochain. "
)
HTML = f"""<!doctype html><html lang="fr"><head>
<title>Pont rénové</title>
<meta name="description" content="Le pont sera rénové.">
<meta property="og:image" content="/img/pont.jpg">
<link rel="canonical" href="/ville/pont">
</head><body>
<nav><a href="/">Accueil</a> <a href="/sport">Sport</a></nav>
<article><h1>Le pont sera rénové</h1><p>{BODY * 3}</p><p>{BODY * 2}</p></article>
<footer>Mentions légales</footer>
</body></html>"""


def test_str_in_page_out() -> None:
    page = extract(HTML, url="https://ville.example/actu/pont")
    assert page.title in ("Le pont sera rénové", "Pont rénové")
    assert "Le conseil municipal a voté la rénovation" in page.content
    assert "Mentions légales" not in page.content
    assert page.metadata.lang == "fr"
    assert page.metadata.description == "Le pont sera rénové."
    assert page.metadata.image == "https://ville.example/img/pont.jpg"
    assert page.metadata.canonical == "https://ville.example/ville/pont"
    assert (page.status, page.content_type, page.format) == (200, "text/html", "markdown")
    assert page.url == page.final_url == "https://ville.example/actu/pont"
    assert page.bytes == len(HTML.encode())
    assert page.content_sha256 == hashlib.sha256(page.content.encode()).hexdigest()
    assert not page.truncated and page.next_start_index is None


def test_str_with_a_lying_meta_charset_is_taken_as_already_decoded() -> None:
    html = HTML.replace("<head>", '<head><meta charset="koi8-r">')
    assert "rénovation" in extract(html).content


@pytest.mark.parametrize(
    ("body", "label"),
    [
        (HTML.replace("<head>", '<head><meta charset="iso-8859-1">').encode("cp1252"), "meta"),
        (b"\xef\xbb\xbf" + HTML.encode(), "bom"),
        (HTML.encode(), "undeclared utf-8"),
        (HTML.encode("cp1252"), "undeclared windows-1252"),
    ],
)
def test_bytes_are_decoded_like_a_fetched_body(body: bytes, label: str) -> None:
    page = extract(body)
    assert "Le conseil municipal a voté la rénovation" in page.content, label
    assert page.bytes == len(body)


def test_without_a_url_relative_links_are_dropped_not_invented() -> None:
    page = extract(HTML)
    assert page.url == page.final_url == ""
    assert page.metadata.image is None
    assert page.metadata.canonical is None
    assert page.metadata.url is None


def test_text_format() -> None:
    page = extract(HTML, format="text")
    assert page.format == "text"
    assert "Le conseil municipal" in page.content
    assert "# " not in page.content


def test_pagination_is_explicit() -> None:
    whole = extract(HTML)
    first = extract(HTML, max_length=100)
    second = extract(HTML, max_length=100, start_index=100)
    assert first.content + second.content == whole.content[:200]
    assert first.truncated and first.next_start_index == 100
    assert first.total_length == whole.total_length
    assert first.content_sha256 == whole.content_sha256
    with pytest.raises(InvalidInput, match="past the end"):
        extract(HTML, start_index=whole.total_length + 1)


def test_empty_html_is_an_empty_page() -> None:
    page = extract("")
    assert (page.content, page.total_length, page.title) == ("", 0, None)


def test_other_types_are_a_programming_error() -> None:
    with pytest.raises(TypeError, match="str or bytes"):
        extract(123)  # type: ignore[arg-type]


def test_the_sync_api_exports_it() -> None:
    assert api.extract is extract
