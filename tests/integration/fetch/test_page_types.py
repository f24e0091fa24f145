"""Page types over real HTTP: each kind of page fetched from the offline web reads its own way."""

from __future__ import annotations

from netsift.client import Client
from tests.offline_web.fixtures import OfflineWeb


async def test_forum_thread_reads_as_posts(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("forum.test", "/thread"))
    assert page.page_type == "forum"
    md = page.content
    assert "### marta · June 2, 2024" in md and "### oskar · June 2, 2024" in md
    assert "### lin · June 3, 2024" in md
    assert md.index("split open") < md.index("uneven water") < md.index("Picking them")
    assert "Suggested topics" not in md and "Log In" not in md and "Powered by" not in md


async def test_product_page_has_facts(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("shop.test", "/product"))
    assert page.page_type == "product"
    md = page.content
    assert "- **Price:** 129.00 USD" in md and "- **Availability:** InStock" in md
    assert "- **Brand:** Summit" in md and "- **SKU:** TR3-BLK-42" in md
    assert "rock plate protects your feet" in md
    assert "| Weight | 280 g |" in md
    assert "You may also like" not in md and "Get 10% off" not in md


async def test_pricing_page_keeps_plans(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("pricing.test", "/plans"))
    assert page.page_type == "service"
    md = page.content
    for plan, price in (("Starter", "$12"), ("Team", "$39"), ("Business", "$89")):
        assert f"## {plan}" in md and f"{price} per month" in md
    assert "- Payroll for up to ten people" in md
    assert "Status." not in md and "Sign in" not in md


async def test_listing_keeps_items(web_client: Client, offline_web: OfflineWeb) -> None:
    url = offline_web.url("listing.test", "/category")
    page = await web_client.fetch(url)
    assert page.page_type == "listing"
    md = page.content
    link = offline_web.url("listing.test", "/2024/06/slugs")
    assert f"## [A gentler war on slugs]({link})" in md
    assert md.count("\n## [") == 6
    assert "Spring (12)" not in md and "Next page" not in md


async def test_docs_keep_code_and_tables(web_client: Client, offline_web: OfflineWeb) -> None:
    page = await web_client.fetch(offline_web.url("docs.test", "/api"))
    assert page.page_type == "documentation"
    md = page.content
    assert "```" in md and 'client = Client("https://db.example", retries=3)' in md
    assert "| retries | int | 0 |" in md
    assert "## Parameters" in md and "pool is expensive to build" in md
    assert "Changelog" not in md
