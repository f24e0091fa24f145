"""Serve netsift's offline tour until Ctrl-C: `.venv/bin/python -m tests.offline_web > offline.env`.

It prints the env file on stdout (the settings that point netsift at the local servers, then
the tour's commands as comments; see `tour.py`) and serves the offline web, every provider
simulator and the scripted model on 127.0.0.1, with a scratch data directory removed on exit.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

from tests.offline_web.tour import Tour


def main() -> None:
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with Tour.start() as tour:
        sys.stdout.write(tour.env_file())
        sys.stdout.flush()
        sys.stderr.write("offline tour: serving on 127.0.0.1; Ctrl-C to stop\n")
        stop.wait()


if __name__ == "__main__":
    main()
