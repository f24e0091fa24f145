"""extract_data: pages (given, or found by a search) in, the schema's fields out, each with
its evidence, under budgets of pages, model tokens and time that always stop it.

The pages' structured data, tables and definition lists fill what they state first
(page_data.py): what a publisher declared for machines is read as written, for free. With a
model, the fields still null are then asked of it: each chunk of the pages' sentences is one
constrained call (llm_fill.py) and the chunks are merged field by field: a scalar field keeps
the first verified value, an array gathers the verified items of every chunk; chunks stop
once every field is filled. Last, a field still null whose name is `title`, `description` or
`author` takes the page's `<title>` or `<meta name=…>` (the head names the whole page, often
with the site's name, so a model's reading of the text comes first). A field that stays null
says why in `missing`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..at_once import each
from ..errors import ConfigError, NetsiftError, Timeout
from ..params import ExtractDataParams, FetchOptions
from .model import Evidence, ExtractDataResult
from .schema import FieldSpec, field_specs

if TYPE_CHECKING:
    from ..fetch.fetcher import Fetcher
    from ..models import Page
    from ..research.llm import LLM
    from ..search.service import SearchService
    from .model import Origin
    from .page_data import PageFacts

__all__ = ["DataExtractor"]

PAGE_CHARS = 60_000  # of each page's reading used, as research uses (docs/research.md)
NOT_STATED = "no structured data or table on the pages read names this field"
NO_MODEL_FOR_TEXT = (
    "reading fields from text needs a language model (NETSIFT_LLM_MODEL); none is configured"
)
NOT_STATED_IN_TEXT = "the model found no verified value for this field in the text"
NO_MODEL_NO_SCHEMA = (
    "a prompt without a schema needs a language model (NETSIFT_LLM_MODEL); without one, "
    "give output_schema"
)


@dataclass
class _Run:
    params: ExtractDataParams
    started: float

    def left(self) -> float:
        return self.params.deadline - (time.monotonic() - self.started)


class DataExtractor:
    """Reads the pages through the guarded fetcher and search service the Client holds."""

    def __init__(
        self,
        search: SearchService | None,
        fetcher: Fetcher,
        llm: LLM | None,
        *,
        context_tokens: int,
    ) -> None:
        self.search = search
        self.fetcher = fetcher
        self.llm = llm
        self.context_tokens = context_tokens

    async def run(self, params: ExtractDataParams) -> ExtractDataResult:
        """The fields, each with its evidence or why it is null. Raises, before reading
        anything, when a prompt without a schema has no model to answer it; and raises the
        pages' own error when the caller named pages and none could be read: an empty answer
        would hide the cause (a blocked address, a wall, a 404). Pages a search found that
        cannot be read are notes, as research skips them."""
        if params.output_schema is None and self.llm is None:
            raise ConfigError(NO_MODEL_NO_SCHEMA, details={"key": "NETSIFT_LLM_MODEL"})
        run = _Run(params, time.monotonic())
        result = ExtractDataResult(mode="llm" if self.llm is not None else "extractive")
        urls = list(params.urls or [])
        if params.query:
            urls += await self._found(params, result)
        urls = list(dict.fromkeys(urls))
        if len(urls) > params.max_pages:
            result.notes.append(f"read {params.max_pages} of {len(urls)} pages (max_pages)")
            result.stopped_because = "max_pages"
        pages = await self._read(urls[: params.max_pages], run, result)
        schema = params.output_schema
        specs = field_specs(schema) if schema else []
        from .page_data import DECLARED, HEAD, facts_of

        facts = [facts_of(page) for page in pages]
        _from_page_data(facts, specs, DECLARED, result)
        todo = [spec for spec in specs if result.data.get(spec.name) is None]
        if self.llm is not None and pages and (todo or not schema):
            asked = _only(schema, todo) if schema else None
            urls = [page.final_url for page in pages]
            texts = [page.content for page in pages]
            found = await self._with_model(self.llm, urls, texts, todo, asked, run, result)
            specs = specs if schema else found
        _from_page_data(facts, specs, HEAD, result)  # last: page_data.py says why
        result.data = {spec.name: result.data.get(spec.name) for spec in specs}
        result.elapsed_ms = round((time.monotonic() - run.started) * 1000, 1)
        return result

    async def run_on_texts(self, params: ExtractDataParams, texts: list[str]) -> ExtractDataResult:
        """The schema's fields from texts already in hand, one for each of `params.urls` (a
        page's earlier reading, which cannot be fetched again), by the model: a text has no
        structured data or head to read without one, so without a model every field is null
        and a note says why. Evidence is checked against the texts, as against pages."""
        run = _Run(params, time.monotonic())
        result = ExtractDataResult(mode="llm" if self.llm is not None else "extractive")
        urls = list(params.urls or [])
        schema = params.output_schema
        specs = field_specs(schema) if schema else []
        if self.llm is None:
            result.notes.append(NO_MODEL_FOR_TEXT)
            result.missing = {spec.name: NO_MODEL_FOR_TEXT for spec in specs}
        else:
            specs = await self._with_model(self.llm, urls, texts, specs, schema, run, result)
            for spec in specs:
                if result.data.get(spec.name) is None:
                    result.missing.setdefault(spec.name, NOT_STATED_IN_TEXT)
        result.sources = urls
        result.pages_read = len(texts)
        result.data = {spec.name: result.data.get(spec.name) for spec in specs}
        result.elapsed_ms = round((time.monotonic() - run.started) * 1000, 1)
        return result

    async def _found(self, params: ExtractDataParams, result: ExtractDataResult) -> list[str]:
        """The URLs a search for the query finds, best first (one search)."""
        if self.search is None:
            result.notes.append("search is switched off on this host: the query was not run")
            return []
        assert params.query is not None
        response = await self.search.search(params.query, count=params.max_pages)
        result.searches += 1
        return [r.url for r in response.results]

    async def _read(self, urls: list[str], run: _Run, result: ExtractDataResult) -> list[Page]:
        """The pages, in order, as text with the body kept (structured data is checked
        against it); a page that fails is a note, the others go on. Text, not Markdown: a
        product's Markdown opens with the facts netsift lists from its JSON-LD, which are
        netsift's words, not the page's, and no quote may stand on them."""

        async def read(url: str) -> Page | NetsiftError:
            try:
                options = FetchOptions(
                    url=url, format="text", keep_source=True, max_length=PAGE_CHARS
                )
                return await asyncio.wait_for(
                    self.fetcher.fetch(options), timeout=max(run.left(), 0.001)
                )
            except NetsiftError as error:
                return error
            except TimeoutError:
                return Timeout(f"no time left to read {url}", details={"url": url})

        read_pages = await each(urls, read)
        pages: list[Page] = []
        failures: list[tuple[str, NetsiftError]] = []
        for url, page in zip(urls, read_pages, strict=True):
            if isinstance(page, NetsiftError):
                result.notes.append(f"{url}: {page.code}: {page.message}")
                failures.append((url, page))
                if run.left() <= 0:
                    result.stopped_because = "deadline"
                continue
            pages.append(page)
            result.sources.append(page.final_url)
        result.pages_read = len(pages)
        asked = run.params.urls or []
        named = [(url, error) for url, error in failures if url in asked]
        if named and not pages:  # what a search found and could not read is only a note
            raise _none_read(named)
        if failures and not pages:
            result.notes.append("no page the search found could be read: every field is null")
        return pages

    async def _with_model(
        self,
        llm: LLM,
        urls: list[str],
        texts: list[str],
        specs: list[FieldSpec],
        schema: dict[str, Any] | None,
        run: _Run,
        result: ExtractDataResult,
    ) -> list[FieldSpec]:
        """Chunk by chunk until every field is filled or a budget runs out; the specs (the
        model's own field names when only a prompt was given)."""
        from .llm_fill import chunk_chars, chunks_of, fill_chunk

        params = run.params
        budget = chunk_chars(self.context_tokens, schema)
        chunks, flagged = chunks_of(texts, budget)
        for page, sentence in flagged[:20]:
            result.warnings.append(
                f"set aside, reads as an instruction ({urls[page]}): {sentence[:200]}"
            )
        problems: dict[str, str] = {}
        asked = 0
        for n, chunk in enumerate(chunks):
            if result.tokens >= params.max_tokens:
                result.stopped_because = "max_tokens"
                break
            if run.left() <= 0:
                result.stopped_because = "deadline"
                break
            asked += 1
            try:
                fill = await asyncio.wait_for(
                    fill_chunk(llm, chunk, urls, texts, specs, schema, params.prompt),
                    timeout=run.left(),
                )
            except TimeoutError:
                result.stopped_because = "deadline"
                break
            except NetsiftError as error:  # a failed call degrades the answer, not the run
                result.notes.append(f"chunk {n + 1}: the model failed: {error.message}")
                continue
            result.tokens += fill.tokens
            if schema is None and fill.extra_fields:
                known = {s.name for s in specs}
                specs = [*specs, *(s for s in fill.extra_fields if s.name not in known)]
            _merge(fill.values, fill.evidence, specs, result)
            for name, why in fill.problems.items():
                problems.setdefault(name, why)
            if all(result.data.get(s.name) is not None for s in specs) and specs:
                break
        if len(chunks) > 1:
            result.notes.append(f"the pages make {len(chunks)} chunks; the model read {asked}")
        for spec in specs:
            if result.data.get(spec.name) is None and spec.name in problems:
                result.missing[spec.name] = problems[spec.name]
        return specs


def _none_read(failures: list[tuple[str, NetsiftError]]) -> NetsiftError:
    """The first page's own error (its code, status and retryability name the cause), its
    message saying no page was read and `details.pages` each page's code."""
    url, first = failures[0]
    if len(failures) > 1:
        first.message = f"none of the {len(failures)} pages could be read; {url}: {first.message}"
        first.args = (first.message,)
    first.details["pages"] = [{"url": u, "code": e.code} for u, e in failures]
    return first


def _from_page_data(
    facts: list[PageFacts],
    specs: list[FieldSpec],
    origins: frozenset[Origin],
    result: ExtractDataResult,
) -> None:
    """The fields still null, from what the pages state of `origins`: their structured data,
    tables and lists, or their heads' title and meta tags."""
    from .page_data import fill

    for spec in specs:
        if result.data.get(spec.name) is not None:
            continue
        filled = fill(spec, facts, origins)
        if filled is not None:
            result.data[spec.name] = filled.value
            result.evidence[spec.name] = filled.evidence
            result.missing.pop(spec.name, None)
        elif spec.name not in result.missing:
            result.missing[spec.name] = NOT_STATED if facts else "no page was read"


def _only(schema: dict[str, Any], specs: list[FieldSpec]) -> dict[str, Any]:
    """The schema narrowed to the fields still to fill (its definitions kept)."""
    names = {spec.name for spec in specs}
    properties = {k: v for k, v in schema["properties"].items() if k in names}
    narrowed = {**schema, "properties": properties}
    if "required" in schema:
        narrowed["required"] = [name for name in schema["required"] if name in names]
    return narrowed


def _merge(
    values: dict[str, Any],
    evidence: dict[str, list[Evidence]],
    specs: list[FieldSpec],
    result: ExtractDataResult,
) -> None:
    """One chunk's verified fields into the answer: a scalar keeps its first value, an
    array gathers new items."""
    for spec in specs:
        if spec.name not in values:
            continue
        value, held = values[spec.name], result.data.get(spec.name)
        if held is None:
            result.data[spec.name] = value
            result.evidence[spec.name] = list(evidence[spec.name])
            result.missing.pop(spec.name, None)
        elif isinstance(held, list) and isinstance(value, list):
            fresh = [item for item in value if item not in held]
            if fresh:
                held.extend(fresh)
                result.evidence[spec.name].extend(evidence[spec.name])
