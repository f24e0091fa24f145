"""The audit log: one NDJSON line per request netsift sends, so an operator can answer
"what did the agent touch?" after the fact (`NETSIFT_AUDIT_LOG`).

Each line is written with a single `write` on a file opened with O_APPEND, so lines from
concurrent writers (tasks, threads, processes) never interleave; nothing is buffered.
URLs lose their query string and credentials before they are written.
"""

from __future__ import annotations

import json
import os
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .guard import safe_url

__all__ = ["AuditLog", "build_audit_entry", "request_id_var"]

request_id_var: ContextVar[str | None] = ContextVar("netsift_request_id", default=None)


def build_audit_entry(
    *,
    kind: str,
    method: str,
    url: str,
    resolved_ip: str | None,
    status: int | None,
    size: int,
    elapsed_ms: float,
    outcome: str,
    at: datetime | None = None,
    request_id: str | None = None,
) -> dict[str, Any]:
    """One line's fields, in a stable order (pure)."""
    return {
        "at": (at or datetime.now(UTC)).isoformat(timespec="milliseconds"),
        "kind": kind,
        "method": method,
        "url": safe_url(url),
        "resolved_ip": resolved_ip,
        "status": status,
        "bytes": size,
        "elapsed_ms": round(elapsed_ms, 1),
        "outcome": outcome,
        "request_id": request_id if request_id is not None else request_id_var.get(),
    }


class AuditLog:
    """Appends NDJSON lines to `path` (created with mode 0600 when missing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def write(self, entry: dict[str, Any]) -> None:
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def record(self, **fields: Any) -> None:
        """Build one entry (see `build_audit_entry`) and append it."""
        self.write(build_audit_entry(**fields))
