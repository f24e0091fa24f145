"""create_app(): the HTTP API over one Client — REST, SSE, WebSocket, OpenAPI and the web page.

    app = create_app(settings)            # the lifespan opens (and closes) the Client
    app = create_app(settings, client=c)  # tests: an already entered Client, no lifespan needed

Errors are rendered in one place each: `NetsiftError` by its class, validation failures as
400 (malformed JSON) or 422, unknown routes as 404, and anything else as `internal` (500)
without a traceback — all as `{"error": {code, message, retryable, details}}`. A server is
not one agent session, so the per-session search budget is lifted for the Client it builds;
the per-client quota (`NETSIFT_SERVER_SEARCH_QUOTA`) is the budget here.
"""

from __future__ import annotations

import gc
import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles

from .._version import __version__
from ..client import Client
from ..config import Settings
from ..errors import InvalidInput, NetsiftError, NotFound
from . import compat
from .auth import Authenticator
from .deps import ServerState
from .head import HeadAsGet
from .limits import ClientLimits
from .metrics import Metrics
from .middleware import RequestContext, TrustedProxies
from .responses import describe_validation, error_response
from .routers import chat, discoveries, docs, fetch, info, page, research, search, sleeps, ws
from .routers import context as context_router
from .routers import crawl as crawl_router
from .routers import map as map_router
from .routers import responses as responses_router
from .routers import toolbelt as toolbelt_router
from .routers import usage as usage_router
from .usage import attach

__all__ = ["create_app", "create_app_from_env", "server_settings"]

log = logging.getLogger(__name__)

# The routers, in the order their routes are matched. Research-side routers join this list.
ROUTERS = (
    search.router,
    fetch.router,
    map_router.router,
    context_router.router,
    info.router,
    research.router,
    crawl_router.router,
    chat.router,
    chat.models_router,
    responses_router.router,
    sleeps.router,
    discoveries.router,
    usage_router.router,
    toolbelt_router.router,
    ws.router,
    page.router,
    docs.router,
)

DESCRIPTION = """Web search and page reading for AI agents, self-hosted.

Every failure is `{"error": {"code", "message", "retryable", "details"}}`; 429 answers carry
`Retry-After`. Send `Accept: text/event-stream` to `/v1/search` or `/v1/search/batch` to
follow the provider attempts live, or use the WebSocket at `/v1/ws`."""


def server_settings(settings: Settings) -> Settings:
    """The Client's settings for a server: no per-session search budget (quotas rule here)."""
    return settings.model_copy(update={"max_searches_per_session": sys.maxsize})


def create_app(
    settings: Settings | None = None,
    *,
    client: Client | None = None,
    multiprocess_dir: Path | None = None,
    warm: bool = False,
) -> FastAPI:
    """The ASGI app. Without `client`, its lifespan builds one from `settings` and closes it.
    `warm` (what `netsift serve` asks) starts the extraction worker and imports the fetch
    and crawl code at start-up, not on the first request that needs them."""
    if settings is None:
        settings = client.settings if client is not None else Settings()
    metrics = Metrics(multiprocess_dir=multiprocess_dir)
    state = ServerState(
        settings=settings,
        metrics=metrics,
        limits=ClientLimits.from_settings(settings),
        auth=Authenticator(settings.api_keys),
        client=client,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            if client is not None:
                attach(state, client)
                yield
                return
            async with Client(server_settings(settings)) as own, anyio.create_task_group() as tg:
                state.client = own
                attach(state, own)
                worker = (
                    own.worker()
                    if settings.run_jobs
                    and (settings.enabled("research") or settings.enabled("fetch"))  # crawls
                    else None
                )
                if worker is not None:  # jobs of any replica, and of dead workers, run here too
                    tg.start_soon(worker.run)
                if warm and settings.enabled("fetch"):
                    _import_readers()  # before the freeze below, so they are frozen too
                    tg.start_soon(_start_compute, own)
                # What start-up made (modules, models, the app, the Client) lives as long as
                # the server: out of the collector's reach, a full collection (the ~100,000
                # objects of a 50,000-URL map's merge trigger some) scans what requests made
                # only. Measured in-process: the loop's worst wait during that map 110-134 ms
                # (a gen-2 collection of ~115,000 objects) without, 26 ms with.
                gc.freeze()
                try:
                    yield
                finally:
                    state.client = None
                    if worker is not None:
                        worker.stop()
        finally:
            await state.limits.aclose()

    app = FastAPI(
        title="netsift",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served by routers/docs.py from local assets, not a CDN
        redoc_url=None,
    )
    app.state.netsift = state
    render = _renderer(metrics)
    _add_error_handlers(app, render)
    app.add_middleware(HeadAsGet, router=app.router)
    app.add_middleware(
        RequestContext, metrics=metrics, max_body=settings.server_max_body, render=render
    )
    if settings.trusted_proxies:
        app.add_middleware(TrustedProxies, networks=settings.trusted_proxies)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=api_methods(),
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
            expose_headers=["X-Request-ID", "Retry-After"],
        )
    for router in ROUTERS + compat.ROUTERS:
        app.include_router(router)
    # outermost: every layer inside (body bounds, errors, metrics) sees the settled route
    app.add_middleware(compat.CompatRouting, firecrawl_port=settings.firecrawl_port)
    app.mount("/static", page.StaticAssets(), name="static")
    app.mount(docs.ASSETS_URL, StaticFiles(directory=docs.ASSETS), name="docs-assets")
    if not state.auth.required:
        app.openapi = _without_security(app)  # type: ignore[method-assign]
    return app


def api_methods() -> list[str]:
    """Every method the API's routes answer (GET, POST, DELETE...), for CORS preflights."""
    methods = {
        method
        for router in ROUTERS
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in route.methods or ()
    }
    return sorted(methods)


def _without_security(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """The document of a server without keys declares no auth: it matches what it does."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            for operations in document.get("paths", {}).values():
                for operation in operations.values():
                    operation.pop("security", None)
                    operation.get("responses", {}).pop("401", None)
            document.get("components", {}).pop("securitySchemes", None)
            app.openapi_schema = document
        return app.openapi_schema

    return openapi


def _allowed_methods(app: FastAPI, request: Request, starlette_allow: str) -> list[str]:
    """Every method served on this path. Starlette names only the first matching route's, so
    the document's operations on the same path template are added."""
    methods = {m.strip().upper() for m in starlette_allow.split(",") if m.strip()}
    for template, operations in app.openapi().get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            methods |= {method.upper() for method in operations}
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def create_app_from_env() -> FastAPI:
    """The factory `netsift serve` hands uvicorn: Settings from the environment, once."""
    multiprocess = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return create_app(
        Settings(), multiprocess_dir=Path(multiprocess) if multiprocess else None, warm=True
    )


def _import_readers() -> None:
    """The fetch and crawl code a server imports on its first page or crawl otherwise: on the
    event loop, 40 ms at once (bench/map.py's first crawl)."""
    from ..crawl import crawler  # noqa: F401
    from ..fetch import fetcher  # noqa: F401


async def _start_compute(client: Client) -> None:
    """The extraction worker started in a thread; a failure is logged, and the first page
    then starts it as it would have."""
    try:
        await anyio.to_thread.run_sync(client.start_workers)
    except Exception:
        log.warning("the extraction worker did not start at start-up", exc_info=True)


class _Render(Protocol):
    def __call__(
        self,
        path: str,
        error: NetsiftError,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> JSONResponse: ...


def _renderer(metrics: Metrics) -> _Render:
    """The one rendering of an error on this server: counted, then shaped as the route at
    `path` answers (a compatible API's own envelope, or netsift's)."""

    def render(
        path: str,
        error: NetsiftError,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> JSONResponse:
        metrics.observe_error(error.code)
        if (compatible := compat.renderer_for(path)) is None:
            return error_response(error, status=status, headers=headers)
        response = compatible(error)  # the shape that API's clients read
        if status == 405:  # the method, not the body, is wrong: keep HTTP's own answer
            response.status_code = status
            response.headers.update(headers or {})
        return response

    return render


def _add_error_handlers(app: FastAPI, rendered: _Render) -> None:
    def render(
        request: Request,
        error: NetsiftError,
        *,
        status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> JSONResponse:
        return rendered(request.url.path, error, status=status, headers=headers)

    @app.exception_handler(NetsiftError)
    async def netsift_error(request: Request, exc: NetsiftError) -> JSONResponse:
        return render(request, exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(err.get("type") == "json_invalid" for err in errors):
            return render(request, InvalidInput("the request body is not valid JSON"))
        if "json" not in request.headers.get("content-type", "") and any(
            tuple(err.get("loc", ())) == ("body",) for err in errors
        ):
            return render(
                request,
                InvalidInput("send the body as a JSON object with Content-Type: application/json"),
            )
        return render(request, InvalidInput(describe_validation(exc)), status=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404:
            return render(request, NotFound(f"no such route: {request.method} {request.url.path}"))
        if exc.status_code == 405:
            allow = ", ".join(_allowed_methods(app, request, (exc.headers or {}).get("Allow", "")))
            error = InvalidInput(
                f"{request.method} is not allowed on {request.url.path}",
                details={"allow": allow},
            )
            return render(request, error, status=405, headers={"Allow": allow} if allow else None)
        return render(request, InvalidInput(str(exc.detail)), status=exc.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("unexpected failure on %s %s", request.method, request.url.path, exc_info=exc)
        return render(request, NetsiftError("internal error; the server log has the details"))
