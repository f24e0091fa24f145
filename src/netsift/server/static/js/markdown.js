// A small, safe Markdown renderer: it builds DOM nodes and writes every piece of a page's text
// with textContent, so nothing a page says can become markup or script. It reads what netsift's
// extractor writes (CommonMark plus GitHub tables and strikethrough), not every corner of
// CommonMark. Links are kept only when http(s) or mailto; images are shown as links, never
// loaded (the page's CSP allows this server only).

import { h, safeHref } from "./dom.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?: +(.*)|$)/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * `text` as a DocumentFragment. Options: `base`, the page's address for relative links;
 * `link(href, text)`, which may return the element a link becomes (the reader keeps links in
 * itself); `cite(n)`, which may return the element for a `[n]` citation marker.
 */
export function renderMarkdown(text, options = {}) {
  const fragment = document.createDocumentFragment();
  blocks(text.replaceAll("\r\n", "\n").split("\n"), fragment, options);
  return fragment;
}

function blocks(lines, parent, options) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
      continue;
    }
    let match;
    if ((match = FENCE.exec(line))) {
      i = codeBlock(lines, i, match, parent);
    } else if ((match = HEADING.exec(line))) {
      parent.append(inline(h(`h${match[1].length}`), match[2], options));
      i += 1;
    } else if (RULE.test(line)) {
      parent.append(h("hr"));
      i += 1;
    } else if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && lines[i].trim() && (match = QUOTE.exec(lines[i]))) {
        quoted.push(match[1]);
        i += 1;
      }
      const quote = h("blockquote");
      blocks(quoted, quote, options);
      parent.append(quote);
    } else if (ITEM.test(line)) {
      i = list(lines, i, parent, options);
    } else if (line.includes("|") && i + 1 < lines.length && TABLE_DIVIDER.test(lines[i + 1])) {
      i = table(lines, i, parent, options);
    } else {
      const para = [];
      while (i < lines.length && lines[i].trim() && !startsBlock(lines, i)) {
        para.push(lines[i]);
        i += 1;
      }
      if (!para.length) { // a line that looked like a block but is not one: keep it as text
        para.push(lines[i]);
        i += 1;
      }
      parent.append(inline(h("p"), para.join("\n"), options));
    }
  }
}

function startsBlock(lines, i) {
  const line = lines[i];
  return (
    FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) ||
    ITEM.test(line) ||
    (line.includes("|") && i + 1 < lines.length && TABLE_DIVIDER.test(lines[i + 1]))
  );
}

function codeBlock(lines, start, match, parent) {
  const fence = match[1];
  const body = [];
  let i = start + 1;
  while (i < lines.length && !lines[i].trimStart().startsWith(fence)) {
    body.push(lines[i]);
    i += 1;
  }
  const code = h("code", { text: body.join("\n") });
  if (match[2]) code.dataset.lang = match[2];
  parent.append(h("pre", { tabindex: "0" }, code));
  return i + 1; // past the closing fence (or the end: a page cut mid-block stays readable)
}

function list(lines, start, parent, options) {
  const first = ITEM.exec(lines[start]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const el = h(ordered ? "ol" : "ul");
  if (ordered && parseInt(first[2], 10) !== 1) el.start = parseInt(first[2], 10);
  let i = start;
  let loose = false;
  while (i < lines.length) {
    const match = ITEM.exec(lines[i]);
    if (!match || match[1].length !== indent || /\d/.test(match[2]) !== ordered) break;
    const body = [match[3] || ""];
    const inner = indent + match[2].length + 1;
    i += 1;
    // The item's own lines: indented past its marker, or a lazy continuation of its text.
    while (i < lines.length) {
      const next = lines[i];
      if (!next.trim()) {
        const after = lines[i + 1];
        if (after !== undefined && after.trim() && indentOf(after) >= inner) {
          body.push("");
          loose = true;
          i += 1;
          continue;
        }
        break;
      }
      if (indentOf(next) >= inner) body.push(next.slice(inner));
      else if (!startsBlock(lines, i) && body[body.length - 1].trim()) body.push(next.trim());
      else break;
      i += 1;
    }
    const item = h("li");
    if (body.length === 1 || (!loose && !body.slice(1).some((l) => startsBlock([l], 0)))) {
      const nested = body.findIndex((l, n) => n > 0 && ITEM.test(l));
      const text = nested < 0 ? body : body.slice(0, nested);
      inline(item, text.join("\n"), options);
      if (nested >= 0) blocks(body.slice(nested), item, options);
    } else {
      blocks(body, item, options);
    }
    el.append(item);
    // A blank line between items of the same list keeps the list going.
    if (i < lines.length && !lines[i].trim() && i + 1 < lines.length) {
      const again = ITEM.exec(lines[i + 1]);
      if (again && again[1].length === indent && /\d/.test(again[2]) === ordered) i += 1;
    }
  }
  parent.append(el);
  return i;
}

const indentOf = (line) => line.length - line.trimStart().length;

function cells(line) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll("\\|", "|"));
}

function table(lines, start, parent, options) {
  const head = cells(lines[start]);
  const align = cells(lines[start + 1]).map((c) =>
    c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : null,
  );
  const row = (values, tag) =>
    h("tr", {}, head.map((_, n) => {
      const cell = inline(h(tag), values[n] || "", options);
      if (align[n]) cell.dataset.align = align[n];
      return cell;
    }));
  const body = h("tbody");
  let i = start + 2;
  while (i < lines.length && lines[i].includes("|") && lines[i].trim()) {
    body.append(row(cells(lines[i]), "td"));
    i += 1;
  }
  parent.append(h("div", { class: "table" }, h("table", {}, h("thead", {}, row(head, "th")), body)));
  return i;
}

// Inline spans, tried in this order at each position (the regexp's alternatives).
const URL_PART = String.raw`((?:[^()\s]|\([^()\s]*\))+)`;
const INLINE = new RegExp(
  [
    String.raw`\\([!-/:-@\[-\x60{-~])`, // 1 a backslash escape
    String.raw`(\x60+)([\s\S]*?[^\x60])\2(?!\x60)`, // 2,3 a code span
    String.raw`!\[([^\]]*)\]\(\s*<?${URL_PART}>?(?:\s+"[^"]*")?\s*\)`, // 4,5 an image
    String.raw`\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?${URL_PART}>?(?:\s+"([^"]*)")?\s*\)`, // 6,7,8 a link
    String.raw`<((?:https?:\/\/|mailto:)[^\s>]+)>`, // 9 an autolink
    String.raw`(https?:\/\/[^\s<>"]*[^\s<>".,;:!?)\]'])`, // 10 a bare address
    String.raw`(\*\*|(?<!\w)__)(?=\S)([\s\S]*?\S)\11(?!(?<=_)\w)`, // 11,12 strong
    String.raw`(\*|(?<!\w)_)(?=[^\s*_])([\s\S]*?[^\s\\])\13(?!\w)`, // 13,14 emphasis
    String.raw`~~(?=\S)([\s\S]*?\S)~~`, // 15 strikethrough
    String.raw`\[(\d{1,3})\](?![(\[])`, // 16 a citation marker [n]
    String.raw`(?: {2,}|\\)\n`, // a hard line break
  ].join("|"),
  "g",
);

/** Appends `text`'s inline Markdown to `el` and returns `el`. */
function inline(el, text, options) {
  const pattern = new RegExp(INLINE.source, "g");
  let last = 0;
  let match;
  while ((match = pattern.exec(text))) {
    if (match.index > last) el.append(text.slice(last, match.index));
    el.append(span(match, options));
    last = pattern.lastIndex;
  }
  if (last < text.length) el.append(text.slice(last));
  return el;
}

function span(m, options) {
  if (m[1] !== undefined) return m[1];
  if (m[2] !== undefined) return h("code", { text: m[3].replace(/^ (.*) $/, "$1") });
  if (m[5] !== undefined) return imageLink(m[4], m[5], options);
  if (m[7] !== undefined) return link(m[7], (a) => inline(a, m[6], options), m[8], options);
  if (m[9] !== undefined) return link(m[9], (a) => a.append(m[9]), null, options);
  if (m[10] !== undefined) return link(m[10], (a) => a.append(m[10]), null, options);
  if (m[11] !== undefined) return inline(h("strong"), m[12], options);
  if (m[13] !== undefined) return inline(h("em"), m[14], options);
  if (m[15] !== undefined) return inline(h("del"), m[15], options);
  if (m[16] !== undefined) return (options.cite && options.cite(Number(m[16]))) || m[0];
  return h("br");
}

function link(url, fill, title, options) {
  const href = safeHref(url, options.base);
  if (!href) {
    const text = h("span");
    fill(text);
    return text;
  }
  const a = (options.link && options.link(href)) || h("a", { href, rel: "noopener noreferrer", target: "_blank" });
  if (title) a.title = title;
  fill(a);
  return a;
}

function imageLink(alt, url, options) {
  const href = safeHref(url, options.base);
  const label = `image: ${alt || (href ? new URL(href).pathname.split("/").pop() : url)}`;
  if (!href) return h("span", { class: "image-ref", text: label });
  return h("a", { class: "image-ref", href, rel: "noopener noreferrer", target: "_blank", text: label });
}
