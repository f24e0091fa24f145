"""Real netsift processes for a test (API replicas, workers) on one store, killed at the end;
and the two waits every process test needs: a free port, and a condition coming true."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

__all__ = ["Fleet", "free_port", "until"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def until(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    """`check()`'s first truthy value, polled every 50 ms; fails naming `what` at `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.05)
    raise AssertionError(f"never got there: {what}")


class Fleet:
    """The processes of one test, all pointed at the same store; killed at the end.
    `patience` is how long a wait for one of them (the API starting) may take."""

    def __init__(self, env: dict[str, str], tmp: Path, *, patience: float = 30.0) -> None:
        self.env = env
        self.tmp = tmp
        self.patience = patience
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, *args: str) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"proc-{len(self.processes)}.log", "wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "netsift", *args],
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.processes.append(process)
        return process

    def api(self) -> str:
        port = free_port()
        self.start("serve", "--port", str(port), "--no-worker", "--log-level", "warning")
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{url}/v1/info", timeout=1).status_code == 200
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
            process.wait(timeout=10)
