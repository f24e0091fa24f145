"""Per-test counters and knobs of the offline web, shared between the server thread and tests.

The site counts every request by (host, path) so a test can prove what the server saw (one
robots.txt per origin, no request when the guard refuses, retries of a 503). `reset()` runs
before each test. `stopping` is set at shutdown so that slow responses end with the server.
"""

from __future__ import annotations

import threading
from collections import Counter


class SiteState:
    """Thread-safe request counts keyed by "host/path" plus free-form knobs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hits: Counter[str] = Counter()
        self.knobs: dict[str, object] = {}
        # Set when the server shuts down: slow and endless responses end at once.
        self.stopping = threading.Event()

    def record(self, host: str, path: str) -> int:
        """Count one request; returns the count including this one."""
        key = f"{host}{path}"
        with self._lock:
            self._hits[key] += 1
            return self._hits[key]

    def hits(self, host: str, path: str | None = None) -> int:
        """Requests seen for host+path, or for the whole host when path is None."""
        with self._lock:
            if path is not None:
                return self._hits[f"{host}{path}"]
            return sum(n for key, n in self._hits.items() if key.split("/", 1)[0] == host)

    def requested(self, host: str) -> list[str]:
        """The paths (with their queries) asked of a host, each once."""
        with self._lock:
            return [key[len(host) :] for key in self._hits if key.split("/", 1)[0] == host]

    def total(self) -> int:
        with self._lock:
            return sum(self._hits.values())

    def reset(self) -> None:
        with self._lock:
            self._hits.clear()
            self.knobs.clear()
