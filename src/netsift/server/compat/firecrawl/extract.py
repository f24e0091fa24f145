"""Firecrawl's structured formats over netsift's extract_data and summaries: scrape's `json`
(v1 also `extract`) and `summary` formats, and `/v1/extract`, `/v2/extract` (docs/structured.md).

A scrape asking for `json` gets `json` (the data, the schema's fields) and `jsonEvidence`
(each field's quotes and URLs, and `missing`: why a field is null), which Firecrawl's clients
ignore and a caller may read; `summary` gets the summary, its sentences marked `[n]`, and
`summaryCitations`. `/extract` answers at once, `status: completed`, with an `id` the result
is kept under for a while (v1's client polls `GET /v1/extract/{id}` before it reads anything).
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import Request
from pydantic import BaseModel, ConfigDict, Field

from ....errors import InvalidInput, NotFound
from ....params import MAX_EXTRACT_URLS, MAX_QUERY_CHARS
from ....structured.model import ExtractDataResult
from ...deps import CallerDep, StateDep
from ...operations import Operations
from ...responses import ExtractDataRequest
from ..kept import KEPT_SECONDS, Kept
from ..shared import build, parse_body
from .paths import new_router
from .url import FirecrawlUrl

__all__ = [
    "STRUCTURED_FORMATS",
    "StructuredOptions",
    "check_structured",
    "router",
    "structured_fields",
]

JSON_FORMATS = frozenset({"json", "extract"})
STRUCTURED_FORMATS = JSON_FORMATS | {"summary"}

router = new_router()


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class JsonOptions(_Lenient):
    """v1's `jsonOptions` / `extract`, and v2's `{"type": "json", …}` format object."""

    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    prompt: str | None = None
    system_prompt: str | None = Field(default=None, alias="systemPrompt")


class StructuredOptions(_Lenient):
    """The scrape options the structured formats read (common.py's ScrapeOptions adds its
    own): v1 spells the schema beside `formats`."""

    json_options: JsonOptions | None = Field(default=None, alias="jsonOptions")
    extract: JsonOptions | None = None
    formats: list[str | dict[str, Any]] = ["markdown"]


def _json_options(options: StructuredOptions) -> JsonOptions | None:
    for item in options.formats:
        if isinstance(item, dict) and item.get("type") in ("json", "extract"):
            return JsonOptions.model_validate(item)
    return options.json_options or options.extract


def _prompt(asked: JsonOptions) -> str | None:
    parts = [p for p in (asked.system_prompt, asked.prompt) if p]
    return " ".join(parts)[:2000] or None


def _evidence(result: ExtractDataResult) -> dict[str, Any]:
    return {
        "evidence": {
            name: [item.model_dump(mode="json") for item in items]
            for name, items in result.evidence.items()
        },
        "missing": result.missing,
        "mode": result.mode,
    }


def _asked(options: StructuredOptions, name: str) -> JsonOptions:
    asked = _json_options(options)
    if asked is None or (asked.schema_ is None and not asked.prompt):
        raise InvalidInput(
            f"the {name} format needs a schema or a prompt (v2: "
            '{"type": "json", "schema": …}; v1: jsonOptions)',
            details={"format": name},
        )
    return asked


def check_structured(options: StructuredOptions, formats: set[str]) -> None:
    """What `structured_fields` will need, checked when a crawl or batch starts (its documents
    are read later): a json format's schema or prompt."""
    for name in formats & JSON_FORMATS:
        _asked(options, name)


async def structured_fields(
    ops: Operations, url: str, options: StructuredOptions, formats: set[str]
) -> dict[str, Any]:
    """A document's `json` (or v1 `extract`) and `summary` fields, as asked: a scrape's, and
    each page of a crawl or batch that asked for them (jobs.py)."""
    fields: dict[str, Any] = {}
    for name in sorted(formats & JSON_FORMATS):
        asked = _asked(options, name)
        request = build(
            ExtractDataRequest,
            urls=[url],
            output_schema=asked.schema_,
            prompt=_prompt(asked),
            max_pages=1,
        )
        result = await ops.extract_data(request)
        fields[name] = result.data
        fields[f"{name}Evidence"] = _evidence(result)
    if "summary" in formats:
        summary = await ops.client.summarize(url)
        fields["summary"] = summary.summary
        fields["summaryCitations"] = [c.model_dump(mode="json") for c in summary.citations]
    return fields


class Extract(_Lenient):
    urls: list[FirecrawlUrl] = Field(default_factory=list)
    prompt: str | None = None
    schema_: dict[str, Any] | None = Field(default=None, alias="schema")
    system_prompt: str | None = Field(default=None, alias="systemPrompt")
    enable_web_search: bool = Field(default=False, alias="enableWebSearch")
    allow_external_links: bool = Field(default=False, alias="allowExternalLinks")
    show_sources: bool = Field(default=False, alias="showSources")


_kept = Kept()  # each /extract answer, for the GET v1's client polls before reading it


def _request(params: Extract) -> tuple[ExtractDataRequest, list[str]]:
    """netsift's extract_data for Firecrawl's body; what it cannot honour is a warning."""
    warnings = []
    if any("*" in url for url in params.urls):
        raise InvalidInput(
            "urls: a wildcard (/*) asks for a crawl; netsift's extract reads the pages named "
            "(crawl or map the site first)",
            details={"field": "urls"},
        )
    if len(params.urls) > MAX_EXTRACT_URLS:
        raise InvalidInput(f"urls: at most {MAX_EXTRACT_URLS} pages per extract")
    prompt = " ".join(p for p in (params.system_prompt, params.prompt) if p)[:2000] or None
    query = None
    if not params.urls:
        if not params.prompt or len(params.prompt) > MAX_QUERY_CHARS:
            raise InvalidInput(
                f"urls: give the pages to read (or a prompt of at most {MAX_QUERY_CHARS} "
                "characters to search for them)"
            )
        query = params.prompt
        warnings.append("no urls: the pages were found by searching for the prompt")
    if params.allow_external_links:
        warnings.append("allowExternalLinks: netsift reads only the pages named")
    request = build(
        ExtractDataRequest,
        urls=params.urls or None,
        query=query,
        output_schema=params.schema_,
        prompt=prompt,
        max_pages=max(1, min(len(params.urls) or 5, MAX_EXTRACT_URLS)),
    )
    return request, warnings


async def _extract(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    params = parse_body(Extract, await request.body())
    extract, warnings = _request(params)
    result = await Operations(state, caller).extract_data(extract)
    answer: dict[str, Any] = {
        "success": True,
        "id": uuid.uuid4().hex,
        "status": "completed",
        "data": result.data,
        "evidence": _evidence(result)["evidence"],
        "missing": result.missing,
        "tokensUsed": result.tokens,
        "creditsUsed": result.pages_read,
        "expiresAt": None,
    }
    if params.show_sources:
        answer["sources"] = {
            name: sorted({item.url for item in items}) for name, items in result.evidence.items()
        }
    notes = warnings + result.notes
    if notes:
        answer["warning"] = "; ".join(notes)
    _kept.keep(answer["id"], {"owner": caller.key, "answer": answer})
    return answer


@router.post("/v2/extract", summary="Firecrawl v2 extract: a schema's fields, with evidence")
async def extract_v2(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _extract(request, state, caller)


@router.post("/v1/extract", summary="Firecrawl v1 extract: a schema's fields, with evidence")
async def extract_v1(request: Request, state: StateDep, caller: CallerDep) -> dict[str, Any]:
    return await _extract(request, state, caller)


@router.get("/v2/extract/{extract_id}", summary="Firecrawl extract status")
@router.get("/v1/extract/{extract_id}", summary="Firecrawl extract status")
async def extract_status(extract_id: str, caller: CallerDep) -> dict[str, Any]:
    """The answer of an extract this caller (its key) asked for."""
    kept = _kept.get(extract_id)
    if kept is None or kept["owner"] != caller.key:
        raise NotFound(
            f"no extract {extract_id} here: netsift answers an extract at once and keeps it "
            f"{KEPT_SECONDS / 60:.0f} minutes in the process that answered it"
        )
    answer: dict[str, Any] = kept["answer"]
    return answer
