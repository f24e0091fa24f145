"""Serve netsift's offline tour until Ctrl-C: `.venv/bin/python -m tests.offline_web`.

It writes the env file (`--env-file`, default `offline.env` here, git-ignored: the settings that
point netsift at the local servers, then the tour's commands as comments; see `tour.py`), prints
how to use it and the tour, and serves the offline web (on port 8000, the docs' examples' port,
unless `--port` says otherwise or it is taken), every provider simulator and the scripted model
on 127.0.0.1, with a scratch data directory removed on exit.
"""

from __future__ import annotations

import argparse
import shlex
import signal
import socket
import sys
import threading
from pathlib import Path
from types import FrameType

from tests.offline_web.tour import LOOPBACK, WEB_PORT, Tour


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.offline_web", description=__doc__)
    parser.add_argument(
        "--env-file",
        default="offline.env",
        help="where to write the settings and the tour (default: offline.env, git-ignored)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=WEB_PORT,
        help=f"the offline web's port (default {WEB_PORT}, the docs' examples'; 0: any free one)",
    )
    return parser.parse_args()


def _free(port: int) -> bool:
    if port == 0:
        return True
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
        return True


def main() -> None:
    arguments = _arguments()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    port = arguments.port
    if not _free(port):
        sys.stderr.write(
            f"offline tour: port {port} is taken, serving the offline web on another one: "
            "write the port the tour prints into the docs' examples\n"
        )
        port = 0
    env_path = Path(arguments.env_file)
    shown = shlex.quote(arguments.env_file)
    with Tour.start(web_port=port) as tour:
        env_path.write_text(tour.env_file(shown), "utf-8")
        sys.stdout.write(
            f"offline tour running on {LOOPBACK}: keep this terminal open (Ctrl-C stops it) "
            f"and open a second one there: set -a; . {shown}; set +a; PATH=$PWD/.venv/bin:$PATH\n"
            f"# settings written to {env_path}; then try:\n" + "\n".join(tour.tour_lines()) + "\n"
        )
        sys.stdout.flush()
        stop.wait()
    env_path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
