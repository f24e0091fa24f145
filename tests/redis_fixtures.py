"""A real Redis server for the tests marked `redis`: started once per session on a free port.

CI installs `redis-server` (Debian's package) in `.ci/run`; on a developer machine without
it the Redis tests are skipped with the reason, except under CI, where they fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["redis_server", "redis_url"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`redis://127.0.0.1:PORT` of a throwaway server with no persistence."""
    binary = shutil.which("redis-server")
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed (.ci/run installs it with apt-get)")
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = _free_port()
    workdir: Path = tmp_path_factory.mktemp("redis")
    args = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly"]
    args += ["no", "--dir", str(workdir)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not _ping(port):
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            pytest.fail("redis-server did not start")
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """The session's Redis, emptied after each test so tests never see each other's keys."""
    yield redis_server
    port = int(redis_server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"FLUSHALL\r\n")
        sock.recv(16)
