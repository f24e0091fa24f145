"""Internet Archive simulator: the Wayback availability API, the CDX index, snapshots, saves.

As the real services answer (github.com/internetarchive/wayback, wayback-cdx-server's README):
- `GET /wayback/available?url=&timestamp=` →
  `{"url", "archived_snapshots": {"closest": {"status", "available", "url", "timestamp"}}}`,
  `{"archived_snapshots": {}}` when nothing is archived (200 either way);
- `GET /cdx/search/cdx?url=&output=json[&limit=N|-N][&closest=TS&sort=closest]` → a header
  row (urlkey, timestamp, original, mimetype, statuscode, digest, length) then one row per
  capture, `[]` when none; without `output=json`, space-separated lines;
- `GET /web/<ts>[id_]/<url>` → the capture nearest `<ts>` (a 302 to its exact timestamp when
  `<ts>` is not one); `id_` serves the archived bytes as captured, without it a banner is
  added above them as the Wayback Machine's toolbar is;
- `GET /save/<url>` (Save Page Now) → captures the page now: 302 to `/web/<ts>/<url>`, with
  the same place in `Content-Location`.
Every URL is archived at ARCHIVED (three captures over five years) except under
`/never-archived`, plus whatever was saved during the test (read back from the requests seen,
so a reset forgets it). Modes: `noresults` (nothing archived), `lagging` (the availability
API has nothing, as it often lags the index; the CDX index still answers), `server_error`,
`rate_limit` (429 with Retry-After, as the archive throttles), `malformed`, `timeout`.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from .sim import Knob, Seen, hang, int_param, json_response

NAME = "archive"
HOSTS = ("archive.test",)
MODES = frozenset(
    {"ok", "noresults", "lagging", "server_error", "rate_limit", "malformed", "timeout"}
)
ARCHIVED = ("20190315083000", "20210704120000", "20240101093000")
FIELDS = ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]
NEVER = "/never-archived"


def _when(timestamp: str) -> datetime:
    # a partial timestamp means its earliest moment, as the Wayback Machine reads it
    padded = (timestamp + "00000101000000"[len(timestamp) :])[:14]
    return datetime.strptime(padded, "%Y%m%d%H%M%S").replace(tzinfo=UTC)


def _saved(knob: Knob, url: str) -> list[str]:
    """The timestamps of the saves of `url` this test asked for (the wall clock then)."""
    now_wall, now_mono = datetime.now(UTC), time.monotonic()
    return [
        (now_wall - timedelta(seconds=now_mono - seen.at)).strftime("%Y%m%d%H%M%S")
        for seen in knob.requests
        if seen.path.startswith("/save/") and _target(seen.path, "/save/") == url
    ]


def _target(path: str, prefix: str) -> str:
    return path[len(prefix) :]


def _captures(knob: Knob, url: str, mode: str) -> list[str]:
    if mode == "noresults" or urlsplit(url).path.startswith(NEVER):
        return sorted(_saved(knob, url))
    return sorted([*ARCHIVED, *_saved(knob, url)])


def _closest(captures: list[str], timestamp: str | None) -> str | None:
    if not captures:
        return None
    if not timestamp:
        return captures[-1]
    wanted = _when(timestamp)
    return min(captures, key=lambda ts: abs((_when(ts) - wanted).total_seconds()))


def _surt(url: str) -> str:
    parts = urlsplit(url)
    host = ",".join(reversed((parts.hostname or "").split(".")))
    return f"{host}){parts.path or '/'}{'?' + parts.query if parts.query else ''}"


def _body(url: str, timestamp: str) -> bytes:
    """The page as it was at `timestamp`: what a citation of that day would quote."""
    day = _when(timestamp).date().isoformat()
    title = html.escape(f"{urlsplit(url).path or '/'} as it stood on {day}")
    text = (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<meta name='author' content='Ada Archivist'>"
        f"<meta property='article:published_time' content='{day}'>"
        f"<link rel='canonical' href='{html.escape(url)}'></head><body><article>"
        f"<h1>{title}</h1><p>This copy of {html.escape(url)} was captured by the archive on "
        f"{day}. It keeps the words the page said that day, long after the page changed or "
        "went away, so a citation can still show what was quoted.</p>"
        "<p>The archive stores every capture under its timestamp and serves it unchanged.</p>"
        "</article></body></html>"
    )
    return text.encode()


def _digest(body: bytes) -> str:
    """The CDX index's digest: SHA-1 of the body, base32."""
    return base64.b32encode(hashlib.sha1(body).digest()).decode()


def _link(request: Request, timestamp: str, url: str, flag: str = "") -> str:
    return f"http://{request.url.netloc}/web/{timestamp}{flag}/{url}"


def _full_path(request: Request) -> str:
    """The path with its query: an archived URL's own `?…` arrives as the request's query."""
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


async def handle(request: Request, knob: Knob, seen: Seen) -> Response:
    path = _full_path(request)
    endpoint = path.split("/")[1] if "/" in path else ""
    mode = knob.take(endpoint)
    if mode == "timeout":
        return await hang(request, knob.hang)
    if mode == "rate_limit":
        return Response(
            b"<html><body>Too Many Requests</body></html>",
            429,
            headers={"Retry-After": str(knob.retry_after), "Content-Type": "text/html"},
        )
    if mode == "server_error":
        return Response(b"<html><body>Service Unavailable</body></html>", 503)
    if request.url.path == "/wayback/available":
        return _available(request, knob, seen, mode)
    if request.url.path == "/cdx/search/cdx":
        return _cdx(request, knob, seen, mode)
    if request.url.path.startswith("/save/"):
        url = _target(path, "/save/")
        timestamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
        where = f"/web/{timestamp}/{url}"
        return Response(b"", 302, headers={"Location": where, "Content-Location": where})
    if request.url.path.startswith("/web/"):
        return _snapshot(request, knob, path, mode)
    return Response(b"Not Found", 404)


def _available(request: Request, knob: Knob, seen: Seen, mode: str) -> Response:
    url = seen.params.get("url", "")
    if mode == "malformed":
        return Response(b'{"url": "', 200, headers={"Content-Type": "application/json"})
    timestamp = seen.params.get("timestamp")
    body: dict[str, object] = {"url": url, "archived_snapshots": {}}
    if timestamp:
        body["timestamp"] = timestamp
    closest = None if mode == "lagging" else _closest(_captures(knob, url, mode), timestamp)
    if url and closest:
        body["archived_snapshots"] = {
            "closest": {
                "status": "200",
                "available": True,
                "url": _link(request, closest, url),
                "timestamp": closest,
            }
        }
    return json_response(body)


def _cdx(request: Request, knob: Knob, seen: Seen, mode: str) -> Response:
    url = seen.params.get("url", "")
    if not url:
        return Response(b"org.archive.wayback.exception.BadQueryException: No URL\n", 400)
    captures = _captures(knob, url, mode)
    closest = seen.params.get("closest")
    if closest and seen.params.get("sort") == "closest":
        wanted = _when(closest)
        captures.sort(key=lambda ts: abs((_when(ts) - wanted).total_seconds()))
    limit = int_param(seen.params.get("limit"), 0)
    if limit:
        captures = captures[:limit] if limit > 0 else captures[limit:]
    rows = []
    for timestamp in captures:
        body = _body(url, timestamp)
        rows.append([_surt(url), timestamp, url, "text/html", "200", _digest(body), str(len(body))])
    if seen.params.get("output") != "json":
        text = "".join(" ".join(row) + "\n" for row in rows)
        return Response(text.encode(), headers={"Content-Type": "text/plain"})
    if mode == "malformed":
        return Response(b"[[", 200, headers={"Content-Type": "application/json"})
    answer = [FIELDS, *rows] if rows else []
    return Response(json.dumps(answer).encode(), headers={"Content-Type": "application/json"})


def _snapshot(request: Request, knob: Knob, path: str, mode: str) -> Response:
    stamp, _, url = path[len("/web/") :].partition("/")
    raw = stamp.endswith("id_")
    timestamp = stamp.removesuffix("id_")
    if not timestamp.isdigit() or not url:
        return Response(b"Not Found", 404)
    closest = _closest(_captures(knob, url, mode), timestamp)
    if closest is None:
        return Response(
            b"<html><body>Wayback Machine has not archived that URL.</body></html>", 404
        )
    if closest != timestamp:
        return Response(
            b"", 302, headers={"Location": _link(request, closest, url, "id_" if raw else "")}
        )
    body = _body(url, closest)
    if not raw:
        banner = f"<div id='wm-ipp'>The Wayback Machine: {html.escape(url)}</div>".encode()
        body = body.replace(b"<body>", b"<body>" + banner, 1)
    headers = {
        "Content-Type": "text/html; charset=utf-8",
        "Memento-Datetime": _when(closest).strftime("%a, %d %b %Y %H:%M:%S GMT"),
    }
    return Response(body, headers=headers)
