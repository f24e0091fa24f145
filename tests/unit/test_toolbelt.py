"""The toolbelt's pure parts: Wayback dates, citation names and formats, robots.txt's
deciding rule, OCR's bounds (tests/e2e/test_toolbelt.py runs every door end to end)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from netsift.archive.wayback import snapshot_url, wayback_timestamp
from netsift.citations.export import bibtex, csl_json, markdown
from netsift.citations.source import CitationSource, authors_of
from netsift.errors import InvalidInput
from netsift.fetch.ocr import ocr_missing, ocr_pages, page_ranges
from netsift.net.robots import build_rules
from tests.offline_web.toolbelt import RULES_ROBOTS, build_scan_pdf


@pytest.mark.parametrize(
    ("given", "timestamp"),
    [
        ("2019", "2019"),
        ("20190315083000", "20190315083000"),
        ("2024-03", "20240301000000"),
        ("2024-03-01", "20240301000000"),
        ("2024-03-01T12:30:00Z", "20240301123000"),
        ("2024-03-01T12:30:00+02:00", "20240301103000"),  # the archive keeps UTC
    ],
)
def test_wayback_timestamps(given: str, timestamp: str) -> None:
    assert wayback_timestamp(given) == timestamp


@pytest.mark.parametrize("given", ["last tuesday", "2024-13-45", "12"])
def test_a_date_that_is_none_is_invalid_input(given: str) -> None:
    with pytest.raises(InvalidInput):
        wayback_timestamp(given)


def test_snapshot_urls_keep_the_original_as_it_was() -> None:
    url = snapshot_url("https://web.archive.org/", "2021", "http://a.test/p?q=1&r=2", raw=True)
    assert url == "https://web.archive.org/web/2021id_/http://a.test/p?q=1&r=2"


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Ada Lovelace and Alan Turing", ["Ada Lovelace", "Alan Turing"]),
        ("Ada Lovelace, Alan Turing", ["Ada Lovelace", "Alan Turing"]),
        ("Lovelace, Ada", ["Lovelace, Ada"]),  # family name first: one person
        ("Grace Hopper; Ada Lovelace; Grace Hopper", ["Grace Hopper", "Ada Lovelace"]),
        ("", []),
        (None, []),
    ],
)
def test_authors_of_an_author_line(line: str | None, names: list[str]) -> None:
    assert authors_of(line) == names


def _source(**fields: object) -> CitationSource:
    base: dict[str, object] = {
        "n": 3,
        "url": "https://x.test/a?utm_source=y",
        "canonical_url": "https://x.test/a",
        "title": "Costs & 100% of the {budget}",
        "authors": ["Ada Lovelace", "Brontë"],
        "site": "The Gazette",
        "published": "2021-07-04T09:00:00Z",
        "accessed": datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        "passages": ["a quoted line"],
        "archived_url": "https://web.archive.org/web/2021/https://x.test/a",
    }
    base.update(fields)
    return CitationSource.model_validate(base)


def test_the_formats() -> None:
    source = _source()
    (item,) = csl_json([source])
    assert item["id"] == "lovelace2021-3" and item["type"] == "webpage"
    assert item["author"][0] == {"family": "Lovelace", "given": "Ada"}
    assert item["author"][1] == {"literal": "Brontë"}
    assert item["issued"] == {"date-parts": [[2021, 7, 4]]}
    assert item["accessed"] == {"date-parts": [[2026, 1, 2]]}
    assert item["archive_location"].startswith("https://web.archive.org/")
    json.dumps(item)
    entry = bibtex([source])
    assert entry.startswith("@online{lovelace2021-3,")
    assert r"Costs \& 100\% of the \{budget\}" in entry  # special characters escaped
    assert "date = {2021-07-04}" in entry and "urldate = {2026-01-02}" in entry
    text = markdown([source])
    assert text.startswith("3. Ada Lovelace, Brontë (2021-07-04). *Costs")
    assert "   > a quoted line" in text and "(accessed 2026-01-02)" in text


def test_an_unread_source_still_cites() -> None:
    source = _source(title=None, authors=[], site=None, published=None, accessed=None)
    assert csl_json([source])[0]["title"] == "https://x.test/a"
    assert bibtex([source]).startswith("@online{source-3,")
    assert markdown([source]).startswith("3. *https://x.test/a*.")


def test_the_rule_that_decides() -> None:
    rules = build_rules(200, RULES_ROBOTS.encode())
    assert rules.deciding_rule("http://r.test/a/b.pdf", "netsift") == ("*", "Disallow: /*.pdf$")
    assert rules.deciding_rule("http://r.test/a/b.pdf?x", "netsift") == ("*", None)
    assert rules.deciding_rule("http://r.test/x", "ArchiveBot/1.0") == ("archivebot", "Disallow: /")
    assert rules.crawl_delay("ArchiveBot/1.0") == 10
    unavailable = build_rules(404, b"")
    assert unavailable.deciding_rule("http://r.test/x", "netsift") == (None, None)
    assert unavailable.status == 404 and unavailable.crawl_delay("netsift") is None


def test_page_ranges() -> None:
    assert page_ranges([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"


@pytest.mark.skipif(ocr_missing() is not None, reason=f"OCR cannot run here: {ocr_missing()}")
def test_ocr_is_bounded_in_pages() -> None:
    done = ocr_pages(build_scan_pdf(), [1, 2], max_pages=1)
    assert list(done.texts) == [1] and "lighthouse" in done.texts[1].lower()
    assert done.warnings == (
        "OCR read 1 of the 2 pages without a text layer (pages 2 left unread)",
    )
