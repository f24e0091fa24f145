"""The request id a door assigns, for the audit log and search answers to carry.

Apart from audit.py (which brings httpx) so that code that only reads the id, such as a cached
search's answer, does not load the HTTP stack.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["request_id_var"]

request_id_var: ContextVar[str | None] = ContextVar("netsift_request_id", default=None)
