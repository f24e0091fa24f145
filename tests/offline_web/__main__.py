"""Serve the offline web and every provider simulator until Ctrl-C, for trying netsift by hand.

    .venv/bin/python -m tests.offline_web > offline.env
    set -a; . ./offline.env; set +a
    netsift search "rust async runtime" -p brave
    netsift fetch http://news.test:PORT/article      # the URLs are printed on stderr

It prints the environment (host pins, the loopback allow-list, provider base URLs and test
keys) that points netsift at them: the same settings path the tests and users take.
"""

from __future__ import annotations

import sys
import time

from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.providers import build_app as build_sims
from tests.offline_web.providers import new_state
from tests.offline_web.providers.fixtures import ProviderSims
from tests.offline_web.server import serve
from tests.offline_web.site import HOSTS, build_app
from tests.offline_web.state import SiteState


def main() -> None:
    site_state = SiteState()
    with (
        serve(build_app(site_state), timeout_graceful_shutdown=1) as site,
        serve(build_sims(new_state()), timeout_graceful_shutdown=1) as sims_server,
    ):
        web = OfflineWeb(port=site.port, hosts=HOSTS, state=site_state)
        sims = ProviderSims(port=sims_server.port, state=new_state())
        env = {**sims.env(), **web.env()}
        env["NETSIFT_RESOLVE"] = ",".join(sims.pins + web.pins)
        for name, value in sorted(env.items()):
            print(f"{name}={value}")
        sys.stdout.flush()
        sys.stderr.write(f"offline web: {web.url('news.test', '/article')} and more\n")
        sys.stderr.write("serving; Ctrl-C to stop\n")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            site_state.stopping.set()


if __name__ == "__main__":
    main()
