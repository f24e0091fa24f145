"""Synthesis: an answer in Markdown with `[n]` markers, each backed by a verified quote.

The model sees every source as a title line and a block of numbered sentences (`2.3`: source
2, its third sentence) and cites sentences by id; the published quote is then the sentence
itself, checked against the source's fetched text like any quote. Asked for quotes, a 0.5B
model quoted the `[n] title (url)` header that no page contains; ids leave it nothing to
copy wrongly, and a schema-constrained model cannot name an id that was not shown. A model
that quotes instead is checked the same way. A citation that fails is re-asked once, then
its marker is marked unverified and the citation dropped; an answer with verified citations
but no marker gets its sources' markers at the end. Without a model the answer is
extractive: the best sentences, quoted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..models import Citation
from ..search.rank import bm25_scores
from .citations import MIN_QUOTE_CHARS, normalize, quote_occurs, split_sentences
from .llm import LLM
from .passages import Passage

__all__ = [
    "Sentence",
    "Source",
    "Synthesis",
    "build_answer_schema",
    "build_context",
    "synthesize",
    "synthesize_extractive",
    "verify",
]

ANSWER_CHARS = 4_000  # schema caps: a runaway small model stops instead of filling its window
MAX_CITATIONS = 12
_MARKER = re.compile(r"\[(\d+)\]")
_SENTENCE_MARKER = re.compile(r"\[(\d+)\.\d+\]")  # [2.3] written where [2] was meant
_ID_PREFIX = re.compile(r"^\s*\(?\d+\.\d+\)?[:.)]?\s+")  # a quote copied with its id


@dataclass(frozen=True)
class Source:
    n: int
    url: str
    title: str | None
    text: str  # the full fetched text: what quotes are checked against


@dataclass(frozen=True)
class Sentence:
    """One numbered sentence shown to the model; `id` is "2.3" for source 2's third."""

    id: str
    source: int
    text: str


@dataclass
class Synthesis:
    answer: str
    citations: list[Citation]
    tokens: int = 0
    unverified: int = 0
    discoveries: list[dict[str, Any]] = field(default_factory=list)


def build_context(
    passages: list[Passage], sources: dict[int, Source], budget: int
) -> tuple[str, dict[str, Sentence]]:
    """The sources as the model sees them, and the sentences it may cite, by id.

    Each source is one `Source n: title <url>` line, then one numbered sentence a line.
    Passages are taken best first until `budget` characters. A sentence repeating the title
    (the header shows it), one already shown for that source, or one too short to verify
    is left out."""
    chosen: dict[int, list[str]] = {}
    used = 0
    for passage in passages:
        if used + len(passage.text) > budget:
            break
        chosen.setdefault(passage.source, []).append(passage.text)
        used += len(passage.text)
    blocks: list[str] = []
    sentences: dict[str, Sentence] = {}
    for n, texts in sorted(chosen.items()):
        source = sources[n]
        title = " ".join((source.title or "").split())
        lines = [f"Source {n}: {title or source.url} <{source.url}>"]
        seen = {title.casefold()}
        for text in texts:
            for sentence in split_sentences(text):
                if sentence.casefold() in seen or len(normalize(sentence)) < MIN_QUOTE_CHARS:
                    continue
                seen.add(sentence.casefold())
                sentence_id = f"{n}.{len(lines)}"
                sentences[sentence_id] = Sentence(sentence_id, n, sentence)
                lines.append(f"{sentence_id} {sentence}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks), sentences


def build_answer_schema(
    sentences: dict[str, Sentence], sources: dict[int, Source]
) -> dict[str, Any]:
    """The answer's JSON schema. A citation names a shown sentence (an enum of ids, so a
    constrained model cannot invent one), a discovery a source number; strings are capped,
    so a small model that runs away stops instead of filling its window."""
    # An empty enum is an invalid schema: with nothing shown, no citation can be given.
    ids = {"type": "string", "enum": list(sentences)} if sentences else {"type": "string"}
    citation = {
        "type": "object",
        "properties": {"id": ids},
        "required": ["id"],
        "additionalProperties": False,
    }
    discovery = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 200},
            "description": {"type": "string", "maxLength": 1_000},
            "n": {"type": "integer", "enum": sorted(sources)},
        },
        "required": ["title", "description"],
        "additionalProperties": False,
    }
    citations = {"type": "array", "maxItems": MAX_CITATIONS if sentences else 0, "items": citation}
    return {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": ANSWER_CHARS},
            "citations": citations,
            "discoveries": {"type": "array", "maxItems": 5, "items": discovery},
        },
        "required": ["answer", "citations"],
        "additionalProperties": False,
    }


def verify(
    raw: list[Any], sources: dict[int, Source], sentences: dict[str, Sentence] | None = None
) -> tuple[list[Citation], list[dict[str, Any]]]:
    """Split the model's citations into verified Citations and the failures (with reasons).

    A citation is `{"id": "2.3"}` (a shown sentence, quoted whole) or `{"n": 2, "quote": ...}`;
    either way the quote must occur in the source's fetched text. A quote copied together
    with its sentence id has the id taken off first; the rest must still occur."""
    good: list[Citation] = []
    bad: list[dict[str, Any]] = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        n, quote = item.get("n"), item.get("quote")
        if (sentence_id := item.get("id")) is not None:
            sentence = (sentences or {}).get(str(sentence_id).strip())
            if sentence is None:
                bad.append({"id": sentence_id, "reason": "no such sentence"})
                continue
            n, quote = sentence.source, sentence.text
        source = sources.get(n) if isinstance(n, int) else None
        if source is None or not isinstance(quote, str):
            bad.append({"n": n, "quote": quote, "reason": "no such source"})
            continue
        quote = quote.strip()
        if not quote_occurs(quote, source.text) and sentence_id is None:
            quote = _ID_PREFIX.sub("", quote)  # "2.3 The sentence…" copied from the context
        if quote_occurs(quote, source.text):
            good.append(Citation(n=n, url=source.url, title=source.title, quote=quote))
        else:
            bad.append({"n": n, "quote": quote, "reason": "quote not found in the source"})
    return good, bad


def _mark_unverified(answer: str, cited: set[int]) -> str:
    return _MARKER.sub(lambda m: m.group(0) if int(m.group(1)) in cited else "[unverified]", answer)


def _place_markers(answer: str, citations: list[Citation]) -> str:
    """Source markers as the report wants them: `[2.3]` becomes `[2]`; an answer the model
    left without any marker gets its verified sources' markers at the end."""
    answer = _SENTENCE_MARKER.sub(r"[\1]", answer)
    if citations and not _MARKER.search(answer):
        numbers = sorted({c.n for c in citations})
        answer = f"{answer} " + "".join(f"[{n}]" for n in numbers)
    return answer


def _failures(bad: list[dict[str, Any]]) -> str:
    return "; ".join(
        f"id {b['id']!r}" if "id" in b else f"[{b['n']}] {str(b['quote'])[:300]!r}" for b in bad
    )


async def synthesize(
    question: str,
    passages: list[Passage],
    sources: dict[int, Source],
    llm: LLM,
    *,
    context_chars: int = 12_000,
) -> Synthesis:
    context, sentences = build_context(passages, sources, context_chars)
    schema = build_answer_schema(sentences, sources)
    # The reply format shows placeholders, not an example id: Qwen2.5-Coder-0.5B cited the
    # example ("1.2") whatever the sources said.
    messages = [
        {
            "role": "system",
            "content": "Answer the question using only the sources. Each source lists its "
            "sentences, one a line, each starting with its id: source number, dot, sentence "
            "number. Write a short answer in Markdown; after each claim put its source number "
            "in brackets. In citations, give the id of each sentence that supports the answer. "
            "Optionally list discoveries: surprising or important findings a human should "
            'look at. Reply with JSON only: {"answer": <answer>, "citations": [{"id": '
            '<sentence id>}], "discoveries": [{"title": ..., "description": ..., "n": <source '
            "number>}]}.",
        },
        {"role": "user", "content": f"{context}\n\nQuestion: {question}"},
    ]
    value, tokens = await llm.json(messages, schema=schema, name="answer")
    answer = str(value.get("answer") or "").strip()
    good, bad = verify(list(value.get("citations") or []), sources, sentences)
    if bad:
        retry = [
            *messages,
            {"role": "assistant", "content": json.dumps(value, ensure_ascii=False)[:4000]},
            {
                "role": "user",
                "content": "These citations are not sentences of their sources: "
                + _failures(bad)
                + ". Give the same JSON again, citing each claim by the id that starts the "
                "sentence supporting it above, or drop the claims you cannot support.",
            },
        ]
        again, more = await llm.json(retry, schema=schema, name="answer")
        tokens += more
        answer = str(again.get("answer") or answer).strip()
        good, bad = verify(list(again.get("citations") or []), sources, sentences)
        value = again
    good = _unique(good)
    cited = {c.n for c in good}
    discoveries = [d for d in value.get("discoveries") or [] if isinstance(d, dict)]
    return Synthesis(
        answer=_mark_unverified(_place_markers(answer, good), cited),
        citations=good,
        tokens=tokens,
        unverified=len(bad),
        discoveries=discoveries,
    )


def _unique(citations: list[Citation]) -> list[Citation]:
    seen: set[tuple[int, str]] = set()
    out = []
    for citation in citations:
        key = (citation.n, citation.quote.casefold())
        if key not in seen:
            seen.add(key)
            out.append(citation)
    return out


def synthesize_extractive(
    question: str, passages: list[Passage], sources: dict[int, Source], *, sentences: int = 6
) -> Synthesis:
    """A real answer without a model: the sentences that best match the question, quoted."""
    candidates = [
        (passage.source, sentence)
        for passage in passages[:20]
        for sentence in split_sentences(passage.text)
        if 30 <= len(sentence) <= 400
    ]
    if not candidates:
        return Synthesis(
            answer="No source read for this question said anything about it.", citations=[]
        )
    scores = bm25_scores(question, [sentence for _, sentence in candidates])
    ranked = sorted(zip(scores, candidates, strict=True), key=lambda item: item[0], reverse=True)
    lines: list[str] = []
    citations: list[Citation] = []
    seen: set[str] = set()
    for score, (n, sentence) in ranked:
        if score <= 0 or len(lines) >= sentences or sentence.casefold() in seen:
            continue
        if not quote_occurs(sentence, sources[n].text):
            continue
        seen.add(sentence.casefold())
        lines.append(f"- “{sentence}” [{n}]")
        citations.append(Citation(n=n, url=sources[n].url, title=sources[n].title, quote=sentence))
    if not lines:
        return Synthesis(
            answer="No source read for this question said anything about it.", citations=[]
        )
    header = "Extractive answer (no language model configured): the most relevant sentences found."
    return Synthesis(answer=header + "\n\n" + "\n".join(lines), citations=_unique(citations))
