"""Does a sentence answer the question, and does a quote support a claim? Lexical rules.

On a 2-core machine a model judge costs seconds a claim (local-llm.md: the 0.5B model reads
about 25 tokens a second and cannot judge entailment reliably), so both checks are lexical
and instant, and bench/research_quality.py measures how well they do:

- **Relevance** (`Relevance.answers`): a sentence answers a question (or one part of a
  compound question) when it covers enough of the question's content words, each weighted by
  how rare it is among the sentences read (a word every sentence shares says nothing about
  which one answers), when it adds words of its own (a heading that repeats the question
  answers nothing), and when it has the kind of value the question asks for (a year for
  "when", a number for "how many").
- **Support** (`supports`): a claim is supported by its cited sentences when they contain
  most of its content words and every number it states, and it does not negate what they say.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..search.rank import tokenize

__all__ = [
    "MIN_COVERAGE",
    "SUPPORT_COVERAGE",
    "Relevance",
    "expected_kind",
    "identifying",
    "names",
    "question_parts",
    "supports",
    "terms",
]

# A sentence answers when it covers this share of its question's weighted words. Tuned on
# bench/research_quality.py: answer sentences of its gold set cover 0.6-1.0; near-topic
# sentences that answer a different question (Hubble's mirror for Webb's) stay below it.
MIN_COVERAGE = 0.6
# Words of the whole question that a part does not name ("its" in "and what is its mirror
# made of?" means the subject of the first part) count this much toward a part's coverage.
CONTEXT_WEIGHT = 0.25
# A question word found only in the title of the sentence's page counts this much.
TITLE_WEIGHT = 0.5
# Even a word every sentence shares keeps this weight: it still has to be there.
MIN_WEIGHT = 0.25
# An answer says something the question does not: this many content words of its own.
MIN_NEW_TERMS = 2
# A claim is supported when its cited sentences hold this share of its content words: a
# model may rephrase a little ("was launched" for "launched"), not add facts.
SUPPORT_COVERAGE = 0.75

_FILLER = frozenset(
    "many much kind sort type tell explain describe know exactly please does did main "
    "called name named give list exist exists actually".split()
)
_SPLIT = re.compile(
    r"\?|;|,?\s+\band\s+(?=(?:what|who|whom|which|when|where|why|how|is|are|was|were|does|"
    r"did)\b)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"\b(?:1[5-9]\d\d|20\d\d)\b")
_MONTH = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b",
    re.IGNORECASE,
)
_DAY = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH.pattern}|{_MONTH.pattern}\s+\d{{1,2}}\b", re.I
)
_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|dozen|half|single|double)\b",
    re.IGNORECASE,
)
_WHEN = re.compile(r"^\s*(?:when|in what year|what year|which year|what date|on what date)\b", re.I)
_QUANTITY = re.compile(
    r"^\s*(?:how (?:many|much|long|far|big|large|tall|high|deep|wide|old|heavy|fast|thick|"
    r"often|hot|cold)|what (?:percentage|share|fraction|proportion|size|temperature|number|"
    r"distance|speed|mass|weight|length|height|depth|width|diameter|age|cost|price)|"
    r"at what (?:temperature|speed|height|depth|age))\b",
    re.IGNORECASE,
)
_COUNT_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
    r"fifty|hundred|thousand|million|billion|several|few|dozen|half"
)
_LENGTH = r"metres?|meters?|m|km|kilometres?|kilometers?|miles?|feet|foot|ft|inches|cm|mm"
_TIME = r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries"
# The unit a quantity question's head asks for; a number in other units does not answer it
# ("how tall is the tower?" is not answered by "7,300 tonnes" or "in 1889").
_UNITS: dict[str, re.Pattern[str]] = {
    head: re.compile(rf"(?:\d[\d,.]*|\b(?:a|an|{_COUNT_WORDS}))\s*(?:{units})\b", re.IGNORECASE)
    for heads, units in (
        (("tall", "high", "deep", "wide", "thick", "far"), _LENGTH),
        (("long",), f"{_LENGTH}|{_TIME}"),
        (("old", "often"), _TIME),
        (("heavy",), r"tonnes?|tons?|kg|kilograms?|grams?|g|pounds?|lb"),
        (("fast",), r"km/h|mph|knots?|per (?:hour|second)|m/s"),
        (("hot", "cold"), r"degrees?|°|kelvin|celsius|fahrenheit|K"),
    )
    for head in heads
}
_COUNTED = re.compile(r"\bhow (?:many|much) ([a-z][\w-]*)", re.IGNORECASE)
_AUXILIARY = frozenset(
    "is are was were do does did has have had can could will would should of time times".split()
)
_NEGATION = re.compile(r"\b(?:not|never|no|none|neither|nor|cannot|isn't|wasn't|doesn't|didn't)\b")
_MARKER = re.compile(r"\[(?:\d+(?:\.\d+)?|unverified)\]")


_IRREGULAR = {
    "made": "make",
    "built": "build",
    "written": "write",
    "wrote": "write",
    "began": "begin",
    "begun": "begin",
    "held": "hold",
    "took": "take",
    "taken": "take",
    "ran": "run",
    "won": "win",
    "grew": "grow",
    "grown": "grow",
    "brought": "bring",
    "flew": "fly",
    "flown": "fly",
    "found": "find",
    "led": "lead",
    "sold": "sell",
    "bought": "buy",
    "chose": "choose",
    "chosen": "choose",
    "lay": "lie",
}


def _stem(word: str) -> str:
    """A light suffix fold, the same for question and sentence: launched/launch,
    segments/segment, travelling/travel, made/make. Consistency matters, not linguistics."""
    word = word.removesuffix("'s").removesuffix("\u2019s")
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            stem = word[: -len(suffix)] + keep
            if len(stem) > 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl":
                stem = stem[:-1]  # stopped/stop; travell/travel below
            if stem.endswith("ll") and len(stem) > 5:
                stem = stem[:-1]
            return stem
    return word


def terms(text: str) -> list[str]:
    """Content words, stemmed: no stopwords, no question filler, 3+ letters or a number."""
    text = _MARKER.sub(" ", text)
    out = []
    for word in tokenize(text.replace("\u2019", "'")):
        word = word.strip("'")
        if word in _FILLER or (len(word) < 3 and not word.isdigit()):
            continue
        out.append(_stem(word))
    return out


def question_parts(question: str) -> list[str]:
    """A compound question's parts ("When was X launched and what is its mirror made of?"
    is two); a simple question is one part."""
    parts = [p.strip(" ,.") for p in _SPLIT.split(question) if p and len(p.strip(" ,.")) > 3]
    return parts or [question]


def expected_kind(part: str) -> str | None:
    """The kind of value a part asks for: "date", "quantity", or None (anything)."""
    if _WHEN.search(part):
        return "date"
    if _QUANTITY.search(part):
        return "quantity"
    return None


def _has_kind(sentence: str, kind: str | None, unit: re.Pattern[str] | None = None) -> bool:
    if kind == "date":
        return bool(_YEAR.search(sentence) or _DAY.search(sentence))
    if kind == "quantity":
        if unit is not None:
            return bool(unit.search(sentence))  # a number in the unit asked for
        return bool(_NUMBER.search(sentence) or _NUMBER_WORDS.search(sentence))
    return True


def _unit(part: str) -> re.Pattern[str] | None:
    match = re.match(r"\s*how (\w+)", part, re.IGNORECASE)
    return _UNITS.get(match.group(1).casefold()) if match else None


def _counted(part: str) -> frozenset[str]:
    """The thing a "how many"/"how much" part counts: it must be named by the answer."""
    match = _COUNTED.search(part)
    if not match or match.group(1).casefold() in _AUXILIARY:
        return frozenset()
    return frozenset(terms(match.group(1)))


_NAME_RUN = re.compile(r"(?:\b[A-Z][\w'\u2019-]*(?:\s+(?:of\s+)?|$)){1,6}")


def names(question: str, *, first_word: bool = False) -> list[frozenset[str]]:
    """The proper names a question is about ("Hubble", "James Webb Space Telescope"), each as
    its set of terms; the question's first word is not a name for being capitalised."""
    body = question.strip()
    if not first_word:
        first = re.match(r"\S+\s*", body)
        body = " " * (first.end() if first else 0) + body[first.end() if first else 0 :]
    runs = []
    for match in _NAME_RUN.finditer(body):
        words = frozenset(terms(match.group(0)))
        if words:
            runs.append(words)
    return runs


def identifying(run: frozenset[str], texts: Sequence[str]) -> frozenset[str]:
    """The words of a name that tell it apart from the other names in `texts`: "Space" and
    "Telescope" also name the Hubble Space Telescope, so of the James Webb Space Telescope
    only "James" and "Webb" identify it. A name with no such word keeps all of its words."""
    shared: set[str] = set()
    for text in texts:
        for other in names(text, first_word=True):
            if other - run:  # another name: the words it shares with ours do not identify
                shared |= other & run
    return (run - shared) or run


@dataclass(frozen=True)
class _Part:
    index: int
    kind: str | None
    own: frozenset[str]
    context: frozenset[str]
    unit: re.Pattern[str] | None = None
    counted: frozenset[str] = frozenset()


class Relevance:
    """Scores sentences against one question, with word weights from the sentences read."""

    def __init__(self, question: str, pool: Sequence[str], titles: Sequence[str] = ()) -> None:
        # "How long", "what year": the head says what kind of value is wanted (checked by
        # kind), its words are not something the answer has to repeat.
        parts = [(p, _QUANTITY.sub("", _WHEN.sub("", p))) for p in question_parts(question)]
        whole = {term for _, bare in parts for term in terms(bare)}
        self.names = [identifying(run, [*pool, *titles]) for run in names(question)]
        self.question_terms = frozenset(terms(question))
        self.parts = [
            _Part(
                i,
                expected_kind(part),
                frozenset(own),
                frozenset(whole - own),
                _unit(part),
                _counted(part),
            )
            for i, (part, bare) in enumerate(parts)
            if (own := set(terms(bare)))
        ]
        documents = [set(terms(sentence)) for sentence in pool]
        frequency = Counter(term for doc in documents for term in doc if term in whole)
        size = len(documents)
        self.weight = {
            term: max(MIN_WEIGHT, math.log((size + 1) / (frequency[term] + 0.5))) for term in whole
        }

    def _coverage(
        self, part: _Part, words: set[str], titled: frozenset[str] = frozenset()
    ) -> float:
        """The weighted share of the part's words in the sentence; a word only in the
        page's title counts `TITLE_WEIGHT` (the page is about it; the sentence may say "it")."""
        total = got = 0.0
        for group, factor in ((part.own, 1.0), (part.context, CONTEXT_WEIGHT)):
            for term in group:
                weight = factor * self.weight[term]
                total += weight
                if term in words:
                    got += weight
                elif term in titled:
                    got += TITLE_WEIGHT * weight
        return got / total if total else 0.0

    def best(self, sentence: str) -> tuple[float, int]:
        """(coverage, part index) of the part this sentence covers best; kind-blind."""
        words = set(terms(sentence))
        scored = [(self._coverage(part, words), -part.index) for part in self.parts]
        if not scored:
            return 0.0, 0
        coverage, index = max(scored)
        return coverage, -index

    def answers(self, sentence: str, title: str = "") -> tuple[bool, float, int]:
        """(answers?, coverage, part): whether `sentence` answers some part of the question.

        Every name the question is about must be in the sentence or its page's `title` (a
        page about Webb answers for "it"; a sentence about Webb does not answer for Hubble)."""
        words = set(terms(sentence))
        titled = frozenset(terms(title)) - words
        about = words | titled
        if any(not (name & about) for name in self.names):
            return False, *self.best(sentence)
        if len(words - self.question_terms) < MIN_NEW_TERMS:
            return False, *self.best(sentence)
        found = [
            (coverage, -part.index)
            for part in self.parts
            if _has_kind(sentence, part.kind, part.unit)
            and part.counted <= words
            and (coverage := self._coverage(part, words, titled)) >= MIN_COVERAGE
        ]
        if not found:
            return False, *self.best(sentence)
        coverage, index = max(found)
        return True, coverage, -index


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(_MARKER.sub(" ", text))}


def supports(claim: str, evidence: Sequence[str]) -> str | None:
    """None if the cited `evidence` supports `claim`, else why not (for the re-ask).

    Lexical entailment: the evidence must hold `SUPPORT_COVERAGE` of the claim's content
    words, every number and a word of every name in it, and must not be contradicted by a
    negation the claim adds."""
    if not evidence:
        return "it cites no sentence"
    joined = " ".join(evidence)
    missing_numbers = _numbers(claim) - _numbers(joined)
    if missing_numbers:
        return f"the cited sentences do not state {', '.join(sorted(missing_numbers))}"
    claimed = set(terms(claim))
    held = set(terms(joined))
    # "landed on Mars" is not "landed on the Moon", nor "Ada Hillary" Edmund Hillary, however
    # alike: every word of every name the claim states (its first word too) must be there.
    for name in names(claim, first_word=True):
        if missing := sorted(name - held):
            return f"the cited sentences do not name {' '.join(missing)}"
    if claimed:
        share = len(claimed & held) / len(claimed)
        if share < SUPPORT_COVERAGE:
            absent = ", ".join(sorted(claimed - held)[:5])
            return f"the cited sentences do not say: {absent}"
    elif not _numbers(claim):
        return "it states nothing the sentences could support"
    if _NEGATION.search(claim.casefold()) and not _NEGATION.search(joined.casefold()):
        return "it negates what the cited sentences say"
    return None
