"""What a route needs, as FastAPI dependencies: the server's state and the authenticated caller.

`get_state` hands out the one `ServerState` the app holds (Client, metrics, limits, auth);
tests swap pieces through `app.dependency_overrides`, the way FastAPI intends. `get_caller`
authenticates the request and counts it against the client's rate limit, so every API
route that declares it is guarded the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from ..client import Client
from ..config import Settings
from ..errors import Disabled
from .auth import ANONYMOUS, Authenticator, bearer_from_subprotocols
from .limits import ClientLimits
from .metrics import Metrics
from .usage import bind_caller

__all__ = [
    "Caller",
    "CallerDep",
    "ServerState",
    "StateDep",
    "authenticate",
    "get_caller",
    "get_state",
    "state_of",
]

# Declares the scheme in OpenAPI; the check itself is Authenticator's (constant time).
bearer = HTTPBearer(auto_error=False, description="An API key from NETSIFT_API_KEYS.")


@dataclass
class ServerState:
    """Everything the routes share; built once per app (the Client by the lifespan)."""

    settings: Settings
    metrics: Metrics
    limits: ClientLimits
    auth: Authenticator
    client: Client | None = None

    def require_client(self) -> Client:
        if self.client is None:
            raise Disabled("the server is starting or stopping; try again in a moment")
        return self.client


@dataclass(frozen=True)
class Caller:
    """Who is calling: `key` counts against limits, `label` names them in metrics."""

    key: str
    label: str


def state_of(connection: HTTPConnection) -> ServerState:
    state: ServerState = connection.app.state.netsift
    return state


async def get_state(connection: HTTPConnection) -> ServerState:
    # async on purpose: FastAPI runs a plain `def` dependency in a worker thread, a hop that
    # cost more than the rest of a cached search.
    return state_of(connection)


StateDep = Annotated[ServerState, Depends(get_state)]


def authenticate(state: ServerState, connection: HTTPConnection) -> Caller:
    """The caller behind a request or WebSocket handshake; raises Unauthorized.

    A handshake without `Authorization` may carry the key as a subprotocol (auth.py)."""
    authorization = connection.headers.get("authorization")
    if authorization is None and connection.scope["type"] == "websocket":
        authorization = bearer_from_subprotocols(connection.scope.get("subprotocols", []))
    fingerprint = state.auth.check(authorization)
    if fingerprint is not None:
        return Caller(key=fingerprint, label=fingerprint)
    host = connection.client.host if connection.client else "unknown"
    return Caller(key=f"ip-{host}", label=ANONYMOUS)


async def get_caller(
    request: Request,
    state: StateDep,
    _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Caller:
    caller = authenticate(state, request)
    await state.limits.hit_request(caller.key)
    bind_caller(state, caller)  # what the request spends is the caller's (server/usage.py)
    return caller


CallerDep = Annotated[Caller, Depends(get_caller)]
