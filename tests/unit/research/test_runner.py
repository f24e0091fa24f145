from datetime import UTC, datetime
from typing import Any

from netsift.models import Event, EventType, SearchResult
from netsift.research.agent import choose_results
from netsift.research.kind import research_partial


def _event(seq: int, type: EventType, **data: Any) -> Event:
    return Event(type=type, job_id="j", seq=seq, at=datetime.now(UTC), data=data)


def test_partial_keeps_the_queries_and_the_sources_read():
    events = [
        _event(1, "started", question="q"),
        _event(2, "planned", iteration=1, queries=["a", "b"]),
        _event(3, "fetch_done", url="http://x.test/1", ok=True, n=1, title="One"),
        _event(4, "fetch_done", url="http://y.test/2", ok=False, error={"code": "timeout"}),
        _event(5, "fetch_done", url="http://z.test/3", final_url="http://z.test/3b", ok=True, n=2),
    ]
    assert research_partial(events).model_dump() == {
        "partial": True,
        "queries": ["a", "b"],
        "sources": [
            {"n": 1, "url": "http://x.test/1", "title": "One"},
            {"n": 2, "url": "http://z.test/3b", "title": None},
        ],
    }


def _result(url: str, title: str, snippet: str = "", rank: int = 1) -> SearchResult:
    return SearchResult(title=title, url=url, snippet=snippet, source="t", rank=rank)


def test_choose_results_dedupes_and_spreads_over_sites():
    candidates = [
        _result("https://a.test/x?utm_source=feed", "Alpha page", "about alpha things here"),
        _result("https://www.a.test/x/", "Alpha page again", "about alpha things here, too"),
        _result("https://a.test/y", "Alpha second", "a different alpha page entirely"),
        _result("https://a.test/z", "Alpha third", "yet another page on the same site"),
        _result("https://b.test/mirror", "Alpha page!", "about alpha things here"),
        _result("https://c.test/read", "Seen before", "already read in an earlier round"),
        _result("https://d.test/new", "Delta", "something else"),
    ]
    chosen = choose_results(candidates, {"https://c.test/read"}, room=10, per_site=2)
    assert [r.url for r in chosen] == [
        "https://a.test/x?utm_source=feed",
        "https://a.test/y",
        "https://d.test/new",
    ]
    assert len(choose_results(candidates, set(), room=1, per_site=2)) == 1


def test_a_near_copy_of_a_page_already_read_is_not_chosen():
    read = [_result("https://a.test/x", "Alpha page", "about alpha things here")]
    later = [
        _result("https://b.test/copy", "Alpha page!", "about alpha things here"),
        _result("https://c.test/other", "Gamma", "nothing alike"),
    ]
    chosen = choose_results(later, {"https://a.test/x"}, room=5, per_site=2, read=read)
    assert [r.url for r in chosen] == ["https://c.test/other"]
