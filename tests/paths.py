"""Where tests find the repository and the shared reference data beside it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["REPO", "SHARED"]

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NETSIFT_SHARED_DIR", REPO.parent / "shared")).resolve()
