from netsift.research.citations import normalize, quote_occurs, split_sentences

SOURCE = """# Webb launch

The James Webb Space Telescope was launched on **25 December 2021** on an Ariane 5
rocket from Kourou, French Guiana. Its primary mirror is made of 18 hexagonal
segments of “gold-plated beryllium” — see [the mirror page](https://example.org/m).
"""


def test_faithful_quotes_match_across_renderings():
    assert quote_occurs("launched on 25 December 2021 on an Ariane 5 rocket", SOURCE)
    assert quote_occurs('made of 18 hexagonal segments of "gold-plated beryllium"', SOURCE)
    assert quote_occurs("The James  Webb space telescope was LAUNCHED", SOURCE)
    assert quote_occurs(
        "was launched on 25 December 2021 ... segments of gold-plated",
        SOURCE.replace("“", "").replace("”", ""),
    )


def test_paraphrases_and_inventions_do_not_match():
    assert not quote_occurs("launched in December 2021 aboard an Ariane rocket", SOURCE)
    assert not quote_occurs("primary mirror is made of gold", SOURCE)
    assert not quote_occurs("Webb", SOURCE)  # too short to prove anything
    assert not quote_occurs("launched on 25 December 2021 ... made of aluminium panels", SOURCE)


def test_normalize_folds_quotes_dashes_and_markdown():
    assert normalize("“A”  —  **b** [c](http://x)") == '"a" - b c'


def test_split_sentences():
    text = "Dr. Smith arrived. It rained! Then (finally) it stopped? Yes 2 times."
    assert split_sentences("One. Two three. Four!") == ["One.", "Two three.", "Four!"]
    assert len(split_sentences(text)) >= 3


def test_a_line_break_ends_a_sentence():
    from netsift.research.citations import split_sentences
    from netsift.research.passages import split_passages

    text = "James Webb Space Telescope launch\nThe telescope was launched in 2021. It works."
    assert split_sentences(text) == [
        "James Webb Space Telescope launch",
        "The telescope was launched in 2021.",
        "It works.",
    ]
    [passage] = split_passages(text)
    assert split_sentences(passage)[0] == "James Webb Space Telescope launch"
