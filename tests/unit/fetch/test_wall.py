"""wall.py's markup markers, searched as split alternatives in lowercased bytes, say what their
whole case-insensitive pattern says."""

from __future__ import annotations

import pytest

from netsift.fetch.wall import MARKERS, page_wall

_MARKUP = [m for m in MARKERS if m.where == "markup"]
SAMPLES = [
    '<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/jsch/v1"></script>',
    "<script>WINDOW._CF_CHL_OPT={cvId:'3'}</script>",
    '<script src="https://geo.Captcha-Delivery.com/captcha/?initialCid=x"></script>',
    '<div id="PX-Captcha"></div>',
    '<script src="/challenge.js"></script><script>var x="AWS";</script>',
    '<script src="/challenge.js"></script>\n<p>aws</p>',
    '{"@type": "NewsArticle", "isAccessibleForFree" : "False"}',
    '{"isAccessibleForFree": true}',
    "<p>Our captcha delivery is com-plete; px captcha; window cf chl opt</p>",
]


@pytest.mark.parametrize("sample", SAMPLES)
def test_split_markup_patterns_agree_with_the_whole_pattern(sample: str) -> None:
    markup = sample.encode().lower()
    for marker in _MARKUP:
        whole = bool(marker.pattern.search(sample))
        assert marker.search("", markup, lambda: "") is whole, (marker.reason, sample)


def test_words_are_read_only_when_a_words_marker_is_reached() -> None:
    asked: list[int] = []

    def words() -> str:
        asked.append(1)
        return "please verify you are human"

    challenge = '<script src="/cdn-cgi/challenge-platform/x"></script>'
    wall = page_wall(challenge, title="Just a moment...", words=words, read_words=3)
    assert wall is not None and wall.kind == "challenge" and not asked
    wall = page_wall("<p>x</p>", title="Shop", words=words, read_words=3)
    assert wall is not None and wall.kind == "captcha" and asked == [1]
    assert page_wall("<p>x</p>", title="Shop", words=words, read_words=500) is None
