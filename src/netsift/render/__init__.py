"""Reading the JavaScript web safely: a guarded headless browser (the `browser` extra).

`shell` decides whether a page needs one (pure); `step` is the fetcher's render step;
`renderer` drives Chromium through Playwright with every request routed through netsift's
HttpClient (`interceptor`) and the browser's own network pointed at a deny-all proxy (`sink`)
with the switches in `chromium`; `actions` are what a caller does in the page before it is
read. Only `step`, `shell` and `actions` import without Playwright.
"""
