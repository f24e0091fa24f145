"""Chat answers' `[n]` markers: tied to the sources, with OpenAI's url_citation spans."""

from netsift.research.chat import cite, search_note

SOURCES = [
    {"rank": 1, "url": "http://a.test/", "title": "A"},
    {"rank": 2, "url": "http://b.test/", "title": ""},
]


def test_markers_become_url_citations_over_their_span():
    text, notes = cite("Five layers [1] of Kapton [2].", SOURCES)
    assert text == "Five layers [1] of Kapton [2]."
    spans = [text[n["url_citation"]["start_index"] : n["url_citation"]["end_index"]] for n in notes]
    assert spans == ["[1]", "[2]"]
    assert [n["url_citation"]["url"] for n in notes] == ["http://a.test/", "http://b.test/"]
    assert all(n["type"] == "url_citation" for n in notes)


def test_a_marker_naming_no_source_is_removed_and_an_uncited_answer_lists_its_sources():
    text, notes = cite("Made of beryllium [7].", SOURCES)
    assert "[7]" not in text
    assert text.endswith("\n\nSources: [1] A [2] http://b.test/")
    assert [n["url_citation"]["url"] for n in notes] == ["http://a.test/", "http://b.test/"]
    # A stream has sent its text already: only the Sources line is added, nothing removed.
    text, _ = cite("Made of beryllium [7].", SOURCES, strip=False)
    assert text.startswith("Made of beryllium [7].\n\nSources:")
    assert cite("No sources given.", []) == ("No sources given.", [])


def test_the_search_note_says_what_happened():
    failed = {"search_unavailable": True, "search_error": "web search was unavailable (x)"}
    assert (search_note(failed) or "").startswith("(Web search failed: web search was")
    assert (search_note({"search_unavailable": False, "sources": []}) or "").startswith(
        "(Web search found nothing"
    )
    assert search_note({"search_unavailable": False, "sources": SOURCES}) is None
