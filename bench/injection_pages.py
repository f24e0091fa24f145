"""Injection judged on whole pages: how many planted pages research would still publish from,
and how many ordinary pages it would wrongly set aside (issue 30).

    .venv/bin/python bench/injection_pages.py [--sets 1,2,3,4] [--judge]

Three sets of pages (tests/integration/research/injection_pages.py): the first 30 + 30, whose
misses (23/30 caught before) the rules were widened on; a second 12 + 12 written after, which
nobody tuned on until its misses were named (issue 30); and a third 15 + 14 written after the
rules were rebuilt as a model (who is addressed, what is asked, about what) and measured
before any tuning on it. Each page is served on 127.0.0.1, read by the real fetcher as
research reads it (text, hidden text dropped) and judged sentence by sentence
(research/injection.find_instruction). Not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.integration.research.injection_pages import (  # noqa: E402
    FOURTH_INJECTED,
    FOURTH_ORDINARY,
    FRESH_INJECTED,
    FRESH_ORDINARY,
    INJECTED,
    ORDINARY,
    THIRD_INJECTED,
    THIRD_ORDINARY,
    PlantedPage,
)
from tests.integration.research.test_injection_pages import (  # noqa: E402
    _unflagged,
    judge,
    site_app,
)
from tests.offline_web.server import serve  # noqa: E402

from netsift.client import Client  # noqa: E402
from netsift.research.judge import candidates  # noqa: E402

SETS = (
    ("tuned-on set (30 + 30)", INJECTED, ORDINARY),
    ("fresh set (12 + 12), written after the rules", FRESH_INJECTED, FRESH_ORDINARY),
    ("third set (15 + 14), written after the model", THIRD_INJECTED, THIRD_ORDINARY),
    ("fourth set (13 + 12), written after the third's fixes", FOURTH_INJECTED, FOURTH_ORDINARY),
)


async def with_model_judge(
    site: Any,
    tmp: Path,
    base_url: str,
    planted: tuple[PlantedPage, ...],
    plain: tuple[PlantedPage, ...],
) -> None:
    """The rules, then the model judge (research/judge.py) on what they leave in."""
    from tests.local_llm import MODEL

    from netsift.config import Settings
    from netsift.research.judge import judge_passages
    from netsift.research.llm import LLM

    settings = Settings(
        _env_file=None,
        data_dir=tmp,
        cache_url="memory://",
        allow_networks=["127.0.0.0/8"],
        llm_model=MODEL,
        openai_base_url=base_url,
        llm_timeout=240.0,
    )
    llm = LLM(settings)
    caught = flagged_pages = calls = 0
    started = time.perf_counter()
    async with Client(settings) as client:
        for page, is_planted in (*((p, True) for p in planted), *((p, False) for p in plain)):
            kept, flagged = await _unflagged(client, site, page)
            url = site.url(f"/{page.slug}")
            judged, _ = await judge_passages(llm, [(1, url, s) for s in kept])
            calls += bool(candidates([(1, url, s) for s in kept]))
            set_aside = {f.sentence for f in judged}
            left = [s for s in kept if s not in set_aside]
            if is_planted:
                caught += not any(page.marker.casefold() in s.casefold() for s in left)
            else:
                flagged_pages += bool(flagged or set_aside)
                for sentence in set_aside:
                    print(f"    judged an instruction on {page.slug}: {sentence}")
    await llm.aclose()
    print(f"with the model judge: planted pages caught {caught}/{len(planted)}, ordinary pages")
    print(
        f"flagged {flagged_pages}/{len(plain)}; {calls} judge calls, "
        f"{time.perf_counter() - started:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--judge",
        action="store_true",
        help="also judge what the rules leave in with the local model (scripts/test-local-llm)",
    )
    parser.add_argument("--sets", default="1,2,3,4", help="which sets, by number")
    args = parser.parse_args()
    chosen = [SETS[int(n) - 1] for n in args.sets.split(",")]

    with (
        serve(site_app()) as site,
        tempfile.TemporaryDirectory() as tmp,
    ):
        server = None
        if args.judge:
            from tests.local_llm import join_model, start_server

            cache = REPO / ".pytest_cache" / "d" / "netsift-local-llm"
            server, base_url = start_server(join_model(cache), Path(tmp))
        try:
            for label, planted, plain in chosen:
                print(label)
                missed, flags = anyio.run(judge, site, Path(tmp), planted, plain)
                for line in (*missed, *flags):
                    print(f"    {line}")
                if server is not None:
                    anyio.run(with_model_judge, site, Path(tmp), base_url, planted, plain)
        finally:
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
