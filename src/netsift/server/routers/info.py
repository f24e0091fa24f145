"""What the host is and how it is doing: `/v1/info`, `/healthz`, `/readyz` and `/metrics`.

`/v1/info` tells a client what it may ask (capabilities on and off, providers with their
configuration, breaker state and limits, the cache and its counts); `/metrics` is the
Prometheus exposition. The probes need no key: they reveal nothing but liveness.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from ..._version import __version__
from ...config import CAPABILITIES, Settings
from ...research.llm import llm_configured
from .. import compat
from ..deps import CallerDep, StateDep
from ..metrics import CONTENT_TYPE
from ..responses import errors_for

__all__ = ["router"]

log = logging.getLogger(__name__)
router = APIRouter(tags=["info"])


class Limits(BaseModel):
    rate_limit: str | None
    search_quota: str | None
    max_body: int
    max_searches_per_request: int
    max_bytes: int
    timeout: float


class Info(BaseModel):
    version: str
    capabilities: dict[str, bool]
    auth_required: bool
    providers: list[dict[str, Any]]
    limits: Limits
    cache: dict[str, Any] | None
    compat: dict[str, compat.CompatAPI]  # each compatible API's base URL for its client


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready", "degraded", "not_ready"]
    checks: dict[str, str]


@router.get(
    "/v1/info",
    response_model=Info,
    responses=errors_for(401, 429, 500, 503),
    summary="Version, capabilities, providers (configured, breaker, limits), cache stats",
)
async def info(request: Request, state: StateDep, caller: CallerDep) -> Info:
    client = state.require_client()
    settings = client.settings
    providers: list[dict[str, Any]] = []
    cache: dict[str, Any] | None = None
    if settings.enabled("search"):
        providers = client.provider_status()
        cache = await client.cache_stats()
    return Info(
        version=__version__,
        capabilities={name: _available(settings, name) for name in CAPABILITIES},
        auth_required=state.auth.required,
        providers=providers,
        limits=Limits(
            rate_limit=state.limits.rate_limit,
            search_quota=state.limits.search_quota,
            max_body=state.settings.server_max_body,
            max_searches_per_request=settings.max_searches_per_request,
            max_bytes=settings.max_bytes,
            timeout=settings.timeout,
        ),
        cache=cache,
        compat=compat.base_urls(
            str(request.base_url), firecrawl_port=state.settings.firecrawl_port
        ),
    )


def _available(settings: Settings, capability: str) -> bool:
    """On, and able to answer: chat needs a model (research without one reads extractively)."""
    if capability == "chat" and not llm_configured(settings):
        return False
    return settings.enabled(capability)


@router.get("/healthz", response_model=Health, summary="Liveness: the process answers")
async def healthz() -> Health:
    return Health(status="ok")


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready (starting, or cache down)"}},
    summary="Readiness: the Client is up and the search cache answers",
)
async def readyz(state: StateDep) -> Response:
    checks: dict[str, str] = {}
    client = state.client
    checks["client"] = "ok" if client is not None else "starting"
    if client is not None and client.settings.enabled("search"):
        try:
            checks["cache"] = await client.cache_health()
        except Exception as exc:  # a probe reports, it does not fail
            log.warning("readiness: the search cache does not answer", exc_info=True)
            checks["cache"] = f"failing ({type(exc).__name__})"
    if state.limits.degraded:
        checks["limits"] = state.limits.degraded
    # degraded still serves (local cache and limits stand in for Redis): ready, and said so
    ready = all(value == "ok" or value.startswith("degraded") for value in checks.values())
    degraded = any(value.startswith("degraded") for value in checks.values())
    status = ("degraded" if degraded else "ready") if ready else "not_ready"
    body = Readiness(status=status, checks=checks)
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        **errors_for(401, 429, 500),
    },
    summary="Prometheus metrics: requests, latency, searches, cache, fetches, errors",
)
async def metrics(state: StateDep, caller: CallerDep) -> Response:
    return Response(state.metrics.render(), media_type=CONTENT_TYPE)
