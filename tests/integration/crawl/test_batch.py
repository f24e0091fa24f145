"""The batch fetch job (crawl/batch.py) against the generated site: every URL read once, its
page or its error kept like a crawl's results, an error page kept when asked, and a resumed
batch reading only what the earlier attempt left."""

from __future__ import annotations

from typing import Any

from netsift.client import Client
from netsift.crawl.batch import BatchProgress, batch_kind
from netsift.models import EventType
from netsift.params import BatchFetchParams
from tests.integration.crawl.conftest import GeneratedSite


async def test_a_batch_reads_each_url_once_and_keeps_every_answer(
    crawl_client: Client, site: GeneratedSite
) -> None:
    urls = [site.url("/docs/1"), site.url("/docs/2"), site.url("/docs/1"), site.url("/missing")]
    refused = f"http://www.{site.spec.host}:{site.port}/"  # a private address: the guard refuses
    params = BatchFetchParams(urls=[*urls, refused])
    job = await crawl_client.wait_job((await crawl_client.start_batch_fetch(params)).id)
    assert job.status == "done" and job.result is not None
    assert (job.result["pages_read"], job.result["failed"]) == (2 + 1, 2)
    pages = [page for _, _, page in await crawl_client.crawl_pages(job.id)]
    assert sorted(page.url for page in pages) == sorted(urls[:3])  # a URL asked twice: twice
    skipped = {skip.url: skip.code for skip in await crawl_client.crawl_skipped(job.id)}
    assert skipped[site.url("/missing")] == "http_error"
    assert skipped[refused] == "blocked_address"
    assert await crawl_client.batch_progress(job.id) == BatchProgress(read=3, failed=2)
    events = [event.type for event in await crawl_client.job_events(job.id)]
    assert events.count("page") == 3 and events.count("skipped") == 2 and events[-1] == "done"


async def test_a_batch_keeps_error_pages_when_asked(
    crawl_client: Client, site: GeneratedSite
) -> None:
    params = BatchFetchParams(urls=[site.url("/missing")], error_pages=True, keep_source=True)
    job = await crawl_client.wait_job((await crawl_client.start_batch_fetch(params)).id)
    [(_, depth, page)] = await crawl_client.crawl_pages(job.id)
    assert depth == 0 and page.status == 404 and page.source
    assert await crawl_client.crawl_skipped(job.id) == []


async def test_a_resumed_batch_reads_only_the_urls_left_without_a_result(
    crawl_client: Client, site: GeneratedSite
) -> None:
    urls = [site.url(f"/docs/{n}") for n in range(1, 5)]
    params = BatchFetchParams(urls=urls)
    kind = batch_kind(lambda: crawl_client.fetcher, lambda: crawl_client.frontier)
    job = await crawl_client.job_store.create(kind.name, params.model_dump(mode="json"))
    frontier = crawl_client.frontier
    # The earlier attempt recorded the second URL as read and the fourth as failed.
    await frontier.start(job.id, max_pages=4, max_bytes=0, deadline=0.0)
    earlier = await crawl_client.fetch(urls[1])
    page = {"depth": 0, "index": 1, "page": earlier.model_dump(mode="json")}
    await frontier.record(job.id, "page", urls[1], page)
    failed = {"url": urls[3], "code": "timeout", "message": "too slow", "index": 3}
    await frontier.record(job.id, "skipped", urls[3], failed)
    site.state.reset()
    emitted: list[tuple[EventType, dict[str, Any]]] = []
    saved: list[dict[str, Any]] = []

    async def emit(type: EventType, data: dict[str, Any]) -> None:
        emitted.append((type, data))

    async def save(checkpoint: dict[str, Any]) -> None:
        saved.append(checkpoint)

    context = kind.context(
        job, saved={"read": 1, "failed": 1}, emit=emit, save=save, store=crawl_client.job_store
    )
    outcome = await kind.run(context)
    assert (outcome.result.pages_read, outcome.result.failed) == (3, 1)
    read = {path: site.state.hits(site.spec.host, path) for path in ("/docs/1", "/docs/2")}
    assert read == {"/docs/1": 1, "/docs/2": 0}  # the second URL was not read again
    assert site.state.hits(site.spec.host, "/docs/4") == 0
    assert [type for type, _ in emitted] == ["page", "page"]
    assert saved[-1] == {"read": 3, "failed": 1}
    kept = sorted(page.url for _, _, page in await crawl_client.crawl_pages(job.id))
    assert kept == sorted([urls[0], urls[1], urls[2]])
