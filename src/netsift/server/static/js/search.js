// Search: the form (query and options live in the address), the provider attempts as they
// happen (the API's SSE stream), the results as cards, and keys to move through them.

import { stream } from "./api.js";
import { $, errorBox, h, hostOf, remoteImage, safeHref, siteBadge, status, when } from "./dom.js";
import { go, internal, viewHref } from "./nav.js";

let controller = null;
let picked = []; // the providers ticked, in the order they were ticked: their priority
let shown = ""; // the address of the search on screen, so going back to it does not ask again

export const title = (query) => (query.get("q") ? `${query.get("q")} - search` : "Search");

export function init() {
  $("#search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const query = { view: "search", q: $("#q").value.trim() };
    if (picked.length) query.providers = picked.join(",");
    if ($("#time").value) query.time = $("#time").value;
    if ($("#region").value.trim()) query.region = $("#region").value.trim();
    if (Number($("#count").value) !== 10) query.count = $("#count").value;
    if ($("#merge").checked) query.merge = "1";
    shown = "";
    go(query);
  });
  document.addEventListener("keydown", keys);
  $("#providers").addEventListener("change", (event) => {
    const name = event.target.value;
    picked = picked.filter((p) => p !== name);
    if (event.target.checked) picked.push(name);
  });
}

/** The server's providers as checkboxes: the enabled ones first, in their order. */
export function useInfo(info, error) {
  const box = $("#providers");
  box.replaceChildren(box.querySelector("legend") || h("legend", { text: "Providers" }));
  box.firstChild.textContent = "Providers, asked in the order ticked (none: the server's order)";
  if (!info) {
    if (error) box.append(h("p", { class: "hint", text: `Providers unknown: ${error.message}` }));
    return;
  }
  for (const provider of info.providers.filter((p) => p.configured)) {
    box.append(
      h("label", { class: "check" + (provider.enabled ? "" : " off") },
        h("input", { type: "checkbox", name: "provider", value: provider.name }),
        ` ${provider.name}`),
    );
  }
  const ticked = new URLSearchParams(location.search).get("providers");
  if (ticked) tick(ticked.split(","));
}

function tick(names) {
  picked = names.filter(Boolean);
  for (const input of document.querySelectorAll("#providers input")) input.checked = picked.includes(input.value);
}

export function enter(query) {
  const q = query.get("q") || "";
  $("#q").value = q;
  tick((query.get("providers") || "").split(","));
  $("#time").value = query.get("time") || "";
  $("#region").value = query.get("region") || "";
  $("#count").value = query.get("count") || "10";
  $("#merge").checked = query.get("merge") === "1";
  if (query.get("providers") || query.get("time") || query.get("region") || query.get("merge")) {
    $(".options").open = true;
  }
  if (!q) {
    clear();
    $("#q").focus();
    return;
  }
  if (shown === location.search) return;
  shown = location.search;
  run(q, query);
}

export function leave() {}

function clear() {
  if (controller) controller.abort();
  $("#results").replaceChildren();
  $("#attempts").replaceChildren();
  $("#attempts-box").hidden = true;
  status($("#search-status"), "");
  shown = "";
}

async function run(q, query) {
  if (controller) controller.abort();
  controller = new AbortController();
  const body = { query: q, count: Number(query.get("count") || 10) };
  if (query.get("providers")) body.providers = query.get("providers").split(",");
  if (query.get("time")) body.time_range = query.get("time");
  if (query.get("region")) body.region = query.get("region");
  if (query.get("merge") === "1") body.merge = true;
  $("#results").replaceChildren();
  $("#results").setAttribute("aria-busy", "true");
  $("#attempts").replaceChildren();
  $("#attempts-box").hidden = false;
  $("#attempts-summary").textContent = "Provider attempts";
  status($("#search-status"), `Searching for “${q}”…`, "busy");
  let answered = false;
  try {
    await stream("POST", "/v1/search", body, (type, event) => {
      if (type === "search_started") attempt(event.data, false);
      else if (type === "search_done") attempt(event.data, true);
      else if (type === "result") {
        answered = true;
        results(event.data);
      }
    }, { signal: controller.signal });
    if (!answered) status($("#search-status"), "The search ended without an answer.", "error");
  } catch (error) {
    if (error.name === "AbortError") return;
    status($("#search-status"), "");
    $("#search-status").hidden = false;
    $("#search-status").dataset.kind = "error";
    $("#search-status").append(errorBox(error));
  } finally {
    $("#results").removeAttribute("aria-busy");
  }
}

function attempt(data, done) {
  const list = $("#attempts");
  let row = list.querySelector(`li[data-provider="${CSS.escape(data.provider)}"][data-pending]`);
  if (!row) {
    row = h("li", { "data-provider": data.provider });
    list.append(row);
  }
  if (!done) {
    row.dataset.pending = "";
    row.dataset.kind = "busy";
    row.replaceChildren(h("strong", { text: data.provider }), " asking…");
    return;
  }
  delete row.dataset.pending;
  row.dataset.kind = data.ok ? "ok" : "failed";
  const ms = `${Math.round(data.latency_ms)} ms`;
  row.replaceChildren(h("strong", { text: data.provider }), " ");
  if (data.ok) row.append(`${data.result_count} results in ${ms}`);
  else {
    row.append(`failed after ${ms}: ${data.message || "no message"} `, h("code", { text: data.error_code }));
    if (data.retry_after) row.append(` (retry after ${Math.ceil(data.retry_after)} s)`);
  }
}

function results(response) {
  const list = $("#results");
  const attempts = response.attempts || [];
  const failed = attempts.filter((a) => !a.ok).length;
  if (!$("#attempts").children.length) for (const a of attempts) attempt(a, true); // not streamed
  $("#attempts-summary").textContent =
    `Provider attempts: ${attempts.length} asked` + (failed ? `, ${failed} failed` : "") +
    (response.cached ? " (answer from the cache)" : "");
  if (failed) $("#attempts-box").open = true;
  if (!response.results.length) {
    status($("#search-status"), `No results for “${response.query}”.`, "empty");
    return;
  }
  const via = response.provider ? ` from ${response.provider}` : "";
  status($("#search-status"),
    `${response.result_count} results${via}${response.cached ? ", cached" : ""} in ${Math.round(response.search_time_ms)} ms`,
    "done");
  list.replaceChildren(...response.results.map(card));
}

function card(result, index) {
  const href = safeHref(result.url);
  const host = hostOf(result.url);
  const titleId = `result-${index}`;
  const found = result.engines && result.engines.length ? result.engines : [result.source];
  const read = internal(h("a", {
    class: "button quiet", href: viewHref({ view: "read", url: result.url }),
    text: "Read", "aria-label": `Read “${result.title || host}” here`,
  }));
  return h("li", { class: "result", tabindex: "-1", "aria-labelledby": titleId },
    result.thumbnail ? remoteImage(result.thumbnail, { className: "thumb" }) : null,
    h("div", { class: "site" }, favicon(result.favicon, host), h("span", { text: host }),
      result.published ? h("span", { class: "date" }, "· ", when(result.published)) : null),
    h("h2", {},
      h("a", { id: titleId, class: "title", href, rel: "noopener noreferrer", target: "_blank",
        text: result.title || result.url })),
    h("p", { class: "url", text: result.url }),
    result.snippet ? h("p", { class: "snippet", text: result.snippet }) : null,
    result.authors && result.authors.length ? h("p", { class: "hint", text: result.authors.join(", ") }) : null,
    h("div", { class: "meta" },
      read,
      h("span", { class: "found" },
        "found by ", ...found.map((name) => h("span", { class: "chip", text: name })))),
  );
}

/** The site's favicon when the provider named one (relayed), its initial until then. */
export function favicon(url, host) {
  const badge = siteBadge(host);
  return url ? remoteImage(url, { className: "favicon", standIn: badge }) : badge;
}

/** `/` focuses the box; j/k or arrows move between results; r reads one; Enter opens it. */
function keys(event) {
  if ($("#view-search").hidden || event.ctrlKey || event.metaKey || event.altKey) return;
  const typing = event.target.matches("input, textarea, select");
  if (event.key === "/" && !typing) {
    event.preventDefault();
    $("#q").focus();
    $("#q").select();
    return;
  }
  const cards = [...document.querySelectorAll("#results > li")];
  if (!cards.length) return;
  const at = cards.indexOf(event.target.closest("#results > li"));
  const move = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 }[event.key];
  if (move && (!typing || (event.target.id === "q" && event.key === "ArrowDown"))) {
    event.preventDefault();
    cards[Math.max(0, Math.min(cards.length - 1, at + move))].focus();
  } else if (at >= 0 && event.target === cards[at] && (event.key === "r" || event.key === "Enter")) {
    event.preventDefault();
    const target = event.key === "r" ? cards[at].querySelector("a.button") : cards[at].querySelector("a.title");
    target.click();
  }
}
