"""audit.py: one NDJSON line per request, no secrets, whole lines under concurrent writers."""

from __future__ import annotations

import json
import os
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

from netsift.net.audit import AuditLog, build_audit_entry, request_id_var


def entry(**overrides: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "kind": "fetch",
        "method": "GET",
        "url": "https://user:pw@api.example/search?key=SECRET&q=x",
        "resolved_ip": "93.184.215.14",
        "status": 200,
        "size": 1234,
        "elapsed_ms": 12.345,
        "outcome": "ok",
    }
    fields.update(overrides)
    return build_audit_entry(**fields)  # type: ignore[arg-type]


def test_entry_fields_and_no_secrets() -> None:
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    line = entry(at=at, request_id="req-1")
    assert list(line) == [
        "at",
        "kind",
        "method",
        "url",
        "resolved_ip",
        "status",
        "bytes",
        "elapsed_ms",
        "outcome",
        "request_id",
    ]
    assert line["url"] == "https://api.example/search"
    assert "SECRET" not in json.dumps(line) and "pw" not in json.dumps(line)
    assert line["at"] == "2026-01-02T03:04:05.000+00:00"
    assert line["elapsed_ms"] == 12.3
    assert line["request_id"] == "req-1"


def test_request_id_comes_from_the_context() -> None:
    token = request_id_var.set("abc123")
    try:
        assert entry()["request_id"] == "abc123"
    finally:
        request_id_var.reset(token)
    assert entry()["request_id"] is None


def test_lines_are_appended_and_private(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "audit.ndjson"
    log = AuditLog(path)
    log.record(
        kind="fetch",
        method="GET",
        url="http://a.test/",
        resolved_ip=None,
        status=None,
        size=0,
        elapsed_ms=0.0,
        outcome="blocked_address",
    )
    log.record(
        kind="robots",
        method="GET",
        url="http://a.test/robots.txt",
        resolved_ip="127.0.0.1",
        status=200,
        size=10,
        elapsed_ms=1.0,
        outcome="ok",
    )
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["fetch", "robots"]
    assert lines[0]["outcome"] == "blocked_address" and lines[0]["resolved_ip"] is None
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_concurrent_writers_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "audit.ndjson"
    logs = [AuditLog(path) for _ in range(8)]  # separate objects, like separate processes
    long_path = "/" + "x" * 3000

    def writer(n: int) -> None:
        for i in range(200):
            logs[n].record(
                kind="fetch",
                method="GET",
                url=f"http://w{n}.test{long_path}?i={i}",
                resolved_ip=None,
                status=200,
                size=i,
                elapsed_ms=0.0,
                outcome="ok",
            )

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = path.read_text().splitlines()
    assert len(lines) == 1600
    parsed = [json.loads(line) for line in lines]  # every line is whole JSON
    assert sorted(p["bytes"] for p in parsed if p["url"].startswith("http://w3.test")) == list(
        range(200)
    )
