"""Answer types (research/answer_types.py): what a question asks for, what a sentence holds."""

import pytest

from netsift.research.answer_types import expect, has_person, has_place, holds


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did the Berlin Wall fall?", "date"),
        ("In what year was the telephone patented?", "date"),
        ("Who painted The Night Watch?", "person"),
        ("What was the name of the ship's captain?", "person"),
        ("Where is the Atacama Desert?", "place"),
        ("How heavy is an adult giraffe?", "quantity"),
        ("What is the height of Table Mountain?", "quantity"),
        ("How many strings does a cello have?", "quantity"),
        ("What is the cello made of?", None),
    ],
)
def test_a_question_names_the_kind_of_answer_it_wants(question: str, kind: str | None) -> None:
    assert expect(question).kind == kind


@pytest.mark.parametrize(
    "sentence",
    [
        "The cathedral was consecrated in 1248.",
        "The first wall went up around 2600 BC.",
        "The abbey dates from the eleventh century.",
        "The settlement grew in the 1840s.",
        "The treaty was signed on 4 July.",
    ],
)
def test_dates_in_their_many_forms(sentence: str) -> None:
    assert holds(sentence, expect("When was it built?"))


def test_a_quantity_must_be_in_the_unit_its_head_asks_for() -> None:
    heavy = expect("How heavy is an adult giraffe?")
    assert holds("An adult giraffe weighs about 1,200 kilograms.", heavy)
    assert not holds("An adult giraffe stands 5.5 metres tall.", heavy)
    height = expect("What is the height of Table Mountain?")
    assert holds("Its plateau stands 1,085 metres above the city.", height)
    assert not holds("It was first climbed in 1503.", height)
    cost = expect("How much did the stadium cost?")
    assert holds("The stadium cost 1.2 billion euros.", cost)
    assert not holds("The stadium seats 60,000 people.", cost)


def test_a_person_is_a_name_that_is_not_a_place_a_date_or_the_subject() -> None:
    assert has_person("The portrait was painted by Rembrandt van Rijn in 1642.")
    assert has_person("Marie Curie and Pierre Curie shared the prize.")
    assert has_person("It was designed by the architect I. M. Pei.")
    assert not has_person("The river rises in the Swiss Alps near the Rhone Glacier.")
    assert not has_person("The bridge opened in May 1937.")
    assert not has_person("Table Mountain overlooks Cape Town.", frozenset({"table", "mountain"}))


def test_a_place_follows_a_locative_preposition() -> None:
    assert has_place("The desert lies in northern Chile.")
    assert not has_place("The desert is the driest place on the planet.")
