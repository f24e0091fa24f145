// netsift web page: search with live attempts (SSE over fetch), read a page with its card.
// Everything from the network is written with textContent: no HTML from pages is rendered.
"use strict";

const $ = (id) => document.getElementById(id);

function headers(extra) {
  const h = { "Content-Type": "application/json", ...extra };
  const key = $("api-key").value.trim();
  if (key) h.Authorization = "Bearer " + key;
  return h;
}

function safeHref(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}

function describeError(body, status) {
  const e = body && body.error;
  return e ? `${e.message} (${e.code})` : `request failed (HTTP ${status})`;
}

function showStatus(el, text, isError) {
  el.textContent = text;
  el.classList.toggle("error", Boolean(isError));
}

function addAttempt(data, done) {
  const li = document.createElement("li");
  if (!done) {
    li.textContent = `${data.provider}: asking…`;
    li.dataset.provider = data.provider;
    $("attempts").append(li);
    return;
  }
  const pending = $("attempts").querySelector(`li[data-provider="${CSS.escape(data.provider)}"]`);
  const target = pending || li;
  target.removeAttribute("data-provider");
  target.textContent = data.ok
    ? `${data.provider}: ${data.result_count} results in ${Math.round(data.latency_ms)} ms`
    : `${data.provider}: failed (${data.error_code}) ${data.message || ""}`;
  target.classList.toggle("failed", !data.ok);
  if (!pending) $("attempts").append(target);
}

function showResults(response) {
  const list = $("results");
  list.replaceChildren();
  for (const r of response.results) {
    const li = document.createElement("li");
    const title = document.createElement("a");
    title.textContent = r.title || r.url;
    const href = safeHref(r.url);
    if (href) title.href = href;
    title.rel = "noreferrer noopener";
    const url = document.createElement("div");
    url.className = "url";
    url.textContent = r.url;
    const snippet = document.createElement("p");
    snippet.textContent = r.snippet || "";
    li.append(title, url, snippet);
    list.append(li);
  }
  const via = response.provider ? ` via ${response.provider}` : "";
  const cached = response.cached ? " (cached)" : "";
  showStatus($("search-status"), `${response.result_count} results${via}${cached}`);
}

// Reads a text/event-stream body and calls onEvent(type, payload) for each event.
async function readEvents(response, onEvent) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) type = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length) onEvent(type, JSON.parse(data.join("\n")));
    }
  }
}

async function search(event) {
  event.preventDefault();
  $("attempts").replaceChildren();
  $("results").replaceChildren();
  showStatus($("search-status"), "Searching…");
  const body = { query: $("query").value, count: Number($("count").value) || 10 };
  try {
    const response = await fetch("/v1/search", {
      method: "POST",
      headers: headers({ Accept: "text/event-stream" }),
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      showStatus($("search-status"), describeError(await response.json(), response.status), true);
      return;
    }
    await readEvents(response, (type, ev) => {
      if (type === "search_started") addAttempt(ev.data, false);
      else if (type === "search_done") addAttempt(ev.data, true);
      else if (type === "result") showResults(ev.data);
      else if (type === "error") showStatus($("search-status"), describeError(ev.data, 200), true);
    });
  } catch (err) {
    showStatus($("search-status"), `network error: ${err}`, true);
  }
}

function showCard(meta) {
  const card = $("card");
  $("card-site").textContent = meta.site_name || "";
  $("card-title").textContent = meta.title || "";
  $("card-description").textContent = meta.description || "";
  const image = $("card-image");
  const href = meta.image && safeHref(meta.image);
  image.hidden = true; // images of other sites are not loaded (CSP); the URL is shown instead
  if (href) $("card-description").textContent += `\nimage: ${href}`;
  card.hidden = !(meta.title || meta.description);
}

async function read(event) {
  event.preventDefault();
  $("content").textContent = "";
  $("card").hidden = true;
  showStatus($("fetch-status"), "Fetching…");
  try {
    const response = await fetch("/v1/fetch", {
      method: "POST",
      headers: headers({}),
      body: JSON.stringify({ url: $("url").value, max_length: 20000 }),
    });
    const body = await response.json();
    if (!response.ok) {
      showStatus($("fetch-status"), describeError(body, response.status), true);
      return;
    }
    showCard(body.metadata || {});
    $("content").textContent = body.content;
    const more = body.truncated ? ` — first ${body.content.length} of ${body.total_length} characters` : "";
    showStatus($("fetch-status"), `${body.title || body.final_url} (${body.content_type})${more}`);
  } catch (err) {
    showStatus($("fetch-status"), `network error: ${err}`, true);
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const saved = sessionStorage.getItem("netsift-key");
  if (saved) $("api-key").value = saved;
  $("api-key").addEventListener("change", () => sessionStorage.setItem("netsift-key", $("api-key").value));
  $("search-form").addEventListener("submit", search);
  $("fetch-form").addEventListener("submit", read);
});
