"""A shell for tests that run commands against the offline tour, as a newcomer would.

    with tour_shell(home=tmp_path) as shell:
        done = shell.run("netsift search 'rust async runtime'")

`tour_shell` starts `python -m tests.offline_web` as a subprocess (what the README tells people
to run, with its env file under `home` and the offline web on any free port), waits for the tour
it prints, reads the env file it wrote, and runs commands with `bash -c` in the repository with
that environment loaded, this virtualenv's `bin/` first on PATH and HOME pointed at `home` (so
a test can prove nothing reached the user's own data directory). A command ending in ` &` is
started in the background and stopped when the block ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.offline_web.tour import END, parse_env_file
from tests.paths import REPO

__all__ = ["COMMAND_TIMEOUT", "TourShell", "tour_shell"]

# Generous for 2 shared cores: a research run takes 2-3 s alone, a CLI start about 1 s.
COMMAND_TIMEOUT = 90.0
STOP_TIMEOUT = 10.0


@dataclass
class TourShell:
    printed: str  # what the tour printed on stdout, its last line `END`
    env_text: str
    tour_env: dict[str, str]
    commands: list[str]
    env: dict[str, str]
    background: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def run(
        self, command: str, *, timeout: float = COMMAND_TIMEOUT
    ) -> subprocess.CompletedProcess[str]:
        """Run `command` in bash; a trailing ` &` starts it in the background (status 0)."""
        if command.rstrip().endswith(" &"):
            process = subprocess.Popen(
                ["bash", "-c", command.rstrip().removesuffix("&")],
                cwd=REPO,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.background.append(process)
            return subprocess.CompletedProcess(command, 0, "", "")
        return subprocess.run(
            ["bash", "-c", command],
            cwd=REPO,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def stop_background(self) -> None:
        for process in self.background:
            process.terminate()
        for process in self.background:
            try:
                process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.background.clear()


@contextmanager
def tour_shell(home: Path) -> Iterator[TourShell]:
    """The tour running in a subprocess, and a shell with its env file loaded."""
    env_file = home / "offline.env"
    tour = subprocess.Popen(
        [sys.executable, "-m", "tests.offline_web", "--env-file", str(env_file), "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert tour.stdout is not None
        printed = []
        while (line := tour.stdout.readline()) and line.rstrip("\n") != END:
            printed.append(line)
        if not line:
            _, err = tour.communicate(timeout=STOP_TIMEOUT)
            raise RuntimeError(f"the offline tour stopped before printing its tour:\n{err}")
        text = env_file.read_text("utf-8")
        tour_env, commands = parse_env_file(text)
        bin_dir = str(Path(sys.executable).parent)
        # A clean environment, as a newcomer's shell: nothing of the developer's netsift or
        # provider settings (keys, cache URLs) can change what the commands do.
        kept = {
            name: os.environ[name] for name in ("LANG", "LC_ALL", "TMPDIR") if name in os.environ
        }
        env = {
            **kept,
            **tour_env,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
        }
        shell = TourShell(
            printed="".join(printed) + line,
            env_text=text,
            tour_env=tour_env,
            commands=commands,
            env=env,
        )
        try:
            yield shell
        finally:
            shell.stop_background()
    finally:
        tour.terminate()
        try:
            tour.communicate(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            tour.kill()
            tour.communicate()
