// netsift's web page: one module per view (js/), the address bar as the state (js/nav.js), and
// the API's own answers shown as they are, errors included. No framework, no build step.

import { apiKey, get, onAuthRequired, setApiKey } from "./js/api.js";
import { $, status } from "./js/dom.js";
import { go, onNavigate, params } from "./js/nav.js";
import * as search from "./js/search.js";
import * as reader from "./js/reader.js";
import * as research from "./js/research.js";
import * as crawl from "./js/crawl.js";
import * as discoveries from "./js/discoveries.js";

const VIEWS = { search, read: reader, research, crawl, discoveries };
let current = null;

function route() {
  const query = params();
  const name = VIEWS[query.get("view")] ? query.get("view") : "search";
  for (const id of Object.keys(VIEWS)) $(`#view-${id}`).hidden = id !== name;
  for (const link of document.querySelectorAll("nav a[data-view]")) {
    if (link.dataset.view === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (current && current !== VIEWS[name] && current.leave) current.leave();
  current = VIEWS[name];
  document.title = `${current.title(query)} · netsift`;
  current.enter(query);
}

function showAuth(error) {
  $("#auth").hidden = false;
  $("#key-button").hidden = false;
  const refused = apiKey() !== "";
  status($("#auth-status"), refused ? `The key was refused: ${error.message} (${error.code})` : "", "error");
  if (!refused) $("#auth-key").focus();
}

async function checkServer() {
  try {
    const info = await get("/v1/info");
    $("#auth").hidden = true;
    $("#key-button").hidden = !info.auth_required;
    search.useInfo(info);
    return true;
  } catch (error) {
    if (error.status !== 401) search.useInfo(null, error);
    return error.status !== 401;
  }
}

function bindAuth() {
  onAuthRequired(showAuth);
  $("#auth-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setApiKey($("#auth-key").value.trim());
    $("#auth-key").value = "";
    if (await checkServer()) route();
  });
  $("#auth-forget").addEventListener("click", () => {
    setApiKey("");
    status($("#auth-status"), "The key is forgotten.", "info");
  });
  $("#key-button").addEventListener("click", () => {
    $("#auth").hidden = false;
    $("#auth-key").focus();
  });
}

document.addEventListener("DOMContentLoaded", async () => {
  bindAuth();
  for (const view of Object.values(VIEWS)) view.init();
  for (const link of document.querySelectorAll("nav a[data-view]")) {
    link.addEventListener("click", (event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      go({ view: link.dataset.view });
    });
  }
  onNavigate(route);
  window.addEventListener("popstate", route);
  await checkServer();
  route(); // without a key, each view shows its own state under the key prompt
  if (!$("#auth").hidden) $("#auth-key").focus();
});
