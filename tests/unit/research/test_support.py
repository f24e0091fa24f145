"""The lexical relevance and support checks (research/support.py)."""

from netsift.research.support import Relevance, expected_kind, identifying, names, supports

POOL = [
    "The James Webb Space Telescope was launched on 25 December 2021 from Kourou.",
    "Webb's primary mirror is 6.5 metres across and is made of 18 segments of beryllium.",
    "The Hubble Space Telescope was launched in 1990 aboard the Space Shuttle Discovery.",
    "Hubble's primary mirror is 2.4 metres across and is made of glass.",
    "The sunshield keeps the mirror and instruments below 50 kelvin.",
    "The tower is 330 metres tall including its antennas.",
    "The Eiffel Tower was completed in 1889 for the World's Fair.",
    "The Eiffel Tower is built of wrought iron, about 7,300 tonnes of it.",
]


def _answers(question: str, sentence: str, title: str = "") -> bool:
    return Relevance(question, POOL).answers(sentence, title)[0]


def test_a_sentence_answers_the_part_of_the_question_it_covers():
    question = "When was the James Webb Space Telescope launched and what is its mirror made of?"
    relevance = Relevance(question, POOL)
    assert relevance.answers(POOL[0])[0:1] == (True,)
    assert relevance.answers(POOL[0])[2] == 0  # the first part
    assert relevance.answers(POOL[1])[0] and relevance.answers(POOL[1])[2] == 1
    assert not relevance.answers(POOL[4])[0]  # the sunshield: near, not an answer


def test_a_sentence_about_another_name_does_not_answer():
    question = "How many segments does Hubble's primary mirror have?"
    assert not _answers(question, POOL[1])  # Webb's mirror has the segments, not Hubble's
    assert not _answers(question, POOL[3])  # Hubble's mirror, but no segments counted
    # Shared words do not identify a name: "Space Telescope" also names Hubble.
    run = names("When was the James Webb Space Telescope launched?")[0]
    assert identifying(run, POOL) == {"jame", "webb"}
    assert not _answers("What is the James Webb Space Telescope's mirror made of?", POOL[3])


def test_the_value_asked_for_must_be_there_in_its_unit():
    assert expected_kind("When was it launched") == "date"
    assert expected_kind("How many eggs") == "quantity"
    assert expected_kind("What is it made of") is None
    question = "How tall is the Eiffel Tower?"
    assert _answers(question, POOL[5], title="The Eiffel Tower")
    assert not _answers(question, POOL[6])  # a year is not a height
    assert not _answers(question, POOL[7])  # nor is a weight
    assert _answers("When was the Eiffel Tower completed?", POOL[6])


def test_a_sentence_that_only_repeats_the_question_answers_nothing():
    assert not _answers("What is the Eiffel Tower?", "The Eiffel Tower.")
    assert not _answers("Who founded Redis?", "The weather in Paris is mild in spring.")


def test_support_needs_the_claims_words_numbers_and_names():
    sentence = "Apollo 11 landed on the Moon on 20 July 1969."
    assert supports("Apollo 11 landed on the Moon in 1969 [1].", [sentence]) is None
    assert supports("1969", [sentence]) is None
    assert "1970" in (supports("Apollo 11 landed in 1970.", [sentence]) or "")
    assert "mars" in (supports("Apollo 11 landed on Mars in July 1969.", [sentence]) or "")
    assert supports("Apollo 11 carried a rover and a telescope to the Moon.", [sentence])
    assert supports("Apollo 11 did not land on the Moon in 1969.", [sentence])
    assert supports("Apollo 11 landed on the Moon.", []) == "it cites no sentence"
