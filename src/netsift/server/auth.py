"""Who may call the API: bearer tokens from `NETSIFT_API_KEYS`, and where the server may bind.

The server is safe by default: it binds the loopback, and binding any other address needs API
keys (or an explicit `--insecure-no-auth`). The key travels in `Authorization: Bearer <key>`;
a browser cannot set that header on a WebSocket, so `/v1/ws` also takes it as the second of
the subprotocols `["netsift.bearer", "<key>"]` (`new WebSocket(url, ["netsift.bearer", key])`)
and answers with `netsift.bearer` alone, never echoing the key. Never in the URL: query
strings end up in access logs and browser history. Tokens are compared in constant time, against
every key, so neither a key's length nor its position leaks through timing. A caller is known
by a fingerprint of its key (never the key itself), which names it in limits and metrics.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from ..errors import Disabled, Unauthorized

__all__ = [
    "ANONYMOUS",
    "BEARER_SUBPROTOCOL",
    "Authenticator",
    "bearer_from_subprotocols",
    "check_bind",
    "is_loopback",
]

ANONYMOUS = "anonymous"
BEARER_SUBPROTOCOL = "netsift.bearer"


def is_loopback(host: str) -> bool:
    """True for `localhost` and any loopback address (127.0.0.0/8, ::1)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, api_keys: list[str], insecure_no_auth: bool) -> None:
    """Refuse to serve without authentication anywhere but the loopback (raises Disabled)."""
    if is_loopback(host) or api_keys or insecure_no_auth:
        return
    raise Disabled(
        f"refusing to serve {host} without authentication: set NETSIFT_API_KEYS "
        "(bearer tokens) or pass --insecure-no-auth if something else guards this address",
        details={"host": host},
    )


def bearer_from_subprotocols(subprotocols: list[str]) -> str | None:
    """`Bearer <key>` from a WebSocket's offered subprotocols `[..., "netsift.bearer", key]`;
    None when `netsift.bearer` is not offered, `Bearer ` (no key: refused) when nothing
    follows it."""
    if BEARER_SUBPROTOCOL not in subprotocols:
        return None
    rest = subprotocols[subprotocols.index(BEARER_SUBPROTOCOL) + 1 :]
    return f"Bearer {rest[0] if rest else ''}"


def _fingerprint(key: bytes) -> str:
    return "key-" + hashlib.sha256(key).hexdigest()[:12]


class Authenticator:
    """Checks `Authorization: Bearer <key>`; with no keys configured everyone is let in."""

    def __init__(self, api_keys: list[str]) -> None:
        self._keys = [key.encode() for key in api_keys if key]

    @property
    def required(self) -> bool:
        return bool(self._keys)

    def check(self, authorization: str | None) -> str | None:
        """The caller's key fingerprint; None when no keys are configured. Raises Unauthorized."""
        if not self._keys:
            return None
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized(
                "this server needs an API key: send `Authorization: Bearer <key>`",
                details={"scheme": "bearer"},
            )
        given = token.strip().encode()
        matched: bytes | None = None
        for key in self._keys:  # no early exit: every key is compared every time
            if hmac.compare_digest(given, key):
                matched = key
        if matched is None:
            raise Unauthorized("the API key is not valid", details={"scheme": "bearer"})
        return _fingerprint(matched)
