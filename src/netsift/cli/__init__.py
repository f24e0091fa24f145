"""The `netsift` command: human output on a terminal, JSON in and out for agent harnesses.

`main` first offers a one-shot `--json` call to a running `netsift serve` when
NETSIFT_HANDOFF names one (`netsift/handoff.py`: a small client, none of the command line's
imports), and loads the command line (typer and every command, `commands.py`) only when the
call is not handed off.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

# httpx's __init__ imports its own command line (`httpx._main`: click, rich.progress,
# rich.syntax, pygments' lexers) whenever those happen to be installed, and typer's dependency
# on rich installs them: ~40 ms of CPU on every netsift command for a CLI it never runs. A None
# entry makes that import fail the way httpx expects when its `cli` extra is absent, and httpx
# falls back to its stub `main`. Only the netsift process is affected; the library leaves it.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

if TYPE_CHECKING:
    from .commands import app

__all__ = ["app", "main"]


def main() -> None:
    from ..handoff import hand_off

    handed = hand_off(sys.argv[1:])
    if handed is not None:
        raise SystemExit(handed)
    from .commands import app

    app()


def __getattr__(name: str) -> Any:
    """`netsift.cli.app`, the typer app, loaded on first use."""
    if name == "app":
        from .commands import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
