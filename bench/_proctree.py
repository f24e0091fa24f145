"""A process tree's CPU and memory, by role, from /proc (standard library only).

Shared by bench/render.py's two contenders, each run in an interpreter of its own (netsift's
venv and the peer's), so that both are measured by the same code: whole process trees, PSS
(shared pages split between the processes sharing them; RSS would count Chromium's shared
libraries once per process), sampled every `SAMPLE_SECONDS`. Linux only.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

SAMPLE_SECONDS = 0.05
TICKS = os.sysconf("SC_CLK_TCK")
PROC = Path("/proc")


def _stat(pid: int) -> list[str]:
    return (PROC / str(pid) / "stat").read_text().rpartition(")")[2].split()


def tree(root: int) -> dict[int, int | None]:
    """`root` and every process below it, each with its parent, from one pass over /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir(PROC):
        if entry.isdigit():
            try:
                children.setdefault(int(_stat(int(entry))[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    found: dict[int, int | None] = {root: None}
    stack = [(child, root) for child in children.get(root, [])]
    while stack:
        pid, parent = stack.pop()
        found[pid] = parent
        stack.extend((child, pid) for child in children.get(pid, []))
    return found


def descendants(root: int) -> list[int]:
    """Every process below `root`."""
    return [pid for pid in tree(root) if pid != root]


def cpu_seconds(pids: list[int]) -> float:
    """CPU time of live processes and of the children they reaped (utime, stime, cutime,
    cstime): a browser restarted or a renderer ended mid-run still counts, in its parent."""
    total = 0
    for pid in pids:
        try:
            total += sum(int(field) for field in _stat(pid)[11:15])
        except (OSError, IndexError, ValueError):
            continue
    return total / TICKS


def pss_bytes(pid: int) -> int:
    try:
        for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return 0


def _argv(pid: int) -> list[str]:
    try:
        argv = (PROC / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []
    # Chromium's children rewrite their title into one space-separated string
    return argv[0].split(" ") if len([a for a in argv if a]) == 1 else argv


def role(pid: int, root: int, parent: int | None) -> str:
    """What a process of the tree is: the contender's own process, its Python helpers, the
    Playwright driver, or a Chromium process by its `--type` (utility by sub-type). Read at
    every sample: a fork shows its parent's command line until it runs its own."""
    if pid == root:
        return "python main"
    argv = _argv(pid)
    exe = Path(argv[0]).name if argv and argv[0] else ""
    joined = " ".join(argv)
    if "multiprocessing.forkserver" in joined:
        parent_is_server = parent is not None and "forkserver" in " ".join(_argv(parent))
        return "python pool worker" if parent_is_server else "python forkserver"
    if "multiprocessing.resource_tracker" in joined:
        return "python resource tracker"
    if exe.startswith("python"):
        return "python other"
    if exe == "node" or "run-driver" in joined:
        return "playwright driver (node)"
    if "chrom" in exe or "headless_shell" in exe:
        kind = next((a.split("=", 1)[1] for a in argv if a.startswith("--type=")), "browser")
        if kind == "utility":
            sub = next(
                (a.split("=", 1)[1] for a in argv if a.startswith("--utility-sub-type=")), "?"
            )
            kind = f"utility {sub.split('.')[0]}"
        if "--top-chrome-webui" in argv:
            kind += " (top-chrome WebUI)"
        return f"chromium {kind}"
    return f"other ({exe or 'starting or exiting'})"


class Sampler:
    """Peak PSS of a process tree, and what each role held at that peak."""

    def __init__(self, root: int | None = None) -> None:
        self.root = root or os.getpid()
        self.peak = 0
        self.at_peak: dict[str, list[int]] = {}
        self._stop = asyncio.Event()

    def sample(self) -> None:
        parents = tree(self.root)
        held: dict[str, list[int]] = {}
        for pid, parent in parents.items():
            count_pss = held.setdefault(role(pid, self.root, parent), [0, 0])
            count_pss[0] += 1
            count_pss[1] += pss_bytes(pid)
        total = sum(pss for _, pss in held.values())
        if total > self.peak:
            self.peak, self.at_peak = total, held

    async def run(self) -> None:
        while not self._stop.is_set():
            await asyncio.to_thread(self.sample)
            await asyncio.sleep(SAMPLE_SECONDS)

    def stop(self) -> None:
        self._stop.set()

    def breakdown(self) -> dict[str, list[int]]:
        """role -> [processes, PSS bytes] at the peak."""
        return dict(sorted(self.at_peak.items(), key=lambda kv: -kv[1][1]))
