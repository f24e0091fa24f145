"""RunState: what a research run has gathered, and its checkpoint form.

A run saves its state after each step (plan, search round, page read, synthesis); a run
resumed on another worker loads it and continues from that step, reading no page twice.
Passages are not saved: they are cut again from the sources' text, which is saved with its
SHA-256 so a resumed run can tell its sources are the ones it read. A job stores each text
once, apart from the checkpoint (`split_texts`), so a save writes what is new, not every
page again; `join_texts` puts them back, checking each hash.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..models import Citation, SearchResult
from .passages import Passage, split_passages
from .synthesis import Source, Synthesis

__all__ = ["Candidate", "ReadPage", "RunState", "join_texts", "split_texts"]


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def split_texts(state: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A saved state (`RunState.to_dict`) without its texts, and the texts by SHA-256: each
    source and each page of the read step in progress keeps only the hash of its text."""
    texts: dict[str, str] = {}

    def without(item: dict[str, Any]) -> dict[str, Any]:
        sha = _sha256(item["text"])
        texts[sha] = item["text"]
        return {**{k: v for k, v in item.items() if k != "text"}, "sha256": sha}

    slim = {
        **state,
        "sources": [without(s) for s in state["sources"]],
        "round_pages": {
            url: None if page is None else without(page)
            for url, page in state.get("round_pages", {}).items()
        },
    }
    return slim, texts


def join_texts(state: dict[str, Any], texts: dict[str, str]) -> dict[str, Any]:
    """`split_texts` undone: the state as `RunState.to_dict` wrote it. A state saved whole
    (texts inline) is returned as it is. A text that is missing or does not match its hash
    is an error: a resumed run must read what the first one read."""

    def whole(item: dict[str, Any], keep_hash: bool) -> dict[str, Any]:
        if "text" in item:
            return item
        sha = item["sha256"]
        text = texts.get(sha)
        if text is None or _sha256(text) != sha:
            raise ValueError(f"checkpoint text {sha[:12]} is missing or altered")
        rest = {k: v for k, v in item.items() if keep_hash or k != "sha256"}
        return {**rest, "text": text}

    return {
        **state,
        "sources": [whole(s, True) for s in state["sources"]],
        "round_pages": {
            url: None if page is None else whole(page, False)
            for url, page in state.get("round_pages", {}).items()
        },
    }


@dataclass(frozen=True)
class Candidate:
    """A search result waiting to be read, with where it came from (for ordering)."""

    result: SearchResult
    round: int
    query_index: int


@dataclass(frozen=True)
class ReadPage:
    """What a run keeps of a page it read."""

    final_url: str
    title: str | None
    text: str


@dataclass
class RunState:
    """What the run has gathered so far; the report is built from it at any stop."""

    queries: list[str] = field(default_factory=list)
    searches: int = 0
    failed_searches: int = 0
    seen_urls: set[str] = field(default_factory=set)
    candidates: list[Candidate] = field(default_factory=list)
    sources: dict[int, Source] = field(default_factory=dict)
    results: dict[int, SearchResult] = field(default_factory=dict)
    passages: list[Passage] = field(default_factory=list)
    failed_pages: int = 0
    tokens: int = 0
    synthesis: Synthesis | None = None
    notes: list[str] = field(default_factory=list)
    # The search step in progress: the indexes of its queries already run (and counted).
    round_searched: list[int] = field(default_factory=list)
    # The read step in progress: what it chose, and each page read so far (None: failed).
    round_chosen: list[SearchResult] | None = None
    round_pages: dict[str, ReadPage | None] = field(default_factory=dict)

    def titles(self) -> dict[int, str]:
        """Each source's title by its number (passages are ranked with their page's title)."""
        return {n: source.title or "" for n, source in self.sources.items()}

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def to_dict(self) -> dict[str, Any]:
        synthesis = self.synthesis
        return {
            "queries": self.queries,
            "searches": self.searches,
            "failed_searches": self.failed_searches,
            "seen_urls": sorted(self.seen_urls),
            "candidates": [
                {
                    "result": c.result.model_dump(mode="json"),
                    "round": c.round,
                    "index": c.query_index,
                }
                for c in self.candidates
            ],
            "sources": [
                {
                    "n": s.n,
                    "url": s.url,
                    "title": s.title,
                    "text": s.text,
                    "sha256": _sha256(s.text),
                    "result": self.results[s.n].model_dump(mode="json"),
                }
                for s in self.sources.values()
            ],
            "failed_pages": self.failed_pages,
            "tokens": self.tokens,
            "notes": self.notes,
            "synthesis": None
            if synthesis is None
            else {
                "answer": synthesis.answer,
                "citations": [c.model_dump(mode="json") for c in synthesis.citations],
                "tokens": synthesis.tokens,
                "unverified": synthesis.unverified,
                "warnings": synthesis.warnings,
            },
            "round_searched": self.round_searched,
            "round_chosen": None
            if self.round_chosen is None
            else [r.model_dump(mode="json") for r in self.round_chosen],
            "round_pages": {
                url: None if page is None else vars(page) for url, page in self.round_pages.items()
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunState:
        state = cls(
            queries=list(data["queries"]),
            searches=int(data["searches"]),
            failed_searches=int(data["failed_searches"]),
            seen_urls=set(data["seen_urls"]),
            candidates=[
                Candidate(SearchResult.model_validate(c["result"]), c["round"], c["index"])
                for c in data["candidates"]
            ],
            failed_pages=int(data["failed_pages"]),
            tokens=int(data["tokens"]),
            notes=list(data["notes"]),
        )
        for item in data["sources"]:
            n = int(item["n"])
            state.sources[n] = Source(n, item["url"], item["title"], item["text"])
            state.results[n] = SearchResult.model_validate(item["result"])
            state.passages.extend(Passage(n, piece) for piece in split_passages(item["text"]))
        if (saved := data.get("synthesis")) is not None:
            state.synthesis = Synthesis(
                answer=saved["answer"],
                citations=[Citation.model_validate(c) for c in saved["citations"]],
                tokens=saved["tokens"],
                unverified=saved["unverified"],
                warnings=list(saved.get("warnings", [])),
            )
        state.round_searched = [int(i) for i in data.get("round_searched", [])]
        if data.get("round_chosen") is not None:
            state.round_chosen = [SearchResult.model_validate(r) for r in data["round_chosen"]]
        state.round_pages = {
            url: None if page is None else ReadPage(**page)
            for url, page in data.get("round_pages", {}).items()
        }
        return state
