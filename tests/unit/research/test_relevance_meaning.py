"""Relevance by meaning (research/support.py): answers worded unlike their questions are
found, and sentences that share the words but not the answer are not. The pages and
questions here are this test's own (none from the benchmarks)."""

from netsift.research.support import Relevance, is_metadata, supports, without_metadata

TITLE = "The Falkirk Wheel"
PAGE = [
    "The Falkirk Wheel is a rotating boat lift in Scotland.",
    "It was opened by Queen Elizabeth II in May 2002.",
    "The structure lifts boats 24 metres between two canals.",
    "The lift was designed by the architects of RMJM.",
    "Each turn takes about four minutes.",
    "Together the two gondolas hold 500,000 litres of water.",
]


def _answers(question: str, sentence: str, title: str = TITLE) -> bool:
    return Relevance(question, PAGE, [title]).answers(sentence, title)[0]


def test_a_pronoun_or_a_common_noun_stands_for_the_pages_subject() -> None:
    assert _answers("When did the Falkirk Wheel open?", PAGE[1])
    assert _answers("How high does the Falkirk Wheel lift boats?", PAGE[2])


def test_a_synonym_of_the_questions_verb_answers() -> None:
    assert _answers("When was the Falkirk Wheel inaugurated?", PAGE[1])
    assert _answers("How long does the Falkirk Wheel take to turn?", PAGE[4])


def test_the_wrong_kind_of_value_does_not_answer() -> None:
    assert not _answers("Who opened the Falkirk Wheel?", "It opened in May 2002.")
    assert _answers("Who opened the Falkirk Wheel?", PAGE[1])
    assert not _answers("How high does the Falkirk Wheel lift boats?", PAGE[1])


def test_a_short_sentence_that_answers_is_kept() -> None:
    assert _answers("When did the Falkirk Wheel open?", "It opened in 2002.")


def test_a_number_in_the_question_must_be_the_one_answered() -> None:
    question = "When did Falkirk Wheel 2 open?"
    assert not _answers(question, PAGE[1])


def test_a_person_class_the_question_asks_for_must_be_named() -> None:
    question = "Who was the first woman to ride the Falkirk Wheel?"
    assert not _answers(question, "Queen Elizabeth II opened the Falkirk Wheel in 2002.")


def test_each_part_of_a_compound_question_has_its_own_subject() -> None:
    question = "When did the Falkirk Wheel open and when was the Kelpies sculpture finished?"
    pool = [*PAGE, "The Kelpies sculpture was completed in 2013."]
    relevance = Relevance(question, pool, [TITLE, "The Kelpies"])
    assert relevance.answers(PAGE[1], TITLE)[0:1] == (True,)
    assert relevance.answers("The Kelpies sculpture was completed in 2013.", "The Kelpies")[0]


def test_a_byline_is_metadata_not_evidence() -> None:
    assert is_metadata("By Rowan Tester, science correspondent")
    assert is_metadata("Published on 3 March 2024")
    assert without_metadata(
        "The Falkirk Wheel By Rowan Tester, science correspondent It was opened in 2002."
    ) == ("The Falkirk Wheel It was opened in 2002.")
    assert not is_metadata("The wheel was designed by Tony Kettle.")
    # A claim whose name only a byline gives is not supported.
    assert supports(
        "Rowan Tester designed the Falkirk Wheel.",
        ["The Falkirk Wheel By Rowan Tester, science correspondent It opened in 2002."],
    )
    assert not _answers("Who designed the Falkirk Wheel?", "By Rowan Tester, science correspondent")
