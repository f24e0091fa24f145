"""Fixtures of the browser tests: skip without a Chromium, and a canary on a blocked address.

The offline web lives on 127.0.0.1; these tests allow only 127.0.0.1/32, so the canary on
127.0.0.2 is an address the guard must refuse. It listens on TCP and UDP and counts every
connection and datagram it receives: a test asserts the counts stay 0.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from netsift.config import Settings
from netsift.render.step import browser_available

CANARY_HOST = "127.0.0.2"
ALLOW_ONLY_THE_WEB = ["127.0.0.1/32"]


def _chromium_present() -> bool:
    return browser_available(Settings(_env_file=None))


browser = pytest.mark.skipif(
    not _chromium_present(),
    reason="no Chromium for Playwright: pip install 'netsift[browser]' and apt-get install "
    "chromium (CI installs both)",
)


@dataclass
class Canary:
    port: int
    tcp: list[tuple[str, int]] = field(default_factory=list)
    udp: list[tuple[str, int]] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"{CANARY_HOST}:{self.port}"

    def hits(self) -> int:
        return len(self.tcp) + len(self.udp)


@pytest.fixture(scope="session")
def canary() -> Iterator[Canary]:
    """TCP and UDP listeners on 127.0.0.2 (same port) counting whatever reaches them."""
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind((CANARY_HOST, 0))
    tcp.listen(64)
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((CANARY_HOST, port))
    found = Canary(port=port)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = tcp.accept()
            except OSError:
                return
            found.tcp.append(peer)
            conn.close()

    def receive() -> None:
        while not stop.is_set():
            try:
                _, peer = udp.recvfrom(4096)
            except OSError:
                return
            found.udp.append(peer)

    threads = [threading.Thread(target=f, daemon=True) for f in (accept, receive)]
    for thread in threads:
        thread.start()
    try:
        yield found
    finally:
        stop.set()
        for sock in (tcp, udp):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
