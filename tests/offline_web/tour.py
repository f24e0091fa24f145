"""The offline tour: every local server netsift needs to show what it does, and the commands.

    .venv/bin/python -m tests.offline_web                  # terminal 1: serves until Ctrl-C
    set -a; . ./offline.env; set +a                        # terminal 2
    netsift search "rust async runtime" -p tavily,brave    # and the rest of the printed tour

`Tour.start()` serves the offline web (on the port the docs' examples name, `WEB_PORT`, when it
is free), every provider simulator (their results link to pages the `linked` server really
serves), and the scripted OpenAI-compatible model, the rest each on 127.0.0.1:<random port>,
with a scratch data directory made for this run and removed after it, so trying netsift never
fills the user's own cache, jobs or discoveries. `env_file()` is what `python -m
tests.offline_web` writes to its env file (git-ignored `offline.env` by default): the settings
(host pins, the loopback as the one network the SSRF guard lets through, provider URLs and test
keys, the model) followed by the tour as comments — `#   $ command` lines, each of which works
as printed in a shell that loaded the file (`tests/e2e/test_tour.py` runs them all). A command
ending in ` &` runs in the background. The tour shows every door: search, fetch, meta, map,
crawl, render (when the `browser` extra and a Chromium are there), research, the HTTP API with
its web page and the Tavily, SearXNG and Firecrawl APIs, and MCP.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from netsift.config import Settings
from netsift.render.step import browser_available
from tests.integration.research.web import QUESTION
from tests.offline_web import linked
from tests.offline_web.fixtures import OfflineWeb
from tests.offline_web.llm import MODEL, LLMState, create_app
from tests.offline_web.providers import build_app as build_sims
from tests.offline_web.providers import new_state
from tests.offline_web.providers.fixtures import ProviderSims
from tests.offline_web.server import serve
from tests.offline_web.site import HOSTS, build_app
from tests.offline_web.state import SiteState

__all__ = [
    "COMMAND_PREFIX",
    "END",
    "FAILING_PROVIDER",
    "PORTS_PREFIX",
    "WEB_PORT",
    "Tour",
    "parse_env_file",
    "parse_ports",
]

LOOPBACK = "127.0.0.1"
# Only the one address every server here listens on: the guard stays shut for the rest of
# the loopback and every private range.
ALLOW = f"{LOOPBACK}/32"
# The tour's failover: this simulator answers 500 for as long as the tour runs.
FAILING_PROVIDER = "tavily"
COMMAND_PREFIX = "#   $ "
END = "# end of the offline tour"
PORTS_PREFIX = "# ports: "
# The offline web's port in the docs' examples (`http://news.test:8000/article`): the tour
# serves there when it can, so an example pasted from the README works as written.
WEB_PORT = 8000
# curl in the tour: fail on an HTTP error (showing its body), and wait for `netsift serve`,
# started in the background just before, to accept connections.
CURL = "curl -sS --fail-with-body --retry 30 --retry-connrefused --retry-delay 1"


def _free_port() -> int:
    """A port for `netsift serve` in the tour (bound and released; nothing else races here)."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class Tour:
    web: OfflineWeb
    sims: ProviderSims
    linked_port: int
    llm_port: int
    data_dir: Path
    serve_port: int

    @classmethod
    @contextlib.contextmanager
    def start(cls, web_port: int = 0) -> Iterator[Tour]:
        """Every server of the tour, running until the block ends; the data dir goes with it.
        `web_port` is the offline web's (0: any free one)."""
        site_state = SiteState()
        data_dir = Path(tempfile.mkdtemp(prefix="netsift-offline-tour-"))
        try:
            with (
                serve(build_app(site_state), port=web_port, timeout_graceful_shutdown=1) as site,
                serve(linked.build_app(), timeout_graceful_shutdown=1) as pages,
                serve(create_app(LLMState()), timeout_graceful_shutdown=1) as model,
            ):
                sim_state = new_state(link_port=pages.port)
                sim_state[FAILING_PROVIDER].set("server_error")
                with serve(build_sims(sim_state), timeout_graceful_shutdown=1) as sims_server:
                    try:
                        yield cls(
                            web=OfflineWeb(port=site.port, hosts=HOSTS, state=site_state),
                            sims=ProviderSims(port=sims_server.port, state=sim_state),
                            linked_port=pages.port,
                            llm_port=model.port,
                            data_dir=data_dir,
                            serve_port=_free_port(),
                        )
                    finally:
                        site_state.stopping.set()
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)

    def env(self) -> dict[str, str]:
        """The settings that point netsift at the tour, as environment variables."""
        pins = [*self.sims.pins, *self.web.pins, *(f"{h}:{LOOPBACK}" for h in linked.HOSTS)]
        return {
            **self.sims.env(),
            "NETSIFT_RESOLVE": ",".join(dict.fromkeys(pins)),
            "NETSIFT_ALLOW_NETWORKS": ALLOW,
            # Providers whose results link to the tour's pages (wikipedia's name its own).
            "NETSIFT_PROVIDERS": "duckduckgo,brave",
            "NETSIFT_DATA_DIR": str(self.data_dir),
            "NETSIFT_LLM_MODEL": MODEL,
            "OPENAI_BASE_URL": f"http://{LOOPBACK}:{self.llm_port}/v1",
            "OPENAI_API_KEY": "offline-tour",
        }

    def commands(self) -> list[tuple[str, str]]:
        """(what it shows, the command) in the order a newcomer would try them."""
        article = self.web.url("news.test", "/article")
        site = self.web.url("map.test", "/")
        result = f"http://docs.corpus.test:{self.linked_port}/rust-async-runtime"
        question = shlex.quote(QUESTION)
        api = f"http://{LOOPBACK}:{self.serve_port}"
        json_body = "-H 'content-type: application/json' -d"
        search_body = shlex.quote(
            '{"query": "rust async runtime", "count": 2, "providers": ["brave"]}'
        )
        tavily_body = shlex.quote('{"query": "rust async runtime", "max_results": 2}')
        scrape_body = shlex.quote(f'{{"url": "{article}", "formats": ["markdown"]}}')
        tool_args = shlex.quote('{"query": "rust async runtime", "count": 2}')
        commands = [
            (
                f"search with a failover: {FAILING_PROVIDER}'s simulator answers 500, brave then",
                f"netsift search 'rust async runtime' -p {FAILING_PROVIDER},brave -n 3",
            ),
            (
                "search several providers at once, merged and ranked",
                "netsift search 'rust async runtime' -p duckduckgo,brave,searxng --merge -n 5",
            ),
            (
                "fetch a result: every result links to a page the offline web serves",
                f"netsift fetch {result}",
            ),
            (
                "fetch a cluttered news article as Markdown",
                f"netsift fetch {article} --max-length 800",
            ),
            ("its link-preview card", f"netsift meta {article}"),
            (
                "map a site: its sitemaps (nested, gzipped), feeds and links, no page read",
                f"netsift map {site} --limit 10",
            ),
            (
                "crawl it: breadth-first within its scope and robots.txt, duplicates dropped",
                f"netsift crawl {site} --max-pages 5",
            ),
        ]
        if browser_available(Settings(_env_file=None)):
            commands.append(
                (
                    "a page whose text exists only after its JavaScript ran: the guarded browser",
                    f"netsift fetch {self.web.url('spa.test', '/article')} --render auto",
                )
            )
        return [
            *commands,
            (
                "research without a model: an extractive answer, every citation verified",
                f"NETSIFT_LLM_MODEL= netsift research {question} --depth quick",
            ),
            (
                "research with the scripted model: it plans, reads and cites; netsift verifies",
                f"netsift research {question} --depth quick",
            ),
            (
                "the HTTP API in the background (stop it with: kill %1)",
                f"netsift serve --port {self.serve_port} &",
            ),
            ("ask it for a search", f"{CURL} -X POST {api}/v1/search {json_body} {search_body}"),
            ("its web page (open it in a browser)", f"{CURL} {api}/ | grep -o '<title>.*</title>'"),
            (
                "a Tavily client's search (tavily-python: api_base_url=…/tavily)",
                f"{CURL} -X POST {api}/tavily/search {json_body} {tavily_body}",
            ),
            (
                "a SearXNG client's search (LangChain, Open WebUI: the SearXNG URL)",
                f"{CURL} '{api}/search?q=rust+async+runtime&format=json'",
            ),
            (
                "a Firecrawl client's scrape (firecrawl-py: api_url=…)",
                f"{CURL} -X POST {api}/v2/scrape {json_body} {scrape_body}",
            ),
            (
                "an MCP host (the official SDK's client) starts `netsift mcp` and calls a tool",
                f"python -m tests.offline_web.mcp_call web_search {tool_args}",
            ),
        ]

    def ports_line(self) -> str:
        """Which port serves what; the docs test writes examples' `.test` addresses with it."""
        ports = {
            "web": self.web.port,
            "pages": self.linked_port,
            "providers": self.sims.port,
            "model": self.llm_port,
            "serve": self.serve_port,
        }
        return " ".join(f"{name}={port}" for name, port in ports.items())

    def env_file(self, path: str = "offline.env") -> str:
        """The env file (written at `path`): the settings, then the tour as comments; `END` is
        its last line."""
        lines = [f"{name}={value}" for name, value in sorted(self.env().items())]
        lines += [
            "",
            "# netsift's offline tour: the offline web, every search provider's simulator and a",
            "# scripted OpenAI-compatible model on 127.0.0.1, with a scratch data directory",
            f"# ({self.data_dir}, removed when the tour stops). Load this file, then try:",
            f"#   set -a; . {shlex.quote(path)}; set +a; PATH=$PWD/.venv/bin:$PATH",
            f"{PORTS_PREFIX}{self.ports_line()}",
            *self.tour_lines(),
        ]
        return "\n".join(lines) + "\n"

    def tour_lines(self) -> list[str]:
        """The commands as comment lines (with what each shows), ending with `END`."""
        lines: list[str] = []
        for note, command in self.commands():
            lines += ["#", f"# {note}", f"{COMMAND_PREFIX}{command}"]
        return [*lines, END]


def parse_env_file(text: str) -> tuple[dict[str, str], list[str]]:
    """The variables and the tour's commands of an `env_file()`."""
    env: dict[str, str] = {}
    commands: list[str] = []
    for line in text.splitlines():
        if line.startswith(COMMAND_PREFIX):
            commands.append(line.removeprefix(COMMAND_PREFIX))
        elif line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            env[name] = value
    return env, commands


def parse_ports(text: str) -> dict[str, int]:
    """The `# ports:` line of an `env_file()`: {"web": …, "pages": …, "providers": …, …}."""
    for line in text.splitlines():
        if line.startswith(PORTS_PREFIX):
            pairs = (item.split("=") for item in line.removeprefix(PORTS_PREFIX).split())
            return {name: int(port) for name, port in pairs}
    raise ValueError("no ports line in this env file")
