"""`/docs`: Swagger UI from this server, never from a CDN, so an offline install has its docs.

The assets (Swagger UI's bundle, stylesheet and icon) come from the `fastapi-offline`
package, a dependency of the `server` extra, and are mounted at `/docs/assets`; the page and
its OAuth2 redirect are FastAPI's own, pointed at them.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse

__all__ = ["ASSETS", "ASSETS_URL", "router"]  # app.py mounts ASSETS at ASSETS_URL

ASSETS = Path(str(files("fastapi_offline") / "static"))
ASSETS_URL = "/docs/assets"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def docs(request: Request) -> HTMLResponse:
    root = request.scope.get("root_path", "")
    return get_swagger_ui_html(
        openapi_url=f"{root}{request.app.openapi_url}",
        title=f"{request.app.title} - API",
        swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
        swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
        swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
        oauth2_redirect_url=f"{root}{OAUTH2_REDIRECT}",
    )


@router.get(OAUTH2_REDIRECT)
async def oauth2_redirect() -> HTMLResponse:
    return get_swagger_ui_oauth2_redirect_html()
