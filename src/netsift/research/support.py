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
from .answer_types import NUMBER, Expectation, expect, head_removed, holds
from .lexicon import IRREGULAR, senses

__all__ = [
    "MIN_COVERAGE",
    "SUPPORT_COVERAGE",
    "Relevance",
    "expected_kind",
    "identifying",
    "is_metadata",
    "matches",
    "names",
    "question_parts",
    "supports",
    "terms",
    "without_metadata",
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
_NEGATION = re.compile(r"\b(?:not|never|no|none|neither|nor|cannot|isn't|wasn't|doesn't|didn't)\b")
_MARKER = re.compile(r"\[(?:\d+(?:\.\d+)?|unverified)\]")


def stem(word: str) -> str:
    """A light suffix fold, the same for question and sentence: launched/launch,
    segments/segment, travelling/travel, made/make. Consistency matters, not linguistics."""
    word = word.removesuffix("'s").removesuffix("\u2019s")
    if word in IRREGULAR:
        return _without_e(IRREGULAR[word])
    if word.endswith("ly") and len(word) >= 7:
        return word[:-2]  # usually/usual, annually/annual (not only, early, family)
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            stem = word[: -len(suffix)] + keep
            if len(stem) > 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl":
                stem = stem[:-1]  # stopped/stop; travell/travel below
            if stem.endswith("ll") and len(stem) > 5:
                stem = stem[:-1]
            return stem
    return _without_e(word)


def _without_e(word: str) -> str:
    """arrive/arrives/arrived all "arriv", as -es and -ed leave them (not free, size)."""
    return word[:-1] if len(word) >= 5 and word.endswith("e") and not word.endswith("ee") else word


def terms(text: str) -> list[str]:
    """Content words, stemmed: no stopwords, no question filler, 3+ letters or a number."""
    text = _MARKER.sub(" ", text)
    out = []
    for word in tokenize(text.replace("\u2019", "'")):
        word = word.strip("'")
        if word in _FILLER or (len(word) < 3 and not word.isdigit()):
            continue
        out.append(stem(word))
    return out


def question_parts(question: str) -> list[str]:
    """A compound question's parts ("When was X launched and what is its mirror made of?"
    is two); a simple question is one part."""
    parts = [p.strip(" ,.") for p in _SPLIT.split(question) if p and len(p.strip(" ,.")) > 3]
    return parts or [question]


def expected_kind(part: str) -> str | None:
    """The kind of value a part asks for: "date", "quantity", "person", "place" or None."""
    return expect(part).kind


# Capitalised words in a row ("of" may join them). A claim's last word is left out ("walked
# on the Moon."): a claim may name in passing what its evidence calls "the surface"; a
# question's is kept ("the Great Wall of China?"): it names what is asked about.
_NAME_RUN = re.compile(r"(?:\b[A-Z][\w'\u2019-]*(?:\s+(?:of\s+)?|$)){1,6}")
_QUESTION_NAME_RUN = re.compile(r"(?:\b[A-Z][\w'\u2019-]*(?:\s+(?:of\s+)?|(?=[^\w\s])|$)){1,6}")


def names(
    question: str, *, first_word: bool = False, to_the_end: bool = False
) -> list[frozenset[str]]:
    """The proper names a question is about ("Hubble", "James Webb Space Telescope"), each as
    its set of terms; the question's first word is not a name for being capitalised."""
    body = question.strip()
    if not first_word:
        first = re.match(r"\S+\s*", body)
        body = " " * (first.end() if first else 0) + body[first.end() if first else 0 :]
    runs = []
    pattern = _QUESTION_NAME_RUN if to_the_end else _NAME_RUN
    for match in pattern.finditer(body):
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
    expectation: Expectation
    own: frozenset[str]
    context: frozenset[str]
    counted: frozenset[str] = frozenset()
    # The names the part is about, each (all its words, the words that identify it): a
    # part's own ("when did the Panama Canal open"), or the question's when it names none
    # ("and when did it open").
    names: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()


def matches(term: str, words: set[str]) -> bool:
    """`term` is in `words`, itself or by a word of the same sense (lexicon.py)."""
    if term in words:
        return True
    meant = senses(term)
    return bool(meant) and any(senses(word) & meant for word in words)


# A sentence that refers to its page's subject without naming it: a pronoun, a definite
# noun phrase first ("The bridge carried…", "The waterway stretches…"), or a label and its
# value ("Weight: 19.4 kg", a table row read as a statement, tables.py): a spec line is said
# of what the page is about.
_ANAPHOR = re.compile(
    r"\b(?:it|its|they|their|them|he|his|she|her|this|these|together)\b|^\s*(?:the|this)\s|"
    r"^[^:;.!?]{1,40}:\s",
    re.IGNORECASE,
)


# The person class a "who was the first X" question asks about; a generic one asks nothing.
_FOCUS = re.compile(
    r"^\s*who (?:was|is|were|are|became) (?:the |a |an )?(?:first |last |only |youngest |"
    r"oldest |current )?(?!person\b|one\b|people\b)([a-z]{3,})\b(?= to | who | that | of )",
    re.IGNORECASE,
)


class Relevance:
    """Scores sentences against one question, with word weights from the sentences read."""

    def __init__(self, question: str, pool: Sequence[str], titles: Sequence[str] = ()) -> None:
        # "How long", "what year", "the length of": the head says what kind of value is
        # wanted (checked by type, answer_types.py); its words need not be repeated.
        parts = [(p, head_removed(p)) for p in question_parts(question)]
        whole = {term for _, bare in parts for term in terms(bare)}
        texts = [*pool, *titles]
        everywhere = tuple(
            (run, identifying(run, texts)) for run in names(question, to_the_end=True)
        )
        self.question_terms = frozenset(terms(question))
        self.question_words = frozenset(w.casefold() for w in re.findall(r"[\w']+", question))
        # A number the question names (a version, a year) must be the one the answer is of.
        self.numbers = _numbers(question)
        # The class a "who" question asks for ("the first woman to…"): the answer names it.
        focus = _FOCUS.match(question)
        self.focus = stem(focus.group(1).casefold()) if focus else ""
        self.parts = []
        for i, (part, bare) in enumerate(parts):
            if not (own := set(terms(bare))):
                continue
            expectation = expect(part)
            counted = frozenset(terms(expectation.counted))
            own_names = tuple(
                (run, identifying(run, texts)) for run in names(part, to_the_end=True)
            )
            self.parts.append(
                _Part(
                    i,
                    expectation,
                    frozenset(own),
                    frozenset(whole - own),
                    counted,
                    own_names or everywhere,
                )
            )
        documents = [set(terms(sentence)) for sentence in pool]
        frequency = Counter(term for doc in documents for term in doc if term in whole)
        size = len(documents)
        self.weight = {
            term: max(MIN_WEIGHT, math.log((size + 1) / (frequency[term] + 0.5))) for term in whole
        }

    def _coverage(
        self,
        part: _Part,
        words: set[str],
        titled: frozenset[str] = frozenset(),
        title_weight: float = TITLE_WEIGHT,
    ) -> float:
        """The weighted share of the part's words in the sentence (or words of the same
        sense); a word only in the page's title counts `title_weight` (the page is about
        it; the sentence may say "it")."""
        total = got = 0.0
        for group, factor in ((part.own, 1.0), (part.context, CONTEXT_WEIGHT)):
            for term in group:
                weight = factor * self.weight[term]
                total += weight
                if matches(term, words):
                    got += weight
                elif term in titled:
                    got += title_weight * weight
        return got / total if total else 0.0

    def best(self, sentence: str) -> tuple[float, int]:
        """(coverage, part index) of the part this sentence covers best; type-blind."""
        words = set(terms(sentence))
        scored = [(self._coverage(part, words), -part.index) for part in self.parts]
        if not scored:
            return 0.0, 0
        coverage, index = max(scored)
        return coverage, -index

    @staticmethod
    def _named(
        part: _Part, words: set[str], titled: set[str]
    ) -> tuple[set[str], frozenset[str]] | None:
        """The sentence's words and its title's, each name of the part counted whole, or
        None when a name is in neither. A name is one thing: found by a word that identifies
        it ("Great Wall"), all its words count ("of China" need not be repeated)."""
        words, titled = set(words), set(titled)
        for run, name in part.names:
            if name & words:
                words |= run
            elif name & titled:
                titled |= run - words
            else:
                return None
        return words, frozenset(titled)

    def answers(self, sentence: str, title: str = "") -> tuple[bool, float, int]:
        """(answers?, coverage, part): whether `sentence` answers some part of the question.

        Every name the question is about must be in the sentence or its page's `title` (a
        page about Webb answers for "it"; a sentence about Webb does not answer for Hubble);
        a sentence that refers back to its page's subject ("it", "the bridge") has the
        title's words as its own. It must hold the type of value asked for, and say
        something the question does not."""
        sentence = without_metadata(sentence)
        words = set(terms(sentence))
        title_terms = set(terms(title)) - words
        new_terms = len(words - self.question_terms)
        if not new_terms:
            return False, *self.best(sentence)
        if self.numbers - _numbers(f"{sentence} {title}"):
            return False, *self.best(sentence)  # "Rust 2.0", "the 1908 Olympics": that one
        if self.focus and not matches(self.focus, words):
            return False, *self.best(sentence)
        title_weight = 1.0 if _ANAPHOR.search(sentence) else TITLE_WEIGHT
        known = self.question_words | frozenset(w.casefold() for w in re.findall(r"[\w']+", title))
        found = []
        for part in self.parts:
            named = self._named(part, words, title_terms)
            if named is None or not holds(sentence, part.expectation, known):
                continue
            # A typed value is itself what the sentence adds ("It opened in 2002."); an
            # untyped answer must add more than a heading that repeats the question.
            if new_terms < (1 if part.expectation.kind else MIN_NEW_TERMS):
                continue
            if not all(matches(term, named[0]) for term in part.counted):
                continue
            coverage = self._coverage(part, *named, title_weight)
            if coverage >= MIN_COVERAGE:
                found.append((coverage, -part.index))
        if not found:
            return False, *self.best(sentence)
        coverage, index = max(found)
        return True, coverage, -index


# What a page says about itself, not about its subject: a byline ("By Ada Example, space
# correspondent"), a dateline or timestamp, a copyright line, a navigation or sharing label.
# Pages that run them into the text (short pages whose extraction lost the line breaks) put
# them inside a sentence, so they are cut out wherever they stand.
_NAME = r"[A-Z][\w.'\u2019-]*(?:\s+[A-Z][\w.'\u2019-]*){0,3}"
_METADATA = re.compile(
    rf"\b(?:by|written by|words by|reporting by|text by|photos? by)\s+{_NAME}\s*,\s*"
    r"(?:[a-z]+\s+){0,3}(?:correspondent|editor|reporter|writer|journalist|staff|"
    r"contributor|columnist|desk)\b"
    rf"|^\s*(?:by|written by|photos? by)\s+{_NAME}\s*$"
    r"|^\s*(?:published|updated|posted|last (?:updated|modified|reviewed))(?: on)?:?\s+"
    r"(?:\d{1,2}\s+\w+\s+\d{4}|\w+\s+\d{1,2},?\s+\d{4}|\d{4}-\d\d-\d\d)"
    r"(?:[ T]\d\d:\d\d\S*)?"
    r"|\u00a9\s*\d{4}[^.]*|\ball rights reserved\b"
    r"|^\s*(?:advertisement|share this|subscribe|sign up|read more|related articles?|"
    r"skip to content)\b.*$",
    re.IGNORECASE,
)
# What is left of a sentence once its metadata is cut out must still say this much.
MIN_EVIDENCE_CHARS = 12


def without_metadata(text: str) -> str:
    """`text` with its bylines, datelines and boilerplate labels cut out: metadata is not
    evidence, so a claim ("Ada Example founded it") can't be supported by a byline."""
    return " ".join(_METADATA.sub(" ", text).split())


def is_metadata(sentence: str, *, whole_line: bool = False) -> bool:
    """True when nothing but metadata is left of `sentence`. A whole line of the page (a
    table row: "Zinc: 4 mg") says its fact however short, unless metadata was cut from it."""
    left = without_metadata(sentence)
    if whole_line and left == " ".join(sentence.split()):
        return not left
    return len(left) < MIN_EVIDENCE_CHARS


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in NUMBER.findall(_MARKER.sub(" ", text))}


def supports(claim: str, evidence: Sequence[str]) -> str | None:
    """None if the cited `evidence` supports `claim`, else why not (for the re-ask).

    Lexical entailment: the evidence must hold `SUPPORT_COVERAGE` of the claim's content
    words, every number and a word of every name in it, and must not be contradicted by a
    negation the claim adds."""
    if not evidence:
        return "it cites no sentence"
    claim = without_metadata(claim)  # a byline copied along with its sentence claims nothing
    joined = " ".join(without_metadata(sentence) for sentence in evidence)
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
