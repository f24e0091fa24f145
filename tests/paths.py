"""Where tests find the repository and the reference data it carries.

Nothing a test reads lies outside the repository: a clone with nothing beside it collects and
passes. The recorded provider exchanges live in `tests/offline_web/providers/data/` and are the
one copy both the simulators and the parser tests read.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PROVIDER_DATA", "REPO"]

REPO = Path(__file__).resolve().parents[1]
PROVIDER_DATA = REPO / "tests" / "offline_web" / "providers" / "data"
