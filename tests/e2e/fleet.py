"""Real netsift processes for a test (API replicas, workers) on one store, killed at the end;
and the two waits every process test needs: a free port, and a condition coming true.

A wait polls for its event; its timeout only says how long "never" is on the quiet development
machine, stretched by the machine's measured slowness (tests/timing.py) so a busy CI runner or
laptop waits longer instead of failing."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.timing import scaled

if TYPE_CHECKING:
    from tests.integration.research.fixtures import ResearchWeb, ScriptedLLM

__all__ = ["Fleet", "free_port", "research_env", "until"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# How often a wait looks again: far below any event's time, far above the check's cost.
POLL_INTERVAL = 0.05


def until(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """`check()`'s first truthy value, polled; fails naming `what` after `timeout` seconds of
    the quiet development machine (`scaled`: longer on a busy one)."""
    allowed = scaled(timeout)
    started = time.monotonic()
    while time.monotonic() - started < allowed:
        if value := check():
            return value
        time.sleep(POLL_INTERVAL)
    raise AssertionError(f"never got there in {allowed:.0f} s (scaled from {timeout:g}): {what}")


def research_env(
    request: pytest.FixtureRequest, web: ResearchWeb, llm: ScriptedLLM, tmp: Path
) -> dict[str, str]:
    """The settings every research fleet shares: the offline research web and the scripted
    model, a jobs store (the fixture's parameter: the suite's redis-server, or a SQLite file),
    its own data directory, and no shared cache, so every search reaches the provider."""
    store = (
        request.getfixturevalue("redis_url")
        if request.param == "redis"
        else f"sqlite:///{tmp / 'jobs.sqlite3'}"
    )
    return {
        **web.env(),
        **llm.env(),
        "NETSIFT_JOBS_URL": store,
        "NETSIFT_DATA_DIR": str(tmp / "data"),
        "NETSIFT_CACHE_URL": "memory://",
    }


class Fleet:
    """The processes of one test, all pointed at the same store; killed at the end.
    `patience` is how long a wait for one of them (the API starting) may take on a quiet
    machine (`until` stretches it on a busy one)."""

    def __init__(self, env: dict[str, str], tmp: Path, *, patience: float = 30.0) -> None:
        self.env = env
        self.tmp = tmp
        self.patience = patience
        self.processes: list[subprocess.Popen[bytes]] = []

    def log(self, process: subprocess.Popen[bytes]) -> str:
        """What `process` wrote so far (stdout and stderr)."""
        return self._log_path(self.processes.index(process)).read_text("utf-8", "replace")

    def _log_path(self, index: int) -> Path:
        return self.tmp / f"proc-{index}.log"

    def __enter__(self) -> Fleet:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self._log_path(len(self.processes)), "wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "netsift", *args],
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.processes.append(process)
        return process

    def api(self) -> str:
        """`netsift serve --no-worker`, ready once its liveness probe answers (the one route
        that wants no key)."""
        port = free_port()
        self.start("serve", "--port", str(port), "--no-worker", "--log-level", "warning")
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        until(up, self.patience, what="the API to start")
        return url

    def worker(self, *extra: str) -> subprocess.Popen[bytes]:
        return self.start("worker", "--concurrency", "2", *extra)

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=scaled(10))
