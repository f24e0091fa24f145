"""CPU cost of the server's body-depth check (server/body_bounds.py) against the JSON parse it
guards, in the same run: a typical search body, 1 MiB nested deep (refused), 1 MiB wide (read).

    PYTHONPATH=src python bench/body_depth.py
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from netsift.errors import InvalidInput
from netsift.server.body_bounds import check_depth

MIB = 1 << 20
BODIES = {
    "typical search body": json.dumps(
        {"query": "rust async runtime", "count": 10, "providers": ["brave", "tavily"]}
    ).encode(),
    "1 MiB nested deep": b"[" * MIB,
    "1 MiB wide, shallow": b"[" + b"[]," * (MIB // 3) + b"[]]",
}


def cpu_seconds(call: Callable[[], object], rounds: int) -> float:
    started = time.process_time()
    for _ in range(rounds):
        try:
            call()
        except (InvalidInput, RecursionError):
            pass
    return (time.process_time() - started) / rounds


def main() -> None:
    for name, body in BODIES.items():
        rounds = 20_000 if len(body) < 4096 else 5
        check = cpu_seconds(lambda b=body: check_depth(b), rounds)  # type: ignore[misc]
        parse = cpu_seconds(lambda b=body: json.loads(b), rounds)  # type: ignore[misc]
        print(
            f"{name:22} check {check * 1e3:8.3f} ms  json.loads {parse * 1e3:8.3f} ms  "
            f"check/parse {check / parse:6.2f}x"
        )


if __name__ == "__main__":
    main()
