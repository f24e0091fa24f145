"""What kind of value a question asks for, and whether a sentence holds one.

Classical question answering (the TREC QA systems, Li & Roth's question classes) matches the
*type* of the answer before its words: a "when" question is answered by a date, "how tall" by
a length, "who" by a person's name, "where" by a place. Checking the type is what lets the
relevance rules accept an answer worded unlike its question ("Work on it finished in 1936"
for "When was Hoover Dam completed?") and refuse a sentence that shares every word but holds
the wrong kind of value (a date for "who").

The recognisers are patterns over the sentence, no model: a year with or without an era, a
day and month, a century or a decade; a number in the unit the question's head names; a run
of capitalised words that is not a place, a month, or a word of the question; a place after
a locative preposition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DIMENSIONS",
    "Expectation",
    "expect",
    "has_date",
    "has_number",
    "has_person",
    "has_place",
    "holds",
]

Kind = Literal["date", "quantity", "person", "place"]

NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_MONTHS = r"january|february|march|april|may|june|july|august|september|october|november|december"
_MONTH = re.compile(rf"\b(?:{_MONTHS})\b", re.IGNORECASE)
_ORDINALS = (
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|"
    r"twentieth|twenty-first"
)
# A date: a modern year, a year or a century with its era, a century in words or figures, a
# decade, a day with its month, or a time of day ("when does the train arrive?" — "11:20").
_DATE = re.compile(
    rf"\b(?:[01]?\d|2[0-3]):[0-5]\d\b(?!:)|\b(?:1[0-9]\d\d|20\d\d)\b|\b\d{{1,4}}\s*(?:AD|BC|BCE|CE)\b|\b(?:AD|CE)\s*\d{{1,4}}\b|"
    rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)|{_ORDINALS})\s+century\b|\b1[0-9]\d0s\b|"
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\b|\b(?:{_MONTHS})\s+\d{{1,2}}\b",
    re.IGNORECASE,
)
# Numbers in words: the cardinals both lists share, then what each adds ("a single arch"
# states a number; "several kilometres" is a quantity in a unit, not a number of its own).
_CARDINALS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion|dozen|half"
)
_NUMBER_WORDS = re.compile(rf"\b(?:{_CARDINALS}|single|double)\b", re.IGNORECASE)
_COUNT_WORDS = f"{_CARDINALS}|several|few"
_LENGTH = (
    r"metres?|meters?|m|km|kilometres?|kilometers?|centimetres?|centimeters?|millimetres?|"
    r"millimeters?|miles?|feet|foot|ft|inches|inch|yards?|cm|mm"
)
_AREA = (
    r"square (?:metres?|meters?|kilometres?|kilometers?|miles?|feet)|km2|km²|m2|m²|hectares?|acres?"
)
_TIME = (
    r"seconds?|secs?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|decades?|centuries"
)
_MASS = r"tonnes?|tons?|kg|kilograms?|grams?|g|pounds?|lb"
_SPEED = r"km/h|mph|knots?|per (?:hour|second)|m/s|metres per second|kilometres per hour"
_TEMPERATURE = r"degrees?|°|kelvin|celsius|fahrenheit|K"
_MONEY = r"dollars?|euros?|pounds?|yen|francs?|\$|€|£"
# The unit a quantity question's head asks for: a number in other units does not answer it
# ("how tall is the tower?" is not answered by "7,300 tonnes" or "in 1889").
_UNIT_OF = {
    "tall": _LENGTH,
    "high": _LENGTH,
    "deep": _LENGTH,
    "wide": _LENGTH,
    "thick": _LENGTH,
    "far": _LENGTH,
    "big": f"{_LENGTH}|{_AREA}",
    "large": f"{_LENGTH}|{_AREA}",
    "long": f"{_LENGTH}|{_TIME}",
    "old": _TIME,
    "often": _TIME,
    "heavy": _MASS,
    "fast": _SPEED,
    "hot": _TEMPERATURE,
    "cold": _TEMPERATURE,
}
# The nouns that name a dimension ("the length of the wall"): asked for, they are the head of
# a quantity question, not words the answer has to repeat (it says "21,196 kilometres").
DIMENSIONS = {
    "length": "long",
    "height": "tall",
    "depth": "deep",
    "width": "wide",
    "thickness": "thick",
    "distance": "far",
    "size": "big",
    "area": "big",
    "weight": "heavy",
    "mass": "heavy",
    "speed": "fast",
    "age": "old",
    "temperature": "hot",
    "cost": "cost",
    "price": "cost",
    "fee": "cost",
    "fare": "cost",
    "budget": "cost",
    "population": "many",
}
_UNIT_PATTERNS = {
    head: re.compile(
        rf"(?:\d[\d,.]*|\b(?:a|an|{_COUNT_WORDS}))\s*(?:{units})(?![\w/])", re.IGNORECASE
    )
    for head, units in _UNIT_OF.items()
}
_MONEY_AMOUNT = re.compile(
    rf"(?:[$€£]\s*\d[\d,.]*|\d[\d,.]*\s*(?:thousand|million|billion)?\s*"
    rf"(?:US|U\.S\.|American|Canadian|Australian)?\s*(?:{_MONEY}))",
    re.IGNORECASE,
)

_WHEN = re.compile(
    r"^\s*(?:when|in what year|what year|which year|what date|on what date|in which year|"
    r"what century|in what century|what time|at what time)\b",
    re.IGNORECASE,
)
_HOW = re.compile(
    r"^\s*how (many|much|long|far|big|large|tall|high|deep|wide|old|heavy|fast|thick|often|"
    r"hot|cold)\b",
    re.IGNORECASE,
)
_WHAT_DIMENSION = re.compile(
    r"^\s*(?:what|which) (?:is |was |are |were )?(?:the )?(?:total |overall |exact |"
    r"approximate |average |maximum |minimum )?(" + "|".join(DIMENSIONS) + r"|percentage|share|"
    r"fraction|proportion|number|diameter)\b|^\s*at what (temperature|speed|height|depth|age)\b",
    re.IGNORECASE,
)
_DIMENSION_OF = re.compile(r"\b(" + "|".join(DIMENSIONS) + r")\s+of\b", re.IGNORECASE)
_WHO = re.compile(
    r"^\s*(?:who|whom|whose|by whom|what (?:is|was|were|are) the names? of)\b", re.IGNORECASE
)
_WHERE = re.compile(r"^\s*(?:where|in what (?:country|city|place|region)|from where)\b", re.I)
# The words of a question's head, dropped from what an answer must repeat.
_HEAD = re.compile(
    rf"{_WHEN.pattern}|{_HOW.pattern}|{_WHAT_DIMENSION.pattern}|{_DIMENSION_OF.pattern}",
    re.IGNORECASE,
)
# "What does a brake fluid change cost?": a price asked for with "what … cost".
_WHAT_COST = re.compile(r"^\s*what (?:does|do|did|will|would) \S.* cost\b", re.IGNORECASE)
_SPENDING = re.compile(r"\b(?:cost|costs|price|pay|paid|spend|spent|budget|worth)\b", re.I)
_COUNTED = re.compile(r"\bhow (?:many|much) ([a-z][\w-]*)", re.IGNORECASE)
_AUXILIARY = frozenset(
    "is are was were do does did has have had can could will would should of time times".split()
)


@dataclass(frozen=True)
class Expectation:
    """What an answer to one question part must hold: its kind, the unit pattern of a
    quantity (None: any number), and the word a "how many" counts."""

    kind: Kind | None
    unit: re.Pattern[str] | None = None
    counted: str = ""


def expect(part: str) -> Expectation:
    """The answer type a question part asks for (None: anything, as "what is X made of?")."""
    if _WHEN.search(part):
        return Expectation("date")
    if _WHO.search(part):
        return Expectation("person")
    if _WHERE.search(part):
        return Expectation("place")
    head = None
    if match := _HOW.search(part):
        head = match.group(1).casefold()
    elif match := (_WHAT_DIMENSION.search(part) or _DIMENSION_OF.search(part)):
        word = next(g for g in match.groups() if g).casefold()
        head = DIMENSIONS.get(word, "many")
    elif _WHAT_COST.search(part):
        head = "cost"
    if head is None:
        return Expectation(None)
    if head == "cost" or (head == "much" and _SPENDING.search(part)):
        return Expectation("quantity", _MONEY_AMOUNT)
    counted = ""
    if (count := _COUNTED.search(part)) and count.group(1).casefold() not in _AUXILIARY:
        counted = count.group(1).casefold()
    return Expectation("quantity", _UNIT_PATTERNS.get(head), counted)


def head_removed(part: str) -> str:
    """The part without its question head ("how tall", "when", "the length of"), whose
    words an answer need not repeat."""
    return _HEAD.sub(" ", part)


def has_date(sentence: str) -> bool:
    return bool(_DATE.search(sentence))


def has_number(sentence: str) -> bool:
    return bool(NUMBER.search(sentence) or _NUMBER_WORDS.search(sentence))


# A capitalised word, an initial ("I."), or a name particle between capitalised words.
_CAP = r"(?:[A-Z\u00c0-\u00de][\w'\u2019.-]*)"
_PERSON = re.compile(rf"{_CAP}(?:\s+(?:(?:da|de|di|del|van|von|der|den|la|le|bin|ibn)\s+)?{_CAP})+")
# Words that make a capitalised run a place, an institution or a thing, not a person.
_NOT_PEOPLE = frozenset(
    "river lake mount mountain canyon sea ocean bay gulf island islands hills hill peak valley "
    "desert forest park street road avenue square bridge tower dam canal wall house palace "
    "museum university college school institute hospital church cathedral temple station "
    "airport city town county state states kingdom republic empire province district north "
    "south east west northern southern eastern western united national international royal "
    "company corporation inc ltd war prize award the a an in on at of and".split()
)
# Words after which a capitalised run names a place, a thing or an event, not a person.
_BEFORE_PLACES = frozenset(
    "the in at from to into near of on off across between along through via toward towards "
    "a an this that".split()
)
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_LOCATIVE = re.compile(
    rf"\b(?:in|at|from|near|on|off|across|between|beside|outside|inside|along|north of|"
    rf"south of|east of|west of)\s+(?:the\s+)?(?:[a-z-]+\s+)?{_CAP}"
)


def has_person(sentence: str, known: frozenset[str] = frozenset()) -> bool:
    """A run of two or more capitalised words that names no place, month or day, and is not
    the question's own subject (`known`, casefolded words): "Frederick Banting", "I. M. Pei",
    "Leonardo da Vinci"; not "Colorado River", "May 1937" or "Hoover Dam"."""
    for match in _PERSON.finditer(sentence):
        before = sentence[: match.start()].split()
        if before and before[-1].casefold() in _BEFORE_PLACES:
            continue  # "from Windsor Castle", "in the Black Canyon": a place, an event
        words = [w.strip(".,'\u2019").casefold() for w in match.group(0).split()]
        words = [w for w in words if w]
        if any(w in _NOT_PEOPLE or _MONTH.fullmatch(w) or w in _WEEKDAYS for w in words):
            continue
        if set(words) <= known:
            continue
        return True
    return False


def has_place(sentence: str, known: frozenset[str] = frozenset()) -> bool:
    """A capitalised name after a locative preposition ("from the Preseli Hills", "in
    Wales") that is not only the question's own subject."""
    for match in _LOCATIVE.finditer(sentence):
        name = match.group(0).rsplit(None, 1)[-1].strip(".,").casefold()
        if name not in known and not _MONTH.fullmatch(name):
            return True
    return False


def holds(sentence: str, expectation: Expectation, known: frozenset[str] = frozenset()) -> bool:
    """Whether `sentence` holds a value of the kind expected (any sentence, for no kind)."""
    kind = expectation.kind
    if kind == "date":
        return has_date(sentence)
    if kind == "person":
        return has_person(sentence, known)
    if kind == "place":
        return has_place(sentence, known)
    if kind == "quantity":
        if expectation.unit is not None:
            return bool(expectation.unit.search(sentence))
        return has_number(sentence) or bool(_MONEY_AMOUNT.search(sentence))
    return True
