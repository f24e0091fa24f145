"""Research benchmark: one deep research run end to end, with a scripted model and without one.

    .venv/bin/python bench/research.py [--search-latency 0.3] [--page-latency 0.1]
                                       [--max-searches 100] [--llm-latency 0.0]

Serves, in this process on 127.0.0.1, the research web of the tests (a SearXNG-format engine
answering after `--search-latency` seconds, and its pages after `--page-latency`) and the
scripted OpenAI-compatible model (whose gap reviews keep asking for more, so every round runs).
The real Client drives it through the real HttpClient, guard on, loopback allowed. It prints
wall time, searches, pages, tokens, model time, and the share of published citations whose
quote occurs in a fresh fetch of the page they cite; then the same question in extractive mode.
The default is the deep research the host netsift serves asks for: 100 searches in 5 rounds at
300 ms a search, its shape set by the budget (20 queries a round). Goals: under 10 s plus the
model's time (the host's own target is under 60 s), and 100 % of citations verified. Not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import anyio
import openai  # noqa: F401  (imported once by a serving host; 3 s of a cold run's wall time)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.research.web import DOCS, QUESTION, Doc, WebState, build_app  # noqa: E402
from tests.offline_web.llm import MODEL, LLMState, create_app  # noqa: E402
from tests.offline_web.server import serve  # noqa: E402

from netsift.client import Client  # noqa: E402
from netsift.config import Settings  # noqa: E402
from netsift.models import ResearchReport  # noqa: E402
from netsift.params import MAX_BREADTH, MAX_ITERATIONS  # noqa: E402
from netsift.research.citations import quote_occurs  # noqa: E402


def corpus(topics: int) -> tuple[Doc, ...]:
    """The tests' pages plus `topics` more, one fact each, on their own hosts: enough new
    pages that every round of a deep run finds something (no "no new information" stop)."""
    extra = tuple(
        Doc(
            f"topic{n}.test",
            f"/webb-topic-{n}",
            f"Webb telescope topic{n} notes",
            (
                f"The Webb telescope topic{n} study measured {n * 7 + 3} samples in 2024.",
                f"Researchers of topic{n} published their Webb results in a journal.",
            ),
        )
        for n in range(topics)
    )
    return DOCS + extra


def gap_rounds(rounds: int, per_round: int) -> list[list[str]]:
    """Distinct follow-up queries for every gap review, each finding its own new page."""
    return [[f"webb topic{r * per_round + i}" for i in range(per_round)] for r in range(rounds)]


async def verified_share(client: Client, report: ResearchReport) -> tuple[int, int]:
    """(verified, published): each quote checked against a fresh fetch of the page it cites."""
    good = 0
    for citation in report.citations:
        page = await client.fetch(citation.url, format="text", no_cache=True)
        good += quote_occurs(citation.quote, page.content)
    return good, len(report.citations)


def model_seconds(state: LLMState, latency: float) -> float:
    return len(state.requests) * latency


async def run(settings: Settings, **options: Any) -> tuple[ResearchReport, float, tuple[int, int]]:
    async with Client(settings) as client:
        started = time.perf_counter()
        report = await client.research(QUESTION, **options)
        wall = time.perf_counter() - started
        share = await verified_share(client, report)
    return report, wall, share


def show(
    label: str, report: ResearchReport, wall: float, share: tuple[int, int], llm_s: float
) -> None:
    good, total = share
    percent = 100.0 * good / total if total else 0.0
    print(f"{label}")
    print(f"  wall time          {wall:6.2f} s   (model time {llm_s:.2f} s; goal < 10 s + model)")
    print(f"  rounds             {report.iterations}   stopped: {report.stopped_because}")
    print(f"  searches           {report.searches}   ({report.searches / wall:.1f} a second)")
    print(f"  pages read         {report.pages_read}")
    print(f"  tokens             {report.tokens}")
    print(f"  citations verified {good}/{total} ({percent:.0f} %; goal 100 %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search-latency", type=float, default=0.3)
    parser.add_argument("--page-latency", type=float, default=0.1)
    parser.add_argument("--llm-latency", type=float, default=0.0)
    parser.add_argument("--max-searches", type=int, default=100)
    args = parser.parse_args()
    web_state, llm_state = WebState(), LLMState()
    # One page of its own for every query a run may make, so every round finds something new.
    docs = corpus(args.max_searches)
    with (
        serve(build_app(web_state, docs)) as web,
        serve(create_app(llm_state)) as llm,
        TemporaryDirectory() as tmp,
    ):
        base: dict[str, Any] = {
            "resolve": [f"{host}:127.0.0.1" for host in {"search.test", *(d.host for d in docs)}],
            # searxng declares 5/s for a public instance; this one is ours.
            "provider_rate_limits": ["searxng=100/second"],
            "allow_networks": ["127.0.0.0/8"],
            "providers": ["searxng"],
            "searxng_url": f"http://search.test:{web.port}",
            "data_dir": Path(tmp),
            "cache_url": "memory://",
            "jobs_url": "memory://",
        }
        options = {
            "depth": "deep",
            "max_iterations": MAX_ITERATIONS,
            "max_searches": args.max_searches,
            "max_pages": 60,
            "max_tokens": 2_000_000,
            "deadline": 120,
        }
        web_state.search_latency, web_state.page_latency = args.search_latency, args.page_latency
        llm_state.latency = args.llm_latency
        llm_state.gaps.extend(gap_rounds(MAX_ITERATIONS - 1, MAX_BREADTH))
        print(
            f"research web: {args.search_latency * 1000:.0f} ms a search, "
            f"{args.page_latency * 1000:.0f} ms a page; max_searches={args.max_searches} over "
            f"{MAX_ITERATIONS} rounds (the budget sets the queries a round)\n"
        )
        settings = Settings(
            **base, llm_model=MODEL, openai_base_url=f"http://127.0.0.1:{llm.port}/v1"
        )
        report, wall, share = anyio.run(lambda: run(settings, **options))
        show(
            "with the scripted model",
            report,
            wall,
            share,
            model_seconds(llm_state, args.llm_latency),
        )
        web_state.reset()
        web_state.search_latency, web_state.page_latency = args.search_latency, args.page_latency
        report, wall, share = anyio.run(lambda: run(Settings(**base), **options))
        show("\nextractive (no model)", report, wall, share, 0.0)


if __name__ == "__main__":
    main()
