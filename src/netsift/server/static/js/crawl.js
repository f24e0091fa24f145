// Map and crawl: a site's URLs (POST /v1/map), or a crawl job whose pages arrive live (its SSE
// events) and open in the reader; the crawled pages download whole, as JSON lines or Markdown,
// paged from /v1/crawl/{id}/pages. A crawl's address is /?view=crawl&job=<id>.

import { ApiError, api, get, post, stream } from "./api.js";
import { $, download, errorBox, h, status } from "./dom.js";
import { go, internal, viewHref } from "./nav.js";

const PAGES_PER_CALL = 100; // the API's most per call (routers/crawl.py)
const ENDED = new Set(["done", "failed", "cancelled", "interrupted"]);

let following = null;

export const title = () => "Map and crawl";

export function init() {
  $("#crawl-form").addEventListener("submit", submit);
  $("#crawl-cancel").addEventListener("click", cancel);
  $("#dl-jsonl").addEventListener("click", () => save("jsonl"));
  $("#dl-md").addEventListener("click", () => save("md"));
}

export function enter(query) {
  const id = query.get("job");
  if (!id) {
    if (following) stop();
    if (!query.get("map")) return;
  }
  if (id && (!following || following.id !== id)) follow(id);
  if (query.get("map") && (!following || following.map !== query.get("map"))) map(query.get("map"));
}

export function leave() {
  stop();
}

function stop() {
  if (following && following.controller) following.controller.abort();
  following = null;
  $("#crawl-cancel").hidden = true;
}

function showError(error) {
  status($("#crawl-status"), "");
  $("#crawl-status").hidden = false;
  $("#crawl-status").dataset.kind = "error";
  $("#crawl-status").append(errorBox(error));
}

async function submit(event) {
  event.preventDefault();
  const url = $("#crawl-url").value.trim();
  if (event.submitter && event.submitter.value === "map") {
    go({ view: "crawl", map: url });
    return;
  }
  status($("#crawl-status"), "Starting the crawl…", "busy");
  try {
    const job = await post("/v1/crawl", {
      url, max_pages: Number($("#crawl-max").value), max_depth: Number($("#crawl-depth").value),
    });
    go({ view: "crawl", job: job.id });
  } catch (error) {
    showError(error);
  }
}

function pageRow(url, title, extra) {
  return h("li", {},
    h("span", { class: "page-title", text: title || url }),
    h("span", { class: "url", text: url }),
    extra || null,
    internal(h("a", { class: "button quiet", href: viewHref({ view: "read", url }), text: "Read",
      "aria-label": `Read ${title || url}` })));
}

async function map(url) {
  stop();
  following = { map: url };
  $("#crawl-url").value = url;
  $("#crawl-downloads").hidden = true;
  $("#crawl-pages").replaceChildren();
  status($("#crawl-status"), `Mapping ${url}…`, "busy");
  try {
    const result = await post("/v1/map", { url, limit: Math.max(Number($("#crawl-max").value), 100) });
    status($("#crawl-status"),
      result.links.length ? `${result.found} URLs found (${result.links.length} listed), from ` +
        `${result.sitemaps.filter((s) => s.status === "read").length} sitemaps, ${result.feeds.length} feeds and the start page`
        : "No URLs found on this site.",
      result.links.length ? "done" : "empty");
    $("#crawl-pages").replaceChildren(...result.links.map((link) =>
      pageRow(link.url, link.title, h("span", { class: "chip", text: link.source }))));
  } catch (error) {
    showError(error);
  }
}

async function follow(id) {
  stop();
  const controller = new AbortController();
  following = { id, controller, pages: 0 };
  $("#crawl-pages").replaceChildren();
  $("#crawl-downloads").hidden = true;
  status($("#crawl-status"), "Loading the crawl…", "busy");
  try {
    const job = await get(`/v1/crawl/${encodeURIComponent(id)}`, { signal: controller.signal });
    $("#crawl-url").value = job.params.url || "";
    $("#crawl-cancel").hidden = ENDED.has(job.status);
    status($("#crawl-status"), `Crawling ${job.params.url}…`, "busy");
    let skipped = 0;
    await stream("GET", `/v1/crawl/${encodeURIComponent(id)}/events`, undefined, (type, ev) => {
      const d = ev.data || {};
      if (type === "page") {
        following.pages += 1;
        $("#crawl-pages").append(pageRow(d.final_url || d.url, d.title, h("span", { class: "chip", text: `depth ${d.depth}` })));
        status($("#crawl-status"), `Crawling ${job.params.url}: ${following.pages} pages so far`, "busy");
        $("#crawl-downloads").hidden = false;
      } else if (type === "skipped") skipped += 1;
    }, { signal: controller.signal });
    const done = await get(`/v1/crawl/${encodeURIComponent(id)}`, { signal: controller.signal });
    const why = done.result && done.result.stopped_because ? `, stopped: ${[].concat(done.result.stopped_because).join(", ")}` : "";
    if (done.status === "failed" && done.error) showError(new ApiError(0, done.error));
    else {
      status($("#crawl-status"),
        `${done.status === "done" ? "Crawled" : `Crawl ${done.status}:`} ${following.pages} pages, ${skipped} left out${why}.`,
        following.pages ? "done" : "empty");
    }
  } catch (error) {
    if (error.name !== "AbortError") showError(error);
  } finally {
    $("#crawl-cancel").hidden = true;
  }
}

async function cancel() {
  if (!following || !following.id) return;
  try {
    await api("DELETE", `/v1/crawl/${encodeURIComponent(following.id)}`);
  } catch (error) {
    showError(error);
  }
}

/** Every page of the crawl, whole, in the order they were kept. */
async function allPages(id) {
  const pages = [];
  let since = 0;
  for (;;) {
    const batch = await get(`/v1/crawl/${encodeURIComponent(id)}/pages?since=${since}&limit=${PAGES_PER_CALL}`);
    pages.push(...batch.pages);
    if (batch.next === null || !batch.pages.length) return pages;
    since = batch.next;
  }
}

async function save(format) {
  if (!following || !following.id) return;
  const id = following.id;
  try {
    const pages = await allPages(id);
    if (format === "jsonl") {
      download(`crawl-${id}.jsonl`, pages.map((p) => JSON.stringify(p.page)).join("\n") + "\n", "application/x-ndjson");
    } else {
      const text = pages.map((p) =>
        `<!-- ${p.page.final_url || p.page.url} (depth ${p.depth}) -->\n\n# ${p.page.title || p.page.url}\n\n${p.page.content}\n`).join("\n---\n\n");
      download(`crawl-${id}.md`, text, "text/markdown");
    }
  } catch (error) {
    showError(error);
  }
}
