"""Handing a one-shot `--json` call to a running `netsift serve`, for agents that run the CLI
as one process per tool call.

    netsift serve &                                           # once
    export NETSIFT_HANDOFF=http://127.0.0.1:8080
    netsift fetch URL --json                                  # a small client, every call

A one-shot command pays for netsift's imports (the command line, the settings, pydantic, httpx,
the readers) on every call; a running server has paid them once. With NETSIFT_HANDOFF set,
`netsift fetch URL --json`, `netsift meta URL --json`, `netsift search QUERY --json` and
`netsift extract FILE --json` — exactly these forms; any other option runs in this process as
usual — are sent to that server (`POST /v1/fetch`, `/v1/meta`, `/v1/search`, `/v1/extract/html`,
the file's text as its `html`) by this module, which imports nothing of netsift
but its errors. The server reads the page under its own SSRF guard, robots.txt, limits and
settings, and its answer is printed as the command prints it: the same JSON, or the same
`{"error": …}` object with the error's exit code. A server that cannot be reached is not an
error: the call then runs here. Only a loopback address is accepted: the call carries no key
and its answer is trusted as the command's own.
"""

from __future__ import annotations

import json
import os
import sys
from urllib.parse import urlsplit

__all__ = ["HANDOFF_ENV", "hand_off"]

HANDOFF_ENV = "NETSIFT_HANDOFF"
# The commands handed off, as `COMMAND VALUE --json`: the route, and the field VALUE fills.
ROUTES = {
    "fetch": ("/v1/fetch", "url"),
    "meta": ("/v1/meta", "url"),
    "search": ("/v1/search", "query"),
    "extract": ("/v1/extract/html", "html"),
}
# The largest file `extract` hands off: well inside the server's default body cap (1 MiB, as
# JSON-escaped text); a larger one, or one that is not UTF-8 text, is read here as usual.
EXTRACT_MAX_BYTES = 512 * 1024
LOOPBACK = ("127.0.0.1", "localhost", "::1")
# Seconds to connect: a server on the loopback accepts at once, or is not there.
CONNECT_TIMEOUT = 1.0
# Seconds for its answer: a fetch's own limit (NETSIFT_TIMEOUT, 30 s) plus the reading.
ANSWER_TIMEOUT = 120.0


def hand_off(argv: list[str]) -> int | None:
    """The exit code of `argv` answered by the server NETSIFT_HANDOFF names; None when the
    call is not one handed off (or no server answers), so the command runs here."""
    target = os.environ.get(HANDOFF_ENV, "")
    if not target or len(argv) != 3 or argv[0] not in ROUTES or argv[2] != "--json":
        return None
    value = argv[1]
    if value.startswith("-"):
        return None
    where = urlsplit(target)
    if where.scheme != "http" or where.hostname not in LOOPBACK:
        sys.stderr.write(
            f"warning: {HANDOFF_ENV}={target} ignored: only http:// on the loopback is handed "
            "calls\n"
        )
        return None
    import http.client  # only for a call handed off: every other command skips its import

    path, field = ROUTES[argv[0]]
    if argv[0] == "extract":
        text = _file_text(value)
        if text is None:
            return None
        value = text
    body = json.dumps({field: value}).encode()
    connection = http.client.HTTPConnection(
        where.hostname, where.port or 80, timeout=CONNECT_TIMEOUT
    )
    try:
        connection.connect()
    except OSError:
        return None  # no server there: run the command here
    try:
        assert connection.sock is not None
        connection.sock.settimeout(ANSWER_TIMEOUT)
        connection.request("POST", path, body=body, headers={"content-type": "application/json"})
        response = connection.getresponse()
        answer = json.loads(response.read())
    except (OSError, http.client.HTTPException, ValueError):
        return None  # the server went away mid-call: run the command here
    finally:
        connection.close()
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    if response.status < 400:
        return 0
    from .errors import error_from_dict

    error = answer.get("error") if isinstance(answer, dict) else None
    return error_from_dict(error).exit_code if isinstance(error, dict) else 1


def _file_text(name: str) -> str | None:
    """The file's text for `extract`, or None to read it here (too large, not UTF-8, absent:
    the command then says so in its own words)."""
    try:
        with open(name, "rb") as file:
            data = file.read(EXTRACT_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > EXTRACT_MAX_BYTES or b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
