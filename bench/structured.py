"""Structured extraction quality: extract_data on 31 pages written for it, scored per field.

    python bench/structured.py                 # without a model, then with the local model
    python bench/structured.py --mode extractive
    python bench/structured.py --mode llm --kind product --verbose

The pages (bench/structured_pages.py: products, articles, events, people, job posts, tables)
are served on pinned `.test` hosts through netsift's real fetch path; each case's schema is
filled by `Client.extract_data` and every field is compared with the value written by hand
(strings by their words, numbers by value, arrays item by item; a field the page does not
state must come back null). Printed per page type and overall:

- field accuracy: fields right (a filled value equal to the expected one, or null where the
  page states nothing) of all fields;
- precision: filled fields that are right, of the fields filled;
- recall: stated fields filled right, of the fields the page states;
- evidence precision: filled fields whose every quote occurs verbatim in the page as served
  and states the value (checked here, apart from netsift's own check).

The model is the opt-in test tier's (Qwen2.5-Coder-0.5B behind llama.cpp's server,
tests/local_llm.py; `scripts/test-local-llm` installs it); without it the llm run says so.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.offline_web.server import serve  # noqa: E402

from bench.structured_pages import CASES, Case  # noqa: E402
from netsift.client import Client  # noqa: E402
from netsift.config import Settings  # noqa: E402
from netsift.structured.model import ExtractDataResult  # noqa: E402

_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]+>")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
WIDTHS = (18, 16, 16, 20)  # the table's columns
NUMBER_TOLERANCE = 0.005  # a price of 149.99 read as 149.99000001 is the same price


def _app() -> Starlette:
    pages = {(case.host, case.path): case.html for case in CASES}

    async def route(request: Request) -> Response:
        host = (request.headers.get("host") or "").rsplit(":", 1)[0]
        if request.url.path == "/robots.txt":
            return PlainTextResponse("User-agent: *\nDisallow:\n")
        page = pages.get((host, request.url.path))
        return HTMLResponse(page) if page else PlainTextResponse("not found", status_code=404)

    return Starlette(routes=[Route("/{path:path}", route)])


def _words(value: Any) -> str:
    return _SPACE.sub(" ", html.unescape(str(value))).strip(" .").casefold()


def same(expected: Any, got: Any) -> bool:
    """Whether `got` is the hand-written value: numbers by value, strings by their words."""
    if expected is None or got is None:
        return expected is None and got is None
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected is got
    if isinstance(expected, int | float):
        return isinstance(got, int | float) and abs(float(got) - expected) <= NUMBER_TOLERANCE
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(got) == len(expected)
            and all(same(e, g) for e, g in zip(expected, got, strict=True))
        )
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(same(v, got.get(k)) for k, v in expected.items())
    return isinstance(got, str) and _words(expected) == _words(got)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [] if value is None else [value]


def evidence_holds(value: Any, quotes: list[str], page_html: str) -> bool:
    """Every quote is on the page as served (its markup or its text), and together they
    state the value: each string of it among their words, each number among their numbers."""
    raw = _words(page_html)
    text = _words(_TAG.sub(" ", page_html))
    # a table row's quote is its cells, each as the page has it
    parts = [part for q in quotes for part in q.split(" | ")]
    if not parts or not all(_words(p) in raw or _words(p) in text for p in parts):
        return False
    joined = " ".join(quotes)
    numbers = {float(n.replace(",", "")) for n in _NUMBER.findall(joined)}
    for leaf in _leaves(value):
        if isinstance(leaf, bool):
            continue
        if isinstance(leaf, int | float):
            if not any(abs(leaf - n) <= NUMBER_TOLERANCE for n in numbers):
                return False
        elif _words(leaf) not in _words(joined):
            return False
    return True


@dataclass
class Tally:
    fields: int = 0
    right: int = 0
    filled: int = 0
    filled_right: int = 0
    stated: int = 0
    stated_right: int = 0
    evidence_ok: int = 0
    seconds: float = 0.0
    pages: int = 0
    wrong: list[str] = field(default_factory=list)

    def add(self, case: Case, result: ExtractDataResult, seconds: float) -> None:
        self.pages += 1
        self.seconds += seconds
        for name, expected in case.expected.items():
            got = result.data.get(name)
            ok = same(expected, got)
            self.fields += 1
            self.right += ok
            if expected is not None:
                self.stated += 1
                self.stated_right += ok and got is not None
            if got is not None:
                self.filled += 1
                self.filled_right += ok
                quotes = [e.quote for e in result.evidence.get(name, [])]
                self.evidence_ok += evidence_holds(got, quotes, case.html)
            if not ok:
                why = result.missing.get(name, "")
                self.wrong.append(
                    f"{case.host}{case.path} {name}: {got!r} (expected {expected!r}) {why}"
                )

    def merge(self, other: Tally) -> None:
        for name in ("fields", "right", "filled", "filled_right", "stated", "stated_right"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.evidence_ok += other.evidence_ok
        self.seconds += other.seconds
        self.pages += other.pages
        self.wrong += other.wrong


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100.0 * part / whole:.0f} %)" if whole else "0/0"


def show(title: str, tallies: dict[str, Tally], verbose: bool) -> None:
    print(f"\n== {title}")
    heads = ("field accuracy", "precision", "recall", "evidence precision")
    print(
        f"{'type':<10} {'pages':>5} "
        + " ".join(f"{h:>{w}}" for h, w in zip(heads, WIDTHS, strict=True))
    )
    total = Tally()
    for kind, tally in tallies.items():
        total.merge(tally)
        _row(kind, tally)
    _row("all", total)
    print(f"wall time {total.seconds:.1f} s for {total.pages} pages")
    if verbose:
        for line in total.wrong:
            print("  wrong:", line)


def _row(kind: str, t: Tally) -> None:
    cells = (
        _share(t.right, t.fields),
        _share(t.filled_right, t.filled),
        _share(t.stated_right, t.stated),
        _share(t.evidence_ok, t.filled),
    )
    print(
        f"{kind:<10} {t.pages:>5} "
        + " ".join(f"{c:>{w}}" for c, w in zip(cells, WIDTHS, strict=True))
    )


async def run(settings: Settings, cases: list[Case], port: int, progress: bool) -> dict[str, Tally]:
    tallies: dict[str, Tally] = {}
    async with Client(settings) as client:
        for case in cases:
            url = f"http://{case.host}:{port}{case.path}"
            started = time.monotonic()
            result = await client.extract_data([url], output_schema=case.schema, deadline=600)
            page = Tally()
            page.add(case, result, time.monotonic() - started)
            tallies.setdefault(case.kind, Tally()).merge(page)
            if progress:  # a slow model's run shows as it goes
                print(
                    f"  {case.kind} {case.host}{case.path}: {page.right}/{page.fields} right, "
                    f"evidence {page.evidence_ok}/{page.filled}, {page.seconds:.0f} s, "
                    f"{result.stopped_because}",
                    flush=True,
                )
    return tallies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("extractive", "llm", "both"), default="both")
    parser.add_argument("--kind", default="", help="only pages of these types (a,b)")
    parser.add_argument("--verbose", action="store_true", help="print every field that is wrong")
    args = parser.parse_args()
    kinds = set(args.kind.split(",")) if args.kind else {c.kind for c in CASES}
    cases = [case for case in CASES if case.kind in kinds]
    print(f"{len(cases)} pages, {sum(len(c.expected) for c in cases)} fields")
    with serve(_app()) as web, TemporaryDirectory() as tmp:
        base: dict[str, Any] = {
            "resolve": [f"{h}:127.0.0.1" for h in {c.host for c in CASES}],
            "allow_networks": ["127.0.0.0/8"],
            "data_dir": Path(tmp),
            "cache_url": "memory://",
            "jobs_url": "memory://",
        }
        if args.mode in ("extractive", "both"):
            tallies = anyio.run(run, Settings(**base), cases, web.port, args.verbose)
            show(
                "without a model (structured data, tables, definition lists)", tallies, args.verbose
            )
        if args.mode in ("llm", "both"):
            _with_model(base, cases, web.port, Path(tmp), args.verbose)


def _with_model(
    base: dict[str, Any], cases: list[Case], port: int, tmp: Path, verbose: bool
) -> None:
    from tests.local_llm import CONTEXT, MODEL, join_model, missing_packages, start_server

    if missing := missing_packages():
        print(
            f"\n== with the local model: NOT RUN: the local model is not installed "
            f"({', '.join(missing)} missing); run scripts/test-local-llm once"
        )
        return
    cache = REPO / ".pytest_cache" / "d" / "netsift-local-llm"
    server, base_url = start_server(join_model(cache), tmp)
    try:
        settings = Settings(
            **base,
            llm_model=MODEL,
            openai_base_url=base_url,
            llm_timeout=240.0,
            llm_context_tokens=CONTEXT,
        )
        tallies = anyio.run(run, settings, cases, port, True)
        show(f"with the local model ({MODEL}, llama.cpp), then structured data", tallies, verbose)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
