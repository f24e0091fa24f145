// The page's address is its state: `/?view=search&q=…`, `/?view=read&url=…`, `/?view=research&job=…`.
// Every view reads its parameters from it, so a search, a page or a job can be shared and reloaded.

let onChange = () => {};

export function onNavigate(listener) {
  onChange = listener;
}

export function params() {
  return new URLSearchParams(location.search);
}

/** Go to `query` (an object or URLSearchParams; empty values dropped) and show it. */
export function go(query, { replace = false } = {}) {
  const clean = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(query)) if (value !== "") clean.append(name, value);
  const url = `/?${clean}`;
  if (url !== location.pathname + location.search) {
    history[replace ? "replaceState" : "pushState"](null, "", url);
  }
  onChange();
}

/** A link inside the page (the reader for a URL…) that also works opened in a new tab. */
export function viewHref(query) {
  return `/?${new URLSearchParams(query)}`;
}

/** Makes a plain click on `a` navigate inside the page; other clicks keep the browser's way. */
export function internal(a) {
  a.addEventListener("click", (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    go(new URL(a.href).searchParams);
  });
  return a;
}
