// Read: a page through netsift's fetch (the SSRF guard, robots.txt and the extractor), shown as
// Markdown rendered to DOM nodes (js/markdown.js), with its card, and continued chunk by chunk
// with the API's start_index / next_start_index. Links inside the page open in the reader.

import { post } from "./api.js";
import { $, errorBox, fill, h, hostOf, remoteImage, safeHref, status, when } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { go, internal, viewHref } from "./nav.js";
import { favicon } from "./search.js";

// Characters asked for per call: a long article in two or three parts, and a first screen
// that arrives fast even for a book-length page.
export const CHUNK = 12000;

let page = null; // {url, markdown, next, total, first}
let controller = null;

export const title = (query) => (page && page.first.title) || query.get("url") || "Read";

export function init() {
  $("#read-form").addEventListener("submit", (event) => {
    event.preventDefault();
    go({ view: "read", url: $("#read-url").value.trim() });
  });
  $("#read-more").addEventListener("click", () => more());
  $("#copy-md").addEventListener("click", copy);
}

export function enter(query) {
  const url = query.get("url") || "";
  $("#read-url").value = url;
  if (!url) {
    reset();
    $("#read-url").focus();
    return;
  }
  if (page && page.url === url) return;
  open(url);
}

export function leave() {}

function reset() {
  if (controller) controller.abort();
  page = null;
  $("#reader").hidden = true;
  $("#page-card").replaceChildren();
  $("#page-content").replaceChildren();
  status($("#read-status"), "");
}

async function open(url) {
  reset();
  controller = new AbortController();
  status($("#read-status"), `Reading ${url}…`, "busy");
  $("#read-status").setAttribute("aria-busy", "true");
  try {
    const first = await post("/v1/fetch", { url, max_length: CHUNK }, { signal: controller.signal });
    page = { url, first, markdown: first.content, next: first.next_start_index, total: first.total_length };
    status($("#read-status"), "");
    card(first);
    show();
    document.title = `${first.title || url} · netsift`;
  } catch (error) {
    if (error.name === "AbortError") return;
    fail(error);
  } finally {
    $("#read-status").removeAttribute("aria-busy");
  }
}

function fail(error) {
  status($("#read-status"), "");
  $("#read-status").hidden = false;
  $("#read-status").dataset.kind = "error";
  $("#read-status").append(errorBox(error));
}

async function more() {
  if (!page || page.next === null) return;
  const button = $("#read-more");
  button.disabled = true;
  button.textContent = "Reading on…";
  try {
    const next = await post("/v1/fetch", { url: page.url, max_length: CHUNK, start_index: page.next });
    page.markdown += next.content;
    page.next = next.next_start_index;
    show($("#page-content").children.length);
  } catch (error) {
    fail(error);
  } finally {
    button.disabled = false;
    button.textContent = "Continue reading";
  }
}

/** The Markdown so far, rendered whole (a block cut between two chunks joins up again).
 *  With `blocksBefore`, the reader's place is kept: the focus goes to the last block that was
 *  shown before this part arrived (now whole), so reading goes on from there. */
function show(blocksBefore) {
  const content = $("#page-content");
  const base = page.first.final_url || page.url;
  content.replaceChildren(page.first.format === "markdown"
    ? renderMarkdown(page.markdown, { base, link: readerLink })
    : h("pre", { text: page.markdown }));
  $("#reader").hidden = false;
  const done = page.next === null || page.next === undefined;
  $("#read-more").hidden = done;
  $("#read-progress").textContent = done
    ? `${page.total.toLocaleString()} characters`
    : `${page.markdown.length.toLocaleString()} of ${page.total.toLocaleString()} characters`;
  const place = blocksBefore ? content.children[blocksBefore - 1] : null;
  if (place) {
    place.tabIndex = -1;
    place.focus();
  }
}

/** A page's link: it opens in the reader (and in a new tab, the reader there too). */
function readerLink(href) {
  if (!href.startsWith("http")) return null;
  return internal(h("a", { href: viewHref({ view: "read", url: href }), "data-url": href }));
}

function card(first) {
  const meta = first.metadata || {};
  const url = first.final_url || first.url;
  const host = hostOf(url);
  const facts = [
    first.page_type ? h("span", { class: "chip", text: first.page_type.replaceAll("_", " ") }) : null,
    meta.author ? h("span", { text: `by ${meta.author}` }) : null,
    meta.published ? when(meta.published) : null,
    meta.lang ? h("span", { text: meta.lang }) : null,
    first.rendered ? h("span", { class: "chip", text: "rendered in a browser" }) : null,
    first.cached ? h("span", { class: "chip", text: "from the cache" }) : null,
  ].filter(Boolean);
  const image = safeHref(meta.image, url);
  fill($("#page-card"),
    image ? remoteImage(image, { className: "preview", alt: meta.title ? `Preview of ${meta.title}` : "" }) : null,
    h("div", { class: "site" }, favicon(safeHref(meta.favicon, url), host), h("span", { text: meta.site_name || host })),
    h("h1", { text: first.title || meta.title || url }),
    meta.description ? h("p", { class: "description", text: meta.description }) : null,
    h("p", { class: "facts" }, ...facts.flatMap((fact, n) => (n ? [" · ", fact] : [fact]))),
    h("p", { class: "links" },
      h("a", { href: safeHref(url), rel: "noopener noreferrer", target: "_blank", text: "Open the original ↗" })),
    first.warnings && first.warnings.length
      ? h("ul", { class: "warnings" }, first.warnings.map((w) => h("li", { text: w })))
      : null,
  );
}

async function copy() {
  if (!page) return;
  const button = $("#copy-md");
  try {
    await navigator.clipboard.writeText(page.markdown);
    button.textContent = "Copied";
  } catch {
    // Outside a secure context (http on a LAN address) there is no clipboard API: select it.
    const area = h("textarea", { class: "visually-hidden", "aria-hidden": "true" });
    area.value = page.markdown;
    document.body.append(area);
    area.select();
    const done = document.execCommand("copy");
    area.remove();
    button.textContent = done ? "Copied" : "Copy failed";
  }
  setTimeout(() => (button.textContent = "Copy as Markdown"), 2000);
}
