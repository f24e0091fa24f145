"""Chat answers' `[n]` markers: tied to the sources, with OpenAI's url_citation spans."""

from netsift.research.chat import NO_SUPPORT_NOTE, cite, search_note

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


def test_a_marker_naming_no_source_is_removed_and_an_unsupported_answer_says_so():
    text, notes = cite("Made of beryllium [7].", SOURCES)
    assert "[7]" not in text
    assert text.endswith(NO_SUPPORT_NOTE) and notes == []
    # A stream has sent its text already: only the closing line is added, nothing removed.
    text, _ = cite("Made of beryllium [7].", SOURCES, strip=False)
    assert text.startswith("Made of beryllium [7].\n\n(No web source")
    assert cite("No sources given.", []) == ("No sources given.", [])


FOUND = [
    {
        "rank": 1,
        "url": "http://wheel.test/",
        "title": "The Falkirk Wheel",
        "snippet": "The Falkirk Wheel, a rotating boat lift in Scotland, opened in May 2002.",
    },
    {
        "rank": 2,
        "url": "http://kelpies.test/",
        "title": "The Kelpies",
        "snippet": "The Kelpies are two 30-metre horse-head sculptures beside the canal.",
    },
    {"rank": 3, "url": "http://other.test/", "title": "Canal boats", "snippet": "Hire a boat."},
]


def test_an_answer_without_markers_cites_only_the_sources_that_support_its_sentences():
    answer = (
        "The Falkirk Wheel is a rotating boat lift that opened in 2002. "
        "Nearby stand the Kelpies, two 30-metre horse-head sculptures. It is a fine day out."
    )
    text, notes = cite(answer, FOUND)
    assert text == (
        "The Falkirk Wheel is a rotating boat lift that opened in 2002. [1] "
        "Nearby stand the Kelpies, two 30-metre horse-head sculptures. [2] "
        "It is a fine day out."
    )
    assert [n["url_citation"]["url"] for n in notes] == [
        "http://wheel.test/",
        "http://kelpies.test/",
    ]
    # A number no source states is not supported by a source that shares the words.
    text, notes = cite("The Falkirk Wheel is a rotating boat lift that opened in 1999.", FOUND)
    assert text.endswith(NO_SUPPORT_NOTE) and notes == []
    # A stream gets the supporting sources as a closing line.
    text, _ = cite(answer, FOUND, strip=False)
    assert text.endswith("\n\nSources: [1] The Falkirk Wheel [2] The Kelpies")


def test_the_search_note_says_what_happened():
    failed = {"search_unavailable": True, "search_error": "web search was unavailable (x)"}
    assert (search_note(failed) or "").startswith("(Web search failed: web search was")
    assert (search_note({"search_unavailable": False, "sources": []}) or "").startswith(
        "(Web search found nothing"
    )
    assert search_note({"search_unavailable": False, "sources": SOURCES}) is None
