// Building the page with DOM calls only: text goes in as text, never as HTML.

import { blob } from "./api.js";

/** An element: h("a", {href, class: "x", onclick: fn, "aria-label": "…"}, child, "text", …).
 *  Attributes named on* are listeners; `text` sets textContent; null and false are skipped. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "text") el.textContent = value;
    else if (name === "class") el.className = value;
    else if (name in el && typeof value !== "string") el[name] = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

/** Replaces `el`'s children with these (nulls skipped, like h's). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** An http(s) or mailto address, resolved against `base`; null for anything else
 *  (javascript:, data:, file: …): a page's links can never run script here. */
export function safeHref(url, base) {
  if (!url) return null;
  try {
    const u = base ? new URL(url, base) : new URL(url);
    return ["http:", "https:", "mailto:"].includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

export function hostOf(url) {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

/** A site's badge: its initial on a colour taken from its name; its favicon replaces it once
 *  loaded (remoteImage), and it stays when there is none. */
export function siteBadge(host) {
  let hash = 0;
  for (const ch of host) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  const badge = h("span", { class: "badge", "aria-hidden": "true", text: (host[0] || "?").toUpperCase() });
  badge.style.setProperty("--hue", String(hash % 12)); // CSSOM: allowed by the CSP
  return badge;
}

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const DATETIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A date as people read it, in a <time> element; the text itself when it is not a date. */
export function when(value, withTime = false) {
  if (!value) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return h("span", { text: value });
  return h("time", { datetime: date.toISOString(), text: (withTime ? DATETIME : DATE).format(date) });
}

/** A status line: a busy, empty, done or error state, announced to screen readers. */
export function status(el, text, kind = "info") {
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = !text;
}

/** An error as the API describes it: its message and stable code, and whether to try again. */
export function errorBox(error) {
  const box = h(
    "div",
    { class: "error", role: "alert" },
    h("strong", { text: error.message }),
    " ",
    h("code", { class: "code", text: error.code }),
  );
  if (error.retryable) box.append(h("span", { class: "hint", text: " — worth trying again later." }));
  return box;
}

/** Offer `text` as a file download (a blob: URL, released after the click). */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const images = new Map(); // address -> Promise of a blob: URL, or null when it could not be had
const lazy = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    lazy.unobserve(entry.target);
    entry.target.dispatchEvent(new Event("near"));
  }
}, { rootMargin: "300px" });

function relayed(url) {
  if (!images.has(url)) {
    images.set(url, blob(`/v1/image?url=${encodeURIComponent(url)}`).then(
      (data) => URL.createObjectURL(data),
      () => null,
    ));
  }
  return images.get(url);
}

/** Another site's image, relayed by this server (/v1/image: the browser never contacts that
 *  site, and the CSP allows this server only), loaded when it nears the screen. Until then
 *  `standIn` (or an empty slot of the image's size) holds its place; an image that cannot be
 *  had leaves the stand-in, or no trace. */
export function remoteImage(url, { className, alt = "", standIn = null } = {}) {
  const href = safeHref(url);
  if (!href || href.startsWith("mailto:")) return standIn;
  const holder = standIn || h("span", { class: `${className} slot`, "aria-hidden": "true" });
  holder.addEventListener("near", async () => {
    const src = await relayed(href);
    if (src) holder.replaceWith(h("img", { class: className, alt, src, decoding: "async" }));
    else if (!standIn) holder.remove();
  }, { once: true });
  lazy.observe(holder);
  return holder;
}
