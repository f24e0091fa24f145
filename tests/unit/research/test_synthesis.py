from netsift.research.passages import Passage
from netsift.research.synthesis import Source, synthesize_extractive, verify

SOURCES = {
    1: Source(
        1,
        "https://a.test/webb",
        "Webb",
        "The James Webb Space Telescope was launched on 25 December 2021 from Kourou.",
    ),
    2: Source(
        2,
        "https://b.test/mirror",
        "Mirror",
        "Webb's primary mirror is made of 18 gold-plated beryllium segments.",
    ),
}


def test_verify_keeps_real_quotes_and_reports_invented_ones():
    good, bad = verify(
        [
            {"n": 1, "quote": "was launched on 25 December 2021"},
            {"n": 2, "quote": "the mirror is made of aluminium foil panels"},
            {"n": 9, "quote": "whatever text is quoted here"},
            "junk",
        ],
        SOURCES,
    )
    assert [(c.n, c.url) for c in good] == [(1, "https://a.test/webb")]
    assert [b["reason"] for b in bad] == ["quote not found in the source", "no such source"]


def test_extractive_answer_quotes_sources_verbatim():
    passages = [Passage(n, s.text) for n, s in SOURCES.items()]
    result = synthesize_extractive(
        "When was Webb launched and what is its mirror made of?", passages, SOURCES
    )
    assert result.answer.startswith("Extractive answer")
    assert {c.n for c in result.citations} == {1, 2}
    for citation in result.citations:
        assert citation.quote in SOURCES[citation.n].text
        assert f"[{citation.n}]" in result.answer


def test_extractive_answer_with_nothing_relevant():
    result = synthesize_extractive("quantum chromodynamics", [Passage(1, SOURCES[1].text)], SOURCES)
    assert result.citations == []
