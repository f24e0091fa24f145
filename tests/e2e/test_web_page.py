"""The web page at `/`, driven in a real headless Chromium against `netsift serve` on the
offline web (tests/e2e/web_page.py): the key, search, the reader, research with citations,
crawl, discoveries and sleeps, the honest error states, and the Content-Security-Policy."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.e2e.fleet import until
from tests.e2e.web_page import LONG_LAST_SENTENCE, Bench, bench, chromium_path
from tests.integration.research.web import QUESTION

pytest.importorskip("playwright")
from playwright.sync_api import Browser, Page, expect, sync_playwright

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_path() is None, reason="no Chromium (apt-get install chromium)"),
]

WAIT_MS = 20_000  # the longest any step here waits: a busy 2-core machine, a research run
expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="module")
def stack() -> Iterator[Bench]:
    with bench() as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path())
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, stack: Bench) -> Iterator[Page]:
    """A fresh tab that already holds the key (as the auth form stores it), its errors kept."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    context.add_init_script(f"sessionStorage.setItem('netsift-key', {json.dumps(stack.key)})")
    yield tab
    context.close()
    assert not errors, errors


CONTROLS = re.compile(
    r"^\s*- (button|link|textbox|searchbox|combobox|checkbox|spinbutton|radio)\s*(:|$)", re.M
)


def assert_every_control_is_named(page: Page) -> None:
    """No control on screen without an accessible name (the browser's own computation)."""
    unnamed = CONTROLS.findall(page.locator("body").aria_snapshot())
    assert not unnamed, unnamed


def visit(page: Page, stack: Bench, **query: str) -> None:
    page.goto(stack.url + "/?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items()))


def test_a_server_with_keys_asks_for_one_and_keeps_it_for_the_tab(
    browser: Browser, stack: Bench
) -> None:
    context = browser.new_context()
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    tab.goto(stack.url + "/")
    panel = tab.get_by_role("region", name="Authentication required")
    expect(panel).to_be_visible()
    expect(tab.get_by_label("API key")).to_be_focused()
    tab.get_by_label("API key").fill("not-the-key")
    tab.get_by_role("button", name="Use this key").click()
    expect(panel.get_by_role("status")).to_contain_text("unauthorized")
    tab.get_by_label("API key").fill(stack.key)
    tab.get_by_role("button", name="Use this key").click()
    expect(panel).to_be_hidden()
    assert tab.evaluate("sessionStorage.getItem('netsift-key')") == stack.key
    assert tab.evaluate("localStorage.length") == 0  # never kept beyond the tab
    tab.reload()
    expect(tab.get_by_role("searchbox", name="Search the web")).to_be_visible()
    expect(panel).to_be_hidden()
    context.close()


def test_search_shows_cards_the_attempts_and_keeps_the_query_in_the_address(
    page: Page, stack: Bench
) -> None:
    # the tour's tavily answers 500: the attempts show it failing over to brave
    visit(page, stack, view="search", q="rust async runtime", providers="tavily,brave", time="m")
    box = page.get_by_role("searchbox", name="Search the web")
    expect(box).to_have_value("rust async runtime")
    expect(page.get_by_role("checkbox", name="tavily", exact=True)).to_be_checked()
    expect(page.get_by_label("Time range")).to_have_value("m")
    results = page.get_by_role("list", name="Results").locator("> li")
    expect(results.first).to_be_visible()
    first = results.first
    expect(first.get_by_role("heading")).to_contain_text("Rust async runtime")
    expect(first).to_contain_text("found by")
    expect(first.locator(".chip").first).to_have_text("brave")
    attempts = page.locator("#attempts li")
    expect(attempts.nth(0)).to_contain_text("tavily failed")
    expect(attempts.nth(0)).to_contain_text("provider_unavailable")
    expect(attempts.nth(1)).to_contain_text("brave")
    assert_every_control_is_named(page)
    # keys: j moves to the first card, r opens its reader
    page.locator("body").press("j")
    expect(first).to_be_focused()
    page.keyboard.press("j")
    expect(results.nth(1)).to_be_focused()
    page.keyboard.press("/")
    expect(box).to_be_focused()
    # a search made in the form is in the address, and reloading it gives the same search
    page.get_by_role("checkbox", name="brave", exact=True).uncheck()
    page.get_by_role("checkbox", name="tavily", exact=True).uncheck()
    page.get_by_role("checkbox", name="duckduckgo", exact=True).check()
    page.get_by_role("checkbox", name="brave", exact=True).check()  # ticked second: asked second
    box.fill("tokio tutorial")
    box.press("Enter")
    expect(results.first.get_by_role("heading")).to_contain_text("okio")
    expect(page.locator("#attempts li").first).to_contain_text("duckduckgo")
    assert "q=tokio+tutorial" in page.url and "providers=duckduckgo%2Cbrave" in page.url
    assert "time=m" in page.url
    page.reload()
    expect(results.first.get_by_role("heading")).to_contain_text("okio")
    expect(page.get_by_role("checkbox", name="brave", exact=True)).to_be_checked()
    expect(page.get_by_label("Time range")).to_have_value("m")
    results.first.get_by_role("link", name="Read").click()
    expect(page.locator("#page-card h1")).to_be_visible()
    assert "view=read" in page.url


def test_the_reader_renders_markdown_shows_the_card_and_continues_a_long_page(
    page: Page, stack: Bench
) -> None:
    visit(page, stack, view="read", url=f"{stack.site}/long")
    card = page.locator("#page-card")
    expect(card.get_by_role("heading", level=1)).to_have_text("The Harbour Almanac")
    expect(card).to_contain_text("Reader Test Gazette")
    expect(card).to_contain_text("Mara Quill")
    expect(card.locator(".chip").first).not_to_be_empty()  # the page type
    expect(card).not_to_contain_text("null")
    # its preview image and favicon, relayed by /v1/image (the CSP allows this server only)
    preview = card.get_by_role("img", name="Preview of The Harbour Almanac")
    expect(preview).to_be_visible()
    assert (preview.get_attribute("src") or "").startswith("blob:")
    assert preview.evaluate("img => img.naturalWidth") == 240
    expect(card.locator("img.favicon")).to_be_visible()
    content = page.locator("#page-content")
    expect(content.get_by_role("heading", name="Chapter 1: the tides of year 1")).to_be_visible()
    expect(content.locator("table td").first).to_have_text("March")
    expect(content.locator("pre code")).to_contain_text("high = max(readings)")
    expect(content.locator("strong").first).to_have_text("almanac")
    docs_link = content.get_by_role("link", name="the docs")
    assert "view=read" in (docs_link.get_attribute("href") or "")  # links stay in the reader
    expect(content).not_to_contain_text(LONG_LAST_SENTENCE)
    more = page.get_by_role("button", name="Continue reading")
    progress = page.locator("#read-progress")
    expect(progress).to_contain_text("12,000 of")
    while more.is_visible():
        shown = progress.inner_text()
        more.click()
        expect(progress).not_to_have_text(shown)
        # the reader's place is kept: the focus is on the text, where the new part begins
        assert page.evaluate("document.activeElement.closest('#page-content') !== null")
    expect(content).to_contain_text(LONG_LAST_SENTENCE)
    expect(content.get_by_role("heading", name="Chapter 14: the tides of year 14")).to_be_visible()
    assert_every_control_is_named(page)
    page.get_by_role("button", name="Copy as Markdown").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("# The Harbour Almanac") or "Harbour Almanac" in copied[:200]
    assert LONG_LAST_SENTENCE in copied and "| March |" in copied


def test_a_pages_scripts_and_markup_never_run_in_the_reader(page: Page, stack: Bench) -> None:
    visit(page, stack, view="read", url=f"{stack.site}/hostile")
    content = page.locator("#page-content")
    expect(content).to_contain_text("none of it may run")
    expect(content).to_contain_text("<script>window.__pagePwned='text'</script>")
    expect(content).to_contain_text("<img src=x onerror=alert(1)>")
    assert content.locator("script, img, iframe").count() == 0
    hrefs = content.locator("a").evaluate_all("links => links.map(a => a.href)")
    assert hrefs and all(h.startswith(stack.url + "/?view=read") for h in hrefs), hrefs
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pagePwned") is None


# Run in the page: an inline script (by its text, then by a text node), an inline handler, an
# image from another origin, and a string as HTML; what ran, was refused, and was reported.
INJECT = """async () => {
  const seen = [];
  const refused = [];
  const tryIt = (f) => { try { f(); } catch (e) { refused.push(e.name); } };
  document.addEventListener('securitypolicyviolation', (e) => seen.push(e.violatedDirective));
  const inline = document.createElement('script');
  tryIt(() => { inline.textContent = 'window.__inlineRan = true'; });
  inline.append(document.createTextNode('window.__inlineRan = true'));
  document.body.append(inline);
  const handler = document.createElement('div');
  tryIt(() => handler.setAttribute('onclick', 'window.__inlineRan = true'));
  document.body.append(handler);
  handler.click();
  const img = document.createElement('img');
  img.src = 'http://example.com/pixel.png';
  document.body.append(img);
  let html = 'allowed';
  try { document.body.insertAdjacentHTML('beforeend', '<b>x</b>'); } catch (e) { html = e.name; }
  await new Promise((r) => setTimeout(r, 300));
  return {ran: window.__inlineRan === true, seen, html, refused};
}"""


def test_the_csp_forbids_inline_script_and_other_origins(page: Page, stack: Bench) -> None:
    response = httpx.get(stack.url + "/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert "unsafe-inline" not in policy and "http" not in policy
    assert httpx.get(stack.url + "/static/js/api.js").headers["content-security-policy"] == policy
    visit(page, stack)
    expect(page.get_by_role("searchbox", name="Search the web")).to_be_visible()
    blocked = page.evaluate(INJECT)
    assert blocked["ran"] is False
    assert "require-trusted-types-for" in blocked["seen"], blocked
    assert any(d.startswith("img-src") for d in blocked["seen"]), blocked
    assert blocked["html"] == "TypeError"  # Trusted Types: no string becomes markup
    assert blocked["refused"] == ["TypeError", "TypeError"]  # nor script text or handlers


def test_research_shows_progress_then_an_answer_whose_citation_shows_its_quote(
    page: Page, stack: Bench
) -> None:
    visit(page, stack, view="research")
    page.get_by_label("Ask a question").fill(QUESTION)
    page.get_by_label("Depth", exact=True).select_option("quick")
    page.get_by_role("button", name="Research", exact=True).click()
    progress = page.get_by_role("list", name="Progress")
    expect(progress).to_contain_text("searches planned")
    expect(progress).to_contain_text("Read [1]")
    report = page.locator("#report")
    expect(report).to_contain_text("25 December 2021")
    assert "job=" in page.url
    marker = report.get_by_role("button", name="Source 1:")
    marker.hover()
    quote_box = page.get_by_role("dialog", name="Quote from source 1")
    expect(quote_box).to_be_visible()
    expect(quote_box).to_contain_text("launched on 25 December 2021")
    expect(quote_box).to_contain_text("Quote verified")
    source = quote_box.get_by_role("link", name="James Webb Space Telescope launch")
    assert "launch.test" in (source.get_attribute("href") or "")
    # by keyboard: the marker's focus opens it, Tab reaches its links, Escape closes it
    page.mouse.move(0, 0)
    expect(quote_box).to_be_hidden()
    marker.focus()
    expect(quote_box).to_be_visible()
    page.keyboard.press("Tab")
    expect(source).to_be_focused()
    page.wait_for_timeout(400)  # past the hide delay: the focus inside keeps it open
    expect(quote_box).to_be_visible()
    page.keyboard.press("Escape")
    expect(quote_box).to_be_hidden()
    # a click (a tap) pins it open; a click elsewhere closes it
    marker.click()
    page.mouse.move(0, 0)
    page.wait_for_timeout(400)
    expect(quote_box).to_be_visible()
    page.locator("#report h2").click()
    expect(quote_box).to_be_hidden()
    jobs = page.get_by_role("complementary").get_by_role("link", name=QUESTION)
    expect(jobs.first).to_be_visible()
    assert_every_control_is_named(page)
    # the job reopens from its address
    page.reload()
    expect(page.locator("#report")).to_contain_text("25 December 2021")
    expect(page.get_by_role("list", name="Progress")).to_contain_text("Done")


def test_a_crawl_shows_its_pages_as_they_arrive_opens_them_and_downloads_them(
    page: Page, stack: Bench
) -> None:
    visit(page, stack, view="crawl")
    page.get_by_label("Site address").fill(f"{stack.site}/docs/")
    page.get_by_label("Pages at most").fill("4")
    page.get_by_role("button", name="Crawl the site").click()
    pages = page.get_by_role("list", name="Pages").locator("> li")
    expect(pages).to_have_count(4)
    expect(page.locator("#crawl-status")).to_contain_text("Crawled 4 pages")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download pages (JSON lines)").click()
    lines = download.value.path().read_text().splitlines()
    assert len(lines) == 4
    assert_every_control_is_named(page)
    assert {json.loads(line)["title"] for line in lines} >= {"Tide docs", "Tide clocks"}
    with page.expect_download() as download:
        page.get_by_role("button", name="Download pages (Markdown)").click()
    markdown = download.value.path().read_text()
    assert markdown.count("\n---\n") == 3 and "# Tide clocks" in markdown
    assert "Clocks that show the tide instead of the hour." in markdown
    pages.filter(has_text="Tide clocks").get_by_role("link", name="Read").click()
    expect(page.locator("#page-card h1")).to_have_text("Tide clocks")
    # a map of the same site: its URLs and where each was found, without reading them
    page.go_back()
    page.get_by_role("button", name="Map the site").click()
    assert "map=" in page.url
    expect(pages.filter(has_text=f"{stack.site}/docs/c")).to_have_count(1)
    expect(pages.first.locator(".chip")).to_have_text("page")
    expect(page.locator("#crawl-status")).to_contain_text("URLs found")


def test_a_running_crawl_stops_from_the_page(page: Page, stack: Bench) -> None:
    visit(page, stack, view="crawl")
    page.get_by_label("Site address").fill(f"{stack.site}/slow/1")
    page.get_by_label("Pages at most").fill("200")
    page.get_by_label("Link depth").fill("50")
    page.get_by_role("button", name="Crawl the site").click()
    pages = page.get_by_role("list", name="Pages").locator("> li")
    expect(pages.first).to_contain_text("Slow page 1")
    page.get_by_role("button", name="Stop").click()
    expect(page.locator("#crawl-status")).to_contain_text("Crawl cancelled")
    expect(page.get_by_role("button", name="Stop")).to_be_hidden()
    assert pages.count() < 200


def test_discoveries_filter_and_a_sleep_wakes_from_the_page(page: Page, stack: Bench) -> None:
    for title, description in (
        ("Tide clocks are back", "Three harbours installed tide clocks this year."),
        ("A new almanac", "The harbour master published the tide tables early."),
    ):
        made = stack.api(
            "POST", "/v1/discoveries", json={"title": title, "description": description}
        )
        assert made.status_code == 201
    woke: dict[str, Any] = {}

    def sleep() -> None:
        answer = stack.api(
            "POST", "/v1/sleeps", json={"mode": "manual", "seconds": 120, "reason": "page test"}
        )
        woke.update(answer.json())

    sleeper = threading.Thread(target=sleep, daemon=True)
    sleeper.start()
    until(lambda: stack.api("GET", "/v1/sleeps").json()["sleeps"], WAIT_MS / 1000, what="a sleep")
    visit(page, stack, view="discoveries")
    items = page.get_by_role("list", name="Discoveries").locator("> li")
    expect(items.filter(has_text="Tide clocks are back")).to_have_count(1)
    page.get_by_label("Filter discoveries").fill("almanac")
    expect(items).to_have_count(1)
    expect(items.first).to_contain_text("A new almanac")
    assert "filter=almanac" in page.url
    sleeps = page.get_by_role("list", name="Sleeping agents").locator("> li")
    row = sleeps.filter(has_text="page test")
    expect(row).to_be_visible()
    expect(row.get_by_role("timer")).to_contain_text("wakes in")
    assert_every_control_is_named(page)
    row.get_by_role("textbox").fill("the page test says hello")
    row.get_by_role("button", name="Wake").click()
    sleeper.join(timeout=WAIT_MS / 1000)
    assert woke.get("woke_because") and "the page test says hello" in json.dumps(woke)
    expect(row).to_have_count(0)
    expect(page.locator("#sleeps-status")).to_have_text("No agent is sleeping.")


def test_errors_show_their_code_and_message_and_no_stale_page(page: Page, stack: Bench) -> None:
    visit(page, stack, view="read", url=f"{stack.site}/slow/7")  # answers after 0.4 s
    expect(page.locator("#read-status")).to_contain_text("Reading")  # the loading state
    expect(page.locator("#page-card h1")).to_have_text("Slow page 7")
    expect(page.locator("#read-status")).to_be_hidden()
    visit(page, stack, view="read", url=f"{stack.site}/docs/a")
    expect(page.locator("#page-card h1")).to_have_text("Reading a tide table")
    page.get_by_label("Address of the page to read").fill("http://169.254.169.254/latest/")
    page.get_by_role("button", name="Read", exact=True).click()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("blocked_address")
    expect(alert).to_contain_text("refusing to connect")
    expect(page.locator("#reader")).to_be_hidden()
    visit(page, stack, view="research", job="no-such-job")
    expect(page.get_by_role("alert")).to_contain_text("not_found")


def test_the_image_relay_answers_raster_images_only_and_through_the_guard(stack: Bench) -> None:
    def relay(url: str, key: str | None = stack.key) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.get(stack.url + "/v1/image", params={"url": url}, headers=headers)

    found = relay(f"{stack.site}/img/almanac.png")
    assert found.status_code == 200 and found.headers["content-type"] == "image/png"
    assert found.content.startswith(b"\x89PNG")
    assert "sandbox" in found.headers["content-security-policy"]
    assert found.headers["x-content-type-options"] == "nosniff"
    refused = relay(f"{stack.site}/img/scripted.svg")
    assert refused.status_code == 415
    assert refused.json()["error"]["code"] == "unsupported_content_type"
    blocked = relay("http://169.254.169.254/latest/meta-data/")
    assert blocked.status_code == 403 and blocked.json()["error"]["code"] == "blocked_address"
    for bad in ("javascript:alert(1)", "http://[::1", "//no-scheme.test/a.png"):
        assert relay(bad).status_code == 400, bad
    assert relay(f"{stack.site}/img/missing.png").json()["error"]["code"] == "http_error"
    assert relay(f"{stack.site}/img/almanac.png", key=None).status_code == 401


# Markdown the reader may be given, and what it must become: text stays text, links only http(s).
HOSTILE_MARKDOWN = """# Tides <script>window.__mdRan = 1</script>

<img src=x onerror="window.__mdRan = 2"> and <b onclick="window.__mdRan = 3">bold</b>

[a javascript link](javascript:window.__mdRan=4) [a data link](data:text/html,hi)
![an image](javascript:window.__mdRan=5) <javascript:window.__mdRan=6>
[a fine link](https://example.org/a_(b)) and snake_case_name and 2*3*4

- one **strong *nested* words**
  - inner `code <b>`
- two ~~gone~~

| a | b \\| c |
|---|---:|
| 1 | 2 |

```html
<script>window.__mdRan = 7</script>
```

Cited [1] and not cited [9].
"""

RENDER = """async (text) => {
  const { renderMarkdown } = await import('/static/js/markdown.js');
  const box = document.createElement('div');
  box.append(renderMarkdown(text, {
    base: 'https://example.org/page',
    cite: (n) => (n === 1 ? Object.assign(document.createElement('button'), {textContent: '[1]'})
                          : null),
  }));
  document.body.append(box);
  await new Promise((r) => setTimeout(r, 200));
  const tags = [...box.querySelectorAll('*')].map((el) => el.tagName.toLowerCase());
  const hrefs = [...box.querySelectorAll('a')].map((a) => a.getAttribute('href'));
  const attrs = [...box.querySelectorAll('*')].flatMap((el) => el.getAttributeNames());
  return {tags, hrefs, attrs, text: box.textContent, ran: window.__mdRan || null,
          html: box.innerHTML};
}"""


def test_the_markdown_renderer_keeps_a_pages_markup_as_text(page: Page, stack: Bench) -> None:
    visit(page, stack, view="read")
    out = page.evaluate(RENDER, HOSTILE_MARKDOWN)
    assert out["ran"] is None
    assert not {"script", "img", "b", "iframe", "object"} & set(out["tags"]), out["tags"]
    assert not [a for a in out["attrs"] if a.startswith("on") or a in ("src", "style")]
    assert out["hrefs"] == ["https://example.org/a_(b)"], out["hrefs"]
    for text in (
        "<script>window.__mdRan = 1</script>",
        '<img src=x onerror="window.__mdRan = 2">',
        "a javascript link",
        "image: an image",
        "snake_case_name and 2*3*4",
        "<script>window.__mdRan = 7</script>",
        "not cited [9]",
    ):
        assert text in out["text"], text
    html = out["html"]
    assert "<h1>Tides &lt;script&gt;" in html
    assert "<strong>strong <em>nested</em> words</strong>" in html
    assert "<ul><li>inner <code>code &lt;b&gt;</code></li></ul>" in html
    assert "<del>gone</del>" in html
    assert '<td data-align="right">2</td>' in html and "b | c" in out["text"]
    assert '<code data-lang="html">' in html
    assert "Cited <button>[1]</button>" in html


def test_a_search_without_results_says_so(page: Page, stack: Bench) -> None:
    stack.tour.sims.state["brave"].set("noresults", times=1)
    visit(page, stack, view="search", q="tide tables nobody wrote", providers="brave")
    expect(page.locator("#search-status")).to_have_text(
        "No results for “tide tables nobody wrote”."
    )
    expect(page.get_by_role("list", name="Results").locator("> li")).to_have_count(0)
    expect(page.locator("#attempts li")).to_contain_text("brave 0 results")
