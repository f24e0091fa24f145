// Research: ask, follow the job's events live (SSE, resumable by seq), read the answer with its
// [n] markers, each showing the quote netsift verified and linking the source; cancel; and the
// list of jobs, any of which reopens here (its address is /?view=research&job=<id>).

import { ApiError, api, get, post, stream } from "./api.js";
import { $, errorBox, fill, h, hostOf, safeHref, status, when } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { go, internal, viewHref } from "./nav.js";

const JOBS_LISTED = 30; // the newest jobs shown beside the answer
const ENDED = new Set(["done", "failed", "cancelled", "interrupted"]);

let following = null; // {id, controller}
let seq = 0; // the last event seen: a dropped stream resumes after it

export const title = (query) => (query.get("job") ? "Research job" : "Research");

export function init() {
  $("#research-form").addEventListener("submit", start);
  $("#research-cancel").addEventListener("click", cancel);
  $("#jobs-refresh").addEventListener("click", jobs);
}

export function enter(query) {
  jobs();
  const id = query.get("job");
  if (!id) {
    stop();
    $("#progress").replaceChildren();
    $("#report").hidden = true;
    status($("#research-status"), "");
    $("#question").focus();
    return;
  }
  if (following && following.id === id) return;
  follow(id);
}

export function leave() {
  stop();
}

function stop() {
  if (following) following.controller.abort();
  following = null;
  $("#research-cancel").hidden = true;
}

async function start(event) {
  event.preventDefault();
  const body = { question: $("#question").value.trim(), depth: $("#depth").value };
  status($("#research-status"), "Starting…", "busy");
  try {
    const job = await post("/v1/research", body);
    go({ view: "research", job: job.id });
  } catch (error) {
    showError(error);
  }
}

function showError(error) {
  status($("#research-status"), "");
  $("#research-status").hidden = false;
  $("#research-status").dataset.kind = "error";
  $("#research-status").append(errorBox(error));
}

async function follow(id) {
  stop();
  const controller = new AbortController();
  following = { id, controller };
  seq = 0;
  $("#progress").replaceChildren();
  $("#report").hidden = true;
  $("#report").replaceChildren();
  status($("#research-status"), "Loading the job…", "busy");
  try {
    const job = await get(`/v1/research/${encodeURIComponent(id)}`, { signal: controller.signal });
    if (job.kind !== "research") throw new ApiError(400, { code: "invalid_input", message: `job ${id} is a ${job.kind} job` });
    $("#question").value = job.params.question || "";
    if (job.params.depth) $("#depth").value = job.params.depth;
    if (!ENDED.has(job.status)) {
      $("#research-cancel").hidden = false;
      status($("#research-status"), "Researching…", "busy");
    }
    // Its events: the ones so far, then live until it ends. A dropped stream resumes after
    // the last seq seen, as many times as it takes while the job runs.
    for (let tries = 0; tries < 5 && !controller.signal.aborted; tries += 1) {
      await stream("GET", `/v1/research/${encodeURIComponent(id)}/events?since=${seq}`, undefined,
        (type, ev) => progress(type, ev), { signal: controller.signal }).catch((error) => {
        if (error.name === "AbortError" || error instanceof ApiError) throw error;
      });
      const now = await get(`/v1/research/${encodeURIComponent(id)}`, { signal: controller.signal });
      if (ENDED.has(now.status)) {
        ended(now);
        break;
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") showError(error);
  } finally {
    if (following && following.id === id) $("#research-cancel").hidden = true;
  }
}

function row(kind, ...content) {
  const item = h("li", { "data-kind": kind }, ...content);
  $("#progress").append(item);
  return item;
}

const searchRows = new Map();
const fetchRows = new Map();

function progress(type, event) {
  seq = Math.max(seq, event.seq || 0);
  const d = event.data || {};
  switch (type) {
    case "started":
      searchRows.clear();
      fetchRows.clear();
      row("step", `Started (${d.mode === "extractive" ? "no model: extractive answer" : "with the model"})`);
      break;
    case "planned":
      row("plan", `Round ${d.iteration}: ${count(d.queries.length, "search", "searches")} planned`,
        h("ul", {}, d.queries.map((q) => h("li", { text: q }))));
      break;
    case "gap_found":
      row("plan", `Round ${d.iteration}: gaps found, searching again`,
        h("ul", {}, (d.gaps || []).map((g) => h("li", { text: typeof g === "string" ? g : JSON.stringify(g) }))));
      break;
    case "search_started":
      searchRows.set(d.query, row("busy", `Searching “${d.query}”…`));
      break;
    case "search_done": {
      const item = searchRows.get(d.query) || row("busy", "");
      item.dataset.kind = d.ok ? "ok" : "failed";
      item.textContent = d.ok
        ? `“${d.query}”: ${d.results} results from ${d.provider} (${d.new} new)`
        : `“${d.query}”: search failed${d.error ? ` (${d.error.code || d.error})` : ""}`;
      break;
    }
    case "fetch_started":
      fetchRows.set(d.url, row("busy", "Reading ", h("span", { class: "url", text: d.url }), "…"));
      break;
    case "fetch_done": {
      const item = fetchRows.get(d.url) || row("busy", "");
      item.dataset.kind = d.ok ? "ok" : "failed";
      item.replaceChildren(d.ok ? `Read [${d.n}] ` : "Could not read ",
        internal(h("a", { href: viewHref({ view: "read", url: d.final_url || d.url }), text: d.title || d.url })),
        d.ok ? "" : ` (${(d.error && (d.error.code || d.error)) || "failed"})`);
      break;
    }
    case "synthesizing":
      row("step", `Writing the answer from ${d.sources} sources (round ${d.iteration})…`);
      break;
    case "discovery":
      row("discovery", "Flagged a discovery: ",
        internal(h("a", { href: viewHref({ view: "discoveries" }), text: d.title })));
      break;
    case "done":
      row("ok", `Done: ${count(d.citations, "citation")} from ${count(d.sources, "source")} (stopped: ${d.stopped_because})`);
      if (d.report) report(d.report, "done");
      break;
    case "error":
      row("failed", d.code === "cancelled" ? "Cancelled" : `Failed: ${d.message || d.code}`);
      break;
    default:
      break;
  }
}

function ended(job) {
  jobs(); // its status in the list, now final
  if (job.status === "done" && job.result) {
    status($("#research-status"), "");
    report(job.result, job.status);
  } else if (job.status === "cancelled" || job.status === "interrupted") {
    status($("#research-status"), `This job was ${job.status}; what it found so far is below.`, "empty");
    if (job.result) report(job.result, job.status);
  } else if (job.error) {
    showError(new ApiError(0, job.error));
  }
}

async function cancel() {
  if (!following) return;
  const button = $("#research-cancel");
  button.disabled = true;
  try {
    await api("DELETE", `/v1/research/${encodeURIComponent(following.id)}`);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

/** The answer as Markdown, each [n] a button whose popover holds the verified quote. */
function report(result, jobStatus) {
  const box = $("#report");
  const citations = new Map((result.citations || []).map((c) => [c.n, c]));
  const answer = h("div", { class: "prose answer" });
  answer.append(renderMarkdown(result.answer || "", { cite: (n) => citation(citations.get(n)) }));
  const cited = [...citations.values()];
  fill(box,
    h("h2", { text: result.question || "Answer" }),
    answer,
    result.answered === false ? h("p", { class: "hint", text: "The sources read did not answer this question." }) : null,
    cited.length ? h("h3", { text: "Sources" }) : null,
    cited.length
      ? h("ol", { class: "sources" }, cited.map((c) =>
          h("li", { value: c.n },
            internal(h("a", { href: viewHref({ view: "read", url: c.url }), text: c.title || c.url })),
            " ", h("span", { class: "url", text: hostOf(c.url) }),
            c.verified ? null : h("span", { class: "chip warn", text: "quote not verified" }))))
      : null,
    h("p", { class: "hint" },
      `${count(result.searches, "search", "searches")}, ${count(result.pages_read, "page")} read, ` +
      `${count(result.iterations, "round")}, ` +
      `${(result.elapsed_ms / 1000).toFixed(1)} s` + (result.tokens ? `, ${result.tokens} tokens` : "") +
      (jobStatus !== "done" ? ` (${jobStatus})` : "")),
    ...(result.warnings || []).map((w) => h("p", { class: "hint", text: w })),
  );
  box.hidden = false;
}

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

let cites = 0;
function citation(c) {
  if (!c) return null;
  cites += 1;
  const id = `cite-${cites}`;
  const href = safeHref(c.url);
  const pop = h("div", { id, class: "quote", popover: "auto", role: "dialog",
    "aria-label": `Quote from source ${c.n}` },
    h("blockquote", { text: c.quote }),
    h("p", {},
      c.verified ? "Quote verified in " : "Quote NOT verified in ",
      href ? h("a", { href, rel: "noopener noreferrer", target: "_blank", text: c.title || hostOf(c.url) }) : c.url,
      " · ",
      internal(h("a", { href: viewHref({ view: "read", url: c.url }), text: "read it here" }))));
  const button = h("button", {
    type: "button", class: "cite", "aria-controls": id, "aria-expanded": "false", "aria-describedby": id,
    "aria-label": `Source ${c.n}: ${c.title || hostOf(c.url)}`, text: `[${c.n}]`,
  });
  // Shown while the pointer or the focus is on the marker or in the quote (its links included);
  // a click or tap pins it open until Escape or a click elsewhere (the popover's light dismiss).
  let timer;
  let pinned = false;
  const engaged = () => button.matches(":hover, :focus") || pop.matches(":hover, :focus-within");
  const show = () => {
    clearTimeout(timer);
    if (pop.matches(":popover-open")) return;
    try {
      pop.showPopover();
    } catch (error) {
      // already being shown (a focus and a click in the same gesture): nothing more to do
      if (error.name !== "InvalidStateError") throw error;
    }
  };
  const hide = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!pinned && !engaged() && pop.matches(":popover-open")) pop.hidePopover();
    }, 300);
  };
  button.addEventListener("mouseenter", show);
  button.addEventListener("focus", show);
  button.addEventListener("click", () => {
    pinned = true;
    show();
  });
  pop.addEventListener("mouseenter", () => clearTimeout(timer));
  for (const [el, event] of [[button, "mouseleave"], [button, "blur"], [pop, "mouseleave"], [pop, "focusout"]]) {
    el.addEventListener(event, hide);
  }
  pop.addEventListener("beforetoggle", (event) => {
    if (event.newState === "open") place(button, pop);
  });
  pop.addEventListener("toggle", (event) => {
    button.setAttribute("aria-expanded", String(event.newState === "open"));
    if (event.newState === "closed") pinned = false;
  });
  return h("span", { class: "cite-wrap" }, button, pop);
}

/** Puts the popover under its marker (a popover sits in the top layer, positioned by hand). */
function place(button, pop) {
  const box = button.getBoundingClientRect();
  const width = Math.min(420, window.innerWidth - 16);
  pop.style.width = `${width}px`;
  pop.style.left = `${Math.max(8, Math.min(box.left, window.innerWidth - width - 8))}px`;
  pop.style.top = `${box.bottom + 6}px`;
}

async function jobs() {
  const list = $("#jobs");
  try {
    const answer = await get(`/v1/research?limit=${JOBS_LISTED}`);
    const research = answer.jobs.filter((job) => job.kind === "research");
    if (!research.length) {
      list.replaceChildren(h("li", { class: "hint", text: "No research yet." }));
      return;
    }
    list.replaceChildren(...research.map((job) =>
      h("li", {},
        internal(h("a", {
          href: viewHref({ view: "research", job: job.id }), text: job.params.question || job.id,
          "aria-current": following && following.id === job.id ? "true" : null,
        })),
        h("span", { class: "job-meta" },
          h("span", { class: `chip status-${job.status}`, text: job.status }), " ", when(job.created_at, true)))));
  } catch (error) {
    list.replaceChildren(h("li", {}, errorBox(error)));
  }
}
