"""How much memory the browser holds: the proportional set of a process tree, from /proc.

Chromium is many processes (browser, GPU, network, one renderer per site) under Playwright's
driver; the ceiling applies to their sum. The sum is of PSS (each shared page split between
the processes that map it), not RSS: Chromium's processes share most of their code and fonts,
and a sum of resident sets counts those once per process (a browser at ~560 MiB of PSS summed
to over 1 GiB of RSS, past the default ceiling, and was restarted every few renders;
bench/README.md). Linux only: elsewhere the tree reads as empty and the ceiling is not
enforced (`tree_pss` returns 0).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["descendants", "parse_stat_ppid", "pss_bytes", "tree_pss"]

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


def pss_bytes(pid: int) -> int:
    """Proportional set size of one process (0 when it is gone or unreadable); the resident
    set where the kernel has no smaps_rollup (before Linux 4.14)."""
    for name, key in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            for line in (PROC / str(pid) / name).read_text().splitlines():
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return 0


def tree_pss(pids: list[int]) -> int:
    """Sum of the proportional sets of `pids`: what the tree holds, shared pages counted once."""
    return sum(pss_bytes(pid) for pid in pids)
