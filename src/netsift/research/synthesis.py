"""Synthesis: an answer in Markdown with `[n]` markers, each backed by a verified quote.

The model must return, beside its answer, the exact sentence it relied on for every marker;
a quote that does not occur in the source's fetched text is re-asked once, then its marker is
marked unverified and the citation dropped. Without a model the answer is extractive: the best
sentences, quoted, each with its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..models import Citation
from ..search.rank import bm25_scores
from .citations import quote_occurs, split_sentences
from .llm import LLM
from .passages import Passage

__all__ = ["Source", "Synthesis", "synthesize", "synthesize_extractive", "verify"]

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "quote": {"type": "string"}},
                "required": ["n", "quote"],
            },
        },
        "discoveries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "n": {"type": "integer"},
                },
                "required": ["title", "description"],
            },
        },
    },
    "required": ["answer", "citations"],
}
_MARKER = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Source:
    n: int
    url: str
    title: str | None
    text: str  # the full fetched text: what quotes are checked against


@dataclass
class Synthesis:
    answer: str
    citations: list[Citation]
    tokens: int = 0
    unverified: int = 0
    discoveries: list[dict[str, Any]] = field(default_factory=list)


def verify(
    raw: list[Any], sources: dict[int, Source]
) -> tuple[list[Citation], list[dict[str, Any]]]:
    """Split the model's citations into verified Citations and the failures (with reasons)."""
    good: list[Citation] = []
    bad: list[dict[str, Any]] = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        n, quote = item.get("n"), item.get("quote")
        source = sources.get(n) if isinstance(n, int) else None
        if source is None or not isinstance(quote, str):
            bad.append({"n": n, "quote": quote, "reason": "no such source"})
        elif quote_occurs(quote, source.text):
            good.append(Citation(n=n, url=source.url, title=source.title, quote=quote.strip()))
        else:
            bad.append({"n": n, "quote": quote, "reason": "quote not found in the source"})
    return good, bad


def _context(passages: list[Passage], sources: dict[int, Source], budget: int) -> str:
    blocks: dict[int, list[str]] = {}
    used = 0
    for passage in passages:
        if used + len(passage.text) > budget:
            break
        blocks.setdefault(passage.source, []).append(passage.text)
        used += len(passage.text)
    return "\n\n".join(
        f"[{n}] {sources[n].title or sources[n].url} ({sources[n].url})\n" + "\n".join(texts)
        for n, texts in sorted(blocks.items())
    )


def _mark_unverified(answer: str, cited: set[int]) -> str:
    return _MARKER.sub(lambda m: m.group(0) if int(m.group(1)) in cited else "[unverified]", answer)


async def synthesize(
    question: str,
    passages: list[Passage],
    sources: dict[int, Source],
    llm: LLM,
    *,
    context_chars: int = 12_000,
) -> Synthesis:
    context = _context(passages, sources, context_chars)
    messages = [
        {
            "role": "system",
            "content": "Answer the question using only the numbered sources. Write Markdown; "
            "after each claim put its source number in brackets, like [1]. For every number "
            "you use, add a citation with a quote copied exactly, word for word, from that "
            "source. Optionally list discoveries: surprising or important findings a human "
            'should look at. Reply with JSON only: {"answer": ..., "citations": [{"n": 1, '
            '"quote": ...}], "discoveries": [{"title": ..., "description": ..., "n": 1}]}.',
        },
        {"role": "user", "content": f"Sources:\n{context}\n\nQuestion: {question}"},
    ]
    value, tokens = await llm.json(messages, schema=ANSWER_SCHEMA, name="answer")
    answer = str(value.get("answer") or "").strip()
    good, bad = verify(list(value.get("citations") or []), sources)
    if bad:
        retry = [
            *messages,
            {"role": "assistant", "content": str(value)[:4000]},
            {
                "role": "user",
                "content": "These quotes do not occur word for word in their sources: "
                + "; ".join(f"[{b['n']}] {b['quote']!r}" for b in bad)
                + ". Give the same JSON again with exact quotes, or drop the claims you "
                "cannot support.",
            },
        ]
        again, more = await llm.json(retry, schema=ANSWER_SCHEMA, name="answer")
        tokens += more
        answer = str(again.get("answer") or answer).strip()
        good, bad = verify(list(again.get("citations") or []), sources)
        value = again
    cited = {c.n for c in good}
    discoveries = [d for d in value.get("discoveries") or [] if isinstance(d, dict)]
    return Synthesis(
        answer=_mark_unverified(answer, cited),
        citations=_unique(good),
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
