// Discoveries (what agents flagged for a person) with a filter, and the agents sleeping now,
// each with a countdown to its deadline and a Wake button (POST /v1/sleeps/{id}/wake).

import { get, post } from "./api.js";
import { $, errorBox, h, hostOf, safeHref, status, when } from "./dom.js";
import { go, internal, viewHref } from "./nav.js";

const SLEEPS_EVERY_MS = 5000; // how often the list of sleeps is asked again while shown
let found = [];
let poll = null;
let tick = null;

export const title = () => "Discoveries";

export function init() {
  $("#disc-filter").addEventListener("input", () => {
    go({ view: "discoveries", filter: $("#disc-filter").value }, { replace: true });
  });
  $("#disc-refresh").addEventListener("click", () => {
    discoveries();
    sleeps();
  });
}

export function enter(query) {
  $("#disc-filter").value = query.get("filter") || "";
  if (poll === null) {
    discoveries();
    sleeps();
    poll = setInterval(sleeps, SLEEPS_EVERY_MS);
    tick = setInterval(countdown, 1000);
  } else {
    draw();
  }
}

export function leave() {
  clearInterval(poll);
  clearInterval(tick);
  poll = tick = null;
}

function fail(id, error) {
  status($(id), "");
  $(id).hidden = false;
  $(id).dataset.kind = "error";
  $(id).append(errorBox(error));
}

async function discoveries() {
  status($("#disc-status"), "Loading…", "busy");
  try {
    const answer = await get("/v1/discoveries?limit=500");
    found = answer.discoveries.reverse(); // newest first
    status($("#disc-status"), answer.corrupt_lines.length
      ? `${answer.corrupt_lines.length} damaged lines of the log were skipped.` : "", "error");
    draw();
  } catch (error) {
    $("#discoveries").replaceChildren();
    fail("#disc-status", error);
  }
}

function draw() {
  const words = $("#disc-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = found.filter((d) => {
    const text = [d.title, d.description, d.url || "", d.job_id || ""].join(" ").toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const list = $("#discoveries");
  if (!found.length) {
    status($("#disc-status"), "No discoveries yet: agents flag them with flag_discovery, and research with notable sources.", "empty");
    list.replaceChildren();
    return;
  }
  if (!shown.length) status($("#disc-status"), `None of the ${found.length} discoveries match “${$("#disc-filter").value}”.`, "empty");
  else if ($("#disc-status").dataset.kind !== "error") status($("#disc-status"), words.length ? `${shown.length} of ${found.length}` : "", "done");
  list.replaceChildren(...shown.map((d) => {
    const href = safeHref(d.url);
    return h("li", { class: "discovery" },
      h("h3", { text: d.title }),
      h("p", { text: d.description }),
      h("p", { class: "hint" },
        when(d.at, true),
        href ? " · " : null,
        href ? internal(h("a", { href: viewHref({ view: "read", url: href }), text: hostOf(href) || href })) : null,
        d.job_id ? " · " : null,
        d.job_id ? internal(h("a", { href: viewHref({ view: "research", job: d.job_id }), text: `job ${d.job_id}` })) : null));
  }));
}

let sleeping = [];

async function sleeps() {
  try {
    const answer = await get("/v1/sleeps");
    sleeping = answer.sleeps;
    status($("#sleeps-status"), sleeping.length ? "" : "No agent is sleeping.", "empty");
    $("#sleeps").replaceChildren(...sleeping.map(sleepRow));
    countdown();
  } catch (error) {
    $("#sleeps").replaceChildren();
    fail("#sleeps-status", error);
  }
}

function sleepRow(sleep) {
  const message = h("input", { type: "text", maxlength: "2000", placeholder: "Message for the agent (optional)",
    "aria-label": `Message for sleep ${sleep.id}` });
  const wake = h("button", { type: "button", text: "Wake", "aria-label": `Wake sleep ${sleep.id}` });
  wake.addEventListener("click", async () => {
    wake.disabled = true;
    try {
      await post(`/v1/sleeps/${encodeURIComponent(sleep.id)}/wake`, message.value ? { message: message.value } : {});
      status($("#sleeps-status"), `Woke sleep ${sleep.id}.`, "done");
      await sleeps();
    } catch (error) {
      wake.disabled = false;
      fail("#sleeps-status", error);
    }
  });
  return h("li", { class: "sleep", "data-id": sleep.id },
    h("p", {}, h("strong", { text: sleep.reason || `A ${sleep.mode} sleep` }), " ",
      h("span", { class: "chip", text: sleep.mode }),
      sleep.job_id ? h("span", {}, " waiting for ", internal(h("a", { href: viewHref({ view: "research", job: sleep.job_id }), text: `job ${sleep.job_id}` }))) : null),
    h("p", { class: "hint" }, "since ", when(sleep.started_at, true), " · ",
      h("span", { class: "countdown", "data-deadline": sleep.deadline || "", role: "timer", "aria-live": "off" })),
    h("div", { class: "row" }, message, wake));
}

function countdown() {
  for (const el of document.querySelectorAll("#sleeps .countdown")) {
    const deadline = el.dataset.deadline ? new Date(el.dataset.deadline).getTime() : null;
    if (!deadline) {
      el.textContent = "no deadline";
      continue;
    }
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    const m = Math.floor(left / 60);
    el.textContent = left ? `wakes in ${m ? `${m} min ` : ""}${left % 60} s` : "waking";
  }
}
