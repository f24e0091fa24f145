"""The crawl frontier: the URLs a crawl knows, who reads which, and what it found.

model.py is the contract, rules.py what a claim, an admission and a trap mean (pure, written
once), order.py the order pages are read in; sqlite.py (embedded) and redis.py (scaled out)
only store it, chosen by the job store's URL here."""

from __future__ import annotations

from ...backends import parse_store_url
from .model import Admission, Claim, Entry, FrontierStore, ResultKind, Verdict
from .rules import CLAIM_WINDOW, HOST_BUSY_WAIT, IN_FLIGHT_WAIT, pattern_allowance

__all__ = [
    "CLAIM_WINDOW",
    "HOST_BUSY_WAIT",
    "IN_FLIGHT_WAIT",
    "Admission",
    "Claim",
    "Entry",
    "FrontierStore",
    "ResultKind",
    "Verdict",
    "open_frontier_store",
    "pattern_allowance",
]


def open_frontier_store(url: str) -> FrontierStore:
    """The frontier beside the job store at `url` (`memory://`, `sqlite:///path`, Redis)."""
    store = parse_store_url(url, what="the crawl frontier's store URL (NETSIFT_JOBS_URL)")
    if store.kind == "redis":
        from .redis import RedisFrontier

        return RedisFrontier(url)
    from .sqlite import SQLiteFrontier

    return SQLiteFrontier(store.path)
