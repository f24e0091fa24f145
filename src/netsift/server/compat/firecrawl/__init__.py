"""Firecrawl's API (`firecrawl-py` v1 and v2, firecrawl-js, its MCP server) over netsift:
scrape, search and map (scrape.py), crawl (crawl.py) and batch scrape (batch.py) as netsift
jobs, polled (status.py) or watched over a WebSocket (watcher.py), their documents' `json` and
`summary` (job_formats.py, through extract.py's structured formats), /extract (extract.py),
and the account calls (account.py). Its URLs may omit the scheme, as Firecrawl's (url.py).

firecrawl-py builds `urljoin(api_url + "/", "/v2/scrape")`, which drops any path in its base
URL, so Firecrawl's clients need a host root (routing.py): the Firecrawl listener's
(`netsift serve --firecrawl-port 3002`) serves v1 and v2, the main port's serves v2 (its `/v1/`
is netsift's own). Everything also answers under `/firecrawl` on the main port.

Answers keep Firecrawl's `{success, data}` envelope and its errors `{success: false, error}`
with the statuses firecrawl-py maps to its exceptions (403 website not supported, 408
timeout, 429 rate limit). `skipTlsVerification` is accepted and ignored: netsift always
verifies certificates.
"""

from __future__ import annotations

from . import account, batch, crawl, extract, scrape, watcher
from .account import UNMETERED
from .common import render_error
from .paths import PREFIX

__all__ = ["PREFIX", "ROUTERS", "UNMETERED", "render_error"]

# Each part's router, under the prefix: the app includes them side by side (a router included
# in another stays nested, and the route a request matched would not name its whole path).
ROUTERS = tuple(part.router for part in (scrape, crawl, batch, watcher, account, extract))
