"""explain_page: the extraction's own classification, explained; other content types say so."""

from __future__ import annotations

import pytest

from netsift.cli.output import print_page_type_explanation
from netsift.fetch.explain import explain_page
from tests.paths import REPO

PAGES = REPO / "tests" / "offline_web" / "pages"


def test_a_listing_page_explains_its_signals_and_its_runner_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    html = (PAGES / "listing-category.html").read_text(encoding="utf-8")
    why = explain_page(html, page_type="listing", url="http://listing.test/category")
    assert why is not None and why.type == "listing"
    assert [(s.signal, s.where, s.type, s.weight) for s in why.signals] == [
        ("url:category-path=/category", "url", "collection", 1.0),
        ("url:category-path=/category", "url", "listing", 1.0),
        ("dom:cards=6", "body", "listing", 1.75),
    ]
    assert why.scores == {"collection": 1.0, "listing": 2.75}
    assert (why.runner_up, why.runner_up_score) == ("collection", 1.0)
    print_page_type_explanation(why)
    out = capsys.readouterr().out
    assert "+1.75 listing       dom:cards=6  (body)" in out
    assert "page_type_runner_up: collection (1)" in out


def test_hidden_text_is_dropped_before_it_is_classified() -> None:
    """The explanation is the extraction's: what a browser would not show is not evidence."""
    hidden = "".join("<button>Add to cart</button>" for _ in range(3))
    shown = "".join(f"<p>High water {i} comes an hour later each day.</p>" for i in range(12))
    html = (
        f"<html><body><h1>Tides</h1>{shown}<div style='display:none'>{hidden}</div></body></html>"
    )
    why = explain_page(html, page_type="article", url="https://x.example/tides")
    assert why is not None and not [s for s in why.signals if s.type == "product"]


@pytest.mark.parametrize("kind", ["pdf", "feed", "json", "text"])
def test_other_content_types_are_not_classified(kind: str) -> None:
    why = explain_page("%PDF-1.7", page_type=kind, url=None)  # type: ignore[arg-type]
    assert why is not None and why.type == kind and why.signals == []
    assert why.rule.startswith("content-type")
