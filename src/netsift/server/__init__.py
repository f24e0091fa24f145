"""netsift's HTTP API (the `server` extra): REST, SSE, WebSocket, OpenAPI and a web page."""

from .app import create_app

__all__ = ["create_app"]
