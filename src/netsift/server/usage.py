"""The server's side of usage counting: each caller's meter, and the Client's billing.

`attach` tells the Client how this host limits and records usage: the per-client search
quota, the per-request search cap, the ledger and the metrics. `bind_caller` binds a meter
for the caller of the current request, so every search, page and token the request causes —
in search, batch, chat, or a research job it starts (charged to the same key) — is limited
and counted once, in the library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..usage import Usage, bind

if TYPE_CHECKING:  # deps binds callers through this module
    from ..client import Client
    from .deps import Caller, ServerState

__all__ = ["attach", "bind_caller"]


def attach(state: ServerState, client: Client) -> None:
    billing = client.billing
    billing.quota = state.limits.spend_searches
    billing.unquota = state.limits.release_searches
    billing.search_cap = client.settings.max_searches_per_request
    if state.metrics.observe_usage not in billing.observers:
        billing.observers.append(state.metrics.observe_usage)
    client.observe_jobs(state.metrics.observe_job)


def bind_caller(state: ServerState, caller: Caller) -> Usage:
    """Charge the rest of this request to `caller` (their quota, the ledger, metrics)."""
    client = state.client
    if client is None:  # starting or stopping: the route will say so
        return Usage()
    meter = client.billing.meter(caller.key, label=caller.label)
    bind(meter)
    return meter
