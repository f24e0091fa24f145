"""Playwright's driver: the Node.js process the browser is driven through, and its memory.

Playwright's Python API starts a Node.js process of its own and relays every call and every
intercepted request through it (interceptor.py routes all of a render's requests, so it is
busy). V8 grows its young generation's semi-spaces up to 16 MiB each for a busy process; a
driver that relays renders kept them at the top: ~30 MiB more PSS than with 1 MiB ones, at
no measurable cost in pages/s or CPU per page (bench/README.md, render). Playwright has no
setting for the driver's options: it starts the driver with a copy of this process's
environment, so `NODE_OPTIONS` carries them, set for the moment the driver starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DRIVER_NODE_OPTIONS", "driver_environment", "node_options"]

# V8's semi-space ceiling in MiB (its 64-bit default is 16): the driver's messages are small
# and short-lived, so a small young generation is collected often and cheaply.
DRIVER_NODE_OPTIONS = ("--max-semi-space-size=1",)


def node_options(configured: str | None) -> str:
    """`NODE_OPTIONS` for the driver: the operator's own, plus ours that they did not set."""
    options = (configured or "").split()
    for option in DRIVER_NODE_OPTIONS:
        name = option.split("=", 1)[0]
        if not any(o == name or o.startswith(name + "=") for o in options):
            options.append(option)
    return " ".join(options)


@contextmanager
def driver_environment() -> Iterator[None]:
    """While the driver starts: `NODE_OPTIONS` as `node_options` says, then as it was.

    Playwright copies the environment before its first await in starting the driver; the
    window is that start, and no other Node.js process is started from this one.
    """
    before = os.environ.get("NODE_OPTIONS")
    os.environ["NODE_OPTIONS"] = node_options(before)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("NODE_OPTIONS", None)
        else:
            os.environ["NODE_OPTIONS"] = before
