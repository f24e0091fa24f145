"""How much memory the browser holds: the resident set of a process tree, read from /proc.

Chromium is many processes (browser, GPU, network, one renderer per site) under Playwright's
driver; the ceiling applies to their sum. Linux only: elsewhere the tree reads as empty and
the ceiling is not enforced (`tree_rss` returns 0).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["descendants", "parse_stat_ppid", "rss_bytes", "tree_rss"]

PROC = Path("/proc")


def parse_stat_ppid(stat: str) -> int | None:
    """The parent pid from a /proc/PID/stat line (the name may hold spaces and parens); pure."""
    tail = stat.rpartition(")")[2].split()
    return int(tail[1]) if len(tail) > 1 and tail[1].isdigit() else None


def descendants(root: int) -> list[int]:
    """Every process below `root` (children, grandchildren…), from one pass over /proc."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e for e in os.listdir(PROC) if e.isdigit()]
    except OSError:
        return []
    for entry in entries:
        try:
            ppid = parse_stat_ppid((PROC / entry / "stat").read_text())
        except OSError:
            continue
        if ppid is not None:
            children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def rss_bytes(pid: int) -> int:
    """Resident set size of one process (0 when it is gone or unreadable)."""
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def tree_rss(pids: list[int]) -> int:
    """Sum of the resident sets of `pids` (shared pages counted per process: an upper bound)."""
    return sum(rss_bytes(pid) for pid in pids)
